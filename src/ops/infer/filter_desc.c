/*
 * Filter descriptors.  Dimensions are always given in the logical order K, C, spatial...;
 * the format says how they are laid out in memory (NCHW = KCRS, NHWC = KRSC, NCHW_VECT_C =
 * K, C/vect, R, S, vect).  Checks as for tensors (see tensor_desc.c); with NCHW_VECT_C a C
 * that is not a multiple of the vector width is accepted and rounded up to whole vectors,
 * as cuDNN 9 does.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/tensor.h"

#include <limits.h>

typedef struct cudnnFilterStruct filter_t;

cudnnStatus_t HD_IMPL(cudnnCreateFilterDescriptor)(cudnnFilterDescriptor_t *filterDesc)
{
    HD_CHECK_PTR(filterDesc);
    filter_t *f = hd_object_new(sizeof *f, HD_TAG_FILTER);
    if (!f)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *filterDesc = f;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyFilterDescriptor)(cudnnFilterDescriptor_t filterDesc)
{
    if (!filterDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(filterDesc, HD_TAG_FILTER);
    hd_object_free(filterDesc);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t set_filter(const char *fn, filter_t *f, cudnnDataType_t dt, cudnnTensorFormat_t fmt, int nbDims,
                                const int *dims)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_DOUBLE: case CUDNN_DATA_HALF: case CUDNN_DATA_INT8:
    case CUDNN_DATA_INT32: case CUDNN_DATA_INT8x4: case CUDNN_DATA_UINT8: case CUDNN_DATA_UINT8x4:
    case CUDNN_DATA_INT8x32: case CUDNN_DATA_BFLOAT16:
        break;
    default:
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dataType %d is not valid for a filter", (int)dt);
    }
    if (fmt != CUDNN_TENSOR_NCHW && fmt != CUDNN_TENSOR_NHWC && fmt != CUDNN_TENSOR_NCHW_VECT_C)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "format %d is not a cudnnTensorFormat_t", (int)fmt);
    if (nbDims > CUDNN_DIM_MAX)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "nbDims %d exceeds CUDNN_DIM_MAX (%d)", nbDims, CUDNN_DIM_MAX);
    if (nbDims < 3)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "a filter needs at least 3 dimensions (got %d)", nbDims);
    if (!dims)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "filterDimA is NULL");
    int64_t elems = 1;
    for (int i = 0; i < nbDims; i++) {
        if (dims[i] <= 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dimension %d is %d; dimensions must be positive", i, dims[i]);
        elems *= dims[i];
        if (elems > INT_MAX)
            return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "the filter has more than 2^31-1 elements");
    }
    int vect = 1;
    if (fmt == CUDNN_TENSOR_NCHW_VECT_C) {
        vect = hd_dtype_vect(dt);
        if (vect == 1)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_TENSOR_NCHW_VECT_C needs a vector data type, not %s",
                           hd_dtype_name(dt));
    }
    f->dtype = dt;
    f->format = fmt;
    f->vect_c = vect;
    f->nbDims = nbDims;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        f->dims[i] = i < nbDims ? dims[i] : 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetFilter4dDescriptor)(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                  cudnnTensorFormat_t format, int k, int c, int h, int w)
{
    HD_CHECK_DESC(filterDesc, HD_TAG_FILTER);
    int dims[4] = {k, c, h, w};
    return set_filter("cudnnSetFilter4dDescriptor", filterDesc, dataType, format, 4, dims);
}

cudnnStatus_t HD_IMPL(cudnnSetFilterNdDescriptor)(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                  cudnnTensorFormat_t format, int nbDims, const int filterDimA[])
{
    HD_CHECK_DESC(filterDesc, HD_TAG_FILTER);
    return set_filter("cudnnSetFilterNdDescriptor", filterDesc, dataType, format, nbDims, filterDimA);
}

cudnnStatus_t HD_IMPL(cudnnGetFilter4dDescriptor)(const cudnnFilterDescriptor_t filterDesc, cudnnDataType_t *dataType,
                                                  cudnnTensorFormat_t *format, int *k, int *c, int *h, int *w)
{
    HD_CHECK_DESC(filterDesc, HD_TAG_FILTER);
    const filter_t *f = filterDesc;
    if (!dataType || !format || !k || !c || !h || !w)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    if (f->nbDims != 0 && f->nbDims < 4)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the descriptor has %d dimensions, not 4", f->nbDims);
    *dataType = f->dtype;
    *format = f->format;
    *k = f->dims[0], *c = f->dims[1], *h = f->dims[2], *w = f->dims[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetFilterNdDescriptor)(const cudnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                                  cudnnDataType_t *dataType, cudnnTensorFormat_t *format, int *nbDims,
                                                  int filterDimA[])
{
    HD_CHECK_DESC(filterDesc, HD_TAG_FILTER);
    const filter_t *f = filterDesc;
    if (!dataType || !format || !nbDims)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    int n = nbDimsRequested < f->nbDims ? nbDimsRequested : f->nbDims;
    if (n > 0 && !filterDimA)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "filterDimA is NULL");
    *dataType = f->dtype;
    *format = f->format;
    *nbDims = f->nbDims;
    for (int i = 0; i < n; i++)
        filterDimA[i] = f->dims[i];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetFilterSizeInBytes)(const cudnnFilterDescriptor_t filterDesc, size_t *size)
{
    HD_CHECK_DESC(filterDesc, HD_TAG_FILTER);
    HD_CHECK_PTR(size);
    *size = hd_filter_bytes(filterDesc);
    return CUDNN_STATUS_SUCCESS;
}
