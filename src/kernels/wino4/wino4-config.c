/*
 * kernels/wino4/wino4-config.c -- the table of Winograd F(4x4, 3x3) kernel sets
 * (wino4-ukernels.h), and the set for an ISA.  Only function pointers here: built without
 * ISA flags.
 */
#include "kernels/wino4/wino4-ukernels.h"

static const hd_wino4_kernels w4_kernels[] = {
    {"f32-wino4-scalar", HD_ISA_SCALAR, 1, hd_f32_wino4_ukernel_in__scalar, hd_f32_wino4_ukernel_out__scalar,
     hd_f32_wino4_ukernel_filter__scalar, hd_f32_wino4_ukernel_in_c__scalar, hd_f32_wino4_ukernel_out_c__scalar,
     hd_f32_wino4gemm_ukernel__scalar, hd_f32_wino4_ukernel_dy_c__scalar},
    {"f32-wino4-avx2", HD_ISA_AVX2, 8, hd_f32_wino4_ukernel_in__avx2, hd_f32_wino4_ukernel_out__avx2,
     hd_f32_wino4_ukernel_filter__avx2, hd_f32_wino4_ukernel_in_c__avx2, NULL, NULL, hd_f32_wino4_ukernel_dy_c__avx2},
    {"f32-wino4-avx512", HD_ISA_AVX512, 16, hd_f32_wino4_ukernel_in__avx512, hd_f32_wino4_ukernel_out__avx512,
     hd_f32_wino4_ukernel_filter__avx512, hd_f32_wino4_ukernel_in_c__avx512, hd_f32_wino4_ukernel_out_c__avx512,
     hd_f32_wino4gemm_ukernel_6x64__avx512, hd_f32_wino4_ukernel_dy_c__avx512},
};

const hd_wino4_kernels *hd_wino4_kernel_table(size_t *count)
{
    *count = sizeof w4_kernels / sizeof *w4_kernels;
    return w4_kernels;
}

const hd_wino4_kernels *hd_wino4_kernel_for(hd_isa_t isa)
{
    isa = hd_isa_cap(isa);
    const hd_wino4_kernels *best = &w4_kernels[0];
    for (size_t i = 0; i < sizeof w4_kernels / sizeof *w4_kernels; i++)
        if (w4_kernels[i].isa <= isa)
            best = &w4_kernels[i];
    return best;
}
