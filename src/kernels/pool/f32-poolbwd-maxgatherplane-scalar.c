/* Max pooling backward by gathering, row-contiguous layouts: portable reference (see
 * pool-ukernels.h). */
#include "kernels/pool/pool-ukernels.h"

void hd_f32_pool_ukernel_maxgatherplane__scalar(float *dx, size_t w, int pw, int sw, int kw, size_t ow, int nrows,
                                                const int32_t *const *arg, const float *const *g, const int32_t *ty,
                                                double alpha, double beta)
{
    for (size_t iw = 0; iw < w; iw++) {
        int64_t q = (int64_t)iw + pw;               /* the column in padded coordinates */
        /* the outputs j whose windows hold q: j * sw <= q < j * sw + kw */
        int64_t jlo = q - kw + 1 <= 0 ? 0 : (q - kw + sw) / sw;
        int64_t jhi = q / sw;
        if (jhi > (int64_t)ow - 1)
            jhi = (int64_t)ow - 1;
        double s = 0.0;
        for (int r = 0; r < nrows; r++)
            for (int64_t j = jlo; j <= jhi; j++) {
                int64_t k = q - j * sw;
                if (arg[r][j] == (int64_t)ty[r] * kw + k + j * sw)
                    s += (double)g[r][j];
            }
        double v = alpha * s;
        if (beta != 0.0)
            v += beta * (double)dx[iw];
        dx[iw] = (float)v;
    }
}
