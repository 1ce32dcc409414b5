/*
 * adv/rnn_run.h -- the last checks before an RNN computation (buffer sizes, dropout), shared
 * by the v8 and legacy entry points of both libraries, and the call into the RNN engine
 * (rnn/rnn_engine.h).
 */
#ifndef HD_ADV_RNN_RUN_H
#define HD_ADV_RNN_RUN_H

#include <string.h>

#include "core/api.h"
#include "core/dropout_draw.h"
#include "core/handle.h"
#include "hd_impl.h"
#include "adv/rnn_check.h"
#include "rnn/rnn_engine.h"

/* Inter-layer dropout (the RNN descriptor's dropout descriptor) is applied only in training
 * with numLayers > 1, to the output of every layer but the last.  Checks the descriptor and
 * gives the probability and states buffer a training forward pass draws from (*P = 0 and
 * *STATES = NULL when nothing is dropped; either may be NULL when the caller, a backward pass,
 * only wants the checks: the backward passes follow the record the forward pass left in the
 * reserve space).  A probability > 0 needs the states buffer cudnnSetDropoutDescriptor or
 * cudnnRestoreDropoutDescriptor initialised. */
static inline cudnnStatus_t hd_rnn_check_dropout(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *r,
                                                 int training, float *p_out, void **states_out)
{
    if (p_out) *p_out = 0.0f;
    if (states_out) *states_out = NULL;
    if (!training || r->num_layers < 2 || !r->dropout)
        return CUDNN_STATUS_SUCCESS;
    float p = -1.0f;
    void *states = NULL;
    unsigned long long seed = 0;
    if (hd_impl_cudnnGetDropoutDescriptor(r->dropout, handle, &p, &states, &seed) != CUDNN_STATUS_SUCCESS)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the RNN descriptor's dropout descriptor was never set");
    if (p == 0.0f)
        return CUDNN_STATUS_SUCCESS;
    if (!states)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "inter-layer dropout %g needs a states buffer", (double)p);
    if (!hd_dropout_states_ok(states))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the dropout states buffer does not hold an initialised generator");
    if (p_out) *p_out = p;
    if (states_out) *states_out = states;
    return CUDNN_STATUS_SUCCESS;
}

/* The legacy calls (cudnnRNNForward*, cudnnRNNBackward* without _v8) share one workspace,
 * sized for inference (the larger, since it also holds the activations): what
 * cudnnGetRNNWorkspaceSize answers for the complete view R of XD's sequences. */
static inline size_t hd_rnn_legacy_work_bytes(const struct cudnnRNNStruct *r, const struct cudnnRNNDataStruct *xd)
{
    return hd_rnn_plan_bytes(r, xd->max_seq, xd->batch, 1).work;
}

/* Each legacy call refuses a workspace smaller than that, as cuDNN does, even where its own
 * pass would fit in less. */
static inline cudnnStatus_t hd_rnn_check_legacy_work(const char *fn, const struct cudnnRNNStruct *r,
                                                     const struct cudnnRNNDataStruct *xd, size_t work_size)
{
    if (hd_rnn_size_estimate(r, r->input_size, xd->max_seq, xd->batch) > HD_RNN_MAX_BYTES)
        return CUDNN_STATUS_SUCCESS;   /* refused with its reason by the run that follows */
    size_t need = hd_rnn_legacy_work_bytes(r, xd);
    if (work_size < need)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "workSpaceSizeInBytes is %zu; cudnnGetRNNWorkspaceSize answers %zu",
                       work_size, need);
    return CUDNN_STATUS_SUCCESS;
}

static inline cudnnStatus_t hd_rnn_check_space(const char *fn, const char *name, const void *p, size_t have, size_t need)
{
    if (have < need)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is %zu bytes, this call needs %zu", name, have, need);
    if (need > 0 && !p)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s buffer is NULL", name);
    return CUDNN_STATUS_SUCCESS;
}

