/*
 * core/cpu.h -- which vector instructions this CPU (and OS) allow, detected once.
 *
 * The result is capped by HOSTDNN_MAX_ISA=scalar|avx2|avx512, so tests can force every
 * kernel family on one machine.  Kernels for an ISA are only ever called when
 * hd_cpu_isa() >= that ISA.
 */
#ifndef HD_CORE_CPU_H
#define HD_CORE_CPU_H

typedef enum {
    HD_ISA_SCALAR = 0,
    HD_ISA_AVX2 = 1,     /* AVX2 + FMA + F16C, YMM state enabled by the OS */
    HD_ISA_AVX512 = 2,   /* AVX-512 F/BW/DQ/VL, ZMM state enabled by the OS */
} hd_isa_t;

typedef struct {
    hd_isa_t hw_isa;      /* best the hardware supports */
    hd_isa_t isa;         /* in effect (after HOSTDNN_MAX_ISA) */
    int has_avx;          /* needed by NVIDIA's cuDNN 8 and TensorFlow */
    int has_avx512_vnni;
    int has_avx512_bf16;
    char brand[64];       /* CPU brand string */
} hd_cpu_info;

const hd_cpu_info *hd_cpu(void);
static inline hd_isa_t hd_cpu_isa(void) { return hd_cpu()->isa; }
const char *hd_isa_name(hd_isa_t isa);

/* ISA (an hd_isa_t, e.g. a handle's) lowered to what this CPU allows: the kernel families'
 * configs (src/kernels/<family>/<family>-config.c) choose their variants from this, so a
 * stale or forced value can never pick instructions the CPU lacks. */
static inline hd_isa_t hd_isa_cap(int isa)
{
    hd_isa_t have = hd_cpu_isa();
    return isa <= (int)HD_ISA_SCALAR ? HD_ISA_SCALAR : isa >= (int)have ? have : (hd_isa_t)isa;
}

#endif
