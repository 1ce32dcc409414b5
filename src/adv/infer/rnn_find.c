/* The legacy inference algorithm queries (adv/rnn_find.h): one candidate, timed on the
 * caller's real problem through the same path as cudnnRNNForwardInference. */
#define _POSIX_C_SOURCE 200809L
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "adv/rnn_legacy.h"
#include "adv/rnn_find.h"

cudnnStatus_t HD_IMPL(cudnnGetRNNForwardInferenceAlgorithmMaxCount)(cudnnHandle_t handle,
    const cudnnRNNDescriptor_t rnnDesc, int *count)
{
    return hd_rnn_algo_max_count(__func__, handle, rnnDesc, count);
}

cudnnStatus_t HD_IMPL(cudnnFindRNNForwardInferenceAlgorithmEx)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int seqLength, const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
    const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnTensorDescriptor_t *yDesc, void *y, const cudnnTensorDescriptor_t hyDesc, void *hy,
    const cudnnTensorDescriptor_t cyDesc, void *cy, const float findIntensity, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes)
{
    cudnnAlgorithmDescriptor_t ad;
    cudnnStatus_t st = hd_rnn_find_begin(__func__, handle, rnnDesc, requestedAlgoCount, returnedAlgoCount,
                                         perfResults, &ad);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    double best = 0.0;
    for (int i = 0, runs = hd_rnn_find_runs(findIntensity); i < runs; i++) {
        double t0 = hd_rnn_now_ms();
        st = hd_rnn_legacy_forward(__func__, handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w,
                                   yDesc, y, hyDesc, hy, cyDesc, cy, workspace, workSpaceSizeInBytes, NULL, 0, 0);
        double t = hd_rnn_now_ms() - t0;
        if (st != CUDNN_STATUS_SUCCESS)
            break;
        if (i == 0 || t < best)
            best = t;
    }
    size_t mem = st == CUDNN_STATUS_SUCCESS ? hd_rnn_find_memory(__func__, rnnDesc, seqLength, xDesc) : 0;
    return hd_rnn_find_end(__func__, st, ad, best, mem, returnedAlgoCount, perfResults);
}
