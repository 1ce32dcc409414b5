/*
 * cuda_runtime.h -- hostdnn's host-only stand-in for the CUDA runtime header.
 *
 * Lets cuDNN programs compile with a plain C or C++ compiler when no CUDA toolkit exists.
 */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__

#include "cuda_runtime_api.h"

#endif /* __CUDA_RUNTIME_H__ */
