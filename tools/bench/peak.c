/*
 * tools/bench/peak.c -- peak floating-point throughput, the yardstick for every GFLOP/s the
 * driver prints.  Each thread runs an FMA loop with many independent accumulators for a fixed
 * count; GFLOP/s = all threads' FLOPs / wall time, median over repetitions.
 */
#include <stdio.h>

#include "bench.h"
#include "core/parallel.h"

typedef double (*fma_loop_fn)(size_t iters);

typedef struct {
    fma_loop_fn fn;
    size_t iters;
    volatile double sink[64];
} peak_ctx;

static void peak_task(void *ctx, size_t t, int thread)
{
    (void)thread;
    peak_ctx *c = ctx;
    c->sink[t % 64] = c->fn(c->iters);
}

/* FLOPs per loop iteration: accumulators x lanes x 2. */
static void loop_for(hd_isa_t isa, size_t esize, fma_loop_fn *fn, double *flops_per_iter)
{
    size_t bytes = isa == HD_ISA_AVX512 ? 64 : isa == HD_ISA_AVX2 ? 32 : esize;
    size_t acc = isa == HD_ISA_AVX2 ? 12 : BENCH_FMA_ACC;
    *flops_per_iter = (double)acc * (double)(bytes / esize) * 2.0;
    if (isa == HD_ISA_AVX512)
        *fn = esize == 8 ? bench_fma_loop_f64_avx512 : bench_fma_loop_f32_avx512;
    else if (isa == HD_ISA_AVX2)
        *fn = esize == 8 ? bench_fma_loop_f64_avx2 : bench_fma_loop_f32_avx2;
    else
        *fn = esize == 8 ? bench_fma_loop_f64_scalar : bench_fma_loop_f32_scalar;
}

/* One measurement of about SECONDS (iteration count calibrated once per ISA/type). */
double bench_peak_sample(hd_isa_t isa, size_t esize, int threads, double seconds)
{
    static size_t iters_per_s[3][2];
    if (isa > hd_cpu_isa())
        return 0;
    peak_ctx c = {0};
    double fpi;
    loop_for(isa, esize, &c.fn, &fpi);
    size_t *ips = &iters_per_s[isa][esize == 8];
    if (*ips == 0) {
        c.iters = 1u << 16;
        double t0 = bench_now();
        c.fn(c.iters);
        double dt = bench_now() - t0;
        *ips = dt > 0 ? (size_t)((double)c.iters / dt) : (size_t)1 << 26;
    }
    c.iters = (size_t)((double)*ips * seconds) + 1;
    double t0 = bench_now();
    hd_parallel_for((size_t)threads, threads, peak_task, &c);
    double dt = bench_now() - t0;
    return fpi * (double)c.iters * threads / dt * 1e-9;
}

static double cache[3][2][2]; /* [isa][esize==8][threads>1] */
static int cache_threads[3][2][2];

double bench_peak_gflops(hd_isa_t isa, size_t esize, int threads, const bench_opts *o)
{
    if (isa > hd_cpu_isa())
        return 0;
    double *slot = &cache[isa][esize == 8][threads > 1];
    if (*slot > 0 && cache_threads[isa][esize == 8][threads > 1] == threads)
        return *slot;
    peak_ctx c = {0};
    double fpi;
    loop_for(isa, esize, &c.fn, &fpi);
    /* Size one run to ~50 ms (at least o->min_time) after a short calibration. */
    c.iters = 1u << 16;
    double t0 = bench_now();
    hd_parallel_for((size_t)threads, threads, peak_task, &c);
    double dt = bench_now() - t0;
    double want = o->min_time > 0.05 ? o->min_time : 0.05;
    if (dt > 0)
        c.iters = (size_t)((double)c.iters * want / dt) + 1;
    double g[32];
    int reps = o->reps < 32 ? o->reps : 32;
    for (int r = 0; r < reps; r++) {
        t0 = bench_now();
        hd_parallel_for((size_t)threads, threads, peak_task, &c);
        dt = bench_now() - t0;
        g[r] = fpi * (double)c.iters * threads / dt * 1e-9;
    }
    *slot = bench_median(g, (size_t)reps);
    cache_threads[isa][esize == 8][threads > 1] = threads;
    return *slot;
}

int bench_mode_peak(const bench_opts *o)
{
    printf("== peak: FMA throughput, GFLOP/s (median of %d)\n", o->reps);
    printf("%-8s %-4s", "isa", "dt");
    for (int t = 0; t < o->nthread_counts; t++)
        printf(" %10s%-3d", "threads=", o->threads[t]);
    printf("\n");
    for (int isa = HD_ISA_SCALAR; isa <= HD_ISA_AVX512; isa++) {
        for (size_t es = 4; es <= 8; es += 4) {
            if ((hd_isa_t)isa > hd_cpu_isa()) {
                printf("%-8s %-4s  (not available)\n", hd_isa_name((hd_isa_t)isa), es == 4 ? "f32" : "f64");
                continue;
            }
            printf("%-8s %-4s", hd_isa_name((hd_isa_t)isa), es == 4 ? "f32" : "f64");
            fflush(stdout);
            for (int t = 0; t < o->nthread_counts; t++) {
                printf(" %13.1f", bench_peak_gflops((hd_isa_t)isa, es, o->threads[t], o));
                fflush(stdout);
            }
            printf("\n");
        }
    }
    return 0;
}
