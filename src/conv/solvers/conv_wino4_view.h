/*
 * conv/solvers/conv_wino4_view.h -- what the Winograd F(4x4, 3x3) engine computes
 * (conv_wino4_f32.c): a forward convolution described by a view of the problem, and the
 * enumeration of its 4x4 output tiles into the tile descriptors the transform kernels take
 * (kernels/wino4/wino4-ukernels.h).
 *
 * Backward data at stride 1 is the forward convolution of dy with the filter rotated by 180
 * degrees and its k / c roles exchanged, padded by 2 d - pad: its view only swaps strides and
 * reverses the taps.
 *
 * Dilation: at stride 1 a convolution with dilation d splits into d*d independent undilated
 * ones (per dimension, output row i*d + a reads only input rows of one residue modulo d).
 * Phase (a, b) of the output is the undilated 3x3 convolution of the input sub-grid of its
 * residue, padded by ceil((pad - a) / d).  The tiles are enumerated as (image, phase row,
 * phase column, tile row, tile column), with the tile counts TH x TW of the largest phase
 * (phase 0); each tile reads its sub-grid through strides d times the tensor's and writes its
 * output sub-grid the same way, so one plan and one filter transform serve all phases.  At
 * d = 1 this is the plain raster order over (image, tile row, tile column).
 */
#ifndef HD_CONV_WINO4_VIEW_H
#define HD_CONV_WINO4_VIEW_H

#include "conv/conv_problem.h"
#include "kernels/wino4/wino4-ukernels.h"

typedef struct {
    int bwd;                      /* 1: backward data (no fused epilogue) */
    int64_t N, G, Cg, Kg;         /* images, groups, input / output channels per group */
    int64_t H, W, OH, OW, ph, pw; /* input plane, output plane, padding */
    int64_t dh, dw;               /* dilation (the number of phases per dimension) */
    int64_t xs[5], ys[5];         /* strides (n, c, -, h, w) of the input and the output */
    int64_t wg, wk, wc;           /* filter (g, k, c) at g*wg + k*wk + c*wc ... */
    int64_t tap[9];               /* ... + tap[3*r + s] for tap (r, s) */
    hd_isa_t isa;                 /* the problem's instruction set */
} w4_view;

/* The view of forward problem P, and of backward-data problem P. */
void hd_w4_view_fwd(const hd_conv_problem *p, w4_view *v);
void hd_w4_view_bwdd(const hd_conv_problem *p, w4_view *v);

/* The input windows of tiles T0 .. T0 + COUNT - 1 (of TH x TW tiles per image and phase) in
 * LANES lanes (lanes past COUNT read nothing), offsets from the channel's origin. */
void hd_w4_in_tiles(const w4_view *v, int64_t TH, int64_t TW, int64_t t0, int64_t count, int lanes,
                    hd_wino4_in_tiles *it);
/* The output tiles T0 .. T0 + LANES - 1: offsets in the output and rows and columns to write
 * (none for a tile only a larger phase has). */
void hd_w4_out_tiles(const w4_view *v, int64_t TH, int64_t TW, int64_t t0, int lanes, hd_wino4_out_tiles *ot);

#endif
