/* A bias over channel-contiguous rows, AVX-512 (see eltwise-ukernels.h).  Up to 64 channels,
 * alpha * a stays in four registers and each row is four masked vectors; wider rows are the
 * axpby loop, masked at the end of each row.  The operations are axpby's (mul, then mul and
 * add; no fused multiply-add), so the bits are its. */
#include <immintrin.h>
#include "kernels/eltwise/eltwise-ukernels.h"

static inline __mmask16 low_bits(size_t n, size_t at)
{
    return n <= at ? (__mmask16)0 : n - at >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - at)) - 1u);
}

static inline void row_put(float *y, __mmask16 m, __m512 p, __m512 vb, float beta)
{
    if (!m)
        return;
    if (beta != 0.0f)
        p = _mm512_add_ps(p, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m, y)));
    _mm512_mask_storeu_ps(y, m, p);
}

void hd_f32_biasrows_ukernel__avx512(size_t rows, size_t ch, const float *a, float *c, float alpha, float beta)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    if (ch <= 64) {
        __mmask16 m0 = low_bits(ch, 0), m1 = low_bits(ch, 16), m2 = low_bits(ch, 32), m3 = low_bits(ch, 48);
        __m512 p0 = _mm512_mul_ps(va, _mm512_maskz_loadu_ps(m0, a)), p1 = _mm512_mul_ps(va, _mm512_maskz_loadu_ps(m1, a + 16));
        __m512 p2 = _mm512_mul_ps(va, _mm512_maskz_loadu_ps(m2, a + 32)), p3 = _mm512_mul_ps(va, _mm512_maskz_loadu_ps(m3, a + 48));
        for (size_t r = 0; r < rows; r++, c += ch) {
            row_put(c, m0, p0, vb, beta);
            row_put(c + 16, m1, p1, vb, beta);
            row_put(c + 32, m2, p2, vb, beta);
            row_put(c + 48, m3, p3, vb, beta);
        }
        return;
    }
    for (size_t r = 0; r < rows; r++, c += ch)
        for (size_t i = 0; i < ch; i += 16) {
            __mmask16 m = low_bits(ch, i);
            row_put(c + i, m, _mm512_mul_ps(va, _mm512_maskz_loadu_ps(m, a + i)), vb, beta);
        }
}
