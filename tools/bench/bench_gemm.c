/*
 * tools/bench/bench_gemm.c -- gemm mode: hd_sgemm / hd_dgemm GFLOP/s and the fraction of the
 * measured peak of the same ISA and thread count.  Thread counts are interleaved inside each
 * repetition (1, N, 1, N, ...) so a noisy neighbour hurts all of them alike, and each GEMM
 * sample is preceded by a 20 ms peak sample: "% of peak" is the median of the per-repetition
 * ratios.  Each repetition repeats the call until it has run min_time; medians are reported.
 */
#include <dlfcn.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"
#include "core/memory.h"
#include "kernels/gemm/gemm.h"

/*
 * Optional comparison (--ref=dnnl): oneDNN's row-major dnnl_sgemm (and dnnl_dgemm where a
 * version has it), loaded with
 * dlopen so that nothing in the build depends on oneDNN.  Its thread count is set through
 * omp_set_num_threads (Debian's oneDNN uses OpenMP).
 */
typedef int (*dnnl_sgemm_fn)(char, char, int64_t, int64_t, int64_t, float, const float *, int64_t,
                             const float *, int64_t, float, float *, int64_t);
typedef int (*dnnl_dgemm_fn)(char, char, int64_t, int64_t, int64_t, double, const double *, int64_t,
                             const double *, int64_t, double, double *, int64_t);
static dnnl_sgemm_fn ref_sgemm;
static dnnl_dgemm_fn ref_dgemm;

int bench_load_ref(const char *name)
{
    if (strcmp(name, "dnnl") != 0) {
        fprintf(stderr, "hostdnn-bench: unknown reference '%s' (known: dnnl)\n", name);
        return -1;
    }
    static const char *const libs[] = {"libdnnl.so.3", "libdnnl.so.2", "libdnnl.so"};
    void *h = NULL;
    for (size_t i = 0; i < 3 && !h; i++)
        h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "hostdnn-bench: oneDNN not found (%s)\n", dlerror());
        return -1;
    }
    *(void **)&ref_sgemm = dlsym(h, "dnnl_sgemm");
    *(void **)&ref_dgemm = dlsym(h, "dnnl_dgemm");
    if (!ref_sgemm) { /* oneDNN has no dnnl_dgemm: f64 runs are then not compared */
        fprintf(stderr, "hostdnn-bench: dnnl_sgemm missing in oneDNN\n");
        return -1;
    }
    return 0;
}

typedef struct {
    const gemm_prob *g;
    hd_isa_t isa;
    int dbl;
    void *A, *B, *C;
    size_t lda, ldb, ldc;
} gemm_run;

static void call(const gemm_run *r, int threads, int impl)
{
    const gemm_prob *g = r->g;
    if (impl == 1) {
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        if (r->dbl)
            ref_dgemm(g->transa, g->transb, (int64_t)g->m, (int64_t)g->n, (int64_t)g->k, 1.0, r->A,
                      (int64_t)r->lda, r->B, (int64_t)r->ldb, 0.0, r->C, (int64_t)r->ldc);
        else
            ref_sgemm(g->transa, g->transb, (int64_t)g->m, (int64_t)g->n, (int64_t)g->k, 1.0f, r->A,
                      (int64_t)r->lda, r->B, (int64_t)r->ldb, 0.0f, r->C, (int64_t)r->ldc);
        return;
    }
    if (r->dbl)
        hd_dgemm_isa(r->isa, threads, g->transa, g->transb, g->m, g->n, g->k, 1.0, r->A, r->lda, r->B, r->ldb,
                     0.0, r->C, r->ldc);
    else
        hd_sgemm_isa(r->isa, threads, g->transa, g->transb, g->m, g->n, g->k, 1.0f, r->A, r->lda, r->B, r->ldb,
                     0.0f, r->C, r->ldc);
}

static void fill(void *p, size_t n, int dbl, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        double v = ((seed >> 9) & 0xFFFF) / 65536.0 - 0.5;
        if (dbl)
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
}

/* GFLOP/s of the median and of the best repetition for each implementation (0 hostdnn,
 * 1 reference) and thread count, and per CPU second of each thread (CPU_GF: what the rate would
 * be if the threads were never descheduled -- a load-independent estimate on a shared
 * machine, exact for one thread, optimistic for several); returns -1 if out of memory. */
