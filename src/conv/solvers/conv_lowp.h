/*
 * conv/solvers/conv_lowp.h -- forward convolution for the low-precision configurations:
 * INT8 (INT8_CONFIG, INT8_EXT_CONFIG: int8 x and w, int32 sums, INT8 or FLOAT y) and
 * BFLOAT16 (bf16 x, w, y, float compute).  See docs/algorithms.md, "Low-precision forward
 * solvers".
 *
 * Both are implicit GEMMs: per task (image, group, block of output positions, block of
 * output channels) the input values under every filter tap are gathered into a panel with
 * one row per output position, and multiplied by the filter packed once per call into
 * 16-output-channel vectors.  The reduction runs in "units" of 4 bytes: 4 int8 channels
 * (vpdpbusd), 2 bf16 channels (vdpbf16ps) or 1 fp32 channel (bf16 widened, FMA), so a panel
 * row is (tap, channel unit) and a packed-filter vector step is 16 channels x one unit = 64
 * bytes.
 *
 * Kernels by the problem's ISA (p->isa, which HOSTDNN_MAX_ISA caps): INT8 uses vpdpbusd with
 * AVX-512 + AVX512_VNNI, else the same packing with a scalar int32 kernel (exact).  BFLOAT16
 * uses fp32 FMAs on the widened values with AVX-512 (vdpbf16ps can run at a lower
 * MAC rate than the FMAs on CPUs that have it; HOSTDNN_CONV_BF16_DP=1 selects it when the CPU has
 * AVX512_BF16), else fp32 panels and hd_sgemm.
 */
#ifndef HD_KERNELS_CONV_LOWP_H
#define HD_KERNELS_CONV_LOWP_H

#include "conv/conv_registry.h"
#include "kernels/conv/lowp-ukernels.h"

#include <stdint.h>

int hd_conv_lowp_app_int8(const hd_conv_problem *p, const char **reason);
int hd_conv_lowp_app_bf16(const hd_conv_problem *p, const char **reason);
size_t hd_conv_lowp_ws_int8(const hd_conv_problem *p);
size_t hd_conv_lowp_ws_bf16(const hd_conv_problem *p);
void hd_conv_lowp_exec_int8(const hd_conv_problem *p, const hd_conv_args *a);
void hd_conv_lowp_exec_bf16(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_lowp_cost_int8(const hd_conv_problem *p);
double hd_conv_lowp_cost_bf16(const hd_conv_problem *p);


#endif
