/*
 * kernels/conv/bwdf-ukernels.h -- the copy, transpose and store micro-kernels of the fp32
 * backward filter on the GEMM micro-kernels (conv/solvers/conv_bwdf.h): the strided runs its
 * gathers copy, the register transposes of its panels, and the store of the summed tiles into
 * dW.  Pure data movement but for the store's blend, so every ISA gives the same bits.
 */
#ifndef HD_KERNELS_CONV_BWDF_UKERNELS_H
#define HD_KERNELS_CONV_BWDF_UKERNELS_H

#include <stdint.h>

/* COUNT runs of LEN floats: run o from src + o * sstride to dst + o * dstride (the gathers'
 * inner loop; the ISA versions are chosen at run time). */
void hd_f32_bwdf_ukernel_runs__avx512(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                                      int64_t count);
void hd_f32_bwdf_ukernel_runs__avx2(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                                    int64_t count);

/* out[j * ldo + i] = in[i * ldi + j] for i < rows, j < cols (16 x 16 register blocks). */
void hd_f32_bwdf_ukernel_transpose__avx512(int64_t rows, int64_t cols, const float *in, int64_t ldi, float *out,
                                           int64_t ldo);

/* out[j * ldo + i] = in[i * ldi + 2 * j] for i < rows, j < cols: the even columns of the rows
 * (a 1x1 stride-2 layer's x rows), deinterleaved in registers (two loads, one two-source
 * permute per 16 columns) on the way into the 16 x 16 transposes.  Reads stay within
 * in[i * ldi + 2 * (cols - 1)]: the loads past it are masked. */
void hd_f32_bwdf_ukernel_transpose_s2__avx512(int64_t rows, int64_t cols, const float *in, int64_t ldi, float *out,
                                              int64_t ldo);

/* Store of a block of sums into dW: for e < ne and k < nk,
 *     dw[k * ldw + e] = alpha * (rows[e][k] + rows[e][k + plane] + ... (nchunk terms, in order))
 *                       (+ beta * dw[k * ldw + e] unless beta == 0: dw is then not read),
 * the products rounded separately.  ne, nk <= 16 (AVX-512) or 8 (AVX2). */
void hd_f32_bwdf_ukernel_store__avx512(const float *const *rows, int64_t ne, int64_t nk, int64_t plane, int64_t nchunk,
                                       float *dw, int64_t ldw, float alpha, float beta);
void hd_f32_bwdf_ukernel_store__avx2(const float *const *rows, int64_t ne, int64_t nk, int64_t plane, int64_t nchunk,
                                     float *dw, int64_t ldw, float alpha, float beta);

/* The dot tiles, for a backward filter whose x and dy rows are position-contiguous (a 1x1,
 * unit-stride, unpadded NCHW layer): for i < mk <= 4 and j < mc <= 6,
 *     dw[i * ldw + j] = alpha * S(i, j)  (+ beta * dw[i * ldw + j] unless beta == 0: dw is then not read),
 * the two products rounded separately, where S(i, j) sums dy[i * ldy + q] * x[j * ldx + q] over
 * q < len in this order: 16 lane sums, lane l taking q = l, l + 16, l + 32, ... (one fused
 * multiply-add each; positions past len add +0), then lanes l and l + 8 added, then l and
 * l + 4, l and l + 2, l and l + 1.  Every version gives the same bits.  Nothing past a row's
 * len floats is read. */
void hd_f32_bwdf_ukernel_dot4x6__avx512(int64_t mk, int64_t mc, int64_t len, const float *dy, int64_t ldy,
                                        const float *x, int64_t ldx, float *dw, int64_t ldw, float alpha, float beta);
void hd_f32_bwdf_ukernel_dot4x6__avx2(int64_t mk, int64_t mc, int64_t len, const float *dy, int64_t ldy,
                                      const float *x, int64_t ldx, float *dw, int64_t ldw, float alpha, float beta);
void hd_f32_bwdf_ukernel_dot4x6__scalar(int64_t mk, int64_t mc, int64_t len, const float *dy, int64_t ldy,
                                        const float *x, int64_t ldx, float *dw, int64_t ldw, float alpha, float beta);

#endif
