/*
 * Data and comparisons shared by the max pooling backward kernel tests
 * (test_kernel_pool_maxgather.c, test_kernel_pool_max3s2.c, test_kernel_pool_max3s2w.c).
 * The including file defines POOL_BWD_SEED, the start of its own value stream.
 */
#ifndef HD_TEST_POOL_BWD_VALUES_H
#define HD_TEST_POOL_BWD_VALUES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static unsigned seed = POOL_BWD_SEED;
static inline unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 16;
}

/* Bit for bit, except that any two NaNs match: when two NaN terms meet, which one's sign and
 * payload an add returns depends on the order the compiler gave its operands (IEEE 754 leaves
 * it open), and that order differs between optimisation levels (the sanitizer build). */
static inline int same_floats(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof *a) != 0 && !(isnan(a[i]) && isnan(b[i])))
            return 0;
    return 1;
}

static inline int same_doubles(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof *a) != 0 && !(isnan(a[i]) && isnan(b[i])))
            return 0;
    return 1;
}

/* A value for the kernels: NaNs (any sign and payload) and infinities unless FINITE, signed
 * zeros, values whose sums overflow float, small integers that tie when TIES, and inexact
 * sums at two magnitudes. */
static inline float pool_bwd_value(int finite, int ties)
{
    unsigned r = rnd() & 31;
    if (!finite && r == 0) {
        uint32_t bits = 0x7fc00000u | (rnd() & 0xffff) | ((rnd() & 1u) << 31);
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    if (!finite && r == 1) return INFINITY;
    if (!finite && r == 2) return -INFINITY;
    if (r == 3) return -0.0f;
    if (r == 4) return 0.0f;
    if (r == 5) return 3.0e38f;
    if (ties && r < 12) return (float)(int)(rnd() % 3);
    return (float)((int)(rnd() & 4095) - 2048) / 7.0f * (r & 8 ? 1.0e-7f : 1.0f);
}

#endif
