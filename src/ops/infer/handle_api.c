/* cudnnCreate / cudnnDestroy / streams. */
#include "core/api.h"
#include "core/cpu.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/parallel.h"

cudnnStatus_t HD_IMPL(cudnnCreate)(cudnnHandle_t *handle)
{
    if (!handle)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "handle is NULL");
    struct cudnnContext *h = hd_object_new(sizeof *h, HD_TAG_HANDLE);
    if (!h)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory for the handle");
    h->stream = NULL;
    h->num_threads = hd_default_threads();
    h->isa = (int)hd_cpu_isa();
    h->runtime_error = CUDNN_STATUS_SUCCESS;
    *handle = h;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroy)(cudnnHandle_t handle)
{
    HD_CHECK_HANDLE(handle);
    if (handle->find_cache && handle->find_cache_free)
        handle->find_cache_free(handle->find_cache);
    hd_aligned_free(handle->scratch);
    hd_object_free(handle);
    return CUDNN_STATUS_SUCCESS;
}

/* Any stream value is accepted and returned as given: work is synchronous, so a stream
 * cannot be "wrong" here, and programs pass streams of their own CUDA runtime. */
cudnnStatus_t HD_IMPL(cudnnSetStream)(cudnnHandle_t handle, cudaStream_t streamId)
{
    HD_CHECK_HANDLE(handle);
    handle->stream = streamId;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetStream)(cudnnHandle_t handle, cudaStream_t *streamId)
{
    HD_CHECK_HANDLE(handle);
    if (!streamId)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "streamId is NULL");
    *streamId = handle->stream;
    return CUDNN_STATUS_SUCCESS;
}
