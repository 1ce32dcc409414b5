/*
 * Filter descriptors.  Dimensions are always given in the logical order K, C, spatial...;
 * the format says how they are laid out in memory (NCHW = KCRS, NHWC = KRSC, NCHW_VECT_C =
 * K, C/vect, R, S, vect).  Checks as for tensors (see tensor_desc.c); with NCHW_VECT_C a C
 * that is not a multiple of the vector width is accepted and rounded up to whole vectors,
 * as cuDNN 9 does.  The checks live in core/desc_set.c.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/desc_set.h"
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

cudnnStatus_t HD_IMPL(cudnnSetFilter4dDescriptor)(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                  cudnnTensorFormat_t format, int k, int c, int h, int w)
{
    HD_CHECK_DESC(filterDesc, HD_TAG_FILTER);
    int dims[4] = {k, c, h, w};
    return hd_filter_set(filterDesc, dataType, format, 4, dims, "cudnnSetFilter4dDescriptor");
}

cudnnStatus_t HD_IMPL(cudnnSetFilterNdDescriptor)(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                  cudnnTensorFormat_t format, int nbDims, const int filterDimA[])
{
    HD_CHECK_DESC(filterDesc, HD_TAG_FILTER);
    return hd_filter_set(filterDesc, dataType, format, nbDims, filterDimA, "cudnnSetFilterNdDescriptor");
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
    /* cuDNN 8.5 refuses a request for no dimension, and one beyond CUDNN_DIM_MAX as
     * unsupported, before writing anything (unlike the tensor getter, which takes both). */
    if (nbDimsRequested < 1)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "nbDimsRequested %d must be at least 1", nbDimsRequested);
    if (nbDimsRequested > CUDNN_DIM_MAX)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "nbDimsRequested %d exceeds CUDNN_DIM_MAX", nbDimsRequested);
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
