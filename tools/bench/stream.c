/*
 * tools/bench/stream.c -- STREAM triad bandwidth: a[i] = b[i] + s * c[i] over three arrays of
 * doubles far larger than the caches; 24 bytes move per element (STREAM's convention, write
 * allocate not counted).  Reports the best and the median of the repetitions.
 */
#include <stdio.h>

#include "bench.h"
#include "core/memory.h"
#include "core/parallel.h"

typedef struct {
    double *a, *b, *c;
    size_t n, parts;
    int init;
} triad_ctx;

static void triad_task(void *ctx, size_t t, int thread)
{
    (void)thread;
    const triad_ctx *x = ctx;
    size_t lo = x->n * t / x->parts, hi = x->n * (t + 1) / x->parts;
    double *a = x->a;
    const double *b = x->b, *c = x->c;
    if (x->init) {
        for (size_t i = lo; i < hi; i++) {
            a[i] = 0;
            x->b[i] = 1.0;
            x->c[i] = 2.0;
        }
        return;
    }
    const double s = 3.0;
    for (size_t i = lo; i < hi; i++)
        a[i] = b[i] + s * c[i];
}

int bench_mode_stream(const bench_opts *o, size_t mbytes)
{
    size_t n = mbytes * (1u << 20) / sizeof(double);
    triad_ctx x = {hd_aligned_alloc(n * sizeof(double)), hd_aligned_alloc(n * sizeof(double)),
                   hd_aligned_alloc(n * sizeof(double)), n, 1, 1};
    if (!x.a || !x.b || !x.c) {
        fprintf(stderr, "stream: cannot allocate 3 x %zu MiB\n", mbytes);
        hd_aligned_free(x.a);
        hd_aligned_free(x.b);
        hd_aligned_free(x.c);
        return 1;
    }
    printf("== stream: triad a = b + s*c, 3 arrays of %zu MiB, GB/s (best / median of %d)\n", mbytes, o->reps);
    for (int t = 0; t < o->nthread_counts; t++) {
        int th = o->threads[t];
        x.parts = (size_t)th;
        x.init = 1; /* first touch by the threads that use the pages */
        hd_parallel_for(x.parts, th, triad_task, &x);
        x.init = 0;
        double g[64], best = 0;
        int reps = o->reps < 64 ? o->reps : 64;
        for (int r = 0; r < reps; r++) {
            double t0 = bench_now();
            hd_parallel_for(x.parts, th, triad_task, &x);
            double dt = bench_now() - t0;
            g[r] = 3.0 * sizeof(double) * (double)n / dt * 1e-9;
            if (g[r] > best)
                best = g[r];
        }
        printf("threads=%-3d %8.1f / %8.1f\n", th, best, bench_median(g, (size_t)reps));
        fflush(stdout);
    }
    hd_aligned_free(x.a);
    hd_aligned_free(x.b);
    hd_aligned_free(x.c);
    return 0;
}
