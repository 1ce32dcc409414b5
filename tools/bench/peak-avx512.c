/*
 * tools/bench/peak-avx512.c -- FMA throughput loops with ZMM registers: BENCH_FMA_ACC
 * independent accumulators (far more than latency x pipes = 8), nothing but FMAs inside.
 */
#include <immintrin.h>

#include "bench.h"

double bench_fma_loop_f32_avx512(size_t iters)
{
    __m512 acc[BENCH_FMA_ACC];
    const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
#pragma GCC unroll 24
    for (int i = 0; i < BENCH_FMA_ACC; i++)
        acc[i] = _mm512_set1_ps((float)i);
    for (size_t it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < BENCH_FMA_ACC; i++)
            acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    }
    __m512 s = acc[0];
#pragma GCC unroll 24
    for (int i = 1; i < BENCH_FMA_ACC; i++)
        s = _mm512_add_ps(s, acc[i]);
    return _mm512_reduce_add_ps(s);
}

double bench_fma_loop_f64_avx512(size_t iters)
{
    __m512d acc[BENCH_FMA_ACC];
    const __m512d x = _mm512_set1_pd(0.999999), y = _mm512_set1_pd(1e-7);
#pragma GCC unroll 24
    for (int i = 0; i < BENCH_FMA_ACC; i++)
        acc[i] = _mm512_set1_pd((double)i);
    for (size_t it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < BENCH_FMA_ACC; i++)
            acc[i] = _mm512_fmadd_pd(acc[i], x, y);
    }
    __m512d s = acc[0];
#pragma GCC unroll 24
    for (int i = 1; i < BENCH_FMA_ACC; i++)
        s = _mm512_add_pd(s, acc[i]);
    return _mm512_reduce_add_pd(s);
}
