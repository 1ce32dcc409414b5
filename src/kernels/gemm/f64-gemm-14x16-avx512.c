/*
 * f64-gemm-14x16-avx512.c -- DGEMM micro-kernel for AVX-512 (contract in gemm-ukernels.h).
 *
 * The double-precision twin of f32-gemm-14x32-avx512.c: 14 rows x 2 ZMM of 8 doubles,
 * 28 independent accumulators, 2 loads of B and 14 broadcasts of A per k step.
 */
#include <immintrin.h>

#include "kernels/gemm/gemm-ukernels.h"

#define MR 14
#define PF_STEPS 8 /* k steps ahead */

void hd_f64_gemm_ukernel_14x16__avx512(size_t mr, size_t nr, size_t kc, const double *restrict a,
                                       const double *restrict b, size_t b_stride, double *restrict c, size_t ldc, double alpha,
                                       double beta)
{
    __m512d acc0[MR], acc1[MR];
#pragma GCC unroll 14
    for (int i = 0; i < MR; i++) {
        acc0[i] = _mm512_setzero_pd();
        acc1[i] = _mm512_setzero_pd();
    }
    for (size_t i = 0; i < mr; i++) {
        _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + i * ldc + 8), _MM_HINT_T0);
    }
    for (size_t p = 0; p < kc; p++) {
        const __m512d b0 = _mm512_loadu_pd(b);
        const __m512d b1 = _mm512_loadu_pd(b + 8);
        /* B streams from L2 (the A micro-panel is the one kept in L1): ask for it early. */
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS), _MM_HINT_T0);
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS + 8), _MM_HINT_T0);
#pragma GCC unroll 14
        for (int i = 0; i < MR; i++) {
            const __m512d ai = _mm512_set1_pd(a[i]);
            acc0[i] = _mm512_fmadd_pd(ai, b0, acc0[i]);
            acc1[i] = _mm512_fmadd_pd(ai, b1, acc1[i]);
        }
        a += MR;
        b += b_stride;
    }

    const __m512d va = _mm512_set1_pd(alpha);
    const __m512d vb = _mm512_set1_pd(beta);
    const __mmask8 m0 = nr >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << nr) - 1u);
    const __mmask8 m1 = nr >= 16 ? (__mmask8)0xFF : nr <= 8 ? (__mmask8)0 : (__mmask8)((1u << (nr - 8)) - 1u);
#pragma GCC unroll 14
    for (int i = 0; i < MR; i++) {
        if ((size_t)i < mr) {
            double *ci = c + (size_t)i * ldc;
            __m512d t0 = _mm512_mul_pd(va, acc0[i]);
            __m512d t1 = _mm512_mul_pd(va, acc1[i]);
            if (beta != 0.0) {
                t0 = _mm512_add_pd(t0, _mm512_mul_pd(vb, _mm512_maskz_loadu_pd(m0, ci)));
                t1 = _mm512_add_pd(t1, _mm512_mul_pd(vb, _mm512_maskz_loadu_pd(m1, ci + 8)));
            }
            _mm512_mask_storeu_pd(ci, m0, t0);
            _mm512_mask_storeu_pd(ci + 8, m1, t1);
        }
    }
}
