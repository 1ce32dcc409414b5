/*
 * BFLOAT16 convolution on fp32 FMAs (conv/solvers/conv_lowp.h): the panel and the packed
 * filter hold the bf16 values widened to fp32 (exact), one input channel per 4-byte unit,
 * and the micro-kernel is a plain broadcast-FMA tile.  Called only when hd_cpu_isa() >=
 * AVX512.  Also the bf16 store shared by both BFLOAT16 kernels.
 */
#include "kernels/conv/lowp-ukernels.h"

#include <immintrin.h>

static inline __attribute__((always_inline)) void kernel(const float *panel, size_t ldp, const float *wp,
                                                         size_t vstride, int64_t rq, float *tile, int more,
                                                         const int MR, const int NRV)
{
    const char *pb = (const char *)panel, *wb = (const char *)wp;
    __m512 acc[HD_CONV_LOWP_MR_MAX][4];
#pragma GCC unroll 12
    for (int j = 0; j < MR; j++)
#pragma GCC unroll 4
        for (int v = 0; v < NRV; v++)
            acc[j][v] = more ? _mm512_loadu_ps(tile + j * NRV * 16 + v * 16) : _mm512_setzero_ps();
    for (int64_t q = 0; q < rq; q++) {
        __m512 w[4];
#pragma GCC unroll 4
        for (int v = 0; v < NRV; v++)
            w[v] = _mm512_loadu_ps((const void *)(wb + v * vstride + q * 64));
#pragma GCC unroll 12
        for (int j = 0; j < MR; j++) {
            __m512 b = _mm512_set1_ps(*(const float *)(pb + j * ldp + q * 4));
#pragma GCC unroll 4
            for (int v = 0; v < NRV; v++)
                acc[j][v] = _mm512_fmadd_ps(b, w[v], acc[j][v]);
        }
    }
#pragma GCC unroll 12
    for (int j = 0; j < MR; j++)
#pragma GCC unroll 4
        for (int v = 0; v < NRV; v++)
            _mm512_storeu_ps(tile + j * NRV * 16 + v * 16, acc[j][v]);
}

void hd_f32_conv_ukernel__avx512(const float *panel, size_t ldp, const float *wp, size_t vstride, int64_t rq,
                                 int nrv, float *tile, int more)
{
    switch (nrv) {
    case 1: kernel(panel, ldp, wp, vstride, rq, tile, more, 12, 1); break;
    case 2: kernel(panel, ldp, wp, vstride, rq, tile, more, 12, 2); break;
    case 3: kernel(panel, ldp, wp, vstride, rq, tile, more, 8, 3); break;
    default: kernel(panel, ldp, wp, vstride, rq, tile, more, 6, 4); break;
    }
}

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

/* Panel gathering helpers: n bf16 values widened to fp32; n int8 values plus 128. */
void hd_bf16_conv_ukernel_widen__avx512(float *d, const uint16_t *s, int64_t n)
{
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, s + i));
        _mm512_mask_storeu_epi32(d + i, m, _mm512_slli_epi32(v, 16));
    }
}

void hd_qs8_conv_ukernel_bias__avx512(uint8_t *d, const int8_t *s, int64_t n)
{
    const __m512i k = _mm512_set1_epi8((char)0x80);
    for (int64_t i = 0; i < n; i += 64) {
        __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
        _mm512_mask_storeu_epi8(d + i, m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, s + i), k));
    }
}
