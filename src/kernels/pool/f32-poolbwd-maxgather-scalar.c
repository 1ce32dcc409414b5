/* Max pooling backward by gathering, channel-contiguous layouts, portable reference (see
 * pool-ukernels.h): the rules as written. */
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

void hd_f32_pool_ukernel_argmax8__scalar(const float *const *taps, int ntaps, size_t c, int propagate, int8_t *arg)
{
    for (size_t i = 0; i < c; i++) {
        float m = -INFINITY;
        int best = -1;
        for (int t = 0; t < ntaps; t++) {
            float v = taps[t][i];
            if (m == m && ((propagate && v != v) || v > m)) {
                m = v;
                best = t;
            }
        }
        arg[i] = (int8_t)best;
    }
}

void hd_f32_pool_ukernel_maxgatherrow__scalar(float *dx, ptrdiff_t dxw, size_t w, size_t c, int nrows,
                                              const int8_t *const *arg, const float *const *g, const int32_t *ty,
                                              ptrdiff_t gw, const int32_t *col, const int32_t *ncov, int ncol,
                                              double alpha, double beta, int stream)
{
    (void)stream;
    for (size_t iw = 0; iw < w; iw++) {
        float *d = dx + (ptrdiff_t)iw * dxw;
        const int32_t *e = col + iw * (size_t)ncol * 3;
        for (size_t i = 0; i < c; i++) {
            double s = 0.0;
            for (int r = 0; r < nrows; r++)
                for (int m = 0; m < ncov[iw]; m++) {
                    const int32_t *t = e + m * 3;
                    if (arg[r][(size_t)t[0] * c + i] == ty[r] * t[2] + t[1])
                        s += (double)g[r][(ptrdiff_t)t[0] * gw + (ptrdiff_t)i];
                }
            double v = alpha * s;
            if (beta != 0.0)
                v += beta * (double)d[i];
            d[i] = (float)v;
        }
    }
}
