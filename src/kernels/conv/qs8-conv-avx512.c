/*
 * kernels/conv/qs8-conv-avx512.c -- the INT8 panel and store helpers of the low-precision
 * convolution (lowp-ukernels.h): plain AVX-512, no AVX512_VNNI instructions.
 */
#include "kernels/conv/lowp-ukernels.h"

#include <immintrin.h>
#include <math.h>

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF      /* the stores must round exactly like the generic path */
#endif

/* Panel gathering: n int8 values plus 128 (x XOR 0x80). */
void hd_qs8_conv_ukernel_bias__avx512(uint8_t *d, const int8_t *s, int64_t n)
{
    const __m512i k = _mm512_set1_epi8((char)0x80);
    for (int64_t i = 0; i < n; i += 64) {
        __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
        _mm512_mask_storeu_epi8(d + i, m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, s + i), k));
    }
}

/* alpha * v (+ beta * y) in double, as the generic path computes it (no fused multiply-add). */
static inline __m512d scaled(__m256i v, __m512d alpha, __m512d beta, __m512d y, int use_beta)
{
    __m512d r = _mm512_mul_pd(_mm512_cvtepi32_pd(v), alpha);
    if (use_beta)
        r = _mm512_add_pd(r, _mm512_mul_pd(beta, y));
    return r;
}

/* INT8 y: round to nearest even, saturate to [-128, 127], NaN to 0 -- the generic store. */
void hd_qs8_conv_ukernel_store_qs8__avx512(int8_t *y, const int32_t *v, int64_t n, double alpha, double beta)
{
    __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    __m512d lo = _mm512_set1_pd(-128.0), hi = _mm512_set1_pd(127.0);
    int use_beta = beta != 0;
    for (int64_t i = 0; i < n; i += 8) {
        __mmask8 m = n - i >= 8 ? 0xff : (__mmask8)((1u << (n - i)) - 1);
        __m256i vi = _mm256_maskz_loadu_epi32(m, v + i);
        __m512d yv = _mm512_setzero_pd();
        if (use_beta) {
            __m128i yb = _mm_maskz_loadu_epi8(m, y + i);
            yv = _mm512_cvtepi32_pd(_mm256_cvtepi8_epi32(yb));
        }
        __m512d r = _mm512_roundscale_pd(scaled(vi, va, vb, yv, use_beta), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __mmask8 ord = _mm512_cmp_pd_mask(r, r, _CMP_ORD_Q);
        r = _mm512_maskz_mov_pd(ord, _mm512_min_pd(_mm512_max_pd(r, lo), hi));
        _mm256_mask_cvtepi32_storeu_epi8(y + i, m, _mm512_cvtpd_epi32(r));
    }
}

/* FLOAT y (INT8_EXT_CONFIG): the double result rounded to float. */
void hd_qs8_conv_ukernel_store_f32__avx512(float *y, const int32_t *v, int64_t n, double alpha, double beta)
{
    __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    int use_beta = beta != 0;
    for (int64_t i = 0; i < n; i += 8) {
        __mmask8 m = n - i >= 8 ? 0xff : (__mmask8)((1u << (n - i)) - 1);
        __m256i vi = _mm256_maskz_loadu_epi32(m, v + i);
        __m512d yv = _mm512_setzero_pd();
        if (use_beta)
            yv = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, y + i));
        _mm256_mask_storeu_ps(y + i, m, _mm512_cvtpd_ps(scaled(vi, va, vb, yv, use_beta)));
    }
}
