/*
 * Logging settings for hostdnn libraries that are not part of cuDNN (libcublas, libhostdnn):
 * they must not load libcudnn_ops_infer just to log, so they follow the CUDNN_LOG*
 * environment variables only (cudnnSetCallback does not reach them).
 */
#include "core/api.h"

void hd_log_callback_state(unsigned *mask, void **udata, cudnnCallback_t *fptr)
{
    *mask = hd_log_env_mask();
    *udata = NULL;
    *fptr = NULL;
}
