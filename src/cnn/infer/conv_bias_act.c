/*
 * cudnnConvolutionBiasActivationForward:
 *     y = act(alpha1 * conv(x, w) + alpha2 * z + bias)
 * with cuDNN's restrictions: the activation is RELU or IDENTITY (IDENTITY only with
 * IMPLICIT_PRECOMP_GEMM); z has y's shape (and, in hostdnn, y's strides, so that y may be z
 * for the in-place form); bias is 1 x K x 1 x 1 (x 1) of y's type.  The activation
 * descriptor is read through the public cudnnGetActivationDescriptor.  The epilogue runs
 * inside the chosen forward solver as each output value is stored.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/desc_set.h"
#include "core/handle.h"
#include "conv/conv_api_util.h"

cudnnStatus_t HD_IMPL(cudnnConvolutionBiasActivationForward)(
    cudnnHandle_t handle, const void *alpha1, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
    const cudnnTensorDescriptor_t zDesc, const void *z, const cudnnTensorDescriptor_t biasDesc, const void *bias,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc, void *y)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(alpha1);
    HD_CHECK_PTR(alpha2);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(w);
    HD_CHECK_PTR(z);
    HD_CHECK_PTR(bias);
    HD_CHECK_PTR(y);
    HD_CHECK_TENSOR(zDesc);
    HD_CHECK_TENSOR(biasDesc);
    HD_CHECK_PTR(activationDesc);      /* its kind is checked by hd_activation_get below */
    hd_conv_problem p;
    cudnnStatus_t st = hd_conv_setup(&p, xDesc, wDesc, convDesc, yDesc, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if ((int)algo < 0 || (int)algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnConvolutionFwdAlgo_t", (int)algo);

    cudnnActivationMode_t mode;
    cudnnNanPropagation_t nan;
    double coef;
    st = hd_activation_get(activationDesc, &mode, &nan, &coef, "activationDesc", __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (mode != CUDNN_ACTIVATION_RELU && mode != CUDNN_ACTIVATION_IDENTITY)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "activation mode %d: only RELU and IDENTITY are supported",
                       (int)mode);
    if (mode == CUDNN_ACTIVATION_IDENTITY && algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "IDENTITY activation requires IMPLICIT_PRECOMP_GEMM (algo %d given)",
                       (int)algo);

    const struct cudnnTensorStruct *zt = zDesc, *yt = yDesc, *bt = biasDesc;
    if (zt->dtype != yt->dtype || zt->nbDims != yt->nbDims)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "zDesc differs from yDesc in type or rank");
    for (int i = 0; i < yt->nbDims; i++) {
        if (zt->dims[i] != yt->dims[i])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "zDesc dimension %d is %d, yDesc's is %d", i, zt->dims[i],
                           yt->dims[i]);
        if (zt->strides[i] != yt->strides[i])
            return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "zDesc must have yDesc's strides (dimension %d: %d vs %d)", i,
                           zt->strides[i], yt->strides[i]);
    }
    cudnnDataType_t want_bias = p.int8 ? CUDNN_DATA_FLOAT : yt->dtype;
    if (bt->dtype != want_bias || bt->nbDims != yt->nbDims)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "biasDesc must be %s with yDesc's rank", hd_dtype_name(want_bias));
    for (int i = 0; i < bt->nbDims; i++) {
        int want = i == 1 ? yt->dims[1] : 1;
        if (bt->dims[i] != want)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "biasDesc dimension %d is %d, expected %d", i, bt->dims[i], want);
    }

    const char *why;
    hd_conv_plan pl;
    if (!hd_conv_pick(&p, HD_CONV_FWD, algo, &pl, &why))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "forward algo %d: %s", (int)algo, why);
    hd_conv_args a = {0};
    a.x = x, a.w = w, a.out = y, a.ws = workSpace, a.ws_size = workSpace ? workSpaceSizeInBytes : 0;
    a.nthreads = handle->num_threads;
    a.epi.alpha = hd_conv_scale(&p, alpha1);
    a.epi.fused = 1;
    a.epi.alpha2 = hd_conv_scale(&p, alpha2);
    a.epi.z = z;
    a.epi.bias = bias;
    a.epi.bias_dt = bt->dtype;
    a.epi.bias_stride = bt->strides[1];
    a.epi.relu = mode == CUDNN_ACTIVATION_RELU;
    return hd_conv_run(&pl, &a, __func__);
}
