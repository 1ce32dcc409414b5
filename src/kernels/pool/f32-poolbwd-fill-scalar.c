/* Pooling backward where each dx value takes one output's value: portable reference (see
 * pool-ukernels.h). */
#include "kernels/pool/pool-ukernels.h"

void hd_f32_pool_ukernel_share__scalar(float *v, const float *g, size_t n, float div)
{
    for (size_t i = 0; i < n; i++)
        v[i] = g[i] / div + 0.0f;
}

void hd_f32_pool_ukernel_broadcast__scalar(float *dx, const float *v, size_t n, size_t rep, size_t c, int stream)
{
    (void)stream;
    for (size_t j = 0; j < n; j++)
        for (size_t q = 0; q < rep; q++)
            for (size_t i = 0; i < c; i++)
                dx[(j * rep + q) * c + i] = v[j * c + i];
}
