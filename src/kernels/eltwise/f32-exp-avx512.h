/* kernels/eltwise/f32-exp-avx512.h -- exp of non-positive floats, 16 lanes: the one exp
 * polynomial of the AVX-512 eltwise (sigmoid, tanh) and softmax kernels, included only by
 * files built with AVX-512 flags (their `-avx512.c` suffix). */
#ifndef HD_KERNELS_F32_EXP_AVX512_H
#define HD_KERNELS_F32_EXP_AVX512_H

#include <immintrin.h>

/* exp(r) for r <= 0, r = k ln2 + t with |t| <= ln2/2: degree-6 Taylor polynomial of exp(t)
 * (relative error below 2e-7 there) times 2^k from the exponent bits; r below -87 gives 0
 * and a NaN r stays NaN (the max takes lo first, so NaN sums stay NaN). */
static inline __m512 hd_f32_exp_neg_avx512(__m512 r)
{
    const __m512 lo = _mm512_set1_ps(-87.0f);
    __mmask16 under = _mm512_cmp_ps_mask(r, lo, _CMP_LT_OQ);
    r = _mm512_max_ps(lo, r);
    __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(r, _mm512_set1_ps(1.44269504f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
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
    return _mm512_maskz_mov_ps((__mmask16)~under, _mm512_mul_ps(p, _mm512_castsi512_ps(e)));
}

#endif
