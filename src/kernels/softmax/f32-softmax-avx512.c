/* kernels/softmax/f32-softmax-avx512.c -- row softmax with 16-wide vectors; the exp
 * polynomial is kernels/eltwise/f32-exp-avx512.h (the AVX2 twin's, 16 lanes). */
#include "kernels/softmax/softmax-ukernels.h"
#include "kernels/eltwise/f32-exp-avx512.h"

#include <immintrin.h>
#include <stdint.h>
#include <math.h>

static inline __mmask16 tail16(size_t left) { return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u); }

/* Maximum of x[0..n) (16 lanes, masked tail). */
static float max_v(const float *x, size_t n)
{
    __m512 vm = _mm512_set1_ps(-INFINITY);
    for (size_t i = 0; i < n; i += 16)
        vm = _mm512_max_ps(vm, _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), tail16(n - i), x + i));
    return _mm512_reduce_max_ps(vm);
}

/* sum exp(x[i] - m) over x[0..n), in float lanes */
static double sumexp_v(const float *x, size_t n, float m)
{
    __m512 mm = _mm512_set1_ps(m), vs = _mm512_setzero_ps();
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail16(n - i);
        vs = _mm512_add_ps(vs, _mm512_maskz_mov_ps(k, hd_f32_exp_neg_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mm))));
    }
    return _mm512_reduce_add_ps(vs);
}

/* Rows longer than this (in floats; 256 KiB) are normalised online: one pass over blocks of
 * HD_SM_ONLINE_BLK values (block in L1/L2: its max, then its exp sum) keeps a running maximum M
 * and a sum S rescaled by exp(old M - new M) in double, then one pass writes y.  x is then
 * read from memory twice instead of three times; shorter rows stay in L2 between passes. */
#define HD_SM_ONLINE_MIN 65536
#define HD_SM_ONLINE_BLK 8192

void hd_f32_softmax_ukernel__avx512(size_t n, const float *x, float *y, float alpha, float beta, int log_mode)
{
    float m;
    double s;
    if (n >= HD_SM_ONLINE_MIN) {
        m = -INFINITY;
        s = 0.0;
        for (size_t b = 0; b < n; b += HD_SM_ONLINE_BLK) {
            size_t len = n - b < HD_SM_ONLINE_BLK ? n - b : HD_SM_ONLINE_BLK;
            float mb = max_v(x + b, len);
            if (mb != mb || isinf(mb)) {
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
        if (m != m || isinf(m)) {
            hd_f32_softmax_ukernel__scalar(n, x, y, alpha, beta, log_mode);
            return;
        }
        s = sumexp_v(x, n, m);
    }
    /* only the mode in use: a log per short row is a good part of its time */
    float ls = log_mode ? (float)log(s) : 0.0f, inv = log_mode ? 0.0f : (float)(1.0 / s);
    const __m512 mm = _mm512_set1_ps(m), va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    const __m512 vinv = _mm512_set1_ps(inv), vls = _mm512_set1_ps(ls);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail16(n - i);
        __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mm);
        __m512 v = log_mode ? _mm512_sub_ps(d, vls) : _mm512_mul_ps(hd_f32_exp_neg_avx512(d), vinv);
        v = _mm512_mul_ps(va, v);
        if (beta != 0.0f)
            v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(k, y + i)));
        _mm512_mask_storeu_ps(y + i, k, v);
    }
}

/* One block of 16 columns: sums in double (two __m512d halves); NaN or infinite maxima take
 * the scalar path's rules. */
static void cols16(size_t c, size_t j, const float *x, size_t ldx, float *y, size_t ldy, float alpha, float beta,
                   int log_mode)
{
    __m512 vm = _mm512_set1_ps(-INFINITY);
    for (size_t k = 0; k < c; k++)
        vm = _mm512_max_ps(vm, _mm512_loadu_ps(x + k * ldx + j));
    if (_mm512_cmp_ps_mask(_mm512_sub_ps(vm, vm), _mm512_setzero_ps(), _CMP_NEQ_UQ)) {    /* NaN or infinite maxima: the scalar path's rules */
        hd_f32_softmax_ukernel_cols__scalar(c, 16, x + j, ldx, y + j, ldy, alpha, beta, log_mode);
        return;
    }
    __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
    for (size_t k = 0; k < c; k++) {
        __m512 v = hd_f32_exp_neg_avx512(_mm512_sub_ps(_mm512_loadu_ps(x + k * ldx + j), vm));
        s0 = _mm512_add_pd(s0, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
        s1 = _mm512_add_pd(s1, _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)));
    }
    double sd[16];
    _mm512_storeu_pd(sd, s0);
    _mm512_storeu_pd(sd + 16 / 2, s1);
    float lsv[16], invv[16];
    for (int l = 0; l < 16; l++) {
        lsv[l] = (float)log(sd[l]);
        invv[l] = (float)(1.0 / sd[l]);
    }
    const __m512 vls = _mm512_loadu_ps(lsv), vinv = _mm512_loadu_ps(invv);
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (size_t k = 0; k < c; k++) {
        __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + k * ldx + j), vm);
        __m512 v = log_mode ? _mm512_sub_ps(d, vls) : _mm512_mul_ps(hd_f32_exp_neg_avx512(d), vinv);
        v = _mm512_mul_ps(va, v);
        float *o = y + k * ldy + j;
        if (beta != 0.0f)
            v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_loadu_ps(o)));
        _mm512_storeu_ps(o, v);
    }
}

