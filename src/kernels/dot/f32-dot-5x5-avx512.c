/*
 * f32-dot-5x5-avx512.c -- the AVX-512 dot micro-kernel (contract in dot-ukernels.h).
 *
 * 25 accumulators, 5 w vectors and one x vector: 31 of the 32 registers.  Per 16 steps it
 * loads 10 vectors for 25 fused multiply-adds, so the two FMA ports, not the loads, set the
 * pace, as in the packed 14x32 kernel.  5 x 5 rather than 4 x 6 (the same load ratio) or
 * 3 x 7 (more loads per FMA): the 7x7 layers' 49 positions fill 50 rows.
 */
#include <immintrin.h>

#include "kernels/dot/dot-ukernels.h"

#define MR 5
#define NR 5

void hd_f32_dot_ukernel_5x5__avx512(size_t kc, size_t nseg, const float *const *x, size_t xstride,
                                    const float *const *w, float *part, int first)
{
    __m512 acc[MR][NR];
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 8
        for (int j = 0; j < NR; j++)
            acc[i][j] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(part + (i * NR + j) * 16);
    size_t full = kc / 16 * 16;
    __mmask16 tail = (__mmask16)((1u << (kc - full)) - 1u);
    for (size_t g = 0; g < nseg; g++) {
        const float *xr[MR], *wr[NR];
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++)
            xr[i] = x[g * xstride + (size_t)i];
#pragma GCC unroll 8
        for (int j = 0; j < NR; j++)
            wr[j] = w[j] + g * kc;
        for (size_t s = 0; s < full; s += 16) {
            __m512 b[NR];
#pragma GCC unroll 8
            for (int j = 0; j < NR; j++)
                b[j] = _mm512_loadu_ps(wr[j] + s);
#pragma GCC unroll 8
            for (int i = 0; i < MR; i++) {
                __m512 a = _mm512_loadu_ps(xr[i] + s);
#pragma GCC unroll 8
                for (int j = 0; j < NR; j++)
                    acc[i][j] = _mm512_fmadd_ps(a, b[j], acc[i][j]);
            }
        }
        if (tail) {
            __m512 b[NR];
#pragma GCC unroll 8
            for (int j = 0; j < NR; j++)
                b[j] = _mm512_maskz_loadu_ps(tail, wr[j] + full);
#pragma GCC unroll 8
            for (int i = 0; i < MR; i++) {
                __m512 a = _mm512_maskz_loadu_ps(tail, xr[i] + full);
#pragma GCC unroll 8
                for (int j = 0; j < NR; j++)
                    acc[i][j] = _mm512_fmadd_ps(a, b[j], acc[i][j]);
            }
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 8
        for (int j = 0; j < NR; j++)
            _mm512_storeu_ps(part + (i * NR + j) * 16, acc[i][j]);
}
