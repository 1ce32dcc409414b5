/*
 * vector_types.h -- hostdnn's stand-in for CUDA's small vector structs (float4, int2, dim3 ...).
 *
 * Sizes and alignments follow CUDA 11.2: a vector of two or four elements is aligned to its
 * whole size up to 16 bytes, so these structs can be shared with code built by nvcc.
 */
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__

#include "crt/host_defines.h"

struct char1 { char x; };
typedef struct char1 char1;
struct __align__(2) char2 { char x, y; };
typedef struct char2 char2;
struct char3 { char x, y, z; };
typedef struct char3 char3;
struct __align__(4) char4 { char x, y, z, w; };
typedef struct char4 char4;

struct uchar1 { unsigned char x; };
typedef struct uchar1 uchar1;
struct __align__(2) uchar2 { unsigned char x, y; };
typedef struct uchar2 uchar2;
struct uchar3 { unsigned char x, y, z; };
typedef struct uchar3 uchar3;
struct __align__(4) uchar4 { unsigned char x, y, z, w; };
typedef struct uchar4 uchar4;

struct __align__(2) short1 { short x; };
typedef struct short1 short1;
struct __align__(4) short2 { short x, y; };
typedef struct short2 short2;
struct short3 { short x, y, z; };
typedef struct short3 short3;
struct __align__(8) short4 { short x, y, z, w; };
typedef struct short4 short4;

struct __align__(2) ushort1 { unsigned short x; };
typedef struct ushort1 ushort1;
struct __align__(4) ushort2 { unsigned short x, y; };
typedef struct ushort2 ushort2;
struct ushort3 { unsigned short x, y, z; };
typedef struct ushort3 ushort3;
struct __align__(8) ushort4 { unsigned short x, y, z, w; };
typedef struct ushort4 ushort4;

struct __align__(4) int1 { int x; };
typedef struct int1 int1;
struct __align__(8) int2 { int x, y; };
typedef struct int2 int2;
struct int3 { int x, y, z; };
typedef struct int3 int3;
struct __align__(16) int4 { int x, y, z, w; };
typedef struct int4 int4;

struct __align__(4) uint1 { unsigned int x; };
typedef struct uint1 uint1;
struct __align__(8) uint2 { unsigned int x, y; };
typedef struct uint2 uint2;
struct uint3 { unsigned int x, y, z; };
typedef struct uint3 uint3;
struct __align__(16) uint4 { unsigned int x, y, z, w; };
typedef struct uint4 uint4;

struct __align__(sizeof(long int)) long1 { long int x; };
typedef struct long1 long1;
struct __align__(2*sizeof(long int)) long2 { long int x, y; };
typedef struct long2 long2;
struct long3 { long int x, y, z; };
typedef struct long3 long3;
struct __align__(16) long4 { long int x, y, z, w; };
typedef struct long4 long4;

struct __align__(sizeof(long int)) ulong1 { unsigned long int x; };
typedef struct ulong1 ulong1;
struct __align__(2*sizeof(long int)) ulong2 { unsigned long int x, y; };
typedef struct ulong2 ulong2;
struct ulong3 { unsigned long int x, y, z; };
typedef struct ulong3 ulong3;
struct __align__(16) ulong4 { unsigned long int x, y, z, w; };
typedef struct ulong4 ulong4;

struct __align__(8) longlong1 { long long int x; };
typedef struct longlong1 longlong1;
struct __align__(16) longlong2 { long long int x, y; };
typedef struct longlong2 longlong2;
struct longlong3 { long long int x, y, z; };
typedef struct longlong3 longlong3;
struct __align__(16) longlong4 { long long int x, y, z, w; };
typedef struct longlong4 longlong4;

struct __align__(8) ulonglong1 { unsigned long long int x; };
typedef struct ulonglong1 ulonglong1;
struct __align__(16) ulonglong2 { unsigned long long int x, y; };
typedef struct ulonglong2 ulonglong2;
struct ulonglong3 { unsigned long long int x, y, z; };
typedef struct ulonglong3 ulonglong3;
struct __align__(16) ulonglong4 { unsigned long long int x, y, z, w; };
typedef struct ulonglong4 ulonglong4;

struct __align__(4) float1 { float x; };
typedef struct float1 float1;
struct __align__(8) float2 { float x, y; };
typedef struct float2 float2;
struct float3 { float x, y, z; };
typedef struct float3 float3;
struct __align__(16) float4 { float x, y, z, w; };
typedef struct float4 float4;

struct __align__(8) double1 { double x; };
typedef struct double1 double1;
struct __align__(16) double2 { double x, y; };
typedef struct double2 double2;
struct double3 { double x, y, z; };
typedef struct double3 double3;
struct __align__(16) double4 { double x, y, z, w; };
typedef struct double4 double4;

/* Launch geometry.  In C++ unspecified extents default to 1, as with nvcc. */
struct dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus)
    dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    operator uint3() const { uint3 t; t.x = x; t.y = y; t.z = z; return t; }
#endif
};
typedef struct dim3 dim3;

#endif /* __VECTOR_TYPES_H__ */
