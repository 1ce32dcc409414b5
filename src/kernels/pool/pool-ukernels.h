/*
 * kernels/pool/pool-ukernels.h -- the pooling micro-kernels.  The direct row kernels under
 * 2-d max pooling forward on row-contiguous layouts (NCHW and the like).  One output row is made in two passes:
 *
 *   vertical:    col[i] = max over r < rows of x[r * ld + i]            i < n
 *   horizontal:  y[j]   = max over k < kw  of col[j * sw + k]           j < ow
 *
 * The caller lays col out as the padded input row (padding columns hold -inf, the identity
 * of max), so the horizontal pass needs no border logic.  Each fold starts from -inf and
 * takes its operands in the order written (rows top to bottom, then taps left to right): a
 * NaN never replaces the running value unless propagate != 0, in which case the first NaN met
 * becomes the running value, bits unchanged, and stays.  Ties (+0/-0) keep the earlier
 * operand.  So NOT_PROPAGATE gives the max of the window's non-NaN values (-inf if none), and
 * PROPAGATE a NaN whenever the window holds one.  Every variant gives bitwise the result of
 * the scalar one.
 *
 * The horizontal pass may read col[] up to HD_POOL_ROW_SLACK floats past col[(ow-1)*sw + kw - 1]
 * (whole-vector loads whose extra lanes are dropped); the caller allocates them.
 */
#ifndef HD_KERNELS_POOL_POOL_UKERNELS_H
#define HD_KERNELS_POOL_POOL_UKERNELS_H

#include <stddef.h>

#define HD_POOL_ROW_SLACK 32

typedef void (*hd_f32_pool_vmax_fn)(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate);
typedef void (*hd_f32_pool_hmax_fn)(float *y, const float *col, size_t ow, int kw, int sw, int propagate);

void hd_f32_pool_ukernel_vmax__scalar(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate);
void hd_f32_pool_ukernel_vmax__avx2(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate);
void hd_f32_pool_ukernel_vmax__avx512(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate);

void hd_f32_pool_ukernel_hmax__scalar(float *y, const float *col, size_t ow, int kw, int sw, int propagate);
void hd_f32_pool_ukernel_hmax__avx2(float *y, const float *col, size_t ow, int kw, int sw, int propagate);
void hd_f32_pool_ukernel_hmax__avx512(float *y, const float *col, size_t ow, int kw, int sw, int propagate);

/* Average pooling, the same passes with sums (float, in the order written, each sum starting
 * from its first operand; padding columns hold 0):
 *   vertical:    col[i] = x[i] + x[ld + i] + ... (rows terms)
 *   horizontal:  y[j] = (col[j*sw] + ... + col[j*sw + kw - 1]) / (vdiv * hdiv[j])
 * vdiv and hdiv[j] are the divisor's vertical and horizontal factors (small integers, so the
 * product is exact); the division is IEEE, the same in every variant. */
typedef void (*hd_f32_pool_vsum_fn)(float *col, const float *x, ptrdiff_t ld, int rows, size_t n);
typedef void (*hd_f32_pool_hsum_fn)(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                    float vdiv);
void hd_f32_pool_ukernel_vsum__scalar(float *col, const float *x, ptrdiff_t ld, int rows, size_t n);
void hd_f32_pool_ukernel_vsum__avx2(float *col, const float *x, ptrdiff_t ld, int rows, size_t n);
void hd_f32_pool_ukernel_vsum__avx512(float *col, const float *x, ptrdiff_t ld, int rows, size_t n);
void hd_f32_pool_ukernel_hsum__scalar(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                      float vdiv);
void hd_f32_pool_ukernel_hsum__avx2(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                    float vdiv);
void hd_f32_pool_ukernel_hsum__avx512(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                      float vdiv);

/* The best variants for ISA (an hd_isa_t, e.g. a handle's), capped by what the CPU allows. */
hd_f32_pool_vmax_fn hd_f32_pool_vmax_select(int isa);
hd_f32_pool_hmax_fn hd_f32_pool_hmax_select(int isa);
hd_f32_pool_vsum_fn hd_f32_pool_vsum_select(int isa);
hd_f32_pool_hsum_fn hd_f32_pool_hsum_select(int isa);

/* The running-maximum micro-kernel under max pooling forward (other layouts):
 *
 *   acc[i] = max(acc[i], x[i])  for i < n
 *
 * NaN rules (cuDNN's maxpoolingNanOpt): with propagate == 0 a NaN in x never replaces acc
 * (acc starts at -inf, so a window of NaNs gives -inf); with propagate != 0 acc becomes NaN
 * once any x it met is NaN.  Equal values (+0/-0) keep the earlier one.  Every variant gives
 * bitwise the same result as the scalar one. */
typedef void (*hd_f32_vmax_fn)(float *acc, const float *x, size_t n, int propagate);

void hd_f32_vmax_ukernel__scalar(float *acc, const float *x, size_t n, int propagate);
void hd_f32_vmax_ukernel__avx2(float *acc, const float *x, size_t n, int propagate);
void hd_f32_vmax_ukernel__avx512(float *acc, const float *x, size_t n, int propagate);

/* The best variant for ISA (an hd_isa_t, e.g. a handle's), capped by what the CPU allows. */
hd_f32_vmax_fn hd_f32_vmax_select(int isa);

#endif
