/*
 * f32-packa-6-avx2.c -- packing of an A panel for the 6-row AVX2 SGEMM kernel.
 *
 * op(A) = A: the panel is A's 6 rows transposed (k-major, kc rows of 6).  8 k steps at a
 * time: the rows' next 8 values (masked at the k edge; rows past ROWS, and the two rows past
 * MR that fill the 8 x 8 block, zero) are transposed in registers, and k step q's 6 values
 * go out with one 8-wide store whose 2 extra values the next step's store overwrites; the
 * panel's last step uses a masked store, so nothing past the panel is written.  The plain C
 * loop moves one element at a time, and the RNN packs its batch of states like this at every
 * time step.
 *
 * op(A) = A^T: each k step is ROWS consecutive values of one row of A: one masked load (rows
 * past ROWS read as zero, nothing past them read) and the same overlapping store.
 *
 * Pure copies: the same panel bits as the plain packing.
 */
#include <immintrin.h>
#include <stdint.h>

#include "kernels/gemm/gemm-ukernels.h"
#include "kernels/transpose/f32-transpose-8x8-avx2.h"

#define MR 6

/* lanes 0 .. n-1 set */
static inline __m256i first(size_t n)
{
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lane);
}

int hd_f32_packa_ukernel_6__avx2(const float *a, size_t lda, size_t rows, size_t kc, float *dst)
{
    /* the same lda limit as the AVX-512 packer's (the tested contract of these entries) */
    if (rows == 0 || rows > MR || lda > (size_t)INT32_MAX / MR)
        return 0;
    const __m256i store6 = first(MR);
    for (size_t p = 0; p < kc; p += 8) {
        const size_t kk = kc - p < 8 ? kc - p : 8;
        const __m256i km = first(kk);
        __m256 v[8];
#pragma GCC unroll 8
        for (size_t i = 0; i < 8; i++)
            v[i] = i < rows ? (kk == 8 ? _mm256_loadu_ps(a + i * lda + p) : _mm256_maskload_ps(a + i * lda + p, km))
                            : _mm256_setzero_ps();
        hd_f32_transpose_regs_8x8__avx2(v);
        float *d = dst + p * MR;
        if (kk == 8 && p + 8 < kc) {
#pragma GCC unroll 8
            for (size_t q = 0; q < 8; q++)
                _mm256_storeu_ps(d + q * MR, v[q]);
        } else {
            for (size_t q = 0; q + 1 < kk; q++)
                _mm256_storeu_ps(d + q * MR, v[q]);
            _mm256_maskstore_ps(d + (kk - 1) * MR, store6, v[kk - 1]);
        }
    }
    return 1;
}

int hd_f32_packa_t_ukernel_6__avx2(const float *a, size_t lda, size_t rows, size_t kc, float *dst)
{
    if (rows == 0 || rows > MR)
        return 0;
    if (kc == 0)
        return 1;
    const __m256i load = first(rows), store6 = first(MR);
    size_t p = 0;
    for (; p + 1 < kc; p++)
        _mm256_storeu_ps(dst + p * MR, _mm256_maskload_ps(a + p * lda, load));
    _mm256_maskstore_ps(dst + p * MR, store6, _mm256_maskload_ps(a + p * lda, load));
    return 1;
}
