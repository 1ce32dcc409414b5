/*
 * kernels/wino4/wino4-ukernels.h -- the tile transform kernels of the Winograd F(4x4, 3x3)
 * forward solver (conv/solvers/conv_wino4.h): their contract and table.  A vector kernel
 * computes one tile (or filter) per lane with the same operations in the same order as the
 * scalar one (wino4-transform.inc), so all give bitwise the same values.
 */
#ifndef HD_KERNELS_WINO4_WINO4_UKERNELS_H
#define HD_KERNELS_WINO4_WINO4_UKERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"

#define HD_WINO4_LANES 16   /* most tiles one kernel call handles (AVX-512: one per lane) */

/* Up to HD_WINO4_LANES input tiles: tile i reads the 6x6 window whose top-left element is at
 * x[off[i]] (offsets may point outside x: only the elements named by the masks are read);
 * bit r of rmask[i] says that window row r lies inside the image, bit s of cmask[i] that
 * column s does.  Elements outside read as 0.  A tile with rmask 0 is all zero (the padding
 * lanes of a block).  Offsets are in elements, strides hs (rows) and ws (columns). */
typedef struct {
    int lanes;
    int32_t hs, ws;
    int32_t off[HD_WINO4_LANES];
    uint8_t rmask[HD_WINO4_LANES], cmask[HD_WINO4_LANES];
} hd_wino4_in_tiles;

/* Input transform of the tiles for channels 0..nc-1 (channel c at x + c*cs): the 36 values
 * V = B^T d B of tile i, channel c go to dst[pos*pos_stride + c*c_stride + i], pos = 6*row + col. */
typedef void (*hd_wino4_in_fn)(const float *x, int64_t cs, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                               size_t pos_stride, size_t c_stride);

/* Up to HD_WINO4_LANES output tiles: tile i's top-left output is y[off[i]], it has nrow[i]
 * rows and ncol[i] columns inside y (1..4; 0 rows: skip the lane). */
typedef struct {
    int lanes;
    int64_t hs, ws;
    int64_t off[HD_WINO4_LANES];
    uint8_t nrow[HD_WINO4_LANES], ncol[HD_WINO4_LANES];
} hd_wino4_out_tiles;

/* Output transform for channels 0..nk-1: tile i of channel k has its 36 products at
 * m[pos*pos_stride + k*k_stride + i]; Y = A^T M A is stored at y + k*ks + off[i] +
 * a*hs + b*ws as alpha*Y + beta*y (beta == 0: y is not read).  When y is NULL, the raw
 * Y (no alpha) goes to raw[(k*HD_WINO4_LANES + i)*16 + 4*a + b] instead (lanes i < lanes). */
typedef void (*hd_wino4_out_fn)(const float *m, size_t pos_stride, size_t k_stride, int64_t nk,
                                const hd_wino4_out_tiles *t, float *y, int64_t ks, float alpha, float beta,
                                float *raw);

void hd_f32_wino4_ukernel_in__scalar(const float *x, int64_t cs, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                     size_t pos_stride, size_t c_stride);
void hd_f32_wino4_ukernel_out__scalar(const float *m, size_t pos_stride, size_t k_stride, int64_t nk,
                                      const hd_wino4_out_tiles *t, float *y, int64_t ks, float alpha, float beta,
                                      float *raw);
void hd_f32_wino4_ukernel_in__avx2(const float *x, int64_t cs, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                   size_t pos_stride, size_t c_stride);
void hd_f32_wino4_ukernel_out__avx2(const float *m, size_t pos_stride, size_t k_stride, int64_t nk,
                                    const hd_wino4_out_tiles *t, float *y, int64_t ks, float alpha, float beta,
                                    float *raw);
void hd_f32_wino4_ukernel_in__avx512(const float *x, int64_t cs, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                     size_t pos_stride, size_t c_stride);
void hd_f32_wino4_ukernel_out__avx512(const float *m, size_t pos_stride, size_t k_stride, int64_t nk,
                                      const hd_wino4_out_tiles *t, float *y, int64_t ks, float alpha, float beta,
                                      float *raw);

/* Filter transform of nk <= HD_WINO4_LANES filters (one per lane) over nc channels: tap e
 * (3*r + s) of filter i, channel c is w[i*ks + c*cs + tap[e]] (any strides: the caller's
 * filter layout, flips and transposes are all in ks, cs and tap); U = G g G^T, computed in
 * double and rounded once to float, goes to u[pos*pos_stride + c*c_stride + i] for i < nk
 * (nothing else is written).  The vector kernels gather the lanes (ks != 1) or load them
 * (ks == 1); they need 15*ks + max tap + (nc-1)*cs below 2^31. */
typedef void (*hd_wino4_filter_fn)(const float *w, int64_t ks, int64_t cs, const int64_t tap[9], int nk, int64_t nc,
                                   float *u, size_t pos_stride, size_t c_stride);

void hd_f32_wino4_ukernel_filter__scalar(const float *w, int64_t ks, int64_t cs, const int64_t tap[9], int nk,
                                         int64_t nc, float *u, size_t pos_stride, size_t c_stride);
void hd_f32_wino4_ukernel_filter__avx2(const float *w, int64_t ks, int64_t cs, const int64_t tap[9], int nk, int64_t nc,
                                       float *u, size_t pos_stride, size_t c_stride);
void hd_f32_wino4_ukernel_filter__avx512(const float *w, int64_t ks, int64_t cs, const int64_t tap[9], int nk,
                                         int64_t nc, float *u, size_t pos_stride, size_t c_stride);

/* ---- channels-contiguous forms (NHWC-like tensors): one tile at a time, lanes = channels ----
 * The same transforms, vectorised over channels instead of tiles, for tensors whose channels
 * are contiguous (channel stride 1): each window element of a tile is a run of channels.
 * They give bitwise the values of the tile-lane kernels (same operations, same order). */

