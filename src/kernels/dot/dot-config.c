/*
 * kernels/dot/dot-config.c -- the table of dot micro-kernels (dot-ukernels.h).  Only
 * function pointers here: built without ISA flags.
 */
#include "kernels/dot/dot-ukernels.h"

static const hd_dot_kernel kernels[] = {
    {"f32-dot-2x2-scalar", HD_ISA_SCALAR, 2, 2, hd_f32_dot_ukernel_2x2__scalar},
    {"f32-dot-3x3-avx2", HD_ISA_AVX2, 3, 3, hd_f32_dot_ukernel_3x3__avx2},
    {"f32-dot-5x5-avx512", HD_ISA_AVX512, 5, 5, hd_f32_dot_ukernel_5x5__avx512},
};

const hd_dot_kernel *hd_dot_kernels(size_t *count)
{
    *count = sizeof kernels / sizeof kernels[0];
    return kernels;
}

const hd_dot_kernel *hd_dot_kernel_for(hd_isa_t isa)
{
    isa = hd_isa_cap(isa);
    const hd_dot_kernel *best = &kernels[0];
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i].isa <= isa)
            best = &kernels[i];
    return best;
}
