/*
 * adv/rnn_find.h -- the legacy RNN algorithm queries (cudnnGetRNN*AlgorithmMaxCount and
 * cudnnFindRNN*AlgorithmEx), shared by adv_infer and adv_train.  Header-only, like
 * rnn_legacy.h.  Include it after defining _POSIX_C_SOURCE (clock_gettime).
 *
 * hostdnn has one RNN code path on the host: CUDNN_RNN_ALGO_STANDARD.  The persistent
 * algorithms are GPU scheduling strategies (weights kept in on-chip memory across steps); a
 * descriptor set to one of them runs the same host code, so they are not separate candidates
 * and MaxCount reports 1.  Find runs the real computation (its outputs are the call's
 * outputs), times it, and reports STANDARD with the best time and the workspace size.
 *
 * findIntensity: cuDNN clamps it to [-1, 1] and uses |value| as the share of its search
 * space.  With one candidate the only thing to scale is how often it is timed: 1 run at 0,
 * up to 3 runs at |1| (cuDNN's quick search also runs the problem up to three times).
 * NaN counts as 0.  The reported time is the fastest run, in milliseconds.
 *
 * The algorithm descriptor each result refers to is created here (with the internal
 * hd_impl_ functions, so the log shows only the user's calls) and belongs to the caller
 * (cudnnGetAlgorithmPerformance hands it out; destroy it with cudnnDestroyAlgorithmDescriptor).
 */
#ifndef HD_ADV_RNN_FIND_H
#define HD_ADV_RNN_FIND_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/api.h"
#include "core/check.h"
#include "core/dropout_desc.h"
#include "core/handle.h"
#include "hd_impl.h"
#include "core/object.h"
#include "adv/rnn_check.h"
#include "adv/rnn_run.h"

enum { HD_RNN_FIND_ALGOS = 1, HD_RNN_FIND_MAX_RUNS = 3 };

/* A training forward pass with inter-layer dropout advances the dropout states buffer.  Find
 * rewinds it before each repeated run so its outputs and the buffer end as after one call. */
typedef struct {
    void *states;                      /* NULL: no dropout states to rewind */
    struct hd_dropout_state saved;
} hd_rnn_find_drop;

static inline void hd_rnn_find_drop_save(hd_rnn_find_drop *d, const struct cudnnRNNStruct *r)
{
    d->states = NULL;
    if (r && r->dropout && r->dropout->is_set && r->dropout->states) {
        d->states = r->dropout->states;
        memcpy(&d->saved, d->states, sizeof d->saved);
    }
}

static inline void hd_rnn_find_drop_restore(const hd_rnn_find_drop *d)
{
    if (d->states)
        memcpy(d->states, &d->saved, sizeof d->saved);
}

/* cudnnGetRNN*AlgorithmMaxCount */
static inline cudnnStatus_t hd_rnn_algo_max_count(const char *fn, cudnnHandle_t handle,
                                                  const struct cudnnRNNStruct *r, int *count)
{
    cudnnStatus_t st = hd_handle_check(handle, fn);
    if (st != CUDNN_STATUS_SUCCESS || (st = hd_rnn_check_desc(fn, r)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (!count)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "count is NULL");
    *count = HD_RNN_FIND_ALGOS;
    return CUDNN_STATUS_SUCCESS;
}

static inline int hd_rnn_find_runs(float intensity)
{
    float a = intensity < 0 ? -intensity : intensity;
    if (!(a > 0.0f))   /* 0 or NaN: the quick search */
        return 1;
    if (a > 1.0f)
        a = 1.0f;
    int runs = 1 + (int)(a * (HD_RNN_FIND_MAX_RUNS - 1) + 0.999f);
    return runs > HD_RNN_FIND_MAX_RUNS ? HD_RNN_FIND_MAX_RUNS : runs;
}

static inline double hd_rnn_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The find arguments, checked before any computation so a refusal leaves every output as it
 * was; on success *AD is a fresh descriptor holding CUDNN_RNN_ALGO_STANDARD. */
static inline cudnnStatus_t hd_rnn_find_begin(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *r,
                                              int requested, const int *returned,
                                              const cudnnAlgorithmPerformance_t *perf, cudnnAlgorithmDescriptor_t *ad)
{
    cudnnStatus_t st = hd_handle_check(handle, fn);
    if (st != CUDNN_STATUS_SUCCESS || (st = hd_rnn_check_desc(fn, r)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (requested <= 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "requestedAlgoCount must be positive (got %d)", requested);
    if (!returned || !perf)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "returnedAlgoCount and perfResults must not be NULL");
    if ((st = hd_check_obj(perf[0], HD_TAG_ALGO_PERF, "perfResults[0]", fn)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (hd_impl_cudnnCreateAlgorithmDescriptor(ad) != CUDNN_STATUS_SUCCESS)
        return hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "could not create the algorithm descriptor");
    cudnnAlgorithm_t a;
    memset(&a, 0, sizeof a);
    a.algo.RNNAlgo = CUDNN_RNN_ALGO_STANDARD;
    if ((st = hd_impl_cudnnSetAlgorithmDescriptor(*ad, a)) != CUDNN_STATUS_SUCCESS) {
        hd_impl_cudnnDestroyAlgorithmDescriptor(*ad);
        return hd_fail(st, fn, "could not set the algorithm descriptor");
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Report the one result (or drop the descriptor when the computation refused). */
static inline cudnnStatus_t hd_rnn_find_end(const char *fn, cudnnStatus_t run_status, cudnnAlgorithmDescriptor_t ad,
                                            double best_ms, size_t memory, int *returned,
                                            cudnnAlgorithmPerformance_t *perf)
{
    if (run_status != CUDNN_STATUS_SUCCESS) {
        hd_impl_cudnnDestroyAlgorithmDescriptor(ad);
        return run_status;
    }
    cudnnStatus_t st = hd_impl_cudnnSetAlgorithmPerformance(perf[0], ad, CUDNN_STATUS_SUCCESS, (float)best_ms, memory);
    if (st != CUDNN_STATUS_SUCCESS) {
        hd_impl_cudnnDestroyAlgorithmDescriptor(ad);
        return hd_fail(st, fn, "could not fill perfResults[0]");
    }
    *returned = HD_RNN_FIND_ALGOS;
    return CUDNN_STATUS_SUCCESS;
}

/* The workspace the legacy calls need for this problem (what the result's memory reports):
 * cudnnGetRNNWorkspaceSize's answer, computed here from the engine's plan rather than through
 * that entry point (which lives in adv_infer and would log a call the user never made). */
static inline size_t hd_rnn_find_memory(const char *fn, const struct cudnnRNNStruct *r, int seq_length,
                                        const cudnnTensorDescriptor_t *xDesc)
{
    struct cudnnRNNDataStruct xd;
    memset(&xd, 0, sizeof xd);
    int *lens = NULL;
    if (hd_rnn_legacy_data(fn, "xDesc", seq_length, xDesc, -1, &xd, &lens) != CUDNN_STATUS_SUCCESS)
        return 0;
    free(lens);
    struct cudnnRNNStruct v;
    memset(&v, 0, sizeof v);
    if (hd_rnn_legacy_view(fn, r, xd.vec, xd.dtype, &v) != CUDNN_STATUS_SUCCESS)
        return 0;
    return hd_rnn_legacy_work_bytes(&v, &xd);
}

#endif
