/*
 * kernels/igemm/f32-igemm-14x32-avx512.c -- indirect micro-kernel for AVX-512 (contract in
 * igemm-ukernels.h): the 14 x 32 tile of the packed kernel (28 accumulators), A broadcast
 * straight from 14 row pointers per segment -- rows of an NHWC-like x, or filter rows.
 *
 * With A in L1 it runs at the packed kernel's pace: the row pointers that do not fit in
 * registers are reloaded from the stack, and a load port has room for them.  The _pfa entry
 * is for A rows that come from memory (the filter, read once at batch 1): it prefetches them
 * two cache lines ahead every 16 steps.  A rows from the caches (an NHWC-like x) take the
 * plain entry, where those 14 prefetches per 16 steps would only take issue slots from the
 * k loop.  B as in the packed kernel.
 */
#include <immintrin.h>

#include "kernels/gemm/f32-gemm-store-avx512.h"
#include "kernels/igemm/igemm-ukernels.h"

#define MR 14
#define PF_STEPS 8 /* B: k steps ahead */
#define PF_A 32    /* A: elements ahead (two cache lines) */
#define C_PF_EVERY 2 /* strided kernel: a fresh C line every this many k steps */

/* One k step p of the tile: ROWS broadcasts of A, COLS vectors of B (constants after
 * inlining). */
static inline __attribute__((always_inline)) void igemm_step(const int ROWS, const int COLS, const int PFA, size_t p,
                                                             const float *const *a, const float *b, size_t b_stride,
                                                             __m512 *acc0, __m512 *acc1)
{
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = COLS == 2 ? _mm512_loadu_ps(b + 16) : b0;
    _mm_prefetch((const char *)(b + b_stride * PF_STEPS), _MM_HINT_T0);
    if (COLS == 2)
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS + 16), _MM_HINT_T0);
    if (PFA && (p & 15) == 0) {
#pragma GCC unroll 14
        for (int i = 0; i < ROWS; i++)
            _mm_prefetch((const char *)(a[i] + p + PF_A), _MM_HINT_T0);
    }
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; i++) {
        const __m512 ai = _mm512_set1_ps(a[i][p]);
        acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
        if (COLS == 2)
            acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
    }
}

/* Zeroes the accumulators and starts fetching C.  A result read back (beta != 0: a buffer or
 * y being accumulated, usually cached) is fetched at once; a fresh one (beta == 0: y's lines,
 * usually not cached) one line every EVERY k steps over the first steps (igemm_c_line), so that
 * its misses do not take every fill buffer at the start of the tile.  Returns the number of
 * steps that fetch a line. */
static inline __attribute__((always_inline)) size_t igemm_start(const int COLS, const size_t EVERY, size_t mr,
                                                               const float *c, size_t ldc, float beta,
                                                               __m512 *acc0, __m512 *acc1)
{
#pragma GCC unroll 14
    for (int i = 0; i < MR; i++) {
        acc0[i] = _mm512_setzero_ps();
        acc1[i] = _mm512_setzero_ps();
    }
    size_t qn = beta == 0.0f ? COLS * mr * EVERY : 0;
    for (size_t i = 0; qn == 0 && i < mr; i++) {
        _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + i * ldc + 16), _MM_HINT_T0);
    }
    return qn;
}

/* Step q's line of a fresh C tile (see igemm_start). */
static inline __attribute__((always_inline)) void igemm_c_line(const int COLS, const size_t EVERY, size_t q,
                                                              const float *c, size_t ldc)
{
    if (q % EVERY == 0)
        _mm_prefetch((const char *)(c + (q / EVERY / COLS) * ldc + (q / EVERY % COLS) * 16), _MM_HINT_T0);
}

/* The k loop for the first ROWS rows and COLS column vectors of the tile (constants after
 * inlining).  A tile with mr <= ROWS and nr <= 16 * COLS gives the same bits as the full loop:
 * each result is the same chain of fused multiply-adds; only the values that would be thrown
 * away are not computed. */
static inline __attribute__((always_inline)) void igemm_rows(const int ROWS, const int COLS, const int PFA, size_t mr, size_t nr, size_t nseg,
                                                             const hd_igemm_seg *seg, size_t row0,
                                                             const float *restrict b, size_t b_stride,
                                                             float *restrict c, size_t ldc, float alpha, float beta)
{
    __m512 acc0[MR], acc1[MR];
    size_t q = 0, qn = igemm_start(COLS, 1, mr, c, ldc, beta, acc0, acc1);
    for (size_t s = 0; s < nseg; s++) {
        const float *a[MR];
#pragma GCC unroll 14
        for (int i = 0; i < ROWS; i++)
            a[i] = seg[s].rows[row0 + (size_t)i] + seg[s].off;
        size_t kc = (size_t)seg[s].kc, p = 0;
        for (; p < kc && q < qn; p++, q++, b += b_stride) {   /* the steps that also fetch a C line */
            igemm_c_line(COLS, 1, q, c, ldc);
            igemm_step(ROWS, COLS, PFA, p, a, b, b_stride, acc0, acc1);
        }
        for (; p < kc; p++, b += b_stride)
            igemm_step(ROWS, COLS, PFA, p, a, b, b_stride, acc0, acc1);
    }

    hd_f32_gemm_store_14x32__avx512(mr, nr, acc0, acc1, c, ldc, alpha, beta);
}

