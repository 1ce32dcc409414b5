/*
 * Convolution descriptors: padding, filter stride and dilation per spatial dimension, the
 * mode (CONVOLUTION flips the filter, CROSS_CORRELATION does not), the compute type, the
 * group count, the math type and the reorder type; plus the forward output shape.
 *
 * Validation follows cuDNN (checked against cuDNN 9 by tests/unit/test_oracle_conv_desc.c):
 * negative padding, non-positive stride or dilation, an unknown mode or compute type are
 * BAD_PARAM; more spatial dimensions than CUDNN_DIM_MAX - 2 is NOT_SUPPORTED.  As in cuDNN,
 * a fresh descriptor reads back with 0 spatial dimensions and all values 0, arrayLength 0
 * is accepted (such a descriptor cannot be used), and Get2d of an N-d descriptor returns
 * its first two dimensions (0 where there are none).  The setters' checks live in
 * core/desc_set.c.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/desc_set.h"
#include "core/tensor.h"

#include <limits.h>

typedef struct cudnnConvolutionStruct conv_t;

cudnnStatus_t HD_IMPL(cudnnCreateConvolutionDescriptor)(cudnnConvolutionDescriptor_t *convDesc)
{
    HD_CHECK_PTR(convDesc);
    conv_t *c = hd_object_new(sizeof *c, HD_TAG_CONV);
    if (!c)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    hd_conv_desc_defaults(c);
    *convDesc = c;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyConvolutionDescriptor)(cudnnConvolutionDescriptor_t convDesc)
{
    if (!convDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    hd_object_free(convDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetConvolution2dDescriptor)(cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w,
                                                       int u, int v, int dilation_h, int dilation_w,
                                                       cudnnConvolutionMode_t mode, cudnnDataType_t computeType)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    int pad[2] = {pad_h, pad_w}, str[2] = {u, v}, dil[2] = {dilation_h, dilation_w};
    return hd_conv_desc_set(convDesc, 2, pad, str, dil, mode, computeType, "cudnnSetConvolution2dDescriptor");
}

cudnnStatus_t HD_IMPL(cudnnGetConvolution2dDescriptor)(const cudnnConvolutionDescriptor_t convDesc, int *pad_h,
                                                       int *pad_w, int *u, int *v, int *dilation_h, int *dilation_w,
                                                       cudnnConvolutionMode_t *mode, cudnnDataType_t *computeType)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    const conv_t *c = convDesc;
    if (!pad_h || !pad_w || !u || !v || !dilation_h || !dilation_w || !mode || !computeType)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    *pad_h = c->pad[0], *pad_w = c->pad[1];
    *u = c->stride[0], *v = c->stride[1];
    *dilation_h = c->dilation[0], *dilation_w = c->dilation[1];
    *mode = c->mode;
    *computeType = c->compute_type;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetConvolutionNdDescriptor)(cudnnConvolutionDescriptor_t convDesc, int arrayLength,
                                                       const int padA[], const int filterStrideA[],
                                                       const int dilationA[], cudnnConvolutionMode_t mode,
                                                       cudnnDataType_t computeType)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    return hd_conv_desc_set(convDesc, arrayLength, padA, filterStrideA, dilationA, mode, computeType,
                            "cudnnSetConvolutionNdDescriptor");
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionNdDescriptor)(const cudnnConvolutionDescriptor_t convDesc,
                                                       int arrayLengthRequested, int *arrayLength, int padA[],
                                                       int strideA[], int dilationA[], cudnnConvolutionMode_t *mode,
                                                       cudnnDataType_t *computeType)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    const conv_t *c = convDesc;
    if (!arrayLength || !mode || !computeType)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    if (arrayLengthRequested < 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "arrayLengthRequested is negative (%d)", arrayLengthRequested);
    if (arrayLengthRequested > HD_CONV_MAX_SPATIAL)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "arrayLengthRequested %d exceeds CUDNN_DIM_MAX - 2 (%d)",
                       arrayLengthRequested, HD_CONV_MAX_SPATIAL);
    int have = c->nbSpatial;
    int n = arrayLengthRequested < have ? arrayLengthRequested : have;
    if (n > 0 && (!padA || !strideA || !dilationA))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "padA, strideA or dilationA is NULL");
    *arrayLength = have;
    for (int i = 0; i < n; i++) {
        padA[i] = c->pad[i];
        strideA[i] = c->stride[i];
        dilationA[i] = c->dilation[i];
    }
    *mode = c->mode;
    *computeType = c->compute_type;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetConvolutionGroupCount)(cudnnConvolutionDescriptor_t convDesc, int groupCount)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    if (groupCount < 1)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "groupCount must be at least 1 (got %d)", groupCount);
    ((conv_t *)convDesc)->group_count = groupCount;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionGroupCount)(cudnnConvolutionDescriptor_t convDesc, int *groupCount)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    HD_CHECK_PTR(groupCount);
    *groupCount = ((conv_t *)convDesc)->group_count;
    return CUDNN_STATUS_SUCCESS;
}

/* Math types are accepted and recorded; on the CPU every one of them computes in the
 * compute type's precision (tensor-op math would only allow lower precision, which hostdnn
 * never uses), see docs/algorithms.md. */
