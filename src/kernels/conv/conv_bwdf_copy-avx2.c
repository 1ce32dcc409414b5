/* kernels/conv/conv_bwdf_copy-avx2.c -- the strided run copies of the micro-kernel backward
 * filter (conv_bwdf.h) with AVX2 masked moves, 8 floats at a time. */
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
