/*
 * kernels/bn/bn-ukernels.h -- FLOAT micro-kernels for batch normalization over one contiguous
 * row of n values (a (sample, channel) plane of a row-packed layout).
 *
 * Row kernels: sums are accumulated in double; each variant sums in its own fixed order, so a
 * variant is deterministic but variants differ in the last bits (tests compare them with a
 * tolerance).  Column kernels (channel-contiguous layouts: ROWS rows of C channels, row r at
 * x + r*C) accumulate each channel in row order, so every variant gives bitwise the scalar
 * result.  beta == 0 means the output is not read.
 */
#ifndef HD_KERNELS_BN_BN_UKERNELS_H
#define HD_KERNELS_BN_BN_UKERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name;
    /* sum of x[i] */
    double (*sum)(const float *x, size_t n);
    /* sum of (x[i] - mean)^2 */
    double (*sqdev)(const float *x, size_t n, double mean);
    /* y[i] = a * (x[i] - m) + b + beta * y[i]  (m: the mean, so that a large mean does not
     * cancel in float: x - m is exact for x near m) */
    void (*affine)(const float *x, float *y, size_t n, float m, float a, float b, float beta);
    /* *sdy += sum dy[i];  *sdyx += sum dy[i] * (x[i] - mean) */
    void (*dsums)(const float *dy, const float *x, size_t n, double mean, double *sdy, double *sdyx);
    /* dx[i] = p * dy[i] + q * (x[i] - m) + r + beta * dx[i] */
    void (*bwd)(const float *dy, const float *x, float *dx, size_t n, float m, float p, float q, float r, float beta);
    /* acc[c] += sum_r x[r][c] */
    void (*col_sum)(const float *x, size_t rows, size_t C, double *acc);
    /* acc[c] += sum_r (x[r][c] - mean[c])^2 */
    void (*col_sqdev)(const float *x, size_t rows, size_t C, const double *mean, double *acc);
    /* y[r][c] = a[c] * (x[r][c] - m[c]) + b[c] + beta * y[r][c] */
    void (*col_affine)(const float *x, float *y, size_t rows, size_t C, const float *m, const float *a, const float *b,
                       float beta);
    /* sdy[c] += sum_r dy[r][c];  sdyx[c] += sum_r dy[r][c] * (x[r][c] - mean[c]) */
    void (*col_dsums)(const float *dy, const float *x, size_t rows, size_t C, const double *mean, double *sdy,
                      double *sdyx);
    /* dx[r][c] = p[c] * dy[r][c] + q[c] * (x[r][c] - m[c]) + r[c] + beta * dx[r][c] */
    void (*col_bwd)(const float *dy, const float *x, float *dx, size_t rows, size_t C, const float *m, const float *p,
                    const float *q, const float *r, float beta);
    /* HALF and BFLOAT16 storage <-> float, n values (round to nearest even; NaN stays NaN) */
    void (*h2f)(const uint16_t *h, float *f, size_t n);
    void (*f2h)(const float *f, uint16_t *h, size_t n);
    void (*b2f)(const uint16_t *h, float *f, size_t n);
    void (*f2b)(const float *f, uint16_t *h, size_t n);
    /* One-pass statistics with a shift k (a value near the data, so the sums do not cancel):
     * *s1 += sum (x[i] - k);  *s2 += sum (x[i] - k)^2 */
    void (*ssums)(const float *x, size_t n, double k, double *s1, double *s2);
    /* s1[c] += sum_r (x[r][c] - k[c]);  s2[c] += sum_r (x[r][c] - k[c])^2, rows in order */
    void (*col_ssums)(const float *x, size_t rows, size_t C, const double *k, double *s1, double *s2);
    /* backward without saved statistics, one pass over x and dy (shift k as in ssums):
     * *s1 += sum (x - k); *s2 += sum (x - k)^2; *g += sum dy; *h += sum dy (x - k) */
    void (*dssums)(const float *dy, const float *x, size_t n, double k, double *s1, double *s2, double *g, double *h);
    /* affine and bwd again, bit for bit, writing with non-temporal (streaming) stores when
     * beta == 0: for outputs too large to stay in the cache (the scalar set: plain stores) */
    void (*affine_stream)(const float *x, float *y, size_t n, float m, float a, float b, float beta);
    void (*bwd_stream)(const float *dy, const float *x, float *dx, size_t n, float m, float p, float q, float r,
                       float beta);
    /* col_affine and col_bwd again, bit for bit, with streaming stores when beta == 0 and
     * C >= 16 (the rows as one flat run, its unaligned ends with plain stores; else plain) */
    void (*col_affine_stream)(const float *x, float *y, size_t rows, size_t C, const float *m, const float *a,
                              const float *b, float beta);
    void (*col_bwd_stream)(const float *dy, const float *x, float *dx, size_t rows, size_t C, const float *m,
                           const float *p, const float *q, const float *r, float beta);
} hd_bn_f32_kernels;

extern const hd_bn_f32_kernels hd_f32_bn_ukernels__scalar;
extern const hd_bn_f32_kernels hd_f32_bn_ukernels__avx2;
extern const hd_bn_f32_kernels hd_f32_bn_ukernels__avx512;

/* The best set for ISA (capped by what the CPU has). */
const hd_bn_f32_kernels *hd_bn_f32_select(int isa);

#endif
