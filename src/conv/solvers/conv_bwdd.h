/*
 * conv/solvers/conv_bwdd.h -- fp32 backward-data solvers that avoid multiplying the zeros
 * of a strided gather (conv_bwdd_*_f32.c; docs/algorithms.md, "Backward data as forward
 * convolutions (fp32)").
 *
 *  - bwd_data.phased_fwd: backward data split into str[0]*str[1]*str[2] output phases, each
 *    a unit-stride forward convolution of dy with a transposed, flipped sub-filter, run by
 *    the forward blocked GEMM solver (conv_fast.h) with dx addressed through multiplied
 *    strides.  At stride 1 there is one phase: backward data IS that forward convolution.
 *  - bwd_data.1x1: 1x1, no padding, any stride: dx = W^T dy (or dx^T = dy^T W for pixel
 *    layouts and small images) on the GEMM micro-kernels, results straight into dx; a
 *    stride's dx cells written in one pass.
 *  - bwd_data.col2im: for few input channels per group (conv1, C = 3), where the phases'
 *    GEMMs would have 3 rows: dcol = W^T dy per block of dy rows (C*R*S rows, K deep),
 *    scattered into a private band of dx rows.
 *  - bwd_data.batched_col2im: small images (7x7, 14x14) with deep channels: the same dcol
 *    product over a block of up to 8 images at once (one wide GEMM on all threads), then
 *    each dx plane summed by one task.
 *
 * All take FLOAT x, w and y, any strides and groups, both modes; bitwise identical results
 * for every thread count.  Listed before bwd_data.blocked_gemm_f32 under ALGO_1, the
 * specialised ones (1x1, col2im, batched) before the general phases.
 */
#ifndef HD_KERNELS_CONV_BWDD_H
#define HD_KERNELS_CONV_BWDD_H

#include "conv/conv_registry.h"

int hd_conv_bwdd_phase_app(const hd_conv_problem *p, const char **reason);
int hd_conv_bwdd_phase_plan(const hd_conv_problem *p, hd_conv_plan *pl, const char **reason);
void hd_conv_bwdd_phase_exec(const hd_conv_plan *pl, const hd_conv_args *a);
double hd_conv_bwdd_phase_cost(const hd_conv_problem *p);

int hd_conv_bwdd_1x1_app(const hd_conv_problem *p, const char **reason);
size_t hd_conv_bwdd_1x1_ws(const hd_conv_problem *p);
void hd_conv_bwdd_1x1_exec(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_bwdd_1x1_cost(const hd_conv_problem *p);

int hd_conv_bwdd_batched_app(const hd_conv_problem *p, const char **reason);
size_t hd_conv_bwdd_batched_ws(const hd_conv_problem *p);
void hd_conv_bwdd_batched_exec(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_bwdd_batched_cost(const hd_conv_problem *p);

int hd_conv_bwdd_col2im_app(const hd_conv_problem *p, const char **reason);
size_t hd_conv_bwdd_col2im_ws(const hd_conv_problem *p);
void hd_conv_bwdd_col2im_exec(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_bwdd_col2im_cost(const hd_conv_problem *p);

#endif
