/*
 * INT8 micro-kernel and stores with AVX512_VNNI (conv/solvers/conv_lowp.h).  Called only
 * when hd_cpu_isa() >= AVX512 and the CPU has AVX512_VNNI.
 *
 * vpdpbusd multiplies unsigned bytes by signed bytes, four per int32 lane.  The panel holds
 * x + 128 (x XOR 0x80), so each lane sums (x + 128) * w, and the caller's compensation
 * 128 * sum(w) of the output channel is subtracted at the end.  All of this is modulo 2^32;
 * the solver is only used where the true sum fits in int32, so the result is exact.
 */
#include "kernels/conv/lowp-ukernels.h"

#include <immintrin.h>
#include <math.h>

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF      /* the stores must round exactly like the generic path */
#endif

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
