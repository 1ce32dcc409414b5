/* Running maximum, portable reference (see pool-ukernels.h). */
#include "kernels/pool/pool-ukernels.h"

void hd_f32_vmax_ukernel__scalar(float *acc, const float *x, size_t n, int propagate)
{
    if (propagate) {
        for (size_t i = 0; i < n; i++) {
            float a = acc[i], v = x[i];
            if (a != a || v != v)
                acc[i] = a + v;        /* a NaN, and it stays one */
            else if (v > a)
                acc[i] = v;
        }
    } else {
        for (size_t i = 0; i < n; i++)
            if (x[i] > acc[i])
                acc[i] = x[i];
    }
}
