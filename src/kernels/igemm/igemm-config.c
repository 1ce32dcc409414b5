/*
 * kernels/igemm/igemm-config.c -- the table of indirect GEMM micro-kernels
 * (igemm-ukernels.h).  Only function pointers here: built without ISA flags.
 */
#include "kernels/igemm/igemm-ukernels.h"

static const hd_igemm_kernel kernels[] = {
    {"f32-igemm-4x4-scalar", HD_ISA_SCALAR, 4, 4, hd_f32_igemm_ukernel_4x4__scalar, hd_f32_igemm_ukernel_4x4__scalar,
     NULL},
    {"f32-igemm-6x16-avx2", HD_ISA_AVX2, 6, 16, hd_f32_igemm_ukernel_6x16__avx2, hd_f32_igemm_ukernel_6x16__avx2, NULL},
    {"f32-igemm-14x32-avx512", HD_ISA_AVX512, 14, 32, hd_f32_igemm_ukernel_14x32__avx512,
     hd_f32_igemm_ukernel_14x32_pfa__avx512, hd_f32_igemm_ukernel_14x32_strided__avx512},
};

const hd_igemm_kernel *hd_igemm_kernels(size_t *count)
{
    *count = sizeof kernels / sizeof kernels[0];
    return kernels;
}

const hd_igemm_kernel *hd_igemm_kernel_for(hd_isa_t isa)
{
    isa = hd_isa_cap(isa);
    const hd_igemm_kernel *best = &kernels[0];
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i].isa <= isa)
            best = &kernels[i];
    return best;
}
