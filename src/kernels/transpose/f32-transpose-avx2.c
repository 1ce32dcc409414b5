/* kernels/transpose/f32-transpose-avx2.c -- tiles by 8x8 register transposes.  For a plain
 * copy (alpha 1, beta 0) the edges are 8x8 transposes too, of partial blocks (missing rows
 * zero, partial rows stored by plain 4-, 2- and 1-float stores); only the corner, and the
 * edges of a scaled tile, are scalar.  Panels of 6 rows (the AVX2 GEMM's MR) are all edge. */
#include "kernels/transpose/transpose-ukernels.h"
#include "kernels/transpose/f32-transpose-8x8-avx2.h"
#include "kernels/transpose/f32-store-part-avx2.h"

#include <immintrin.h>

/* Plain copy of the partial block at rows [i, i + nr) x columns [j, j + nc) (nr, nc <= 8, one
 * of them 8): the rows past nr read as zero, the columns past nc masked off on load. */
static void edge_block(int64_t nr, int64_t nc, const float *in, int64_t ldi, float *out, int64_t ldo)
{
    static const int ones[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    const __m256i m = _mm256_loadu_si256((const __m256i *)(ones + 8 - nc));
    __m256 v[8];
    for (int k = 0; k < 8; k++)
        v[k] = k < nr ? (nc == 8 ? _mm256_loadu_ps(in + k * ldi) : _mm256_maskload_ps(in + k * ldi, m))
                      : _mm256_setzero_ps();
    hd_f32_transpose_regs_8x8__avx2(v);
    for (int k = 0; k < nc; k++) {
        if (nr == 8)
            _mm256_storeu_ps(out + k * ldo, v[k]);
        else
            hd_f32_store_part__avx2(out + k * ldo, v[k], nr);
    }
}

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
    if (plain) {
        if (c8 < c)
            for (int64_t i = 0; i < r8; i += 8)
                edge_block(8, c - c8, in + i * ldi + c8, ldi, out + c8 * ldo + i, ldo);
        if (r8 < r)
            for (int64_t j = 0; j < c8; j += 8)
                edge_block(r - r8, 8, in + r8 * ldi + j, ldi, out + j * ldo + r8, ldo);
        if (r8 < r && c8 < c)
            hd_f32_transpose_ukernel__scalar(r - r8, c - c8, in + r8 * ldi + c8, ldi, out + c8 * ldo + r8, ldo, alpha,
                                             beta);
        return;
    }
    if (c8 < c)
        hd_f32_transpose_ukernel__scalar(r, c - c8, in + c8, ldi, out + c8 * ldo, ldo, alpha, beta);
    if (r8 < r)
        hd_f32_transpose_ukernel__scalar(r - r8, c8, in + r8 * ldi, ldi, out + r8, ldo, alpha, beta);
}
