/*
 * kernels/conv/bf16-conv-avx512bf16.c -- the BFLOAT16 micro-kernel with AVX512_BF16
 * (lowp-ukernels.h).  Called only when the ISA is AVX512 and the CPU has AVX512_BF16.
 *
 * vdpbf16ps adds to each fp32 lane the two products of a pair of bf16 values (products of
 * bf16 numbers are exact in fp32; each addition rounds to nearest even, subnormal inputs
 * and results are flushed to zero).  A panel unit is a pair of input channels of one tap.
 */
#include "kernels/conv/lowp-ukernels.h"

#include <immintrin.h>

static inline __attribute__((always_inline)) void kernel(const uint16_t *panel, size_t ldp, const uint16_t *wp,
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
        __m512i w[4];
#pragma GCC unroll 4
        for (int v = 0; v < NRV; v++)
            w[v] = _mm512_loadu_si512((const void *)(wb + v * vstride + q * 64));
#pragma GCC unroll 12
        for (int j = 0; j < MR; j++) {
            int32_t xv;
            __builtin_memcpy(&xv, pb + j * ldp + q * 4, 4);
            __m512i b = _mm512_set1_epi32(xv);
#pragma GCC unroll 4
            for (int v = 0; v < NRV; v++)
                acc[j][v] = _mm512_dpbf16_ps(acc[j][v], (__m512bh)b, (__m512bh)w[v]);
        }
    }
#pragma GCC unroll 12
    for (int j = 0; j < MR; j++)
#pragma GCC unroll 4
        for (int v = 0; v < NRV; v++)
            _mm512_storeu_ps(tile + j * NRV * 16 + v * 16, acc[j][v]);
}

void hd_bf16_conv_ukernel__avx512bf16(const uint16_t *panel, size_t ldp, const uint16_t *wp, size_t vstride,
                                      int64_t rq, int nrv, float *tile, int more)
{
    switch (nrv) {
    case 1: kernel(panel, ldp, wp, vstride, rq, tile, more, 12, 1); break;
    case 2: kernel(panel, ldp, wp, vstride, rq, tile, more, 12, 2); break;
    case 3: kernel(panel, ldp, wp, vstride, rq, tile, more, 8, 3); break;
    default: kernel(panel, ldp, wp, vstride, rq, tile, more, 6, 4); break;
    }
}
