/*
 * conv/solvers/conv_fast.h -- fast fp32 convolution solvers (blocked implicit GEMM on the
 * packed-panel SGEMM).  See docs/algorithms.md, "Blocked GEMM solvers (fp32)".
 *
 * All take FLOAT x, w and y (float compute), any strides, groups, 2-d and 3-d, any padding,
 * stride and dilation; results are bitwise identical for every thread count.
 */
#ifndef HD_KERNELS_CONV_FAST_H
#define HD_KERNELS_CONV_FAST_H

#include "conv/conv_registry.h"

/* Backward data (250) and backward filter (350): conv_fast_f32.c. */
int hd_conv_fast_app_bwdd(const hd_conv_problem *p, const char **reason);
int hd_conv_fast_app_bwdf(const hd_conv_problem *p, const char **reason);
size_t hd_conv_fast_ws_bwdd(const hd_conv_problem *p);
size_t hd_conv_fast_ws_bwdf(const hd_conv_problem *p);
void hd_conv_fast_exec_bwdd(const hd_conv_problem *p, const hd_conv_args *a);
void hd_conv_fast_exec_bwdf(const hd_conv_problem *p, const hd_conv_args *a);

/* Forward (conv_fwd_*_f32.c, conv_fwd_f32.h, conv_fwd_dot_f32.c): one planner for the four variants,
 * solvers 150-153; it decides which of them takes a problem.  The backward-data phases
 * (conv_bwdd_phase_f32.c) run their forward convolutions through it as well. */
enum { HD_FW_BLOCKED = 0, HD_FW_DOT = 1, HD_FW_ROWS = 2, HD_FW_WIDE = 3 };
int hd_conv_fw_plan(const hd_conv_problem *p, hd_conv_plan *pl, const char **reason);
void hd_conv_fw_execute(const hd_conv_plan *pl, const hd_conv_args *a);

#endif
