/*
 * core/parallel.h -- the one parallel layer every operation uses.
 *
 * Work is cut into NTASKS tasks by the caller; tasks are dealt to threads in fixed
 * contiguous blocks (static schedule), and a call made from inside a parallel region runs
 * serially, so there is never nested parallelism.  A block keeps its thread number wherever it
 * runs: the calling thread also runs the blocks of workers that have not started when its own
 * block ends (one block after another, never two at once).  Results must not depend on which thread
 * runs a task: reductions keep one partial per task and combine them in task order.
 */
#ifndef HD_CORE_PARALLEL_H
#define HD_CORE_PARALLEL_H

#include <stddef.h>

/* The most threads any operation runs on: the calling thread and up to HD_MAX_THREADS - 1
 * workers of the process's one pool (it lives in libcudnn_ops_infer; every sub-library uses
 * it).  HOSTDNN_NUM_THREADS and the core count are capped to it. */
#define HD_MAX_THREADS 256

/* Operations that give each thread a scratch area of its own inside the user's workspace
 * book this many areas, so that the workspace size does not depend on the thread count; such
 * an operation runs on at most HD_SCRATCH_SLOTS threads. */
#define HD_SCRATCH_SLOTS 8

typedef void (*hd_task_fn)(void *ctx, size_t task, int thread);

/* Threads to use by default: HOSTDNN_NUM_THREADS, else the number of cores; at most
 * HD_MAX_THREADS. */
int hd_default_threads(void);

/* Run fn(ctx, t, thread) for t in [0, ntasks) on up to NTHREADS threads. */
void hd_parallel_for(size_t ntasks, int nthreads, hd_task_fn fn, void *ctx);

/* The same, but each thread takes the next task from a shared counter instead of a fixed
 * block: on a shared machine a preempted thread then holds up one task, not a block.  Which
 * thread runs a task must only pick per-thread scratch (thread < min(ntasks, nthreads)),
 * never the arithmetic. */
void hd_parallel_deal(size_t ntasks, int nthreads, hd_task_fn fn, void *ctx);

/*
 * NSTEPS steps run in order, each of NTASKS tasks, in one parallel region: fn(ctx, step,
 * task, thread).  A task of step s starts only once every task of step s - 1 has returned
 * (its writes are then visible to it) -- for a recurrence whose steps are short (an RNN time
 * step), where a parallel region or a full barrier per step costs more than the step on a
 * shared machine.  Thread w of N owns the tasks [NTASKS*w/N, NTASKS*(w+1)/N) and runs them at
 * every step, so the data a task keeps from step to step stays in one core's caches; a
 * thread that has run its own tasks of a step takes what is left of the others' (from the
 * end of their ranges), so a thread that is preempted or never starts holds up at most the
 * task it is running.  A waiting thread polls briefly, then sleeps until the step it waits
 * for ends (it never holds a task while it waits for a step to open).  With one thread, or
 * without memory for the per-task claims, the tasks run here in order.  As with
 * hd_parallel_deal, THREAD (< min(ntasks, nthreads)) may only pick per-thread scratch, never
 * the arithmetic.
 */
typedef void (*hd_step_fn)(void *ctx, size_t step, size_t task, int thread);
void hd_parallel_steps(size_t nsteps, size_t ntasks, int nthreads, hd_step_fn fn, void *ctx);

#endif
