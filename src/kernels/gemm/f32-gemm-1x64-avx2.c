/*
 * f32-gemm-1x64-avx2.c -- one row of A times up to four consecutive packed 16-column B panels
 * of the 6x16 AVX2 kernel (contract in gemm-ukernels.h, hd_f32_gemm_mv_fn).
 *
 * The 6x16 kernel has no short-row loop: at mr = 1 (the RNN's step at batch 1) it computes
 * six rows to store one, and its two useful accumulators wait on each other's latency.  Four
 * panels at once give eight independent chains of useful work.  Each column is still one
 * chain of fused multiply-adds in p order, then alpha * acc (+ beta * C): the bits of four
 * mr = 1 calls of the 6x16 kernel.
 */
#include <immintrin.h>

#include "kernels/gemm/gemm-ukernels.h"

#define NR 16
#define PANELS 4
#define PF_STEPS 8 /* k steps ahead, as the 6x16 kernel */

static inline __attribute__((always_inline)) void mv_panels(const int NP, size_t n, size_t kc, const float *restrict a,
                                                            size_t a_stride, const float *restrict b,
                                                            size_t panel_stride, float *restrict c, float alpha,
                                                            float beta)
{
    __m256 acc[2 * PANELS];
#pragma GCC unroll 8
    for (int v = 0; v < 2 * PANELS; v++)
        acc[v] = _mm256_setzero_ps();
    for (size_t p = 0; p < kc; p++) {
        const __m256 ap = _mm256_broadcast_ss(a + p * a_stride);
#pragma GCC unroll 4
        for (int q = 0; q < NP; q++) {
            const float *bq = b + (size_t)q * panel_stride + p * NR;
            _mm_prefetch((const char *)(bq + NR * PF_STEPS), _MM_HINT_T0);
            acc[2 * q] = _mm256_fmadd_ps(ap, _mm256_loadu_ps(bq), acc[2 * q]);
            acc[2 * q + 1] = _mm256_fmadd_ps(ap, _mm256_loadu_ps(bq + 8), acc[2 * q + 1]);
        }
    }
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
#pragma GCC unroll 8
    for (int v = 0; v < 2 * NP; v++) {
        size_t j = (size_t)v * 8;
        if (j >= n)
            break;
        float *cj = c + j;
        __m256 t = _mm256_mul_ps(va, acc[v]);
        if (n - j >= 8) {
            if (beta != 0.0f)
                t = _mm256_add_ps(t, _mm256_mul_ps(vb, _mm256_loadu_ps(cj)));
            _mm256_storeu_ps(cj, t);
        } else {
            const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - j)), lane);
            if (beta != 0.0f)
                t = _mm256_add_ps(t, _mm256_mul_ps(vb, _mm256_maskload_ps(cj, m)));
            _mm256_maskstore_ps(cj, m, t);
        }
    }
}

void hd_f32_gemm_ukernel_1x64__avx2(size_t n, size_t kc, const float *restrict a, size_t a_stride,
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
