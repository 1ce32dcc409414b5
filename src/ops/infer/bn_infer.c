/*
 * Batch normalization for inference, and the derived parameter descriptors:
 * cudnnDeriveBNTensorDescriptor, cudnnBatchNormalizationForwardInference,
 * cudnnDeriveNormTensorDescriptor, cudnnNormalizationForwardInference.
 *
 *   y = alpha * act(scale * (x - mean) / sqrt(var + epsilon) + bias (+ z)) + beta * y
 *
 * (act and z only in the NORM_ACTIVATION / NORM_ADD_ACTIVATION ops of the 8.x API.)
 * Parameters are FLOAT for FLOAT, HALF and BFLOAT16 data, DOUBLE for DOUBLE data, shaped
 * 1xCx1x1(x1) for spatial modes and 1xCxHxW (1xCxDxHxW) per activation.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/desc_set.h"
#include "core/tensor.h"
#include "norm/bn_engine.h"

#include <math.h>

typedef struct cudnnTensorStruct tensor_t;

/* Any 2..8-d x gives a parameter descriptor (as cuDNN 9 does); the operations take 4-d and
 * 5-d tensors only. */
static cudnnStatus_t derive(const char *fn, cudnnTensorDescriptor_t d, const tensor_t *x, int per_act)
{
    if (x->vect_c > 1)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "xDesc is vectorized (%s)", hd_dtype_name(x->dtype));
    int dims[CUDNN_DIM_MAX];
    for (int i = 0; i < x->nbDims; i++)
        dims[i] = i == 0 ? 1 : i == 1 ? x->dims[1] : per_act ? x->dims[i] : 1;
    cudnnStatus_t st = hd_tensor_set_format(d, CUDNN_TENSOR_NCHW, hd_bn_param_type(x->dtype), x->nbDims, dims, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return hd_fail(st, fn, "could not set the derived descriptor");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDeriveBNTensorDescriptor)(cudnnTensorDescriptor_t derivedBnDesc,
                                                     const cudnnTensorDescriptor_t xDesc, cudnnBatchNormMode_t mode)
{
    HD_CHECK_DESC(derivedBnDesc, HD_TAG_TENSOR);
    HD_CHECK_TENSOR(xDesc);
    if (mode != CUDNN_BATCHNORM_PER_ACTIVATION && mode != CUDNN_BATCHNORM_SPATIAL &&
        mode != CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnBatchNormMode_t", (int)mode);
    return derive(__func__, derivedBnDesc, xDesc, mode == CUDNN_BATCHNORM_PER_ACTIVATION);
}

cudnnStatus_t HD_IMPL(cudnnDeriveNormTensorDescriptor)(cudnnTensorDescriptor_t derivedNormScaleBiasDesc,
                                                       cudnnTensorDescriptor_t derivedNormMeanVarDesc,
                                                       const cudnnTensorDescriptor_t xDesc, cudnnNormMode_t mode,
                                                       int groupCnt)
{
    HD_CHECK_DESC(derivedNormScaleBiasDesc, HD_TAG_TENSOR);
    HD_CHECK_DESC(derivedNormMeanVarDesc, HD_TAG_TENSOR);
    HD_CHECK_TENSOR(xDesc);
    if (mode != CUDNN_NORM_PER_ACTIVATION && mode != CUDNN_NORM_PER_CHANNEL)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnNormMode_t", (int)mode);
    if (groupCnt != 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "cuDNN 8.1 supports groupCnt 1 only (got %d)", groupCnt);
    cudnnStatus_t st = derive(__func__, derivedNormScaleBiasDesc, xDesc, mode == CUDNN_NORM_PER_ACTIVATION);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    return derive(__func__, derivedNormMeanVarDesc, xDesc, mode == CUDNN_NORM_PER_ACTIVATION);
}

/* The shared inference path. ACT_DESC / Z only when with_act / with_z. */
static cudnnStatus_t infer(const char *fn, cudnnHandle_t handle, int per_act, int with_act, int with_z,
                           const void *alpha, const void *beta, const tensor_t *xDesc, const void *x,
                           const tensor_t *yDesc, void *y, const tensor_t *sbDesc, const void *scale, const void *bias,
                           const tensor_t *mvDesc, const void *mean, const void *var, const tensor_t *zDesc,
                           const void *z, cudnnActivationDescriptor_t actDesc, double epsilon)
{
    cudnnStatus_t st;
    if (!alpha || !beta || !x || !y || !scale || !bias || !mean || !var)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "a data or scaling pointer is NULL");
    if ((st = hd_bn_check_x(fn, xDesc, "xDesc")) != CUDNN_STATUS_SUCCESS ||
        (st = hd_bn_check_like_x(fn, xDesc, yDesc, "yDesc")) != CUDNN_STATUS_SUCCESS ||
        (st = hd_bn_check_param(fn, xDesc, sbDesc, per_act, "scale/bias descriptor")) != CUDNN_STATUS_SUCCESS ||
        (st = hd_bn_check_param(fn, xDesc, mvDesc, per_act, "mean/variance descriptor")) != CUDNN_STATUS_SUCCESS)
        return st;
    if (!(epsilon >= CUDNN_BN_MIN_EPSILON))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "epsilon %g is below CUDNN_BN_MIN_EPSILON (%g)", epsilon,
                       CUDNN_BN_MIN_EPSILON);
    if (with_z) {
        if ((st = hd_check_tensor(zDesc, "zDesc", fn)) != CUDNN_STATUS_SUCCESS)
            return st;
        if ((st = hd_bn_check_like_x(fn, xDesc, zDesc, "zDesc")) != CUDNN_STATUS_SUCCESS)
            return st;
        if (!z)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "z is NULL");
    }
    hd_bn_problem pb;
    hd_bn_problem_init(&pb, xDesc, per_act, handle->num_threads, handle->isa);
    if (with_act && (st = hd_bn_act_read(fn, actDesc, &pb.act)) != CUDNN_STATUS_SUCCESS)
        return st;
    hd_view_init(&pb.x, xDesc);
    hd_view_init(&pb.y, yDesc);
    pb.xp = x;
    pb.yp = y;
    if (with_z) {
        hd_view_init(&pb.z, zDesc);
        pb.zp = z;
    }
    size_t F = (size_t)pb.F, bytes = hd_bn_scratch_bytes(&pb) + F * 4 * sizeof(double);
    double *w = hd_handle_scratch(handle, bytes);
    if (!w)
        return hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "no memory for %zu bytes of scratch", bytes);
    double *sc = w, *bi = w + F, *mu = w + 2 * F, *va = w + 3 * F;
    hd_bn_param_load(&pb, sbDesc, scale, sc);
    hd_bn_param_load(&pb, sbDesc, bias, bi);
    hd_bn_param_load(&pb, mvDesc, mean, mu);
    hd_bn_param_load(&pb, mvDesc, var, va);
    for (size_t f = 0; f < F; f++)
        sc[f] /= sqrt(va[f] + epsilon);    /* y = sc * (x - mu) + bias */
    hd_bn_apply(&pb, mu, sc, bi, hd_scale_arg(alpha, xDesc->dtype), hd_scale_arg(beta, xDesc->dtype), w + 4 * F);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnBatchNormalizationForwardInference)(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    const void *estimatedMean, const void *estimatedVariance, double epsilon)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_TENSOR(bnScaleBiasMeanVarDesc);
    if (mode != CUDNN_BATCHNORM_PER_ACTIVATION && mode != CUDNN_BATCHNORM_SPATIAL &&
        mode != CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnBatchNormMode_t", (int)mode);
    return infer(__func__, handle, mode == CUDNN_BATCHNORM_PER_ACTIVATION, 0, 0, alpha, beta, xDesc, x, yDesc, y,
                 bnScaleBiasMeanVarDesc, bnScale, bnBias, bnScaleBiasMeanVarDesc, estimatedMean, estimatedVariance,
                 NULL, NULL, NULL, epsilon);
}

