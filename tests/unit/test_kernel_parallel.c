/*
 * The parallel layer (src/core/parallel.c): every task runs exactly once for any split of
 * tasks and threads (static blocks and dealt from a counter), the static schedule deals the
 * blocks it documents (also where the caller runs a block of a worker that has not started), a
 * call from inside a region runs serially, hd_parallel_steps runs every task once and each step after the one
 * before (also inside a region), and the workers' CPU masks are the process's again after regions (a
 * worker that wakes on its caller's CPU leaves it by narrowing its mask for a moment; it must
 * never stay pinned).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/parallel.h"

#define MAXT 1000

typedef struct {
    int hits[MAXT];
    int thread_of[MAXT];
} run_t;

static void count_task(void *ctx, size_t task, int thread)
{
    run_t *r = ctx;
    __atomic_add_fetch(&r->hits[task], 1, __ATOMIC_RELAXED);
    r->thread_of[task] = thread;
}

/* Every task once; static blocks (hd_parallel_for) or, dealt from a counter
 * (hd_parallel_deal), any thread index below min(ntasks, nthreads). */
static void check_split(size_t ntasks, int nthreads, int dealt)
{
    static run_t r;
    memset(&r, 0, sizeof r);
    (dealt ? hd_parallel_deal : hd_parallel_for)(ntasks, nthreads, count_task, &r);
    int once = 1, placed = 1;
    int used = nthreads < 1 ? 1 : (size_t)nthreads > ntasks ? (int)ntasks : nthreads;
    for (size_t t = 0; t < ntasks; t++) {
        once &= r.hits[t] == 1;
        if (dealt) {
            placed &= r.thread_of[t] >= 0 && r.thread_of[t] < used;
            continue;
        }
        /* thread t of T runs the tasks [n*t/T, n*(t+1)/T) */
        int want = -1;
        for (int i = 0; i < used; i++)
            if (t >= ntasks * (size_t)i / (size_t)used && t < ntasks * (size_t)(i + 1) / (size_t)used)
                want = i;
        placed &= r.thread_of[t] == want;
    }
    CHECK_MSG(once, "%zu tasks on %d threads (dealt %d): each exactly once", ntasks, nthreads, dealt);
    CHECK_MSG(placed, "%zu tasks on %d threads (dealt %d): %s", ntasks, nthreads, dealt,
              dealt ? "thread index in range" : "static blocks");
}

/* Which OS thread ran each task, to see blocks that ran on the caller. */
typedef struct {
    pthread_t os[8];
    int thread_of[8];
} where_t;

static void where_task(void *ctx, size_t task, int thread)
{
    where_t *w = ctx;
    w->os[task] = pthread_self();
    w->thread_of[task] = thread;
}

static void count_calls(void *ctx, size_t task, int thread)
{
    (void)task;
    (void)thread;
    ++*(int *)ctx;
}

typedef struct {
    int outer_thread[8];
    int inner_thread[8][4];
} nest_t;

static void inner_record(void *ctx, size_t task, int thread)
{
    int *slot = ctx;
    slot[task] = thread;
}

static void outer_task(void *ctx, size_t task, int thread)
{
    nest_t *n = ctx;
    n->outer_thread[task] = thread;
    for (int i = 0; i < 4; i++)
        n->inner_thread[task][i] = -1;
    hd_parallel_for(4, 4, inner_record, n->inner_thread[task]);
}

/* hd_parallel_steps: each task records how many tasks had finished when it started; a task
 * of step s must see every task of the steps before it finished (>= s * ntasks). */
typedef struct {
    size_t ntasks;
    int hits[MAXT];
    size_t seen[MAXT];
    int thread_of[MAXT];
    size_t finished;
} steps_t;

static void step_task(void *ctx, size_t step, size_t task, int thread)
{
    steps_t *r = ctx;
    size_t i = step * r->ntasks + task;
    r->seen[i] = __atomic_load_n(&r->finished, __ATOMIC_ACQUIRE);
    r->thread_of[i] = thread;
    __atomic_add_fetch(&r->hits[i], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&r->finished, 1, __ATOMIC_RELEASE);
}

/* Runs NSTEPS x NTASKS on NTHREADS; bit 0: a task ran other than once, bit 1: a step started
 * before the one before had finished, bit 2: a thread index out of range. */
static int steps_faults(size_t nsteps, size_t ntasks, int nthreads)
{
    /* one record per call: the outer region of outer_steps runs this on several threads */
    steps_t *r = calloc(1, sizeof *r);
    if (!r)
        return 8;
    r->ntasks = ntasks;
    hd_parallel_steps(nsteps, ntasks, nthreads, step_task, r);
    size_t total = nsteps * ntasks;
    int used = nthreads < 1 ? 1 : (size_t)nthreads > total ? (int)total : nthreads;
    int faults = 0;
    for (size_t i = 0; i < total; i++) {
        faults |= r->hits[i] != 1;
        faults |= (r->seen[i] < i / ntasks * ntasks) << 1;
        faults |= !(r->thread_of[i] >= 0 && r->thread_of[i] < used) << 2;
    }
    free(r);
    return faults;
}

