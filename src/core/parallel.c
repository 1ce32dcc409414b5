/*
 * core/parallel.c -- the parallel layer (see parallel.h): a small pool of worker threads.
 *
 * Why not OpenMP: libgomp's workers spin while they wait, and its wait policy can only be set
 * by environment variables read before any of our code runs.  On a machine with other busy
 * processes (a CI runner, a laptop with a browser) spinning workers steal the time the real
 * work needs, and a two-thread run can end up many times slower than a one-thread run.  This
 * pool's workers poll briefly (yielding), then sleep on a condition variable, which is what
 * passive waiting gives; the caller runs the blocks of workers that have not started by the
 * time its own block is done, then polls (yielding) for up to 2 ms for the others to finish.
 *
 * There is one pool per process: this file is part of the runtime in libcudnn_ops_infer, and
 * the other sub-libraries reach it through the private interface (docs/architecture.md).
 *
 * Semantics are those of the OpenMP version it replaces: tasks are dealt in contiguous
 * blocks (thread t of T runs tasks [n*t/T, n*(t+1)/T)), the caller is thread 0, a call from
 * inside a parallel region (or while another thread of the process uses the pool) runs
 * serially, so there is never nested parallelism and results never depend on it.
 */
#define _GNU_SOURCE
#include "core/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define HD_MAX_WORKERS (HD_MAX_THREADS - 1)
#define HD_SPIN 200                 /* a worker's yield-polls before sleeping */
#define HD_JOIN_POLL_NS 2000000L    /* how long the caller yield-polls for its workers before sleeping */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long gen;              /* bumped for each parallel region */
    int workers;                    /* threads created so far */
    /* the current region */
    hd_task_fn fn;
    void *ctx;
    size_t ntasks;
    int nthreads;
    int remaining;                  /* blocks of this region, besides the caller's, not yet done */
    int caller_cpu;                 /* the CPU the caller was on when it opened the region */
} pool_t;

static pool_t pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0,
                      NULL, NULL, 0, 0, 0, -1};
static pthread_mutex_t submit = PTHREAD_MUTEX_INITIALIZER;   /* one region at a time */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static _Thread_local int in_region;

int hd_default_threads(void)
{
    const char *v = getenv("HOSTDNN_NUM_THREADS");
    if (v) {
        long n = strtol(v, NULL, 10);
        if (n >= 1)
            return n < HD_MAX_THREADS ? (int)n : HD_MAX_THREADS;
    }
    long n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        n = CPU_COUNT(&set);
    else
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n < HD_MAX_THREADS ? (int)n : HD_MAX_THREADS;
}

static void run_block(hd_task_fn fn, void *ctx, size_t ntasks, int nt, int tid)
{
    size_t lo = ntasks * (size_t)tid / (size_t)nt, hi = ntasks * (size_t)(tid + 1) / (size_t)nt;
    in_region = 1;
    for (size_t t = lo; t < hi; t++)
        fn(ctx, t, tid);
    in_region = 0;
}

static unsigned long start_gen[HD_MAX_WORKERS + 1];   /* gen when worker i was made */

/*
 * Block I of region G is run by whoever takes it first: worker I, or the caller once its own
 * block is done.  A worker that has not started by then (asleep, or waiting for a CPU on a
 * loaded machine) would otherwise hold the caller for a whole wake-up or scheduler tick, which
 * on a short region costs many times the region itself; its block then runs on the caller
 * instead, still as thread I (same tasks, same scratch), so results do not change.
 * claim[i] is the last region whose block i was taken; a worker that wakes for a region that
 * has already ended finds a claim at or past that region and takes nothing.
 */
static unsigned long claim[HD_MAX_WORKERS + 1];

