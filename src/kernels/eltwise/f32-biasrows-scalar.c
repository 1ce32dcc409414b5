/* A bias over channel-contiguous rows, portable reference (see eltwise-ukernels.h): the
 * scalar axpby's operations on every row. */
#include "kernels/eltwise/eltwise-ukernels.h"

void hd_f32_biasrows_ukernel__scalar(size_t rows, size_t ch, const float *a, float *c, float alpha, float beta)
{
    for (size_t r = 0; r < rows; r++, c += ch)
        for (size_t i = 0; i < ch; i++)
            c[i] = beta != 0.0f ? alpha * a[i] + beta * c[i] : alpha * a[i];
}
