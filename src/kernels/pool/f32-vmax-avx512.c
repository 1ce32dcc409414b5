/* Running maximum, 16 lanes with a masked tail (see maxpool.h). */
#include <immintrin.h>
#include "kernels/pool/maxpool.h"

static inline __m512 step(__m512 a, __m512 v, int propagate)
{
    __m512 m = _mm512_max_ps(v, a);
    if (!propagate)
        return m;
    __mmask16 u = _mm512_cmp_ps_mask(a, v, _CMP_UNORD_Q);
    return _mm512_mask_add_ps(m, u, a, v);
}

void hd_f32_vmax__avx512(float *acc, const float *x, size_t n, int propagate)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(acc + i, step(_mm512_loadu_ps(acc + i), _mm512_loadu_ps(x + i), propagate));
    if (i < n) {
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1u);
        __m512 a = _mm512_maskz_loadu_ps(k, acc + i), v = _mm512_maskz_loadu_ps(k, x + i);
        _mm512_mask_storeu_ps(acc + i, k, step(a, v, propagate));
    }
}

/* acc[i] = max(acc[i], x[2*i]): the taps of a stride-2 window row, de-interleaved with one
 * two-source permute instead of a scalar gather.  Reads x[0 .. 2*(n-1)] only. */
void hd_f32_vmax_s2__avx512(float *acc, const float *x, size_t n, int propagate)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    size_t i = 0;
    for (; i + 16 < n; i += 16) {      /* not the last block: x[2i + 31] is still within 2*(n-1) */
        __m512 v = _mm512_permutex2var_ps(_mm512_loadu_ps(x + 2 * i), even, _mm512_loadu_ps(x + 2 * i + 16));
        _mm512_storeu_ps(acc + i, step(_mm512_loadu_ps(acc + i), v, propagate));
    }
    if (i < n) {
        size_t m = n - i, cnt = 2 * m - 1;          /* x elements this block may read */
        __mmask16 klo = (__mmask16)(cnt >= 16 ? 0xffffu : (1u << cnt) - 1u);
        __mmask16 khi = (__mmask16)(cnt > 16 ? (1u << (cnt - 16)) - 1u : 0u);
        __mmask16 k = (__mmask16)(m >= 16 ? 0xffffu : (1u << m) - 1u);
        __m512 v = _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(klo, x + 2 * i), even,
                                          _mm512_maskz_loadu_ps(khi, x + 2 * i + 16));
        __m512 a = _mm512_maskz_loadu_ps(k, acc + i);
        _mm512_mask_storeu_ps(acc + i, k, step(a, v, propagate));
    }
}
