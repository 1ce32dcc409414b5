/*
 * cuda_profiler_api.h -- hostdnn's stand-in: profiler range control.
 *
 * No CUDA profiler can attach to host code, so starting and stopping a capture range does
 * nothing and succeeds, as the CUDA runtime does when no profiler is attached.
 */
#ifndef __CUDA_PROFILER_API_H__
#define __CUDA_PROFILER_API_H__

#include "driver_types.h"

#if defined(__cplusplus)
extern "C" {
#endif

extern cudaError_t CUDARTAPI cudaProfilerStart(void);
extern cudaError_t CUDARTAPI cudaProfilerStop(void);

#if defined(__cplusplus)
}
#endif

#endif /* __CUDA_PROFILER_API_H__ */
