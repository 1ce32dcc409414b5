/*
 * cudnnConvolutionForward and its queries: workspace size, the instant ranking (_v7), the
 * measured search (Find / FindEx) and the algorithm count.  y = alpha * conv(x, w) + beta * y.
 * The bodies are shared with the backward directions (src/conv/conv_api.c); the
 * algorithms are the solvers of src/conv (docs/algorithms.md).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "conv/conv_api_util.h"

cudnnStatus_t HD_IMPL(cudnnGetConvolutionForwardAlgorithmMaxCount)(cudnnHandle_t handle, int *count)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(count);
    *count = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
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
    hd_conv_descs d = {xDesc, wDesc, convDesc, yDesc};
    return hd_conv_api_workspace(HD_CONV_FWD, &d, (int)algo, sizeInBytes, __func__);
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionForwardAlgorithm_v7)(cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
                                                              const cudnnFilterDescriptor_t filterDesc,
                                                              const cudnnConvolutionDescriptor_t convDesc,
                                                              const cudnnTensorDescriptor_t destDesc,
                                                              const int requestedAlgoCount, int *returnedAlgoCount,
                                                              cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    hd_conv_descs d = {srcDesc, filterDesc, convDesc, destDesc};
    return hd_conv_api_rank(HD_CONV_FWD, &d, requestedAlgoCount, returnedAlgoCount, perfResults, __func__);
}

cudnnStatus_t HD_IMPL(cudnnFindConvolutionForwardAlgorithm)(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                            const cudnnFilterDescriptor_t wDesc,
                                                            const cudnnConvolutionDescriptor_t convDesc,
                                                            const cudnnTensorDescriptor_t yDesc,
                                                            const int requestedAlgoCount, int *returnedAlgoCount,
                                                            cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    HD_CHECK_HANDLE(handle);
    hd_conv_descs d = {xDesc, wDesc, convDesc, yDesc};
    return hd_conv_api_find(handle, HD_CONV_FWD, &d, NULL, requestedAlgoCount, returnedAlgoCount, perfResults, __func__);
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
    hd_conv_descs d = {xDesc, wDesc, convDesc, yDesc};
    hd_conv_args a = {0};
    a.x = x, a.w = w, a.out = y, a.ws = workSpace, a.ws_size = workSpaceSizeInBytes;
    return hd_conv_api_find(handle, HD_CONV_FWD, &d, &a, requestedAlgoCount, returnedAlgoCount, perfResults, __func__);
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
    hd_conv_descs d = {xDesc, wDesc, convDesc, yDesc};
    hd_conv_args a = {0};
    a.x = x, a.w = w, a.out = y, a.ws = workSpace, a.ws_size = workSpaceSizeInBytes;
    return hd_conv_api_run(handle, HD_CONV_FWD, &d, (int)algo, alpha, beta, a, __func__);
}
