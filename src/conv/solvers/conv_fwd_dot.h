/*
 * conv/solvers/conv_fwd_dot.h -- the forward solver's "dot" plan (conv_fwd_dot_f32.c): batch
 * 1, few positions, a long reduction and a filter too large to stay cached; the filter's
 * rows and the positions' rows are both read in place by the dot micro-kernels.
 */
#ifndef HD_KERNELS_CONV_FWD_DOT_H
#define HD_KERNELS_CONV_FWD_DOT_H

#include <stddef.h>

#include "conv/conv_registry.h"

/* Whether the plan takes P (FLOAT data is checked by the solver). */
int hd_conv_fwd_dot_applies(const hd_conv_problem *p);
size_t hd_conv_fwd_dot_ws(const hd_conv_problem *p);
void hd_conv_fwd_dot_exec(const hd_conv_problem *p, const hd_conv_args *a);

#endif
