/*
 * kernels/softmax/softmax-ukernels.h -- float32 softmax of one contiguous group, with blending:
 * y = alpha * softmax(x) + beta * y (LOG: alpha * log_softmax(x) + ...), y not read when
 * beta == 0, y may be x.  Always subtracts the maximum (ACCURATE / LOG); the FAST
 * algorithm stays on the generic path so that it can overflow exactly like cuDNN's.
 * The vector versions use their own exp/log polynomials (about 2 ulp), so they are tested
 * against the float64 reference rather than bit-for-bit against the scalar one.
 */
#ifndef HD_KERNELS_SOFTMAX_SOFTMAX_UKERNELS_H
#define HD_KERNELS_SOFTMAX_SOFTMAX_UKERNELS_H

#include <stddef.h>

typedef void (*hd_f32_softmax_fn)(size_t n, const float *x, float *y, float alpha, float beta, int log_mode);

void hd_f32_softmax_ukernel__scalar(size_t n, const float *x, float *y, float alpha, float beta, int log_mode);
void hd_f32_softmax_ukernel__avx2(size_t n, const float *x, float *y, float alpha, float beta, int log_mode);
void hd_f32_softmax_ukernel__avx512(size_t n, const float *x, float *y, float alpha, float beta, int log_mode);

/* The kernel for ISA (capped by the CPU). */
hd_f32_softmax_fn hd_f32_softmax_kernel(int isa);

/* COLS independent groups side by side (CHANNEL mode on NCHW): group j is x[j + c*ldx]
 * for c < C, written to y[j + c*ldy].  Sums are accumulated in double per column. */
#define HD_SM_MAX_COLS 1024
typedef void (*hd_f32_softmax_cols_fn)(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy,
                                       float alpha, float beta, int log_mode);

void hd_f32_softmax_ukernel_cols__scalar(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy,
                                         float alpha, float beta, int log_mode);
void hd_f32_softmax_ukernel_cols__avx2(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy,
                                       float alpha, float beta, int log_mode);
void hd_f32_softmax_ukernel_cols__avx512(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy,
                                         float alpha, float beta, int log_mode);
hd_f32_softmax_cols_fn hd_f32_softmax_cols_kernel(int isa);

/* ACCURATE, beta == 0, for outputs larger than the cache: the column kernel, bit for bit, but
 * e = exp(x - max) is kept in WORK (C x cols floats, per thread) instead of y, and y is written
 * once with streaming stores (when its rows are 64-byte aligned), so it is never read for
 * ownership.  NULL where there is none (scalar, AVX2): use the plain column kernel. */
typedef void (*hd_f32_softmax_cols_stream_fn)(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy,
                                              float alpha, float *work);
void hd_f32_softmax_ukernel_cols_stream__avx512(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy,
                                                float alpha, float *work);
hd_f32_softmax_cols_stream_fn hd_f32_softmax_cols_stream_kernel(int isa);

/* GROUPS groups of N contiguous floats, group g at x + g*ldx and y + g*ldy (CHANNEL mode on
 * NHWC: one group per position): each group bit for bit what the row kernel of the same ISA
 * gives it, with the per-call work (reductions, log) done once per group in registers for
 * N <= 64.  NULL where there is none (scalar): call the row kernel per group. */
typedef void (*hd_f32_softmax_rows_fn)(size_t n, size_t groups, const float *x, size_t ldx, float *y, size_t ldy,
                                       float alpha, float beta, int log_mode);
void hd_f32_softmax_ukernel_rows__avx2(size_t n, size_t groups, const float *x, size_t ldx, float *y, size_t ldy,
                                       float alpha, float beta, int log_mode);
void hd_f32_softmax_ukernel_rows__avx512(size_t n, size_t groups, const float *x, size_t ldx, float *y, size_t ldy,
                                         float alpha, float beta, int log_mode);
hd_f32_softmax_rows_fn hd_f32_softmax_rows_kernel(int isa);

