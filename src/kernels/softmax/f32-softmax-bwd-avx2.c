/* kernels/softmax/f32-softmax-bwd-avx2.c -- softmax backward over packed groups, AVX2: the dot
 * product y . dy in two 4-lane double accumulators (products exact), then one 8-lane pass for
 * dx; whole vectors plain, the tail masked (see softmax-ukernels.h). */
#include "kernels/softmax/softmax-ukernels.h"

#include <immintrin.h>

static inline __m256i tailmask(size_t left)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(left > 8 ? 8 : left)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline __m256 load8(const float *p, size_t left)
{
    return left >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, tailmask(left));
}

/* dx = alpha * (y * (dy - s)) + beta * dx for the LEFT (up to 8) floats at X (dx read only when
 * beta != 0); rows and columns share it, so both give the same bits. */
static inline void dx8(float *x, size_t left, __m256 y, __m256 dy, __m256 s, __m256 va, __m256 vb, float beta)
{
    __m256 v = _mm256_mul_ps(va, _mm256_mul_ps(y, _mm256_sub_ps(dy, s)));
    if (beta != 0.0f)
        v = _mm256_add_ps(v, _mm256_mul_ps(vb, load8(x, left)));
    if (left >= 8)
        _mm256_storeu_ps(x, v);
    else
        _mm256_maskstore_ps(x, tailmask(left), v);
}

void hd_f32_softmax_bwd_ukernel_rows__avx2(size_t n, size_t groups, const float *y, const float *dy, float *dx,
                                           float alpha, float beta)
{
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    for (size_t g = 0; g < groups; g++, y += n, dy += n, dx += n) {
        __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
        for (size_t i = 0; i < n; i += 8) {
            __m256 a = load8(y + i, n - i), b = load8(dy + i, n - i);
            s0 = _mm256_add_pd(s0, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)),
                                                 _mm256_cvtps_pd(_mm256_castps256_ps128(b))));
            s1 = _mm256_add_pd(s1, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)),
                                                 _mm256_cvtps_pd(_mm256_extractf128_ps(b, 1))));
        }
        __m256d s = _mm256_add_pd(s0, s1);
        __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
        h = _mm_add_sd(h, _mm_unpackhi_pd(h, h));
        const __m256 vs = _mm256_set1_ps((float)_mm_cvtsd_f64(h));
        for (size_t i = 0; i < n; i += 8)
            dx8(dx + i, n - i, load8(y + i, n - i), load8(dy + i, n - i), vs, va, vb, beta);
    }
}

/* CHANNEL on NCHW: 8 positions per vector (see the AVX-512 twin). */
void hd_f32_softmax_bwd_ukernel_cols__avx2(size_t c, size_t cols, const float *y, size_t ldy, const float *dy,
                                           size_t lddy, float *dx, size_t lddx, float alpha, float beta)
{
    double sum[HD_SM_MAX_COLS] __attribute__((aligned(32)));
    float sf[HD_SM_MAX_COLS] __attribute__((aligned(32)));
    for (size_t j = 0; j < cols; j += 8) {
        _mm256_store_pd(sum + j, _mm256_setzero_pd());
        _mm256_store_pd(sum + j + 4, _mm256_setzero_pd());
    }
    for (size_t k = 0; k < c; k++) {
        const float *yr = y + k * ldy, *dr = dy + k * lddy;
        for (size_t j = 0; j < cols; j += 8) {
            __m256 a = load8(yr + j, cols - j), b = load8(dr + j, cols - j);
            __m256d lo = _mm256_load_pd(sum + j), hi = _mm256_load_pd(sum + j + 4);
            lo = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)), _mm256_cvtps_pd(_mm256_castps256_ps128(b)), lo);
            hi = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)), hi);
            _mm256_store_pd(sum + j, lo);
            _mm256_store_pd(sum + j + 4, hi);
        }
    }
    for (size_t j = 0; j < cols; j += 8)
        _mm256_store_ps(sf + j, _mm256_set_m128(_mm256_cvtpd_ps(_mm256_load_pd(sum + j + 4)),
                                                _mm256_cvtpd_ps(_mm256_load_pd(sum + j))));
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    for (size_t k = 0; k < c; k++) {
        const float *yr = y + k * ldy, *dr = dy + k * lddy;
        float *xr = dx + k * lddx;
        for (size_t j = 0; j < cols; j += 8)
            dx8(xr + j, cols - j, load8(yr + j, cols - j), load8(dr + j, cols - j), _mm256_load_ps(sf + j), va, vb,
                beta);
    }
}
