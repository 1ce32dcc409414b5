/* kernels/eltwise/f32-eltwise-scalar.c -- portable reference versions of eltwise-ukernels.h. */
#include "kernels/eltwise/eltwise-ukernels.h"

static void relu(size_t n, const float *x, float *y, float alpha, float beta)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i] > 0.0f ? x[i] : 0.0f;   /* NaN compares false: 0 */
        y[i] = beta != 0.0f ? alpha * v + beta * y[i] : alpha * v;
    }
}

static void axpby(size_t n, const float *x, float *y, float alpha, float beta)
{
    for (size_t i = 0; i < n; i++)
        y[i] = beta != 0.0f ? alpha * x[i] + beta * y[i] : alpha * x[i];
}

static void add3(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2, float beta)
{
    for (size_t i = 0; i < n; i++) {
        float v = alpha1 * a[i] + alpha2 * b[i];
        c[i] = beta != 0.0f ? v + beta * c[i] : v;
    }
}

static void mul3(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2, float beta)
{
    for (size_t i = 0; i < n; i++) {
        float v = (alpha1 * a[i]) * (alpha2 * b[i]);
        c[i] = beta != 0.0f ? v + beta * c[i] : v;
    }
}

const hd_eltwise_table hd_f32_eltwise_ukernels__scalar = { "scalar", relu, axpby, add3, mul3, relu, add3,
    hd_f32_gelu_ukernel__scalar, hd_f32_gelu_bwd_ukernel__scalar };
