/*
 * f64-gemm-6x8-avx2.c -- DGEMM micro-kernel for AVX2 + FMA (contract in gemm-ukernels.h).
 *
 * The double-precision twin of f32-gemm-6x16-avx2.c: 6 rows x 2 YMM of 4 doubles,
 * 12 independent accumulators.
 */
#include <immintrin.h>

#include "kernels/gemm/gemm-ukernels.h"

#define MR 6
#define PF_STEPS 8 /* k steps ahead */

void hd_f64_gemm_ukernel_6x8__avx2(size_t mr, size_t nr, size_t kc, const double *restrict a,
                                   const double *restrict b, size_t b_stride, double *restrict c, size_t ldc, double alpha,
                                   double beta)
{
    /* alpha and beta wait in memory, as in the f32 kernel: kept in registers across the k
     * loop they pushed an accumulator onto the stack. */
    volatile double scale[2] = {alpha, beta};
    __m256d acc0[MR], acc1[MR];
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++) {
        acc0[i] = _mm256_setzero_pd();
        acc1[i] = _mm256_setzero_pd();
    }
    for (size_t i = 0; i < mr; i++)
        _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
    for (size_t p = 0; p < kc; p++) {
        const __m256d b0 = _mm256_loadu_pd(b);
        const __m256d b1 = _mm256_loadu_pd(b + 4);
        /* B streams from L2 (the A micro-panel is the one kept in L1): ask for it early. */
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS), _MM_HINT_T0);
#pragma GCC unroll 6
        for (int i = 0; i < MR; i++) {
            const __m256d ai = _mm256_broadcast_sd(a + i);
            acc0[i] = _mm256_fmadd_pd(ai, b0, acc0[i]);
            acc1[i] = _mm256_fmadd_pd(ai, b1, acc1[i]);
        }
        a += MR;
        b += b_stride;
    }

    alpha = scale[0];
    beta = scale[1];
    const __m256d va = _mm256_set1_pd(alpha);
    const __m256d vb = _mm256_set1_pd(beta);
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    const __m256i vn = _mm256_set1_epi64x((long long)nr);
    const __m256i m0 = _mm256_cmpgt_epi64(vn, lane);
    const __m256i m1 = _mm256_cmpgt_epi64(vn, _mm256_add_epi64(lane, _mm256_set1_epi64x(4)));
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++) {
        if ((size_t)i < mr) {
            double *ci = c + (size_t)i * ldc;
            __m256d t0 = _mm256_mul_pd(va, acc0[i]);
            __m256d t1 = _mm256_mul_pd(va, acc1[i]);
            if (nr == 8) {
                if (beta != 0.0) {
                    t0 = _mm256_add_pd(t0, _mm256_mul_pd(vb, _mm256_loadu_pd(ci)));
                    t1 = _mm256_add_pd(t1, _mm256_mul_pd(vb, _mm256_loadu_pd(ci + 4)));
                }
                _mm256_storeu_pd(ci, t0);
                _mm256_storeu_pd(ci + 4, t1);
            } else {
                if (beta != 0.0) {
                    t0 = _mm256_add_pd(t0, _mm256_mul_pd(vb, _mm256_maskload_pd(ci, m0)));
                    t1 = _mm256_add_pd(t1, _mm256_mul_pd(vb, _mm256_maskload_pd(ci + 4, m1)));
                }
                _mm256_maskstore_pd(ci, m0, t0);
                _mm256_maskstore_pd(ci + 4, m1, t1);
            }
        }
    }
}
