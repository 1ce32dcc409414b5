/* kernels/eltwise/eltwise-config.c -- choosing the eltwise table for an ISA. */
#include "kernels/eltwise/eltwise-ukernels.h"
#include "core/cpu.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

const hd_eltwise_table *hd_eltwise_kernels(int isa)
{
    isa = hd_isa_cap(isa);
    if (isa >= HD_ISA_AVX512)
        return &hd_f32_eltwise_ukernels__avx512;
    if (isa >= HD_ISA_AVX2)
        return &hd_f32_eltwise_ukernels__avx2;
    return &hd_f32_eltwise_ukernels__scalar;
}

size_t hd_eltwise_stream_min_bytes(void)
{
    static _Atomic long long cached = -1;      /* a benign race: every thread computes the same */
    long long v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v >= 0)
        return (size_t)v;
    const char *env = getenv("HOSTDNN_STREAM_MIN_BYTES");
    if (env && *env) {
        v = strtoll(env, NULL, 10);
        if (v < 0)
            v = 0;
    } else {
        long llc = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
        llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (llc <= 0)
            llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
        if (llc <= 0)
            llc = 32L << 20;                    /* unknown: assume a 32 MiB cache */
        v = llc / 2;
    }
    atomic_store_explicit(&cached, v, memory_order_relaxed);
    return (size_t)v;
}
