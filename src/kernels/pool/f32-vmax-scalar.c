/* Running maximum, portable reference (see maxpool.h). */
#include "kernels/pool/maxpool.h"
#include "core/cpu.h"

void hd_f32_vmax__scalar(float *acc, const float *x, size_t n, int propagate)
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

hd_f32_vmax_fn hd_f32_vmax_select(int isa)
{
    if (isa > (int)hd_cpu_isa())
        isa = (int)hd_cpu_isa();
    if (isa >= HD_ISA_AVX512)
        return hd_f32_vmax__avx512;
    if (isa >= HD_ISA_AVX2)
        return hd_f32_vmax__avx2;
    return hd_f32_vmax__scalar;
}
