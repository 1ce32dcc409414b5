/*
 * f32-wino4gemm-6x64-avx512.c -- the GEMM micro-kernel of the channels-contiguous Winograd
 * F(4x4, 3x3) form (contract in wino4-ukernels.h): 6 tiles x 64 filters.
 *
 * The A rows are transformed input tiles read in place (lda apart, channels contiguous), so
 * each of the 6 rows is its own pointer: 6 pointers fit the general registers, 14 (the SGEMM
 * kernel's rows) would not.  6 rows x 4 ZMM = 24 accumulators hide the FMA latency (2 pipes x
 * 4 cycles need 8); per k step 4 loads of B, 6 broadcasts of A, 24 FMAs.  B (a packed panel
 * of 64 filters) streams from L2 and is prefetched 8 steps ahead, as in the SGEMM kernels.
 */
#include <immintrin.h>

#include "kernels/wino4/wino4-ukernels.h"

#define MR 6
#define NV 4 /* ZMM per row: 64 columns */
#define PF_STEPS 8

void hd_f32_wino4gemm_ukernel_6x64__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda, const float *b,
                                           size_t b_stride, float *c, size_t ldc, int accumulate)
{
    __mmask16 mk[NV];
#pragma GCC unroll 4
    for (int q = 0; q < NV; q++) {
        size_t lo = 16 * (size_t)q;
        mk[q] = nr >= lo + 16 ? (__mmask16)0xFFFF : nr <= lo ? (__mmask16)0 : (__mmask16)((1u << (nr - lo)) - 1u);
    }
    __m512 acc[MR][NV];
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
        for (int q = 0; q < NV; q++)
            acc[i][q] = accumulate && (size_t)i < mr ? _mm512_maskz_loadu_ps(mk[q], c + (size_t)i * ldc + 16 * q)
                                                     : _mm512_setzero_ps();
    /* rows past mr repeat the last one: they stay inside A, and are never stored */
    const float *ar[MR];
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++)
        ar[i] = a + (size_t)((size_t)i < mr ? (size_t)i : mr - 1) * lda;
    for (size_t p = 0; p < kc; p++) {
        __m512 bv[NV];
#pragma GCC unroll 4
        for (int q = 0; q < NV; q++)
            bv[q] = _mm512_loadu_ps(b + 16 * q);
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS), _MM_HINT_T0);
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS + 16), _MM_HINT_T0);
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS + 32), _MM_HINT_T0);
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS + 48), _MM_HINT_T0);
#pragma GCC unroll 6
        for (int i = 0; i < MR; i++) {
            const __m512 ai = _mm512_set1_ps(ar[i][p]);
#pragma GCC unroll 4
            for (int q = 0; q < NV; q++)
                acc[i][q] = _mm512_fmadd_ps(ai, bv[q], acc[i][q]);
        }
        b += b_stride;
    }
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++)
        if ((size_t)i < mr)
#pragma GCC unroll 4
            for (int q = 0; q < NV; q++)
                _mm512_mask_storeu_ps(c + (size_t)i * ldc + 16 * q, mk[q], acc[i][q]);
}
