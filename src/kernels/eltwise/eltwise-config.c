/* kernels/eltwise/eltwise-config.c -- choosing the eltwise table for an ISA. */
#include "kernels/eltwise/eltwise-ukernels.h"
#include "core/cpu.h"

#include <stdatomic.h>
#include <stdio.h>
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

hd_f32_biasrows_fn hd_f32_biasrows_select(int isa)
{
    isa = hd_isa_cap(isa);
    return isa >= HD_ISA_AVX512 ? hd_f32_biasrows_ukernel__avx512
         : isa >= HD_ISA_AVX2   ? hd_f32_biasrows_ukernel__avx2 : hd_f32_biasrows_ukernel__scalar;
}

/* The last-level cache one core shares, in bytes (0: unknown).  Linux lists each cache level
 * a core sees, with the size of its own instance; sysconf's figure can be the sum over all
 * instances in the package (320 MiB for a guest whose one L3 slice is 32 MiB), which would
 * switch the streaming stores off for every tensor that matters. */
static long llc_instance_bytes(void)
{
    long best = 0;
#ifdef __linux__
    for (int i = 0; i < 8; i++) {
        char path[80], unit = 0;
        long size = 0;
        int level = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        int ok = fscanf(f, "%d", &level) == 1;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!ok || !(f = fopen(path, "r")))
            continue;
        ok = fscanf(f, "%ld%c", &size, &unit) >= 1;
        fclose(f);
        if (!ok || level < 2 || size <= 0)
            continue;
        size *= unit == 'K' ? 1024L : unit == 'M' ? 1048576L : 1L;
        if (size > best)        /* the highest level is the largest */
            best = size;
    }
#endif
    return best;
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
        long llc = llc_instance_bytes();
#ifdef _SC_LEVEL3_CACHE_SIZE
        if (llc <= 0)
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
