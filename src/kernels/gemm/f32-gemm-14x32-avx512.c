/*
 * f32-gemm-14x32-avx512.c -- SGEMM micro-kernel for AVX-512 (contract in gemm-ukernels.h).
 *
 * 14 rows x 2 ZMM columns = 28 independent accumulators: with two FMA pipes of latency 4 at
 * least 8 FMAs must be in flight, so 28 hides the latency with room to spare, and leaves
 * 4 registers for the two B vectors and the broadcast of A.  Per k step: 2 loads of B,
 * 14 broadcasts of A, 28 FMAs, and a prefetch of B 8 steps ahead: the driver keeps the A
 * micro-panel in L1 and streams B from L2, whose latency showed up as stalls on the B loads.
 */
#include <immintrin.h>

#include "kernels/gemm/gemm-ukernels.h"

#define MR 14
#define PF_STEPS 8 /* k steps ahead */

void hd_f32_gemm_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *restrict a,
                                       const float *restrict b, size_t b_stride, float *restrict c, size_t ldc, float alpha,
                                       float beta)
{
    __m512 acc0[MR], acc1[MR];
#pragma GCC unroll 14
    for (int i = 0; i < MR; i++) {
        acc0[i] = _mm512_setzero_ps();
        acc1[i] = _mm512_setzero_ps();
    }
    /* Fetch the C tile while the k loop runs, so the epilogue does not wait for memory
       (also when beta == 0: the stores would have to fetch the lines anyway). */
    for (size_t i = 0; i < mr; i++) {
        _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + i * ldc + 16), _MM_HINT_T0);
    }
    for (size_t p = 0; p < kc; p++) {
        const __m512 b0 = _mm512_loadu_ps(b);
        const __m512 b1 = _mm512_loadu_ps(b + 16);
        /* B streams from L2 (the A micro-panel is the one kept in L1): ask for it early. */
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS), _MM_HINT_T0);
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS + 16), _MM_HINT_T0);
#pragma GCC unroll 14
        for (int i = 0; i < MR; i++) {
            const __m512 ai = _mm512_set1_ps(a[i]);
            acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
            acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
        }
        a += MR;
        b += b_stride;
    }

    const __m512 va = _mm512_set1_ps(alpha);
    const __m512 vb = _mm512_set1_ps(beta);
    const __mmask16 m0 = nr >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << nr) - 1u);
    const __mmask16 m1 = nr >= 32 ? (__mmask16)0xFFFF : nr <= 16 ? (__mmask16)0 : (__mmask16)((1u << (nr - 16)) - 1u);
#pragma GCC unroll 14
    for (int i = 0; i < MR; i++) {
        if ((size_t)i < mr) {
            float *ci = c + (size_t)i * ldc;
            __m512 t0 = _mm512_mul_ps(va, acc0[i]);
            __m512 t1 = _mm512_mul_ps(va, acc1[i]);
            if (beta != 0.0f) {
                t0 = _mm512_add_ps(t0, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m0, ci)));
                t1 = _mm512_add_ps(t1, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m1, ci + 16)));
            }
            _mm512_mask_storeu_ps(ci, m0, t0);
            _mm512_mask_storeu_ps(ci + 16, m1, t1);
        }
    }
}
