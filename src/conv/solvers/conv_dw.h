/*
 * conv/solvers/conv_dw.h -- depthwise fp32 convolution solvers (direct, vectorised).  See
 * docs/algorithms.md, "Depthwise solvers (fp32)".
 *
 * All three take FLOAT x, w and y, 2-d problems with one input and one output channel per
 * group (G == C == K), any filter size, padding, stride and dilation, any strides (NHWC, and
 * NCHW with narrow rows: blocked work, vectorised over 16 channels; otherwise over output
 * columns); results are bitwise identical for every thread count.  Channel multipliers
 * (K = m*C with G = C) are refused, the generic solvers take them.
 */
#ifndef HD_KERNELS_CONV_DW_H
#define HD_KERNELS_CONV_DW_H

#include "conv/conv_registry.h"

int hd_conv_dw_app_fwd(const hd_conv_problem *p, const char **reason);
int hd_conv_dw_app_bwdd(const hd_conv_problem *p, const char **reason);
int hd_conv_dw_app_bwdf(const hd_conv_problem *p, const char **reason);
size_t hd_conv_dw_ws_fwd(const hd_conv_problem *p);
size_t hd_conv_dw_ws_bwdd(const hd_conv_problem *p);
size_t hd_conv_dw_ws_bwdf(const hd_conv_problem *p);
void hd_conv_dw_exec_fwd(const hd_conv_problem *p, const hd_conv_args *a);
void hd_conv_dw_exec_bwdd(const hd_conv_problem *p, const hd_conv_args *a);
void hd_conv_dw_exec_bwdf(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_dw_cost(const hd_conv_problem *p);

/* Forward: per (image, row block, channel group) of blocked work, or (image, channel, row
 * block) of plane work (IMPLICIT_GEMM, ahead of the generic implicit GEMM). */
#define HD_CONV_DW_FWD_F32 \
    {160, "fwd.depthwise_f32", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 1, hd_conv_dw_app_fwd, \
     hd_conv_dw_ws_fwd, hd_conv_dw_exec_fwd, 0.1, hd_conv_dw_cost}

/* Backward data: the correlation of dy (zero-upsampled when strided) with the flipped
 * filter (ALGO_0, ahead of GEMM + col2im). */
#define HD_CONV_DW_BWDD_F32 \
    {260, "bwd_data.depthwise_f32", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, 1, hd_conv_dw_app_bwdd, \
     hd_conv_dw_ws_bwdd, hd_conv_dw_exec_bwdd, 0.1, hd_conv_dw_cost}

/* Backward filter: per fixed reduction chunk and channel (group), partial sums added in chunk
 * order (ALGO_0, ahead of im2col + GEMM). */
#define HD_CONV_DW_BWDF_F32 \
    {360, "bwd_filter.depthwise_f32", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, 1, \
     hd_conv_dw_app_bwdf, hd_conv_dw_ws_bwdf, hd_conv_dw_exec_bwdf, 0.1, hd_conv_dw_cost}

#endif
