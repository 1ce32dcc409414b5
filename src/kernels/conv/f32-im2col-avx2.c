/*
 * AVX2 version of the forward solver's masked run copy (kernels/conv/im2col-ukernels.h):
 * unit-stride runs (x's rows copied into a 1x1 layer's panel) 8 lanes at a time, each lane's
 * bit spread into a lane mask, a masked load (a masked-off lane is never read, and reads as
 * +0) and a plain store; the last partial vector is stored 4, 2 and 1 floats at a time (a
 * masked store costs many times a plain one on AMD cores).  Other strides: a plain loop.
 */
#include <immintrin.h>
#include <stdint.h>

#include "kernels/conv/im2col-ukernels.h"
#include "kernels/transpose/f32-store-part-avx2.h"

void hd_f32_im2col_ukernel_mrun__avx2(float *d, const float *src, int64_t step, const uint8_t *bits, int64_t bit0,
                                      int64_t cnt)
{
    if (step != 1) {
        for (int64_t k = 0; k < cnt; k++)
            d[k] = (bits[(bit0 + k) >> 3] >> ((bit0 + k) & 7)) & 1 ? src[k * step] : 0.0f;
        return;
    }
    const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    for (int64_t k = 0; k < cnt; k += 8) {
        int64_t b = bit0 + k;
        /* bits b .. b+7: two bytes (BITS is readable past its last used byte) */
        uint32_t w = ((uint32_t)bits[b >> 3] | (uint32_t)bits[(b >> 3) + 1] << 8) >> (b & 7);
        __m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)w), sel), sel);
        if (cnt - k < 8) {
            /* lanes past the run are neither read nor stored */
            const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            m = _mm256_and_si256(m, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(cnt - k)), lane));
            hd_f32_store_part__avx2(d + k, _mm256_maskload_ps(src + k, m), cnt - k);
        } else {
            _mm256_storeu_ps(d + k, _mm256_maskload_ps(src + k, m));
        }
    }
}
