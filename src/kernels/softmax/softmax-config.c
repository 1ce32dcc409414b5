/*
 * kernels/softmax/softmax-config.c -- the softmax variants for an ISA (softmax-ukernels.h).
 * Only function pointers here: built without ISA flags.
 */
#include "kernels/softmax/softmax-ukernels.h"
#include "core/cpu.h"

#include <stddef.h>

hd_f32_softmax_fn hd_f32_softmax_kernel(int isa)
{
    isa = hd_isa_cap(isa);
    if (isa >= HD_ISA_AVX512)
        return hd_f32_softmax_ukernel__avx512;
    if (isa >= HD_ISA_AVX2)
        return hd_f32_softmax_ukernel__avx2;
    return hd_f32_softmax_ukernel__scalar;
}

hd_f32_softmax_cols_fn hd_f32_softmax_cols_kernel(int isa)
{
    isa = hd_isa_cap(isa);
    if (isa >= HD_ISA_AVX512)
        return hd_f32_softmax_ukernel_cols__avx512;
    if (isa >= HD_ISA_AVX2)
        return hd_f32_softmax_ukernel_cols__avx2;
    return hd_f32_softmax_ukernel_cols__scalar;
}

hd_f32_softmax_cols_stream_fn hd_f32_softmax_cols_stream_kernel(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_softmax_ukernel_cols_stream__avx512 : NULL;
}

hd_f32_softmax_rows_fn hd_f32_softmax_rows_kernel(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_softmax_ukernel_rows__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_softmax_ukernel_rows__avx2 : NULL;
}

hd_f32_softmax_bwd_rows_fn hd_f32_softmax_bwd_rows_kernel(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_softmax_bwd_ukernel_rows__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_softmax_bwd_ukernel_rows__avx2 : hd_f32_softmax_bwd_ukernel_rows__scalar;
}

hd_f32_softmax_bwd_cols_fn hd_f32_softmax_bwd_cols_kernel(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_softmax_bwd_ukernel_cols__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_softmax_bwd_ukernel_cols__avx2 : hd_f32_softmax_bwd_ukernel_cols__scalar;
}

hd_f32_softmax_grp16_fn hd_f32_softmax_grp16_kernel(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_softmax_ukernel_grp16__avx512 : NULL;
}

hd_f32_softmax_bwd_cols_stream_fn hd_f32_softmax_bwd_cols_stream_kernel(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_softmax_bwd_ukernel_cols_stream__avx512 : NULL;
}
