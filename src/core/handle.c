/* core/handle.c -- helpers on cudnnHandle_t used by every sub-library. */
#include "core/api.h"
#include "core/handle.h"
#include "core/memory.h"

cudnnStatus_t hd_handle_check(cudnnHandle_t h, const char *fn)
{
    if (!h)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "handle is NULL");
    if (!hd_object_is(h, HD_TAG_HANDLE))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "handle is not a live cudnnHandle_t (it is a %s)",
                       hd_object_kind(h));
    return CUDNN_STATUS_SUCCESS;
}

cudaStream_t hd_handle_stream_unchecked(cudnnHandle_t h)
{
    return hd_object_is(h, HD_TAG_HANDLE) ? h->stream : NULL;
}

void *hd_handle_scratch(cudnnHandle_t h, size_t bytes)
{
    if (bytes <= h->scratch_size)
        return h->scratch;
    void *p = hd_aligned_alloc(bytes);
    if (!p)
        return NULL;
    hd_aligned_free(h->scratch);
    h->scratch = p;
    h->scratch_size = bytes;
    return p;
}
