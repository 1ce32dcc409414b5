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
finish
