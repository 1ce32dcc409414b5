/* Direct max-pooling row passes, portable reference (see pool-ukernels.h). */
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

/* One step of the running maximum: a is the running value, v the next operand.  NaNs are
 * selected, never computed (a + v would leave the payload to the compiler's operand order). */
static inline float step(float a, float v, int propagate)
{
    if (propagate) {
        if (a != a)
            return a;          /* the first NaN met stays */
        if (v != v)
            return v;
    }
    return v > a ? v : a;
}

void hd_f32_pool_ukernel_vmax__scalar(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate)
{
    for (size_t i = 0; i < n; i++) {
        float a = -INFINITY;
        for (int r = 0; r < rows; r++)
            a = step(a, x[r * ld + (ptrdiff_t)i], propagate);
        col[i] = a;
    }
}

void hd_f32_pool_ukernel_hmax__scalar(float *y, const float *col, size_t ow, int kw, int sw, int propagate)
{
    for (size_t j = 0; j < ow; j++) {
        const float *c = col + j * (size_t)sw;
        float a = -INFINITY;
        for (int k = 0; k < kw; k++)
            a = step(a, c[k], propagate);
        y[j] = a;
    }
}

void hd_f32_pool_ukernel_vsum__scalar(float *col, const float *x, ptrdiff_t ld, int rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float a = x[i];
        for (int r = 1; r < rows; r++)
            a += x[r * ld + (ptrdiff_t)i];
        col[i] = a;
    }
}

void hd_f32_pool_ukernel_hsum__scalar(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                      float vdiv)
{
    for (size_t j = 0; j < ow; j++) {
        const float *c = col + j * (size_t)sw;
        float a = c[0];
        for (int k = 1; k < kw; k++)
            a += c[k];
        y[j] = a / (vdiv * hdiv[j]);
    }
}
