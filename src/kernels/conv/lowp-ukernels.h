/*
 * kernels/conv/lowp-ukernels.h -- the AVX-512 micro-kernels of the low-precision forward
 * convolution (conv/solvers/conv_lowp.h): INT8 (qs8: int8 weights, x shifted to uint8) with
 * AVX512_VNNI, BFLOAT16 with AVX512_BF16 or widened to fp32, and the panel and store helpers.
 */
#ifndef HD_KERNELS_CONV_LOWP_UKERNELS_H
#define HD_KERNELS_CONV_LOWP_UKERNELS_H

#include <stddef.h>
#include <stdint.h>

/*
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

void hd_qs8_conv_ukernel__avx512vnni(const uint8_t *panel, size_t ldp, const int8_t *wp, size_t vstride, int64_t rq,
                                     const int32_t *comp, int nrv, int32_t *tile, int more);
void hd_bf16_conv_ukernel__avx512bf16(const uint16_t *panel, size_t ldp, const uint16_t *wp, size_t vstride,
                                      int64_t rq, int nrv, float *tile, int more);
void hd_f32_conv_ukernel__avx512(const float *panel, size_t ldp, const float *wp, size_t vstride, int64_t rq,
                                 int nrv, float *tile, int more);

/* The plain (non-fused) store of N results of one output position whose channels are
 * contiguous in y: y[i] = alpha * v[i] (+ beta * y[i] when beta != 0), rounded as the
 * generic path rounds. */
void hd_qs8_conv_ukernel_store_qs8__avx512(int8_t *y, const int32_t *v, int64_t n, double alpha, double beta);
void hd_qs8_conv_ukernel_store_f32__avx512(float *y, const int32_t *v, int64_t n, double alpha, double beta);
/* Panel gathering: widen n bf16 values to fp32; n int8 values to uint8 x + 128. */
void hd_bf16_conv_ukernel_widen__avx512(float *d, const uint16_t *s, int64_t n);
void hd_qs8_conv_ukernel_bias__avx512(uint8_t *d, const int8_t *s, int64_t n);
void hd_bf16_conv_ukernel_store__avx512(uint16_t *y, const float *v, int64_t n, float alpha, float beta);

#endif
