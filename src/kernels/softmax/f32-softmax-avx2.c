/* kernels/softmax/f32-softmax-avx2.c -- row softmax with 8-wide vectors.
 *
 * exp(r) for r <= 0 is the eltwise family's polynomial (f32-exp-avx2.h).  Inputs below -87
 * give 0 (the terms vanish against the sum, which is >= 1). */
#include "kernels/softmax/softmax-ukernels.h"
#include "kernels/eltwise/f32-exp-avx2.h"

#include <immintrin.h>
#include <math.h>

#define exp_neg hd_f32_exp_neg_avx2

static inline float hsum(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

static inline float hmax(__m256 v)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

/* Lanes below `left` (at most 8) set. */
static inline __m256i tailmask(size_t left)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(left > 8 ? 8 : left)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The tail of a row (n % 8 floats at x) as a vector, -inf in the lanes past it: they drop out
 * of the maximum, and their exp is 0. */
static inline __m256 tail_ninf(const float *x, size_t left)
{
    __m256i k = tailmask(left);
    return _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), _mm256_maskload_ps(x, k), _mm256_castsi256_ps(k));
}

static float max_v(const float *x, size_t n)
{
    size_t n8 = n & ~(size_t)7, i;
    __m256 vm = _mm256_set1_ps(-INFINITY);
    for (i = 0; i < n8; i += 8)
        vm = _mm256_max_ps(vm, _mm256_loadu_ps(x + i));
    if (i < n)
        vm = _mm256_max_ps(vm, tail_ninf(x + i, n - i));
    return hmax(vm);
}

/* The sum of exp(x - m) over the row, the tail in a vector too (a scalar expf per tail
 * element cost more than the vectors of a short row). */
static double sumexp_v(const float *x, size_t n, float m)
{
    size_t n8 = n & ~(size_t)7, i;
    __m256 mm = _mm256_set1_ps(m), vs = _mm256_setzero_ps();
    for (i = 0; i < n8; i += 8)
        vs = _mm256_add_ps(vs, exp_neg(_mm256_sub_ps(_mm256_loadu_ps(x + i), mm)));
    if (i < n)
        vs = _mm256_add_ps(vs, exp_neg(_mm256_sub_ps(tail_ninf(x + i, n - i), mm)));
    return hsum(vs);
}

/* Long rows are normalised online, as in f32-softmax-avx512.c (same thresholds). */
#define HD_SM_ONLINE_MIN 65536
#define HD_SM_ONLINE_BLK 8192

void hd_f32_softmax_ukernel__avx2(size_t n, const float *x, float *y, float alpha, float beta, int log_mode)
{
    float m;
    double s;
    if (n >= HD_SM_ONLINE_MIN) {
        m = -INFINITY;
        s = 0.0;
        for (size_t b = 0; b < n; b += HD_SM_ONLINE_BLK) {
            size_t len = n - b < HD_SM_ONLINE_BLK ? n - b : HD_SM_ONLINE_BLK;
            float mb = max_v(x + b, len);
            if (mb != mb || isinf(mb)) {     /* NaN or infinite inputs: the scalar path's rules */
                hd_f32_softmax_ukernel__scalar(n, x, y, alpha, beta, log_mode);
                return;
            }
            double sb = sumexp_v(x + b, len, mb);
            if (mb > m) {
                s = s * exp((double)m - (double)mb) + sb;
                m = mb;
            } else {
                s += sb * exp((double)mb - (double)m);
            }
        }
    } else {
        m = max_v(x, n);
        if (m != m || isinf(m)) {            /* NaN or infinite inputs: the scalar path's rules */
            hd_f32_softmax_ukernel__scalar(n, x, y, alpha, beta, log_mode);
            return;
        }
        s = sumexp_v(x, n, m);
    }
    size_t n8 = n & ~(size_t)7, i;
    __m256 mm = _mm256_set1_ps(m);
    /* only the mode in use: a log per short row is a good part of its time */
    float ls = log_mode ? (float)log(s) : 0.0f, inv = log_mode ? 0.0f : (float)(1.0 / s);
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta), vinv = _mm256_set1_ps(inv);
    const __m256 vls = _mm256_set1_ps(ls);
    for (i = 0; i < n8; i += 8) {
        __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), mm);
        __m256 v = log_mode ? _mm256_sub_ps(d, vls) : _mm256_mul_ps(exp_neg(d), vinv);
        v = _mm256_mul_ps(va, v);
        if (beta != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(vb, _mm256_loadu_ps(y + i)));
        _mm256_storeu_ps(y + i, v);
    }
    if (i < n) {
        __m256i k = tailmask(n - i);
        __m256 d = _mm256_sub_ps(tail_ninf(x + i, n - i), mm);
        __m256 v = log_mode ? _mm256_sub_ps(d, vls) : _mm256_mul_ps(exp_neg(d), vinv);
        v = _mm256_mul_ps(va, v);
        if (beta != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(vb, _mm256_maskload_ps(y + i, k)));
        _mm256_maskstore_ps(y + i, k, v);
    }
}

