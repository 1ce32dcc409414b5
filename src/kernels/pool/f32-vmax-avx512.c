/* Running maximum, 16 lanes with a masked tail (see pool-ukernels.h). */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

static inline __m512 step(__m512 a, __m512 v, int propagate)
{
    __m512 m = _mm512_max_ps(v, a);
    if (!propagate)
        return m;
    __mmask16 u = _mm512_cmp_ps_mask(a, v, _CMP_UNORD_Q);
    return _mm512_mask_add_ps(m, u, a, v);
}

void hd_f32_vmax_ukernel__avx512(float *acc, const float *x, size_t n, int propagate)
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
