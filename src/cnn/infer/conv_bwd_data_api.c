/*
 * cudnnConvolutionBackwardData and its queries (workspace size, _v7 ranking, Find / FindEx,
 * algorithm count).  dx = alpha * conv_transpose(dy, w) + beta * dx.  Algorithms: the
 * backward-data solvers of src/kernels/conv (docs/algorithms.md).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "kernels/conv/conv_api_util.h"

#include <stdlib.h>

#define BWDD_COUNT CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT

static void to_perf(const hd_conv_perf *r, cudnnMathType_t math, cudnnConvolutionBwdDataAlgoPerf_t *o)
{
    o->algo = (cudnnConvolutionBwdDataAlgo_t)r->algo;
    o->status = r->status;
    o->time = r->time;
    o->memory = r->memory;
    o->determinism = r->deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
    o->mathType = math;
    o->reserved[0] = o->reserved[1] = o->reserved[2] = 0;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardDataAlgorithmMaxCount)(cudnnHandle_t handle, int *count)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(count);
    *count = BWDD_COUNT;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardDataWorkspaceSize)(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, cudnnConvolutionBwdDataAlgo_t algo,
    size_t *sizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(sizeInBytes);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, dxDesc, wDesc, convDesc, dyDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if ((int)algo < 0 || (int)algo >= BWDD_COUNT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnConvolutionBwdDataAlgo_t", (int)algo);
    const char *why;
    const hd_conv_solver *s = hd_conv_pick(&p, HD_CONV_BWD_DATA, algo, &why);
    if (!s)
        return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, __func__, "backward data algo %d: %s", (int)algo, why);
    *sizeInBytes = s->workspace(&p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardDataAlgorithm_v7)(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(returnedAlgoCount);
    HD_CHECK_PTR(perfResults);
    if (requestedAlgoCount <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount must be positive (got %d)", requestedAlgoCount);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, gradDesc, filterDesc, convDesc, diffDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    hd_conv_perf rows[BWDD_COUNT];
    hd_conv_rank(&p, HD_CONV_BWD_DATA, rows);
    int n = requestedAlgoCount < BWDD_COUNT ? requestedAlgoCount : BWDD_COUNT;
    for (int i = 0; i < n; i++)
        to_perf(&rows[i], p.math, &perfResults[i]);
    *returnedAlgoCount = n;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t find_bwdd(cudnnHandle_t handle, const hd_conv_problem *p, const void *w, const void *dy, void *dx,
                               void *ws, size_t wsSize, int own, int requested, int *returned,
                               cudnnConvolutionBwdDataAlgoPerf_t *perf)
{
    hd_conv_args a = {0};
    a.w = w, a.y = dy, a.out = dx, a.ws = ws, a.ws_size = wsSize, a.nthreads = handle->num_threads;
    hd_conv_perf rows[BWDD_COUNT];
    if (!own || !hd_conv_find_cached(handle, p, HD_CONV_BWD_DATA, rows)) {
        hd_conv_find(p, HD_CONV_BWD_DATA, a, own, rows);
        if (own)                                   /* measured on our own buffers: reusable */
            hd_conv_find_remember(handle, p, HD_CONV_BWD_DATA, rows);
    }
    int n = requested < BWDD_COUNT ? requested : BWDD_COUNT;
    for (int i = 0; i < n; i++)
        to_perf(&rows[i], p->math, &perf[i]);
    *returned = n;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnFindConvolutionBackwardDataAlgorithm)(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(returnedAlgoCount);
    HD_CHECK_PTR(perfResults);
    if (requestedAlgoCount <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount must be positive (got %d)", requestedAlgoCount);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, dxDesc, wDesc, convDesc, dyDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    void *w = hd_conv_filter_buffer(wDesc), *dy = hd_conv_tensor_buffer(dyDesc), *dx = hd_conv_tensor_buffer(dxDesc);
    if (!w || !dy || !dx)
        st = HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory for the search buffers");
    else
        st = find_bwdd(handle, &p, w, dy, dx, NULL, 0, 1, requestedAlgoCount, returnedAlgoCount, perfResults);
    free(w), free(dy), free(dx);
    return st;
}

cudnnStatus_t HD_IMPL(cudnnFindConvolutionBackwardDataAlgorithmEx)(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void *dx,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(w);
    HD_CHECK_PTR(dy);
    HD_CHECK_PTR(dx);
    HD_CHECK_PTR(returnedAlgoCount);
    HD_CHECK_PTR(perfResults);
    if (requestedAlgoCount <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "requestedAlgoCount must be positive (got %d)", requestedAlgoCount);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, dxDesc, wDesc, convDesc, dyDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    return find_bwdd(handle, &p, w, dy, dx, workSpace, workSpace ? workSpaceSizeInBytes : 0, 0, requestedAlgoCount,
                     returnedAlgoCount, perfResults);
}

cudnnStatus_t HD_IMPL(cudnnConvolutionBackwardData)(cudnnHandle_t handle, const void *alpha,
                                                    const cudnnFilterDescriptor_t wDesc, const void *w,
                                                    const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                    const cudnnConvolutionDescriptor_t convDesc,
                                                    cudnnConvolutionBwdDataAlgo_t algo, void *workSpace,
                                                    size_t workSpaceSizeInBytes, const void *beta,
                                                    const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(w);
    HD_CHECK_PTR(dy);
    HD_CHECK_PTR(dx);
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, dxDesc, wDesc, convDesc, dyDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if ((int)algo < 0 || (int)algo >= BWDD_COUNT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnConvolutionBwdDataAlgo_t", (int)algo);
    const char *why;
    const hd_conv_solver *s = hd_conv_pick(&p, HD_CONV_BWD_DATA, algo, &why);
    if (!s)
        return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, __func__, "backward data algo %d: %s", (int)algo, why);
    hd_conv_args a = {0};
    a.w = w, a.y = dy, a.out = dx, a.ws = workSpace, a.ws_size = workSpace ? workSpaceSizeInBytes : 0;
    a.nthreads = handle->num_threads;
    a.epi.alpha = hd_conv_scale(&p, alpha);
    a.epi.beta = hd_conv_scale(&p, beta);
    return hd_conv_run(s, &p, &a, __func__);
}