/* Short tiles (the last 7 positions of a 7x7 image, the last rows of 128 or 256 channels)
 * run a loop of 4, 7, 8 or 10 rows instead of 14, narrow ones (nr <= 16) one column vector
 * instead of two: fewer wasted multiply-adds, same bits. */
void hd_f32_igemm_ukernel_14x32__avx512(size_t mr, size_t nr, size_t nseg, const hd_igemm_seg *seg, size_t row0,
                                        const float *restrict b, size_t b_stride, float *restrict c, size_t ldc,
                                        float alpha, float beta)
{
#define LOOP(ROWS, COLS) igemm_rows(ROWS, COLS, 0, mr, nr, nseg, seg, row0, b, b_stride, c, ldc, alpha, beta)
    HD_F32_14X32_SHAPES(mr, nr, LOOP);
#undef LOOP
}

void hd_f32_igemm_ukernel_14x32_pfa__avx512(size_t mr, size_t nr, size_t nseg, const hd_igemm_seg *seg, size_t row0,
                                            const float *restrict b, size_t b_stride, float *restrict c, size_t ldc,
                                            float alpha, float beta)
{
#define LOOP(ROWS, COLS) igemm_rows(ROWS, COLS, 1, mr, nr, nseg, seg, row0, b, b_stride, c, ldc, alpha, beta)
    HD_F32_14X32_SHAPES(mr, nr, LOOP);
#undef LOOP
}

/* Equally spaced A rows (hd_igemm_sseg): row i of a segment is at a + i * d bytes.  The 14
 * addresses come from five bases (rows 0, 3, 6, 9, 12) and the offsets 0, d and 2d, so no row
 * pointer lives on the stack: where the pointer kernel reloads some of its 14 pointers every
 * step, this one issues only the broadcasts and B's loads.  Same steps, same bits. */
static inline __attribute__((always_inline)) const float *srow(const char *base, ptrdiff_t off)
{
    return (const float *)(const void *)(base + off);
}

/* One k step of the strided tile: P is the step's byte offset along the rows. */
static inline __attribute__((always_inline)) void igemm_sstep(const int ROWS, const int COLS, ptrdiff_t po,
                                                              const char *const *base, ptrdiff_t d,
                                                              const float *b, size_t b_stride, __m512 *acc0,
                                                              __m512 *acc1)
{
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = COLS == 2 ? _mm512_loadu_ps(b + 16) : b0;
    _mm_prefetch((const char *)(b + b_stride * PF_STEPS), _MM_HINT_T0);
    if (COLS == 2)
        _mm_prefetch((const char *)(b + b_stride * PF_STEPS + 16), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; i++) {
        const __m512 ai = _mm512_set1_ps(*srow(base[i / 3], (i % 3) * d + po));
        acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
        if (COLS == 2)
            acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
    }
}

static inline __attribute__((always_inline)) void igemm_srows(const int ROWS, const int COLS, size_t mr, size_t nr,
                                                              size_t nseg, const hd_igemm_sseg *seg,
                                                              const float *restrict b, size_t b_stride,
                                                              float *restrict c, size_t ldc, float alpha, float beta)
{
    /* a fresh C tile's lines one every C_PF_EVERY steps: the misses spread over more steps,
       since a prefetch that finds every fill buffer taken stalls the k loop */
    __m512 acc0[MR], acc1[MR];
    size_t q = 0, qn = igemm_start(COLS, C_PF_EVERY, mr, c, ldc, beta, acc0, acc1);
    for (size_t s = 0; s < nseg; s++) {
        const ptrdiff_t d = seg[s].d;
        /* row 3k, for the rows the loop reads (all are rows of the tile: no pointer is formed
           past them) */
        const char *a0 = (const char *)(const void *)seg[s].a;
        const char *base[5] = {a0, ROWS > 3 ? a0 + 3 * d : a0, ROWS > 6 ? a0 + 6 * d : a0,
                               ROWS > 9 ? a0 + 9 * d : a0, ROWS > 12 ? a0 + 12 * d : a0};
        const size_t kc = (size_t)seg[s].kc;
        size_t p = 0;
        for (; p < kc && q < qn; p++, q++, b += b_stride) {
            igemm_c_line(COLS, C_PF_EVERY, q, c, ldc);
            igemm_sstep(ROWS, COLS, (ptrdiff_t)(p * sizeof(float)), base, d, b, b_stride, acc0, acc1);
        }
        for (; p < kc; p++, b += b_stride)
            igemm_sstep(ROWS, COLS, (ptrdiff_t)(p * sizeof(float)), base, d, b, b_stride, acc0, acc1);
    }

    hd_f32_gemm_store_14x32__avx512(mr, nr, acc0, acc1, c, ldc, alpha, beta);
}

void hd_f32_igemm_ukernel_14x32_strided__avx512(size_t mr, size_t nr, size_t nseg, const hd_igemm_sseg *seg,
                                                const float *restrict b, size_t b_stride, float *restrict c, size_t ldc,
                                                float alpha, float beta)
{
#define LOOP(ROWS, COLS) igemm_srows(ROWS, COLS, mr, nr, nseg, seg, b, b_stride, c, ldc, alpha, beta)
    HD_F32_14X32_SHAPES(mr, nr, LOOP);
#undef LOOP
}
