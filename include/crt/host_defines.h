/*
 * crt/host_defines.h -- hostdnn's stand-in for the CUDA execution-space keywords.
 *
 * Code written for nvcc marks functions __host__ / __device__ / __global__ and data
 * __shared__ / __constant__.  With a host compiler every function runs on the host and every
 * variable is ordinary memory, so the space keywords expand to nothing and the attribute
 * keywords to their GCC/Clang spelling.  Under nvcc (__CUDACC__) this file defines nothing.
 * __noinline__ is left alone: GCC's own headers spell __attribute__((__noinline__)).
 */
#ifndef __HOST_DEFINES_H__
#define __HOST_DEFINES_H__

#if !defined(__CUDACC__)

#if defined(__GNUC__) || defined(__clang__)
#define __hd_attr(x) __attribute__(x)
#else
#define __hd_attr(x)
#endif

#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __managed__
#define __managed__
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
#ifndef __forceinline__
#define __forceinline__ __inline__ __hd_attr((always_inline))
#endif
#ifndef __align__
#define __align__(n) __hd_attr((aligned(n)))
#endif
#ifndef __builtin_align__
#define __builtin_align__(n) __align__(n)
#endif
#ifndef __device_builtin__
#define __device_builtin__
#endif
#ifndef __device_builtin_texture_type__
#define __device_builtin_texture_type__
#endif
#ifndef __device_builtin_surface_type__
#define __device_builtin_surface_type__
#endif
#ifndef __cudart_builtin__
#define __cudart_builtin__
#endif
#ifndef __specialization_static
#define __specialization_static
#endif
#ifndef CUDARTAPI
#define CUDARTAPI
#endif
#ifndef CUDARTAPI_CDECL
#define CUDARTAPI_CDECL
#endif

#endif /* !__CUDACC__ */

#endif /* __HOST_DEFINES_H__ */
