/*
 * f32-packa-14-avx512.c -- packing of an A panel for the 14-row AVX-512 SGEMM kernel when
 * op(A) = A: the panel is A's 14 rows transposed (k-major).  One gather per k step picks the
 * 14 values of a column (rows lda apart) and one masked store writes them; unused rows come
 * out zero from the gather mask.  Replaces a scalar transpose of ~1 element per cycle.
 * Also the op(A) = A^T packing (rows already k-major: a masked copy per k step).
 */
#include <immintrin.h>
#include <stdint.h>

#include "kernels/gemm/gemm-ukernels.h"

#define MR 14

int hd_f32_packa_ukernel_14__avx512(const float *a, size_t lda, size_t rows, size_t kc, float *dst)
{
    /* The gather's indices are 32-bit element offsets. */
    if (rows == 0 || rows > MR || lda > (size_t)INT32_MAX / MR)
        return 0;
    const int l = (int)lda;
    const __m512i idx = _mm512_setr_epi32(0, l, 2 * l, 3 * l, 4 * l, 5 * l, 6 * l, 7 * l, 8 * l, 9 * l, 10 * l,
                                          11 * l, 12 * l, 13 * l, 0, 0);
    const __mmask16 load = (__mmask16)((1u << rows) - 1u);
    const __mmask16 store = (__mmask16)((1u << MR) - 1u);
    for (size_t p = 0; p < kc; p++) {
        __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), load, idx, a + p, 4);
        _mm512_mask_storeu_ps(dst + p * MR, store, v);
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
