#!/usr/bin/env bash
# Programs written for CUDA, built the way users build them with hostdnn: plain gcc/g++ with
# -I include -L lib -lcudart -lcublas, then run.  Covers the C++ side of the headers (typed
# cudaMalloc, __half constructors, nvcc keywords in host code, vector types) that the C unit
# tests cannot reach.  Prints "N passed, N failed".
set -u
. "$(dirname "$0")/../shlib.sh"
root=$HD_ROOT
build=$HD_BUILD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
link="-L$build/lib -Wl,-rpath,$build/lib"
san=""
[ "${HD_MODE:-}" = "--sanitized" ] && san="-fsanitize=address,undefined"

# 1. the example program, as a C user builds it
if gcc -std=c11 -Wall -Wextra -Werror $san -I"$root/include" "$root/examples/mlp_cublas.c" -o "$work/mlp" \
       $link -lcublas -lcudart -lm 2>"$work/mlp.err"; then
  ok
  if "$work/mlp" >"$work/mlp.out" 2>&1 && grep -q "Result = PASS" "$work/mlp.out"; then ok; else bad "mlp_cublas: $(tail -n 2 "$work/mlp.out")"; fi
else
  bad "mlp_cublas.c does not build with gcc"; head -n 5 "$work/mlp.err"
fi

# 2. C++ written for nvcc, host parts only
cat >"$work/prog.cpp" <<'CPP'
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda.h>
#include <cublas_v2.h>
#include <cudnn.h>
#include <cstdio>
#include <vector>

#if CUDA_VERSION != 11020 || CUDART_VERSION != 11020
#error version macros
#endif

__host__ __device__ __forceinline__ static float twice(float v) { return 2 * v; }
struct __align__(16) Packed { float a[4]; };
static_assert(alignof(Packed) == 16, "__align__");
static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4");
static_assert(sizeof(__half) == 2 && sizeof(__half2) == 4, "half sizes");

typedef __half half1;
static half1 from_raw(unsigned short bits)
{
    __half_raw r;
    r.x = bits;
    return reinterpret_cast<half1 &>(r);     // what NVIDIA's fp16_emu.h does
}

int main()
{
    int fails = 0;
    float *d = nullptr;                      // typed overloads: no casts needed
    if (cudaMalloc(&d, 16 * sizeof(float)) != cudaSuccess) fails++;
    double *m = nullptr;
    if (cudaMallocManaged(&m, 8 * sizeof(double)) != cudaSuccess) fails++;
    __half *ph = nullptr;
    if (cudaMallocHost(&ph, 4 * sizeof(__half)) != cudaSuccess) fails++;
    cudaEvent_t e;
    if (cudaEventCreate(&e, cudaEventDisableTiming) != cudaSuccess) fails++;
    std::vector<float> host(16, 1.5f);
    if (cudaMemcpy(d, host.data(), 64, cudaMemcpyHostToDevice) != cudaSuccess) fails++;
    cudaEvent_t t;                           // C++ default arguments: stream 0, flags 0
    if (cudaEventCreate(&t) != cudaSuccess || cudaEventRecord(t) != cudaSuccess) fails++;
    if (cudaMemsetAsync(d + 4, 0, 4) != cudaSuccess) fails++;
    if (cudaMemcpyAsync(d + 4, host.data(), 4, cudaMemcpyHostToDevice) != cudaSuccess) fails++;
    if (cudaStreamWaitEvent(0, t) != cudaSuccess || cudaEventDestroy(t) != cudaSuccess) fails++;
    __half h = 1.5f;                         // C++ conversions
    float f = h;
    if (f != 1.5f || twice(f) != 3.0f) fails++;
    ph[0] = __float2half(0.1f);
    if (__half2float(from_raw(0x3c00)) != 1.0f) fails++;
    __half_raw raw = h;
    if (raw.x != 0x3e00) fails++;
    __nv_bfloat16 b = 2.0f;
    if (float(b) != 2.0f) fails++;
    dim3 grid(4), block(8, 2);
    if (grid.y != 1 || block.y != 2 || block.z != 1) fails++;
    float4 v = make_float4(1, 2, 3, 4);
    if (v.w != 4) fails++;
    cublasHandle_t hb;
    if (cublasCreate(&hb) != CUBLAS_STATUS_SUCCESS) fails++;
    float one = 1, zero = 0, out[4];
    float *a = d, *c = d + 8;
    if (cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_T, 2, 2, 2, &one, a, 2, a, 2, &zero, c, 2) != CUBLAS_STATUS_SUCCESS) fails++;
    cudaMemcpy(out, c, sizeof out, cudaMemcpyDeviceToHost);
    if (out[0] != 4.5f) fails++;             // 1.5*1.5 + 1.5*1.5
    cublasDestroy(hb);
    cudnnHandle_t dnn;
    (void)dnn;
    cudaEventDestroy(e);
    cudaFreeHost(ph);
    cudaFree(m);
    cudaFree(d);
    if (cudaGetLastError() != cudaSuccess) fails++;
    std::printf("%s\n", fails ? "FAILED" : "OK");
    return fails;
}
CPP
if g++ -std=c++11 -Wall -Wextra -Werror $san -I"$root/include" "$work/prog.cpp" -o "$work/prog" $link \
       -lcudnn -lcublas -lcudart 2>"$work/prog.err"; then
  ok
  if "$work/prog" >"$work/prog.out" 2>&1 && grep -q '^OK' "$work/prog.out"; then ok; else bad "C++ program: $(cat "$work/prog.out")"; fi
