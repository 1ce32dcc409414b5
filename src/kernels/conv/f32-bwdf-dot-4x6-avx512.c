/* kernels/conv/f32-bwdf-dot-4x6-avx512.c -- the position-contiguous dot tiles of the fp32
 * backward filter (bwdf-ukernels.h) on AVX-512: one zmm of 16 lane sums per (output channel,
 * channel) pair, 24 of them for the full 4 x 6 tile, dy and x read in place. */
#include <immintrin.h>

#include "kernels/conv/bwdf-ukernels.h"

/* The six sums of one tile row by the lane tree of the contract (l + l+8, then l + l+4,
 * l + l+2, l + l+1), in lanes 0-5 of the result: each step adds the halves of two or four
 * sums at once instead of one. */
static inline __m512 row_sums(__m512 a0, __m512 a1, __m512 a2, __m512 a3, __m512 a4, __m512 a5)
{
    /* l + l+8: lanes 0-7 hold the pair's first sum, 8-15 its second */
    __m512 t01 = _mm512_add_ps(_mm512_shuffle_f32x4(a0, a1, 0x44), _mm512_shuffle_f32x4(a0, a1, 0xEE));
    __m512 t23 = _mm512_add_ps(_mm512_shuffle_f32x4(a2, a3, 0x44), _mm512_shuffle_f32x4(a2, a3, 0xEE));
    __m512 t45 = _mm512_add_ps(_mm512_shuffle_f32x4(a4, a5, 0x44), _mm512_shuffle_f32x4(a4, a5, 0xEE));
    /* l + l+4: 128-bit group k holds sum k (u45: a4, a5, a4, a5) */
    __m512 u03 = _mm512_add_ps(_mm512_shuffle_f32x4(t01, t23, 0x88), _mm512_shuffle_f32x4(t01, t23, 0xDD));
    __m512 u45 = _mm512_add_ps(_mm512_shuffle_f32x4(t45, t45, 0x88), _mm512_shuffle_f32x4(t45, t45, 0xDD));
    /* l + l+2: group k is (sum k: lanes 0, 1; a4 or a5: lanes 0, 1) */
    __m512 v = _mm512_add_ps(_mm512_shuffle_ps(u03, u45, 0x44), _mm512_shuffle_ps(u03, u45, 0xEE));
    /* l + l+1: group k is (sum k, a4 or a5, the same again) */
    __m512 w = _mm512_add_ps(_mm512_shuffle_ps(v, v, 0x88), _mm512_shuffle_ps(v, v, 0xDD));
    return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), w);
}

static inline __attribute__((always_inline)) void dot_tile(const int MK, const int MC, int64_t len, const float *dy,
                                                             int64_t ldy, const float *x, int64_t ldx, float *dw,
                                                             int64_t ldw, float alpha, float beta)
{
    __m512 acc[4][6];
#pragma GCC unroll 16
    for (int i = 0; i < MK; i++)
#pragma GCC unroll 16
        for (int j = 0; j < 6; j++)
            acc[i][j] = _mm512_setzero_ps();
    int64_t q = 0;
    for (; q + 16 <= len; q += 16) {
        __m512 d[4];
#pragma GCC unroll 16
        for (int i = 0; i < MK; i++)
            d[i] = _mm512_loadu_ps(dy + i * ldy + q);
#pragma GCC unroll 16
        for (int j = 0; j < MC; j++) {
            __m512 v = _mm512_loadu_ps(x + j * ldx + q);
#pragma GCC unroll 16
            for (int i = 0; i < MK; i++)
                acc[i][j] = _mm512_fmadd_ps(d[i], v, acc[i][j]);
        }
    }
    if (q < len) {
        const __mmask16 m = (__mmask16)((1u << (len - q)) - 1u);
        __m512 d[4];
#pragma GCC unroll 16
        for (int i = 0; i < MK; i++)
            d[i] = _mm512_maskz_loadu_ps(m, dy + i * ldy + q);
#pragma GCC unroll 16
        for (int j = 0; j < MC; j++) {
            __m512 v = _mm512_maskz_loadu_ps(m, x + j * ldx + q);
#pragma GCC unroll 16
            for (int i = 0; i < MK; i++)
                acc[i][j] = _mm512_fmadd_ps(d[i], v, acc[i][j]);
        }
    }
    /* alpha * sum (+ beta * dw), the two products rounded separately */
    const __mmask16 m = (__mmask16)((1u << MC) - 1u);
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 16
    for (int i = 0; i < MK; i++) {
        __m512 r = _mm512_mul_ps(va, row_sums(acc[i][0], acc[i][1], acc[i][2], acc[i][3], acc[i][4], acc[i][5]));
        if (beta != 0.0f)
            r = _mm512_add_ps(r, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m, dw + i * ldw)));
        _mm512_mask_storeu_ps(dw + i * ldw, m, r);
    }
}

void hd_f32_bwdf_ukernel_dot4x6__avx512(int64_t mk, int64_t mc, int64_t len, const float *dy, int64_t ldy,
                                        const float *x, int64_t ldx, float *dw, int64_t ldw, float alpha, float beta)
{
#define TILE(K, C) dot_tile(K, C, len, dy, ldy, x, ldx, dw, ldw, alpha, beta)
#define ROW(K)                  \
    switch (mc) {               \
    case 1: TILE(K, 1); break;  \
    case 2: TILE(K, 2); break;  \
    case 3: TILE(K, 3); break;  \
    case 4: TILE(K, 4); break;  \
    case 5: TILE(K, 5); break;  \
    default: TILE(K, 6); break; \
    }
    switch (mk) {
    case 1: ROW(1); break;
    case 2: ROW(2); break;
    case 3: ROW(3); break;
    default: ROW(4); break;
    }
#undef ROW
#undef TILE
}
