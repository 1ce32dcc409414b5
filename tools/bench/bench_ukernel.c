/*
 * tools/bench/bench_ukernel.c -- ukernel mode: each GEMM micro-kernel alone on packed panels
 * that stay in L1/L2 (kc = HD_GEMM_KC, C tile rewritten in place), one thread.  Shows how
 * close a kernel gets to the FMA peak before packing, blocking and memory get involved.
 */
#include <stdio.h>

#include "bench.h"
#include "core/memory.h"
#include "kernels/gemm/gemm-ukernels.h"

int bench_mode_ukernel(const bench_opts *o)
{
    printf("== ukernel: micro-kernels on cache-resident panels, kc=%d, 1 thread, GFLOP/s (median of %d)\n",
           HD_GEMM_KC, o->reps);
    size_t kc = HD_GEMM_KC;
    for (size_t es = 4; es <= 8; es += 4) {
        size_t nk;
        const hd_gemm_kernel *ks = hd_gemm_kernels(es, &nk);
        for (size_t q = 0; q < nk; q++) {
            const hd_gemm_kernel *K = &ks[q];
            if (K->isa > hd_cpu_isa())
                continue;
            /* 8 A panels against one B panel, as the driver's inner loop does */
            size_t na = 8;
            void *a = hd_aligned_alloc(na * kc * K->mr * es), *b = hd_aligned_alloc(kc * K->nr * es);
            void *c = hd_aligned_alloc(na * K->mr * K->nr * es);
            if (!a || !b || !c) {
                hd_aligned_free(a);
                hd_aligned_free(b);
                hd_aligned_free(c);
                return 1;
            }
            for (size_t i = 0; i < na * kc * K->mr; i++) {
                if (es == 4)
                    ((float *)a)[i] = 0.001f * (float)(i % 7);
                else
                    ((double *)a)[i] = 0.001 * (double)(i % 7);
            }
            for (size_t i = 0; i < kc * K->nr; i++) {
                if (es == 4)
                    ((float *)b)[i] = 0.002f * (float)(i % 5);
                else
                    ((double *)b)[i] = 0.002 * (double)(i % 5);
            }
            double g[64];
            int reps = o->reps < 64 ? o->reps : 64;
            size_t calls = 2000;
            for (int r = 0; r < reps; r++) {
                double t0 = bench_now();
                for (size_t it = 0; it < calls; it++)
                    for (size_t p = 0; p < na; p++) {
                        if (es == 4)
                            K->f32(K->mr, K->nr, kc, (const float *)a + p * kc * K->mr, b, K->nr,
                                   (float *)c + p * K->mr * K->nr, K->nr, 1.0f, 1.0f);
                        else
                            K->f64(K->mr, K->nr, kc, (const double *)a + p * kc * K->mr, b, K->nr,
                                   (double *)c + p * K->mr * K->nr, K->nr, 1.0, 1.0);
                    }
                double dt = bench_now() - t0;
                g[r] = 2.0 * (double)(K->mr * K->nr * kc) * (double)(calls * na) / dt * 1e-9;
            }
            double med = bench_median(g, (size_t)reps);
            double pk = bench_peak_gflops(K->isa, es, 1, o);
            printf("%-24s %8.1f GFLOP/s  %5.1f%% of %s peak %.1f (best %.1f)\n", K->name, med,
                   pk > 0 ? 100 * med / pk : 0.0, hd_isa_name(K->isa), pk, g[reps - 1]);
            fflush(stdout);
            hd_aligned_free(a);
            hd_aligned_free(b);
            hd_aligned_free(c);
        }
    }
    return 0;
}