/* 8 columns whose maxima VM are known, row by row (the fallback of the blocked kernel for
 * blocks with a NaN or infinite maximum); sums in double (two __m256d halves). */
static void cols8(size_t c, const float *x, size_t ldx, float *y, size_t ldy, float alpha, float beta, int log_mode,
                  __m256 vm)
{
    /* NaN or infinite maxima: the scalar path's rules */
    if (_mm256_movemask_ps(_mm256_cmp_ps(_mm256_sub_ps(vm, vm), _mm256_setzero_ps(), _CMP_NEQ_UQ))) {
        hd_f32_softmax_ukernel_cols__scalar(c, 8, x, ldx, y, ldy, alpha, beta, log_mode);
        return;
    }
    __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
    for (size_t k = 0; k < c; k++) {
        __m256 v = exp_neg(_mm256_sub_ps(_mm256_loadu_ps(x + k * ldx), vm));
        s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }
    double sd[8];
    _mm256_storeu_pd(sd, s0);
    _mm256_storeu_pd(sd + 8 / 2, s1);
    float lsv[8], invv[8];
    for (int l = 0; l < 8; l++) {
        lsv[l] = (float)log(sd[l]);
        invv[l] = (float)(1.0 / sd[l]);
    }
    const __m256 vls = _mm256_loadu_ps(lsv), vinv = _mm256_loadu_ps(invv);
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    for (size_t k = 0; k < c; k++) {
        __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + k * ldx), vm);
        __m256 v = log_mode ? _mm256_sub_ps(d, vls) : _mm256_mul_ps(exp_neg(d), vinv);
        v = _mm256_mul_ps(va, v);
        float *o = y + k * ldy;
        if (beta != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(vb, _mm256_loadu_ps(o)));
        _mm256_storeu_ps(o, v);
    }
}

static inline __m256d lo4(__m256 v) { return _mm256_cvtps_pd(_mm256_castps256_ps128(v)); }
static inline __m256d hi4(__m256 v) { return _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)); }

/* A block of W columns (a multiple of 8) with finite maxima M, row by row: the AVX-512
 * kernel's block_rows with 8-wide vectors (same passes, same per-column arithmetic as cols8). */
