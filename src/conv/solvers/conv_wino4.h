/*
 * conv/solvers/conv_wino4.h -- Winograd F(4x4, 3x3) convolution in fp32: the forward solver
 * 109 (CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED) and the backward-data solver 207
 * (CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED), one engine.  See docs/algorithms.md,
 * "Winograd F(4x4, 3x3) forward (fp32)" and "Winograd F(4x4, 3x3) backward data (fp32)".
 *
 * Each 4x4 output tile is computed from the 6x6 input tile around it:
 *     Y = A^T [ (G g G^T) .* (B^T d B) ] A
 * with the interpolation points 0, 1, -1, 2, -2 and infinity.  The driver
 * (conv_wino4_f32.c) transforms the filter into packed GEMM panels, and per block of tiles
 * transforms the input into packed panels, runs the 36 GEMMs with the SGEMM micro-kernels,
 * and transforms the products back into the output.  Backward data (stride 1) is the same
 * computation on dy with the filter rotated by 180 degrees, k and c exchanged, padding
 * 2 - pad.  The tile and filter transforms are the kernels of wino4-ukernels.h (scalar,
 * AVX2, AVX-512).  Solvers 112 and 210 run 5x5 filters on the same engine, as four 3x3 pieces
 * over four times the channels (conv_wino4_view.h).
 */
#ifndef HD_KERNELS_CONV_WINO4_H
#define HD_KERNELS_CONV_WINO4_H

#include "conv/conv_registry.h"
#include "kernels/wino4/wino4-ukernels.h"

/* The problems every F(4x4,3x3) solver takes: FLOAT data, a 2-d 3x3 filter and unit stride,
 * any dilation (each solver splits a dilated convolution into its d x d phases) (else 0, with
 * *reason set). */
int hd_conv_wino4_shape_ok(const hd_conv_problem *p, const char **reason);
/* The problems the 5x5-in-pieces solvers (112, 210) take: FLOAT data, a 2-d 5x5 filter, unit
 * stride and dilation (conv_wino4_view.c). */
int hd_conv_wino4_split_shape_ok(const hd_conv_problem *p, const char **reason);

/* The solvers' parts (conv_wino4_f32.c). */
int hd_conv_wino4_app(const hd_conv_problem *p, const char **reason);
size_t hd_conv_wino4_ws(const hd_conv_problem *p);
void hd_conv_wino4_exec(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_wino4_cost(const hd_conv_problem *p);

int hd_conv_wino4_bwdd_app(const hd_conv_problem *p, const char **reason);
size_t hd_conv_wino4_bwdd_ws(const hd_conv_problem *p);
void hd_conv_wino4_bwdd_exec(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_wino4_bwdd_cost(const hd_conv_problem *p);

/* Backward filter (conv_wino4_bwdf_f32.c): dU = sum over tiles of (A dY A^T) .* (B^T d B),
 * 36 GEMMs over the tiles (the tiles of every phase of a dilated problem), then
 * dw = G^T dU G. */
int hd_conv_wino4_bwdf_app(const hd_conv_problem *p, const char **reason);
size_t hd_conv_wino4_bwdf_ws(const hd_conv_problem *p);
void hd_conv_wino4_bwdf_exec(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_wino4_bwdf_cost(const hd_conv_problem *p);

#endif
