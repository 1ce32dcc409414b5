/* Average pooling backward by gathering, portable reference (see pool-ukernels.h): the rule
 * as written. */
#include "kernels/pool/pool-ukernels.h"

#include <stddef.h>

void hd_f32_pool_ukernel_gatherrow__scalar(float *dx, size_t w, int pw, int sw, int nterms, const double *const *src,
                                           const int32_t *k, double alpha, double beta)
{
    for (size_t iw = 0; iw < w; iw++) {
        double s = 0.0;
        for (int t = 0; t < nterms; t++) {
            ptrdiff_t q = (ptrdiff_t)iw + pw - k[t];
            if (q % sw == 0)
                s += src[t][q / sw];
        }
        double r = alpha * s;
        if (beta != 0.0)
            r += beta * (double)dx[iw];
        dx[iw] = (float)r;
    }
}

void hd_f32_pool_ukernel_gatherpix__scalar(float *dx, size_t c, int nterms, const double *const *src, double alpha,
                                           double beta, int stream)
{
    (void)stream;
    for (size_t i = 0; i < c; i++) {
        double s = 0.0;
        for (int t = 0; t < nterms; t++)
            s += src[t][i];
        double r = alpha * s;
        if (beta != 0.0)
            r += beta * (double)dx[i];
        dx[i] = (float)r;
    }
}
