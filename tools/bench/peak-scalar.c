/*
 * tools/bench/peak-scalar.c -- multiply-add throughput without vector instructions: the
 * ceiling of the scalar kernels.  Built with the baseline flags, so a*b+c is a multiply and
 * an add (2 FLOPs), BENCH_FMA_ACC independent chains.
 */
#include "bench.h"

#define SCALAR_LOOP(T, NAME)                                              \
    double NAME(size_t iters)                                             \
    {                                                                     \
        T acc[BENCH_FMA_ACC];                                             \
        const T x = (T)0.999999, y = (T)1e-7;                             \
        for (int i = 0; i < BENCH_FMA_ACC; i++)                           \
            acc[i] = (T)i;                                                \
        for (size_t it = 0; it < iters; it++) {                           \
            _Pragma("GCC unroll 24")                                      \
            for (int i = 0; i < BENCH_FMA_ACC; i++)                       \
                acc[i] = acc[i] * x + y;                                  \
        }                                                                 \
        double s = 0;                                                     \
        for (int i = 0; i < BENCH_FMA_ACC; i++)                           \
            s += acc[i];                                                  \
        return s;                                                         \
    }
SCALAR_LOOP(float, bench_fma_loop_f32_scalar)
SCALAR_LOOP(double, bench_fma_loop_f64_scalar)
