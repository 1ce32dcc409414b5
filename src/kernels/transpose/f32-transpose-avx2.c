/* kernels/transpose/f32-transpose-avx2.c -- tiles by 8x8 register transposes; edges scalar. */
#include "kernels/transpose/transpose-ukernels.h"
#include "kernels/transpose/f32-transpose-8x8-avx2.h"

#include <immintrin.h>

void hd_f32_transpose_ukernel__avx2(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo,
                                    float alpha, float beta)
{
    const int plain = alpha == 1.0f && beta == 0.0f;
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    int64_t r8 = r & ~(int64_t)7, c8 = c & ~(int64_t)7;
    for (int64_t i = 0; i < r8; i += 8)
        for (int64_t j = 0; j < c8; j += 8) {
            __m256 v[8];
            for (int k = 0; k < 8; k++)
                v[k] = _mm256_loadu_ps(in + (i + k) * ldi + j);
            hd_f32_transpose_regs_8x8__avx2(v);
            for (int k = 0; k < 8; k++) {
                float *o = out + (j + k) * ldo + i;
                __m256 w = v[k];
                if (!plain) {
                    w = _mm256_mul_ps(va, w);
                    if (beta != 0.0f)
                        w = _mm256_add_ps(w, _mm256_mul_ps(vb, _mm256_loadu_ps(o)));
                }
                _mm256_storeu_ps(o, w);
            }
        }
    /* right and bottom edges */
    if (c8 < c)
        hd_f32_transpose_ukernel__scalar(r, c - c8, in + c8, ldi, out + c8 * ldo, ldo, alpha, beta);
    if (r8 < r)
        hd_f32_transpose_ukernel__scalar(r - r8, c8, in + r8 * ldi, ldi, out + r8, ldo, alpha, beta);
}
