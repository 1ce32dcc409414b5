/*
 * f32-igemm-6x16-avx2.c -- indirect micro-kernel for AVX2 + FMA (contract in
 * igemm-ukernels.h): the 6 x 16 tile of the packed AVX2 kernel, A broadcast from 6 row
 * pointers per segment.
 */
#include <immintrin.h>

#include "kernels/gemm/f32-gemm-store-avx2.h"
#include "kernels/igemm/igemm-ukernels.h"

#define MR 6
#define PF_STEPS 8 /* k steps ahead */

void hd_f32_igemm_ukernel_6x16__avx2(size_t mr, size_t nr, size_t nseg, const hd_igemm_seg *seg, size_t row0,
                                     const float *restrict b, size_t b_stride, float *restrict c, size_t ldc,
                                     float alpha, float beta)
{
    __m256 acc0[MR], acc1[MR];
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++) {
        acc0[i] = _mm256_setzero_ps();
        acc1[i] = _mm256_setzero_ps();
    }
    for (size_t i = 0; i < mr; i++)
        _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
    for (size_t s = 0; s < nseg; s++) {
        const float *a[MR];
#pragma GCC unroll 6
        for (int i = 0; i < MR; i++)
            a[i] = seg[s].rows[row0 + (size_t)i] + seg[s].off;
        size_t kc = (size_t)seg[s].kc;
        for (size_t p = 0; p < kc; p++) {
            const __m256 b0 = _mm256_loadu_ps(b);
            const __m256 b1 = _mm256_loadu_ps(b + 8);
            _mm_prefetch((const char *)(b + b_stride * PF_STEPS), _MM_HINT_T0);
#pragma GCC unroll 6
            for (int i = 0; i < MR; i++) {
                const __m256 ai = _mm256_broadcast_ss(a[i] + p);
                acc0[i] = _mm256_fmadd_ps(ai, b0, acc0[i]);
                acc1[i] = _mm256_fmadd_ps(ai, b1, acc1[i]);
            }
            b += b_stride;
        }
    }

    hd_f32_gemm_store_6x16__avx2(mr, nr, acc0, acc1, c, ldc, alpha, beta);
}
