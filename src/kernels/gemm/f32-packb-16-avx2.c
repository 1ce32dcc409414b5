/*
 * f32-packb-16-avx2.c -- packing of a B panel for the 16-column AVX2 SGEMM kernel when
 * op(B) = B^T (B stored as n rows of k): the panel's column c is B's row c, so the panel is a
 * 16 x kc block transposed into kc rows of 16.  Two 8 x 8 register transposes move 8 k steps
 * at a time (loads masked at the k edge, rows past COLS zero).  The plain C loop moves one
 * element at a time; the RNN packs its recurrent matrix (megabytes, transposed) at every call
 * and, at small batches, every input weight panel right before use.  A pure copy: the same
 * panel bits.
 */
#include <immintrin.h>

#include "kernels/gemm/gemm-ukernels.h"
#include "kernels/transpose/f32-transpose-8x8-avx2.h"

#define NR 16

int hd_f32_packb_t_ukernel_16__avx2(const float *b, size_t ldb, size_t cols, size_t kc, float *dst)
{
    if (cols > NR)
        return 0;
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (size_t p = 0; p < kc; p += 8) {
        const size_t kk = kc - p < 8 ? kc - p : 8;
        const __m256i km = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)kk), lane);
        for (size_t h = 0; h < NR; h += 8) {
            __m256 v[8];
#pragma GCC unroll 8
            for (size_t i = 0; i < 8; i++)
                v[i] = h + i < cols ? (kk == 8 ? _mm256_loadu_ps(b + (h + i) * ldb + p)
                                               : _mm256_maskload_ps(b + (h + i) * ldb + p, km))
                                    : _mm256_setzero_ps();
            hd_f32_transpose_regs_8x8__avx2(v);
            float *d = dst + p * NR + h;
            if (kk == 8) {
#pragma GCC unroll 8
                for (size_t q = 0; q < 8; q++)
                    _mm256_storeu_ps(d + q * NR, v[q]);
            } else {
                for (size_t q = 0; q < kk; q++)
                    _mm256_storeu_ps(d + q * NR, v[q]);
            }
        }
    }
    return 1;
}