/* GROUPS packed groups of N <= HD_SM_GRP16_MAX floats (CHANNEL mode on NHWC), beta == 0:
 * y = alpha * softmax(x) (LOG: alpha * log_softmax(x)) with each group given the arithmetic
 * the column kernel of the same ISA gives a column (sums in double), so the result does not
 * depend on where a group falls among the 16 handled together.  NULL where there is none
 * (scalar, AVX2): use the rows kernel. */
#define HD_SM_GRP16_MAX 32
typedef void (*hd_f32_softmax_grp16_fn)(size_t n, size_t groups, const float *x, float *y, float alpha, int log_mode);
void hd_f32_softmax_ukernel_grp16__avx512(size_t n, size_t groups, const float *x, float *y, float alpha,
                                          int log_mode);
hd_f32_softmax_grp16_fn hd_f32_softmax_grp16_kernel(int isa);

/* Backward (ACCURATE and FAST) over GROUPS packed groups of N floats, group g at offset g*N of
 * y, dy and dx: dx = alpha * y * (dy - s) + beta * dx with s = sum y*dy (products exact in
 * double, the sum rounded to float once); dx not read when beta == 0, dx may be dy.  The
 * variants sum in different orders, so they are compared with a tolerance. */
typedef void (*hd_f32_softmax_bwd_rows_fn)(size_t n, size_t groups, const float *y, const float *dy, float *dx,
                                           float alpha, float beta);
void hd_f32_softmax_bwd_ukernel_rows__scalar(size_t n, size_t groups, const float *y, const float *dy, float *dx,
                                             float alpha, float beta);
void hd_f32_softmax_bwd_ukernel_rows__avx2(size_t n, size_t groups, const float *y, const float *dy, float *dx,
                                           float alpha, float beta);
void hd_f32_softmax_bwd_ukernel_rows__avx512(size_t n, size_t groups, const float *y, const float *dy, float *dx,
                                             float alpha, float beta);
hd_f32_softmax_bwd_rows_fn hd_f32_softmax_bwd_rows_kernel(int isa);

/* Backward, CHANNEL mode on NCHW-like data: COLS positions side by side (COLS <= HD_SM_MAX_COLS),
 * channel k of position j at y[j + k*ldy], dy[j + k*lddy], dx[j + k*lddx]; s[j] = sum over k of
 * y*dy in double (products exact, k in order), rounded to float once, then
 * dx = alpha * (y * (dy - s)) + beta * dx (dx not read when beta == 0).  Every variant gives
 * the scalar one's bits: exact products make a fused multiply-add of the sum the same as a
 * multiply and an add. */
typedef void (*hd_f32_softmax_bwd_cols_fn)(size_t c, size_t cols, const float *y, size_t ldy, const float *dy,
                                           size_t lddy, float *dx, size_t lddx, float alpha, float beta);
void hd_f32_softmax_bwd_ukernel_cols__scalar(size_t c, size_t cols, const float *y, size_t ldy, const float *dy,
                                             size_t lddy, float *dx, size_t lddx, float alpha, float beta);
void hd_f32_softmax_bwd_ukernel_cols__avx2(size_t c, size_t cols, const float *y, size_t ldy, const float *dy,
                                           size_t lddy, float *dx, size_t lddx, float alpha, float beta);
void hd_f32_softmax_bwd_ukernel_cols__avx512(size_t c, size_t cols, const float *y, size_t ldy, const float *dy,
                                             size_t lddy, float *dx, size_t lddx, float alpha, float beta);
hd_f32_softmax_bwd_cols_fn hd_f32_softmax_bwd_cols_kernel(int isa);
/* The same with beta == 0 for outputs larger than the cache: the same values, whole aligned
 * vectors of dx written with streaming stores.  NULL where there is none (scalar, AVX2). */
typedef void (*hd_f32_softmax_bwd_cols_stream_fn)(size_t c, size_t cols, const float *y, size_t ldy, const float *dy,
                                                  size_t lddy, float *dx, size_t lddx, float alpha);
void hd_f32_softmax_bwd_ukernel_cols_stream__avx512(size_t c, size_t cols, const float *y, size_t ldy,
                                                    const float *dy, size_t lddy, float *dx, size_t lddx, float alpha);
hd_f32_softmax_bwd_cols_stream_fn hd_f32_softmax_bwd_cols_stream_kernel(int isa);

#endif
