/*
 * kernels/dwconv/dwconv-config.c -- the depthwise kernel set for an ISA (dwconv-ukernels.h).
 * Only function pointers here: built without ISA flags.
 */
#include "kernels/dwconv/dwconv-ukernels.h"
#include "core/cpu.h"

#include <stddef.h>

hd_dw_kernels hd_f32_dw_select(int isa)
{
    isa = hd_isa_cap(isa);
    if (isa >= HD_ISA_AVX512)
        return (hd_dw_kernels){
            .row = hd_f32_dwconv_ukernel_row__avx512,
            .wrow = hd_f32_dwconv_ukernel_wrow__avx512,
            .brow = hd_f32_dwconv_ukernel_brow__avx512,
            .bwrow = hd_f32_dwconv_ukernel_bwrow__avx512,
            .erow = hd_f32_dwconv_ukernel_erow__avx512,
            .ewrow = hd_f32_dwconv_ukernel_ewrow__avx512,
            .splane = hd_f32_dwconv_ukernel_splane__avx512,
            .swplane = hd_f32_dwconv_ukernel_swplane__avx512,
            .fplane = hd_f32_dwconv_ukernel_fplane__avx512,
            .fwplane = hd_f32_dwconv_ukernel_fwplane__avx512,
            .gather = hd_f32_dwconv_ukernel_gather__avx512,
            .scatter = hd_f32_dwconv_ukernel_scatter__avx512,
        };
    if (isa >= HD_ISA_AVX2)
        return (hd_dw_kernels){
            .row = hd_f32_dwconv_ukernel_row__avx2,
            .wrow = hd_f32_dwconv_ukernel_wrow__avx2,
            .brow = hd_f32_dwconv_ukernel_brow__avx2,
            .bwrow = hd_f32_dwconv_ukernel_bwrow__avx2,
            .gather = hd_f32_dwconv_ukernel_gather__avx2,
            .scatter = hd_f32_dwconv_ukernel_scatter__avx2,
        };
    return (hd_dw_kernels){
        .row = hd_f32_dwconv_ukernel_row__scalar,
        .wrow = hd_f32_dwconv_ukernel_wrow__scalar,
        .brow = hd_f32_dwconv_ukernel_brow__scalar,
        .bwrow = hd_f32_dwconv_ukernel_bwrow__scalar,
        .gather = hd_f32_dwconv_ukernel_gather__scalar,
        .scatter = hd_f32_dwconv_ukernel_scatter__scalar,
    };
}
