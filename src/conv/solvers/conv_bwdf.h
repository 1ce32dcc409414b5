/*
 * conv/solvers/conv_bwdf.h -- backward filter in fp32 straight on the GEMM micro-kernels.
 * See docs/algorithms.md, "Backward filter on the micro-kernels (fp32)".
 *
 * dW[k][crs] = sum over (image, output position) of dy[k][pos] * col[crs][pos]: a GEMM with
 * a long reduction and a small result.  The solver packs im2col columns straight into the
 * micro-kernel's A panels and reads (or packs) dy as its B panels, one block of positions at
 * a time, and keeps the result tiles in cache across the whole reduction.  FLOAT x, dy and
 * dw; groups, 2-d and 3-d, any padding, stride, dilation and strides, both modes; results are
 * bitwise identical for every thread count and for the AVX2 and AVX-512 kernels.
 */
#ifndef HD_KERNELS_CONV_BWDF_H
#define HD_KERNELS_CONV_BWDF_H

#include "conv/conv_registry.h"
#include "kernels/conv/bwdf-ukernels.h"

int hd_conv_bwdf_uk_app(const hd_conv_problem *p, const char **reason);
size_t hd_conv_bwdf_uk_ws(const hd_conv_problem *p);
void hd_conv_bwdf_uk_exec(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_bwdf_uk_cost(const hd_conv_problem *p);

/* The k-major tiles (352): the same GEMM with dW's rows (output channels) as the tile rows,
 * dy packed once into the A panels, x gathered (or read in place) as B; for problems whose
 * whole reduction is one block, or where it moves less data than the row tiles. */
int hd_conv_bwdf_km_app(const hd_conv_problem *p, const char **reason);
size_t hd_conv_bwdf_km_ws(const hd_conv_problem *p);
void hd_conv_bwdf_km_exec(const hd_conv_problem *p, const hd_conv_args *a);


#endif
