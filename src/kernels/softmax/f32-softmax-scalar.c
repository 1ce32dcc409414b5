/* kernels/softmax/f32-softmax-scalar.c -- reference row and column softmax. */
#include "kernels/softmax/softmax-ukernels.h"

#include <math.h>

void hd_f32_softmax_ukernel__scalar(size_t n, const float *x, float *y, float alpha, float beta, int log_mode)
{
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += expf(x[i] - m);
    /* only the mode in use: a log per short row is a good part of its time */
    float ls = log_mode ? (float)log(s) : 0.0f, inv = log_mode ? 0.0f : (float)(1.0 / s);
    for (size_t i = 0; i < n; i++) {
        float v = log_mode ? x[i] - m - ls : expf(x[i] - m) * inv;
        y[i] = beta != 0.0f ? alpha * v + beta * y[i] : alpha * v;
    }
}

void hd_f32_softmax_ukernel_cols__scalar(size_t c, size_t cols, const float *x, size_t ldx, float *y, size_t ldy,
                                         float alpha, float beta, int log_mode)
{
    float m[HD_SM_MAX_COLS], ls[HD_SM_MAX_COLS], inv[HD_SM_MAX_COLS];
    double s[HD_SM_MAX_COLS];
    for (size_t j = 0; j < cols; j++) {
        m[j] = -INFINITY;
        s[j] = 0;
    }
    for (size_t k = 0; k < c; k++)
        for (size_t j = 0; j < cols; j++)
            m[j] = x[k * ldx + j] > m[j] ? x[k * ldx + j] : m[j];
    for (size_t k = 0; k < c; k++)
        for (size_t j = 0; j < cols; j++)
            s[j] += expf(x[k * ldx + j] - m[j]);
    for (size_t j = 0; j < cols; j++) {
        ls[j] = (float)log(s[j]);
        inv[j] = (float)(1.0 / s[j]);
    }
    for (size_t k = 0; k < c; k++)
        for (size_t j = 0; j < cols; j++) {
            float xv = x[k * ldx + j];
            float v = log_mode ? xv - m[j] - ls[j] : expf(xv - m[j]) * inv[j];
            float *o = y + k * ldy + j;
            *o = beta != 0.0f ? alpha * v + beta * *o : alpha * v;
        }
}
