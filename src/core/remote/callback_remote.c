/* Callback settings for the sub-libraries other than ops_infer: ask the owner. */
#include "core/api.h"

void hd_log_callback_state(unsigned *mask, void **udata, cudnnCallback_t *fptr)
{
    if (cudnnGetCallback(mask, udata, fptr) != CUDNN_STATUS_SUCCESS) {
        *mask = hd_log_env_mask();
        *udata = NULL;
        *fptr = NULL;
    }
}
