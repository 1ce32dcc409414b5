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
