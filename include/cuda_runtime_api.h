/*
 * cuda_runtime_api.h -- hostdnn's host-only stand-in for the CUDA runtime API header.
 *
 * Declares the subset of the CUDA 11.2 runtime that libcudart.so.11.0 from hostdnn
 * implements on the host CPU: host memory stands in for device memory and every operation
 * completes before the call returns.  docs/cuda-runtime.md describes each function's
 * behaviour on the host.  Plain C declarations; cuda_runtime.h adds C++ conveniences.
 */
#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__

#define CUDART_VERSION 11020

#include <stddef.h>
#include "crt/host_defines.h"
#include "driver_types.h"
#include "library_types.h"

/* Default arguments C++ callers may omit (cudaEventRecord(e), cudaMemcpyAsync(d, s, n, k) ...). */
#if defined(__cplusplus)
#define __hd_dv(v) = v
#else
#define __hd_dv(v)
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/* ---- device management ---- */
extern cudaError_t CUDARTAPI cudaGetDeviceCount(int *count);
extern cudaError_t CUDARTAPI cudaSetDevice(int device);
extern cudaError_t CUDARTAPI cudaGetDevice(int *device);
extern cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags);
extern cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int *flags);
extern cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
extern cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
extern cudaError_t CUDARTAPI cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
extern cudaError_t CUDARTAPI cudaDeviceSynchronize(void);
extern cudaError_t CUDARTAPI cudaDeviceReset(void);
extern cudaError_t CUDARTAPI cudaThreadSynchronize(void);
extern cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
extern cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
extern cudaError_t CUDARTAPI cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig);
extern cudaError_t CUDARTAPI cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig);
extern cudaError_t CUDARTAPI cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
extern cudaError_t CUDARTAPI cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig);
extern cudaError_t CUDARTAPI cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit);
extern cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);

/* ---- errors ---- */
extern cudaError_t CUDARTAPI cudaGetLastError(void);
extern cudaError_t CUDARTAPI cudaPeekAtLastError(void);
extern const char *CUDARTAPI cudaGetErrorName(cudaError_t error);
extern const char *CUDARTAPI cudaGetErrorString(cudaError_t error);

/* ---- versions ---- */
extern cudaError_t CUDARTAPI cudaDriverGetVersion(int *driverVersion);
extern cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *runtimeVersion);

/* ---- streams ---- */
extern cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *pStream);
extern cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
extern cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
extern cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags);
extern cudaError_t CUDARTAPI cudaStreamGetPriority(cudaStream_t hStream, int *priority);
extern cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags __hd_dv(0));

/* A callback queued with cudaStreamAddCallback. */
typedef void(CUDART_CB *cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);
extern cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                                   void *userData, unsigned int flags);
extern cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);

/* ---- events ---- */
extern cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *event);
extern cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
extern cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream __hd_dv(0));
extern cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream __hd_dv(0),
                                                      unsigned int flags __hd_dv(0));
extern cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event);
extern cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event);
extern cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event);
extern cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

/* ---- memory ---- */
extern cudaError_t CUDARTAPI cudaMalloc(void **devPtr, size_t size);
extern cudaError_t CUDARTAPI cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
extern cudaError_t CUDARTAPI cudaMallocManaged(void **devPtr, size_t size, unsigned int flags __hd_dv(cudaMemAttachGlobal));
extern cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size);
extern cudaError_t CUDARTAPI cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
extern cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
extern cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *pFlags, void *pHost);
extern cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size, unsigned int flags);
extern cudaError_t CUDARTAPI cudaHostUnregister(void *ptr);
extern cudaError_t CUDARTAPI cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);
extern cudaError_t CUDARTAPI cudaFree(void *devPtr);
extern cudaError_t CUDARTAPI cudaFreeAsync(void *devPtr, cudaStream_t hStream);
extern cudaError_t CUDARTAPI cudaFreeHost(void *ptr);
extern cudaError_t CUDARTAPI cudaMemGetInfo(size_t *free, size_t *total);
extern cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);
extern cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                                  cudaStream_t stream __hd_dv(0));
extern cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
extern cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                             cudaStream_t stream __hd_dv(0));
extern cudaError_t CUDARTAPI cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                          size_t height, enum cudaMemcpyKind kind);
extern cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                               size_t width, size_t height, enum cudaMemcpyKind kind,
                                               cudaStream_t stream __hd_dv(0));
extern cudaError_t CUDARTAPI cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
extern cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                                 size_t count, cudaStream_t stream __hd_dv(0));
extern cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value, size_t count);
extern cudaError_t CUDARTAPI cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream __hd_dv(0));
extern cudaError_t CUDARTAPI cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
extern cudaError_t CUDARTAPI cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                               cudaStream_t stream __hd_dv(0));

#if defined(__cplusplus)
}
#endif

#endif /* __CUDA_RUNTIME_API_H__ */
