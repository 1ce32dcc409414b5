/*
 * cpu.c -- CPUID feature bits the GPU stacks and hostdnn care about.  A feature counts
 * only when the OS also saves its registers (XGETBV), as that is what decides whether the
 * instructions run.  hostdnn's kernel choice mirrors its dispatcher: avx512 needs
 * AVX-512 F/DQ/BW/VL on top of the avx2 set (AVX2+FMA+F16C); HOSTDNN_MAX_ISA caps it.
 */
#include "doctor.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define DR_X86 1
static unsigned long long xgetbv0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}
#endif

void dr_cpu_detect(dr_cpu *cpu)
{
    memset(cpu, 0, sizeof *cpu);
    int isa = 0; /* 0 scalar, 1 avx2, 2 avx512 */
#ifdef DR_X86
    unsigned a, b, c, d;
    unsigned max = __get_cpuid_max(0, NULL);
    if (max >= 1) {
        __cpuid(1, a, b, c, d);
        int osxsave = (c >> 27) & 1;
        unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
        int ymm = (xcr0 & 0x6) == 0x6, zmm = (xcr0 & 0xe6) == 0xe6;
        cpu->has_avx = ((c >> 28) & 1) && ymm;
        cpu->has_fma = ((c >> 12) & 1) && ymm;
        cpu->has_f16c = ((c >> 29) & 1) && ymm;
        if (max >= 7) {
            __cpuid_count(7, 0, a, b, c, d);
            cpu->has_avx2 = ((b >> 5) & 1) && ymm;
            cpu->has_avx512f = ((b >> 16) & 1) && zmm;
            cpu->has_avx512_core = cpu->has_avx512f && ((b >> 17) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1);
        }
    }
    unsigned ext = __get_cpuid_max(0x80000000u, NULL);
    if (ext >= 0x80000004u) {
        unsigned r[12];
        for (unsigned i = 0; i < 3; i++)
            __cpuid(0x80000002u + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
        char brand[49];
        memcpy(brand, r, 48);
        brand[48] = 0;
        const char *p = brand;
        while (*p == ' ')
            p++;
        dr_scopy(cpu->brand, sizeof cpu->brand, p);
    }
    if (cpu->has_avx && cpu->has_avx2 && cpu->has_fma && cpu->has_f16c)
        isa = 1;
    if (isa == 1 && cpu->has_avx512_core)
        isa = 2;
#endif
    const char *cap = getenv("HOSTDNN_MAX_ISA");
    if (cap) {
        int want = strcmp(cap, "scalar") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
        if (want < isa)
            isa = want;
    }
    dr_scopy(cpu->hostdnn_isa, sizeof cpu->hostdnn_isa, isa == 2 ? "avx512" : isa == 1 ? "avx2" : "scalar");
}