/* A block of W columns (a multiple of 16, at most HD_SM_MAX_COLS) whose maxima are all
 * finite, walked row by row: every pass streams W contiguous floats of each channel row, and
 * the block (C x W floats of x and of y) stays in L1/L2 between the passes, so x is read
 * from memory once and y written once.
 *   pass 1  m[j] = max over rows (done by the caller)
 *   pass 2  e = exp(x - m), s[j] += e in double; with beta == 0 and ACCURATE, e goes to y
 *   pass 3  ACCURATE: y = alpha * (e * (1/s)) (e read back from y, or recomputed when y must
 *           be blended); LOG: y = alpha * ((x - m) - log s)
 * Per column this is the arithmetic of cols16, so results do not depend on W. */
static inline __m512d lo8(__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
static inline __m512d hi8(__m512 v) { return _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)); }

static void block_rows(size_t c, size_t w, const float *x, size_t ldx, float *y, size_t ldy, float alpha, float beta,
                       int log_mode, const float *m, float *work)
{
    double s[HD_SM_MAX_COLS] __attribute__((aligned(64)));
    float f[HD_SM_MAX_COLS] __attribute__((aligned(64)));
    int keep = !log_mode && beta == 0.0f;      /* e is stored (in y, or in WORK) and read back in pass 3 */
    /* with WORK (C x W floats, the streaming variant): e goes there, and pass 3 writes y with
     * streaming stores when y's rows are 64-byte aligned -- y is then never read for ownership */
    float *eb = keep ? work : NULL;
    int nt = eb && ((uintptr_t)y % 64) == 0 && ldy % 16 == 0;
    for (size_t j = 0; j < w; j += 8)
        _mm512_store_pd(s + j, _mm512_setzero_pd());
    /* pass 2, four rows at a time: s = (((s + e0) + e1) + e2) + e3 is the row-by-row order.
     * The next block's rows of x (the caller's next block, or the next task this thread
     * runs) are prefetched into L2 meanwhile, so that its pass 1 does not wait on memory;
     * prefetches never fault, so running past the tensor is harmless. */
    size_t k = 0;
    for (; k + 4 <= c; k += 4) {
        const float *x0 = x + k * ldx, *x1 = x0 + ldx, *x2 = x1 + ldx, *x3 = x2 + ldx;
        float *y0 = y + k * ldy, *y1 = y0 + ldy, *y2 = y1 + ldy, *y3 = y2 + ldy;
        for (size_t j = 0; j < w; j += 16) {
            __m512 mj = _mm512_load_ps(m + j);
            __m512 e0 = hd_f32_exp_neg_avx512(_mm512_sub_ps(_mm512_loadu_ps(x0 + j), mj));
            __m512 e1 = hd_f32_exp_neg_avx512(_mm512_sub_ps(_mm512_loadu_ps(x1 + j), mj));
            __m512 e2 = hd_f32_exp_neg_avx512(_mm512_sub_ps(_mm512_loadu_ps(x2 + j), mj));
            __m512 e3 = hd_f32_exp_neg_avx512(_mm512_sub_ps(_mm512_loadu_ps(x3 + j), mj));
            __m512d a = _mm512_load_pd(s + j), b = _mm512_load_pd(s + j + 8);
            a = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a, lo8(e0)), lo8(e1)), lo8(e2)), lo8(e3));
            b = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_add_pd(b, hi8(e0)), hi8(e1)), hi8(e2)), hi8(e3));
            _mm512_store_pd(s + j, a);
            _mm512_store_pd(s + j + 8, b);
            if (eb) {
                _mm512_storeu_ps(eb + k * w + j, e0);
                _mm512_storeu_ps(eb + (k + 1) * w + j, e1);
                _mm512_storeu_ps(eb + (k + 2) * w + j, e2);
                _mm512_storeu_ps(eb + (k + 3) * w + j, e3);
            } else if (keep) {
                _mm512_storeu_ps(y0 + j, e0);
                _mm512_storeu_ps(y1 + j, e1);
                _mm512_storeu_ps(y2 + j, e2);
                _mm512_storeu_ps(y3 + j, e3);
            }
            _mm_prefetch((const char *)(x0 + w + j), _MM_HINT_T1);
            _mm_prefetch((const char *)(x1 + w + j), _MM_HINT_T1);
            _mm_prefetch((const char *)(x2 + w + j), _MM_HINT_T1);
            _mm_prefetch((const char *)(x3 + w + j), _MM_HINT_T1);
        }
    }
    for (; k < c; k++) {
        const float *xr = x + k * ldx;
        float *yr = y + k * ldy;
        for (size_t j = 0; j < w; j += 16) {
            __m512 v = hd_f32_exp_neg_avx512(_mm512_sub_ps(_mm512_loadu_ps(xr + j), _mm512_load_ps(m + j)));
            _mm512_store_pd(s + j, _mm512_add_pd(_mm512_load_pd(s + j), lo8(v)));
            _mm512_store_pd(s + j + 8, _mm512_add_pd(_mm512_load_pd(s + j + 8), hi8(v)));
            if (keep)
                _mm512_storeu_ps(eb ? eb + k * w + j : yr + j, v);
            _mm_prefetch((const char *)(xr + w + j), _MM_HINT_T1);
        }
    }
    if (log_mode) {
        for (size_t j = 0; j < w; j++)
            f[j] = (float)log(s[j]);
    } else {
        const __m512d one = _mm512_set1_pd(1.0);
        for (size_t j = 0; j < w; j += 8)
            _mm256_store_ps(f + j, _mm512_cvtpd_ps(_mm512_div_pd(one, _mm512_load_pd(s + j))));
    }
    /* pass 3; the next block's rows of y are claimed for writing meanwhile (prefetchw) */
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (k = 0; k < c; k++) {
        const float *xr = x + k * ldx;
        float *yr = y + k * ldy;
        if (eb) {
            const float *er = eb + k * w;
            for (size_t j = 0; j < w; j += 16) {
                __m512 v = _mm512_mul_ps(va, _mm512_mul_ps(_mm512_loadu_ps(er + j), _mm512_load_ps(f + j)));
                if (nt)
                    _mm512_stream_ps(yr + j, v);
                else
                    _mm512_storeu_ps(yr + j, v);
            }
            continue;
        }
        if (keep) {
            for (size_t j = 0; j < w; j += 16) {
                _mm512_storeu_ps(yr + j, _mm512_mul_ps(va, _mm512_mul_ps(_mm512_loadu_ps(yr + j), _mm512_load_ps(f + j))));
                __builtin_prefetch(yr + w + j, 1, 2);
            }
            continue;
        }
        for (size_t j = 0; j < w; j += 16) {
            __m512 d = _mm512_sub_ps(_mm512_loadu_ps(xr + j), _mm512_load_ps(m + j));
            __m512 v = log_mode ? _mm512_sub_ps(d, _mm512_load_ps(f + j)) : _mm512_mul_ps(hd_f32_exp_neg_avx512(d), _mm512_load_ps(f + j));
            v = _mm512_mul_ps(va, v);
            if (beta != 0.0f)
                v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_loadu_ps(yr + j)));
            _mm512_storeu_ps(yr + j, v);
            __builtin_prefetch(yr + w + j, 1, 2);
        }
    }
    if (nt)
        _mm_sfence();
}

