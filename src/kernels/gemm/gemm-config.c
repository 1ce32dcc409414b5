/*
 * kernels/gemm/gemm-config.c -- the table of GEMM micro-kernels and the choice per ISA.
 * Only function pointers live here, so this file is built without ISA flags.
 */
#include "kernels/gemm/gemm-ukernels.h"

static const hd_gemm_kernel f32_kernels[] = {
    {"f32-gemm-4x4-scalar", HD_ISA_SCALAR, 4, 4, 0, hd_f32_gemm_ukernel_4x4__scalar, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"f32-gemm-6x16-avx2", HD_ISA_AVX2, 6, 16, 1, hd_f32_gemm_ukernel_6x16__avx2, NULL,
     hd_f32_packa_ukernel_6__avx2, NULL, hd_f32_gemm_ukernel_1x64__avx2, hd_f32_packb_t_ukernel_16__avx2,
     hd_f32_packa_t_ukernel_6__avx2, hd_f32_gemm_ukernel_2x32__avx2},
    {"f32-gemm-14x32-avx512", HD_ISA_AVX512, 14, 32, 1, hd_f32_gemm_ukernel_14x32__avx512, NULL,
     hd_f32_packa_ukernel_14__avx512, hd_f32_gemm_ukernel_14x32_sa__avx512,
     hd_f32_gemm_ukernel_1x128__avx512, hd_f32_packb_t_ukernel_32__avx512, hd_f32_packa_t_ukernel_14__avx512, NULL},
};

static const hd_gemm_kernel f64_kernels[] = {
    {"f64-gemm-4x4-scalar", HD_ISA_SCALAR, 4, 4, 0, NULL, hd_f64_gemm_ukernel_4x4__scalar, NULL, NULL, NULL, NULL, NULL, NULL},
    {"f64-gemm-6x8-avx2", HD_ISA_AVX2, 6, 8, 1, NULL, hd_f64_gemm_ukernel_6x8__avx2, NULL, NULL, NULL, NULL, NULL, NULL},
    {"f64-gemm-14x16-avx512", HD_ISA_AVX512, 14, 16, 1, NULL, hd_f64_gemm_ukernel_14x16__avx512, NULL, NULL, NULL, NULL, NULL, NULL},
};

const hd_gemm_kernel *hd_gemm_kernels(size_t elem_size, size_t *count)
{
    if (elem_size == sizeof(double)) {
        *count = sizeof f64_kernels / sizeof f64_kernels[0];
        return f64_kernels;
    }
    *count = sizeof f32_kernels / sizeof f32_kernels[0];
    return f32_kernels;
}

const hd_gemm_kernel *hd_gemm_kernel_for(size_t elem_size, hd_isa_t isa)
{
    isa = hd_isa_cap(isa);
    size_t n;
    const hd_gemm_kernel *k = hd_gemm_kernels(elem_size, &n);
    const hd_gemm_kernel *best = &k[0];
    for (size_t i = 0; i < n; i++)
        if (k[i].isa <= isa)
            best = &k[i];
    return best;
}