else
  bad "C++ program does not build with g++"; head -n 10 "$work/prog.err"
fi
# 3. half / bfloat16 arithmetic in host C++ (the types and operators CUDA's headers give C++
#    code), checked for correct rounding against exact double arithmetic, and the same
#    headers from C (the C++ parts must stay out of C's way).
cat >"$work/fp.cpp" <<'CPP'
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

static int fails = 0;
#define EXPECT(c) do { if (!(c)) { std::printf("line %d: %s\n", __LINE__, #c); fails++; } } while (0)

static unsigned short hbits(half h) { __half_raw r = h; return r.x; }
static half hfrom(unsigned short b) { __half_raw r; r.x = b; return half(r); }
static unsigned short bbits(nv_bfloat16 h) { __nv_bfloat16_raw r = h; return r.x; }
static nv_bfloat16 bfrom(unsigned short b) { __nv_bfloat16_raw r; r.x = b; return nv_bfloat16(r); }

// R is the correctly rounded EXACT when no neighbour of R is closer, and on a tie R is even.
template <class T, class Bits, class From>
static bool rounded(T r, double exact, Bits bits, From from)
{
    unsigned short b = bits(r);
    double v = (float)r;
    if (std::isinf(v) || std::isnan(v) || std::isinf(exact)) return true;   // overflow: not checked here
    for (int d = -1; d <= 1; d += 2) {
        unsigned short nb = (unsigned short)(b + d);
        if ((b & 0x7fff) == 0 && d < 0) nb = (unsigned short)((b ^ 0x8000) + 1);   // across zero
        double n = (float)from(nb);
        if (std::isnan(n) || std::isinf(n)) continue;
        double e1 = std::fabs(v - exact), e2 = std::fabs(n - exact);
        if (e2 < e1 || (e2 == e1 && (b & 1))) return false;
    }
    return true;
}

