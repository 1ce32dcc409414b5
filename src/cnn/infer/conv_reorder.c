/*
 * cudnnReorderFilterAndBias: cuDNN interleaves INT8x32 filters (and their bias) into the
 * order its tensor-core kernels read, so that a convolution descriptor with
 * CUDNN_NO_REORDER can skip that step.  hostdnn's kernels read INT8x32 filters in their plain
 * NCHW_VECT_C order whatever the reorder type, so the order they expect after "reordering"
 * is the plain one: the function copies filter (and bias, K floats) unchanged.  Results of
 * a later convolution are therefore identical with either reorder type.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/tensor.h"

#include <string.h>

cudnnStatus_t HD_IMPL(cudnnReorderFilterAndBias)(cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
                                                 cudnnReorderType_t reorderType, const void *filterData,
                                                 void *reorderedFilterData, int reorderBias, const void *biasData,
                                                 void *reorderedBiasData)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_FILTER(filterDesc);
    HD_CHECK_PTR(filterData);
    HD_CHECK_PTR(reorderedFilterData);
    if (reorderType != CUDNN_DEFAULT_REORDER && reorderType != CUDNN_NO_REORDER)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reorderType %d is not a cudnnReorderType_t", (int)reorderType);
    if (reorderBias && (!biasData || !reorderedBiasData))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reorderBias is set but biasData or reorderedBiasData is NULL");
    if (filterDesc->dtype != CUDNN_DATA_INT8x32 || filterDesc->format != CUDNN_TENSOR_NCHW_VECT_C)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "filter reordering applies to INT8x32 NCHW_VECT_C filters (got %s)",
                       hd_dtype_name(filterDesc->dtype));
    memmove(reorderedFilterData, filterData, hd_filter_bytes(filterDesc));
    if (reorderBias)
        memmove(reorderedBiasData, biasData, (size_t)filterDesc->dims[0] * sizeof(float));
    return CUDNN_STATUS_SUCCESS;
}
