/*
 * Tensor descriptors: create, the 4d/Nd setters (packed by format, or explicit strides),
 * getters, size in bytes, destroy.
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
#include "core/tensor.h"

#include <limits.h>

typedef struct cudnnTensorStruct tensor_t;

static int valid_dtype(cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_DOUBLE: case CUDNN_DATA_HALF: case CUDNN_DATA_INT8:
    case CUDNN_DATA_INT32: case CUDNN_DATA_INT8x4: case CUDNN_DATA_UINT8: case CUDNN_DATA_UINT8x4:
    case CUDNN_DATA_INT8x32: case CUDNN_DATA_BFLOAT16:
        return 1;
    default:
        return 0;
    }
}

static int valid_format(cudnnTensorFormat_t f)
{
    return f == CUDNN_TENSOR_NCHW || f == CUDNN_TENSOR_NHWC || f == CUDNN_TENSOR_NCHW_VECT_C;
}

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

/* Shared checks of the dimensions; FN is the public name for the log. */
static cudnnStatus_t check_dims(const char *fn, cudnnDataType_t dt, int nbDims, const int *dims)
{
    if (!valid_dtype(dt))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dataType %d is not valid for a tensor", (int)dt);
    if (nbDims > CUDNN_DIM_MAX)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "nbDims %d exceeds CUDNN_DIM_MAX (%d)", nbDims, CUDNN_DIM_MAX);
    if (nbDims < 3)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "nbDims must be at least 3 (got %d)", nbDims);
    if (!dims)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dimA is NULL");
    int64_t elems = 1;
    for (int i = 0; i < nbDims; i++) {
        if (dims[i] <= 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dimension %d is %d; dimensions must be positive", i, dims[i]);
        elems *= dims[i];
        if (elems > INT_MAX)
            return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "the tensor has more than 2^31-1 elements");
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Store a validated description; the caller has checked everything. */
static void store(tensor_t *t, cudnnDataType_t dt, cudnnTensorFormat_t fmt, int vect_c, int nbDims, const int *dims,
                  const int *strides, int packed)
{
    t->dtype = dt;
    t->format = fmt;
    t->vect_c = vect_c;
    t->nbDims = nbDims;
    for (int i = 0; i < CUDNN_DIM_MAX; i++) {
        t->dims[i] = i < nbDims ? dims[i] : 0;
        t->strides[i] = i < nbDims ? strides[i] : 0;
    }
    t->packed = packed;
}

static cudnnStatus_t set_by_format(const char *fn, tensor_t *t, cudnnTensorFormat_t fmt, cudnnDataType_t dt,
                                   int nbDims, const int *dims)
{
    if (!valid_format(fmt))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "format %d is not a cudnnTensorFormat_t", (int)fmt);
    cudnnStatus_t st = check_dims(fn, dt, nbDims, dims);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int vect = 1;
    if (fmt == CUDNN_TENSOR_NCHW_VECT_C) {
        vect = hd_dtype_vect(dt);
        if (vect == 1)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn,
                           "CUDNN_TENSOR_NCHW_VECT_C needs a vector data type (INT8x4, UINT8x4, INT8x32), not %s",
                           hd_dtype_name(dt));
        if (dims[1] % vect != 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "C (%d) must be a multiple of the vector width %d", dims[1], vect);
    }
    int strides[CUDNN_DIM_MAX];
    if (hd_packed_strides(fmt, nbDims, dims, vect, strides) != 0)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "a stride exceeds 2^31-1");
    store(t, dt, fmt, vect, nbDims, dims, strides, 1);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t set_strided(const char *fn, tensor_t *t, cudnnDataType_t dt, int nbDims, const int *dims,
                                 const int *strides)
{
    cudnnStatus_t st = check_dims(fn, dt, nbDims, dims);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (!strides)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "strideA is NULL");
    int64_t last = 0;
    for (int i = 0; i < nbDims; i++) {
        if (strides[i] < 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "stride %d is negative (%d)", i, strides[i]);
        if (strides[i] == 0 && dims[i] > 1)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "stride %d is 0 but dimension %d has size %d", i, i, dims[i]);
        last += (int64_t)(dims[i] - 1) * strides[i];
    }
    if (last >= ((int64_t)1 << 40))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "the strides span more than 2^40 elements");
    int packed[CUDNN_DIM_MAX];
    int is_packed = hd_packed_strides(CUDNN_TENSOR_NCHW, nbDims, dims, 1, packed) == 0;
    for (int i = 0; i < nbDims && is_packed; i++)
        is_packed = dims[i] == 1 || packed[i] == strides[i];
    store(t, dt, CUDNN_TENSOR_NCHW, 1, nbDims, dims, strides, is_packed);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetTensor4dDescriptor)(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                  cudnnDataType_t dataType, int n, int c, int h, int w)
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    int dims[4] = {n, c, h, w};
    return set_by_format("cudnnSetTensor4dDescriptor", tensorDesc, format, dataType, 4, dims);
}

cudnnStatus_t HD_IMPL(cudnnSetTensor4dDescriptorEx)(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
                                                    int n, int c, int h, int w, int nStride, int cStride,
                                                    int hStride, int wStride)
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    int dims[4] = {n, c, h, w}, strides[4] = {nStride, cStride, hStride, wStride};
    return set_strided("cudnnSetTensor4dDescriptorEx", tensorDesc, dataType, 4, dims, strides);
}

cudnnStatus_t HD_IMPL(cudnnSetTensorNdDescriptor)(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
                                                  int nbDims, const int dimA[], const int strideA[])
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    return set_strided("cudnnSetTensorNdDescriptor", tensorDesc, dataType, nbDims, dimA, strideA);
}

cudnnStatus_t HD_IMPL(cudnnSetTensorNdDescriptorEx)(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                    cudnnDataType_t dataType, int nbDims, const int dimA[])
{
    HD_CHECK_DESC(tensorDesc, HD_TAG_TENSOR);
    return set_by_format("cudnnSetTensorNdDescriptorEx", tensorDesc, format, dataType, nbDims, dimA);
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