int main()
{
    half a = 1.5f, b = 2.25f;
    EXPECT(float(a * b) == 3.375f && float(a + b) == 3.75f && float(b - a) == 0.75f && float(b / a) == 1.5f);
    half c = a;
    c += b; EXPECT(float(c) == 3.75f);
    c -= a; EXPECT(float(c) == 2.25f);
    c *= a; EXPECT(float(c) == 3.375f);
    c /= a; EXPECT(float(c) == 2.25f);
    c += 1.0f; EXPECT(float(c) == 3.25f);
    EXPECT(float(-a) == -1.5f && a < b && b > a && a <= a && a >= a && a != b && a == half(1.5f));
    half nan = hfrom(0x7e00);
    EXPECT(!(nan == nan) && nan != nan && !(nan < a));
    float mixed = a + 1.0f;                          // goes through float, not ambiguous
    EXPECT(mixed == 2.5f);
    // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even wins
    EXPECT(hbits(half(1.0f) + hfrom(0x1000)) == 0x3c00);
    half2 p(a, b), q = p + p;
    EXPECT(__low2float(q) == 3.0f && __high2float(q) == 4.5f);
    q *= p; EXPECT(__low2float(q) == 4.5f && __high2float(q) == 10.125f);
    float2 f2 = __half22float2(__floats2half2_rn(0.5f, -2.0f));
    EXPECT(f2.x == 0.5f && f2.y == -2.0f && __half2float(__hmax(a, b)) == 2.25f && __half2float(__hfma(a, b, a)) == 4.875f);
    nv_bfloat16 x = 3.0f, y = 0.5f;
    EXPECT(float(x / y) == 6.0f && float(x * y) == 1.5f && float(-x) == -3.0f && y < x && float(__hadd(x, y)) == 3.5f);
    __nv_bfloat162 xy(x, y);
    xy = xy * xy;
    EXPECT(__low2float(xy) == 9.0f && __high2float(xy) == 0.25f && __bfloat1622float2(__floats2bfloat162_rn(1, 2)).y == 2.0f);
    // random operand pairs: +, -, * against the exact double result (exact for these widths)
    unsigned s = 12345;
    for (int i = 0; i < 200000; i++) {
        s = s * 1103515245u + 12345u; unsigned short ub = (unsigned short)(s >> 8);
        s = s * 1103515245u + 12345u; unsigned short vb = (unsigned short)(s >> 8);
        half u = hfrom(ub), v = hfrom(vb);
        double du = (float)u, dv = (float)v;
        if (std::isnan(du) || std::isnan(dv) || std::isinf(du) || std::isinf(dv)) continue;
        if (!rounded(u + v, du + dv, hbits, hfrom) || !rounded(u - v, du - dv, hbits, hfrom) ||
            !rounded(u * v, du * dv, hbits, hfrom)) { std::printf("half %04x %04x\n", ub, vb); fails++; break; }
        nv_bfloat16 bu = bfrom(ub), bv = bfrom(vb);
        double eu = (float)bu, ev = (float)bv;
        if (std::isnan(eu) || std::isnan(ev) || std::isinf(eu) || std::isinf(ev)) continue;
        if (std::fabs(eu) > 1e30 || std::fabs(ev) > 1e30 || std::fabs(eu) < 1e-30 || std::fabs(ev) < 1e-30) continue;
        if (!rounded(bu + bv, eu + ev, bbits, bfrom) || !rounded(bu * bv, eu * ev, bbits, bfrom)) {
            std::printf("bf16 %04x %04x\n", ub, vb); fails++; break;
        }
    }
    std::printf("%s\n", fails ? "FAILED" : "OK");
    return fails;
}
CPP
cat >"$work/fp.c" <<'C'
#include <cuda_fp16.h>
#include <cuda_bf16.h>
int main(void)
{
    __half a = __float2half(1.5f), b = __float2half(2.25f);
    __half2 p = __floats2half2_rn(1.0f, 2.0f);
    float2 f = __half22float2(__hadd2(p, p));
    __nv_bfloat162 q = __floats2bfloat162_rn(1.0f, 2.0f);
    return !(__half2float(__hmul(a, b)) == 3.375f && f.y == 4.0f && __bfloat1622float2(q).x == 1.0f && __hlt(a, b));
}
C
if g++ -std=c++11 -Wall -Wextra -Werror $san -I"$root/include" "$work/fp.cpp" -o "$work/fp" 2>"$work/fp.err"; then
  ok
  if "$work/fp" >"$work/fp.out" 2>&1 && grep -q '^OK' "$work/fp.out"; then ok; else bad "half arithmetic: $(head -n 5 "$work/fp.out")"; fi
else
  bad "half arithmetic program does not build with g++"; head -n 10 "$work/fp.err"
fi
if gcc -std=c11 -pedantic -Wall -Wextra -Werror $san -I"$root/include" "$work/fp.c" -o "$work/fpc" 2>"$work/fpc.err"; then
  ok
  if "$work/fpc"; then ok; else bad "half functions from C give wrong results"; fi
else
  bad "cuda_fp16.h / cuda_bf16.h do not build as C"; head -n 10 "$work/fpc.err"
fi
finish
