/*
 * cudnnConvolutionBackwardData and its queries (workspace size, _v7 ranking, Find / FindEx,
 * algorithm count).  dx = alpha * conv_transpose(dy, w) + beta * dx.  The bodies are shared
 * with the other directions (src/conv/conv_api.c); the algorithms are the
 * backward-data solvers of src/conv (docs/algorithms.md).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "conv/conv_api_util.h"

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardDataAlgorithmMaxCount)(cudnnHandle_t handle, int *count)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(count);
    *count = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardDataWorkspaceSize)(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, cudnnConvolutionBwdDataAlgo_t algo,
    size_t *sizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(sizeInBytes);
    hd_conv_descs d = {dxDesc, wDesc, convDesc, dyDesc};
    return hd_conv_api_workspace(HD_CONV_BWD_DATA, &d, (int)algo, sizeInBytes, __func__);
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionBackwardDataAlgorithm_v7)(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    hd_conv_descs d = {gradDesc, filterDesc, convDesc, diffDesc};
    return hd_conv_api_rank(HD_CONV_BWD_DATA, &d, requestedAlgoCount, returnedAlgoCount, perfResults, __func__);
}

cudnnStatus_t HD_IMPL(cudnnFindConvolutionBackwardDataAlgorithm)(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    hd_conv_descs d = {dxDesc, wDesc, convDesc, dyDesc};
    return hd_conv_api_find(handle, HD_CONV_BWD_DATA, &d, NULL, requestedAlgoCount, returnedAlgoCount, perfResults,
                            __func__);
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
    hd_conv_descs d = {dxDesc, wDesc, convDesc, dyDesc};
    hd_conv_args a = {0};
    a.w = w, a.y = dy, a.out = dx, a.ws = workSpace, a.ws_size = workSpaceSizeInBytes;
    return hd_conv_api_find(handle, HD_CONV_BWD_DATA, &d, &a, requestedAlgoCount, returnedAlgoCount, perfResults,
                            __func__);
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
    hd_conv_descs d = {dxDesc, wDesc, convDesc, dyDesc};
    hd_conv_args a = {0};
    a.w = w, a.y = dy, a.out = dx, a.ws = workSpace, a.ws_size = workSpaceSizeInBytes;
    return hd_conv_api_run(handle, HD_CONV_BWD_DATA, &d, (int)algo, alpha, beta, a, __func__);
}
