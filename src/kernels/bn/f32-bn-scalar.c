/* Batch-normalization row kernels, portable reference (see bn-ukernels.h). */
#include "kernels/bn/bn-ukernels.h"
#include "core/convert.h"

static double sum_s(const float *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

static double sqdev_s(const float *x, size_t n, double mean)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)x[i] - mean;
        s += d * d;
    }
    return s;
}

static void ssums_s(const float *x, size_t n, double k, double *s1, double *s2)
{
    double a = 0.0, b = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)x[i] - k;
        a += d;
        b += d * d;
    }
    *s1 += a;
    *s2 += b;
}

static void dssums_s(const float *dy, const float *x, size_t n, double k, double *s1, double *s2, double *g, double *h)
{
    double a = 0.0, b = 0.0, c = 0.0, d = 0.0;
    for (size_t i = 0; i < n; i++) {
        double v = (double)x[i] - k, w = dy[i];
        a += v;
        b += v * v;
        c += w;
        d += w * v;
    }
    *s1 += a;
    *s2 += b;
    *g += c;
    *h += d;
}

static void col_ssums_s(const float *x, size_t rows, size_t C, const double *k, double *s1, double *s2)
{
    for (size_t r = 0; r < rows; r++, x += C)
        for (size_t c = 0; c < C; c++) {
            double d = (double)x[c] - k[c];
            s1[c] += d;
            s2[c] += d * d;
        }
}

static void affine_s(const float *x, float *y, size_t n, float m, float a, float b, float beta)
{
    if (beta == 0.0f) {
        for (size_t i = 0; i < n; i++)
            y[i] = a * (x[i] - m) + b;
    } else {
        for (size_t i = 0; i < n; i++)
            y[i] = a * (x[i] - m) + b + beta * y[i];
    }
}

static void dsums_s(const float *dy, const float *x, size_t n, double mean, double *sdy, double *sdyx)
{
    double s = 0.0, t = 0.0;
    for (size_t i = 0; i < n; i++) {
        s += dy[i];
        t += (double)dy[i] * ((double)x[i] - mean);
    }
    *sdy += s;
    *sdyx += t;
}

static void bwd_s(const float *dy, const float *x, float *dx, size_t n, float m, float p, float q, float r, float beta)
{
    if (beta == 0.0f) {
        for (size_t i = 0; i < n; i++)
            dx[i] = p * dy[i] + q * (x[i] - m) + r;
    } else {
        for (size_t i = 0; i < n; i++)
            dx[i] = p * dy[i] + q * (x[i] - m) + r + beta * dx[i];
    }
}

static void col_sum_s(const float *x, size_t rows, size_t C, double *acc)
{
    for (size_t r = 0; r < rows; r++, x += C)
        for (size_t c = 0; c < C; c++)
            acc[c] += x[c];
}

static void col_sqdev_s(const float *x, size_t rows, size_t C, const double *mean, double *acc)
{
    for (size_t r = 0; r < rows; r++, x += C)
        for (size_t c = 0; c < C; c++) {
            double d = (double)x[c] - mean[c];
            acc[c] += d * d;
        }
}

static void col_affine_s(const float *x, float *y, size_t rows, size_t C, const float *m, const float *a, const float *b,
                         float beta)
{
    for (size_t r = 0; r < rows; r++, x += C, y += C)
        for (size_t c = 0; c < C; c++)
            y[c] = beta == 0.0f ? a[c] * (x[c] - m[c]) + b[c] : a[c] * (x[c] - m[c]) + b[c] + beta * y[c];
}

static void col_dsums_s(const float *dy, const float *x, size_t rows, size_t C, const double *mean, double *sdy,
                        double *sdyx)
{
    for (size_t r = 0; r < rows; r++, x += C, dy += C)
        for (size_t c = 0; c < C; c++) {
            double g = dy[c];
            sdy[c] += g;
            sdyx[c] += g * ((double)x[c] - mean[c]);
        }
}

static void col_bwd_s(const float *dy, const float *x, float *dx, size_t rows, size_t C, const float *m, const float *p,
                      const float *q, const float *r, float beta)
{
    for (size_t i = 0; i < rows; i++, x += C, dy += C, dx += C)
        for (size_t c = 0; c < C; c++)
            dx[c] = beta == 0.0f ? p[c] * dy[c] + q[c] * (x[c] - m[c]) + r[c]
                                 : p[c] * dy[c] + q[c] * (x[c] - m[c]) + r[c] + beta * dx[c];
}

static void h2f_s(const uint16_t *h, float *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        f[i] = hd_f16_to_f32(h[i]);
}

static void f2h_s(const float *f, uint16_t *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h[i] = hd_f32_to_f16(f[i]);
}

static void b2f_s(const uint16_t *h, float *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        f[i] = hd_bf16_to_f32(h[i]);
}

static void f2b_s(const float *f, uint16_t *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h[i] = hd_f32_to_bf16(f[i]);
}

const hd_bn_f32_kernels hd_f32_bn_ukernels__scalar = {"scalar", sum_s, sqdev_s, affine_s, dsums_s, bwd_s,
                                             col_sum_s, col_sqdev_s, col_affine_s, col_dsums_s, col_bwd_s,
                                             h2f_s, f2h_s, b2f_s, f2b_s, ssums_s, col_ssums_s,
                                             dssums_s, affine_s, bwd_s, col_affine_s, col_bwd_s};
