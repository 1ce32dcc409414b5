/*
 * cudnnConvolutionForward and its queries: workspace size, the instant ranking (_v7), the
 * measured search (Find / FindEx) and the algorithm count.  The algorithms themselves are
 * the solvers of src/kernels/conv (docs/algorithms.md).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "kernels/conv/conv_api_util.h"

#include <stdlib.h>

#define FN_FWD_COUNT CUDNN_CONVOLUTION_FWD_ALGO_COUNT

static void to_fwd_perf(const hd_conv_perf *r, cudnnMathType_t math, cudnnConvolutionFwdAlgoPerf_t *o)
{
    o->algo = (cudnnConvolutionFwdAlgo_t)r->algo;
    o->status = r->status;
    o->time = r->time;
    o->memory = r->memory;
    o->determinism = r->deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
    o->mathType = math;
    o->reserved[0] = o->reserved[1] = o->reserved[2] = 0;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionForwardAlgorithmMaxCount)(cudnnHandle_t handle, int *count)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(count);
    *count = FN_FWD_COUNT;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionForwardWorkspaceSize)(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                               const cudnnFilterDescriptor_t wDesc,
                                                               const cudnnConvolutionDescriptor_t convDesc,
                                                               const cudnnTensorDescriptor_t yDesc,
                                                               cudnnConvolutionFwdAlgo_t algo, size_t *sizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(sizeInBytes);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, xDesc, wDesc, convDesc, yDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if ((int)algo < 0 || (int)algo >= FN_FWD_COUNT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnConvolutionFwdAlgo_t", (int)algo);
    const char *why;
    const hd_conv_solver *s = hd_conv_pick(&p, HD_CONV_FWD, algo, &why);
    if (!s)
        return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, __func__, "forward algo %d: %s", (int)algo, why);
    *sizeInBytes = s->workspace(&p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionForwardAlgorithm_v7)(cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
                                                              const cudnnFilterDescriptor_t filterDesc,
                                                              const cudnnConvolutionDescriptor_t convDesc,
                                                              const cudnnTensorDescriptor_t destDesc,
                                                              const int requestedAlgoCount, int *returnedAlgoCount,
                                                              cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(returnedAlgoCount);
    HD_CHECK_PTR(perfResults);
    if (requestedAlgoCount <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount must be positive (got %d)", requestedAlgoCount);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, srcDesc, filterDesc, convDesc, destDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    hd_conv_perf rows[FN_FWD_COUNT];
    hd_conv_rank(&p, HD_CONV_FWD, rows);
    int n = requestedAlgoCount < FN_FWD_COUNT ? requestedAlgoCount : FN_FWD_COUNT;
    for (int i = 0; i < n; i++)
        to_fwd_perf(&rows[i], p.math, &perfResults[i]);
    *returnedAlgoCount = n;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t find_fwd(cudnnHandle_t handle, const hd_conv_problem *p, const void *x, const void *w, void *y,
                              void *ws, size_t wsSize, int own, int requested, int *returned,
                              cudnnConvolutionFwdAlgoPerf_t *perf)
{
    hd_conv_args a = {0};
    a.x = x, a.w = w, a.out = y, a.ws = ws, a.ws_size = wsSize, a.nthreads = handle->num_threads;
    hd_conv_perf rows[FN_FWD_COUNT];
    if (!own || !hd_conv_find_cached(handle, p, HD_CONV_FWD, rows)) {
        hd_conv_find(p, HD_CONV_FWD, a, own, rows);
        if (own)                                   /* measured on our own buffers: reusable */
            hd_conv_find_remember(handle, p, HD_CONV_FWD, rows);
    }
    int n = requested < FN_FWD_COUNT ? requested : FN_FWD_COUNT;
    for (int i = 0; i < n; i++)
        to_fwd_perf(&rows[i], p->math, &perf[i]);
    *returned = n;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnFindConvolutionForwardAlgorithm)(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                            const cudnnFilterDescriptor_t wDesc,
                                                            const cudnnConvolutionDescriptor_t convDesc,
                                                            const cudnnTensorDescriptor_t yDesc,
                                                            const int requestedAlgoCount, int *returnedAlgoCount,
                                                            cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(returnedAlgoCount);
    HD_CHECK_PTR(perfResults);
    if (requestedAlgoCount <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount must be positive (got %d)", requestedAlgoCount);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, xDesc, wDesc, convDesc, yDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    void *x = hd_conv_tensor_buffer(xDesc), *w = hd_conv_filter_buffer(wDesc), *y = hd_conv_tensor_buffer(yDesc);
    if (!x || !w || !y)
        st = HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory for the search buffers");
    else
        st = find_fwd(handle, &p, x, w, y, NULL, 0, 1, requestedAlgoCount, returnedAlgoCount, perfResults);
    free(x), free(w), free(y);
    return st;
}

cudnnStatus_t HD_IMPL(cudnnFindConvolutionForwardAlgorithmEx)(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, void *y,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults, void *workSpace,
    size_t workSpaceSizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(w);
    HD_CHECK_PTR(y);
    HD_CHECK_PTR(returnedAlgoCount);
    HD_CHECK_PTR(perfResults);
    if (requestedAlgoCount <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount must be positive (got %d)", requestedAlgoCount);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, xDesc, wDesc, convDesc, yDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    return find_fwd(handle, &p, x, w, y, workSpace, workSpace ? workSpaceSizeInBytes : 0, 0, requestedAlgoCount,
                    returnedAlgoCount, perfResults);
}

cudnnStatus_t HD_IMPL(cudnnConvolutionForward)(cudnnHandle_t handle, const void *alpha,
                                               const cudnnTensorDescriptor_t xDesc, const void *x,
                                               const cudnnFilterDescriptor_t wDesc, const void *w,
                                               const cudnnConvolutionDescriptor_t convDesc,
                                               cudnnConvolutionFwdAlgo_t algo, void *workSpace,
                                               size_t workSpaceSizeInBytes, const void *beta,
                                               const cudnnTensorDescriptor_t yDesc, void *y)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(w);
    HD_CHECK_PTR(y);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, xDesc, wDesc, convDesc, yDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if ((int)algo < 0 || (int)algo >= FN_FWD_COUNT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnConvolutionFwdAlgo_t", (int)algo);
    const char *why;
    const hd_conv_solver *s = hd_conv_pick(&p, HD_CONV_FWD, algo, &why);
    if (!s)
        return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, __func__, "forward algo %d: %s", (int)algo, why);
    hd_conv_args a = {0};
    a.x = x, a.w = w, a.out = y, a.ws = workSpace, a.ws_size = workSpace ? workSpaceSizeInBytes : 0;
    a.nthreads = handle->num_threads;
    a.epi.alpha = hd_conv_scale(&p, alpha);
    a.epi.beta = hd_conv_scale(&p, beta);
    return hd_conv_run(s, &p, &a, __func__);
}
