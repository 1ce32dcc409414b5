/*
 * kernels/conv/im2col-config.c -- the forward panel copies for an ISA (im2col-ukernels.h).
 * Only function pointers here: built without ISA flags.
 */
#include "kernels/conv/im2col-ukernels.h"
#include "core/cpu.h"

#include <stddef.h>

hd_conv_mrun_fn hd_f32_im2col_mrun_kernel(int isa)
{
    isa = hd_isa_cap(isa);
    if (isa >= HD_ISA_AVX512)
        return hd_f32_im2col_ukernel_mrun__avx512;
    if (isa >= HD_ISA_AVX2)
        return hd_f32_im2col_ukernel_mrun__avx2;
    return NULL;
}

hd_conv_cols_fn hd_f32_im2col_cols_kernel(int isa)
{
    isa = hd_isa_cap(isa);
    if (isa >= HD_ISA_AVX512)
        return hd_f32_im2col_ukernel_cols__avx512;
    if (isa >= HD_ISA_AVX2)
        return hd_f32_im2col_ukernel_cols__avx2;
    return NULL;
}

hd_conv_addrow_fn hd_f32_im2col_addrow_kernel(int isa)
{
    /* AVX-512 machines take the AVX2 version (no wider one yet) */
    return hd_isa_cap(isa) >= HD_ISA_AVX2 ? hd_f32_im2col_ukernel_addrow__avx2 : NULL;
}
