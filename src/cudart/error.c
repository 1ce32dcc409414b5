/*
 * cudart/error.c -- error names and messages, the per-thread last error and the sticky error.
 *
 * Names and messages are those of the CUDA 11.2 runtime for the codes listed; any other
 * value gets "unrecognized error code", as CUDA answers for values it does not know.
 */
#define _POSIX_C_SOURCE 200809L
#include "cudart/rt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local cudaError_t rt_last_error = cudaSuccess;
static pthread_mutex_t rt_sticky_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaError_t rt_sticky_error = cudaSuccess;

cudaError_t rt_sticky(void)
{
    pthread_mutex_lock(&rt_sticky_lock);
    cudaError_t e = rt_sticky_error;
    pthread_mutex_unlock(&rt_sticky_lock);
    return e;
}

void rt_set_sticky(cudaError_t err)
{
    pthread_mutex_lock(&rt_sticky_lock);
    if (rt_sticky_error == cudaSuccess)
        rt_sticky_error = err;
    pthread_mutex_unlock(&rt_sticky_lock);
}

void rt_reset_errors(void)
{
    pthread_mutex_lock(&rt_sticky_lock);
    rt_sticky_error = cudaSuccess;
    pthread_mutex_unlock(&rt_sticky_lock);
    rt_last_error = cudaSuccess;
}

cudaError_t rt_ret(cudaError_t err)
{
    if (err != cudaSuccess)
        rt_last_error = err;
    return err;
}

/* Read once, by whichever thread fails first; the atomic makes concurrent first failures no
 * data race (each computes the same answer). */
static int rt_debug(void)
{
    static _Atomic int cached = -1;
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        const char *e = getenv("HOSTDNN_CUDART_DEBUG");
        v = e && e[0] && strcmp(e, "0") != 0;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v;
}

cudaError_t rt_fail(cudaError_t err, const char *fn, const char *fmt, ...)
{
    if (rt_debug()) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "hostdnn cudart: %s: %s: ", fn, cudaGetErrorName(err));
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    return rt_ret(err);
}

RT_API cudaError_t cudaGetLastError(void)
{
    cudaError_t e = rt_last_error;
    cudaError_t s = rt_sticky();
    if (s != cudaSuccess)
        return s;             /* a sticky error survives being read */
    rt_last_error = cudaSuccess;
    return e;
}

RT_API cudaError_t cudaPeekAtLastError(void)
{
    cudaError_t s = rt_sticky();
    return s != cudaSuccess ? s : rt_last_error;
}

typedef struct {
    cudaError_t code;
    const char *name;
    const char *text;
} rt_error_info;

static const rt_error_info rt_errors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorStartupFailure, "cudaErrorStartupFailure", "startup failure in cuda runtime"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
     "no kernel image is available for execution on the device"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorIllegalState, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {cudaErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled",
     "peer access is already enabled"},
    {cudaErrorPeerAccessNotEnabled, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {cudaErrorSetOnActiveProcess, "cudaErrorSetOnActiveProcess", "cannot set while device is active in this process"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorUnsupportedLimit, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

static const rt_error_info *rt_error_lookup(cudaError_t e)
{
    for (size_t i = 0; i < sizeof rt_errors / sizeof rt_errors[0]; i++)
        if (rt_errors[i].code == e)
            return &rt_errors[i];
    return NULL;
}

RT_API const char *cudaGetErrorName(cudaError_t error)
{
    const rt_error_info *i = rt_error_lookup(error);
    return i ? i->name : "unrecognized error code";
}

RT_API const char *cudaGetErrorString(cudaError_t error)
{
    const rt_error_info *i = rt_error_lookup(error);
    return i ? i->text : "unrecognized error code";
}

/* Both report 11.2: the runtime is 11.2 and the "driver" behind it is this same library. */
RT_API cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return RT_FAIL(cudaErrorInvalidValue, "driverVersion is NULL");
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

RT_API cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return RT_FAIL(cudaErrorInvalidValue, "runtimeVersion is NULL");
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}
