/*
 * f32-gemm-2x32-avx2.c -- the 6x16 AVX2 kernel's last 1-2 rows over two consecutive packed B
 * panels (contract in gemm-ukernels.h, hd_f32_gemm_tail2_fn).
 *
 * Two rows of one 16-column panel are four FMA chains, half of what hides the FMA latency
 * on two pipes; two panels give eight.  Each element is still one chain of fused
 * multiply-adds in p order and the 6x16 kernel's epilogue (f32-gemm-store-avx2.h): the bits
 * of the 6x16 kernel called on each panel.
 */
#include <immintrin.h>

#include "kernels/gemm/f32-gemm-store-avx2.h"
#include "kernels/gemm/gemm-ukernels.h"

#define MR 6 /* the A panel's row stride: the 6x16 kernel's */
#define NR 16
#define PF_STEPS 8 /* k steps ahead, as the 6x16 kernel */

void hd_f32_gemm_ukernel_2x32__avx2(size_t mr, size_t nr, size_t kc, const float *restrict a,
                                    const float *restrict b, size_t panel_stride, float *restrict c, size_t ldc,
                                    float alpha, float beta)
{
    __m256 acc[2][MR], acd[2][MR];   /* [panel][row]: columns 0-7 / 8-15 of the panel */
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++) {
        acc[0][i] = acc[1][i] = _mm256_setzero_ps();
        acd[0][i] = acd[1][i] = _mm256_setzero_ps();
    }
    const float *b2 = b + panel_stride;
    for (size_t p = 0; p < kc; p++) {
        const __m256 a0 = _mm256_broadcast_ss(a), a1 = _mm256_broadcast_ss(a + 1);
        const __m256 x0 = _mm256_loadu_ps(b), x1 = _mm256_loadu_ps(b + 8);
        const __m256 y0 = _mm256_loadu_ps(b2), y1 = _mm256_loadu_ps(b2 + 8);
        _mm_prefetch((const char *)(b + NR * PF_STEPS), _MM_HINT_T0);
        _mm_prefetch((const char *)(b2 + NR * PF_STEPS), _MM_HINT_T0);
        acc[0][0] = _mm256_fmadd_ps(a0, x0, acc[0][0]);
        acd[0][0] = _mm256_fmadd_ps(a0, x1, acd[0][0]);
        acc[1][0] = _mm256_fmadd_ps(a0, y0, acc[1][0]);
        acd[1][0] = _mm256_fmadd_ps(a0, y1, acd[1][0]);
        acc[0][1] = _mm256_fmadd_ps(a1, x0, acc[0][1]);
        acd[0][1] = _mm256_fmadd_ps(a1, x1, acd[0][1]);
        acc[1][1] = _mm256_fmadd_ps(a1, y0, acc[1][1]);
        acd[1][1] = _mm256_fmadd_ps(a1, y1, acd[1][1]);
        a += MR;
        b += NR;
        b2 += NR;
    }
    hd_f32_gemm_store_6x16__avx2(mr, NR, acc[0], acd[0], c, ldc, alpha, beta);
    hd_f32_gemm_store_6x16__avx2(mr, nr - NR, acc[1], acd[1], c + NR, ldc, alpha, beta);
}
