/*
 * kernels/gemm/gemm-ukernels.h -- the GEMM micro-kernel contract and the kernel table.
 *
 * A micro-kernel computes one MR x NR tile of C from two packed panels of depth kc:
 *
 *     C[i][j] = alpha * acc[i][j] + beta * C[i][j]     for i < mr, j < nr
 *     acc[i][j] = sum over p = 0 .. kc-1, in that order, of a[p*MR + i] * b[p*b_stride + j]
 *
 * a is an A panel (kc rows of MR values, op(A) transposed into k-major order), written by the
 * packing routines in gemm-driver.inc and zero-padded to full MR.  b holds kc rows of NR
 * values, b_stride elements apart: a packed, zero-padded B panel (b_stride = NR), or, when
 * op(B) = B has NR whole columns there, B itself (b_stride = ldb; the driver then skips
 * packing B).  No alignment is required.  mr <= MR and nr <= NR say how much of the tile is
 * stored; rows of C are ldc elements apart.  beta == 0 means C is not read.
 *
 * Rounding is part of the contract: acc starts at 0 and takes, per p in order, one fused
 * multiply-add (kernels with .fused set: AVX2, AVX-512) or a rounded product then a rounded
 * sum (the scalar kernels); the epilogue rounds alpha*acc, rounds beta*C, and adds them.  So
 * with the same kc blocking all fused kernels give bitwise the same C whatever their tile
 * shape, and the tests can demand exact equality with the contract written as plain loops.
 */
#ifndef HD_KERNELS_GEMM_UKERNELS_H
#define HD_KERNELS_GEMM_UKERNELS_H

#include <stddef.h>

#include "core/cpu.h"

typedef void (*hd_f32_gemm_ukernel_fn)(size_t mr, size_t nr, size_t kc, const float *a, const float *b, size_t b_stride,
                                       float *c, size_t ldc, float alpha, float beta);
typedef void (*hd_f64_gemm_ukernel_fn)(size_t mr, size_t nr, size_t kc, const double *a, const double *b, size_t b_stride,
                                       double *c, size_t ldc, double alpha, double beta);

void hd_f32_gemm_ukernel_4x4__scalar(size_t mr, size_t nr, size_t kc, const float *a, const float *b, size_t b_stride,
                                     float *c, size_t ldc, float alpha, float beta);
void hd_f32_gemm_ukernel_6x16__avx2(size_t mr, size_t nr, size_t kc, const float *a, const float *b, size_t b_stride,
                                    float *c, size_t ldc, float alpha, float beta);
void hd_f32_gemm_ukernel_14x32__avx512(size_t mr, size_t nr, size_t kc, const float *a, const float *b, size_t b_stride,
                                       float *c, size_t ldc, float alpha, float beta);

void hd_f64_gemm_ukernel_4x4__scalar(size_t mr, size_t nr, size_t kc, const double *a, const double *b, size_t b_stride,
                                     double *c, size_t ldc, double alpha, double beta);
void hd_f64_gemm_ukernel_6x8__avx2(size_t mr, size_t nr, size_t kc, const double *a, const double *b, size_t b_stride,
                                   double *c, size_t ldc, double alpha, double beta);
void hd_f64_gemm_ukernel_14x16__avx512(size_t mr, size_t nr, size_t kc, const double *a, const double *b, size_t b_stride,
                                       double *c, size_t ldc, double alpha, double beta);

/*
 * Optional ISA-specific packing of an A panel when op(A) = A ('N', the transposing case):
 * rows (<= MR) rows of A starting at a, lda apart, kc columns, into dst as kc rows of MR
 * values (a[p*MR + i]), rows beyond ROWS zero.  The same layout as the generic packing, so
 * results do not change.  Returns 0 if it cannot (the driver then packs in plain C).
 */
typedef int (*hd_f32_pack_a_fn)(const float *a, size_t lda, size_t rows, size_t kc, float *dst);
int hd_f32_packa_ukernel_14__avx512(const float *a, size_t lda, size_t rows, size_t kc, float *dst);
int hd_f32_packa_ukernel_6__avx2(const float *a, size_t lda, size_t rows, size_t kc, float *dst);
/* The same for op(A) = A^T ('T'): rows values of k step p at a + p * lda. */
int hd_f32_packa_t_ukernel_14__avx512(const float *a, size_t lda, size_t rows, size_t kc, float *dst);
int hd_f32_packa_t_ukernel_6__avx2(const float *a, size_t lda, size_t rows, size_t kc, float *dst);

/*
 * Optional B packing when op(B) = B^T (B stored as n rows of k): COLS (<= NR) rows of B
 * starting at b, ldb apart, kc values each, into dst as kc rows of NR values (dst[p*NR + c]),
 * columns beyond COLS zero -- the generic packing's layout, so results do not change.
 * Returns 0 if it cannot (the driver then packs in plain C).
 */
