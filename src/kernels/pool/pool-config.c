/*
 * kernels/pool/pool-config.c -- the pooling variants for an ISA (pool-ukernels.h).  Only
 * function pointers here: built without ISA flags.
 */
#include "kernels/pool/pool-ukernels.h"
#include "core/cpu.h"

hd_f32_pool_vmax_fn hd_f32_pool_vmax_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_vmax__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_vmax__avx2 : hd_f32_pool_ukernel_vmax__scalar;
}

hd_f32_pool_hmax_fn hd_f32_pool_hmax_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_hmax__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_hmax__avx2 : hd_f32_pool_ukernel_hmax__scalar;
}

hd_f32_pool_vsum_fn hd_f32_pool_vsum_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_vsum__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_vsum__avx2 : hd_f32_pool_ukernel_vsum__scalar;
}

hd_f32_pool_hsum_fn hd_f32_pool_hsum_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_hsum__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_hsum__avx2 : hd_f32_pool_ukernel_hsum__scalar;
}

hd_f32_pool_nhwc_fn hd_f32_pool_nhwc_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_nhwc__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_nhwc__avx2 : hd_f32_pool_ukernel_nhwc__scalar;
}

hd_f32_pool_argmax_fn hd_f32_pool_argmax_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_argmax__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_argmax__avx2 : hd_f32_pool_ukernel_argmax__scalar;
}

hd_f32_pool_flush_fn hd_f32_pool_flush_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_flush__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_flush__avx2 : hd_f32_pool_ukernel_flush__scalar;
}

hd_f32_pool_rowargmax_fn hd_f32_pool_rowargmax_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_rowargmax__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_rowargmax__avx2 : hd_f32_pool_ukernel_rowargmax__scalar;
}

hd_f32_pool_flush_fn hd_f32_pool_flush_stream_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_flush_stream__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_flush__avx2 : hd_f32_pool_ukernel_flush__scalar;
}

hd_f32_pool_fence_fn hd_f32_pool_stream_fence_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_stream_fence__avx512 : hd_f32_pool_ukernel_stream_fence__scalar;
}

hd_f32_pool_gatherrow_fn hd_f32_pool_gatherrow_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_gatherrow__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_gatherrow__avx2 : hd_f32_pool_ukernel_gatherrow__scalar;
}

hd_f32_pool_gatherpix_fn hd_f32_pool_gatherpix_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_gatherpix__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_gatherpix__avx2 : hd_f32_pool_ukernel_gatherpix__scalar;
}

hd_f32_pool_share_fn hd_f32_pool_share_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_share__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_share__avx2 : hd_f32_pool_ukernel_share__scalar;
}

hd_f32_pool_broadcast_fn hd_f32_pool_broadcast_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_broadcast__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_pool_ukernel_broadcast__avx2 : hd_f32_pool_ukernel_broadcast__scalar;
}

hd_f32_pool_argmax8_fn hd_f32_pool_argmax8_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_argmax8__avx512 : NULL;
}

hd_f32_pool_maxgatherrow_fn hd_f32_pool_maxgatherrow_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_maxgatherrow__avx512 : NULL;
}

hd_f32_pool_max3s2_fn hd_f32_pool_max3s2_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_max3s2__avx512 : NULL;
}

hd_f32_pool_max3s2_last_fn hd_f32_pool_max3s2_last_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_max3s2_last__avx512 : NULL;
}

hd_f32_pool_max3s2w_fn hd_f32_pool_max3s2w_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_pool_ukernel_max3s2w__avx512 : NULL;
}

hd_f32_pool_max3s2w_last_fn hd_f32_pool_max3s2w_last_select(int isa)
{
    (void)isa;
    return hd_f32_pool_ukernel_max3s2w_last__scalar;
}