static int take_block(int id, unsigned long g)
{
    unsigned long c = __atomic_load_n(&claim[id], __ATOMIC_ACQUIRE);
    return c < g && __atomic_compare_exchange_n(&claim[id], &c, g, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* One poll of a waiting thread: yield, not pause.  On a loaded machine the scheduler may put
 * the waiter on the same CPU as the thread it waits for; a pause loop then holds that thread
 * off for the whole spin, while a yield lets it run.  On an idle machine a yield returns at
 * once and polls like a spin. */
static inline void relax(void) { sched_yield(); }

/*
 * A worker that wakes up on the CPU its caller is running on leaves it.  The scheduler may
 * keep waking the worker on the caller's CPU and never move either thread to an idle one
 * (both count as cache-hot); the worker then only runs once the caller has done every task,
 * and a 2-thread call takes as long as a 1-thread one.  The hop excludes that CPU from the
 * worker's mask, which moves it at once, and then gives the mask back, so the worker is never
 * pinned.
 */
static void leave_caller_cpu(int caller)
{
    if (caller < 0 || sched_getcpu() != caller)
        return;
    cpu_set_t all, others;
    if (sched_getaffinity(0, sizeof all, &all) != 0 || CPU_COUNT(&all) < 2 || !CPU_ISSET(caller, &all))
        return;
    others = all;
    CPU_CLR(caller, &others);
    if (sched_setaffinity(0, sizeof others, &others) == 0)
        sched_setaffinity(0, sizeof all, &all);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;          /* 1.. */
    unsigned long seen = start_gen[id];   /* written before this thread was created */
    for (;;) {
        /* Spin a little first: back-to-back regions are common and sleeping costs more. */
        for (int i = 0; i < HD_SPIN && __atomic_load_n(&pool.gen, __ATOMIC_ACQUIRE) == seen; i++)
            relax();
        pthread_mutex_lock(&pool.mu);
        while (pool.gen == seen)
            pthread_cond_wait(&pool.go, &pool.mu);
        seen = pool.gen;
        if (id >= pool.nthreads) {        /* not needed in this region */
            pthread_mutex_unlock(&pool.mu);
            continue;
        }
        hd_task_fn fn = pool.fn;
        void *ctx = pool.ctx;
        size_t ntasks = pool.ntasks;
        int nt = pool.nthreads;
        int caller = pool.caller_cpu;
        pthread_mutex_unlock(&pool.mu);
        if (!take_block(id, seen))        /* the caller ran it */
            continue;
        leave_caller_cpu(caller);
        run_block(fn, ctx, ntasks, nt, id);
        pthread_mutex_lock(&pool.mu);
        if (__atomic_sub_fetch(&pool.remaining, 1, __ATOMIC_ACQ_REL) == 0)
            pthread_cond_signal(&pool.done);
        pthread_mutex_unlock(&pool.mu);
    }
    return NULL;
}

/* In a child made by fork() the workers do not exist: start from an empty pool. */
static void after_fork_child(void)
{
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.go, NULL);
    pthread_cond_init(&pool.done, NULL);
    pthread_mutex_init(&submit, NULL);
    pool.workers = 0;
    pool.remaining = 0;
}

static void register_atfork(void) { pthread_atfork(NULL, NULL, after_fork_child); }

/* Make sure N workers exist; returns how many do (fewer when threads cannot be made). */
static int ensure_workers(int n)
{
    if (n > HD_MAX_WORKERS)
        n = HD_MAX_WORKERS;     /* start_gen has a slot for each */
    pthread_once(&atfork_once, register_atfork);
    while (pool.workers < n) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        start_gen[pool.workers + 1] = pool.gen;
        int rc = pthread_create(&t, &attr, worker, (void *)(intptr_t)(pool.workers + 1));
        pthread_attr_destroy(&attr);
        if (rc != 0)
            break;
        pool.workers++;
    }
    return pool.workers;
}

void hd_parallel_for(size_t ntasks, int nthreads, hd_task_fn fn, void *ctx)
{
    if (ntasks == 0)
        return;
    if (nthreads < 1)
        nthreads = 1;
    if ((size_t)nthreads > ntasks)
        nthreads = (int)ntasks;
    if (nthreads == 1 || in_region || pthread_mutex_trylock(&submit) != 0) {
        for (size_t t = 0; t < ntasks; t++)
            fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&pool.mu);
    int have = ensure_workers(nthreads - 1);
    if (have < nthreads - 1)
        nthreads = have + 1;
    pool.fn = fn;
    pool.ctx = ctx;
    pool.ntasks = ntasks;
    pool.nthreads = nthreads;
    pool.remaining = nthreads - 1;
    pool.caller_cpu = sched_getcpu();
    unsigned long g = pool.gen + 1;
    __atomic_store_n(&pool.gen, g, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.mu);

    run_block(fn, ctx, ntasks, nthreads, 0);
    /* the blocks of workers that have not started yet */
    for (int id = 1; id < nthreads; id++)
        if (take_block(id, g)) {
            run_block(fn, ctx, ntasks, nthreads, id);
            __atomic_sub_fetch(&pool.remaining, 1, __ATOMIC_ACQ_REL);
        }

    /* The caller waits for its workers by polling, not sleeping, unless they take long: a
       caller that sleeps is woken by the last worker on that worker's CPU, so the next region
       can begin with both threads on one CPU and pay a migration to an idle one each time. */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; __atomic_load_n(&pool.remaining, __ATOMIC_ACQUIRE) > 0; i++) {
        relax();
        if ((i & 15) == 15) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > HD_JOIN_POLL_NS)
                break;
        }
    }
    pthread_mutex_lock(&pool.mu);
    while (pool.remaining > 0)
        pthread_cond_wait(&pool.done, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&submit);
}

typedef struct {
    hd_task_fn fn;
    void *ctx;
    size_t ntasks;
    atomic_size_t next;
} deal_ctx;

static void deal_worker(void *vctx, size_t task, int thread)
{
    (void)task;
    deal_ctx *d = vctx;
    for (size_t t; (t = atomic_fetch_add_explicit(&d->next, 1, memory_order_relaxed)) < d->ntasks;)
        d->fn(d->ctx, t, thread);
}

