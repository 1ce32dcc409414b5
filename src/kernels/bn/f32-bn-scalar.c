/* Batch-normalization row kernels, portable reference (see bn-kernels.h). */
#include "kernels/bn/bn-kernels.h"
#include "core/cpu.h"

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

static void affine_s(const float *x, float *y, size_t n, float a, float b, float beta)
{
    if (beta == 0.0f) {
        for (size_t i = 0; i < n; i++)
            y[i] = a * x[i] + b;
    } else {
        for (size_t i = 0; i < n; i++)
            y[i] = a * x[i] + b + beta * y[i];
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

static void bwd_s(const float *dy, const float *x, float *dx, size_t n, float p, float q, float r, float beta)
{
    if (beta == 0.0f) {
        for (size_t i = 0; i < n; i++)
            dx[i] = p * dy[i] + q * x[i] + r;
    } else {
        for (size_t i = 0; i < n; i++)
            dx[i] = p * dy[i] + q * x[i] + r + beta * dx[i];
    }
}

const hd_bn_f32_kernels hd_bn_f32__scalar = {"scalar", sum_s, sqdev_s, affine_s, dsums_s, bwd_s};

const hd_bn_f32_kernels *hd_bn_f32_select(int isa)
{
    if (isa > (int)hd_cpu_isa())
        isa = (int)hd_cpu_isa();
    if (isa >= HD_ISA_AVX512)
        return &hd_bn_f32__avx512;
    if (isa >= HD_ISA_AVX2)
        return &hd_bn_f32__avx2;
    return &hd_bn_f32__scalar;
}
