/*
 * conv/solvers/conv_fwd_dot.h -- solver 151, fwd.dot_f32 (conv_fwd_dot_f32.c): batch 1, few
 * positions, a long reduction and a filter too large to stay cached; the filter's rows and
 * the positions' rows are both read in place by the dot micro-kernels.  It is planned with
 * the other forward blocked-GEMM variants (conv_fast.h), which it is tried before.
 */
#ifndef HD_KERNELS_CONV_FWD_DOT_H
#define HD_KERNELS_CONV_FWD_DOT_H

#include <stddef.h>

#include "conv/conv_registry.h"

/* Bytes of the dot plan's choices. */
#define HD_CONV_DOT_PLAN_BYTES 320

/* Whether the dot plan takes P (FLOAT data is checked by the solver); if so, its choices go
 * to PLAN (HD_CONV_DOT_PLAN_BYTES, 16-byte aligned) and its workspace bytes to *WS. */
int hd_conv_fwd_dot_plan(const hd_conv_problem *p, void *plan, size_t *ws);

/* Run a plan of P made by hd_conv_fwd_dot_plan. */
void hd_conv_fwd_dot_exec(const void *plan, const hd_conv_problem *p, const hd_conv_args *a);

#endif
