/*
 * f32-igemm-6x16-avx2.c -- indirect micro-kernel for AVX2 + FMA (contract in
 * igemm-ukernels.h): the 6 x 16 tile of the packed AVX2 kernel, A broadcast from 6 row
 * pointers per segment.
 */
#include <immintrin.h>

#include "kernels/conv/igemm-ukernels.h"

#define MR 6
#define PF_STEPS 8 /* k steps ahead */

void hd_f32_igemm_6x16__avx2(size_t mr, size_t nr, size_t nseg, const hd_igemm_seg *seg, size_t row0,
                             const float *restrict b, size_t b_stride, float *restrict c, size_t ldc, float alpha,
                             float beta)
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

    const __m256 va = _mm256_set1_ps(alpha);
    const __m256 vb = _mm256_set1_ps(beta);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i vn = _mm256_set1_epi32((int)nr);
    const __m256i m0 = _mm256_cmpgt_epi32(vn, lane);
    const __m256i m1 = _mm256_cmpgt_epi32(vn, _mm256_add_epi32(lane, _mm256_set1_epi32(8)));
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++) {
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