typedef int (*hd_f32_pack_b_fn)(const float *b, size_t ldb, size_t cols, size_t kc, float *dst);
int hd_f32_packb_t_ukernel_32__avx512(const float *b, size_t ldb, size_t cols, size_t kc, float *dst);
int hd_f32_packb_t_ukernel_16__avx2(const float *b, size_t ldb, size_t cols, size_t kc, float *dst);

/*
 * Optional: the f32 kernel with A read in place instead of from a packed panel -- k step p's
 * MR values at a + p * a_stride (rows past mr are read, never stored: all MR must be
 * readable).  Same arithmetic, so the same bits as the packed call on the same values.
 */
typedef void (*hd_f32_gemm_sa_fn)(size_t mr, size_t nr, size_t kc, const float *a, size_t a_stride, const float *b,
                                  size_t b_stride, float *c, size_t ldc, float alpha, float beta);
void hd_f32_gemm_ukernel_14x32_sa__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t a_stride,
                                          const float *b, size_t b_stride, float *c, size_t ldc, float alpha,
                                          float beta);

/*
 * Optional, f32 only: one row of the product over up to 4 consecutive packed B panels of the
 * kernel (NR columns each, panel q at b + q * panel_stride, its k step p at p * NR): columns
 * [0, n) of C's row c, n <= 4 * NR, A's k step p at a[p * a_stride].  Each column takes the
 * same chain of fused multiply-adds and epilogue as the kernel with mr = 1, so the same bits;
 * it only keeps more chains in flight (a matrix-vector product is otherwise latency-bound).
 */
typedef void (*hd_f32_gemm_mv_fn)(size_t n, size_t kc, const float *a, size_t a_stride, const float *b,
                                  size_t panel_stride, float *c, float alpha, float beta);
void hd_f32_gemm_ukernel_1x128__avx512(size_t n, size_t kc, const float *a, size_t a_stride, const float *b,
                                       size_t panel_stride, float *c, float alpha, float beta);
void hd_f32_gemm_ukernel_1x64__avx2(size_t n, size_t kc, const float *a, size_t a_stride, const float *b,
                                    size_t panel_stride, float *c, float alpha, float beta);
#define HD_GEMM_MV_PANELS 4

/*
 * Optional, f32 only: the last mr <= 2 rows of an A panel (a batch's rows past its whole
 * panels: 32 states are 5 x 6 + 2 on AVX2) over two consecutive packed B panels (the second
 * at b + panel_stride), columns [0, nr) with NR < nr <= 2 * NR.  Two rows over one panel keep
 * too few chains in flight to hide the FMA latency; over two they keep as many as the full
 * kernel.  Each element takes the kernel's chain and epilogue: the bits of the kernel called
 * on each panel.
 */
typedef void (*hd_f32_gemm_tail2_fn)(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
                                     size_t panel_stride, float *c, size_t ldc, float alpha, float beta);
void hd_f32_gemm_ukernel_2x32__avx2(size_t mr, size_t nr, size_t kc, const float *a, const float *b,
                                    size_t panel_stride, float *c, size_t ldc, float alpha, float beta);

/* One entry per compiled kernel: what it needs and its tile shape. */
typedef struct {
    const char *name;       /* e.g. "f32-gemm-14x32-avx512" (the file name) */
    hd_isa_t isa;           /* lowest ISA that may run it */
    size_t mr, nr;
    int fused;              /* 1: one FMA per k step; 0: multiply, then add */
    hd_f32_gemm_ukernel_fn f32;   /* exactly one of f32/f64 is set */
    hd_f64_gemm_ukernel_fn f64;
    hd_f32_pack_a_fn f32_pack_a_n;  /* optional, f32 only */
    hd_f32_gemm_sa_fn f32_sa;       /* optional, f32 only: A in place */
    hd_f32_gemm_mv_fn f32_mv;       /* optional, f32 only: one row over several panels */
    hd_f32_pack_b_fn f32_pack_b_t;  /* optional, f32 only: B panel packing for op(B) = B^T */
    hd_f32_pack_a_fn f32_pack_a_t;  /* optional, f32 only: A panel packing for op(A) = A^T */
    hd_f32_gemm_tail2_fn f32_tail2; /* optional, f32 only: 1-2 rows over two panels */
} hd_gemm_kernel;

/* All kernels of one element size (4 or 8 bytes), scalar first; *count receives the number. */
const hd_gemm_kernel *hd_gemm_kernels(size_t elem_size, size_t *count);

/* The kernel the GEMM uses for ISA: the best one with kernel->isa <= isa, ISA lowered to
 * what the CPU allows (hd_isa_cap). */
const hd_gemm_kernel *hd_gemm_kernel_for(size_t elem_size, hd_isa_t isa);

/*
 * Depth of one k block (kc).  Fixed for every ISA and thread count: it sets the order of the
 * reduction over k, so it must never depend on either (see docs/gemm.md).
 */
#define HD_GEMM_KC 256

#endif