/* Input: tile i (< t->lanes) reads its 6x6 window at x + off[i] (masks and strides as for
 * hd_wino4_in_tiles), channels 0..nc-1 contiguous; V of channel c, position pos goes to
 * dst[i*t_stride + pos*pos_stride + c]. */
typedef void (*hd_wino4_in_c_fn)(const float *x, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                 size_t pos_stride, size_t t_stride);

/* Output: tile i's products of channel k (< nk) are m[i*t_stride + pos*pos_stride + k]; Y is
 * stored at y + off[i] + a*hs + b*ws + k as alpha*Y + beta*y (beta == 0: y is not read), or
 * with y NULL the raw Y goes to raw[(16*i + 4*a + b)*nk + k]. */
typedef void (*hd_wino4_out_c_fn)(const float *m, size_t pos_stride, size_t t_stride, int64_t nk,
                                  const hd_wino4_out_tiles *t, float *y, float alpha, float beta, float *raw);

/* The 36 GEMMs of the channels-contiguous form, one MR x NR tile: for i < mr, j < nr,
 *     c[i*ldc + j] = s + sum over p = 0 .. kc-1, in that order, of a[i*lda + p] * b[p*b_stride + j]
 * with one fused multiply-add per p, starting from s = 0 (acc == 0) or s = c[i*ldc + j] (acc
 * == 1: a reduction cut into pieces gives bitwise the result of one call), as the fused
 * SGEMM micro-kernels do.  A rows are tiles (read in place, channels contiguous), B is a
 * packed panel of filters. */
typedef void (*hd_wino4_gemm_fn)(size_t mr, size_t nr, size_t kc, const float *a, size_t lda, const float *b,
                                 size_t b_stride, float *c, size_t ldc, int acc);

/* Output gradient (backward filter), channels contiguous: tile i (< t->lanes) reads the 4x4
 * window of dy at y + off[i] (row r inside when bit r of rmask[i] is set, column s when bit s
 * of cmask[i] is; zero otherwise), channels 0..nk-1 contiguous, strides hs and ws; the 36
 * values A dY A^T of channel k, position pos go to dst[i*t_stride + pos*pos_stride + k]. */
typedef void (*hd_wino4_dy_c_fn)(const float *y, int64_t nk, const hd_wino4_in_tiles *t, float *dst,
                                 size_t pos_stride, size_t t_stride);

void hd_f32_wino4_ukernel_dy_c__scalar(const float *y, int64_t nk, const hd_wino4_in_tiles *t, float *dst,
                                       size_t pos_stride, size_t t_stride);
void hd_f32_wino4_ukernel_dy_c__avx512(const float *y, int64_t nk, const hd_wino4_in_tiles *t, float *dst,
                                       size_t pos_stride, size_t t_stride);
void hd_f32_wino4_ukernel_dy_c__avx2(const float *y, int64_t nk, const hd_wino4_in_tiles *t, float *dst,
                                     size_t pos_stride, size_t t_stride);
void hd_f32_wino4_ukernel_in_c__avx2(const float *x, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                     size_t pos_stride, size_t t_stride);

#define HD_WINO4_GEMM_MR 6
#define HD_WINO4_GEMM_NR 64

void hd_f32_wino4_ukernel_in_c__scalar(const float *x, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                       size_t pos_stride, size_t t_stride);
void hd_f32_wino4_ukernel_out_c__scalar(const float *m, size_t pos_stride, size_t t_stride, int64_t nk,
                                        const hd_wino4_out_tiles *t, float *y, float alpha, float beta, float *raw);
void hd_f32_wino4gemm_ukernel__scalar(size_t mr, size_t nr, size_t kc, const float *a, size_t lda, const float *b,
                                      size_t b_stride, float *c, size_t ldc, int acc);
void hd_f32_wino4_ukernel_in_c__avx512(const float *x, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                       size_t pos_stride, size_t t_stride);
void hd_f32_wino4_ukernel_out_c__avx512(const float *m, size_t pos_stride, size_t t_stride, int64_t nk,
                                        const hd_wino4_out_tiles *t, float *y, float alpha, float beta, float *raw);
void hd_f32_wino4gemm_ukernel_6x64__avx512(size_t mr, size_t nr, size_t kc, const float *a, size_t lda, const float *b,
                                           size_t b_stride, float *c, size_t ldc, int acc);

/* The transform kernels of one ISA; width = tiles per call (scalar: any up to 16).  in_c,
 * out_c and gemm are the channels-contiguous form (NULL where the ISA has none: the forward
 * solver then takes the tile-lane form for every layout; AVX2 has only in_c and dy_c, which
 * the backward filter uses); the scalar ones are the reference of the tests (gemm with
 * fmaf: exact, slow). */
typedef struct {
    const char *name;
    hd_isa_t isa;
    int width;
    hd_wino4_in_fn in;
    hd_wino4_out_fn out;
    hd_wino4_filter_fn filter;
    hd_wino4_in_c_fn in_c;
    hd_wino4_out_c_fn out_c;
    hd_wino4_gemm_fn gemm;
    hd_wino4_dy_c_fn dy_c;        /* backward filter (conv_wino4_bwdf_f32.c); NULL: the scalar one */
} hd_wino4_kernels;

/* All kernel sets, scalar first; *count receives the number. */
const hd_wino4_kernels *hd_wino4_kernel_table(size_t *count);
/* The best set for ISA (kernel->isa <= isa, ISA lowered to what the CPU allows). */
const hd_wino4_kernels *hd_wino4_kernel_for(hd_isa_t isa);

#endif
