/*
 * The logging callback.  libcudnn_ops_infer owns the severity mask and the callback for the
 * whole process, next to the one logging core (src/core/log.c) that every sub-library calls
 * through the private interface.
 */
#include "core/api.h"

#include <pthread.h>

static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static int cb_set;             /* cudnnSetCallback has been called */
static unsigned cb_mask;
static void *cb_udata;
static cudnnCallback_t cb_fptr;

void hd_log_callback_state(unsigned *mask, void **udata, cudnnCallback_t *fptr)
{
    pthread_mutex_lock(&cb_lock);
    /* Until the user sets a callback, the environment variables decide. */
    *mask = cb_set ? cb_mask : hd_log_env_mask();
    *udata = cb_udata;
    *fptr = cb_fptr;
    pthread_mutex_unlock(&cb_lock);
}

cudnnStatus_t HD_IMPL(cudnnSetCallback)(unsigned mask, void *udata, cudnnCallback_t fptr)
{
    pthread_mutex_lock(&cb_lock);
    cb_set = 1;
    cb_mask = mask;
    cb_udata = udata;
    cb_fptr = fptr;
    pthread_mutex_unlock(&cb_lock);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetCallback)(unsigned *mask, void **udata, cudnnCallback_t *fptr)
{
    if (!mask || !udata || !fptr)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mask, udata and fptr must not be NULL");
    hd_log_callback_state(mask, udata, fptr);
    return CUDNN_STATUS_SUCCESS;
}
