/*
 * adv/half.h -- IEEE binary16 <-> binary32 conversion for the adv libraries (HALF RNN data is
 * computed in float).  Round to nearest even; NaN stays NaN, overflow becomes infinity.
 */
#ifndef HD_ADV_HALF_H
#define HD_ADV_HALF_H

#include <stdint.h>
#include <string.h>

static inline float hd_adv_h2f(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else {   /* subnormal: normalise */
        int e = -1;
        do { man <<= 1; e++; } while (!(man & 0x400u));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline uint16_t hd_adv_f2h(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u)   /* Inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
    if (ax >= 0x477ff000u)   /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {  /* below the smallest normal half: subnormal or zero */
        if (ax < 0x33000000u)
            return sign;
        uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e;            /* 14..24 */
        uint32_t v = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (v & 1u)))
            v++;
        return (uint16_t)(sign | v);
    }
    uint32_t v = ((ax >> 13) - (112u << 10)), rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (v & 1u)))
        v++;
    return (uint16_t)(sign | v);
}

#endif
