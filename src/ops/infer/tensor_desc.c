/*
 * Tensor descriptors: create, the 4d/Nd setters (packed by format, or explicit strides),
 * getters, size in bytes, destroy.  The setters' checks live in core/desc_set.c, shared with
 * the internal code that builds descriptors of its own.
 *
 * Validation follows the cuDNN 8.1 reference; where it is silent we follow what cuDNN 9
 * answers for the same call (tests/unit/test_oracle_desc.c compares the two):
 *   - dims must be > 0 (BAD_PARAM); more than 2^31-1 elements is NOT_SUPPORTED;
 *   - nbDims 3..8 are accepted, fewer is BAD_PARAM (as NVIDIA's cuDNN 8 answers; cuDNN 9 also
 *     takes 2), more than CUDNN_DIM_MAX is NOT_SUPPORTED;
 *   - strides must be >= 0 (8.1 documents negative strides as BAD_PARAM; cuDNN 9 takes them);
 *     a zero stride is only accepted on a dimension of size 1;
 *   - NCHW_VECT_C needs a vector type (INT8x4, UINT8x4, INT8x32) and C a multiple of its width.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/desc_set.h"
#include "core/tensor.h"

#include <limits.h>

typedef struct cudnnTensorStruct tensor_t;

cudnnStatus_t HD_IMPL(cudnnCreateTensorDescriptor)(cudnnTensorDescriptor_t *tensorDesc)
{
    HD_CHECK_PTR(tensorDesc);
    tensor_t *t = hd_object_new(sizeof *t, HD_TAG_TENSOR);
    if (!t)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *tensorDesc = t;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyTensorDescriptor)(cudnnTensorDescriptor_t tensorDesc)
{
    if (!tensorDesc)
        return CUDNN_STATUS_SUCCESS; /* like free(NULL), as cuDNN does */
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    hd_object_free(tensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetTensor4dDescriptor)(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                  cudnnDataType_t dataType, int n, int c, int h, int w)
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    int dims[4] = {n, c, h, w};
    return hd_tensor_set_format(tensorDesc, format, dataType, 4, dims, "cudnnSetTensor4dDescriptor");
}

cudnnStatus_t HD_IMPL(cudnnSetTensor4dDescriptorEx)(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
                                                    int n, int c, int h, int w, int nStride, int cStride,
                                                    int hStride, int wStride)
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    int dims[4] = {n, c, h, w}, strides[4] = {nStride, cStride, hStride, wStride};
    return hd_tensor_set_strided(tensorDesc, dataType, 4, dims, strides, "cudnnSetTensor4dDescriptorEx");
}

cudnnStatus_t HD_IMPL(cudnnSetTensorNdDescriptor)(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
                                                  int nbDims, const int dimA[], const int strideA[])
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    return hd_tensor_set_strided(tensorDesc, dataType, nbDims, dimA, strideA, "cudnnSetTensorNdDescriptor");
}

cudnnStatus_t HD_IMPL(cudnnSetTensorNdDescriptorEx)(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                    cudnnDataType_t dataType, int nbDims, const int dimA[])
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    return hd_tensor_set_format(tensorDesc, format, dataType, nbDims, dimA, "cudnnSetTensorNdDescriptorEx");
}

cudnnStatus_t HD_IMPL(cudnnGetTensor4dDescriptor)(const cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t *dataType,
                                                  int *n, int *c, int *h, int *w, int *nStride, int *cStride,
                                                  int *hStride, int *wStride)
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    const tensor_t *t = tensorDesc;
    if (!dataType || !n || !c || !h || !w || !nStride || !cStride || !hStride || !wStride)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    /* Like cuDNN 9, a descriptor of more than 4 dimensions reports its first four. */
    if (t->nbDims != 0 && t->nbDims < 4)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the descriptor has %d dimensions, not 4", t->nbDims);
    *dataType = t->dtype;
    *n = t->dims[0], *c = t->dims[1], *h = t->dims[2], *w = t->dims[3];
    *nStride = t->strides[0], *cStride = t->strides[1], *hStride = t->strides[2], *wStride = t->strides[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetTensorNdDescriptor)(const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                                  cudnnDataType_t *dataType, int *nbDims, int dimA[], int strideA[])
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    const tensor_t *t = tensorDesc;
    if (!dataType || !nbDims)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dataType or nbDims is NULL");
    int n = nbDimsRequested < t->nbDims ? nbDimsRequested : t->nbDims;
    if (n > 0 && (!dimA || !strideA))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dimA or strideA is NULL");
    *dataType = t->dtype;
    *nbDims = t->nbDims;
    for (int i = 0; i < n; i++) {
        dimA[i] = t->dims[i];
        strideA[i] = t->strides[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetTensorSizeInBytes)(const cudnnTensorDescriptor_t tensorDesc, size_t *size)
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    HD_CHECK_PTR(size);
    *size = hd_tensor_span_bytes(tensorDesc);
    return CUDNN_STATUS_SUCCESS;
}
