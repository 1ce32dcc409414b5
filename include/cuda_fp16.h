/*
 * cuda_fp16.h -- hostdnn's host stand-in for CUDA's half-precision types.
 *
 * __half is an IEEE 754 binary16 value held in its 16 bits; __half_raw exposes those bits.
 * The conversions below run on the host and round as CUDA's do (round to nearest even unless
 * the name says otherwise; NaN becomes the canonical 0x7fff).  Usable from C and C++; C++
 * also gets the constructors and conversions nvcc users write (__half h = 1.5f; float f = h),
 * the `half` / `half2` names and the arithmetic and comparison operators (crt/hd_fp_ops.h),
 * which CUDA's header gives C++ code.  Arithmetic (functions and operators) is done in float
 * and rounded once, which is correctly rounded for half operands.  __nv_bfloat16 comes with
 * it (cuda_bf16.h).
 */
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__

#include <string.h>
#include "crt/host_defines.h"
#include "vector_types.h"

#define CUDA_FP16_HOST_ONLY 1

typedef struct __half_raw {
    unsigned short x;
} __half_raw;

typedef struct __half2_raw {
    unsigned short x;
    unsigned short y;
} __half2_raw;

struct __align__(2) __half {
    unsigned short __x;
#if defined(__cplusplus)
    __half() = default;
    __host__ __device__ __half(const __half_raw &r) : __x(r.x) {}
    __host__ __device__ __half &operator=(const __half_raw &r) { __x = r.x; return *this; }
    __host__ __device__ operator __half_raw() const { __half_raw r; r.x = __x; return r; }
    __host__ __device__ __half(float f);
    __host__ __device__ __half(double f);
    __host__ __device__ __half &operator=(float f);
    __host__ __device__ operator float() const;
#endif
};
typedef struct __half __half;

struct __align__(4) __half2 {
    __half x;
    __half y;
#if defined(__cplusplus)
    __half2() = default;
    __host__ __device__ __half2(const __half &a, const __half &b) : x(a), y(b) {}
    __host__ __device__ __half2(const __half2_raw &r) { x.__x = r.x; y.__x = r.y; }
    __host__ __device__ operator __half2_raw() const { __half2_raw r; r.x = x.__x; r.y = y.__x; return r; }
#endif
};
typedef struct __half2 __half2;