/* The columns in blocks of up to HD_SM_MAX_COLS (multiples of 16): the maxima row by row,
 * then block_rows when they are all finite, else 16 columns at a time (cols16, which sends
 * the columns with a NaN or infinite maximum to the scalar rules); the last cols % 16
 * columns run the scalar kernel. */
static void cols_blocks(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy, float alpha, float beta,
                        int log_mode, float *work)
{
    float m[HD_SM_MAX_COLS] __attribute__((aligned(64)));
    size_t j0 = 0;
    while (j0 + 16 <= cols) {
        size_t w = (cols - j0) & ~(size_t)15;
        if (w > HD_SM_MAX_COLS)
            w = HD_SM_MAX_COLS;
        for (size_t j = 0; j < w; j += 16)
            _mm512_store_ps(m + j, _mm512_set1_ps(-INFINITY));
        for (size_t k = 0; k < c; k++) {
            const float *xr = x + k * ldx + j0;
            for (size_t j = 0; j < w; j += 16)
                _mm512_store_ps(m + j, _mm512_max_ps(_mm512_load_ps(m + j), _mm512_loadu_ps(xr + j)));
        }
        __mmask16 bad = 0;
        for (size_t j = 0; j < w; j += 16) {
            __m512 v = _mm512_load_ps(m + j);
            bad |= _mm512_cmp_ps_mask(_mm512_sub_ps(v, v), _mm512_setzero_ps(), _CMP_NEQ_UQ);
        }
        if (bad) {
            for (size_t j = 0; j < w; j += 16)
                cols16(c, j0 + j, x, ldx, y, ldy, alpha, beta, log_mode);
        } else {
            block_rows(c, w, x + j0, ldx, y + j0, ldy, alpha, beta, log_mode, m, work);
        }
        j0 += w;
    }
    if (j0 < cols)
        hd_f32_softmax_ukernel_cols__scalar(c, cols - j0, x + j0, ldx, y + j0, ldy, alpha, beta, log_mode);
}

