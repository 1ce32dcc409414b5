/*
 * kernels/conv/qs8-conv-avx512vnni.c -- the INT8 micro-kernel with AVX512_VNNI
 * (lowp-ukernels.h).  Called only when the ISA is AVX512 and the CPU has AVX512_VNNI.
 *
 * vpdpbusd multiplies unsigned bytes by signed bytes, four per int32 lane.  The panel holds
 * x + 128 (x XOR 0x80), so each lane sums (x + 128) * w, and the caller's compensation
 * 128 * sum(w) of the output channel is subtracted at the end.  All of this is modulo 2^32;
 * the solver is only used where the true sum fits in int32, so the result is exact.
 */
#include "kernels/conv/lowp-ukernels.h"

#include <immintrin.h>

static inline __attribute__((always_inline)) void kernel(const uint8_t *panel, size_t ldp, const int8_t *wp,
                                                         size_t vstride, int64_t rq, const int32_t *comp,
                                                         int32_t *tile, int more, const int MR, const int NRV)
{
    /* the sums start at -128 * sum(w): no subtraction after the loop (which also made gcc
     * keep the accumulators in memory) */
    __m512i acc[HD_CONV_LOWP_MR_MAX][4];
#pragma GCC unroll 4
    for (int v = 0; v < NRV; v++) {
        __m512i c = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_loadu_si512((const void *)(comp + v * 16)));
#pragma GCC unroll 12
        for (int j = 0; j < MR; j++)
            acc[j][v] = more ? _mm512_loadu_si512((const void *)(tile + j * NRV * 16 + v * 16)) : c;
    }
    for (int64_t q = 0; q < rq; q++) {
        __m512i w[4];
#pragma GCC unroll 4
        for (int v = 0; v < NRV; v++)
            w[v] = _mm512_loadu_si512((const void *)(wp + v * vstride + q * 64));
#pragma GCC unroll 12
        for (int j = 0; j < MR; j++) {
            int32_t xv;
            __builtin_memcpy(&xv, panel + j * ldp + q * 4, 4);
            __m512i b = _mm512_set1_epi32(xv);
#pragma GCC unroll 4
            for (int v = 0; v < NRV; v++)
                acc[j][v] = _mm512_dpbusd_epi32(acc[j][v], b, w[v]);
        }
    }
#pragma GCC unroll 12
    for (int j = 0; j < MR; j++)
#pragma GCC unroll 4
        for (int v = 0; v < NRV; v++)
            _mm512_storeu_si512((void *)(tile + j * NRV * 16 + v * 16), acc[j][v]);
}

void hd_qs8_conv_ukernel__avx512vnni(const uint8_t *panel, size_t ldp, const int8_t *wp, size_t vstride, int64_t rq,
                                     const int32_t *comp, int nrv, int32_t *tile, int more)
{
    switch (nrv) {
    case 1: kernel(panel, ldp, wp, vstride, rq, comp, tile, more, 12, 1); break;
    case 2: kernel(panel, ldp, wp, vstride, rq, comp, tile, more, 12, 2); break;
    case 3: kernel(panel, ldp, wp, vstride, rq, comp, tile, more, 8, 3); break;
    default: kernel(panel, ldp, wp, vstride, rq, comp, tile, more, 6, 4); break;
    }
}