cudnnStatus_t HD_IMPL(cudnnNormalizationForwardInference)(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void *alpha,
    const void *beta, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t normScaleBiasDesc,
    const void *normScale, const void *normBias, const cudnnTensorDescriptor_t normMeanVarDesc,
    const void *estimatedMean, const void *estimatedVariance, const cudnnTensorDescriptor_t zDesc, const void *z,
    cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc, void *y, double epsilon,
    int groupCnt)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_TENSOR(normScaleBiasDesc);
    HD_CHECK_TENSOR(normMeanVarDesc);
    if (mode != CUDNN_NORM_PER_ACTIVATION && mode != CUDNN_NORM_PER_CHANNEL)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnNormMode_t", (int)mode);
    if (normOps != CUDNN_NORM_OPS_NORM && normOps != CUDNN_NORM_OPS_NORM_ACTIVATION &&
        normOps != CUDNN_NORM_OPS_NORM_ADD_ACTIVATION)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "normOps %d is not a cudnnNormOps_t", (int)normOps);
    if (algo != CUDNN_NORM_ALGO_STANDARD && algo != CUDNN_NORM_ALGO_PERSIST)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnNormAlgo_t", (int)algo);
    if (groupCnt != 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "cuDNN 8.1 supports groupCnt 1 only (got %d)", groupCnt);
    return infer(__func__, handle, mode == CUDNN_NORM_PER_ACTIVATION, normOps != CUDNN_NORM_OPS_NORM,
                 normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION, alpha, beta, xDesc, x, yDesc, y, normScaleBiasDesc,
                 normScale, normBias, normMeanVarDesc, estimatedMean, estimatedVariance, zDesc, z, activationDesc,
                 epsilon);
}
