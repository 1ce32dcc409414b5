/* core/cpu.c -- CPUID + XGETBV detection (see cpu.h). */
#include "core/cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HD_X86 1
#endif

static hd_cpu_info info;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#ifdef HD_X86
static unsigned long long xgetbv0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}
#endif

static void detect(void)
{
    info.hw_isa = HD_ISA_SCALAR;
#ifdef HD_X86
    unsigned a, b, c, d;
    unsigned max = __get_cpuid_max(0, NULL);
    if (max >= 1) {
        __cpuid(1, a, b, c, d);
        int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1, f16c = (c >> 29) & 1;
        unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
        int ymm_ok = (xcr0 & 0x6) == 0x6;
        int zmm_ok = (xcr0 & 0xe6) == 0xe6;
        info.has_avx = avx && ymm_ok;
        if (max >= 7) {
            __cpuid_count(7, 0, a, b, c, d);
            int avx2 = (b >> 5) & 1;
            int f = (b >> 16) & 1, dq = (b >> 17) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
            info.has_avx512_vnni = (c >> 11) & 1;
            if (info.has_avx && avx2 && fma && f16c)
                info.hw_isa = HD_ISA_AVX2;
            if (info.hw_isa == HD_ISA_AVX2 && zmm_ok && f && dq && bw && vl)
                info.hw_isa = HD_ISA_AVX512;
            __cpuid_count(7, 1, a, b, c, d);
            info.has_avx512_bf16 = (a >> 5) & 1;
            if (!zmm_ok)
                info.has_avx512_vnni = info.has_avx512_bf16 = 0;
        }
    }
    unsigned ext = __get_cpuid_max(0x80000000u, NULL);
    if (ext >= 0x80000004u) {
        unsigned r[12];
        for (unsigned i = 0; i < 3; i++)
            __cpuid(0x80000002u + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
        memcpy(info.brand, r, 48);
        info.brand[48] = 0;
        /* trim leading blanks some vendors pad with */
        char *s = info.brand;
        while (*s == ' ')
            s++;
        memmove(info.brand, s, strlen(s) + 1);
    }
#endif
    info.isa = info.hw_isa;
    const char *cap = getenv("HOSTDNN_MAX_ISA");
    if (cap) {
        hd_isa_t want = info.isa;
        if (strcmp(cap, "scalar") == 0)
            want = HD_ISA_SCALAR;
        else if (strcmp(cap, "avx2") == 0)
            want = HD_ISA_AVX2;
        else if (strcmp(cap, "avx512") == 0)
            want = HD_ISA_AVX512;
        if (want < info.isa)
            info.isa = want;
    }
}

const hd_cpu_info *hd_cpu(void)
{
    pthread_once(&once, detect);
    return &info;
}

const char *hd_isa_name(hd_isa_t isa)
{
    switch (isa) {
    case HD_ISA_SCALAR: return "scalar";
    case HD_ISA_AVX2: return "avx2";
    case HD_ISA_AVX512: return "avx512";
    }
    return "unknown";
}