/* Bits of a float, and back, without aliasing trouble. */
static __inline__ __host__ __device__ unsigned int __hd_float_bits(float f)
{
    unsigned int u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static __inline__ __host__ __device__ float __hd_bits_float(unsigned int u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* float -> binary16 bits; TRUNCATE selects round-toward-zero instead of nearest-even. */
static __inline__ __host__ __device__ unsigned short __hd_float_to_half_bits(float f, int truncate)
{
    unsigned int u = __hd_float_bits(f);
    unsigned int sign = (u >> 16) & 0x8000u;
    unsigned int a = u & 0x7fffffffu;
    unsigned int h, rem, half_ulp;
    if (a >= 0x7f800000u)                            /* infinity or NaN */
        return (unsigned short)(a > 0x7f800000u ? 0x7fffu : (sign | 0x7c00u));
    if (a >= 0x38800000u) {                          /* normal half range (>= 2^-14) */
        h = (a - (112u << 23)) >> 13;
        rem = a & 0x1fffu;
        half_ulp = 0x1000u;
    } else if (a >= 0x33000000u) {                   /* subnormal half (>= 2^-25) */
        unsigned int mant = (a & 0x7fffffu) | 0x800000u;
        unsigned int shift = 126u - (a >> 23);
        h = mant >> shift;
        rem = mant & ((1u << shift) - 1u);
        half_ulp = 1u << (shift - 1u);
    } else {                                         /* below half the smallest subnormal */
        return (unsigned short)sign;
    }
    if (truncate) {
        if (h >= 0x7c00u)
            h = 0x7bffu;
    } else {
        if (rem > half_ulp || (rem == half_ulp && (h & 1u)))
            h++;
        if (h > 0x7c00u)
            h = 0x7c00u;
    }
    return (unsigned short)(sign | h);
}

static __inline__ __host__ __device__ float __hd_half_bits_to_float(unsigned short hb)
{
    unsigned int sign = ((unsigned int)hb & 0x8000u) << 16;
    unsigned int e = ((unsigned int)hb >> 10) & 0x1fu;
    unsigned int m = (unsigned int)hb & 0x3ffu;
    if (e == 0x1fu)
        return __hd_bits_float(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0)
            return __hd_bits_float(sign);
        /* subnormal: m * 2^-24, exact in float */
        float v = (float)m * 5.9604644775390625e-08f;
        return sign ? -v : v;
    }
    return __hd_bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

static __inline__ __host__ __device__ __half __hd_half_from_bits(unsigned short b)
{
    __half h;
    h.__x = b;
    return h;
}

static __inline__ __host__ __device__ __half __float2half_rn(float a)
{
    return __hd_half_from_bits(__hd_float_to_half_bits(a, 0));
}
static __inline__ __host__ __device__ __half __float2half(float a) { return __float2half_rn(a); }
static __inline__ __host__ __device__ __half __float2half_rz(float a)
{
    return __hd_half_from_bits(__hd_float_to_half_bits(a, 1));
}
static __inline__ __host__ __device__ float __half2float(__half a) { return __hd_half_bits_to_float(a.__x); }
static __inline__ __host__ __device__ __half __double2half(double a) { return __float2half_rn((float)a); }
static __inline__ __host__ __device__ __half __int2half_rn(int i) { return __float2half_rn((float)i); }
static __inline__ __host__ __device__ unsigned short __half_as_ushort(__half h) { return h.__x; }
static __inline__ __host__ __device__ short __half_as_short(__half h) { return (short)h.__x; }
static __inline__ __host__ __device__ __half __ushort_as_half(unsigned short i) { return __hd_half_from_bits(i); }
static __inline__ __host__ __device__ __half __short_as_half(short i)
{
    return __hd_half_from_bits((unsigned short)i);
}
static __inline__ __host__ __device__ int __hisnan(__half a)
{
    return (a.__x & 0x7c00u) == 0x7c00u && (a.__x & 0x3ffu) != 0;
}
static __inline__ __host__ __device__ int __hisinf(__half a)
{
    return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0;
}

static __inline__ __host__ __device__ __half2 __hd_half2_make(__half a, __half b)
{
    __half2 r;
    r.x = a;
    r.y = b;
    return r;
}
static __inline__ __host__ __device__ __half2 __float2half2_rn(float a)
{
    return __hd_half2_make(__float2half_rn(a), __float2half_rn(a));
}
static __inline__ __host__ __device__ __half2 __floats2half2_rn(float a, float b)
{
    return __hd_half2_make(__float2half_rn(a), __float2half_rn(b));
}
static __inline__ __host__ __device__ __half2 __halves2half2(__half a, __half b) { return __hd_half2_make(a, b); }
static __inline__ __host__ __device__ float __low2float(__half2 a) { return __half2float(a.x); }
static __inline__ __host__ __device__ float __high2float(__half2 a) { return __half2float(a.y); }
static __inline__ __host__ __device__ __half __low2half(__half2 a) { return a.x; }
static __inline__ __host__ __device__ __half __high2half(__half2 a) { return a.y; }

/* Arithmetic and comparisons, computed in float and rounded once (see crt/hd_fp_ops.h for
 * why that is correctly rounded).  Comparisons are ordered: false when either is NaN, except
 * __hne, which is true then too (CUDA's unordered-or-not-equal). */
static __inline__ __host__ __device__ __half __hadd(__half a, __half b) { return __float2half_rn(__half2float(a) + __half2float(b)); }
static __inline__ __host__ __device__ __half __hsub(__half a, __half b) { return __float2half_rn(__half2float(a) - __half2float(b)); }
static __inline__ __host__ __device__ __half __hmul(__half a, __half b) { return __float2half_rn(__half2float(a) * __half2float(b)); }
static __inline__ __host__ __device__ __half __hdiv(__half a, __half b) { return __float2half_rn(__half2float(a) / __half2float(b)); }
static __inline__ __host__ __device__ __half __hneg(__half a) { return __hd_half_from_bits((unsigned short)(a.__x ^ 0x8000u)); }
static __inline__ __host__ __device__ __half __habs(__half a) { return __hd_half_from_bits((unsigned short)(a.__x & 0x7fffu)); }
/* a*b is exact in double (22 significant bits); the sum is rounded to double, then to half. */
static __inline__ __host__ __device__ __half __hfma(__half a, __half b, __half c)
{
    return __double2half((double)__half2float(a) * (double)__half2float(b) + (double)__half2float(c));
}
static __inline__ __host__ __device__ int __heq(__half a, __half b) { return __half2float(a) == __half2float(b); }
static __inline__ __host__ __device__ int __hne(__half a, __half b) { return !(__half2float(a) == __half2float(b)); }
static __inline__ __host__ __device__ int __hlt(__half a, __half b) { return __half2float(a) < __half2float(b); }
static __inline__ __host__ __device__ int __hgt(__half a, __half b) { return __half2float(a) > __half2float(b); }
static __inline__ __host__ __device__ int __hle(__half a, __half b) { return __half2float(a) <= __half2float(b); }
static __inline__ __host__ __device__ int __hge(__half a, __half b) { return __half2float(a) >= __half2float(b); }
/* max/min return the other operand when one is NaN (CUDA's __hmax / __hmin). */
static __inline__ __host__ __device__ __half __hmax(__half a, __half b)
{
    return __hisnan(a) ? b : __hisnan(b) ? a : __half2float(a) >= __half2float(b) ? a : b;
}
static __inline__ __host__ __device__ __half __hmin(__half a, __half b)
{
    return __hisnan(a) ? b : __hisnan(b) ? a : __half2float(a) <= __half2float(b) ? a : b;
}
static __inline__ __host__ __device__ int __half2int_rz(__half a) { return (int)__half2float(a); }
static __inline__ __host__ __device__ __half2 __half2half2(__half a) { return __hd_half2_make(a, a); }
static __inline__ __host__ __device__ __half2 __low2half2(__half2 a) { return __hd_half2_make(a.x, a.x); }
static __inline__ __host__ __device__ __half2 __high2half2(__half2 a) { return __hd_half2_make(a.y, a.y); }
static __inline__ __host__ __device__ __half2 __lowhigh2highlow(__half2 a) { return __hd_half2_make(a.y, a.x); }
static __inline__ __host__ __device__ __half2 __hadd2(__half2 a, __half2 b) { return __hd_half2_make(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
static __inline__ __host__ __device__ __half2 __hsub2(__half2 a, __half2 b) { return __hd_half2_make(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
static __inline__ __host__ __device__ __half2 __hmul2(__half2 a, __half2 b) { return __hd_half2_make(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
static __inline__ __host__ __device__ __half2 __h2div(__half2 a, __half2 b) { return __hd_half2_make(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
static __inline__ __host__ __device__ __half2 __hneg2(__half2 a) { return __hd_half2_make(__hneg(a.x), __hneg(a.y)); }
static __inline__ __host__ __device__ __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    return __hd_half2_make(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
static __inline__ __host__ __device__ float2 __half22float2(__half2 a)
{
    float2 r;
    r.x = __half2float(a.x);
    r.y = __half2float(a.y);
    return r;
}
static __inline__ __host__ __device__ __half2 __float22half2_rn(float2 a) { return __floats2half2_rn(a.x, a.y); }

#if defined(__cplusplus)
__host__ __device__ inline __half::__half(float f) : __x(__hd_float_to_half_bits(f, 0)) {}
__host__ __device__ inline __half::__half(double f) : __x(__hd_float_to_half_bits((float)f, 0)) {}
__host__ __device__ inline __half &__half::operator=(float f)
{
    __x = __hd_float_to_half_bits(f, 0);
    return *this;
}
__host__ __device__ inline __half::operator float() const { return __hd_half_bits_to_float(__x); }

/* What CUDA's header gives C++ code besides the struct names. */
typedef __half half;
typedef __half2 half2;

#include "crt/hd_fp_ops.h"
__HD_FP_SCALAR_OPS(__half, __half2float, __float2half_rn)
__HD_FP_PAIR_OPS(__half2, __half)
#endif

#include "cuda_bf16.h"

#endif /* __CUDA_FP16_H__ */
