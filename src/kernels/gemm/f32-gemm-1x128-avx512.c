/*
 * f32-gemm-1x128-avx512.c -- one row of A times up to four consecutive packed 32-column B
 * panels of the 14x32 kernel (contract in gemm-ukernels.h, hd_f32_gemm_mv_fn).
 *
 * A matrix-vector product (the RNN's recurrent step at batch 1) run through the 14x32 kernel
 * with mr = 1 keeps only two accumulators busy: every k step's fused multiply-add waits for
 * the previous one (latency 4), so the kernel cannot read B faster than two vectors per four
 * cycles.  Four panels at once give eight independent chains, enough to keep the FMA and load
 * units fed, and B (read once per step, from L2 or L3) streams at the cache's bandwidth.  Each
 * column is still one chain of fused multiply-adds in p order, then alpha * acc (+ beta * C):
 * the bits of four mr = 1 calls of the 14x32 kernel.
 */
#include <immintrin.h>

#include "kernels/gemm/gemm-ukernels.h"

#define NR 32
#define PANELS 4
/* No software prefetch, unlike the 14x32 kernel: the four panels are four sequential streams
   the hardware prefetcher follows, and two prefetches per panel and step only took load
   slots (measured without them as fast or faster: docs/gemm.md). */

/* The k loop over the first NP panels (a constant after inlining). */
static inline __attribute__((always_inline)) void mv_panels(const int NP, size_t n, size_t kc, const float *restrict a,
                                                            size_t a_stride, const float *restrict b,
                                                            size_t panel_stride, float *restrict c, float alpha,
                                                            float beta)
{
    __m512 acc[2 * PANELS];
#pragma GCC unroll 8
    for (int v = 0; v < 2 * PANELS; v++)
        acc[v] = _mm512_setzero_ps();
    for (size_t p = 0; p < kc; p++) {
        const __m512 ap = _mm512_set1_ps(a[p * a_stride]);
#pragma GCC unroll 4
        for (int q = 0; q < NP; q++) {
            const float *bq = b + (size_t)q * panel_stride + p * NR;
            acc[2 * q] = _mm512_fmadd_ps(ap, _mm512_loadu_ps(bq), acc[2 * q]);
            acc[2 * q + 1] = _mm512_fmadd_ps(ap, _mm512_loadu_ps(bq + 16), acc[2 * q + 1]);
        }
    }
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 8
    for (int v = 0; v < 2 * NP; v++) {
        size_t j = (size_t)v * 16;
        if (j >= n)
            break;
        const __mmask16 m = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1u);
        __m512 t = _mm512_mul_ps(va, acc[v]);
        if (beta != 0.0f)
            t = _mm512_add_ps(t, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m, c + j)));
        _mm512_mask_storeu_ps(c + j, m, t);
    }
}

void hd_f32_gemm_ukernel_1x128__avx512(size_t n, size_t kc, const float *restrict a, size_t a_stride,
                                       const float *restrict b, size_t panel_stride, float *restrict c, float alpha,
                                       float beta)
{
    switch ((n + NR - 1) / NR) {
    case 0: return;
    case 1: mv_panels(1, n, kc, a, a_stride, b, panel_stride, c, alpha, beta); break;
    case 2: mv_panels(2, n, kc, a, a_stride, b, panel_stride, c, alpha, beta); break;
    case 3: mv_panels(3, n, kc, a, a_stride, b, panel_stride, c, alpha, beta); break;
    default: mv_panels(4, n, kc, a, a_stride, b, panel_stride, c, alpha, beta); break;
    }
}
