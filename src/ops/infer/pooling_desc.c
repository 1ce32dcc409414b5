/*
 * Pooling descriptors (create, 2d/Nd set and get, destroy) and the forward output size.
 *
 * Validation (cuDNN 8.1 reference): windows and strides must be positive, mode and NaN
 * option valid enumerants -> else BAD_PARAM; more than CUDNN_DIM_MAX-2 spatial dimensions
 * -> NOT_SUPPORTED.  Paddings are not checked (the reference lists no rule; cuDNN 9 takes
 * negative ones, which crop).  Output size per spatial dimension:
 * 1 + (in + 2*pad - window) / stride, where in + 2*pad - window must not be negative
 * (BAD_PARAM otherwise).  tests/unit/test_oracle_normpool.c compares all this with cuDNN 9.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/tensor.h"
#include "ops/infer/pooling.h"

typedef struct cudnnPoolingStruct pool_t;

cudnnStatus_t HD_IMPL(cudnnCreatePoolingDescriptor)(cudnnPoolingDescriptor_t *poolingDesc)
{
    HD_CHECK_PTR(poolingDesc);
    pool_t *p = hd_object_new(sizeof *p, HD_TAG_POOLING);
    if (!p)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    p->mode = CUDNN_POOLING_MAX;
    p->nan_opt = CUDNN_NOT_PROPAGATE_NAN;
    *poolingDesc = p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyPoolingDescriptor)(cudnnPoolingDescriptor_t poolingDesc)
{
    if (!poolingDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(poolingDesc, HD_TAG_POOLING);
    hd_object_free(poolingDesc);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t set_nd(const char *fn, pool_t *p, cudnnPoolingMode_t mode, cudnnNanPropagation_t nan,
                            int nb, const int *win, const int *pad, const int *stride)
{
    if (mode != CUDNN_POOLING_MAX && mode != CUDNN_POOLING_MAX_DETERMINISTIC &&
        mode != CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING && mode != CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "mode %d is not a cudnnPoolingMode_t", (int)mode);
    if (nan != CUDNN_NOT_PROPAGATE_NAN && nan != CUDNN_PROPAGATE_NAN)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "maxpoolingNanOpt %d is not a cudnnNanPropagation_t", (int)nan);
    if (nb <= 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "nbDims must be positive (got %d)", nb);
    if (nb > HD_POOL_MAX_SPATIAL)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "nbDims %d exceeds CUDNN_DIM_MAX-2 (%d)", nb, HD_POOL_MAX_SPATIAL);
    if (!win || !pad || !stride)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "windowDimA, paddingA and strideA must not be NULL");
    for (int i = 0; i < nb; i++) {
        if (win[i] <= 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "window dimension %d is %d; it must be positive", i, win[i]);
        if (stride[i] <= 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "stride %d is %d; it must be positive", i, stride[i]);
    }
    p->mode = mode;
    p->nan_opt = nan;
    p->nbSpatial = nb;
    for (int i = 0; i < HD_POOL_MAX_SPATIAL; i++) {
        p->window[i] = i < nb ? win[i] : 0;
        p->pad[i] = i < nb ? pad[i] : 0;
        p->stride[i] = i < nb ? stride[i] : 0;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetPooling2dDescriptor)(cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t mode,
                                                   cudnnNanPropagation_t maxpoolingNanOpt, int windowHeight,
                                                   int windowWidth, int verticalPadding, int horizontalPadding,
                                                   int verticalStride, int horizontalStride)
{
    HD_CHECK_DESC(poolingDesc, HD_TAG_POOLING);
    int win[2] = {windowHeight, windowWidth}, pad[2] = {verticalPadding, horizontalPadding};
    int stride[2] = {verticalStride, horizontalStride};
    return set_nd(__func__, poolingDesc, mode, maxpoolingNanOpt, 2, win, pad, stride);
}

cudnnStatus_t HD_IMPL(cudnnSetPoolingNdDescriptor)(cudnnPoolingDescriptor_t poolingDesc, const cudnnPoolingMode_t mode,
                                                   const cudnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                                   const int windowDimA[], const int paddingA[], const int strideA[])
{
    HD_CHECK_DESC(poolingDesc, HD_TAG_POOLING);
    return set_nd(__func__, poolingDesc, mode, maxpoolingNanOpt, nbDims, windowDimA, paddingA, strideA);
}

cudnnStatus_t HD_IMPL(cudnnGetPooling2dDescriptor)(const cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t *mode,
                                                   cudnnNanPropagation_t *maxpoolingNanOpt, int *windowHeight,
                                                   int *windowWidth, int *verticalPadding, int *horizontalPadding,
                                                   int *verticalStride, int *horizontalStride)
{
    HD_CHECK_DESC(poolingDesc, HD_TAG_POOLING);
    if (!mode || !maxpoolingNanOpt || !windowHeight || !windowWidth || !verticalPadding || !horizontalPadding ||
        !verticalStride || !horizontalStride)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    const pool_t *p = poolingDesc;
    if (p->nbSpatial == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "poolingDesc was never set");
    if (p->nbSpatial < 2)     /* an N-d descriptor reads back its first two dimensions, as in cuDNN 9 */
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "poolingDesc has %d spatial dimension, not 2", p->nbSpatial);
    *mode = p->mode;
    *maxpoolingNanOpt = p->nan_opt;
    *windowHeight = p->window[0];
    *windowWidth = p->window[1];
    *verticalPadding = p->pad[0];
    *horizontalPadding = p->pad[1];
    *verticalStride = p->stride[0];
    *horizontalStride = p->stride[1];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetPoolingNdDescriptor)(const cudnnPoolingDescriptor_t poolingDesc, int nbDimsRequested,
                                                   cudnnPoolingMode_t *mode, cudnnNanPropagation_t *maxpoolingNanOpt,
                                                   int *nbDims, int windowDimA[], int paddingA[], int strideA[])
{
    HD_CHECK_DESC(poolingDesc, HD_TAG_POOLING);
    const pool_t *p = poolingDesc;
    if (nbDimsRequested < 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "nbDimsRequested is negative (%d)", nbDimsRequested);
    if (nbDimsRequested > HD_POOL_MAX_SPATIAL)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "nbDimsRequested %d exceeds CUDNN_DIM_MAX-2", nbDimsRequested);
    if (!mode || !maxpoolingNanOpt || !nbDims || (nbDimsRequested > 0 && (!windowDimA || !paddingA || !strideA)))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    if (p->nbSpatial == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "poolingDesc was never set");
    *mode = p->mode;
    *maxpoolingNanOpt = p->nan_opt;
    *nbDims = p->nbSpatial;
    for (int i = 0; i < nbDimsRequested && i < p->nbSpatial; i++) {
        windowDimA[i] = p->window[i];
        paddingA[i] = p->pad[i];
        strideA[i] = p->stride[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Output dims for a tensor of NB dims; fills out[NB]. */
static cudnnStatus_t out_dims(const char *fn, const pool_t *p, const struct cudnnTensorStruct *x, int nb, int *out)
{
    if (p->nbSpatial == 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "poolingDesc was never set");
    if (x->nbDims != nb || nb != p->nbSpatial + 2)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn,
                       "nbDims %d must equal the input's (%d) and the pooling spatial dims + 2 (%d)", nb, x->nbDims,
                       p->nbSpatial + 2);
    out[0] = x->dims[0];
    out[1] = x->dims[1];
    for (int i = 0; i < p->nbSpatial; i++) {
        long long span = (long long)x->dims[i + 2] + 2LL * p->pad[i] - p->window[i];
        if (span < 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn,
                           "window %d (%d) is larger than the padded input (%d + 2*%d)", i, p->window[i],
                           x->dims[i + 2], p->pad[i]);
        long long o = 1 + span / p->stride[i];
        if (o > 0x7fffffff)   /* a huge padding: the size would wrap */
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "output dim %d (%lld) does not fit an int", i + 2, o);
        out[i + 2] = (int)o;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetPoolingNdForwardOutputDim)(const cudnnPoolingDescriptor_t poolingDesc,
                                                         const cudnnTensorDescriptor_t inputTensorDesc, int nbDims,
                                                         int outputTensorDimA[])
{
    HD_CHECK_DESC(poolingDesc, HD_TAG_POOLING);
    HD_CHECK_TENSOR(inputTensorDesc);
    HD_CHECK_PTR(outputTensorDimA);
    int out[CUDNN_DIM_MAX];
    if (nbDims < 3 || nbDims > CUDNN_DIM_MAX)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "nbDims %d is out of range", nbDims);
    cudnnStatus_t st = out_dims(__func__, poolingDesc, inputTensorDesc, nbDims, out);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    for (int i = 0; i < nbDims; i++)
        outputTensorDimA[i] = out[i];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetPooling2dForwardOutputDim)(const cudnnPoolingDescriptor_t poolingDesc,
                                                         const cudnnTensorDescriptor_t inputTensorDesc, int *n, int *c,
                                                         int *h, int *w)
{
    HD_CHECK_DESC(poolingDesc, HD_TAG_POOLING);
    HD_CHECK_TENSOR(inputTensorDesc);
    if (!n || !c || !h || !w)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    int out[CUDNN_DIM_MAX];
    cudnnStatus_t st = out_dims(__func__, poolingDesc, inputTensorDesc, 4, out);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    *n = out[0];
    *c = out[1];
    *h = out[2];
    *w = out[3];
    return CUDNN_STATUS_SUCCESS;
}
