/* kernels/eltwise/eltwise-dispatch.c -- choosing the eltwise table for an ISA. */
#include "kernels/eltwise/eltwise.h"
#include "core/cpu.h"

const hd_eltwise_table *hd_eltwise_kernels(int isa)
{
    int cap = (int)hd_cpu_isa();
    if (isa > cap)
        isa = cap;
    if (isa >= HD_ISA_AVX512)
        return &hd_eltwise_avx512;
    if (isa >= HD_ISA_AVX2)
        return &hd_eltwise_avx2;
    return &hd_eltwise_scalar;
}
