/* kernels/softmax/f32-softmax-avx2.c -- row softmax with 8-wide vectors.
 *
 * exp(r) for r <= 0: r = k ln2 + t with |t| <= ln2/2, exp(t) by its degree-6 Taylor
 * polynomial (relative error below 2e-7 on that interval), times 2^k built in the exponent
 * bits.  Inputs below -87 give 0 (the terms vanish against the sum, which is >= 1). */
#include "kernels/softmax/softmax.h"

#include <immintrin.h>
#include <math.h>

static inline __m256 exp_neg(__m256 r)
{
    const __m256 lo = _mm256_set1_ps(-87.0f);
    __m256 under = _mm256_cmp_ps(r, lo, _CMP_LT_OQ);
    r = _mm256_max_ps(r, lo);
    __m256 k = _mm256_round_ps(_mm256_mul_ps(r, _mm256_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    /* t = r - k ln2, with ln2 split in two for accuracy */
    __m256 t = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), r);
    t = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), t);
    __m256 p = _mm256_set1_ps(1.0f / 720);
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.0f / 120));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.0f / 24));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.0f / 6));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
    __m256 v = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
    return _mm256_andnot_ps(under, v);
}

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

void hd_f32_softmax_avx2(size_t n, const float *x, float *y, float alpha, float beta, int log_mode)
{
    size_t n8 = n & ~(size_t)7, i;
    __m256 vm = _mm256_set1_ps(-INFINITY);
    for (i = 0; i < n8; i += 8)
        vm = _mm256_max_ps(vm, _mm256_loadu_ps(x + i));
    float m = hmax(vm);
    for (; i < n; i++)
        m = x[i] > m ? x[i] : m;
    if (m != m || isinf(m)) {            /* NaN or infinite inputs: the scalar path's rules */
        hd_f32_softmax_scalar(n, x, y, alpha, beta, log_mode);
        return;
    }
    __m256 mm = _mm256_set1_ps(m), vs = _mm256_setzero_ps();
    for (i = 0; i < n8; i += 8)
        vs = _mm256_add_ps(vs, exp_neg(_mm256_sub_ps(_mm256_loadu_ps(x + i), mm)));
    double s = hsum(vs);
    for (; i < n; i++)
        s += expf(x[i] - m);
    float ls = (float)log(s), inv = (float)(1.0 / s);
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
    for (; i < n; i++) {
        float v = log_mode ? x[i] - m - ls : expf(x[i] - m) * inv;
        y[i] = beta != 0.0f ? alpha * v + beta * y[i] : alpha * v;
    }
}

/* W columns at a time; sums in double (two __m256d halves); other columns scalar. */
void hd_f32_softmax_cols_avx2(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy, float alpha,
                              float beta, int log_mode)
{
    size_t j = 0;
    for (; j + 8 <= cols; j += 8) {
        __m256 vm = _mm256_set1_ps(-INFINITY);
        for (size_t k = 0; k < c; k++)
            vm = _mm256_max_ps(vm, _mm256_loadu_ps(x + k * ldx + j));
        if (_mm256_movemask_ps(_mm256_cmp_ps(_mm256_sub_ps(vm, vm), _mm256_setzero_ps(), _CMP_NEQ_UQ))) {    /* NaN or infinite maxima: the scalar path's rules */
            hd_f32_softmax_cols_scalar(c, 8, x + j, ldx, y + j, ldy, alpha, beta, log_mode);
            continue;
        }
        __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
        for (size_t k = 0; k < c; k++) {
            __m256 v = exp_neg(_mm256_sub_ps(_mm256_loadu_ps(x + k * ldx + j), vm));
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
            __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + k * ldx + j), vm);
            __m256 v = log_mode ? _mm256_sub_ps(d, vls) : _mm256_mul_ps(exp_neg(d), vinv);
            v = _mm256_mul_ps(va, v);
            float *o = y + k * ldy + j;
            if (beta != 0.0f)
                v = _mm256_add_ps(v, _mm256_mul_ps(vb, _mm256_loadu_ps(o)));
            _mm256_storeu_ps(o, v);
        }
    }
    if (j < cols)
        hd_f32_softmax_cols_scalar(c, cols - j, x + j, ldx, y + j, ldy, alpha, beta, log_mode);
}
