/*
 * f32-packb-32-avx512.c -- packing of a B panel for the 32-column AVX-512 SGEMM kernel when
 * op(B) = B^T (B stored as n rows of k): the panel's column c is stored row c, so the panel is
 * a 32 x kc block transposed into kc rows of 32.  16 x 16 register transposes move it a block
 * at a time; the plain C loop moved one element per cycle, and the RNN packs its recurrent
 * matrix (megabytes, transposed) at every call.  A pure copy: the same panel bits.
 */
#include <immintrin.h>

#include "kernels/gemm/gemm-ukernels.h"
#include "kernels/transpose/f32-transpose-16x16-avx512.h"

#define NR 32

static inline __mmask16 first(size_t m)
{
    return (__mmask16)(m >= 16 ? 0xffffu : (1u << m) - 1u);
}

int hd_f32_packb_t_ukernel_32__avx512(const float *b, size_t ldb, size_t cols, size_t kc, float *dst)
{
    if (cols > NR)
        return 0;
    for (size_t p = 0; p < kc; p += 16) {
        const size_t kk = kc - p < 16 ? kc - p : 16;
        const __mmask16 km = first(kk);
        for (size_t h = 0; h < NR; h += 16) {
            __m512 v[16];
#pragma GCC unroll 16
            for (size_t i = 0; i < 16; i++)
                v[i] = h + i < cols ? _mm512_maskz_loadu_ps(km, b + (h + i) * ldb + p) : _mm512_setzero_ps();
            hd_f32_transpose_regs_16x16__avx512(v);
            float *d = dst + p * NR + h;
            for (size_t q = 0; q < kk; q++)
                _mm512_storeu_ps(d + q * NR, v[q]);
        }
    }
    return 1;
}
