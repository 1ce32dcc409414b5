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

#endif
