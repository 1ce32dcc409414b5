/*
 * kernels/transpose/transpose-config.c -- the transpose tile for an ISA
 * (transpose-ukernels.h).  Only function pointers here: built without ISA flags.
 */
#include "kernels/transpose/transpose-ukernels.h"
#include "core/cpu.h"

hd_f32_tile_fn hd_f32_tile_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_transpose_ukernel__avx512
           : isa >= HD_ISA_AVX2 ? hd_f32_transpose_ukernel__avx2
                                : hd_f32_transpose_ukernel__scalar;
}
