/* Direct max-pooling row passes, 8 lanes; tails go to the scalar passes (see pool-ukernels.h). */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

/* max_ps(v, a) returns a when either is NaN or they are equal: the scalar "replace only if
 * greater", and with propagation right when a is NaN; where only v is NaN, v is taken. */
static inline __m256 step(__m256 a, __m256 v, int propagate)
{
    __m256 m = _mm256_max_ps(v, a);
    if (!propagate)
        return m;
    __m256 vnan = _mm256_andnot_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    return _mm256_blendv_ps(m, v, vnan);
}

void hd_f32_pool_ukernel_vmax__avx2(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate)
{
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {     /* four independent chains per row */
        __m256 a0 = ninf, a1 = ninf, a2 = ninf, a3 = ninf;
        const float *p = x + i;
        for (int r = 0; r < rows; r++, p += ld) {
            a0 = step(a0, _mm256_loadu_ps(p), propagate);
            a1 = step(a1, _mm256_loadu_ps(p + 8), propagate);
            a2 = step(a2, _mm256_loadu_ps(p + 16), propagate);
            a3 = step(a3, _mm256_loadu_ps(p + 24), propagate);
        }
        _mm256_storeu_ps(col + i, a0);
        _mm256_storeu_ps(col + i + 8, a1);
        _mm256_storeu_ps(col + i + 16, a2);
        _mm256_storeu_ps(col + i + 24, a3);
    }
    for (; i + 8 <= n; i += 8) {
        __m256 a = ninf;
        const float *p = x + i;
        for (int r = 0; r < rows; r++, p += ld)
            a = step(a, _mm256_loadu_ps(p), propagate);
        _mm256_storeu_ps(col + i, a);
    }
    if (i < n)
        hd_f32_pool_ukernel_vmax__scalar(col + i, x + i, ld, rows, n - i, propagate);
}

void hd_f32_pool_ukernel_hmax__avx2(float *y, const float *col, size_t ow, int kw, int sw, int propagate)
{
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    size_t j = 0;
    if (sw == 1) {
        for (; j + 8 <= ow; j += 8) {
            __m256 a = ninf;
            for (int k = 0; k < kw; k++)
                a = step(a, _mm256_loadu_ps(col + j + k), propagate);
            _mm256_storeu_ps(y + j, a);
        }
    } else if (sw == 2) {
        /* even lanes of 16 floats from 2*j0 + k: shuffle picks them per 128-bit half, then
         * the 64-bit permute puts the halves in order */
        for (; j + 8 <= ow; j += 8) {
            const float *c = col + 2 * j;
            __m256 a = ninf;
            for (int k = 0; k < kw; k++) {
                __m256 e = _mm256_shuffle_ps(_mm256_loadu_ps(c + k), _mm256_loadu_ps(c + k + 8), 0x88);
                a = step(a, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xd8)), propagate);
            }
            _mm256_storeu_ps(y + j, a);
        }
    } else {
        const __m256i lane = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(sw));
        for (; j + 8 <= ow; j += 8) {
            const float *c = col + j * (size_t)sw;
            __m256 a = ninf;
            for (int k = 0; k < kw; k++)
                a = step(a, _mm256_i32gather_ps(c, _mm256_add_epi32(lane, _mm256_set1_epi32(k)), 4), propagate);
            _mm256_storeu_ps(y + j, a);
        }
    }
    if (j < ow)
        hd_f32_pool_ukernel_hmax__scalar(y + j, col + j * (size_t)sw, ow - j, kw, sw, propagate);
}

/* ---- average pooling: the same two passes with sums ---- */

void hd_f32_pool_ukernel_vsum__avx2(float *col, const float *x, ptrdiff_t ld, int rows, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const float *p = x + i;
        __m256 a0 = _mm256_loadu_ps(p), a1 = _mm256_loadu_ps(p + 8);
        for (int r = 1; r < rows; r++) {
            p += ld;
            a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p));
            a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + 8));
        }
        _mm256_storeu_ps(col + i, a0);
        _mm256_storeu_ps(col + i + 8, a1);
    }
    for (; i + 8 <= n; i += 8) {
        const float *p = x + i;
        __m256 a = _mm256_loadu_ps(p);
        for (int r = 1; r < rows; r++) {
            p += ld;
            a = _mm256_add_ps(a, _mm256_loadu_ps(p));
        }
        _mm256_storeu_ps(col + i, a);
    }
    if (i < n)
        hd_f32_pool_ukernel_vsum__scalar(col + i, x + i, ld, rows, n - i);
}

/* Tap k of outputs j .. j+7 (all eight within the row). */
static inline __m256 tap8(const float *col, size_t j, int k, int sw)
{
    if (sw == 1)
        return _mm256_loadu_ps(col + j + k);
    if (sw == 2) {
        const float *c = col + 2 * j + k;
        __m256 e = _mm256_shuffle_ps(_mm256_loadu_ps(c), _mm256_loadu_ps(c + 8), 0x88);
        return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xd8));
    }
    __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(sw));
    return _mm256_i32gather_ps(col + j * (size_t)sw, _mm256_add_epi32(idx, _mm256_set1_epi32(k)), 4);
}

void hd_f32_pool_ukernel_hsum__avx2(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                    float vdiv)
{
    const __m256 vd = _mm256_set1_ps(vdiv);
    size_t j = 0;
    for (; j + 8 <= ow; j += 8) {
        __m256 a = tap8(col, j, 0, sw);
        for (int k = 1; k < kw; k++)
            a = _mm256_add_ps(a, tap8(col, j, k, sw));
        _mm256_storeu_ps(y + j, _mm256_div_ps(a, _mm256_mul_ps(vd, _mm256_loadu_ps(hdiv + j))));
    }
    if (j < ow)
        hd_f32_pool_ukernel_hsum__scalar(y + j, col + j * (size_t)sw, ow - j, kw, sw, hdiv + j, vdiv);
}