void hd_f32_softmax_ukernel_cols__avx512(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy,
                                         float alpha, float beta, int log_mode)
{
    cols_blocks(c, cols, x, ldx, y, ldy, alpha, beta, log_mode, NULL);
}

void hd_f32_softmax_ukernel_cols_stream__avx512(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy,
                                                float alpha, float *work)
{
    cols_blocks(c, cols, x, ldx, y, ldy, alpha, 0.0f, 0, work);
}

/* Short groups side by side (CHANNEL mode on NHWC): a group of up to 64 floats stays in four
 * registers from its one load to its store, and each step is the row kernel's own (same
 * loads with the same fill, same reductions, same exp), so every group gets bit for bit
 * what hd_f32_softmax_ukernel__avx512 gives it; the log is taken only for LOG. */
void hd_f32_softmax_ukernel_rows__avx512(size_t n, size_t groups, const float *x, size_t ldx, float *y, size_t ldy,
                                         float alpha, float beta, int log_mode)
{
    if (n > 64 || n == 0) {
        for (size_t g = 0; g < groups; g++)
            hd_f32_softmax_ukernel__avx512(n, x + g * ldx, y + g * ldy, alpha, beta, log_mode);
        return;
    }
    const size_t nv = (n + 15) / 16;
    __mmask16 k[4];
    for (size_t v = 0; v < 4; v++)
        k[v] = v < nv ? tail16(n - 16 * v) : 0;
    const __m512 ninf = _mm512_set1_ps(-INFINITY), va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (size_t g = 0; g < groups; g++) {
        const float *xg = x + g * ldx;
        float *yg = y + g * ldy;
        __m512 xv[4], e[4];
        __m512 vm = ninf;
        for (size_t v = 0; v < nv; v++) {
            xv[v] = _mm512_mask_loadu_ps(ninf, k[v], xg + 16 * v);
            vm = _mm512_max_ps(vm, xv[v]);
        }
        float m = _mm512_reduce_max_ps(vm);
        if (m != m || isinf(m)) {
            hd_f32_softmax_ukernel__scalar(n, xg, yg, alpha, beta, log_mode);
            continue;
        }
        __m512 mm = _mm512_set1_ps(m), vs = _mm512_setzero_ps();
        for (size_t v = 0; v < nv; v++) {
            xv[v] = _mm512_sub_ps(xv[v], mm);
            e[v] = hd_f32_exp_neg_avx512(xv[v]);
            vs = _mm512_add_ps(vs, _mm512_maskz_mov_ps(k[v], e[v]));
        }
        double s = _mm512_reduce_add_ps(vs);
        if (log_mode) {
            __m512 vls = _mm512_set1_ps((float)log(s));
            for (size_t v = 0; v < nv; v++)
                e[v] = _mm512_sub_ps(xv[v], vls);
        } else {
            __m512 vinv = _mm512_set1_ps((float)(1.0 / s));
            for (size_t v = 0; v < nv; v++)
                e[v] = _mm512_mul_ps(e[v], vinv);
        }
        for (size_t v = 0; v < nv; v++) {
            __m512 o = _mm512_mul_ps(va, e[v]);
            if (beta != 0.0f)
                o = _mm512_add_ps(o, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(k[v], yg + 16 * v)));
            _mm512_mask_storeu_ps(yg + 16 * v, k[v], o);
        }
    }
}