void hd_parallel_deal(size_t ntasks, int nthreads, hd_task_fn fn, void *ctx)
{
    if (ntasks == 0)
        return;
    if (nthreads < 1)
        nthreads = 1;
    deal_ctx d;
    d.fn = fn, d.ctx = ctx, d.ntasks = ntasks;
    atomic_init(&d.next, 0);
    hd_parallel_for(ntasks < (size_t)nthreads ? ntasks : (size_t)nthreads, nthreads, deal_worker, &d);
}

typedef struct {
    hd_step_fn fn;
    void *ctx;
    size_t nsteps, ntasks;
    int nworkers;
    atomic_size_t *claim;   /* per task: the steps it has been taken for (step s moves it from s to s+1) */
    atomic_size_t done;     /* tasks finished, over all steps */
    atomic_int sleepers;    /* threads asleep (or about to be) on WAKE */
    pthread_mutex_t mu;
    pthread_cond_t wake;
} steps_ctx;

/* How long a waiting thread polls before it sleeps: about one task of an RNN step. */
#define HD_STEP_POLL_NS 50000L

/* Wait until NEED tasks have finished: poll for a while (the step's last tasks usually end
 * within one task's time), then sleep until the thread that finishes a step wakes us.  Not
 * yield-polling: on a loaded machine a thread that keeps yielding is charged the CPU time and
 * scheduled late, while a sleeper that is woken runs at once. */
static void steps_wait(steps_ctx *d, size_t need)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; atomic_load_explicit(&d->done, memory_order_acquire) < need; i++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if ((i & 63) != 63)
            continue;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < HD_STEP_POLL_NS)
            continue;
        /* sequentially consistent with the finisher's done / sleepers pair: either it sees
           this sleeper, or this thread sees its finished task */
        atomic_fetch_add(&d->sleepers, 1);
        pthread_mutex_lock(&d->mu);
        while (atomic_load(&d->done) < need)
            pthread_cond_wait(&d->wake, &d->mu);
        pthread_mutex_unlock(&d->mu);
        atomic_fetch_sub(&d->sleepers, 1);
        return;
    }
}

/* After a task: count it, and wake the sleepers when it ended a step. */
static void steps_finish(steps_ctx *d)
{
    size_t n = atomic_fetch_add(&d->done, 1) + 1;
    if (n % d->ntasks == 0 && atomic_load(&d->sleepers) > 0) {
        pthread_mutex_lock(&d->mu);
        pthread_cond_broadcast(&d->wake);
        pthread_mutex_unlock(&d->mu);
    }
}

/* Runs TASK of step S unless another thread has taken it. */
static void steps_try(steps_ctx *d, size_t s, size_t task, int thread)
{
    size_t expect = s;
    if (atomic_load_explicit(&d->claim[task], memory_order_relaxed) != s ||
        !atomic_compare_exchange_strong(&d->claim[task], &expect, s + 1))
        return;
    d->fn(d->ctx, s, task, thread);
    steps_finish(d);
}

static void steps_worker(void *vctx, size_t w, int thread)
{
    steps_ctx *d = vctx;
    const size_t nt = d->ntasks, nw = (size_t)d->nworkers;
    for (size_t s = 0; s < d->nsteps; s++) {
        /* Wait for the step to open before taking anything: a thread that took a task and
           then lost its CPU while waiting would hold up the whole step. */
        if (atomic_load_explicit(&d->done, memory_order_acquire) < s * nt)
            steps_wait(d, s * nt);
        for (size_t t = nt * w / nw; t < nt * (w + 1) / nw; t++)
            steps_try(d, s, t, thread);
        /* what the others have not taken yet, from the end of their ranges (they work from
           the start of theirs) */
        for (size_t k = 1; k < nw; k++) {
            size_t v = (w + k) % nw;
            for (size_t t = nt * (v + 1) / nw; t-- > nt * v / nw;)
                steps_try(d, s, t, thread);
        }
    }
}

void hd_parallel_steps(size_t nsteps, size_t ntasks, int nthreads, hd_step_fn fn, void *ctx)
{
    if (nsteps == 0 || ntasks == 0)
        return;
    if (nthreads < 1)
        nthreads = 1;
    if ((size_t)nthreads > ntasks)
        nthreads = (int)ntasks;
    steps_ctx d;
    d.claim = nthreads > 1 ? malloc(ntasks * sizeof *d.claim) : NULL;
    if (!d.claim) {   /* one thread, or no memory for the claims: in order, here */
        for (size_t s = 0; s < nsteps; s++)
            for (size_t t = 0; t < ntasks; t++)
                fn(ctx, s, t, 0);
        return;
    }
    d.fn = fn, d.ctx = ctx, d.nsteps = nsteps, d.ntasks = ntasks, d.nworkers = nthreads;
    for (size_t t = 0; t < ntasks; t++)
        atomic_init(&d.claim[t], 0);
    atomic_init(&d.done, 0);
    atomic_init(&d.sleepers, 0);
    pthread_mutex_init(&d.mu, NULL);
    pthread_cond_init(&d.wake, NULL);
    hd_parallel_for((size_t)nthreads, nthreads, steps_worker, &d);
    pthread_cond_destroy(&d.wake);
    pthread_mutex_destroy(&d.mu);
    free(d.claim);
}
