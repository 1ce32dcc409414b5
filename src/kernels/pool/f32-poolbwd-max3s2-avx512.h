/* Steps shared by the two fused max pooling backward 3x3 stride 2 kernels for AVX-512
 * (f32-poolbwd-max3s2-avx512.c over channels, f32-poolbwd-max3s2w-avx512.c along rows). */
#ifndef HD_F32_POOLBWD_MAX3S2_AVX512_H
#define HD_F32_POOLBWD_MAX3S2_AVX512_H

#include <immintrin.h>

/* The running argmax rule per lane (see argmax8 in pool-ukernels.h): v replaces the running
 * value m, and t the running tap, where v is strictly greater, or is the first NaN under
 * propagation.  Without propagation m is never NaN, so the new m is max(v, m), one
 * instruction.  The same step joins a later part of a window (its maximum and tap) to an
 * earlier one. */
static inline void hd_max3s2_step(__m512 *m, __m512i *best, __m512 v, __m512i t, int propagate)
{
    __mmask16 take = _mm512_cmp_ps_mask(v, *m, _CMP_GT_OQ);
    if (propagate) {
        take |= _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(*m, *m, _CMP_ORD_Q), v, v, _CMP_UNORD_Q);
        *m = _mm512_mask_mov_ps(*m, take, v);
    } else {
        *m = _mm512_max_ps(v, *m);
    }
    *best = _mm512_mask_mov_epi32(*best, take, t);
}

/* Two halves of double sums rounded to one float vector. */
static inline __m512 hd_max3s2_narrow(__m512d a0, __m512d a1)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(a0)), _mm512_cvtpd_ps(a1), 1);
}

/* Lanes 0-7 and 8-15 of a float vector as doubles. */
static inline __m512d hd_max3s2_wide_lo(__m512 v)
{
    return _mm512_cvtps_pd(_mm512_castps512_ps256(v));
}

static inline __m512d hd_max3s2_wide_hi(__m512 v)
{
    return _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1));
}

#endif
