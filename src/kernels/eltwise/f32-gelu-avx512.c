/*
 * kernels/eltwise/f32-gelu-avx512.c -- GELU and its gradient, 16 floats per step (method in
 * f32-gelu-poly.h).  The tail runs through masked loads and stores, so every element gets
 * the same operations; they are the AVX2 kernel's, fused multiply-add for fused multiply-add,
 * so the two give the same bits.
 */
#include "kernels/eltwise/eltwise-ukernels.h"
#include "kernels/eltwise/f32-gelu-poly.h"

#include <immintrin.h>

/* Phi(z) and exp(-z^2/2) for 16 values; SERIES: |z| < 1 from the series (for the gradient:
 * GELU itself, z Phi(z), is within its bound without it, f32-gelu-poly.h) */
static inline __m512 phi16(__m512 z, __m512 *e_out, int series)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 a = _mm512_abs_ps(z);
    __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(_mm512_set1_ps(GELU_P), a, one));
    __m512 s = _mm512_sub_ps(t, _mm512_set1_ps(GELU_TC));
    __m512 h = _mm512_set1_ps(GELU_H9);
    h = _mm512_fmadd_ps(h, s, _mm512_set1_ps(GELU_H8));
    h = _mm512_fmadd_ps(h, s, _mm512_set1_ps(GELU_H7));
    h = _mm512_fmadd_ps(h, s, _mm512_set1_ps(GELU_H6));
    h = _mm512_fmadd_ps(h, s, _mm512_set1_ps(GELU_H5));
    h = _mm512_fmadd_ps(h, s, _mm512_set1_ps(GELU_H4));
    h = _mm512_fmadd_ps(h, s, _mm512_set1_ps(GELU_H3));
    h = _mm512_fmadd_ps(h, s, _mm512_set1_ps(GELU_H2));
    h = _mm512_fmadd_ps(h, s, _mm512_set1_ps(GELU_H1));
    h = _mm512_fmadd_ps(h, s, _mm512_set1_ps(GELU_H0));

    /* exp(y), y = -a^2/2 clamped (max returns the clamp for a NaN y: z carries the NaN) */
    __m512 y = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(-0.5f), a), a);
    y = _mm512_max_ps(y, _mm512_set1_ps(GELU_EXP_MIN));
    const __m512 shifter = _mm512_set1_ps(GELU_SHIFTER);
    __m512 kf = _mm512_sub_ps(_mm512_fmadd_ps(y, _mm512_set1_ps(GELU_LOG2E), shifter), shifter);
    __m512 r = _mm512_fnmadd_ps(kf, _mm512_set1_ps(GELU_LN2_HI), y);
    r = _mm512_fnmadd_ps(kf, _mm512_set1_ps(GELU_LN2_LO), r);
    __m512 p = _mm512_set1_ps(1.0f / 5040);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, one);
    p = _mm512_fmadd_ps(p, r, one);
    __m512i k = _mm512_cvttps_epi32(kf);
    __m512 scale = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(k, _mm512_set1_epi32(127)), 23));
    __m512 e = _mm512_mul_ps(p, scale);

    __m512 q = _mm512_mul_ps(_mm512_mul_ps(e, t), h);                  /* Phi(-|z|) */
    __mmask16 pos = _mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_GE_OQ);
    __m512 big = _mm512_mask_blend_ps(pos, q, _mm512_sub_ps(one, q));
    *e_out = e;
    if (!series)
        return big;

    /* |z| < 1: 1/2 + z S(z^2) */
    __m512 w = _mm512_mul_ps(z, z), sr = _mm512_set1_ps(GELU_S8);
    sr = _mm512_fmadd_ps(sr, w, _mm512_set1_ps(GELU_S7));
    sr = _mm512_fmadd_ps(sr, w, _mm512_set1_ps(GELU_S6));
    sr = _mm512_fmadd_ps(sr, w, _mm512_set1_ps(GELU_S5));
    sr = _mm512_fmadd_ps(sr, w, _mm512_set1_ps(GELU_S4));
    sr = _mm512_fmadd_ps(sr, w, _mm512_set1_ps(GELU_S3));
    sr = _mm512_fmadd_ps(sr, w, _mm512_set1_ps(GELU_S2));
    sr = _mm512_fmadd_ps(sr, w, _mm512_set1_ps(GELU_S1));
    sr = _mm512_fmadd_ps(sr, w, _mm512_set1_ps(GELU_S0));
    __m512 small = _mm512_fmadd_ps(z, sr, _mm512_set1_ps(0.5f));
    __mmask16 near0 = _mm512_cmp_ps_mask(a, _mm512_set1_ps(GELU_SMALL), _CMP_LT_OQ);
    return _mm512_mask_blend_ps(near0, big, small);
}

void hd_f32_gelu_ukernel__avx512(size_t n, const float *x, float *y, float alpha)
{
    const __m512 va = _mm512_set1_ps(alpha);
    size_t i = 0;
    __m512 e;
    for (; i + 16 <= n; i += 16) {
        __m512 z = _mm512_mul_ps(va, _mm512_loadu_ps(x + i));
        _mm512_storeu_ps(y + i, _mm512_mul_ps(z, phi16(z, &e, 0)));
    }
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        __m512 z = _mm512_mul_ps(va, _mm512_maskz_loadu_ps(m, x + i));
        _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(z, phi16(z, &e, 0)));
    }
}

static inline __m512 grad16(__m512 z, __m512 g)
{
    __m512 e, c = phi16(z, &e, 1);
    /* z clamped (max / min return their second operand for a NaN z: it stays) */
    __m512 zc = _mm512_min_ps(_mm512_set1_ps(GELU_PDF_CLAMP), _mm512_max_ps(_mm512_set1_ps(-GELU_PDF_CLAMP), z));
    return _mm512_mul_ps(g, _mm512_fmadd_ps(zc, _mm512_mul_ps(_mm512_set1_ps(GELU_INV_SQRT_2PI), e), c));
}

void hd_f32_gelu_bwd_ukernel__avx512(size_t n, const float *x, const float *dy, float *dx, float alpha_x,
                                     float alpha_dy)
{
    const __m512 vx = _mm512_set1_ps(alpha_x), vd = _mm512_set1_ps(alpha_dy);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 z = _mm512_mul_ps(vx, _mm512_loadu_ps(x + i)), g = _mm512_mul_ps(vd, _mm512_loadu_ps(dy + i));
        _mm512_storeu_ps(dx + i, grad16(z, g));
    }
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        __m512 z = _mm512_mul_ps(vx, _mm512_maskz_loadu_ps(m, x + i));
        __m512 g = _mm512_mul_ps(vd, _mm512_maskz_loadu_ps(m, dy + i));
        _mm512_mask_storeu_ps(dx + i, m, grad16(z, g));
    }
}
