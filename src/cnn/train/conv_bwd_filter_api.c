/*
 * cudnnConvolutionBackwardFilter and its queries (workspace size, _v7 ranking, Find /
 * FindEx, algorithm count).  dw = alpha * sum over images of x (*) dy + beta * dw.  The
 * bodies are shared with the other directions (src/conv/conv_api.c); the algorithms
 * are the backward-filter solvers of src/conv (docs/algorithms.md).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "conv/conv_api_util.h"

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount)(cudnnHandle_t handle, int *count)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(count);
    *count = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardFilterWorkspaceSize)(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(sizeInBytes);
    hd_conv_descs d = {xDesc, gradDesc, convDesc, dyDesc};
    return hd_conv_api_workspace(HD_CONV_BWD_FILTER, &d, (int)algo, sizeInBytes, __func__);
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardFilterAlgorithm_v7)(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    hd_conv_descs d = {srcDesc, gradDesc, convDesc, diffDesc};
    return hd_conv_api_rank(HD_CONV_BWD_FILTER, &d, requestedAlgoCount, returnedAlgoCount, perfResults, __func__);
}

cudnnStatus_t HD_IMPL(cudnnFindConvolutionBackwardFilterAlgorithm)(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    hd_conv_descs d = {xDesc, dwDesc, convDesc, dyDesc};
    return hd_conv_api_find(handle, HD_CONV_BWD_FILTER, &d, NULL, requestedAlgoCount, returnedAlgoCount, perfResults,
                            __func__);
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
    hd_conv_descs d = {xDesc, dwDesc, convDesc, dyDesc};
    hd_conv_args a = {0};
    a.x = x, a.y = y, a.out = dw, a.ws = workSpace, a.ws_size = workSpaceSizeInBytes;
    return hd_conv_api_find(handle, HD_CONV_BWD_FILTER, &d, &a, requestedAlgoCount, returnedAlgoCount, perfResults,
                            __func__);
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
    hd_conv_descs d = {xDesc, dwDesc, convDesc, dyDesc};
    hd_conv_args a = {0};
    a.x = x, a.y = dy, a.out = dw, a.ws = workSpace, a.ws_size = workSpaceSizeInBytes;
    return hd_conv_api_run(handle, HD_CONV_BWD_FILTER, &d, (int)algo, alpha, beta, a, __func__);
}
