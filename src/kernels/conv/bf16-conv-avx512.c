/*
 * kernels/conv/bf16-conv-avx512.c -- the BFLOAT16 panel and store helpers of the
 * low-precision convolution (lowp-ukernels.h), shared by both BFLOAT16 kernels: plain
 * AVX-512, no AVX512_BF16 instructions.
 */
#include "kernels/conv/lowp-ukernels.h"

#include <immintrin.h>

/* fp32 -> bf16 exactly as core/convert.h rounds (nearest even, NaN kept quiet, subnormals
 * rounded rather than flushed), 16 at a time. */
static inline __m256i to_bf16(__m512 f)
{
    __m512i u = _mm512_castps_si512(f);
    __m512i mag = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
    __mmask16 nan = _mm512_cmpgt_epu32_mask(mag, _mm512_set1_epi32(0x7f800000));
    __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
    __m512i q = _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
    return _mm512_cvtepi32_epi16(_mm512_mask_mov_epi32(r, nan, q));
}

void hd_bf16_conv_ukernel_store__avx512(uint16_t *y, const float *v, int64_t n, float alpha, float beta)
{
    __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 r = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, v + i), va);
        if (beta != 0) {
            __m512i yb = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, y + i));
            r = _mm512_add_ps(r, _mm512_mul_ps(vb, _mm512_castsi512_ps(_mm512_slli_epi32(yb, 16))));
        }
        _mm256_mask_storeu_epi16(y + i, m, to_bf16(r));
    }
}

/* Panel gathering: n bf16 values widened to fp32. */
void hd_bf16_conv_ukernel_widen__avx512(float *d, const uint16_t *s, int64_t n)
{
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, s + i));
        _mm512_mask_storeu_epi32(d + i, m, _mm512_slli_epi32(v, 16));
    }
}
