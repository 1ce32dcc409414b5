/* bench/bench_time.h -- the clock and the sort order the benchmark programs share (hostdnn's
 * and the oneDNN anchors' alike, so both sides of a comparison time the same way). */
#ifndef HD_BENCH_TIME_H
#define HD_BENCH_TIME_H

#include <time.h>

/* Monotonic time in milliseconds. */
static inline double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* qsort order of doubles (for medians). */
static inline int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
