/*
 * cuda_bf16.h -- hostdnn's host stand-in for CUDA's bfloat16 type.
 *
 * __nv_bfloat16 holds the top 16 bits of a float.  float -> bfloat16 rounds to nearest even
 * (NaN becomes the canonical 0x7fff); bfloat16 -> float is exact.  Usable from C and C++;
 * C++ also gets nv_bfloat16 / nv_bfloat162, the half-named overloads (__hadd, __low2float ...)
 * and the operators of crt/hd_fp_ops.h, as with CUDA's header.
 */
#ifndef __CUDA_BF16_H__
#define __CUDA_BF16_H__

#include <string.h>
#include "crt/host_defines.h"
#include "vector_types.h"

typedef struct __nv_bfloat16_raw {
    unsigned short x;
} __nv_bfloat16_raw;

typedef struct __nv_bfloat162_raw {
    unsigned short x;
    unsigned short y;
} __nv_bfloat162_raw;

struct __align__(2) __nv_bfloat16 {
    unsigned short __x;
#if defined(__cplusplus)
    __nv_bfloat16() = default;
    __host__ __device__ __nv_bfloat16(const __nv_bfloat16_raw &r) : __x(r.x) {}
    __host__ __device__ __nv_bfloat16 &operator=(const __nv_bfloat16_raw &r) { __x = r.x; return *this; }
    __host__ __device__ operator __nv_bfloat16_raw() const { __nv_bfloat16_raw r; r.x = __x; return r; }
    __host__ __device__ __nv_bfloat16(float f);
    __host__ __device__ operator float() const;
#endif
};
typedef struct __nv_bfloat16 __nv_bfloat16;

struct __align__(4) __nv_bfloat162 {
    __nv_bfloat16 x;
    __nv_bfloat16 y;
#if defined(__cplusplus)
    __nv_bfloat162() = default;
    __host__ __device__ __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
    __host__ __device__ __nv_bfloat162(const __nv_bfloat162_raw &r) { x.__x = r.x; y.__x = r.y; }
    __host__ __device__ operator __nv_bfloat162_raw() const { __nv_bfloat162_raw r; r.x = x.__x; r.y = y.__x; return r; }
#endif
};
typedef struct __nv_bfloat162 __nv_bfloat162;

static __inline__ __host__ __device__ unsigned short __hd_float_to_bf16_bits(float f, int truncate)
{
    unsigned int u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return 0x7fffu;
    if (!truncate)
        u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}

static __inline__ __host__ __device__ float __hd_bf16_bits_to_float(unsigned short b)
{
    unsigned int u = (unsigned int)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static __inline__ __host__ __device__ __nv_bfloat16 __hd_bf16_from_bits(unsigned short b)
{
    __nv_bfloat16 h;
    h.__x = b;
    return h;
}

static __inline__ __host__ __device__ __nv_bfloat16 __float2bfloat16_rn(float a)
{
    return __hd_bf16_from_bits(__hd_float_to_bf16_bits(a, 0));
}
static __inline__ __host__ __device__ __nv_bfloat16 __float2bfloat16(float a) { return __float2bfloat16_rn(a); }
static __inline__ __host__ __device__ __nv_bfloat16 __float2bfloat16_rz(float a)
{
    return __hd_bf16_from_bits(__hd_float_to_bf16_bits(a, 1));
}
static __inline__ __host__ __device__ float __bfloat162float(__nv_bfloat16 a)
{
    return __hd_bf16_bits_to_float(a.__x);
}
static __inline__ __host__ __device__ __nv_bfloat16 __double2bfloat16(double a)
{
    return __float2bfloat16_rn((float)a);
}
static __inline__ __host__ __device__ unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
static __inline__ __host__ __device__ __nv_bfloat16 __ushort_as_bfloat16(unsigned short i)
{
    return __hd_bf16_from_bits(i);
}

static __inline__ __host__ __device__ __nv_bfloat162 __hd_bf162_make(__nv_bfloat16 a, __nv_bfloat16 b)
{
    __nv_bfloat162 r;
    r.x = a;
    r.y = b;
    return r;
}
static __inline__ __host__ __device__ __nv_bfloat162 __float2bfloat162_rn(float a)
{
    return __hd_bf162_make(__float2bfloat16_rn(a), __float2bfloat16_rn(a));
}
static __inline__ __host__ __device__ __nv_bfloat162 __floats2bfloat162_rn(float a, float b)
{
    return __hd_bf162_make(__float2bfloat16_rn(a), __float2bfloat16_rn(b));
}
static __inline__ __host__ __device__ __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __hd_bf162_make(a, b);
}
static __inline__ __host__ __device__ float2 __bfloat1622float2(__nv_bfloat162 a)
{
    float2 r;
    r.x = __bfloat162float(a.x);
    r.y = __bfloat162float(a.y);
    return r;
}
static __inline__ __host__ __device__ __nv_bfloat162 __float22bfloat162_rn(float2 a)
{
    return __floats2bfloat162_rn(a.x, a.y);
}

#if defined(__cplusplus)
__host__ __device__ inline __nv_bfloat16::__nv_bfloat16(float f) : __x(__hd_float_to_bf16_bits(f, 0)) {}
__host__ __device__ inline __nv_bfloat16::operator float() const { return __hd_bf16_bits_to_float(__x); }

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

/* C++ overloads CUDA gives bfloat16 under the names the half functions use (C has no
 * overloading, so C code keeps to the bfloat16-named functions above).  Arithmetic is done
 * in float and rounded once: correctly rounded, see crt/hd_fp_ops.h. */
static inline __host__ __device__ float __low2float(__nv_bfloat162 a) { return __bfloat162float(a.x); }
static inline __host__ __device__ float __high2float(__nv_bfloat162 a) { return __bfloat162float(a.y); }
static inline __host__ __device__ __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) + __bfloat162float(b));
}
static inline __host__ __device__ __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) - __bfloat162float(b));
}
static inline __host__ __device__ __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) * __bfloat162float(b));
}
static inline __host__ __device__ __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __float2bfloat16_rn(__bfloat162float(a) / __bfloat162float(b));
}
static inline __host__ __device__ __nv_bfloat16 __hneg(__nv_bfloat16 a)
{
    return __hd_bf16_from_bits((unsigned short)(a.__x ^ 0x8000u));
}

#include "crt/hd_fp_ops.h"
__HD_FP_SCALAR_OPS(__nv_bfloat16, __bfloat162float, __float2bfloat16_rn)
__HD_FP_PAIR_OPS(__nv_bfloat162, __nv_bfloat16)
#endif

#endif /* __CUDA_BF16_H__ */
