/* Status names and the asynchronous error query. */
#include "core/api.h"
#include "core/handle.h"
#include "core/status.h"

const char *HD_IMPL(cudnnGetErrorString)(cudnnStatus_t status) { return hd_status_name(status); }

/*
 * Work runs synchronously on the calling thread, so every error has already been returned by
 * the call that hit it; the handle's runtime error is therefore SUCCESS unless an operation
 * that checks numerics (none yet) recorded one.  All three modes answer at once.
 */
cudnnStatus_t HD_IMPL(cudnnQueryRuntimeError)(cudnnHandle_t handle, cudnnStatus_t *rstatus,
                                              cudnnErrQueryMode_t mode, cudnnRuntimeTag_t *tag)
{
    (void)tag;
    HD_CHECK_HANDLE(handle);
    if (!rstatus)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "rstatus is NULL");
    if (mode != CUDNN_ERRQUERY_RAWCODE && mode != CUDNN_ERRQUERY_NONBLOCKING && mode != CUDNN_ERRQUERY_BLOCKING)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnErrQueryMode_t", (int)mode);
    *rstatus = handle->runtime_error;
    handle->runtime_error = CUDNN_STATUS_SUCCESS;
    return CUDNN_STATUS_SUCCESS;
}
