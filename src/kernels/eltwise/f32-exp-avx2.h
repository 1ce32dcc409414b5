/* kernels/eltwise/f32-exp-avx2.h -- exp of non-positive floats, 8 lanes: the AVX2 twin of
 * f32-exp-avx512.h (the same operations in the same order, so the same bits), used by the AVX2
 * eltwise (sigmoid, tanh) and softmax kernels; included only by files built with AVX2 + FMA
 * flags (their `-avx2.c` suffix). */
#ifndef HD_KERNELS_F32_EXP_AVX2_H
#define HD_KERNELS_F32_EXP_AVX2_H

#include <immintrin.h>

/* exp(r) for r <= 0, r = k ln2 + t with |t| <= ln2/2: degree-6 Taylor polynomial of exp(t)
 * (relative error below 2e-7 there) times 2^k from the exponent bits; r below -87 gives 0
 * and a NaN r stays NaN (the max takes lo first, so NaN sums stay NaN). */
static inline __m256 hd_f32_exp_neg_avx2(__m256 r)
{
    const __m256 lo = _mm256_set1_ps(-87.0f);
    __m256 under = _mm256_cmp_ps(r, lo, _CMP_LT_OQ);
    r = _mm256_max_ps(lo, r);
    __m256 k = _mm256_round_ps(_mm256_mul_ps(r, _mm256_set1_ps(1.44269504f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
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
    return _mm256_andnot_ps(under, _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
}

#endif
