/*
 * f32-store-part-avx2.h -- the first n (< 8) floats of a YMM register to memory with plain 4-,
 * 2- and 1-float stores, for the AVX2 copy and transpose kernels' partial rows: a masked
 * 256-bit store (vmaskmovps to memory) costs many times a plain store on AMD cores.  Include
 * only from files compiled for AVX2.
 */
#ifndef HD_KERNELS_TRANSPOSE_F32_STORE_PART_AVX2_H
#define HD_KERNELS_TRANSPOSE_F32_STORE_PART_AVX2_H

#include <immintrin.h>
#include <stdint.h>

static inline void hd_f32_store_part__avx2(float *d, __m256 v, int64_t n)
{
    __m128 x = _mm256_castps256_ps128(v);
    if (n & 4) {
        _mm_storeu_ps(d, x);
        d += 4;
        x = _mm256_extractf128_ps(v, 1);
    }
    if (n & 2) {
        _mm_storel_pi((__m64 *)(void *)d, x);
        d += 2;
        x = _mm_movehl_ps(x, x);
    }
    if (n & 1)
        _mm_store_ss(d, x);
}

#endif
