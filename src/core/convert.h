/*
 * core/convert.h -- scalar conversions between float and the 16-bit storage types.
 *
 * HALF is IEEE binary16, BFLOAT16 the top half of a binary32.  Both round to nearest even
 * and keep NaN a NaN.  Vector versions belong in src/kernels/.
 */
#ifndef HD_CORE_CONVERT_H
#define HD_CORE_CONVERT_H

#include <stdint.h>
#include <string.h>

static inline uint32_t hd_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float hd_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float hd_bf16_to_f32(uint16_t h) { return hd_bits_f32((uint32_t)h << 16); }

static inline uint16_t hd_f32_to_bf16(float f)
{
    uint32_t u = hd_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)           /* NaN: keep it quiet and a NaN */
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);               /* round to nearest even */
    return (uint16_t)(u >> 16);
}

static inline float hd_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t u;
    if (exp == 0) {
        if (man == 0) {
            u = sign;
        } else {                                   /* subnormal: normalise */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400u));
            u = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        u = sign | 0x7f800000u | (man << 13);      /* inf / NaN */
    } else {
        u = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    return hd_bits_f32(u);
}

static inline uint16_t hd_f32_to_f16(float f)
{
    uint32_t u = hd_f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u);         /* NaN */
    if (a >= 0x477ff000u)                          /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) {                         /* below the smallest normal half */
        if (a < 0x33000000u)                       /* < 2^-25: rounds to zero */
            return (uint16_t)sign;
        uint32_t e = a >> 23;
        uint32_t m = (a & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126 - e;                  /* 14..24 */
        uint32_t half = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1u)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t r = a + 0xfffu + ((a >> 13) & 1u) - ((127u - 15u) << 23);
    return (uint16_t)(sign | (r >> 13));
}

#endif
