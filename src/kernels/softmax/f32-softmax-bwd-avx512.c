/* kernels/softmax/f32-softmax-bwd-avx512.c -- softmax backward over packed groups: the dot
 * product y . dy in two 8-lane double accumulators (products exact), then one 16-lane pass
 * for dx, masked tails (see softmax-ukernels.h). */
#include "kernels/softmax/softmax-ukernels.h"

#include <immintrin.h>

static inline __mmask16 tail16(size_t left) { return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u); }

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
