/*
 * core/philox.h -- the Philox-4x32-10 counter-based generator (Salmon et al., SC'11):
 * a 128-bit counter and 64-bit key give four independent 32-bit words, so any element's
 * random number can be computed without the ones before it (parallel and deterministic).
 */
#ifndef HD_CORE_PHILOX_H
#define HD_CORE_PHILOX_H

#include <stdint.h>

static inline void hd_philox4x32_10(const uint32_t ctr_in[4], uint64_t key64, uint32_t out[4])
{
    uint32_t c0 = ctr_in[0], c1 = ctr_in[1], c2 = ctr_in[2], c3 = ctr_in[3];
    uint32_t k0 = (uint32_t)key64, k1 = (uint32_t)(key64 >> 32);
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0;
        uint64_t p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n1 = (uint32_t)p1;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        uint32_t n3 = (uint32_t)p0;
        c0 = n0;
        c1 = n1;
        c2 = n2;
        c3 = n3;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* Uniform in [0, 1) with 24 random bits, from one 32-bit word. */
static inline float hd_u32_to_unit(uint32_t r)
{
    return (float)(r >> 8) * (1.0f / 16777216.0f);
}

#endif
