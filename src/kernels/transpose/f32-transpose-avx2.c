/* kernels/transpose/f32-transpose-avx2.c -- tiles by 8x8 register transposes; edges scalar. */
#include "kernels/transpose/transpose.h"

#include <immintrin.h>

static inline void tr8(__m256 *r)
{
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee);
    __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee);
    __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee);
    __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

void hd_f32_tile_avx2(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo, float alpha,
                      float beta)
{
    const int plain = alpha == 1.0f && beta == 0.0f;
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    int64_t r8 = r & ~(int64_t)7, c8 = c & ~(int64_t)7;
    for (int64_t i = 0; i < r8; i += 8)
        for (int64_t j = 0; j < c8; j += 8) {
            __m256 v[8];
            for (int k = 0; k < 8; k++)
                v[k] = _mm256_loadu_ps(in + (i + k) * ldi + j);
            tr8(v);
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
        hd_f32_tile_scalar(r, c - c8, in + c8, ldi, out + c8 * ldo, ldo, alpha, beta);
    if (r8 < r)
        hd_f32_tile_scalar(r - r8, c8, in + r8 * ldi, ldi, out + r8, ldo, alpha, beta);
}