static void block_rows(size_t c, size_t w, const float *x, size_t ldx, float *y, size_t ldy, float alpha, float beta,
                       int log_mode, const float *m)
{
    double s[HD_SM_MAX_COLS] __attribute__((aligned(32)));
    float f[HD_SM_MAX_COLS] __attribute__((aligned(32)));
    int keep = !log_mode && beta == 0.0f;
    for (size_t j = 0; j < w; j += 4)
        _mm256_store_pd(s + j, _mm256_setzero_pd());
    size_t k = 0;
    for (; k + 4 <= c; k += 4) {
        const float *x0 = x + k * ldx, *x1 = x0 + ldx, *x2 = x1 + ldx, *x3 = x2 + ldx;
        float *y0 = y + k * ldy, *y1 = y0 + ldy, *y2 = y1 + ldy, *y3 = y2 + ldy;
        for (size_t j = 0; j < w; j += 8) {
            __m256 mj = _mm256_load_ps(m + j);
            __m256 e0 = exp_neg(_mm256_sub_ps(_mm256_loadu_ps(x0 + j), mj));
            __m256 e1 = exp_neg(_mm256_sub_ps(_mm256_loadu_ps(x1 + j), mj));
            __m256 e2 = exp_neg(_mm256_sub_ps(_mm256_loadu_ps(x2 + j), mj));
            __m256 e3 = exp_neg(_mm256_sub_ps(_mm256_loadu_ps(x3 + j), mj));
            __m256d a = _mm256_load_pd(s + j), b = _mm256_load_pd(s + j + 4);
            a = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a, lo4(e0)), lo4(e1)), lo4(e2)), lo4(e3));
            b = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_add_pd(b, hi4(e0)), hi4(e1)), hi4(e2)), hi4(e3));
            _mm256_store_pd(s + j, a);
            _mm256_store_pd(s + j + 4, b);
            if (keep) {
                _mm256_storeu_ps(y0 + j, e0);
                _mm256_storeu_ps(y1 + j, e1);
                _mm256_storeu_ps(y2 + j, e2);
                _mm256_storeu_ps(y3 + j, e3);
            }
            if ((j & 15) == 0) {   /* one prefetch per 64-byte line of the next block */
                _mm_prefetch((const char *)(x0 + w + j), _MM_HINT_T1);
                _mm_prefetch((const char *)(x1 + w + j), _MM_HINT_T1);
                _mm_prefetch((const char *)(x2 + w + j), _MM_HINT_T1);
                _mm_prefetch((const char *)(x3 + w + j), _MM_HINT_T1);
            }
        }
    }
    for (; k < c; k++) {
        const float *xr = x + k * ldx;
        float *yr = y + k * ldy;
        for (size_t j = 0; j < w; j += 8) {
            __m256 v = exp_neg(_mm256_sub_ps(_mm256_loadu_ps(xr + j), _mm256_load_ps(m + j)));
            _mm256_store_pd(s + j, _mm256_add_pd(_mm256_load_pd(s + j), lo4(v)));
            _mm256_store_pd(s + j + 4, _mm256_add_pd(_mm256_load_pd(s + j + 4), hi4(v)));
            if (keep)
                _mm256_storeu_ps(yr + j, v);
        }
    }
    if (log_mode) {
        for (size_t j = 0; j < w; j++)
            f[j] = (float)log(s[j]);
    } else {
        const __m256d one = _mm256_set1_pd(1.0);
        for (size_t j = 0; j < w; j += 4)
            _mm_store_ps(f + j, _mm256_cvtpd_ps(_mm256_div_pd(one, _mm256_load_pd(s + j))));
    }
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    for (k = 0; k < c; k++) {
        const float *xr = x + k * ldx;
        float *yr = y + k * ldy;
        for (size_t j = 0; j < w; j += 8) {
            __m256 v;
            if (keep) {
                v = _mm256_mul_ps(_mm256_loadu_ps(yr + j), _mm256_load_ps(f + j));
            } else {
                __m256 d = _mm256_sub_ps(_mm256_loadu_ps(xr + j), _mm256_load_ps(m + j));
                v = log_mode ? _mm256_sub_ps(d, _mm256_load_ps(f + j)) : _mm256_mul_ps(exp_neg(d), _mm256_load_ps(f + j));
            }
            v = _mm256_mul_ps(va, v);
            if (beta != 0.0f)
                v = _mm256_add_ps(v, _mm256_mul_ps(vb, _mm256_loadu_ps(yr + j)));
            _mm256_storeu_ps(yr + j, v);
            if ((j & 15) == 0)
                __builtin_prefetch(yr + w + j, 1, 2);
        }
    }
}

/* Blocks of up to HD_SM_MAX_COLS columns (multiples of 8): maxima row by row, then
 * block_rows, or cols8 per 8 columns when a maximum is NaN or infinite; the last cols % 8
 * columns scalar. */
