/* Running maximum, 8 lanes (see pool-ukernels.h).  max_ps(x, acc) returns acc when x is NaN or
 * equal to acc, which is exactly the scalar "replace only if greater" rule. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

void hd_f32_vmax_ukernel__avx2(float *acc, const float *x, size_t n, int propagate)
{
    size_t i = 0;
    if (propagate) {
        for (; i + 8 <= n; i += 8) {
            __m256 a = _mm256_loadu_ps(acc + i), v = _mm256_loadu_ps(x + i);
            __m256 m = _mm256_max_ps(v, a);
            __m256 u = _mm256_cmp_ps(a, v, _CMP_UNORD_Q);
            _mm256_storeu_ps(acc + i, _mm256_blendv_ps(m, _mm256_add_ps(a, v), u));
        }
    } else {
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(acc + i, _mm256_max_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(acc + i)));
    }
    if (i < n)
        hd_f32_vmax_ukernel__scalar(acc + i, x + i, n - i, propagate);
}
