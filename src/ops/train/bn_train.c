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

/* The plain calls are the Ex calls with bnOps = BN and no z, activation or reserve space: one
 * body each, logging under the public name FN. */
static cudnnStatus_t forward_training(const char *fn, cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                      cudnnBatchNormOps_t bnOps, const void *alpha, const void *beta,
                                      const cudnnTensorDescriptor_t xDesc, const void *x,
                                      const cudnnTensorDescriptor_t zDesc, const void *z,
                                      const cudnnTensorDescriptor_t yDesc, void *y,
                                      const cudnnTensorDescriptor_t sbDesc, const void *scale, const void *bias,
                                      double factor, void *runMean, void *runVar, double epsilon, void *saveMean,
                                      void *saveInv, cudnnActivationDescriptor_t actDesc, void *reserve,
                                      size_t reserveBytes)
{
    CHECK_ST(hd_handle_check(handle, fn));
    CHECK_ST(hd_check_tensor(xDesc, "xDesc", fn));
    CHECK_ST(hd_check_tensor(yDesc, "yDesc", fn));
    CHECK_ST(hd_check_tensor(sbDesc, "bnScaleBiasMeanVarDesc", fn));
    CHECK_ST(check_mode(fn, mode));
    CHECK_ST(check_ops(fn, bnOps));
    hd_bn_fwd_args a = {0};
    a.per_act = mode == CUDNN_BATCHNORM_PER_ACTIVATION;
    a.with_act = bnOps != CUDNN_BATCHNORM_OPS_BN;
    a.with_z = bnOps == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    a.actDesc = actDesc;
    a.alpha = alpha;
    a.beta = beta;
    a.xDesc = xDesc;
    a.zDesc = zDesc;
    a.yDesc = yDesc;
    a.sbDesc = a.mvDesc = sbDesc;
    a.x = x;
    a.z = z;
    a.y = y;
    a.scale = scale;
    a.bias = bias;
    a.factor = factor;
    a.epsilon = epsilon;
    a.runMean = runMean;
    a.runVar = runVar;
    a.saveMean = saveMean;
    a.saveInv = saveInv;
    a.reserve = reserve;
    a.reserveBytes = reserveBytes;
    return hd_bn_forward_training(fn, handle, &a);
}

static cudnnStatus_t backward(const char *fn, cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                              cudnnBatchNormOps_t bnOps, const void *alphaD, const void *betaD, const void *alphaP,
                              const void *betaP, const cudnnTensorDescriptor_t xDesc, const void *x,
                              const cudnnTensorDescriptor_t dyDesc, const void *dy,
                              const cudnnTensorDescriptor_t dzDesc, void *dz, const cudnnTensorDescriptor_t dxDesc,
                              void *dx, const cudnnTensorDescriptor_t sbDesc, const void *scale, void *dScale,
                              void *dBias, double epsilon, const void *savedMean, const void *savedInv,
                              cudnnActivationDescriptor_t actDesc, void *reserve, size_t reserveBytes)
{
    CHECK_ST(hd_handle_check(handle, fn));
    CHECK_ST(hd_check_tensor(xDesc, "xDesc", fn));
    CHECK_ST(hd_check_tensor(dyDesc, "dyDesc", fn));
    CHECK_ST(hd_check_tensor(dxDesc, "dxDesc", fn));
    CHECK_ST(hd_check_tensor(sbDesc, "dBnScaleBiasDesc", fn));
    CHECK_ST(check_mode(fn, mode));
    CHECK_ST(check_ops(fn, bnOps));
    hd_bn_bwd_args a = {0};
    a.per_act = mode == CUDNN_BATCHNORM_PER_ACTIVATION;
    a.with_act = bnOps != CUDNN_BATCHNORM_OPS_BN;
    a.with_z = bnOps == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    a.actDesc = actDesc;
    a.alphaD = alphaD;
    a.betaD = betaD;
    a.alphaP = alphaP;
    a.betaP = betaP;
    a.xDesc = xDesc;
    a.dyDesc = dyDesc;
    a.dzDesc = dzDesc;
    a.dxDesc = dxDesc;
    a.sbDesc = a.mvDesc = sbDesc;
    a.x = x;
    a.dy = dy;
    a.dz = dz;
    a.dx = dx;
    a.scale = scale;
    a.dScale = dScale;
    a.dBias = dBias;
    a.epsilon = epsilon;
    a.savedMean = savedMean;
    a.savedInv = savedInv;
    a.reserve = reserve;
    a.reserveBytes = reserveBytes;
    return hd_bn_backward(fn, handle, &a);
}

cudnnStatus_t HD_IMPL(cudnnBatchNormalizationForwardTraining)(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance)
{
    return forward_training("cudnnBatchNormalizationForwardTraining", handle, mode, CUDNN_BATCHNORM_OPS_BN, alpha,
                            beta, xDesc, x, NULL, NULL, yDesc, y, bnScaleBiasMeanVarDesc, bnScale, bnBias,
                            exponentialAverageFactor, resultRunningMean, resultRunningVariance, epsilon,
                            resultSaveMean, resultSaveInvVariance, NULL, NULL, 0);
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
    (void)workspace;              /* no workspace is needed */
    (void)workSpaceSizeInBytes;
    return forward_training("cudnnBatchNormalizationForwardTrainingEx", handle, mode, bnOps, alpha, beta, xDesc,
                            xData, zDesc, zData, yDesc, yData, bnScaleBiasMeanVarDesc, bnScale, bnBias,
                            exponentialAverageFactor, resultRunningMean, resultRunningVariance, epsilon,
                            resultSaveMean, resultSaveInvVariance, activationDesc, reserveSpace,
                            reserveSpaceSizeInBytes);
}

cudnnStatus_t HD_IMPL(cudnnBatchNormalizationBackward)(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alphaDataDiff, const void *betaDataDiff,
    const void *alphaParamDiff, const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t dyDesc, const void *dy, const cudnnTensorDescriptor_t dxDesc, void *dx,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale, void *dBnScaleResult, void *dBnBiasResult,
    double epsilon, const void *savedMean, const void *savedInvVariance)
{
    return backward("cudnnBatchNormalizationBackward", handle, mode, CUDNN_BATCHNORM_OPS_BN, alphaDataDiff,
                    betaDataDiff, alphaParamDiff, betaParamDiff, xDesc, x, dyDesc, dy, NULL, NULL, dxDesc, dx,
                    dBnScaleBiasDesc, bnScale, dBnScaleResult, dBnBiasResult, epsilon, savedMean, savedInvVariance,
                    NULL, NULL, 0);
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
    (void)yDesc;                  /* y and the bias are not needed: the reserve space holds act' */
    (void)yData;
    (void)bnBiasData;
    (void)workSpace;
    (void)workSpaceSizeInBytes;
    return backward("cudnnBatchNormalizationBackwardEx", handle, mode, bnOps, alphaDataDiff, betaDataDiff,
                    alphaParamDiff, betaParamDiff, xDesc, xData, dyDesc, dyData, dzDesc, dzData, dxDesc, dxData,
                    dBnScaleBiasDesc, bnScaleData, dBnScaleData, dBnBiasData, epsilon, savedMean, savedInvVariance,
                    activationDesc, reserveSpace, reserveSpaceSizeInBytes);
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
