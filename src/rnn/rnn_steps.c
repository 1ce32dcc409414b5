/*
 * rnn/rnn_steps.c -- time steps with a home thread per block of hidden units (rnn_steps.h).
 */
#define _GNU_SOURCE
#include "rnn/rnn_steps.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "core/parallel.h"

typedef struct {
    hd_rnn_step_fn fn;
    void *ctx;
    size_t nsteps, ntasks;
    int nworkers;
    atomic_size_t *claim;   /* per task: how many steps it has been taken for (step s takes it from s to s+1) */
    atomic_size_t done;     /* tasks finished, over all steps */
    atomic_int sleepers;    /* threads asleep (or about to be) on WAKE */
    pthread_mutex_t mu;
    pthread_cond_t wake;
} steps_t;

/* How long a waiting thread polls before it sleeps: about one task of an RNN step. */
#define STEP_POLL_NS 50000L

/* Wait until NEED tasks have finished: poll for a while (the step's last tasks usually end
 * within one task's time), then sleep until the thread that finishes a step wakes us. */
static void steps_wait(steps_t *d, size_t need)
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
        if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < STEP_POLL_NS)
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

/* Runs TASK of step S unless another thread has taken it; 1 if this thread ran it. */
static int steps_try(steps_t *d, size_t s, size_t task, int thread)
{
    size_t expect = s;
    if (atomic_load_explicit(&d->claim[task], memory_order_relaxed) != s ||
        !atomic_compare_exchange_strong(&d->claim[task], &expect, s + 1))
        return 0;
    d->fn(d->ctx, s, task, thread);
    size_t n = atomic_fetch_add(&d->done, 1) + 1;
    if (n % d->ntasks == 0 && atomic_load(&d->sleepers) > 0) {
        pthread_mutex_lock(&d->mu);
        pthread_cond_broadcast(&d->wake);
        pthread_mutex_unlock(&d->mu);
    }
    return 1;
}

static void steps_worker(void *vctx, size_t w, int thread)
{
    steps_t *d = vctx;
    const size_t nt = d->ntasks, nw = (size_t)d->nworkers;
    for (size_t s = 0; s < d->nsteps; s++) {
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

int hd_rnn_parallel_steps(size_t nsteps, size_t ntasks, int nthreads, hd_rnn_step_fn fn, void *ctx)
{
    if (nsteps == 0 || ntasks == 0)
        return 1;
    if (nthreads < 1)
        nthreads = 1;
    if ((size_t)nthreads > ntasks)
        nthreads = (int)ntasks;
    steps_t d;
    d.fn = fn, d.ctx = ctx, d.nsteps = nsteps, d.ntasks = ntasks, d.nworkers = nthreads;
    d.claim = malloc(ntasks * sizeof *d.claim);
    if (!d.claim)
        return 0;
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
    return 1;
}
