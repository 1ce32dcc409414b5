/*
 * kernels/eltwise/f32-gelu-scalar.c -- GELU and its gradient in float, one element at a time
 * (the portable versions of the eltwise table's gelu and gelu_bwd; method in f32-gelu-poly.h).
 * Multiplies and adds are rounded separately (no FMA), so results may differ from the vector
 * kernels in the last bits, within the same stated bound.
 */
#include "kernels/eltwise/eltwise-ukernels.h"
#include "kernels/eltwise/f32-gelu-poly.h"

#include <stdint.h>
#include <string.h>

/* exp(y) for y <= 0 (see f32-gelu-poly.h) */
static float exp_nonpos(float y)
{
    y = y > GELU_EXP_MIN ? y : GELU_EXP_MIN;       /* also maps NaN to the clamp */
    float kf = (y * GELU_LOG2E + GELU_SHIFTER) - GELU_SHIFTER;   /* round(y / ln 2), in -126..0 */
    float r = (y - kf * GELU_LN2_HI) - kf * GELU_LN2_LO;
    float p = 1.0f / 5040;
    p = p * r + 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    uint32_t sb = (uint32_t)((int32_t)kf + 127) << 23;       /* 2^k: a normal float for k >= -126 */
    float scale;
    memcpy(&scale, &sb, sizeof scale);
    return p * scale;
}

/* Phi(z) and exp(-z^2/2); SERIES: |z| < 1 from the series (for the gradient) */
static float phi(float z, float *e_out, int series)
{
    float a = z < 0 ? -z : z;
    float t = 1.0f / (1.0f + GELU_P * a);
    float s = t - GELU_TC;
    float h = GELU_H9;
    h = h * s + GELU_H8;
    h = h * s + GELU_H7;
    h = h * s + GELU_H6;
    h = h * s + GELU_H5;
    h = h * s + GELU_H4;
    h = h * s + GELU_H3;
    h = h * s + GELU_H2;
    h = h * s + GELU_H1;
    h = h * s + GELU_H0;
    float e = exp_nonpos(-0.5f * a * a);
    float p = e * t * h;
    *e_out = e;
    if (series && a < GELU_SMALL) {
        float w = z * z, r = GELU_S8;
        r = r * w + GELU_S7;
        r = r * w + GELU_S6;
        r = r * w + GELU_S5;
        r = r * w + GELU_S4;
        r = r * w + GELU_S3;
        r = r * w + GELU_S2;
        r = r * w + GELU_S1;
        r = r * w + GELU_S0;
        return 0.5f + z * r;
    }
    return z >= 0 ? 1.0f - p : p;
}

void hd_f32_gelu_ukernel__scalar(size_t n, const float *x, float *y, float alpha)
{
    for (size_t i = 0; i < n; i++) {
        float z = alpha * x[i], e;
        y[i] = z * phi(z, &e, 0);
    }
}

void hd_f32_gelu_bwd_ukernel__scalar(size_t n, const float *x, const float *dy, float *dx, float alpha_x,
                                     float alpha_dy)
{
    for (size_t i = 0; i < n; i++) {
        float z = alpha_x * x[i], e;
        float c = phi(z, &e, 1);
        float zc = z > GELU_PDF_CLAMP ? GELU_PDF_CLAMP : z < -GELU_PDF_CLAMP ? -GELU_PDF_CLAMP : z;   /* NaN stays */
        float g = c + zc * (GELU_INV_SQRT_2PI * e);
        dx[i] = (alpha_dy * dy[i]) * g;
    }
}