cudnnStatus_t HD_IMPL(cudnnSetConvolutionMathType)(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    if (mathType != CUDNN_DEFAULT_MATH && mathType != CUDNN_TENSOR_OP_MATH &&
        mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION && mathType != CUDNN_FMA_MATH)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mathType %d is not a cudnnMathType_t", (int)mathType);
    ((conv_t *)convDesc)->math_type = mathType;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionMathType)(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t *mathType)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    HD_CHECK_PTR(mathType);
    *mathType = ((conv_t *)convDesc)->math_type;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetConvolutionReorderType)(cudnnConvolutionDescriptor_t convDesc,
                                                      cudnnReorderType_t reorderType)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    if (reorderType != CUDNN_DEFAULT_REORDER && reorderType != CUDNN_NO_REORDER)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reorderType %d is not a cudnnReorderType_t", (int)reorderType);
    ((conv_t *)convDesc)->reorder_type = reorderType;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionReorderType)(cudnnConvolutionDescriptor_t convDesc,
                                                      cudnnReorderType_t *reorderType)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    HD_CHECK_PTR(reorderType);
    *reorderType = ((conv_t *)convDesc)->reorder_type;
    return CUDNN_STATUS_SUCCESS;
}

/* Output dims of the forward convolution: N, K, then per spatial dimension
 * 1 + (in + 2*pad - ((f - 1) * dil + 1)) / stride.  Shape checks are those of
 * hd_conv_output_dims (conv_problem.c).  As cuDNN 9 does, nbDims may be smaller than the
 * input's rank (the leading dimensions are written). */
#include "conv/conv_problem.h"

cudnnStatus_t HD_IMPL(cudnnGetConvolution2dForwardOutputDim)(const cudnnConvolutionDescriptor_t convDesc,
                                                             const cudnnTensorDescriptor_t inputTensorDesc,
                                                             const cudnnFilterDescriptor_t filterDesc, int *n, int *c,
                                                             int *h, int *w)
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    HD_CHECK_TENSOR(inputTensorDesc);
    HD_CHECK_FILTER(filterDesc);
    if (!n || !c || !h || !w)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    int out[CUDNN_DIM_MAX] = {0};
    cudnnStatus_t st = hd_conv_output_dims(convDesc, inputTensorDesc, filterDesc, out, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    /* like cuDNN, an N-d problem answers with its first four output dimensions */
    *n = out[0], *c = out[1], *h = out[2], *w = out[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetConvolutionNdForwardOutputDim)(const cudnnConvolutionDescriptor_t convDesc,
                                                             const cudnnTensorDescriptor_t inputTensorDesc,
                                                             const cudnnFilterDescriptor_t filterDesc, int nbDims,
                                                             int tensorOuputDimA[])
{
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    HD_CHECK_TENSOR(inputTensorDesc);
    HD_CHECK_FILTER(filterDesc);
    HD_CHECK_PTR(tensorOuputDimA);
    if (nbDims <= 0 || nbDims > inputTensorDesc->nbDims)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "nbDims %d is outside 1..%d (the input's dimensions)", nbDims,
                       inputTensorDesc->nbDims);
    int out[CUDNN_DIM_MAX] = {0};
    cudnnStatus_t st = hd_conv_output_dims(convDesc, inputTensorDesc, filterDesc, out, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    for (int i = 0; i < nbDims; i++)
        tensorOuputDimA[i] = out[i];
    return CUDNN_STATUS_SUCCESS;
}
