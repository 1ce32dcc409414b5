/* kernels/pool/f32-pool-lanes-avx2.h -- the lane mask of the AVX2 pooling-backward kernels
 * (fill, gather, row argmax): lanes i < n of 8 set (all ones), the rest clear.  Include only
 * from files compiled for AVX2. */
#ifndef HD_KERNELS_POOL_F32_POOL_LANES_AVX2_H
#define HD_KERNELS_POOL_F32_POOL_LANES_AVX2_H

#include <immintrin.h>
#include <stddef.h>

static inline __m256i lanes(size_t n)
{
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n < 8 ? n : 8)), iota);
}

#endif