static int measure(const bench_opts *o, const gemm_prob *g, int nimpl, double gflops[2][2], double best[2][2],
                   double ms[2][2], double ratio[2], double cpu_gf[2][2])
{
    gemm_run r = {g, o->isa, o->dt_double, NULL, NULL, NULL, 0, 0, 0};
    size_t es = o->dt_double ? 8 : 4;
    size_t arows = g->transa == 'N' ? g->m : g->k, acols = g->transa == 'N' ? g->k : g->m;
    size_t brows = g->transb == 'N' ? g->k : g->n, bcols = g->transb == 'N' ? g->n : g->k;
    r.lda = acols;
    r.ldb = bcols;
    r.ldc = g->n;
    r.A = hd_aligned_alloc(arows * acols * es);
    r.B = hd_aligned_alloc(brows * bcols * es);
    r.C = hd_aligned_alloc(g->m * g->n * es);
    if (!r.A || !r.B || !r.C) {
        hd_aligned_free(r.A);
        hd_aligned_free(r.B);
        hd_aligned_free(r.C);
        return -1;
    }
    fill(r.A, arows * acols, r.dbl, 1);
    fill(r.B, brows * bcols, r.dbl, 2);
    fill(r.C, g->m * g->n, r.dbl, 3);

    /* Warm up and calibrate: calls per repetition so that one repetition lasts min_time. */
    int calls[2][2];
    for (int im = 0; im < nimpl; im++) {
        for (int t = 0; t < o->nthread_counts; t++) {
            call(&r, o->threads[t], im);
            double t0 = bench_now();
            call(&r, o->threads[t], im);
            double dt = bench_now() - t0;
            calls[im][t] = dt >= o->min_time ? 1 : (int)(o->min_time / (dt > 1e-7 ? dt : 1e-7)) + 1;
            if (calls[im][t] > 100000)
                calls[im][t] = 100000;
        }
    }
    static double samples[2][2][64], cpu_samples[2][2][64], ratios[2][64];
    int reps = o->reps < 64 ? o->reps : 64;
    double flops = 2.0 * (double)g->m * (double)g->n * (double)g->k;
    hd_isa_t isa = o->isa < hd_cpu_isa() ? o->isa : hd_cpu_isa();
    for (int rep = 0; rep < reps; rep++) {
        for (int im = 0; im < nimpl; im++) {
            for (int t = 0; t < o->nthread_counts; t++) {
                /* A short peak measurement right before: the ratio of the two sees the same
                   neighbours, which matters on a shared machine. */
                double pk = im == 0 ? bench_peak_sample(isa, es, o->threads[t], 0.02) : 0;
                double t0 = bench_now(), u0 = bench_cpu_now();
                for (int c = 0; c < calls[im][t]; c++)
                    call(&r, o->threads[t], im);
                samples[im][t][rep] = (bench_now() - t0) / calls[im][t];
                cpu_samples[im][t][rep] = (bench_cpu_now() - u0) / calls[im][t] / o->threads[t];
                if (im == 0)
                    ratios[t][rep] = pk > 0 ? flops / samples[im][t][rep] * 1e-9 / pk : 0;
            }
        }
    }
    for (int t = 0; t < o->nthread_counts; t++)
        ratio[t] = bench_median(ratios[t], (size_t)reps);
    for (int im = 0; im < nimpl; im++) {
        for (int t = 0; t < o->nthread_counts; t++) {
            double med = bench_median(samples[im][t], (size_t)reps); /* sorts: [0] is the best */
            ms[im][t] = med * 1e3;
            gflops[im][t] = flops / med * 1e-9;
            best[im][t] = flops / samples[im][t][0] * 1e-9;
            cpu_gf[im][t] = flops / bench_median(cpu_samples[im][t], (size_t)reps) * 1e-9;
        }
    }
    hd_aligned_free(r.A);
    hd_aligned_free(r.B);
    hd_aligned_free(r.C);
    return 0;
}

int bench_mode_gemm(const bench_opts *o, const bench_prob *probs, size_t n)
{
    size_t es = o->dt_double ? 8 : 4;
    hd_isa_t isa = o->isa < hd_cpu_isa() ? o->isa : hd_cpu_isa();
    printf("== gemm %s, kernel %s, median of %d repetitions (>= %.0f ms each), thread counts and peak "
           "samples interleaved\n",
           o->dt_double ? "f64" : "f32", hd_gemm_kernel_name(es, isa), o->reps, o->min_time * 1e3);
    double peak[2];
    for (int t = 0; t < o->nthread_counts; t++) {
        peak[t] = bench_peak_gflops(isa, es, o->threads[t], o);
        printf("   peak %s %s threads=%d: %.1f GFLOP/s\n", hd_isa_name(isa), o->dt_double ? "f64" : "f32",
               o->threads[t], peak[t]);
    }
    int nimpl = (o->dt_double ? ref_dgemm != NULL : ref_sgemm != NULL) ? 2 : 1;
    printf("   columns: median GFLOP/s, %% of peak (median over repetitions of GFLOP/s / a peak sample taken\n"
           "   just before), best GFLOP/s, median ms, GFLOP/s per thread CPU time (cpu)%s\n",
           nimpl > 1 ? "; then oneDNN's dnnl_*gemm: median GFLOP/s (best) [cpu]" : "");
    printf("%-20s", "problem");
    for (int t = 0; t < o->nthread_counts; t++)
        printf(" | thr=%-2d %7s %6s %7s %8s %6s", o->threads[t], "GFLOP/s", "%peak", "best", "ms", "cpu");
    printf("\n");
    fflush(stdout);
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (probs[i].kind != PROB_GEMM)
            continue;
        double gf[2][2], best[2][2], ms[2][2], ratio[2], cgf[2][2];
        if (o->verbose)
            fprintf(stderr, "[%zu/%zu] %s ...\n", i + 1, n, probs[i].text);
        if (measure(o, &probs[i].u.gemm, nimpl, gf, best, ms, ratio, cgf)) {
            printf("%-20s out of memory\n", probs[i].text);
            failed = 1;
            continue;
        }
        printf("%-20s", probs[i].text);
        for (int t = 0; t < o->nthread_counts; t++)
            printf(" | thr=%-2d %7.1f %5.1f%% %7.1f %8.3f %6.1f", o->threads[t], gf[0][t], 100.0 * ratio[t],
                   best[0][t], ms[0][t], cgf[0][t]);
        if (nimpl > 1) {
            printf(" | dnnl:");
            for (int t = 0; t < o->nthread_counts; t++)
                printf(" thr=%d %.1f (%.1f) [%.1f]", o->threads[t], gf[1][t], best[1][t], cgf[1][t]);
        }
        printf("  [%zu/%zu]\n", i + 1, n);
        fflush(stdout);
    }
    return failed;
}
