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
