/*
 * f32-dot-3x3-avx2.c -- the AVX2 dot micro-kernel (contract in dot-ukernels.h).
 *
 * A 16-lane partial sum is two 8-lane halves: lanes 0-7 take steps 0-7 of every 16, lanes
 * 8-15 steps 8-15, each lane one fused multiply-add chain -- the AVX-512 kernel's bits.  The
 * two halves are independent chains, so the kernel runs them one after the other over the
 * segments: only one half of the tile's sums is live at a time, and 3 x 3 fits the 16
 * registers (9 sums, 3 w vectors, one x vector; 6 loads per 9 FMAs) where both halves at
 * once allowed only 2 x 2 (4 loads per 4 FMAs: bound by the loads).
 */
#include <immintrin.h>
#include <stdint.h>

#include "kernels/dot/dot-ukernels.h"

#define MR 3
#define NR 3

/* The 8 floats at p + s, those at or past kc read as zero (never loaded). */
static inline __m256 load8(const float *p, size_t s, size_t kc)
{
    int left = s < kc ? (int)(kc - s) : 0;
    __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_maskload_ps(p + s, mask);
}

void hd_f32_dot_ukernel_3x3__avx2(size_t kc, size_t nseg, const float *const *x, size_t xstride, const float *const *w,
                                  float *part, int first)
{
    size_t full = kc / 16 * 16;
    for (size_t h = 0; h < 2; h++) {
        __m256 acc[MR][NR];
        #pragma GCC unroll 4
        for (int i = 0; i < MR; i++)
            #pragma GCC unroll 4
            for (int j = 0; j < NR; j++)
                acc[i][j] = first ? _mm256_setzero_ps() : _mm256_loadu_ps(part + (i * NR + j) * 16 + h * 8);
        for (size_t g = 0; g < nseg; g++) {
            const float *xr[MR], *wr[NR];
            #pragma GCC unroll 4
            for (int i = 0; i < MR; i++)
                xr[i] = x[g * xstride + (size_t)i] + 8 * h;
            #pragma GCC unroll 4
            for (int j = 0; j < NR; j++)
                wr[j] = w[j] + g * kc + 8 * h;
            for (size_t s = 0; s < full; s += 16) {
                __m256 b0 = _mm256_loadu_ps(wr[0] + s), b1 = _mm256_loadu_ps(wr[1] + s);
                __m256 b2 = _mm256_loadu_ps(wr[2] + s);
                #pragma GCC unroll 4
                for (int i = 0; i < MR; i++) {
                    __m256 a = _mm256_loadu_ps(xr[i] + s);
                    acc[i][0] = _mm256_fmadd_ps(a, b0, acc[i][0]);
                    acc[i][1] = _mm256_fmadd_ps(a, b1, acc[i][1]);
                    acc[i][2] = _mm256_fmadd_ps(a, b2, acc[i][2]);
                }
            }
            if (full < kc) {
                /* the tail of this half: steps full + 8h .. full + 8h + 7, those past kc zero */
                size_t lim = kc > full + 8 * h ? kc - 8 * h : full;   /* kc seen from the shifted rows */
                __m256 b0 = load8(wr[0], full, lim), b1 = load8(wr[1], full, lim), b2 = load8(wr[2], full, lim);
                #pragma GCC unroll 4
                for (int i = 0; i < MR; i++) {
                    __m256 a = load8(xr[i], full, lim);
                    acc[i][0] = _mm256_fmadd_ps(a, b0, acc[i][0]);
                    acc[i][1] = _mm256_fmadd_ps(a, b1, acc[i][1]);
                    acc[i][2] = _mm256_fmadd_ps(a, b2, acc[i][2]);
                }
            }
        }
        #pragma GCC unroll 4
        for (int i = 0; i < MR; i++)
            #pragma GCC unroll 4
            for (int j = 0; j < NR; j++)
                _mm256_storeu_ps(part + (i * NR + j) * 16 + h * 8, acc[i][j]);
    }
}
