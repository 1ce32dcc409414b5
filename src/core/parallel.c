/* core/parallel.c -- the only file with OpenMP pragmas (see parallel.h). */
#include "core/parallel.h"

#include <stdlib.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int hd_default_threads(void)
{
    const char *v = getenv("HOSTDNN_NUM_THREADS");
    if (v) {
        long n = strtol(v, NULL, 10);
        if (n >= 1 && n <= 1024)
            return (int)n;
    }
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#endif
}

void hd_parallel_for(size_t ntasks, int nthreads, hd_task_fn fn, void *ctx)
{
    if (ntasks == 0)
        return;
    if (nthreads < 1)
        nthreads = 1;
    if ((size_t)nthreads > ntasks)
        nthreads = (int)ntasks;
#ifdef _OPENMP
    if (nthreads > 1 && !omp_in_parallel()) {
#pragma omp parallel num_threads(nthreads)
        {
            int tid = omp_get_thread_num();
            int nt = omp_get_num_threads();
            size_t lo = ntasks * (size_t)tid / (size_t)nt;
            size_t hi = ntasks * (size_t)(tid + 1) / (size_t)nt;
            for (size_t t = lo; t < hi; t++)
                fn(ctx, t, tid);
        }
        return;
    }
#endif
    for (size_t t = 0; t < ntasks; t++)
        fn(ctx, t, 0);
}
