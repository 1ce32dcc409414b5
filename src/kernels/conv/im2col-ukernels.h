/*
 * kernels/conv/im2col-ukernels.h -- the copies that build the forward solver's GEMM panels
 * from x (conv_fast_fwd_f32.c), in plain C, AVX2 (the masked run) and AVX-512.  Pure copies: every version gives
 * the same bits.
 */
#ifndef HD_KERNELS_CONV_IM2COL_UKERNELS_H
#define HD_KERNELS_CONV_IM2COL_UKERNELS_H

#include <stdint.h>

/* A masked run: d[k] = src[k*step] where bit bit0 + k of BITS is set, else 0, for k < cnt.
 * src is read only where the bit is set; BITS has 4 readable bytes past the last one used. */
typedef void (*hd_conv_mrun_fn)(float *d, const float *src, int64_t step, const uint8_t *bits, int64_t bit0,
                                int64_t cnt);
void hd_f32_im2col_ukernel_mrun__avx512(float *d, const float *src, int64_t step, const uint8_t *bits, int64_t bit0,
                                        int64_t cnt);
void hd_f32_im2col_ukernel_mrun__avx2(float *d, const float *src, int64_t step, const uint8_t *bits, int64_t bit0,
                                      int64_t cnt);

/* Columns into a k-major micro-panel: dst[k*ld + i] = src[i][k] for k < cnt, i < T (T <= 16),
 * or 0 where src[i] is NULL. */
typedef void (*hd_conv_cols_fn)(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt);
void hd_f32_im2col_ukernel_cols__avx512(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt);

/* The way back for stride 2 (the backward-data 1x1 solver's dx cells along a row): for i < nout,
 * d[i] = v[i / 2] at even i, beta * d[i] at odd i (0 when beta == 0: d is then not read);
 * nout is 2 * (values of v) or one less.  One two-source permute per 16 outputs. */
void hd_f32_im2col_ukernel_spread2__avx512(float *d, const float *v, int64_t nout, float beta);

#endif
