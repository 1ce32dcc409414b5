/*
 * rnn/rnn_steps.h -- the time steps of one RNN direction on several threads, each thread
 * keeping the same hidden units from step to step.
 *
 * NSTEPS steps run in order, each cut into NTASKS tasks (blocks of hidden units):
 * fn(ctx, step, task, thread).  Thread w of N owns the tasks [NTASKS*w/N, NTASKS*(w+1)/N) and
 * runs them at every step, so the state, cell and gate columns of its units stay in its
 * core's caches instead of moving to the other core whenever a shared counter dealt the
 * block to the other thread.  A thread that has run its own tasks of a step takes what is
 * left of the others' (from the end of their ranges), so a thread that is preempted or never
 * starts holds up at most the task it is running.  A task of step s starts only once every
 * task of step s - 1 has returned (its writes are then visible); a waiting thread polls
 * briefly, then sleeps until the step it waits for ends.  THREAD (< NTHREADS) may only pick
 * per-thread scratch, never the arithmetic: results do not depend on which thread runs a task.
 */
#ifndef HD_RNN_RNN_STEPS_H
#define HD_RNN_RNN_STEPS_H

#include <stddef.h>

typedef void (*hd_rnn_step_fn)(void *ctx, size_t step, size_t task, int thread);

/* 0 when the claim array cannot be allocated (nothing run; the caller falls back). */
int hd_rnn_parallel_steps(size_t nsteps, size_t ntasks, int nthreads, hd_rnn_step_fn fn, void *ctx);

#endif
