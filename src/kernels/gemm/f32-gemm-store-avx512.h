/*
 * f32-gemm-store-avx512.h -- the epilogue shared by the fp32 AVX-512 14 x 32 micro-kernels
 * (packed: kernels/gemm/f32-gemm-14x32-avx512.c; indirect: kernels/igemm/f32-igemm-14x32-avx512.c):
 * C = alpha * acc + beta * C over the mr x nr corner of the tile, C read only when beta != 0
 * (so NaN in C is ignored for beta = 0), and the list of tile shapes their k loops are
 * specialised for.  One copy of each, so both kernels round alike.
 * Include only from files compiled for AVX-512.
 */
#ifndef HD_F32_GEMM_STORE_AVX512_H
#define HD_F32_GEMM_STORE_AVX512_H

#include <immintrin.h>
#include <stddef.h>

#define HD_F32_STORE_14X32_ROWS 14

/* Forced inline: the accumulators must stay in registers (an out-of-line call would spill
 * all 28 ZMM values through memory). */
static inline __attribute__((always_inline)) void hd_f32_gemm_store_14x32__avx512(size_t mr, size_t nr,
                                                                            const __m512 *acc0,
                                                                            const __m512 *acc1, float *c,
                                                                            size_t ldc, float alpha, float beta)
{
    const __m512 va = _mm512_set1_ps(alpha);
    const __m512 vb = _mm512_set1_ps(beta);
    const __mmask16 m0 = nr >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << nr) - 1u);
    const __mmask16 m1 = nr >= 32 ? (__mmask16)0xFFFF : nr <= 16 ? (__mmask16)0 : (__mmask16)((1u << (nr - 16)) - 1u);
#pragma GCC unroll 14
    for (int i = 0; i < HD_F32_STORE_14X32_ROWS; i++) {
        if ((size_t)i < mr) {
            float *ci = c + (size_t)i * ldc;
            __m512 t0 = _mm512_mul_ps(va, acc0[i]);
            __m512 t1 = _mm512_mul_ps(va, acc1[i]);
            if (beta != 0.0f) {
                t0 = _mm512_add_ps(t0, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m0, ci)));
                t1 = _mm512_add_ps(t1, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m1, ci + 16)));
            }
            _mm512_mask_storeu_ps(ci, m0, t0);
            _mm512_mask_storeu_ps(ci + 16, m1, t1);
        }
    }
}

/* The tile shape both 14 x 32 kernels specialise their k loop for: the fewest of 1, 4, 7, 8, 10
 * or 14 rows that cover mr, one or two column vectors for nr.  8 is the last tile of 64 channels
 * (4 x 14 + 8: 64-channel 1x1 layers and their backward data), which 10 rows would pad by a
 * quarter.  LOOP(ROWS, COLS) is the kernel's k
 * loop; ROWS and COLS are constants in each branch, so the loops unroll with no dead work.
 * One row is the RNN's batch of one (a matrix-vector product at every step).
 * One list, so the packed kernel and its indirect twin take the same shapes (and bits). */
#define HD_F32_14X32_ROWS_(mr, COLS, LOOP)                                                           \
    do {                                                                                             \
        if ((mr) <= 1)                                                                               \
            LOOP(1, COLS);                                                                           \
        else if ((mr) <= 4)                                                                          \
            LOOP(4, COLS);                                                                           \
        else if ((mr) <= 7)                                                                          \
            LOOP(7, COLS);                                                                           \
        else if ((mr) <= 8)                                                                          \
            LOOP(8, COLS);                                                                           \
        else if ((mr) <= 10)                                                                         \
            LOOP(10, COLS);                                                                          \
        else                                                                                         \
            LOOP(14, COLS);                                                                          \
    } while (0)
#define HD_F32_14X32_SHAPES(mr, nr, LOOP)                                                            \
    do {                                                                                             \
        if ((nr) <= 16)                                                                              \
            HD_F32_14X32_ROWS_(mr, 1, LOOP);                                                         \
        else                                                                                         \
            HD_F32_14X32_ROWS_(mr, 2, LOOP);                                                         \
    } while (0)

#endif
