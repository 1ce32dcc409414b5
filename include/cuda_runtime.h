/*
 * cuda_runtime.h -- hostdnn's host-only stand-in for the CUDA runtime header.
 *
 * Lets cuDNN programs compile with a plain C or C++ compiler when no CUDA toolkit exists:
 * the runtime API, the execution-space keywords, the vector types and, in C++, the typed
 * overloads (cudaMalloc(&floatPtr, n) and friends) that nvcc users rely on.
 */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__

#include "crt/host_config.h"
#include "crt/host_defines.h"
#include "vector_types.h"
#include "vector_functions.h"
#include "cuda_runtime_api.h"

#if defined(__cplusplus)

/* Typed forms: any T** converts to the void** of the C entry point. */
template <class T>
static __inline__ __host__ cudaError_t cudaMalloc(T **devPtr, size_t size)
{
    return ::cudaMalloc((void **)(void *)devPtr, size);
}

template <class T>
static __inline__ __host__ cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0)
{
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}

/* The untyped call with flags, as the C++ header of CUDA allows. */
static __inline__ __host__ cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags)
{
    return ::cudaHostAlloc(ptr, size, flags);
}

template <class T>
static __inline__ __host__ cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags)
{
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}

template <class T>
static __inline__ __host__ cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags)
{
    return ::cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}

template <class T>
static __inline__ __host__ cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                                         unsigned int flags = cudaMemAttachGlobal)
{
    return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}

template <class T>
static __inline__ __host__ cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height)
{
    return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}

/* Event creation with flags under the short name. */
static __inline__ __host__ cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags)
{
    return ::cudaEventCreateWithFlags(event, flags);
}

#endif /* __cplusplus */

#endif /* __CUDA_RUNTIME_H__ */