static void check_steps(size_t nsteps, size_t ntasks, int nthreads)
{
    int f = steps_faults(nsteps, ntasks, nthreads);
    CHECK_MSG(!(f & 1), "steps %zu x %zu on %d threads: each task once", nsteps, ntasks, nthreads);
    CHECK_MSG(!(f & 2), "steps %zu x %zu on %d threads: a step starts after the one before", nsteps, ntasks,
              nthreads);
    CHECK_MSG(!(f & 4), "steps %zu x %zu on %d threads: thread index in range", nsteps, ntasks, nthreads);
    CHECK_MSG(!(f & 8), "steps %zu x %zu: out of memory", nsteps, ntasks);
}

/* Each task of an outer region runs steps inside it (serially, still in order) and keeps
 * its faults in its own slot (the checks are counted by the main thread). */
static void outer_steps(void *ctx, size_t task, int thread)
{
    (void)thread;
    ((int *)ctx)[task] = steps_faults(5, 3, 4) + 1;
}

#ifdef __linux__
/* The CPU list the kernel reports for one thread of this process ("" when unreadable). */
static void cpus_allowed(const char *path, char *out, size_t cap)
{
    char line[512];
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
            snprintf(out, cap, "%s", line + 18);
            break;
        }
    fclose(f);
}
#endif

int main(void)
{
    SECTION("every task once, static blocks");
    size_t ns[] = {1, 2, 3, 7, 64, 999};
    int ts[] = {0, 1, 2, 3, 5, 16};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++)
            check_split(ns[i], ts[j], 0);
    int calls = 0;
    hd_parallel_for(0, 4, count_calls, &calls);   /* no tasks: returns, calls nothing */
    CHECK_MSG(calls == 0, "0 tasks: %d calls", calls);

    SECTION("dealt from a counter: every task once, thread indices in range");
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++)
            check_split(ns[i], ts[j], 1);
    hd_parallel_deal(0, 4, count_calls, &calls);
    CHECK_MSG(calls == 0, "dealt, 0 tasks: %d calls", calls);

    SECTION("a worker's block that the caller runs keeps its thread number");
    /* Regions of one tiny task per thread: the caller is often done before a worker wakes
       and then runs that worker's block itself, as the worker's thread number. */
    int kept = 1, on_caller = 0;
    for (int rep = 0; rep < 2000; rep++) {
        where_t w;
        memset(&w, 0, sizeof w);
        int nt = 2 + rep % 3;
        hd_parallel_for((size_t)nt, nt, where_task, &w);
        for (int t = 0; t < nt; t++) {
            kept &= w.thread_of[t] == t;
            on_caller += t > 0 && pthread_equal(w.os[t], pthread_self());
        }
    }
    CHECK_MSG(kept, "2000 short regions: every task with its block's thread number");
    printf("  (%d worker blocks of 6000 ran on the caller)\n", on_caller);

    SECTION("a call inside a region runs serially on the caller's thread");
    nest_t n;
    memset(&n, 0, sizeof n);
    hd_parallel_for(8, 3, outer_task, &n);
    int serial = 1;
    for (int t = 0; t < 8; t++)
        for (int i = 0; i < 4; i++)
            serial &= n.inner_thread[t][i] == 0;   /* the serial path passes thread 0 */
    CHECK_MSG(serial, "inner tasks ran serially");

    SECTION("steps: every task once, each step after the one before");
    size_t st[][2] = {{1, 1}, {1, 5}, {50, 1}, {50, 3}, {20, 16}, {7, 64}};
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
        for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++)
            check_steps(st[i][0], st[i][1], ts[j]);
    for (int rep = 0; rep < 200; rep++)
        check_steps(10, 2 + (size_t)rep % 5, 2 + rep % 3);
    hd_parallel_steps(0, 4, 2, step_task, NULL);   /* nothing to run: fn never called */
    hd_parallel_steps(4, 0, 2, step_task, NULL);
    int outer[3] = {0, 0, 0};
    hd_parallel_for(3, 3, outer_steps, outer);
    for (int t = 0; t < 3; t++)
        CHECK_MSG(outer[t] == 1, "steps inside region %d: %s", t, outer[t] ? "faults" : "not run");

#ifdef __linux__   /* reads the threads' CPU masks from /proc */
    SECTION("workers are never left pinned");
    /* many short regions, so that some worker is likely to wake on the caller's CPU */
    for (int rep = 0; rep < 2000; rep++)
        check_split(7, 2 + rep % 3, rep & 1);
    char mine[512];
    cpus_allowed("/proc/thread-self/status", mine, sizeof mine);
    DIR *d = opendir("/proc/self/task");
    int threads = 0, same = 1;
    if (d && mine[0]) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char theirs[512], path[300];
            snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
            cpus_allowed(path, theirs, sizeof theirs);
            threads++;
            if (strcmp(theirs, mine) != 0) {
                same = 0;
                fprintf(stderr, "thread %s allows %s, the caller %s", e->d_name, theirs, mine);
            }
        }
    }
    if (d)
        closedir(d);
    CHECK_MSG(!d || !mine[0] || (threads >= 2 && same), "%d threads, all with the caller's CPU mask", threads);
#endif
    return hd_test_finish();
}
