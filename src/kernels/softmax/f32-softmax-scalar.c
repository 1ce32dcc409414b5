/* kernels/softmax/f32-softmax-scalar.c -- reference row softmax and the dispatcher. */
#include "kernels/softmax/softmax.h"
#include "core/cpu.h"

#include <math.h>

void hd_f32_softmax_scalar(size_t n, const float *x, float *y, float alpha, float beta, int log_mode)
{
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += expf(x[i] - m);
    float ls = (float)log(s), inv = (float)(1.0 / s);
    for (size_t i = 0; i < n; i++) {
        float v = log_mode ? x[i] - m - ls : expf(x[i] - m) * inv;
        y[i] = beta != 0.0f ? alpha * v + beta * y[i] : alpha * v;
    }
}

hd_f32_softmax_fn hd_f32_softmax_kernel(int isa)
{
    int cap = (int)hd_cpu_isa();
    if (isa > cap)
        isa = cap;
    if (isa >= HD_ISA_AVX512)
        return hd_f32_softmax_avx512;
    if (isa >= HD_ISA_AVX2)
        return hd_f32_softmax_avx2;
    return hd_f32_softmax_scalar;
}
