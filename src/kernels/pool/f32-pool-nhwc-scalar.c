/* Pooling over channel-contiguous layouts, portable reference (see pool-ukernels.h). */
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

/* The running maximum's step, as in the row kernels: NaNs are selected, never computed. */
static inline float step(float a, float v, int propagate)
{
    if (propagate) {
        if (a != a)
            return a;
        if (v != v)
            return v;
    }
    return v > a ? v : a;
}

void hd_f32_pool_ukernel_nhwc__scalar(float *y, size_t ystride, size_t ow, const float *const *taps, int ntaps,
                                      size_t c, int op, const float *div, int stream)
{
    (void)stream;
    for (size_t j = 0; j < ow; j++, y += ystride, taps += ntaps) {
        if (op == HD_POOL_NHWC_AVG) {
            for (size_t i = 0; i < c; i++) {
                float s = taps[0][i];
                for (int t = 1; t < ntaps; t++)
                    s += taps[t][i];
                y[i] = s / div[j];
            }
            continue;
        }
        int prop = op == HD_POOL_NHWC_MAX_PROPAGATE;
        for (size_t i = 0; i < c; i++) {
            float a = -INFINITY;
            for (int t = 0; t < ntaps; t++)
                a = step(a, taps[t][i], prop);
            y[i] = a;
        }
    }
}

void hd_f32_pool_ukernel_argmax__scalar(const float *const *taps, int ntaps, size_t c, int propagate, int32_t *arg)
{
    for (size_t i = 0; i < c; i++) {
        float m = -INFINITY;
        int32_t best = -1;
        for (int t = 0; t < ntaps; t++) {
            float v = taps[t][i];
            if (m == m && ((propagate && v != v) || v > m)) {
                m = v;
                best = t;
            }
        }
        arg[i] = best;
    }
}

void hd_f32_pool_ukernel_flush__scalar(float *dx, double *acc, size_t n, double alpha, double beta)
{
    for (size_t i = 0; i < n; i++) {
        double r = alpha * acc[i];
        if (beta != 0.0)
            r += beta * (double)dx[i];
        dx[i] = (float)r;
        acc[i] = 0.0;
    }
}
