/* Shared body of the cudnn*VersionCheck functions of the sub-libraries above ops_infer. */
#include "core/api.h"
#include "core/remote/version_check.h"

cudnnStatus_t hd_version_check_against_ops_infer(const char *fn)
{
    size_t loaded = cudnnGetVersion();
    if (loaded != (size_t)CUDNN_VERSION)
        return hd_fail(CUDNN_STATUS_VERSION_MISMATCH, fn,
                       "this library is cuDNN %d but libcudnn_ops_infer reports %zu", CUDNN_VERSION, loaded);
    return CUDNN_STATUS_SUCCESS;
}
