/*
 * f32-packa-14-avx512.c -- packing of an A panel for the 14-row AVX-512 SGEMM kernel when
 * op(A) = A: the panel is A's 14 rows transposed (k-major).  16 k steps at a time: the rows'
 * next 16 values (masked at the k edge; rows past ROWS and the two past MR are zero) are
 * transposed in registers and each k step's first 14 values stored with one masked store.
 * A gather per k step (the earlier version) costs about one cycle per element; the register
 * transpose a quarter of a shuffle.  Both replaced a scalar transpose.  The RNN packs its
 * batch of states like this at every time step.
 * Also the op(A) = A^T packing (rows already k-major: a masked copy per k step).
 */
#include <immintrin.h>
#include <stdint.h>

#include "kernels/gemm/gemm-ukernels.h"
#include "kernels/transpose/f32-transpose-16x16-avx512.h"

#define MR 14

int hd_f32_packa_ukernel_14__avx512(const float *a, size_t lda, size_t rows, size_t kc, float *dst)
{
    /* lda stays limited as when a gather packed the panel (32-bit offsets): the driver's C
       packing takes such matrices, and the limit is part of this entry's tested contract */
    if (rows == 0 || rows > MR || lda > (size_t)INT32_MAX / MR)
        return 0;
    const __mmask16 store = (__mmask16)((1u << MR) - 1u);
    for (size_t p = 0; p < kc; p += 16) {
        const size_t kk = kc - p < 16 ? kc - p : 16;
        const __mmask16 km = (__mmask16)(kk >= 16 ? 0xffffu : (1u << kk) - 1u);
        __m512 v[16];
#pragma GCC unroll 16
        for (size_t i = 0; i < 16; i++)
            v[i] = i < rows ? _mm512_maskz_loadu_ps(km, a + i * lda + p) : _mm512_setzero_ps();
        hd_f32_transpose_regs_16x16__avx512(v);
        for (size_t q = 0; q < kk; q++)
            _mm512_mask_storeu_ps(dst + (p + q) * MR, store, v[q]);
    }
    return 1;
}

/* op(A) = A^T: the panel's row i at step p is A[p][i], so each k step is ROWS consecutive
 * values of one row of A: one masked load and one masked store (unused rows zero), instead of
 * a scalar copy per element. */
int hd_f32_packa_t_ukernel_14__avx512(const float *a, size_t lda, size_t rows, size_t kc, float *dst)
{
    if (rows == 0 || rows > MR)
        return 0;
    const __mmask16 load = (__mmask16)((1u << rows) - 1u);
    const __mmask16 store = (__mmask16)((1u << MR) - 1u);
    for (size_t p = 0; p < kc; p++)
        _mm512_mask_storeu_ps(dst + p * MR, store, _mm512_maskz_loadu_ps(load, a + p * lda));
    return 1;
}
