/*
 * cuda_runtime_api.h -- hostdnn's host-only stand-in for the CUDA runtime API header.
 */
#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__

#define CUDART_VERSION 11020

#include <stddef.h>
#include "driver_types.h"
#include "library_types.h"

#endif /* __CUDA_RUNTIME_API_H__ */
