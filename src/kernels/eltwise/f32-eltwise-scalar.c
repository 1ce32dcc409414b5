/* kernels/eltwise/f32-eltwise-scalar.c -- portable reference versions of eltwise-ukernels.h. */
#include "kernels/eltwise/eltwise-ukernels.h"

#include <math.h>
#include <string.h>
#include <stdint.h>

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

/* The AVX-512 sigmoid and tanh step by step in scalar float (fmaf is correctly rounded, like
 * the vector FMA; rintf rounds to nearest even, like the vector round), so every ISA gives the
 * same bits: see f32-eltwise-avx512.c for the method. */
static float exp_neg(float r)
{
    if (r < -87.0f)
        return 0.0f;
    float k = rintf(r * 1.44269504f);
    float t = fmaf(-k, 0.693359375f, r);
    t = fmaf(-k, -2.12194440e-4f, t);
    float p = 1.0f / 720;
    p = fmaf(p, t, 1.0f / 120);
    p = fmaf(p, t, 1.0f / 24);
    p = fmaf(p, t, 1.0f / 6);
    p = fmaf(p, t, 0.5f);
    p = fmaf(p, t, 1.0f);
    p = fmaf(p, t, 1.0f);
    uint32_t bits = (uint32_t)((int32_t)k + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

static float act1(float x, int tanh_mode)
{
    if (x != x)
        return x;                         /* NaN: x itself, as the vector kernel selects it */
    float ax = fabsf(x);
    if (tanh_mode) {
        float e = exp_neg(-2.0f * ax);
        float v = (1.0f - e) / (1.0f + e);
        uint32_t vb, xb;
        memcpy(&vb, &v, sizeof vb);
        memcpy(&xb, &x, sizeof xb);
        vb |= xb & 0x80000000u;
        memcpy(&v, &vb, sizeof v);
        return v;
    }
    float e = exp_neg(0.0f - ax);
    return (x < 0.0f ? e : 1.0f) / (1.0f + e);
}

static void act(size_t n, const float *x, float *y, float alpha, float beta, int tanh_mode)
{
    for (size_t i = 0; i < n; i++) {
        float v = alpha * act1(x[i], tanh_mode);
        y[i] = beta != 0.0f ? v + beta * y[i] : v;
    }
}

static void sigmoid(size_t n, const float *x, float *y, float alpha, float beta) { act(n, x, y, alpha, beta, 0); }
static void tanh_(size_t n, const float *x, float *y, float alpha, float beta) { act(n, x, y, alpha, beta, 1); }

static void clip(size_t n, const float *x, float *y, float alpha, float beta, float coef)
{
    for (size_t i = 0; i < n; i++) {
        float m = x[i] > 0.0f ? x[i] : 0.0f;          /* NaN compares false: 0 */
        float v = alpha * (m < coef ? m : coef);
        y[i] = beta != 0.0f ? v + beta * y[i] : v;
    }
}

static float grad(int mode, float y, float dy, float x, float coef)
{
    switch (mode) {
    case HD_ELT_BWD_RELU: return x > 0.0f ? dy : 0.0f;
    case HD_ELT_BWD_CLIP: return x > 0.0f && x < coef ? dy : 0.0f;
    case HD_ELT_BWD_SIGMOID: return (dy * y) * (1.0f - y);
    default: return dy * (1.0f - y * y);
    }
}

static void act_bwd(size_t n, int mode, const float *y, const float *dy, const float *x, float *dx, float alpha,
                    float beta, float coef)
{
    for (size_t i = 0; i < n; i++) {
        int usex = mode == HD_ELT_BWD_RELU || mode == HD_ELT_BWD_CLIP;
        float v = alpha * grad(mode, usex ? 0.0f : y[i], dy[i], usex ? x[i] : 0.0f, coef);
        dx[i] = beta != 0.0f ? v + beta * dx[i] : v;
    }
}

static void fill(size_t n, float v, float *y, float beta)
{
    for (size_t i = 0; i < n; i++)
        y[i] = beta != 0.0f ? v + beta * y[i] : v;
}

const hd_eltwise_table hd_f32_eltwise_ukernels__scalar = { "scalar", relu, axpby, add3, mul3, relu, add3,
                                                           sigmoid, tanh_, clip, act_bwd, fill,
    hd_f32_gelu_ukernel__scalar, hd_f32_gelu_bwd_ukernel__scalar };
