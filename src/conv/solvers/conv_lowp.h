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
 * Kernels by CPU (hd_cpu_isa(), so HOSTDNN_MAX_ISA caps them): INT8 uses vpdpbusd with
 * AVX-512 + AVX512_VNNI, else the same packing with a scalar int32 kernel (exact).  BFLOAT16
 * uses fp32 FMAs on the widened values with AVX-512 (vdpbf16ps can run at a lower
 * MAC rate than the FMAs on CPUs that have it; HOSTDNN_CONV_BF16_DP=1 selects it when the CPU has
 * AVX512_BF16), else fp32 panels and hd_sgemm.
 */
#ifndef HD_KERNELS_CONV_LOWP_H
#define HD_KERNELS_CONV_LOWP_H

#include "conv/conv_registry.h"

#include <stdint.h>

int hd_conv_lowp_app_int8(const hd_conv_problem *p, const char **reason);
int hd_conv_lowp_app_bf16(const hd_conv_problem *p, const char **reason);
size_t hd_conv_lowp_ws_int8(const hd_conv_problem *p);
size_t hd_conv_lowp_ws_bf16(const hd_conv_problem *p);
void hd_conv_lowp_exec_int8(const hd_conv_problem *p, const hd_conv_args *a);
void hd_conv_lowp_exec_bf16(const hd_conv_problem *p, const hd_conv_args *a);
double hd_conv_lowp_cost_int8(const hd_conv_problem *p);
double hd_conv_lowp_cost_bf16(const hd_conv_problem *p);

/* ---- the vector micro-kernels (conv_lowp_int8-avx512-vnni.c, conv_lowp_bf16-avx512-bf16.c) ----
 *
 * Panel rows are LDP bytes apart (one per output position, MR of them read); the packed
 * filter holds NRV vectors of 16 output channels, VSTRIDE bytes apart, each RQ steps of
 * 64 bytes.  The kernel writes an MR x (NRV*16) tile (row length NRV*16): int32 sums minus
 * the per-channel compensation COMP (int8), or fp32 sums (bf16).  With MORE set it
 * continues the sums already in the tile (the reduction is cut into blocks whose packed
 * filter stays in L1; the order of the additions is unchanged). */

/* Rows per call for NRV vectors (the register blocking): 12, 12, 8, 6 for NRV 1..4. */
static inline int hd_conv_lowp_mr(int nrv) { return nrv <= 2 ? 12 : nrv == 3 ? 8 : 6; }
#define HD_CONV_LOWP_MR_MAX 12
#define HD_CONV_LOWP_ROW_ALIGN 24      /* multiple of every MR: panels are padded to it */

void hd_conv_lowp_int8_kernel_vnni(const uint8_t *panel, size_t ldp, const int8_t *wp, size_t vstride, int64_t rq,
                                   const int32_t *comp, int nrv, int32_t *tile, int more);
void hd_conv_lowp_bf16_kernel_avx512(const uint16_t *panel, size_t ldp, const uint16_t *wp, size_t vstride,
                                     int64_t rq, int nrv, float *tile, int more);
void hd_conv_lowp_f32_kernel_avx512(const float *panel, size_t ldp, const float *wp, size_t vstride, int64_t rq,
                                    int nrv, float *tile, int more);

/* The plain (non-fused) store of N results of one output position whose channels are
 * contiguous in y: y[i] = alpha * v[i] (+ beta * y[i] when beta != 0), rounded as the
 * generic path rounds. */
void hd_conv_lowp_store_i8_avx512(int8_t *y, const int32_t *v, int64_t n, double alpha, double beta);
void hd_conv_lowp_store_f32_from_i32_avx512(float *y, const int32_t *v, int64_t n, double alpha, double beta);
/* Panel gathering: widen n bf16 values to fp32; n int8 values to uint8 x + 128. */
void hd_conv_lowp_widen_bf16_avx512(float *d, const uint16_t *s, int64_t n);
void hd_conv_lowp_bias_i8_avx512(uint8_t *d, const int8_t *s, int64_t n);
void hd_conv_lowp_store_bf16_avx512(uint16_t *y, const float *v, int64_t n, float alpha, float beta);

#endif
