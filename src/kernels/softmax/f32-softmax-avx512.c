/* kernels/softmax/f32-softmax-avx512.c -- row softmax with 16-wide vectors; the exp
 * polynomial is the one described in f32-softmax-avx2.c. */
#include "kernels/softmax/softmax.h"

#include <immintrin.h>
#include <math.h>

static inline __m512 exp_neg(__m512 r)
{
    const __m512 lo = _mm512_set1_ps(-87.0f);
    __mmask16 under = _mm512_cmp_ps_mask(r, lo, _CMP_LT_OQ);
    r = _mm512_max_ps(r, lo);
    __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(r, _mm512_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 t = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), r);
    t = _mm512_fnmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), t);
    __m512 p = _mm512_set1_ps(1.0f / 720);
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.0f / 120));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.0f / 24));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.0f / 6));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.0f));
    __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(k), _mm512_set1_epi32(127)), 23);
    __m512 v = _mm512_mul_ps(p, _mm512_castsi512_ps(e));
    return _mm512_maskz_mov_ps((__mmask16)~under, v);
}

void hd_f32_softmax_avx512(size_t n, const float *x, float *y, float alpha, float beta, int log_mode)
{
    size_t n16 = n & ~(size_t)15, i;
    __m512 vm = _mm512_set1_ps(-INFINITY);
    for (i = 0; i < n16; i += 16)
        vm = _mm512_max_ps(vm, _mm512_loadu_ps(x + i));
    float m = _mm512_reduce_max_ps(vm);
    for (; i < n; i++)
        m = x[i] > m ? x[i] : m;
    if (m != m || isinf(m)) {
        hd_f32_softmax_scalar(n, x, y, alpha, beta, log_mode);
        return;
    }
    __m512 mm = _mm512_set1_ps(m), vs = _mm512_setzero_ps();
    for (i = 0; i < n16; i += 16)
        vs = _mm512_add_ps(vs, exp_neg(_mm512_sub_ps(_mm512_loadu_ps(x + i), mm)));
    double s = _mm512_reduce_add_ps(vs);
    for (; i < n; i++)
        s += expf(x[i] - m);
    float ls = (float)log(s), inv = (float)(1.0 / s);
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta), vinv = _mm512_set1_ps(inv);
    const __m512 vls = _mm512_set1_ps(ls);
    for (i = 0; i < n16; i += 16) {
        __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + i), mm);
        __m512 v = log_mode ? _mm512_sub_ps(d, vls) : _mm512_mul_ps(exp_neg(d), vinv);
        v = _mm512_mul_ps(va, v);
        if (beta != 0.0f)
            v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_loadu_ps(y + i)));
        _mm512_storeu_ps(y + i, v);
    }
    for (; i < n; i++) {
        float v = log_mode ? x[i] - m - ls : expf(x[i] - m) * inv;
        y[i] = beta != 0.0f ? alpha * v + beta * y[i] : alpha * v;
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
        hd_f32_softmax_cols_scalar(c, 16, x + j, ldx, y + j, ldy, alpha, beta, log_mode);
        return;
    }
    __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
    for (size_t k = 0; k < c; k++) {
        __m512 v = exp_neg(_mm512_sub_ps(_mm512_loadu_ps(x + k * ldx + j), vm));
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
        __m512 v = log_mode ? _mm512_sub_ps(d, vls) : _mm512_mul_ps(exp_neg(d), vinv);
        v = _mm512_mul_ps(va, v);
        float *o = y + k * ldy + j;
        if (beta != 0.0f)
            v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_loadu_ps(o)));
        _mm512_storeu_ps(o, v);
    }
}

/* 64 columns at a time where every maximum is finite (each row then streams 256 contiguous
 * bytes instead of 64, which the strided rows of CHANNEL mode need), the same arithmetic per
 * column as cols16, so the results are bitwise those of one 16-column block at a time. */
void hd_f32_softmax_cols_avx512(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy, float alpha,
                              float beta, int log_mode)
{
    size_t j = 0;
    for (; j + 64 <= cols; j += 64) {
        __m512 vm[4];
        for (int q = 0; q < 4; q++)
            vm[q] = _mm512_set1_ps(-INFINITY);
        for (size_t k = 0; k < c; k++)
            for (int q = 0; q < 4; q++)
                vm[q] = _mm512_max_ps(vm[q], _mm512_loadu_ps(x + k * ldx + j + 16 * q));
        int finite = 1;
        for (int q = 0; q < 4; q++)
            finite &= !_mm512_cmp_ps_mask(_mm512_sub_ps(vm[q], vm[q]), _mm512_setzero_ps(), _CMP_NEQ_UQ);
        if (!finite) {
            for (int q = 0; q < 4; q++)
                cols16(c, j + 16 * (size_t)q, x, ldx, y, ldy, alpha, beta, log_mode);
            continue;
        }
        __m512d s0[4], s1[4];
        for (int q = 0; q < 4; q++)
            s0[q] = s1[q] = _mm512_setzero_pd();
        for (size_t k = 0; k < c; k++)
            for (int q = 0; q < 4; q++) {
                __m512 v = exp_neg(_mm512_sub_ps(_mm512_loadu_ps(x + k * ldx + j + 16 * q), vm[q]));
                s0[q] = _mm512_add_pd(s0[q], _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
                s1[q] = _mm512_add_pd(s1[q], _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)));
            }
        __m512 vls[4], vinv[4];
        for (int q = 0; q < 4; q++) {
            double sd[16];
            _mm512_storeu_pd(sd, s0[q]);
            _mm512_storeu_pd(sd + 16 / 2, s1[q]);
            float lsv[16], invv[16];
            for (int l = 0; l < 16; l++) {
                lsv[l] = (float)log(sd[l]);
                invv[l] = (float)(1.0 / sd[l]);
            }
            vls[q] = _mm512_loadu_ps(lsv), vinv[q] = _mm512_loadu_ps(invv);
        }
        const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
        for (size_t k = 0; k < c; k++)
            for (int q = 0; q < 4; q++) {
                __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + k * ldx + j + 16 * q), vm[q]);
                __m512 v = log_mode ? _mm512_sub_ps(d, vls[q]) : _mm512_mul_ps(exp_neg(d), vinv[q]);
                v = _mm512_mul_ps(va, v);
                float *o = y + k * ldy + j + 16 * q;
                if (beta != 0.0f)
                    v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_loadu_ps(o)));
                _mm512_storeu_ps(o, v);
            }
    }
    for (; j + 16 <= cols; j += 16)
        cols16(c, j, x, ldx, y, ldy, alpha, beta, log_mode);
    if (j < cols)
        hd_f32_softmax_cols_scalar(c, cols - j, x + j, ldx, y + j, ldy, alpha, beta, log_mode);
}
