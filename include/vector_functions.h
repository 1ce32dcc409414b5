/*
 * vector_functions.h -- hostdnn's stand-in: make_int2(), make_float4() ... constructors.
 */
#ifndef __VECTOR_FUNCTIONS_H__
#define __VECTOR_FUNCTIONS_H__

#include "crt/host_defines.h"
#include "vector_types.h"

#define __hd_make2(T, E) static __inline__ __host__ __device__ T make_##T(E x, E y) \
    { T t; t.x = x; t.y = y; return t; }
#define __hd_make3(T, E) static __inline__ __host__ __device__ T make_##T(E x, E y, E z) \
    { T t; t.x = x; t.y = y; t.z = z; return t; }
#define __hd_make4(T, E) static __inline__ __host__ __device__ T make_##T(E x, E y, E z, E w) \
    { T t; t.x = x; t.y = y; t.z = z; t.w = w; return t; }

__hd_make2(int2, int) __hd_make3(int3, int) __hd_make4(int4, int)
__hd_make2(uint2, unsigned int) __hd_make3(uint3, unsigned int) __hd_make4(uint4, unsigned int)
__hd_make2(float2, float) __hd_make3(float3, float) __hd_make4(float4, float)
__hd_make2(double2, double) __hd_make3(double3, double) __hd_make4(double4, double)
__hd_make2(char2, signed char) __hd_make4(char4, signed char)
__hd_make2(uchar2, unsigned char) __hd_make4(uchar4, unsigned char)
__hd_make2(short2, short) __hd_make4(short4, short)
__hd_make2(ushort2, unsigned short) __hd_make4(ushort4, unsigned short)

#undef __hd_make2
#undef __hd_make3
#undef __hd_make4

#endif /* __VECTOR_FUNCTIONS_H__ */
