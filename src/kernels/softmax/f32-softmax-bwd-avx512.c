/* kernels/softmax/f32-softmax-bwd-avx512.c -- softmax backward over packed groups: the dot
 * product y . dy in two 8-lane double accumulators (products exact), then one 16-lane pass
 * for dx, masked tails (see softmax-ukernels.h). */
#include "kernels/softmax/softmax-ukernels.h"

#include <immintrin.h>
#include <stdint.h>

static inline __mmask16 tail16(size_t left) { return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u); }

/* (lo, hi) += a * b for 16 floats, in double (products exact). */
static inline void add_products16(__m512d *lo, __m512d *hi, __m512 a, __m512 b)
{
    *lo = _mm512_fmadd_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(a)), _mm512_cvtps_pd(_mm512_castps512_ps256(b)), *lo);
    *hi = _mm512_fmadd_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(a, 1)), _mm512_cvtps_pd(_mm512_extractf32x8_ps(b, 1)), *hi);
}

void hd_f32_softmax_bwd_ukernel_rows__avx512(size_t n, size_t groups, const float *y, const float *dy, float *dx,
                                             float alpha, float beta)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (size_t g = 0; g < groups; g++, y += n, dy += n, dx += n) {
        __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
        for (size_t i = 0; i < n; i += 16) {
            __mmask16 k = tail16(n - i);
            __m512 a = _mm512_maskz_loadu_ps(k, y + i), b = _mm512_maskz_loadu_ps(k, dy + i);
            s0 = _mm512_add_pd(s0, _mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(a)),
                                                 _mm512_cvtps_pd(_mm512_castps512_ps256(b))));
            s1 = _mm512_add_pd(s1, _mm512_mul_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(a, 1)),
                                                 _mm512_cvtps_pd(_mm512_extractf32x8_ps(b, 1))));
        }
        __m512 vs = _mm512_set1_ps((float)_mm512_reduce_add_pd(_mm512_add_pd(s0, s1)));
        for (size_t i = 0; i < n; i += 16) {
            __mmask16 k = tail16(n - i);
            __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, y + i), _mm512_sub_ps(_mm512_maskz_loadu_ps(k, dy + i), vs));
            v = _mm512_mul_ps(va, v);
            if (beta != 0.0f)
                v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(k, dx + i)));
            _mm512_mask_storeu_ps(dx + i, k, v);
        }
    }
}

/* CHANNEL on NCHW: 16 positions per vector; the sums of a block in a stack row of doubles, the
 * rows of y and dy walked once for the sums and once for dx (the block stays in L2).  NT
 * (beta == 0): whole vectors of dx at 64-byte aligned addresses are written with streaming
 * stores (the same values; dx is never read for ownership). */
static inline __attribute__((always_inline)) void bwd_cols(size_t c, size_t cols, const float *y, size_t ldy,
                                                           const float *dy, size_t lddy, float *dx, size_t lddx,
                                                           float alpha, float beta, int nt)
{
    double sum[HD_SM_MAX_COLS] __attribute__((aligned(64)));
    float sf[HD_SM_MAX_COLS] __attribute__((aligned(64)));
    for (size_t j = 0; j < cols; j += 16) {
        _mm512_store_pd(sum + j, _mm512_setzero_pd());
        _mm512_store_pd(sum + j + 8, _mm512_setzero_pd());
    }
    /* two rows at a time (one load and store of the sums per pair): (s + p0) + p1 is the
       row-by-row order */
    for (size_t k = 0; k < c; k += 2) {
        const float *y0 = y + k * ldy, *d0 = dy + k * lddy;
        for (size_t j = 0; j < cols; j += 16) {
            __mmask16 m = tail16(cols - j);
            __m512d lo = _mm512_load_pd(sum + j), hi = _mm512_load_pd(sum + j + 8);
            add_products16(&lo, &hi, _mm512_maskz_loadu_ps(m, y0 + j), _mm512_maskz_loadu_ps(m, d0 + j));
            if (k + 1 < c)
                add_products16(&lo, &hi, _mm512_maskz_loadu_ps(m, y0 + ldy + j), _mm512_maskz_loadu_ps(m, d0 + lddy + j));
            _mm512_store_pd(sum + j, lo);
            _mm512_store_pd(sum + j + 8, hi);
        }
    }
    for (size_t j = 0; j < cols; j += 16)
        _mm512_store_ps(sf + j, _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(_mm512_load_pd(sum + j))),
                                                   _mm512_cvtpd_ps(_mm512_load_pd(sum + j + 8)), 1));
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (size_t k = 0; k < c; k++) {
        const float *yr = y + k * ldy, *dr = dy + k * lddy;
        float *xr = dx + k * lddx;
        for (size_t j = 0; j < cols; j += 16) {
            __mmask16 m = tail16(cols - j);
            __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, yr + j),
                                     _mm512_sub_ps(_mm512_maskz_loadu_ps(m, dr + j), _mm512_load_ps(sf + j)));
            v = _mm512_mul_ps(va, v);
            if (beta != 0.0f)
                v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m, xr + j)));
            if (nt && m == 0xffff && ((uintptr_t)(xr + j) & 63) == 0)
                _mm512_stream_ps(xr + j, v);
            else
                _mm512_mask_storeu_ps(xr + j, m, v);
        }
    }
    if (nt)
        _mm_sfence();
}

void hd_f32_softmax_bwd_ukernel_cols__avx512(size_t c, size_t cols, const float *y, size_t ldy, const float *dy,
                                             size_t lddy, float *dx, size_t lddx, float alpha, float beta)
{
    bwd_cols(c, cols, y, ldy, dy, lddy, dx, lddx, alpha, beta, 0);
}

void hd_f32_softmax_bwd_ukernel_cols_stream__avx512(size_t c, size_t cols, const float *y, size_t ldy,
                                                    const float *dy, size_t lddy, float *dx, size_t lddx, float alpha)
{
    bwd_cols(c, cols, y, ldy, dy, lddy, dx, lddx, alpha, 0.0f, 1);
}
