/*
 * kernels/eltwise/f32-gelu-avx2.c -- GELU and its gradient, 8 floats per step (method in
 * f32-gelu-poly.h).  The tail is copied into a padded block and run through the same
 * vector code, so every element gets the same operations; they are the AVX-512 kernel's,
 * fused multiply-add for fused multiply-add, so the two give the same bits.
 */
#include "kernels/eltwise/eltwise-ukernels.h"
#include "kernels/eltwise/f32-gelu-poly.h"

#include <immintrin.h>
#include <string.h>

/* Phi(z) and exp(-z^2/2) for 8 values; SERIES: |z| < 1 from the series (for the gradient:
 * GELU itself, z Phi(z), is within its bound without it, f32-gelu-poly.h) */
static inline __m256 phi8(__m256 z, __m256 *e_out, int series)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 a = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), z);
    __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(GELU_P), a, one));
    __m256 s = _mm256_sub_ps(t, _mm256_set1_ps(GELU_TC));
    __m256 h = _mm256_set1_ps(GELU_H9);
    h = _mm256_fmadd_ps(h, s, _mm256_set1_ps(GELU_H8));
    h = _mm256_fmadd_ps(h, s, _mm256_set1_ps(GELU_H7));
    h = _mm256_fmadd_ps(h, s, _mm256_set1_ps(GELU_H6));
    h = _mm256_fmadd_ps(h, s, _mm256_set1_ps(GELU_H5));
    h = _mm256_fmadd_ps(h, s, _mm256_set1_ps(GELU_H4));
    h = _mm256_fmadd_ps(h, s, _mm256_set1_ps(GELU_H3));
    h = _mm256_fmadd_ps(h, s, _mm256_set1_ps(GELU_H2));
    h = _mm256_fmadd_ps(h, s, _mm256_set1_ps(GELU_H1));
    h = _mm256_fmadd_ps(h, s, _mm256_set1_ps(GELU_H0));

    /* exp(y), y = -a^2/2 clamped (max returns the clamp for a NaN y: z carries the NaN) */
    __m256 y = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(-0.5f), a), a);
    y = _mm256_max_ps(y, _mm256_set1_ps(GELU_EXP_MIN));
    const __m256 shifter = _mm256_set1_ps(GELU_SHIFTER);
    __m256 kf = _mm256_sub_ps(_mm256_fmadd_ps(y, _mm256_set1_ps(GELU_LOG2E), shifter), shifter);
    __m256 r = _mm256_fnmadd_ps(kf, _mm256_set1_ps(GELU_LN2_HI), y);
    r = _mm256_fnmadd_ps(kf, _mm256_set1_ps(GELU_LN2_LO), r);
    __m256 p = _mm256_set1_ps(1.0f / 5040);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, one);
    p = _mm256_fmadd_ps(p, r, one);
    __m256i k = _mm256_cvttps_epi32(kf);
    __m256 scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127)), 23));
    __m256 e = _mm256_mul_ps(p, scale);

    __m256 q = _mm256_mul_ps(_mm256_mul_ps(e, t), h);                  /* Phi(-|z|) */
    __m256 pos = _mm256_cmp_ps(z, _mm256_setzero_ps(), _CMP_GE_OQ);
    __m256 big = _mm256_blendv_ps(q, _mm256_sub_ps(one, q), pos);
    *e_out = e;
    if (!series)
        return big;

    /* |z| < 1: 1/2 + z S(z^2) */
    __m256 w = _mm256_mul_ps(z, z), sr = _mm256_set1_ps(GELU_S8);
    sr = _mm256_fmadd_ps(sr, w, _mm256_set1_ps(GELU_S7));
    sr = _mm256_fmadd_ps(sr, w, _mm256_set1_ps(GELU_S6));
    sr = _mm256_fmadd_ps(sr, w, _mm256_set1_ps(GELU_S5));
    sr = _mm256_fmadd_ps(sr, w, _mm256_set1_ps(GELU_S4));
    sr = _mm256_fmadd_ps(sr, w, _mm256_set1_ps(GELU_S3));
    sr = _mm256_fmadd_ps(sr, w, _mm256_set1_ps(GELU_S2));
    sr = _mm256_fmadd_ps(sr, w, _mm256_set1_ps(GELU_S1));
    sr = _mm256_fmadd_ps(sr, w, _mm256_set1_ps(GELU_S0));
    __m256 small = _mm256_fmadd_ps(z, sr, _mm256_set1_ps(0.5f));
    __m256 near0 = _mm256_cmp_ps(a, _mm256_set1_ps(GELU_SMALL), _CMP_LT_OQ);
    return _mm256_blendv_ps(big, small, near0);
}

static inline __m256 gelu8(__m256 z)
{
    __m256 e;
    return _mm256_mul_ps(z, phi8(z, &e, 0));
}

void hd_f32_gelu_ukernel__avx2(size_t n, const float *x, float *y, float alpha)
{
    const __m256 va = _mm256_set1_ps(alpha);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, gelu8(_mm256_mul_ps(va, _mm256_loadu_ps(x + i))));
    if (i < n) {
        float buf[8] = {0};
        memcpy(buf, x + i, (n - i) * sizeof *buf);
        _mm256_storeu_ps(buf, gelu8(_mm256_mul_ps(va, _mm256_loadu_ps(buf))));
        memcpy(y + i, buf, (n - i) * sizeof *buf);
    }
}

static inline __m256 grad8(__m256 z, __m256 g)
{
    __m256 e, c = phi8(z, &e, 1);
    /* z clamped (max / min return their second operand for a NaN z: it stays) */
    __m256 zc = _mm256_min_ps(_mm256_set1_ps(GELU_PDF_CLAMP), _mm256_max_ps(_mm256_set1_ps(-GELU_PDF_CLAMP), z));
    return _mm256_mul_ps(g, _mm256_fmadd_ps(zc, _mm256_mul_ps(_mm256_set1_ps(GELU_INV_SQRT_2PI), e), c));
}

void hd_f32_gelu_bwd_ukernel__avx2(size_t n, const float *x, const float *dy, float *dx, float alpha_x,
                                   float alpha_dy)
{
    const __m256 vx = _mm256_set1_ps(alpha_x), vd = _mm256_set1_ps(alpha_dy);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dx + i, grad8(_mm256_mul_ps(vx, _mm256_loadu_ps(x + i)),
                                       _mm256_mul_ps(vd, _mm256_loadu_ps(dy + i))));
    if (i < n) {
        float bx[8] = {0}, bd[8] = {0};
        memcpy(bx, x + i, (n - i) * sizeof *bx);
        memcpy(bd, dy + i, (n - i) * sizeof *bd);
        _mm256_storeu_ps(bd, grad8(_mm256_mul_ps(vx, _mm256_loadu_ps(bx)), _mm256_mul_ps(vd, _mm256_loadu_ps(bd))));
        memcpy(dx + i, bd, (n - i) * sizeof *bd);
    }
}
