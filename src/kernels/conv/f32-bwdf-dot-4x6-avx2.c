/* kernels/conv/f32-bwdf-dot-4x6-avx2.c -- the position-contiguous dot tiles of the fp32
 * backward filter (bwdf-ukernels.h) on AVX2: the 16 lane sums of each pair as two ymm (lanes
 * 0-7 and 8-15, each lane the same fused multiply-adds in the same order as the AVX-512
 * version), 2 x 3 pairs at a time to stay within 16 registers. */
#include <immintrin.h>

#include "kernels/conv/bwdf-ukernels.h"

static inline float lane_sum(__m256 lo, __m256 hi)
{
    __m256 h = _mm256_add_ps(lo, hi);
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    q = _mm_add_ss(q, _mm_shuffle_ps(q, q, 1));
    return _mm_cvtss_f32(q);
}

static inline float epilogue(float s, float *o, float alpha, float beta)
{
    __m128 v = _mm_mul_ss(_mm_set_ss(alpha), _mm_set_ss(s));
    if (beta != 0.0f)
        v = _mm_add_ss(v, _mm_mul_ss(_mm_set_ss(beta), _mm_set_ss(*o)));
    return _mm_cvtss_f32(v);
}

static inline __attribute__((always_inline)) void dot_tile(const int MK, const int MC, int64_t len, const float *dy,
                                                             int64_t ldy, const float *x, int64_t ldx, float *dw,
                                                             int64_t ldw, float alpha, float beta)
{
    __m256 lo[2][3], hi[2][3];
    #pragma GCC unroll 16
    for (int i = 0; i < MK; i++)
        #pragma GCC unroll 16
        for (int j = 0; j < MC; j++)
            lo[i][j] = hi[i][j] = _mm256_setzero_ps();
    int64_t q = 0;
    for (; q + 16 <= len; q += 16) {
        __m256 dl[2], dh[2];
        #pragma GCC unroll 16
        for (int i = 0; i < MK; i++) {
            dl[i] = _mm256_loadu_ps(dy + i * ldy + q);
            dh[i] = _mm256_loadu_ps(dy + i * ldy + q + 8);
        }
        #pragma GCC unroll 16
        for (int j = 0; j < MC; j++) {
            __m256 vl = _mm256_loadu_ps(x + j * ldx + q), vh = _mm256_loadu_ps(x + j * ldx + q + 8);
            #pragma GCC unroll 16
            for (int i = 0; i < MK; i++) {
                lo[i][j] = _mm256_fmadd_ps(dl[i], vl, lo[i][j]);
                hi[i][j] = _mm256_fmadd_ps(dh[i], vh, hi[i][j]);
            }
        }
    }
    if (q < len) {
        /* the last partial group of 16 through zero-padded copies (+0 products past len) */
        float td[2][16], tx[3][16];
        #pragma GCC unroll 16
        for (int i = 0; i < MK; i++)
            #pragma GCC unroll 16
            for (int l = 0; l < 16; l++)
                td[i][l] = q + l < len ? dy[i * ldy + q + l] : 0.0f;
        #pragma GCC unroll 16
        for (int j = 0; j < MC; j++)
            #pragma GCC unroll 16
            for (int l = 0; l < 16; l++)
                tx[j][l] = q + l < len ? x[j * ldx + q + l] : 0.0f;
        #pragma GCC unroll 16
        for (int j = 0; j < MC; j++)
            #pragma GCC unroll 16
            for (int i = 0; i < MK; i++) {
                lo[i][j] = _mm256_fmadd_ps(_mm256_loadu_ps(td[i]), _mm256_loadu_ps(tx[j]), lo[i][j]);
                hi[i][j] = _mm256_fmadd_ps(_mm256_loadu_ps(td[i] + 8), _mm256_loadu_ps(tx[j] + 8), hi[i][j]);
            }
    }
    #pragma GCC unroll 16
    for (int i = 0; i < MK; i++)
        #pragma GCC unroll 16
        for (int j = 0; j < MC; j++) {
            float *o = dw + i * ldw + j;
            *o = epilogue(lane_sum(lo[i][j], hi[i][j]), o, alpha, beta);
        }
}

static void dot_sub(int64_t mk, int64_t mc, int64_t len, const float *dy, int64_t ldy, const float *x, int64_t ldx,
                    float *dw, int64_t ldw, float alpha, float beta)
{
#define TILE(K, C) dot_tile(K, C, len, dy, ldy, x, ldx, dw, ldw, alpha, beta)
    if (mk == 1) {
        if (mc == 1) TILE(1, 1); else if (mc == 2) TILE(1, 2); else TILE(1, 3);
    } else {
        if (mc == 1) TILE(2, 1); else if (mc == 2) TILE(2, 2); else TILE(2, 3);
    }
#undef TILE
}

void hd_f32_bwdf_ukernel_dot4x6__avx2(int64_t mk, int64_t mc, int64_t len, const float *dy, int64_t ldy,
                                      const float *x, int64_t ldx, float *dw, int64_t ldw, float alpha, float beta)
{
    for (int64_t i = 0; i < mk; i += 2)
        for (int64_t j = 0; j < mc; j += 3)
            dot_sub(mk - i < 2 ? mk - i : 2, mc - j < 3 ? mc - j : 3, len, dy + i * ldy, ldy, x + j * ldx, ldx,
                    dw + i * ldw + j, ldw, alpha, beta);
}
