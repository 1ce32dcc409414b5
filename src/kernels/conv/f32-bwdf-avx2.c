/* kernels/conv/f32-bwdf-avx2.c -- the strided run copies of the micro-kernel backward
 * filter (bwdf-ukernels.h) with AVX2 masked moves, 8 floats at a time, and the store of the sums
 * into dW by 8 x 8 register transposes. */
#include <immintrin.h>

#include "kernels/conv/bwdf-ukernels.h"
#include "kernels/transpose/f32-store-part-avx2.h"
#include "kernels/transpose/f32-transpose-8x8-avx2.h"

void hd_f32_bwdf_ukernel_runs__avx2(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                                    int64_t count)
{
    static const int ones[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    const int64_t t = len & 7;
    const __m256i m = _mm256_loadu_si256((const __m256i *)(ones + 8 - t));
    if (len < 8 && dstride == len) {
        /* Short runs packed back to back (a panel of MR channels per position): one full
           8-float store per run, its excess overwritten by the runs after it; the last runs,
           whose excess would pass the end, take the tail stores. */
        int64_t o = 0;
        for (; o < count && (o * len + 8 <= count * len); o++, dst += len, src += sstride)
            _mm256_storeu_ps(dst, _mm256_maskload_ps(src, m));
        for (; o < count; o++, dst += len, src += sstride)
            hd_f32_store_part__avx2(dst, _mm256_maskload_ps(src, m), t);
        return;
    }
    for (int64_t o = 0; o < count; o++, dst += dstride, src += sstride) {
        int64_t i = 0;
        for (; i + 8 <= len; i += 8)
            _mm256_storeu_ps(dst + i, _mm256_loadu_ps(src + i));
        if (i < len)
            hd_f32_store_part__avx2(dst + i, _mm256_maskload_ps(src + i, m), t);
    }
}

/* alpha * sum and beta * dw are rounded separately, as in the scalar store: no contraction. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
void hd_f32_bwdf_ukernel_store__avx2(const float *const *rows, int64_t ne, int64_t nk, int64_t plane, int64_t nchunk,
                                     float *dw, int64_t ldw, float alpha, float beta)
{
    static const int ones[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    const __m256i mk = _mm256_loadu_si256((const __m256i *)(ones + 8 - nk));
    const __m256i me = _mm256_loadu_si256((const __m256i *)(ones + 8 - ne));
    __m256 v[8];
    for (int e = 0; e < 8; e++) {
        if (e >= ne) {
            v[e] = _mm256_setzero_ps();
            continue;
        }
        v[e] = _mm256_maskload_ps(rows[e], mk);
        for (int64_t i = 1; i < nchunk; i++)             /* the chunks in order */
            v[e] = _mm256_add_ps(v[e], _mm256_maskload_ps(rows[e] + i * plane, mk));
    }
    hd_f32_transpose_regs_8x8__avx2(v);
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    for (int k = 0; k < nk; k++) {
        float *o = dw + k * ldw;
        __m256 r = _mm256_mul_ps(va, v[k]);
        if (beta != 0.0f)
            r = _mm256_add_ps(r, _mm256_mul_ps(vb, _mm256_maskload_ps(o, me)));
        _mm256_maskstore_ps(o, me, r);
    }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
