/* A bias over channel-contiguous rows, AVX2 (see eltwise-ukernels.h): the axpby loop over each
 * row, 8 lanes, masked at the end of each row, without a call per row.  The operations are
 * axpby's (mul, then mul and add; no fused multiply-add), so the bits are its. */
#include <immintrin.h>
#include "kernels/eltwise/eltwise-ukernels.h"

void hd_f32_biasrows_ukernel__avx2(size_t rows, size_t ch, const float *a, float *c, float alpha, float beta)
{
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (size_t r = 0; r < rows; r++, c += ch) {
        size_t i = 0;
        for (; i + 8 <= ch; i += 8) {
            __m256 p = _mm256_mul_ps(va, _mm256_loadu_ps(a + i));
            if (beta != 0.0f)
                p = _mm256_add_ps(p, _mm256_mul_ps(vb, _mm256_loadu_ps(c + i)));
            _mm256_storeu_ps(c + i, p);
        }
        if (i < ch) {
            __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(ch - i)), iota);
            __m256 p = _mm256_mul_ps(va, _mm256_maskload_ps(a + i, m));
            if (beta != 0.0f)
                p = _mm256_add_ps(p, _mm256_mul_ps(vb, _mm256_maskload_ps(c + i, m)));
            _mm256_maskstore_ps(c + i, m, p);
        }
    }
}
