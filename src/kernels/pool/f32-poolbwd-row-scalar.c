/* Max pooling backward on row-contiguous layouts, portable reference (see pool-ukernels.h). */
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

void hd_f32_pool_ukernel_rowargmax__scalar(const float *const *rows, int nrows, size_t ow, int kw, int sw,
                                           const int32_t *tab, int propagate, int32_t *arg)
{
    for (size_t j = 0; j < ow; j++) {
        float m = -INFINITY;
        int32_t best = -1;
        for (int r = 0; r < nrows; r++)
            for (int k = 0; k < kw; k++) {
                float v = rows[r][j * (size_t)sw + (size_t)k];
                if (m == m && ((propagate && v != v) || v > m)) {
                    m = v;
                    best = r * kw + k;
                }
            }
        arg[j] = best < 0 || tab[best] < 0 ? -1 : tab[best] + (int32_t)(j * (size_t)sw);
    }
}

/* The scalar flush stores plainly: nothing to order. */
void hd_f32_pool_ukernel_stream_fence__scalar(void)
{
}
