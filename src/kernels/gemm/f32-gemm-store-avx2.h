/*
 * f32-gemm-store-avx2.h -- the epilogue shared by the fp32 AVX2 6 x 16 micro-kernels (packed:
 * kernels/gemm/f32-gemm-6x16-avx2.c; indirect: kernels/igemm/f32-igemm-6x16-avx2.c):
 * C = alpha * acc + beta * C over the mr x nr corner of the tile, C read only when beta != 0
 * (so NaN in C is ignored for beta = 0); full 16-wide rows with plain loads and stores, partial
 * ones masked.  One copy, so both kernels round alike.  Include only from files compiled for
 * AVX2 + FMA.
 */
#ifndef HD_F32_GEMM_STORE_AVX2_H
#define HD_F32_GEMM_STORE_AVX2_H

#include <immintrin.h>
#include <stddef.h>

#define HD_F32_STORE_6X16_ROWS 6

/* Forced inline: the 12 accumulators must stay in registers. */
static inline __attribute__((always_inline)) void hd_f32_gemm_store_6x16__avx2(size_t mr, size_t nr, const __m256 *acc0,
                                                                         const __m256 *acc1, float *c, size_t ldc,
                                                                         float alpha, float beta)
{
    const __m256 va = _mm256_set1_ps(alpha);
    const __m256 vb = _mm256_set1_ps(beta);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i vn = _mm256_set1_epi32((int)nr);
    const __m256i m0 = _mm256_cmpgt_epi32(vn, lane);
    const __m256i m1 = _mm256_cmpgt_epi32(vn, _mm256_add_epi32(lane, _mm256_set1_epi32(8)));
#pragma GCC unroll 6
    for (int i = 0; i < HD_F32_STORE_6X16_ROWS; i++) {
        if ((size_t)i < mr) {
            float *ci = c + (size_t)i * ldc;
            __m256 t0 = _mm256_mul_ps(va, acc0[i]);
            __m256 t1 = _mm256_mul_ps(va, acc1[i]);
            if (nr == 16) {
                if (beta != 0.0f) {
                    t0 = _mm256_add_ps(t0, _mm256_mul_ps(vb, _mm256_loadu_ps(ci)));
                    t1 = _mm256_add_ps(t1, _mm256_mul_ps(vb, _mm256_loadu_ps(ci + 8)));
                }
                _mm256_storeu_ps(ci, t0);
                _mm256_storeu_ps(ci + 8, t1);
            } else {
                if (beta != 0.0f) {
                    t0 = _mm256_add_ps(t0, _mm256_mul_ps(vb, _mm256_maskload_ps(ci, m0)));
                    t1 = _mm256_add_ps(t1, _mm256_mul_ps(vb, _mm256_maskload_ps(ci + 8, m1)));
                }
                _mm256_maskstore_ps(ci, m0, t0);
                _mm256_maskstore_ps(ci + 8, m1, t1);
            }
        }
    }
}

#endif