void hd_f32_softmax_ukernel_cols__avx2(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy,
                                       float alpha, float beta, int log_mode)
{
    float m[HD_SM_MAX_COLS] __attribute__((aligned(32)));
    size_t j0 = 0;
    while (j0 + 8 <= cols) {
        size_t w = (cols - j0) & ~(size_t)7;
        if (w > HD_SM_MAX_COLS)
            w = HD_SM_MAX_COLS;
        for (size_t j = 0; j < w; j += 8)
            _mm256_store_ps(m + j, _mm256_set1_ps(-INFINITY));
        for (size_t k = 0; k < c; k++) {
            const float *xr = x + k * ldx + j0;
            for (size_t j = 0; j < w; j += 8)
                _mm256_store_ps(m + j, _mm256_max_ps(_mm256_load_ps(m + j), _mm256_loadu_ps(xr + j)));
        }
        __m256 bad = _mm256_setzero_ps();
        for (size_t j = 0; j < w; j += 8) {
            __m256 v = _mm256_load_ps(m + j);
            bad = _mm256_or_ps(bad, _mm256_cmp_ps(_mm256_sub_ps(v, v), _mm256_setzero_ps(), _CMP_NEQ_UQ));
        }
        if (_mm256_movemask_ps(bad)) {
            for (size_t j = 0; j < w; j += 8)
                cols8(c, x + j0 + j, ldx, y + j0 + j, ldy, alpha, beta, log_mode, _mm256_load_ps(m + j));
        } else {
            block_rows(c, w, x + j0, ldx, y + j0, ldy, alpha, beta, log_mode, m);
        }
        j0 += w;
    }
    if (j0 < cols)
        hd_f32_softmax_ukernel_cols__scalar(c, cols - j0, x + j0, ldx, y + j0, ldy, alpha, beta, log_mode);
}

/* GROUPS short groups (N <= 64) kept in registers from load to store: the row kernel's
 * operations in its order (the maximum and the sum over the vectors in turn, the tail with
 * -inf lanes, the same reductions and rounding), so each group gets the row kernel's bits;
 * only x is read once and exp(x - max) computed once.  Longer groups take the row kernel. */
void hd_f32_softmax_ukernel_rows__avx2(size_t n, size_t groups, const float *x, size_t ldx, float *y, size_t ldy,
                                       float alpha, float beta, int log_mode)
{
    if (n > 64 || n == 0) {
        for (size_t g = 0; g < groups; g++)
            hd_f32_softmax_ukernel__avx2(n, x + g * ldx, y + g * ldy, alpha, beta, log_mode);
        return;
    }
    const size_t nv = (n + 7) / 8, nfull = n / 8;
    const __m256i kt = tailmask(n % 8);
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    for (size_t g = 0; g < groups; g++) {
        const float *xg = x + g * ldx;
        float *yg = y + g * ldy;
        __m256 xv[8], e[8];
        __m256 vm = _mm256_set1_ps(-INFINITY);
        for (size_t v = 0; v < nv; v++) {
            xv[v] = v < nfull ? _mm256_loadu_ps(xg + 8 * v) : tail_ninf(xg + 8 * v, n % 8);
            vm = _mm256_max_ps(vm, xv[v]);
        }
        float m = hmax(vm);
        if (m != m || isinf(m)) {            /* NaN or infinite inputs: the scalar path's rules */
            hd_f32_softmax_ukernel__scalar(n, xg, yg, alpha, beta, log_mode);
            continue;
        }
        __m256 mm = _mm256_set1_ps(m), vs = _mm256_setzero_ps();
        for (size_t v = 0; v < nv; v++) {
            xv[v] = _mm256_sub_ps(xv[v], mm);
            e[v] = exp_neg(xv[v]);
            vs = _mm256_add_ps(vs, e[v]);
        }
        double s = hsum(vs);
        if (log_mode) {
            __m256 vls = _mm256_set1_ps((float)log(s));
            for (size_t v = 0; v < nv; v++)
                e[v] = _mm256_sub_ps(xv[v], vls);
        } else {
            __m256 vinv = _mm256_set1_ps((float)(1.0 / s));
            for (size_t v = 0; v < nv; v++)
                e[v] = _mm256_mul_ps(e[v], vinv);
        }
        for (size_t v = 0; v < nv; v++) {
            __m256 o = _mm256_mul_ps(va, e[v]);
            if (v < nfull) {
                if (beta != 0.0f)
                    o = _mm256_add_ps(o, _mm256_mul_ps(vb, _mm256_loadu_ps(yg + 8 * v)));
                _mm256_storeu_ps(yg + 8 * v, o);
            } else {
                if (beta != 0.0f)
                    o = _mm256_add_ps(o, _mm256_mul_ps(vb, _mm256_maskload_ps(yg + 8 * v, kt)));
                _mm256_maskstore_ps(yg + 8 * v, kt, o);
            }
        }
    }
}
