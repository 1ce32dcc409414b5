/*
 * f32-gemm-6x16-avx2.c -- SGEMM micro-kernel for AVX2 + FMA (contract in gemm-ukernels.h).
 *
 * 6 rows x 2 YMM = 12 independent accumulators (>= 8 needed to cover two FMA pipes of
 * latency 4), 2 B vectors and one A broadcast: 15 of the 16 YMM registers.
 */
#include <immintrin.h>

#include "kernels/gemm/f32-gemm-store-avx2.h"
#include "kernels/gemm/gemm-ukernels.h"

#define MR 6
#define PF_STEPS 8 /* k steps ahead */

/* The k loop over the first ROWS rows of the panel (rows stay MR apart in it). */
#define KLOOP(ROWS)                                                                    \
    do {                                                                               \
        for (size_t p = 0; p < kc; p++) {                                              \
            const __m256 b0 = _mm256_loadu_ps(b);                                      \
            const __m256 b1 = _mm256_loadu_ps(b + 8);                                  \
            /* B streams from L2 (the A micro-panel is the one kept in L1): ask early */ \
            _mm_prefetch((const char *)(b + b_stride * PF_STEPS), _MM_HINT_T0);        \
            _Pragma("GCC unroll 6") for (int i = 0; i < (ROWS); i++)                   \
            {                                                                          \
                const __m256 ai = _mm256_broadcast_ss(a + i);                          \
                acc0[i] = _mm256_fmadd_ps(ai, b0, acc0[i]);                            \
                acc1[i] = _mm256_fmadd_ps(ai, b1, acc1[i]);                            \
            }                                                                          \
            a += MR;                                                                   \
            b += b_stride;                                                             \
        }                                                                              \
    } while (0)

void hd_f32_gemm_ukernel_6x16__avx2(size_t mr, size_t nr, size_t kc, const float *restrict a,
                                    const float *restrict b, size_t b_stride, float *restrict c, size_t ldc, float alpha,
                                    float beta)
{
    /* alpha and beta wait in memory: held in two YMM registers across the k loop they left 14
     * for 15 live values, and the compiler spilled an accumulator, whose FMA chain then ran
     * through a store and a reload every k step. */
    volatile float scale[2] = {alpha, beta};
    __m256 acc0[MR], acc1[MR];
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++) {
        acc0[i] = _mm256_setzero_ps();
        acc1[i] = _mm256_setzero_ps();
    }
    for (size_t i = 0; i < mr; i++)
        _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
    /* A tail of 1-4 rows (a batch of 32 states is 5 x 6 + 2) takes a k loop of its own rows
     * only: the six-row loop would spend 12 multiply-adds per k step where 4 or 8 count.
     * Every stored element still takes the same chain of fused multiply-adds: same bits. */
    if (mr <= 2)
        KLOOP(2);
    else if (mr <= 4)
        KLOOP(4);
    else
        KLOOP(MR);

    hd_f32_gemm_store_6x16__avx2(mr, nr, acc0, acc1, c, ldc, scale[0], scale[1]);
}
