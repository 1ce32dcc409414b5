/*
 * f32-transpose-16x16-avx512.h -- the in-register transpose of a 16 x 16 block of floats, shared by every
 * AVX-512 kernel that needs one (the tiled transpose, the backward-filter copies and store, the
 * forward column gather, the Winograd filter loads, the 16-group NHWC softmax).  A pure permutation: every user gets the
 * same bits whichever copy it once had.  Include only from files compiled for AVX-512.
 */
#ifndef HD_KERNELS_TRANSPOSE_F32_TRANSPOSE_16X16_AVX512_H
#define HD_KERNELS_TRANSPOSE_F32_TRANSPOSE_16X16_AVX512_H

#include <immintrin.h>

/* r[i] = row i in, column i out: 64 shuffles in four rounds (element pairs, 2-element groups,
 * then 128-bit lanes twice).  Forced inline with the loops unrolled: out of line, GCC passed
 * the 16 vectors through memory. */
static inline __attribute__((always_inline)) void hd_f32_transpose_regs_16x16__avx512(__m512 r[16])
{
    __m512 t[16], q[16];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    /* q[4b + j]: rows 4b..4b+3 of columns j, j+4, j+8, j+12 in its four 128-bit lanes */
#pragma GCC unroll 4
    for (int b = 0; b < 4; b++) {
        q[4 * b + 0] = _mm512_shuffle_ps(t[4 * b], t[4 * b + 2], 0x44);
        q[4 * b + 1] = _mm512_shuffle_ps(t[4 * b], t[4 * b + 2], 0xEE);
        q[4 * b + 2] = _mm512_shuffle_ps(t[4 * b + 1], t[4 * b + 3], 0x44);
        q[4 * b + 3] = _mm512_shuffle_ps(t[4 * b + 1], t[4 * b + 3], 0xEE);
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        __m512 v0 = _mm512_shuffle_f32x4(q[j], q[4 + j], 0x88), w0 = _mm512_shuffle_f32x4(q[8 + j], q[12 + j], 0x88);
        __m512 v1 = _mm512_shuffle_f32x4(q[j], q[4 + j], 0xDD), w1 = _mm512_shuffle_f32x4(q[8 + j], q[12 + j], 0xDD);
        r[j] = _mm512_shuffle_f32x4(v0, w0, 0x88);
        r[j + 8] = _mm512_shuffle_f32x4(v0, w0, 0xDD);
        r[j + 4] = _mm512_shuffle_f32x4(v1, w1, 0x88);
        r[j + 12] = _mm512_shuffle_f32x4(v1, w1, 0xDD);
    }
}

#endif
