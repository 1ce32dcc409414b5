/*
 * The per-family configs (src/kernels/<family>/<family>-config.c): for every ISA value, also
 * out-of-range ones, each returns the variant of min(ISA, the CPU's ISA) -- never one the CPU
 * cannot run -- so a handle's ISA (capped by HOSTDNN_MAX_ISA) picks the kernels.
 */
#include <stddef.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/bn/bn-ukernels.h"
#include "kernels/dot/dot-ukernels.h"
#include "kernels/dwconv/dwconv-ukernels.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "kernels/gemm/gemm-ukernels.h"
#include "kernels/igemm/igemm-ukernels.h"
#include "kernels/pool/pool-ukernels.h"
#include "kernels/softmax/softmax-ukernels.h"
#include "kernels/transpose/transpose-ukernels.h"
#include "kernels/wino4/wino4-ukernels.h"

/* pick(v) = the variant of ISA v (scalar, AVX2, AVX-512) */
#define PICK(v, s, a2, a5) ((v) >= HD_ISA_AVX512 ? (a5) : (v) >= HD_ISA_AVX2 ? (a2) : (s))

static void check_isa(int isa)
{
    hd_isa_t cpu = hd_cpu_isa();
    int e = isa < 0 ? 0 : isa > (int)cpu ? (int)cpu : isa;    /* what the config must use */

    CHECK_EQ_INT(hd_isa_cap(isa), e);
    CHECK(hd_gemm_kernel_for(4, (hd_isa_t)isa)->isa <= (hd_isa_t)e);
    CHECK(hd_gemm_kernel_for(8, (hd_isa_t)isa)->isa <= (hd_isa_t)e);
    CHECK(hd_igemm_kernel_for((hd_isa_t)isa)->isa <= (hd_isa_t)e);
    CHECK(hd_dot_kernel_for((hd_isa_t)isa)->isa <= (hd_isa_t)e);
    CHECK(hd_wino4_kernel_for((hd_isa_t)isa)->isa <= (hd_isa_t)e);
    /* the tables hold one kernel per ISA: the best one not above e is the one of e */
    CHECK_EQ_INT(hd_gemm_kernel_for(4, (hd_isa_t)isa)->isa, e);
    CHECK_EQ_INT(hd_wino4_kernel_for((hd_isa_t)isa)->isa, e);

    CHECK(hd_eltwise_kernels(isa) == PICK(e, &hd_f32_eltwise_ukernels__scalar, &hd_f32_eltwise_ukernels__avx2,
                                          &hd_f32_eltwise_ukernels__avx512));
    CHECK(hd_bn_f32_select(isa) ==
          PICK(e, &hd_f32_bn_ukernels__scalar, &hd_f32_bn_ukernels__avx2, &hd_f32_bn_ukernels__avx512));
    CHECK(hd_f32_pool_nhwc_select(isa) ==
          PICK(e, hd_f32_pool_ukernel_nhwc__scalar, hd_f32_pool_ukernel_nhwc__avx2, hd_f32_pool_ukernel_nhwc__avx512));
    CHECK(hd_f32_pool_vmax_select(isa) == PICK(e, hd_f32_pool_ukernel_vmax__scalar, hd_f32_pool_ukernel_vmax__avx2,
                                               hd_f32_pool_ukernel_vmax__avx512));
    CHECK(hd_f32_pool_hsum_select(isa) == PICK(e, hd_f32_pool_ukernel_hsum__scalar, hd_f32_pool_ukernel_hsum__avx2,
                                               hd_f32_pool_ukernel_hsum__avx512));
    CHECK(hd_f32_softmax_kernel(isa) ==
          PICK(e, hd_f32_softmax_ukernel__scalar, hd_f32_softmax_ukernel__avx2, hd_f32_softmax_ukernel__avx512));
    CHECK(hd_f32_softmax_rows_kernel(isa) ==
          PICK(e, NULL, hd_f32_softmax_ukernel_rows__avx2, hd_f32_softmax_ukernel_rows__avx512));
    CHECK(hd_f32_softmax_bwd_rows_kernel(isa) == PICK(e, hd_f32_softmax_bwd_ukernel_rows__scalar,
                                                      hd_f32_softmax_bwd_ukernel_rows__avx2,
                                                      hd_f32_softmax_bwd_ukernel_rows__avx512));
    CHECK(hd_f32_pool_rowargmax_select(isa) == PICK(e, hd_f32_pool_ukernel_rowargmax__scalar,
                                                    hd_f32_pool_ukernel_rowargmax__avx2,
                                                    hd_f32_pool_ukernel_rowargmax__avx512));
    CHECK(hd_f32_pool_flush_select(isa) ==
          PICK(e, hd_f32_pool_ukernel_flush__scalar, hd_f32_pool_ukernel_flush__avx2, hd_f32_pool_ukernel_flush__avx512));
    CHECK(hd_f32_softmax_cols_stream_kernel(isa) == (e >= HD_ISA_AVX512 ? hd_f32_softmax_ukernel_cols_stream__avx512
                                                                         : NULL));
    CHECK(hd_f32_tile_select(isa) ==
          PICK(e, hd_f32_transpose_ukernel__scalar, hd_f32_transpose_ukernel__avx2, hd_f32_transpose_ukernel__avx512));
    hd_dw_kernels dw = hd_f32_dw_select(isa);
    CHECK(dw.row == PICK(e, hd_f32_dwconv_ukernel_row__scalar, hd_f32_dwconv_ukernel_row__avx2,
                         hd_f32_dwconv_ukernel_row__avx512));
    CHECK((dw.erow != NULL) == (e >= HD_ISA_AVX512));
}

int main(void)
{
    printf("cpu isa in effect: %s\n", hd_isa_name(hd_cpu_isa()));
    SECTION("every ISA value");
    for (int isa = -1; isa <= HD_ISA_AVX512 + 1; isa++)
        check_isa(isa);
    return hd_test_finish();
}
