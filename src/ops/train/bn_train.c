/*
 * cudnnBatchNormalizationForwardTraining(Ex), cudnnBatchNormalizationBackward(Ex) and the
 * Ex workspace / reserve-space queries.  The work is in bn_core.c.
 *
 * Ex ops: BN (plain), BN_ACTIVATION (y = act(bn(x))), BN_ADD_ACTIVATION (y = act(bn(x) + z)).
 * The fused forward stores act' per element in the reserve space (the query gives its size);
 * the backward reads it.  No workspace is needed (size 0): any workspace pointer is accepted.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "ops/train/bn_core.h"

static cudnnStatus_t check_mode(const char *fn, cudnnBatchNormMode_t mode)
{
    if (mode != CUDNN_BATCHNORM_PER_ACTIVATION && mode != CUDNN_BATCHNORM_SPATIAL &&
        mode != CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "mode %d is not a cudnnBatchNormMode_t", (int)mode);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_ops(const char *fn, cudnnBatchNormOps_t ops)
{
    if (ops != CUDNN_BATCHNORM_OPS_BN && ops != CUDNN_BATCHNORM_OPS_BN_ACTIVATION &&
        ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "bnOps %d is not a cudnnBatchNormOps_t", (int)ops);
    return CUDNN_STATUS_SUCCESS;
}

#define CHECK_ST(expr) do { cudnnStatus_t s_ = (expr); if (s_ != CUDNN_STATUS_SUCCESS) return s_; } while (0)

cudnnStatus_t HD_IMPL(cudnnBatchNormalizationForwardTraining)(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_TENSOR(bnScaleBiasMeanVarDesc);
    CHECK_ST(check_mode(__func__, mode));
    hd_bn_fwd_args a = {0};
    a.per_act = mode == CUDNN_BATCHNORM_PER_ACTIVATION;
    a.alpha = alpha;
    a.beta = beta;
    a.xDesc = xDesc;
    a.yDesc = yDesc;
    a.sbDesc = a.mvDesc = bnScaleBiasMeanVarDesc;
    a.x = x;
    a.y = y;
    a.scale = bnScale;
    a.bias = bnBias;
    a.factor = exponentialAverageFactor;
    a.epsilon = epsilon;
    a.runMean = resultRunningMean;
    a.runVar = resultRunningVariance;
    a.saveMean = resultSaveMean;
    a.saveInv = resultSaveInvVariance;
    return hd_bn_forward_training(__func__, handle, &a);
}

cudnnStatus_t HD_IMPL(cudnnBatchNormalizationForwardTrainingEx)(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *xData, const cudnnTensorDescriptor_t zDesc, const void *zData,
    const cudnnTensorDescriptor_t yDesc, void *yData, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const void *bnScale, const void *bnBias, double exponentialAverageFactor, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes)
{
    (void)workspace;
    (void)workSpaceSizeInBytes;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_TENSOR(bnScaleBiasMeanVarDesc);
    CHECK_ST(check_mode(__func__, mode));
    CHECK_ST(check_ops(__func__, bnOps));
    hd_bn_fwd_args a = {0};
    a.per_act = mode == CUDNN_BATCHNORM_PER_ACTIVATION;
    a.with_act = bnOps != CUDNN_BATCHNORM_OPS_BN;
    a.with_z = bnOps == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    a.actDesc = activationDesc;
    a.alpha = alpha;
    a.beta = beta;
    a.xDesc = xDesc;
    a.zDesc = zDesc;
    a.yDesc = yDesc;
    a.sbDesc = a.mvDesc = bnScaleBiasMeanVarDesc;
    a.x = xData;
    a.z = zData;
    a.y = yData;
    a.scale = bnScale;
    a.bias = bnBias;
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

cudnnStatus_t HD_IMPL(cudnnBatchNormalizationBackward)(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alphaDataDiff, const void *betaDataDiff,
    const void *alphaParamDiff, const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t dyDesc, const void *dy, const cudnnTensorDescriptor_t dxDesc, void *dx,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale, void *dBnScaleResult, void *dBnBiasResult,
    double epsilon, const void *savedMean, const void *savedInvVariance)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(dyDesc);
    HD_CHECK_TENSOR(dxDesc);
    HD_CHECK_TENSOR(dBnScaleBiasDesc);
    CHECK_ST(check_mode(__func__, mode));
    hd_bn_bwd_args a = {0};
    a.per_act = mode == CUDNN_BATCHNORM_PER_ACTIVATION;
    a.alphaD = alphaDataDiff;
    a.betaD = betaDataDiff;
    a.alphaP = alphaParamDiff;
    a.betaP = betaParamDiff;
    a.xDesc = xDesc;
    a.dyDesc = dyDesc;
    a.dxDesc = dxDesc;
    a.sbDesc = a.mvDesc = dBnScaleBiasDesc;
    a.x = x;
    a.dy = dy;
    a.dx = dx;
    a.scale = bnScale;
    a.dScale = dBnScaleResult;
    a.dBias = dBnBiasResult;
    a.epsilon = epsilon;
    a.savedMean = savedMean;
    a.savedInv = savedInvVariance;
    return hd_bn_backward(__func__, handle, &a);
}

cudnnStatus_t HD_IMPL(cudnnBatchNormalizationBackwardEx)(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void *alphaDataDiff,
    const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc,
    const void *xData, const cudnnTensorDescriptor_t yDesc, const void *yData, const cudnnTensorDescriptor_t dyDesc,
    const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData, const cudnnTensorDescriptor_t dxDesc,
    void *dxData, const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScaleData, const void *bnBiasData,
    void *dBnScaleData, void *dBnBiasData, double epsilon, const void *savedMean, const void *savedInvVariance,
    cudnnActivationDescriptor_t activationDesc, void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes)
{
    (void)yDesc;
    (void)yData;
    (void)bnBiasData;
    (void)workSpace;
    (void)workSpaceSizeInBytes;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(dyDesc);
    HD_CHECK_TENSOR(dxDesc);
    HD_CHECK_TENSOR(dBnScaleBiasDesc);
    CHECK_ST(check_mode(__func__, mode));
    CHECK_ST(check_ops(__func__, bnOps));
    hd_bn_bwd_args a = {0};
    a.per_act = mode == CUDNN_BATCHNORM_PER_ACTIVATION;
    a.with_act = bnOps != CUDNN_BATCHNORM_OPS_BN;
    a.with_z = bnOps == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    a.actDesc = activationDesc;
    a.alphaD = alphaDataDiff;
    a.betaD = betaDataDiff;
    a.alphaP = alphaParamDiff;
    a.betaP = betaParamDiff;
    a.xDesc = xDesc;
    a.dyDesc = dyDesc;
    a.dzDesc = dzDesc;
    a.dxDesc = dxDesc;
    a.sbDesc = a.mvDesc = dBnScaleBiasDesc;
    a.x = xData;
    a.dy = dyData;
    a.dz = dzData;
    a.dx = dxData;
    a.scale = bnScaleData;
    a.dScale = dBnScaleData;
    a.dBias = dBnBiasData;
    a.epsilon = epsilon;
    a.savedMean = savedMean;
    a.savedInv = savedInvVariance;
    a.reserve = reserveSpace;
    a.reserveBytes = reserveSpaceSizeInBytes;
    return hd_bn_backward(__func__, handle, &a);
}

cudnnStatus_t HD_IMPL(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize)(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const cudnnActivationDescriptor_t activationDesc,
    size_t *sizeInBytes)
{
    (void)zDesc;
    (void)activationDesc;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_TENSOR(bnScaleBiasMeanVarDesc);
    HD_CHECK_PTR(sizeInBytes);
    CHECK_ST(check_mode(__func__, mode));
    CHECK_ST(check_ops(__func__, bnOps));
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetBatchNormalizationBackwardExWorkspaceSize)(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc, const cudnnTensorDescriptor_t dzDesc,
    const cudnnTensorDescriptor_t dxDesc, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc, size_t *sizeInBytes)
{
    (void)yDesc;
    (void)dzDesc;
    (void)activationDesc;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(dyDesc);
    HD_CHECK_TENSOR(dxDesc);
    HD_CHECK_TENSOR(dBnScaleBiasDesc);
    HD_CHECK_PTR(sizeInBytes);
    CHECK_ST(check_mode(__func__, mode));
    CHECK_ST(check_ops(__func__, bnOps));
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetBatchNormalizationTrainingExReserveSpaceSize)(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes)
{
    (void)activationDesc;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_PTR(sizeInBytes);
    CHECK_ST(check_mode(__func__, mode));
    CHECK_ST(check_ops(__func__, bnOps));
    *sizeInBytes = hd_bn_reserve_bytes(xDesc, bnOps != CUDNN_BATCHNORM_OPS_BN);
    return CUDNN_STATUS_SUCCESS;
}
