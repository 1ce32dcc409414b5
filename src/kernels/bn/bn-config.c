/*
 * kernels/bn/bn-config.c -- the batch-normalization kernel set for an ISA (bn-ukernels.h).
 * Only pointers here: built without ISA flags.
 */
#include "kernels/bn/bn-ukernels.h"
#include "core/cpu.h"

const hd_bn_f32_kernels *hd_bn_f32_select(int isa)
{
    isa = hd_isa_cap(isa);
    if (isa >= HD_ISA_AVX512)
        return &hd_f32_bn_ukernels__avx512;
    if (isa >= HD_ISA_AVX2)
        return &hd_f32_bn_ukernels__avx2;
    return &hd_f32_bn_ukernels__scalar;
}
