/*
 * kernels/bn/bn-kernels.h -- FLOAT micro-kernels for batch normalization over one contiguous
 * row of n values (a (sample, channel) plane of a row-packed layout).
 *
 * Sums are accumulated in double; each variant sums in its own fixed order, so a variant is
 * deterministic but variants differ in the last bits (tests compare them with a tolerance).
 * beta == 0 means the output row is not read.
 */
#ifndef HD_KERNELS_BN_KERNELS_H
#define HD_KERNELS_BN_KERNELS_H

#include <stddef.h>

typedef struct {
    const char *name;
    /* sum of x[i] */
    double (*sum)(const float *x, size_t n);
    /* sum of (x[i] - mean)^2 */
    double (*sqdev)(const float *x, size_t n, double mean);
    /* y[i] = a * x[i] + b + beta * y[i] */
    void (*affine)(const float *x, float *y, size_t n, float a, float b, float beta);
    /* *sdy += sum dy[i];  *sdyx += sum dy[i] * (x[i] - mean) */
    void (*dsums)(const float *dy, const float *x, size_t n, double mean, double *sdy, double *sdyx);
    /* dx[i] = p * dy[i] + q * x[i] + r + beta * dx[i] */
    void (*bwd)(const float *dy, const float *x, float *dx, size_t n, float p, float q, float r, float beta);
} hd_bn_f32_kernels;

extern const hd_bn_f32_kernels hd_bn_f32__scalar;
extern const hd_bn_f32_kernels hd_bn_f32__avx2;
extern const hd_bn_f32_kernels hd_bn_f32__avx512;

/* The best set for ISA (capped by what the CPU has). */
const hd_bn_f32_kernels *hd_bn_f32_select(int isa);

#endif
