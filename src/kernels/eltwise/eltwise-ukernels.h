/*
 * kernels/eltwise/eltwise-ukernels.h -- float32 elementwise micro-kernels on contiguous arrays.
 *
 * Each kernel computes out = alpha * f(inputs) + beta * out and never reads OUT when
 * beta == 0 (it may hold NaN).  OUT may alias an input exactly (in-place).  One table per
 * ISA; hd_eltwise_kernels(isa) returns the best table not above ISA, so callers pass the
 * handle's ISA and tests force each one through HOSTDNN_MAX_ISA.  The scalar table is the
 * reference the vector ones are tested against.
 */
#ifndef HD_KERNELS_ELTWISE_ELTWISE_UKERNELS_H
#define HD_KERNELS_ELTWISE_ELTWISE_UKERNELS_H

#include <stddef.h>

/* y = alpha * max(x, 0) + beta * y; a NaN x gives 0 (CUDNN_NOT_PROPAGATE_NAN) */
typedef void (*hd_f32_relu_fn)(size_t n, const float *x, float *y, float alpha, float beta);
/* y = alpha * x + beta * y */
typedef void (*hd_f32_axpby_fn)(size_t n, const float *x, float *y, float alpha, float beta);
/* c = alpha1 * a + alpha2 * b + beta * c */
typedef void (*hd_f32_add3_fn)(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2,
                               float beta);
/* c = (alpha1 * a) * (alpha2 * b) + beta * c */
typedef void (*hd_f32_mul3_fn)(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2,
                               float beta);

typedef void (*hd_f32_clip_fn)(size_t n, const float *x, float *y, float alpha, float beta, float coef);
typedef void (*hd_f32_act_bwd_fn)(size_t n, int mode, const float *y, const float *dy, const float *x, float *dx,
                                  float alpha, float beta, float coef);
typedef void (*hd_f32_fill_fn)(size_t n, float v, float *y, float beta);
/* y = GELU(alpha * x) = z Phi(z) with z = alpha * x, Phi the standard normal distribution (the
 * erf form), within 1e-7 (1 + |z|) of the exact value (f32-gelu-poly.h).  Y may alias X. */
typedef void (*hd_f32_gelu_fn)(size_t n, const float *x, float *y, float alpha);
/* dx = (alpha_dy * dy) * GELU'(z), z = alpha_x * x, GELU'(z) = Phi(z) + z phi(z), within the
 * 1.5e-7 (1 + |z|) per unit of dy.  DX may alias DY or X. */
typedef void (*hd_f32_gelu_bwd_fn)(size_t n, const float *x, const float *dy, float *dx, float alpha_x,
                                   float alpha_dy);

typedef struct {
    const char *name;
    hd_f32_relu_fn relu;
    hd_f32_axpby_fn axpby;
    hd_f32_add3_fn add3;
    hd_f32_mul3_fn mul3;
    /* relu and add3 again, bit for bit, but when beta == 0 the output is written with
     * non-temporal (streaming) stores: no read-for-ownership of lines that are overwritten
     * whole, and the output does not evict the cache.  For outputs too large to stay in the
     * cache anyway (hd_eltwise_stream_min_bytes); the scalar table has none (plain stores). */
    hd_f32_relu_fn relu_stream;
    hd_f32_add3_fn add3_stream;
    /* y = alpha * f(x) + beta * y for f = sigmoid 1 / (1 + exp(-x)) and tanh, from one exp
     * polynomial (a few ulp; tanh within about 1e-7 absolute near 0), the same bits on every
     * ISA (the scalar version replays the vector steps; AVX2 uses it).  NaN gives NaN, +-inf
     * the limits. */
    hd_f32_relu_fn sigmoid;
    hd_f32_relu_fn tanh;
    /* y = alpha * min(max(x, 0), coef) + beta * y, coef > 0; a NaN x gives 0 */
    hd_f32_clip_fn clip;
    /* dx = alpha * g + beta * dx, g the activation gradient of MODE (hd_eltwise_bwd_mode):
     * RELU (x > 0 ? dy : 0), CLIP (0 < x < coef ? dy : 0; NaN x: 0 for both), SIGMOID
     * (dy * y) * (1 - y), TANH dy * (1 - y * y); y or x is not read where the mode does not
     * use it.  Same float operations in that order on every ISA: the same bits. */
    hd_f32_act_bwd_fn act_bwd;
    /* y = v + beta * y (a broadcast value, e.g. one channel's bias) */
    hd_f32_fill_fn fill;
    hd_f32_gelu_fn gelu;
    hd_f32_gelu_bwd_fn gelu_bwd;
} hd_eltwise_table;

/* A bias over channel-contiguous rows (cudnnAddTensor from NHWC): for r < rows, i < ch,
 *   c[r * ch + i] = alpha * a[i] + beta * c[r * ch + i]    (c not read when beta == 0)
 * bit for bit the table's axpby(ch, a, c + r * ch, alpha, beta) row after row, in one call
 * (rows of 64 channels are too short to pay a call each); the vector variants keep alpha * a
 * in registers when ch <= 64. */
typedef void (*hd_f32_biasrows_fn)(size_t rows, size_t ch, const float *a, float *c, float alpha, float beta);
void hd_f32_biasrows_ukernel__scalar(size_t rows, size_t ch, const float *a, float *c, float alpha, float beta);
void hd_f32_biasrows_ukernel__avx2(size_t rows, size_t ch, const float *a, float *c, float alpha, float beta);
void hd_f32_biasrows_ukernel__avx512(size_t rows, size_t ch, const float *a, float *c, float alpha, float beta);
hd_f32_biasrows_fn hd_f32_biasrows_select(int isa);

enum { HD_ELT_BWD_RELU, HD_ELT_BWD_CLIP, HD_ELT_BWD_SIGMOID, HD_ELT_BWD_TANH };

extern const hd_eltwise_table hd_f32_eltwise_ukernels__scalar;
extern const hd_eltwise_table hd_f32_eltwise_ukernels__avx2;
extern const hd_eltwise_table hd_f32_eltwise_ukernels__avx512;

/* The GELU kernels on their own (f32-gelu-*.c), for the tables and the per-kernel tests. */
void hd_f32_gelu_ukernel__scalar(size_t n, const float *x, float *y, float alpha);
void hd_f32_gelu_ukernel__avx2(size_t n, const float *x, float *y, float alpha);
void hd_f32_gelu_ukernel__avx512(size_t n, const float *x, float *y, float alpha);
void hd_f32_gelu_bwd_ukernel__scalar(size_t n, const float *x, const float *dy, float *dx, float alpha_x,
                                     float alpha_dy);
void hd_f32_gelu_bwd_ukernel__avx2(size_t n, const float *x, const float *dy, float *dx, float alpha_x,
                                   float alpha_dy);
void hd_f32_gelu_bwd_ukernel__avx512(size_t n, const float *x, const float *dy, float *dx, float alpha_x,
                                     float alpha_dy);

/* The table for ISA (an hd_isa_t), never above what the CPU allows. */
const hd_eltwise_table *hd_eltwise_kernels(int isa);

/* The bytes an elementwise call must touch (inputs read + output written) before the
 * streaming kernels pay: half the last-level cache (what the output would have to share it
 * with), or HOSTDNN_STREAM_MIN_BYTES when set (tests use 0 to run them on small tensors).
 * Read once per process. */
size_t hd_eltwise_stream_min_bytes(void);

#endif
