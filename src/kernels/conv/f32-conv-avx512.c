/*
 * kernels/conv/f32-conv-avx512.c -- BFLOAT16 convolution on fp32 FMAs (lowp-ukernels.h): the
 * panel and the packed filter hold the bf16 values widened to fp32 (exact), one input channel
 * per 4-byte unit, and the micro-kernel is a plain broadcast-FMA tile.  Called only when the
 * ISA is AVX512.
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
