/*
 * f32-gemm-14x32-avx512.c -- SGEMM micro-kernel for AVX-512 (contract in gemm-ukernels.h).
 *
 * 14 rows x 2 ZMM columns = 28 independent accumulators: with two FMA pipes of latency 4 at
 * least 8 FMAs must be in flight, so 28 hides the latency with room to spare, and leaves
 * 4 registers for the two B vectors and the broadcast of A.  Per k step: 2 loads of B,
 * 14 broadcasts of A, 28 FMAs, and a prefetch of B 8 steps ahead: the driver keeps the A
 * micro-panel in L1 and streams B from L2, whose latency showed up as stalls on the B loads.
 */
#include <immintrin.h>

#include "kernels/gemm/f32-gemm-store-avx512.h"
#include "kernels/gemm/gemm-ukernels.h"

#define MR 14
#define PF_STEPS 8 /* k steps ahead */

/* The k loop for the first ROWS rows and COLS column vectors of the tile (constants after
 * inlining); A's k steps are a_stride apart (MR: a packed micro-panel).  A tile with
 * mr <= ROWS and nr <= 16 * COLS gives the same bits as the full loop: each result is the same
 * chain of fused multiply-adds. */
static inline __attribute__((always_inline)) void gemm_rows(const int ROWS, const int COLS, size_t mr, size_t nr, size_t kc,
                                                            const float *restrict a, size_t a_stride,
                                                            const float *restrict b,
                                                            size_t b_stride, float *restrict c, size_t ldc,
                                                            float alpha, float beta)
{
    __m512 acc0[MR], acc1[MR];
#pragma GCC unroll 14
    for (int i = 0; i < MR; i++) {
        acc0[i] = _mm512_setzero_ps();
        acc1[i] = _mm512_setzero_ps();
    }
    /* Fetch the C tile while the k loop runs, so the epilogue does not wait for memory
       (also when beta == 0: the stores would have to fetch the lines anyway). */
    for (size_t i = 0; i < mr; i++) {
        _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + i * ldc + 16), _MM_HINT_T0);
    }
    for (size_t p = 0; p < kc; p++) {
        const __m512 b0 = _mm512_loadu_ps(b);
        const __m512 b1 = COLS == 2 ? _mm512_loadu_ps(b + 16) : b0;
        /* B streams from L2 (the A micro-panel is the one kept in L1): ask for it early. */
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS), _MM_HINT_T0);
        if (COLS == 2)
            _mm_prefetch((const char *)(b + b_stride * PF_STEPS + 16), _MM_HINT_T0);
        if (a_stride != MR)   /* A in place: its rows stream too */
            _mm_prefetch((const char *)(a + a_stride * PF_STEPS), _MM_HINT_T0);
#pragma GCC unroll 14
        for (int i = 0; i < ROWS; i++) {
            const __m512 ai = _mm512_set1_ps(a[i]);
            acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
            if (COLS == 2)
                acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
        }
        a += a_stride;
        b += b_stride;
    }

    hd_f32_gemm_store_14x32__avx512(mr, nr, acc0, acc1, c, ldc, alpha, beta);
}

/* Short tiles (the last rows of 128, 256 or 1024 channels) run a loop of 4, 7, 8 or 10 rows
 * instead of 14, and narrow ones (nr <= 16: the 16 tiles of a 14x14 image in the Winograd
 * GEMMs, the last 4 positions of 196) one column vector instead of two: fewer wasted
 * multiply-adds, same bits. */
void hd_f32_gemm_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *restrict a,
                                       const float *restrict b, size_t b_stride, float *restrict c, size_t ldc, float alpha,
                                       float beta)
{
#define LOOP(ROWS, COLS) gemm_rows(ROWS, COLS, mr, nr, kc, a, MR, b, b_stride, c, ldc, alpha, beta)
    HD_F32_14X32_SHAPES(mr, nr, LOOP);
#undef LOOP
}

/* The same with A read in place: k step p at a + p * a_stride (gemm-ukernels.h). */
void hd_f32_gemm_ukernel_14x32_sa__avx512(size_t mr, size_t nr, size_t kc, const float *restrict a, size_t a_stride,
                                          const float *restrict b, size_t b_stride, float *restrict c, size_t ldc,
                                          float alpha, float beta)
{
#define LOOP(ROWS, COLS) gemm_rows(ROWS, COLS, mr, nr, kc, a, a_stride, b, b_stride, c, ldc, alpha, beta)
    HD_F32_14X32_SHAPES(mr, nr, LOOP);
#undef LOOP
}
