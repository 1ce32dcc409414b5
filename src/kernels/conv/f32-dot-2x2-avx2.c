/*
 * f32-dot-2x2-avx2.c -- the AVX2 dot micro-kernel (contract in dot-ukernels.h).  A 16-lane
 * partial sum is two 8-lane halves (steps 0-7 and 8-15 of every 16), each lane one fused
 * multiply-add chain: the AVX-512 kernel's bits.  Eight accumulators of 4-cycle latency on
 * two ports keep the FMA units busy; 2 x 2 is what 16 registers allow.
 */
#include <immintrin.h>
#include <stdint.h>

#include "kernels/conv/dot-ukernels.h"

#define MR 2
#define NR 2

/* The 8 floats at p + s, those at or past kc read as zero (never loaded). */
static inline __m256 load8(const float *p, size_t s, size_t kc)
{
    if (s + 8 <= kc)
        return _mm256_loadu_ps(p + s);
    int left = s < kc ? (int)(kc - s) : 0;
    __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_maskload_ps(p + s, mask);
}

/* One step of 8 lanes (half h of 16) for the whole tile. */
#define DOT_STEP(LOAD, s, h)                                                   \
    do {                                                                       \
        __m256 a0 = LOAD(x0, s), a1 = LOAD(x1, s);                             \
        __m256 b0 = LOAD(w0, s), b1 = LOAD(w1, s);                             \
        acc[0][0][h] = _mm256_fmadd_ps(a0, b0, acc[0][0][h]);                  \
        acc[0][1][h] = _mm256_fmadd_ps(a0, b1, acc[0][1][h]);                  \
        acc[1][0][h] = _mm256_fmadd_ps(a1, b0, acc[1][0][h]);                  \
        acc[1][1][h] = _mm256_fmadd_ps(a1, b1, acc[1][1][h]);                  \
    } while (0)
#define LOAD_FULL(p, s) _mm256_loadu_ps((p) + (s))
#define LOAD_TAIL(p, s) load8((p), (s), kc)

void hd_f32_dot_2x2__avx2(size_t kc, size_t nseg, const float *const *x, size_t xstride, const float *const *w,
                          float *part, int first)
{
    __m256 acc[MR][NR][2];
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++)
            for (int h = 0; h < 2; h++)
                acc[i][j][h] = first ? _mm256_setzero_ps() : _mm256_loadu_ps(part + (i * NR + j) * 16 + h * 8);
    size_t full = kc / 16 * 16;
    for (size_t g = 0; g < nseg; g++) {
        const float *x0 = x[g * xstride], *x1 = x[g * xstride + 1], *w0 = w[0] + g * kc, *w1 = w[1] + g * kc;
        for (size_t s = 0; s < full; s += 16) {
            DOT_STEP(LOAD_FULL, s, 0);
            DOT_STEP(LOAD_FULL, s + 8, 1);
        }
        if (full < kc) {
            DOT_STEP(LOAD_TAIL, full, 0);
            DOT_STEP(LOAD_TAIL, full + 8, 1);
        }
    }
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++)
            for (int h = 0; h < 2; h++)
                _mm256_storeu_ps(part + (i * NR + j) * 16 + h * 8, acc[i][j][h]);
}
