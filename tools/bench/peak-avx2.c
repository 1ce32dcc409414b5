/*
 * tools/bench/peak-avx2.c -- FMA throughput loops with YMM registers: ACC independent
 * accumulators (more than latency x pipes = 8, within the 16 registers), nothing but FMAs.
 */
#include <immintrin.h>

#include "bench.h"

#define ACC 12 /* of 16 YMM registers; still > latency x pipes */

double bench_fma_loop_f32_avx2(size_t iters)
{
    __m256 acc[ACC];
    const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
#pragma GCC unroll 12
    for (int i = 0; i < ACC; i++)
        acc[i] = _mm256_set1_ps((float)i);
    for (size_t it = 0; it < iters; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < ACC; i++)
            acc[i] = _mm256_fmadd_ps(acc[i], x, y);
    }
    __m256 s = acc[0];
#pragma GCC unroll 12
    for (int i = 1; i < ACC; i++)
        s = _mm256_add_ps(s, acc[i]);
    float v[8];
    _mm256_storeu_ps(v, s);
    return (double)v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
}

double bench_fma_loop_f64_avx2(size_t iters)
{
    __m256d acc[ACC];
    const __m256d x = _mm256_set1_pd(0.999999), y = _mm256_set1_pd(1e-7);
#pragma GCC unroll 12
    for (int i = 0; i < ACC; i++)
        acc[i] = _mm256_set1_pd((double)i);
    for (size_t it = 0; it < iters; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < ACC; i++)
            acc[i] = _mm256_fmadd_pd(acc[i], x, y);
    }
    __m256d s = acc[0];
#pragma GCC unroll 12
    for (int i = 1; i < ACC; i++)
        s = _mm256_add_pd(s, acc[i]);
    double v[4];
    _mm256_storeu_pd(v, s);
    return v[0] + v[1] + v[2] + v[3];
}
