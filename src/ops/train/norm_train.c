/*
 * The cuDNN 8 normalization API, training side: cudnnNormalizationForwardTraining,
 * cudnnNormalizationBackward and their workspace / reserve-space queries.
 *
 * cuDNN 8.1 defines this API for batch normalization only: CUDNN_NORM_PER_CHANNEL is
 * BATCHNORM_SPATIAL, CUDNN_NORM_PER_ACTIVATION is BATCHNORM_PER_ACTIVATION; both algorithms
 * (STANDARD, PERSIST) compute the same result here; groupCnt must be 1 (any other count is
 * NOT_SUPPORTED, as cuDNN answers).  Scale/bias and mean/variance have separate descriptors.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "ops/train/bn_core.h"

static cudnnStatus_t check_common(const char *fn, cudnnNormMode_t mode, cudnnNormOps_t ops, cudnnNormAlgo_t algo,
                                  int groupCnt)
{
    if (mode != CUDNN_NORM_PER_ACTIVATION && mode != CUDNN_NORM_PER_CHANNEL)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "mode %d is not a cudnnNormMode_t", (int)mode);
    if (ops != CUDNN_NORM_OPS_NORM && ops != CUDNN_NORM_OPS_NORM_ACTIVATION && ops != CUDNN_NORM_OPS_NORM_ADD_ACTIVATION)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "normOps %d is not a cudnnNormOps_t", (int)ops);
    if (algo != CUDNN_NORM_ALGO_STANDARD && algo != CUDNN_NORM_ALGO_PERSIST)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "algo %d is not a cudnnNormAlgo_t", (int)algo);
    if (groupCnt != 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "cuDNN 8.1 supports groupCnt 1 only (got %d)", groupCnt);
    return CUDNN_STATUS_SUCCESS;
}

#define CHECK_ST(expr) do { cudnnStatus_t s_ = (expr); if (s_ != CUDNN_STATUS_SUCCESS) return s_; } while (0)

cudnnStatus_t HD_IMPL(cudnnNormalizationForwardTraining)(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void *alpha,
    const void *beta, const cudnnTensorDescriptor_t xDesc, const void *xData,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    double exponentialAverageFactor, const cudnnTensorDescriptor_t normMeanVarDesc, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t zDesc, const void *zData,
    const cudnnTensorDescriptor_t yDesc, void *yData, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes, int groupCnt)
{
    (void)workspace;
    (void)workSpaceSizeInBytes;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_TENSOR(normScaleBiasDesc);
    HD_CHECK_TENSOR(normMeanVarDesc);
    CHECK_ST(check_common(__func__, mode, normOps, algo, groupCnt));
    hd_bn_fwd_args a = {0};
    a.per_act = mode == CUDNN_NORM_PER_ACTIVATION;
    a.with_act = normOps != CUDNN_NORM_OPS_NORM;
    a.with_z = normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION;
    a.actDesc = activationDesc;
    a.alpha = alpha;
    a.beta = beta;
    a.xDesc = xDesc;
    a.zDesc = zDesc;
    a.yDesc = yDesc;
    a.sbDesc = normScaleBiasDesc;
    a.mvDesc = normMeanVarDesc;
    a.x = xData;
    a.z = zData;
    a.y = yData;
    a.scale = normScale;
    a.bias = normBias;
    a.factor = exponentialAverageFactor;
    a.epsilon = epsilon;
    a.runMean = resultRunningMean;
    a.runVar = resultRunningVariance;
    a.saveMean = resultSaveMean;
    a.saveInv = resultSaveInvVariance;
    a.reserve = reserveSpace;
    a.reserveBytes = reserveSpaceSizeInBytes;
    return hd_bn_forward_training(__func__, handle, &a);
}

cudnnStatus_t HD_IMPL(cudnnNormalizationBackward)(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void *alphaDataDiff,
    const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc,
    const void *xData, const cudnnTensorDescriptor_t yDesc, const void *yData, const cudnnTensorDescriptor_t dyDesc,
    const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData, const cudnnTensorDescriptor_t dxDesc,
    void *dxData, const cudnnTensorDescriptor_t dNormScaleBiasDesc, const void *normScaleData,
    const void *normBiasData, void *dNormScaleData, void *dNormBiasData, double epsilon,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void *savedMean, const void *savedInvVariance,
    cudnnActivationDescriptor_t activationDesc, void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes, int groupCnt)
{
    (void)yDesc;
    (void)yData;
    (void)normBiasData;
    (void)workSpace;
    (void)workSpaceSizeInBytes;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(dyDesc);
    HD_CHECK_TENSOR(dxDesc);
    HD_CHECK_TENSOR(dNormScaleBiasDesc);
    HD_CHECK_TENSOR(normMeanVarDesc);
    CHECK_ST(check_common(__func__, mode, normOps, algo, groupCnt));
    hd_bn_bwd_args a = {0};
    a.per_act = mode == CUDNN_NORM_PER_ACTIVATION;
    a.with_act = normOps != CUDNN_NORM_OPS_NORM;
    a.with_z = normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION;
    a.actDesc = activationDesc;
    a.alphaD = alphaDataDiff;
    a.betaD = betaDataDiff;
    a.alphaP = alphaParamDiff;
    a.betaP = betaParamDiff;
    a.xDesc = xDesc;
    a.dyDesc = dyDesc;
    a.dzDesc = dzDesc;
    a.dxDesc = dxDesc;
    a.sbDesc = dNormScaleBiasDesc;
    a.mvDesc = normMeanVarDesc;
    a.x = xData;
    a.dy = dyData;
    a.dz = dzData;
    a.dx = dxData;
    a.scale = normScaleData;
    a.dScale = dNormScaleData;
    a.dBias = dNormBiasData;
    a.epsilon = epsilon;
    a.savedMean = savedMean;
    a.savedInv = savedInvVariance;
    a.reserve = reserveSpace;
    a.reserveBytes = reserveSpaceSizeInBytes;
    return hd_bn_backward(__func__, handle, &a);
}

cudnnStatus_t HD_IMPL(cudnnGetNormalizationForwardTrainingWorkspaceSize)(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt)
{
    (void)zDesc;
    (void)activationDesc;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_TENSOR(normScaleBiasDesc);
    HD_CHECK_TENSOR(normMeanVarDesc);
    HD_CHECK_PTR(sizeInBytes);
    CHECK_ST(check_common(__func__, mode, normOps, algo, groupCnt));
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetNormalizationBackwardWorkspaceSize)(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnTensorDescriptor_t dzDesc, const cudnnTensorDescriptor_t dxDesc,
    const cudnnTensorDescriptor_t dNormScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt)
{
    (void)yDesc;
    (void)dzDesc;
    (void)activationDesc;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(dyDesc);
    HD_CHECK_TENSOR(dxDesc);
    HD_CHECK_TENSOR(dNormScaleBiasDesc);
    HD_CHECK_TENSOR(normMeanVarDesc);
    HD_CHECK_PTR(sizeInBytes);
    CHECK_ST(check_common(__func__, mode, normOps, algo, groupCnt));
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetNormalizationTrainingReserveSpaceSize)(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes,
    int groupCnt)
{
    (void)activationDesc;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_PTR(sizeInBytes);
    CHECK_ST(check_common(__func__, mode, normOps, algo, groupCnt));
    *sizeInBytes = hd_bn_reserve_bytes(xDesc, normOps != CUDNN_NORM_OPS_NORM);
    return CUDNN_STATUS_SUCCESS;
}
