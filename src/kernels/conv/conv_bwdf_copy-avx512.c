/* kernels/conv/conv_bwdf_copy-avx512.c -- the strided run copies of the micro-kernel backward
 * filter (conv_bwdf.h) with masked AVX-512 loads and stores: one instruction pair per run of
 * up to 16 floats. */
#include <immintrin.h>

#include "kernels/conv/conv_bwdf.h"

void hd_conv_bwdf_copy_runs_avx512(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                                   int64_t count)
{
    if (len <= 16) {
        const __mmask16 m = (__mmask16)((1u << len) - 1u);
        for (int64_t o = 0; o < count; o++, dst += dstride, src += sstride)
            _mm512_mask_storeu_ps(dst, m, _mm512_maskz_loadu_ps(m, src));
        return;
    }
    const __mmask16 m = (__mmask16)((1u << (len & 15)) - 1u);
    for (int64_t o = 0; o < count; o++, dst += dstride, src += sstride) {
        int64_t i = 0;
        for (; i + 16 <= len; i += 16)
            _mm512_storeu_ps(dst + i, _mm512_loadu_ps(src + i));
        if (i < len)
            _mm512_mask_storeu_ps(dst + i, m, _mm512_maskz_loadu_ps(m, src + i));
    }
}
