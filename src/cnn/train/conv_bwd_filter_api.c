/*
 * cudnnConvolutionBackwardFilter and its queries (workspace size, _v7 ranking, Find /
 * FindEx, algorithm count).  dw = alpha * sum over images of x (*) dy + beta * dw.
 * Algorithms: the backward-filter solvers of src/kernels/conv (docs/algorithms.md).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "kernels/conv/conv_api_util.h"

#include <stdlib.h>

#define BWDF_COUNT CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT

static void to_perf(const hd_conv_perf *r, cudnnMathType_t math, cudnnConvolutionBwdFilterAlgoPerf_t *o)
{
    o->algo = (cudnnConvolutionBwdFilterAlgo_t)r->algo;
    o->status = r->status;
    o->time = r->time;
    o->memory = r->memory;
    o->determinism = r->deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
    o->mathType = math;
    o->reserved[0] = o->reserved[1] = o->reserved[2] = 0;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount)(cudnnHandle_t handle, int *count)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(count);
    *count = BWDF_COUNT;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardFilterWorkspaceSize)(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(sizeInBytes);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, xDesc, gradDesc, convDesc, dyDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if ((int)algo < 0 || (int)algo >= BWDF_COUNT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnConvolutionBwdFilterAlgo_t", (int)algo);
    const char *why;
    const hd_conv_solver *s = hd_conv_pick(&p, HD_CONV_BWD_FILTER, algo, &why);
    if (!s)
        return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, __func__, "backward filter algo %d: %s", (int)algo, why);
    *sizeInBytes = s->workspace(&p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardFilterAlgorithm_v7)(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(returnedAlgoCount);
    HD_CHECK_PTR(perfResults);
    if (requestedAlgoCount <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount must be positive (got %d)", requestedAlgoCount);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, srcDesc, gradDesc, convDesc, diffDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    hd_conv_perf rows[BWDF_COUNT];
    hd_conv_rank(&p, HD_CONV_BWD_FILTER, rows);
    int n = requestedAlgoCount < BWDF_COUNT ? requestedAlgoCount : BWDF_COUNT;
    for (int i = 0; i < n; i++)
        to_perf(&rows[i], p.math, &perfResults[i]);
    *returnedAlgoCount = n;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t find_bwdf(cudnnHandle_t handle, const hd_conv_problem *p, const void *x, const void *dy, void *dw,
                               void *ws, size_t wsSize, int own, int requested, int *returned,
                               cudnnConvolutionBwdFilterAlgoPerf_t *perf)
{
    hd_conv_args a = {0};
    a.x = x, a.y = dy, a.out = dw, a.ws = ws, a.ws_size = wsSize, a.nthreads = handle->num_threads;
    hd_conv_perf rows[BWDF_COUNT];
    if (!own || !hd_conv_find_cached(handle, p, HD_CONV_BWD_FILTER, rows)) {
        hd_conv_find(p, HD_CONV_BWD_FILTER, a, own, rows);
        if (own)                                   /* measured on our own buffers: reusable */
            hd_conv_find_remember(handle, p, HD_CONV_BWD_FILTER, rows);
    }
    int n = requested < BWDF_COUNT ? requested : BWDF_COUNT;
    for (int i = 0; i < n; i++)
        to_perf(&rows[i], p->math, &perf[i]);
    *returned = n;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnFindConvolutionBackwardFilterAlgorithm)(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(returnedAlgoCount);
    HD_CHECK_PTR(perfResults);
    if (requestedAlgoCount <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount must be positive (got %d)", requestedAlgoCount);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, xDesc, dwDesc, convDesc, dyDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    void *x = hd_conv_tensor_buffer(xDesc), *dy = hd_conv_tensor_buffer(dyDesc), *dw = hd_conv_filter_buffer(dwDesc);
    if (!x || !dy || !dw)
        st = HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory for the search buffers");
    else
        st = find_bwdf(handle, &p, x, dy, dw, NULL, 0, 1, requestedAlgoCount, returnedAlgoCount, perfResults);
    free(x), free(dy), free(dw);
    return st;
}

cudnnStatus_t HD_IMPL(cudnnFindConvolutionBackwardFilterAlgorithmEx)(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t dyDesc,
    const void *y, const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void *dw,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(y);
    HD_CHECK_PTR(dw);
    HD_CHECK_PTR(returnedAlgoCount);
    HD_CHECK_PTR(perfResults);
    if (requestedAlgoCount <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount must be positive (got %d)", requestedAlgoCount);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, xDesc, dwDesc, convDesc, dyDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    return find_bwdf(handle, &p, x, y, dw, workSpace, workSpace ? workSpaceSizeInBytes : 0, 0, requestedAlgoCount,
                     returnedAlgoCount, perfResults);
}

cudnnStatus_t HD_IMPL(cudnnConvolutionBackwardFilter)(cudnnHandle_t handle, const void *alpha,
                                                      const cudnnTensorDescriptor_t xDesc, const void *x,
                                                      const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      cudnnConvolutionBwdFilterAlgo_t algo, void *workSpace,
                                                      size_t workSpaceSizeInBytes, const void *beta,
                                                      const cudnnFilterDescriptor_t dwDesc, void *dw)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(dy);
    HD_CHECK_PTR(dw);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, xDesc, dwDesc, convDesc, dyDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if ((int)algo < 0 || (int)algo >= BWDF_COUNT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnConvolutionBwdFilterAlgo_t", (int)algo);
    const char *why;
    const hd_conv_solver *s = hd_conv_pick(&p, HD_CONV_BWD_FILTER, algo, &why);
    if (!s)
        return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, __func__, "backward filter algo %d: %s", (int)algo, why);
    hd_conv_args a = {0};
    a.x = x, a.y = dy, a.out = dw, a.ws = workSpace, a.ws_size = workSpace ? workSpaceSizeInBytes : 0;
    a.nthreads = handle->num_threads;
    a.epi.alpha = hd_conv_scale(&p, alpha);
    a.epi.beta = hd_conv_scale(&p, beta);
    return hd_conv_run(s, &p, &a, __func__);
}
