/*
 * kernels/transpose/transpose-ukernels.h -- batched float transposes with blending, the core of
 * NCHW <-> NHWC conversion: for each of BATCH matrices, out[j][i] = alpha * in[i][j] +
 * beta * out[j][i], in being ROWS x COLS and out COLS x ROWS, both packed.  out is not
 * read when beta == 0.  Work is cut into fixed tiles (deterministic: no reductions).
 */
#ifndef HD_KERNELS_TRANSPOSE_TRANSPOSE_UKERNELS_H
#define HD_KERNELS_TRANSPOSE_TRANSPOSE_UKERNELS_H

#include <stddef.h>
#include <stdint.h>

void hd_f32_transpose(int isa, int nthreads, int64_t batch, int64_t rows, int64_t cols, const void *in, void *out,
                      float alpha, float beta);

/* One tile: R x C block at in (leading dim ldi) into out (leading dim ldo). */
typedef void (*hd_f32_tile_fn)(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo, float alpha,
                               float beta);
void hd_f32_transpose_ukernel__scalar(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo,
                                      float alpha, float beta);
void hd_f32_transpose_ukernel__avx2(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo,
                                    float alpha, float beta);
void hd_f32_transpose_ukernel__avx512(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo,
                                      float alpha, float beta);
/* Same with streaming (non-temporal) stores for whole destination rows of 16 floats that
 * start 64-byte aligned; beta is taken as 0 (the destination is not read). */
void hd_f32_transpose_ukernel_nt__avx512(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo,
                                         float alpha, float beta);

/* hd_f32_transpose streams outputs at least this large (beta 0, AVX-512) */
#define HD_TRANSPOSE_STREAM_BYTES ((int64_t)16 << 20)

/* The best tile for ISA (an hd_isa_t, e.g. a handle's), capped by what the CPU allows.  Every
 * variant gives bitwise the scalar result (but for which payload survives when both x and y
 * hold NaNs); alpha == 1 with beta == 0 is a pure copy. */
hd_f32_tile_fn hd_f32_tile_select(int isa);

#endif
