/* core/version_check.c -- see version_check.h. */
#include "core/api.h"
#include "core/version_check.h"

cudnnStatus_t hd_runtime_version_check(int built_as, const char *fn)
{
    if (built_as != CUDNN_VERSION)
        return hd_fail(CUDNN_STATUS_VERSION_MISMATCH, fn,
                       "this library is cuDNN %d but libcudnn_ops_infer is %d", built_as, CUDNN_VERSION);
    return CUDNN_STATUS_SUCCESS;
}