/* R must be a complete view (input size and data type known); XD/YD already checked. */
static inline cudnnStatus_t hd_rnn_run_forward(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *r,
    int training, const struct cudnnRNNDataStruct *xd, const void *x, const struct cudnnRNNDataStruct *yd, void *y,
    const void *hx, void *hy, const void *cx, void *cy, size_t wsize, const void *w, size_t work_size, void *work,
    size_t res_size, void *res)
{
    cudnnStatus_t st;
    if ((st = hd_rnn_check_compute(fn, r)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (!x || !y)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "x and y must not be NULL");
    if (hd_rnn_size_estimate(r, r->input_size, xd->max_seq, xd->batch) > HD_RNN_MAX_BYTES)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the sizes of this RNN overflow any buffer");
    hd_rnn_bytes need = hd_rnn_plan_bytes(r, xd->max_seq, xd->batch, !training);
    if ((st = hd_rnn_check_space(fn, "weightSpace", w, wsize, need.weight)) ||
        (st = hd_rnn_check_space(fn, "workSpace", work, work_size, need.work)))
        return st;
    if (training && (st = hd_rnn_check_space(fn, "reserveSpace", res, res_size, need.reserve)))
        return st;
    float p;
    void *states;
    if ((st = hd_rnn_check_dropout(fn, handle, r, training, &p, &states)))
        return st;
    hd_rnn_fwd_args a = { handle->num_threads, r, xd, yd, x, y, hx, cx, hy, cy, w, work, training ? res : NULL,
                          p, states };
    return hd_rnn_forward(fn, &a);
}

/* Backward data: R complete; XD/YD checked.  Buffers as the forward training call left them.
 * Y, the forward output, is required as cuDNN requires it, although the engine reads what it
 * needs from the reserve space. */
static inline cudnnStatus_t hd_rnn_run_backward_data(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *r,
    const struct cudnnRNNDataStruct *xd, void *dx, const struct cudnnRNNDataStruct *yd, const void *y, const void *dy,
    const void *hx, const void *dhy, void *dhx, const void *cx, const void *dcy, void *dcx, size_t wsize, const void *w,
    size_t work_size, void *work, size_t res_size, void *res)
{
    cudnnStatus_t st;
    if ((st = hd_rnn_check_compute(fn, r)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (!y || !dy || !dx)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "y, dy and dx must not be NULL");
    if (hd_rnn_size_estimate(r, r->input_size, xd->max_seq, xd->batch) > HD_RNN_MAX_BYTES)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the sizes of this RNN overflow any buffer");
    hd_rnn_bytes need = hd_rnn_plan_bytes(r, xd->max_seq, xd->batch, 0);
    if ((st = hd_rnn_check_space(fn, "weightSpace", w, wsize, need.weight)) ||
        (st = hd_rnn_check_space(fn, "workSpace", work, work_size, need.work)) ||
        (st = hd_rnn_check_space(fn, "reserveSpace", res, res_size, need.reserve)))
        return st;
    if ((st = hd_rnn_check_dropout(fn, handle, r, 1, NULL, NULL)))
        return st;
    int lstm = r->cell == CUDNN_LSTM;
    if (!lstm)
        cx = dcy = dcx = NULL;
    hd_rnn_bwd_data_args a = { handle->num_threads, r, xd, yd, dy, dx, hx, cx, dhy, dcy, dhx, dcx, w, work, res };
    return hd_rnn_backward_data(fn, &a);
}

/* Backward weights: adds into DW.  Y is required as for backward data. */
static inline cudnnStatus_t hd_rnn_run_backward_weights(const char *fn, cudnnHandle_t handle,
    const struct cudnnRNNStruct *r, const struct cudnnRNNDataStruct *xd, const void *x, const void *hx, const void *y,
    size_t wsize,
    void *dw, size_t work_size, void *work, size_t res_size, const void *res)
{
    cudnnStatus_t st;
    if ((st = hd_rnn_check_compute(fn, r)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (!x || !y)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "x and y must not be NULL");
    if (hd_rnn_size_estimate(r, r->input_size, xd->max_seq, xd->batch) > HD_RNN_MAX_BYTES)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the sizes of this RNN overflow any buffer");
    hd_rnn_bytes need = hd_rnn_plan_bytes(r, xd->max_seq, xd->batch, 0);
    if ((st = hd_rnn_check_space(fn, "dweightSpace", dw, wsize, need.weight)) ||
        (st = hd_rnn_check_space(fn, "workSpace", work, work_size, need.work)) ||
        (st = hd_rnn_check_space(fn, "reserveSpace", res, res_size, need.reserve)))
        return st;
    if ((st = hd_rnn_check_dropout(fn, handle, r, 1, NULL, NULL)))
        return st;
    hd_rnn_bwd_w_args a = { handle->num_threads, r, xd, x, hx, dw, work, res };
    return hd_rnn_backward_weights(fn, &a);
}

#endif
