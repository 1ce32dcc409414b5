/* kernels/softmax/f32-softmax-bwd-scalar.c -- softmax backward over packed groups, reference
 * (see softmax-ukernels.h). */
#include "kernels/softmax/softmax-ukernels.h"

void hd_f32_softmax_bwd_ukernel_rows__scalar(size_t n, size_t groups, const float *y, const float *dy, float *dx,
                                             float alpha, float beta)
{
    for (size_t g = 0; g < groups; g++, y += n, dy += n, dx += n) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
            s += (double)y[i] * (double)dy[i];
        float sf = (float)s;
        for (size_t i = 0; i < n; i++) {
            float v = y[i] * (dy[i] - sf);
            dx[i] = beta != 0.0f ? alpha * v + beta * dx[i] : alpha * v;
        }
    }
}

void hd_f32_softmax_bwd_ukernel_cols__scalar(size_t c, size_t cols, const float *y, size_t ldy, const float *dy,
                                             size_t lddy, float *dx, size_t lddx, float alpha, float beta)
{
    double sum[HD_SM_MAX_COLS];
    float sf[HD_SM_MAX_COLS];
    for (size_t j = 0; j < cols; j++)
        sum[j] = 0.0;
    for (size_t k = 0; k < c; k++)
        for (size_t j = 0; j < cols; j++)
            sum[j] += (double)y[k * ldy + j] * (double)dy[k * lddy + j];
    for (size_t j = 0; j < cols; j++)
        sf[j] = (float)sum[j];
    for (size_t k = 0; k < c; k++) {
        const float *yr = y + k * ldy, *dr = dy + k * lddy;
        float *xr = dx + k * lddx;
        for (size_t j = 0; j < cols; j++) {
            float v = alpha * (yr[j] * (dr[j] - sf[j]));
            xr[j] = beta != 0.0f ? v + beta * xr[j] : v;
        }
    }
}
