/*
 * kernels/conv/conv_wino4.h -- Winograd F(4x4, 3x3) forward convolution in fp32 (solver 109,
 * CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED).  See docs/algorithms.md, "Winograd
 * F(4x4, 3x3) forward (fp32)".
 *
 * Each 4x4 output tile is computed from the 6x6 input tile around it:
 *     Y = A^T [ (G g G^T) .* (B^T d B) ] A
 * with the interpolation points 0, 1, -1, 2, -2 and infinity.  The driver
 * (conv_wino4_f32.c) transforms the filter once per call into packed GEMM A panels, and per
 * block of tiles transforms the input into packed B panels, runs the 36 GEMMs with the SGEMM
 * micro-kernels, and transforms the products back into y.  The tile and filter transforms
 * are the kernels of wino4-kernels.h (scalar, AVX2, AVX-512).
 */
#ifndef HD_KERNELS_CONV_WINO4_H
#define HD_KERNELS_CONV_WINO4_H

#include "kernels/conv/conv_registry.h"
#include "kernels/conv/wino4-kernels.h"

/* The solver's parts (conv_wino4_f32.c). */
int hd_conv_wino4_app(const hd_conv_problem *p, const char **reason);
size_t hd_conv_wino4_ws(const hd_conv_problem *p);
void hd_conv_wino4_exec(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_wino4_cost(const hd_conv_problem *p);

#define HD_CONV_WINO4_FWD_F32 \
    {109, "fwd.winograd_f4x3_f32", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, 1, \
     hd_conv_wino4_app, hd_conv_wino4_ws, hd_conv_wino4_exec, 0.3, hd_conv_wino4_cost}

#endif
