/*
 * conv/solvers/conv_fast.h -- fast fp32 convolution solvers (blocked implicit GEMM on the
 * packed-panel SGEMM).  See docs/algorithms.md, "Blocked GEMM solvers (fp32)".
 *
 * All three take FLOAT x, w and y (float compute), any strides, groups, 2-d and 3-d, any
 * padding, stride and dilation; results are bitwise identical for every thread count.
 */
#ifndef HD_KERNELS_CONV_FAST_H
#define HD_KERNELS_CONV_FAST_H

#include "conv/conv_registry.h"

/* The solvers' parts (conv_fast_f32.c).  The solver tables are arrays of structures, so
 * conv_registry.c lists them through the initializers below. */
int hd_conv_fast_app_fwd(const hd_conv_problem *p, const char **reason);
int hd_conv_fast_app_bwdd(const hd_conv_problem *p, const char **reason);
int hd_conv_fast_app_bwdf(const hd_conv_problem *p, const char **reason);
size_t hd_conv_fast_ws_fwd(const hd_conv_problem *p);
size_t hd_conv_fast_ws_bwdd(const hd_conv_problem *p);
size_t hd_conv_fast_ws_bwdf(const hd_conv_problem *p);
void hd_conv_fast_exec_fwd(const hd_conv_problem *p, const hd_conv_args *a);
void hd_conv_fast_exec_bwdd(const hd_conv_problem *p, const hd_conv_args *a);
void hd_conv_fast_exec_bwdf(const hd_conv_problem *p, const hd_conv_args *a);

/* Forward (conv_fast_fwd_f32.c): the filter packed once into micro-kernel panels; per
 * (position block, output-channel block, groups) the im2col columns are gathered per k block
 * and the GEMM micro-kernels run on them directly (IMPLICIT_PRECOMP_GEMM). */
#define HD_CONV_FAST_FWD_F32 \
    {150, "fwd.blocked_gemm_f32", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 1, \
     hd_conv_fast_app_fwd, hd_conv_fast_ws_fwd, hd_conv_fast_exec_fwd, 0.4, NULL}
extern const hd_conv_solver hd_conv_fast_fwd_f32;

/* Backward data: the same gather over dy, per block of input positions (ALGO_1). */
#define HD_CONV_FAST_BWDD_F32 \
    {250, "bwd_data.blocked_gemm_f32", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1, \
     hd_conv_fast_app_bwdd, hd_conv_fast_ws_bwdd, hd_conv_fast_exec_bwdd, 0.4, NULL}
extern const hd_conv_solver hd_conv_fast_bwdd_f32;

/* Backward filter: per (reduction chunk, group, filter-row block, reduction-column block)
 * partial products, chunks summed in a fixed order (ALGO_1). */
#define HD_CONV_FAST_BWDF_F32 \
    {350, "bwd_filter.blocked_gemm_f32", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1, \
     hd_conv_fast_app_bwdf, hd_conv_fast_ws_bwdf, hd_conv_fast_exec_bwdf, 0.4, NULL}
extern const hd_conv_solver hd_conv_fast_bwdf_f32;

#endif
