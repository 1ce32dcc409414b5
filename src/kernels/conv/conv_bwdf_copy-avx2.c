/* kernels/conv/conv_bwdf_copy-avx2.c -- the strided run copies of the micro-kernel backward
 * filter (conv_bwdf.h) with AVX2 masked moves, 8 floats at a time, and the store of the sums
 * into dW by 8 x 8 register transposes. */
#include <immintrin.h>

#include "kernels/conv/conv_bwdf.h"

void hd_conv_bwdf_copy_runs_avx2(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                                 int64_t count)
{
    static const int ones[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    const __m256i m = _mm256_loadu_si256((const __m256i *)(ones + 8 - (len & 7)));
    for (int64_t o = 0; o < count; o++, dst += dstride, src += sstride) {
        int64_t i = 0;
        for (; i + 8 <= len; i += 8)
            _mm256_storeu_ps(dst + i, _mm256_loadu_ps(src + i));
        if (i < len)
            _mm256_maskstore_ps(dst + i, m, _mm256_maskload_ps(src + i, m));
    }
}

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

/* alpha * sum and beta * dw are rounded separately, as in the scalar store: no contraction. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
void hd_conv_bwdf_store_avx2(const float *const *rows, int64_t ne, int64_t nk, int64_t plane, int64_t nchunk,
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
    tr8(v);
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
