/*
 * Helpers shared by the fused-ops execution tests (test_fused_ops_exec.c,
 * test_fused_ops_bnfinal.c): HALF conversions of test values and the pack setters.
 * Independent of src/.  Include after harness.h.
 */
#ifndef HD_TEST_FUSED_OPS_UTIL_H
#define HD_TEST_FUSED_OPS_UTIL_H

#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t to_half(double d)
{
    /* Test values are multiples of 1/64 well inside the normal range, or results we only
     * compare loosely; round to nearest even, flush below the normal range to zero. */
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000u;
    int e = (int)((u >> 23) & 0xff) - 127 + 15;
    uint32_t m = u & 0x7fffffu;
    if (e <= 0)
        return (uint16_t)sign;
    uint32_t h = ((uint32_t)e << 10) | (m >> 13), rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

static inline double from_half(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1.0 + m / 1024.0, e - 15);
    return (h & 0x8000) ? -v : v;
}

static inline void set_c(cudnnFusedOpsConstParamPack_t p, cudnnFusedOpsConstParamLabel_t l, const void *v)
{
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, l, v));
}

static inline void set_ph(cudnnFusedOpsConstParamPack_t p, cudnnFusedOpsConstParamLabel_t l, cudnnFusedOpsPointerPlaceHolder_t v)
{
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, l, &v));
}

static inline void set_v(cudnnFusedOpsVariantParamPack_t p, cudnnFusedOpsVariantParamLabel_t l, void *v)
{
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(p, l, v));
}

#endif
