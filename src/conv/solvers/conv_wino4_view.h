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
 *
 * Larger filters (4 to 7 taps per dimension, stride and dilation 1) split into 3x3 pieces:
 * padded with zero taps to a multiple of 3, an R x S filter is nqh x nqw 3x3 filters, piece
 * (i, j) at tap offset (3i, 3j), and the convolution is the sum of the pieces' 3x3
 * convolutions, each reading the input shifted by (3i, 3j).  The engine runs them as one 3x3
 * convolution over nqh * nqw times the channels: virtual channel q * Cr + c is real channel c
 * seen through piece q's shift, so the sum over pieces is the GEMMs' reduction and each
 * output tile is transformed back once.  A 5x5 filter costs 4 x 36 / 16 = 9 multiplications
 * per output and channel, as F(2x2,5x5) does, with F(4x4,3x3)'s transforms.
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
    int64_t tap[9];               /* ... + tap[3*r + s] for tap (r, s) (3x3 filters only) */
    int64_t R, S;                 /* the filter: 3x3, or 4..7 taps per dimension in pieces */
    int nqh, nqw;                 /* 3x3 pieces per dimension (1 x 1 for a 3x3 filter) */
    int64_t Cr;                   /* real input channels per group; Cg = Cr * nqh * nqw */
    int64_t ftap[49];             /* the filter's tap (r, s) at ftap[r*S + s] (as tap[]) */
    hd_isa_t isa;                 /* the problem's instruction set */
} w4_view;

/* The view of forward problem P, and of backward-data problem P. */
void hd_w4_view_fwd(const hd_conv_problem *p, w4_view *v);
void hd_w4_view_bwdd(const hd_conv_problem *p, w4_view *v);

/* The input windows of tiles T0 .. T0 + COUNT - 1 (of TH x TW tiles per image and phase) in
 * LANES lanes (lanes past COUNT read nothing), offsets from the channel's origin, as filter
 * piece Q sees them (0 for a 3x3 filter). */
void hd_w4_in_tiles(const w4_view *v, int64_t TH, int64_t TW, int64_t t0, int64_t count, int lanes, int q,
                    hd_wino4_in_tiles *it);
/* The pieces of filter GK = g*Kg + k of a split view as one 3x3 filter over the virtual
 * channels: piece q, channel c at dst[(GK*Cg + q*Cr + c)*9 + 3r + s] (taps past the real
 * filter zero), read from W through the view's filter strides and ftap. */
void hd_w4_pieces(const w4_view *v, const float *w, int64_t gk, float *dst);

/* The output tiles T0 .. T0 + LANES - 1: offsets in the output and rows and columns to write
 * (none for a tile only a larger phase has). */
void hd_w4_out_tiles(const w4_view *v, int64_t TH, int64_t TW, int64_t t0, int lanes, hd_wino4_out_tiles *ot);

/* Prefetch into L1 the taps of N filters from W (wk apart) over NC channels (at most 16):
 * what one filter-transform call reads (conv_wino4_view.c says for which layouts). */
void hd_w4_prefetch_filters(const w4_view *v, const float *w, int64_t n, int64_t nc);

#endif
