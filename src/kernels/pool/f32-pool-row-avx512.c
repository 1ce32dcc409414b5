/* Direct max-pooling row passes, 16 lanes with masked tails (see pool-ukernels.h). */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

/* max_ps(v, a) returns a when either is NaN or they are equal: the scalar "replace only if
 * greater", and with propagation right when a is NaN; where only v is NaN, v is taken. */
static inline __m512 step(__m512 a, __m512 v, int propagate)
{
    __m512 m = _mm512_max_ps(v, a);
    if (!propagate)
        return m;
    __mmask16 vnan = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(a, a, _CMP_ORD_Q), v, v, _CMP_UNORD_Q);
    return _mm512_mask_mov_ps(m, vnan, v);
}

static inline __mmask16 first(size_t m)
{
    return (__mmask16)(m >= 16 ? 0xffffu : (1u << m) - 1u);
}

void hd_f32_pool_ukernel_vmax__avx512(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate)
{
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {     /* four independent chains per row */
        __m512 a0 = ninf, a1 = ninf, a2 = ninf, a3 = ninf;
        const float *p = x + i;
        for (int r = 0; r < rows; r++, p += ld) {
            a0 = step(a0, _mm512_loadu_ps(p), propagate);
            a1 = step(a1, _mm512_loadu_ps(p + 16), propagate);
            a2 = step(a2, _mm512_loadu_ps(p + 32), propagate);
            a3 = step(a3, _mm512_loadu_ps(p + 48), propagate);
        }
        _mm512_storeu_ps(col + i, a0);
        _mm512_storeu_ps(col + i + 16, a1);
        _mm512_storeu_ps(col + i + 32, a2);
        _mm512_storeu_ps(col + i + 48, a3);
    }
    for (; i < n; i += 16) {
        __mmask16 k = first(n - i);
        __m512 a = ninf;
        const float *p = x + i;
        for (int r = 0; r < rows; r++, p += ld)
            a = step(a, _mm512_maskz_loadu_ps(k, p), propagate);
        _mm512_mask_storeu_ps(col + i, k, a);
    }
}

void hd_f32_pool_ukernel_hmax__avx512(float *y, const float *col, size_t ow, int kw, int sw, int propagate)
{
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    if (sw == 1) {
        for (size_t j = 0; j < ow; j += 16) {
            __m512 a = ninf;
            for (int k = 0; k < kw; k++)       /* lanes past ow read the slack and are dropped */
                a = step(a, _mm512_loadu_ps(col + j + k), propagate);
            _mm512_mask_storeu_ps(y + j, first(ow - j), a);
        }
    } else if (sw == 2) {
        /* the taps col[2j + k] of 16 outputs are the even lanes of 32 floats from 2*j0 + k */
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        for (size_t j = 0; j < ow; j += 16) {
            const float *c = col + 2 * j;
            __m512 a = ninf;
            for (int k = 0; k < kw; k++)
                a = step(a, _mm512_permutex2var_ps(_mm512_loadu_ps(c + k), even, _mm512_loadu_ps(c + k + 16)),
                         propagate);
            _mm512_mask_storeu_ps(y + j, first(ow - j), a);
        }
    } else {
        const __m512i lane = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                                _mm512_set1_epi32(sw));
        for (size_t j = 0; j < ow; j += 16) {
            __mmask16 m = first(ow - j);
            const float *c = col + j * (size_t)sw;
            __m512 a = ninf;
            for (int k = 0; k < kw; k++)
                a = step(a, _mm512_mask_i32gather_ps(ninf, m, _mm512_add_epi32(lane, _mm512_set1_epi32(k)), c, 4),
                         propagate);
            _mm512_mask_storeu_ps(y + j, m, a);
        }
    }
}

/* ---- average pooling: the same two passes with sums ---- */

void hd_f32_pool_ukernel_vsum__avx512(float *col, const float *x, ptrdiff_t ld, int rows, size_t n)
{
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const float *p = x + i;
        __m512 a0 = _mm512_loadu_ps(p), a1 = _mm512_loadu_ps(p + 16);
        for (int r = 1; r < rows; r++) {
            p += ld;
            a0 = _mm512_add_ps(a0, _mm512_loadu_ps(p));
            a1 = _mm512_add_ps(a1, _mm512_loadu_ps(p + 16));
        }
        _mm512_storeu_ps(col + i, a0);
        _mm512_storeu_ps(col + i + 16, a1);
    }
    for (; i < n; i += 16) {
        __mmask16 k = first(n - i);
        const float *p = x + i;
        __m512 a = _mm512_maskz_loadu_ps(k, p);
        for (int r = 1; r < rows; r++) {
            p += ld;
            a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(k, p));
        }
        _mm512_mask_storeu_ps(col + i, k, a);
    }
}

/* Tap k of outputs j .. j+15 (lanes past ow read the slack or are masked). */
static inline __m512 tap16(const float *col, size_t j, int k, int sw, __mmask16 m)
{
    if (sw == 1)
        return _mm512_loadu_ps(col + j + k);
    if (sw == 2) {
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        const float *c = col + 2 * j + k;
        return _mm512_permutex2var_ps(_mm512_loadu_ps(c), even, _mm512_loadu_ps(c + 16));
    }
    __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                     _mm512_set1_epi32(sw));
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, _mm512_add_epi32(idx, _mm512_set1_epi32(k)),
                                    col + j * (size_t)sw, 4);
}

void hd_f32_pool_ukernel_hsum__avx512(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                      float vdiv)
{
    const __m512 vd = _mm512_set1_ps(vdiv);
    for (size_t j = 0; j < ow; j += 16) {
        __mmask16 m = first(ow - j);
        __m512 a = tap16(col, j, 0, sw, m);
        for (int k = 1; k < kw; k++)
            a = _mm512_add_ps(a, tap16(col, j, k, sw, m));
        __m512 d = _mm512_mul_ps(vd, _mm512_mask_loadu_ps(_mm512_set1_ps(1.0f), m, hdiv + j));
        _mm512_mask_storeu_ps(y + j, m, _mm512_div_ps(a, d));
    }
}
