/* The legacy training algorithm queries (adv/rnn_find.h): one candidate per call, timed on
 * the caller's real problem through the same paths as cudnnRNNForwardTraining,
 * cudnnRNNBackwardData and cudnnRNNBackwardWeights. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "adv/rnn_legacy.h"
#include "adv/rnn_find.h"

cudnnStatus_t HD_IMPL(cudnnGetRNNForwardTrainingAlgorithmMaxCount)(cudnnHandle_t handle,
    const cudnnRNNDescriptor_t rnnDesc, int *count)
{
    return hd_rnn_algo_max_count(__func__, handle, rnnDesc, count);
}

cudnnStatus_t HD_IMPL(cudnnGetRNNBackwardDataAlgorithmMaxCount)(cudnnHandle_t handle,
    const cudnnRNNDescriptor_t rnnDesc, int *count)
{
    return hd_rnn_algo_max_count(__func__, handle, rnnDesc, count);
}

cudnnStatus_t HD_IMPL(cudnnGetRNNBackwardWeightsAlgorithmMaxCount)(cudnnHandle_t handle,
    const cudnnRNNDescriptor_t rnnDesc, int *count)
{
    return hd_rnn_algo_max_count(__func__, handle, rnnDesc, count);
}

cudnnStatus_t HD_IMPL(cudnnFindRNNForwardTrainingAlgorithmEx)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int seqLength, const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
    const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnTensorDescriptor_t *yDesc, void *y, const cudnnTensorDescriptor_t hyDesc, void *hy,
    const cudnnTensorDescriptor_t cyDesc, void *cy, const float findIntensity, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    cudnnAlgorithmDescriptor_t ad;
    cudnnStatus_t st = hd_rnn_find_begin(__func__, handle, rnnDesc, requestedAlgoCount, returnedAlgoCount,
                                         perfResults, &ad);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    double best = 0.0;
    hd_rnn_find_drop drop;
    hd_rnn_find_drop_save(&drop, rnnDesc);
    for (int i = 0, runs = hd_rnn_find_runs(findIntensity); i < runs; i++) {
        hd_rnn_find_drop_restore(&drop);
        double t0 = hd_rnn_now_ms();
        st = hd_rnn_legacy_forward(__func__, handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w,
                                   yDesc, y, hyDesc, hy, cyDesc, cy, workspace, workSpaceSizeInBytes, reserveSpace,
                                   reserveSpaceSizeInBytes, 1);
        double t = hd_rnn_now_ms() - t0;
        if (st != CUDNN_STATUS_SUCCESS)
            break;
        if (i == 0 || t < best)
            best = t;
    }
    size_t mem = st == CUDNN_STATUS_SUCCESS ? hd_rnn_find_memory(__func__, rnnDesc, seqLength, xDesc) : 0;
    return hd_rnn_find_end(__func__, st, ad, best, mem, returnedAlgoCount, perfResults);
}

/* Backward data recomputes from y, dy and the reserve space and overwrites its outputs, so
 * repeated runs give the same results as one. */
cudnnStatus_t HD_IMPL(cudnnFindRNNBackwardDataAlgorithmEx)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int seqLength, const cudnnTensorDescriptor_t *yDesc, const void *y, const cudnnTensorDescriptor_t *dyDesc,
    const void *dy, const cudnnTensorDescriptor_t dhyDesc, const void *dhy, const cudnnTensorDescriptor_t dcyDesc,
    const void *dcy, const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t hxDesc,
    const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnTensorDescriptor_t *dxDesc,
    void *dx, const cudnnTensorDescriptor_t dhxDesc, void *dhx, const cudnnTensorDescriptor_t dcxDesc, void *dcx,
    const float findIntensity, const int requestedAlgoCount, int *returnedAlgoCount,
    cudnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes)
{
    cudnnAlgorithmDescriptor_t ad;
    cudnnStatus_t st = hd_rnn_find_begin(__func__, handle, rnnDesc, requestedAlgoCount, returnedAlgoCount,
                                         perfResults, &ad);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    double best = 0.0;
    for (int i = 0, runs = hd_rnn_find_runs(findIntensity); i < runs; i++) {
        double t0 = hd_rnn_now_ms();
        st = hd_impl_cudnnRNNBackwardData(handle, rnnDesc, seqLength, yDesc, y, dyDesc, dy, dhyDesc, dhy, dcyDesc, dcy, wDesc,
                                  w, hxDesc, hx, cxDesc, cx, dxDesc, dx, dhxDesc, dhx, dcxDesc, dcx, workspace,
                                  workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes);
        double t = hd_rnn_now_ms() - t0;
        if (st != CUDNN_STATUS_SUCCESS)
            break;
        if (i == 0 || t < best)
            best = t;
    }
    size_t mem = st == CUDNN_STATUS_SUCCESS ? hd_rnn_find_memory(__func__, rnnDesc, seqLength, dxDesc) : 0;
    return hd_rnn_find_end(__func__, st, ad, best, mem, returnedAlgoCount, perfResults);
}

/* Backward weights adds into dw: only the first run touches the caller's dw; the extra timed
 * runs add into a zeroed scratch copy of the same size, so dw gets exactly one gradient. */
cudnnStatus_t HD_IMPL(cudnnFindRNNBackwardWeightsAlgorithmEx)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int seqLength, const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
    const void *hx, const cudnnTensorDescriptor_t *yDesc, const void *y, const float findIntensity,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnAlgorithmPerformance_t *perfResults,
    const void *workspace, size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw,
    const void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    cudnnAlgorithmDescriptor_t ad;
    cudnnStatus_t st = hd_rnn_find_begin(__func__, handle, rnnDesc, requestedAlgoCount, returnedAlgoCount,
                                         perfResults, &ad);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    double best = 0.0;
    void *scratch = NULL;
    for (int i = 0, runs = hd_rnn_find_runs(findIntensity); i < runs; i++) {
        void *target = dw;
        if (i > 0) {
            if (!scratch) {
                /* dwDesc passed the first run's checks: a live, set filter of the data type */
                size_t n = hd_dtype_size(dwDesc->dtype);
                for (int d = 0; d < dwDesc->nbDims; d++)
                    n *= (size_t)dwDesc->dims[d];
                scratch = calloc(n ? n : 1, 1);
                if (!scratch)
                    break;   /* the first run's result stands; no more timing */
            }
            target = scratch;
        }
        double t0 = hd_rnn_now_ms();
        st = hd_impl_cudnnRNNBackwardWeights(handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, yDesc, y, workspace,
                                     workSpaceSizeInBytes, dwDesc, target, reserveSpace, reserveSpaceSizeInBytes);
        double t = hd_rnn_now_ms() - t0;
        if (st != CUDNN_STATUS_SUCCESS)
            break;
        if (i == 0 || t < best)
            best = t;
    }
    free(scratch);
    size_t mem = st == CUDNN_STATUS_SUCCESS ? hd_rnn_find_memory(__func__, rnnDesc, seqLength, xDesc) : 0;
    return hd_rnn_find_end(__func__, st, ad, best, mem, returnedAlgoCount, perfResults);
}
