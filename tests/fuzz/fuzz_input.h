/*
 * fuzz_input.h -- reading a fuzzer's bytes as call arguments, shared by the harnesses.
 *
 * Integers are drawn so that the values that break size arithmetic come up often: a class
 * byte picks a small count, a value near zero (negatives included), one of the edge values
 * (INT_MAX, INT_MIN, powers of two whose products overflow 32 or 64 bits) or raw bits.  An
 * exhausted input reads as zeros, so every input is a complete sequence of calls.
 */
#ifndef HD_FUZZ_INPUT_H
#define HD_FUZZ_INPUT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    const uint8_t *p;
    size_t n;
} fz_in;

static inline uint8_t fz_u8(fz_in *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

static inline uint32_t fz_u32(fz_in *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | fz_u8(in);
    return v;
}

static const int fz_edges[] = {0, 1, -1, 2, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1, 46341, 65536, 65537,
                               1 << 20, 1 << 24, 1 << 30, 3, 4, 7, 8, 16, 255, 256, 1024, 4096, -2};

/* An int argument: small counts most of the time, edge values and raw bits often enough. */
static inline int fz_int(fz_in *in)
{
    uint8_t c = fz_u8(in);
    switch (c >> 6) {
    case 0:
        return c & 15;                                        /* 0..15 */
    case 1:
        return (int)(c & 63) - 8;                             /* -8..55 */
    case 2:
        return fz_edges[(c & 63) % (sizeof fz_edges / sizeof *fz_edges)];
    default:
        return (int)fz_u32(in);
    }
}

/* A dimension: 1..8 most of the time, anything fz_int gives otherwise. */
static inline int fz_dim(fz_in *in)
{
    uint8_t c = fz_u8(in);
    if (c < 200)
        return 1 + c % 8;
    return fz_int(in);
}

/* An enum argument: the valid range [0, count) mostly, a value just outside or raw bits seldom. */
static inline int fz_enum(fz_in *in, int count)
{
    uint8_t c = fz_u8(in);
    if (c < 240)
        return c % count;
    if (c < 250) {
        static const int odd[] = {-1, INT_MIN, INT_MAX, 1000};
        return (c & 4) ? count + (c & 3) : odd[c & 3];
    }
    return (int)fz_u32(in);
}

/* A double argument: a few meaningful values, NaN and infinities, or raw bits. */
static inline double fz_double(fz_in *in)
{
    static const double vals[] = {0.0, 1.0, -1.0, 0.5, 1e-5, 2.0, 1e300, -1e300, 1e-310, 0.75, 100.0};
    uint8_t c = fz_u8(in);
    if (c < 160)
        return vals[c % (sizeof vals / sizeof *vals)];
    if (c < 170)
        return c & 1 ? __builtin_inf() : -__builtin_inf();
    if (c < 180)
        return __builtin_nan("");
    uint64_t bits = (uint64_t)fz_u32(in) << 32 | fz_u32(in);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* Values for the data type arguments: every cudnnDataType_t of cuDNN 8.1 is below 12. */
#define FZ_NDTYPES 12

#endif
