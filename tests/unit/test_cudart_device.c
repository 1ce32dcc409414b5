/*
 * test_cudart_device.c -- host CUDA runtime: the device description, versions, error names
 * and messages (checked against NVIDIA's libcudart when one is installed), last-error and
 * sticky-error rules, cudaDeviceReset.
 */
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

#define CHECK_CU(expr, want) do { cudaError_t got_ = (expr); \
    if (got_ == (want)) hd_t_passed++; else { hd_t_failed++; \
    fprintf(stderr, "FAIL %s:%d [%s] %s -> %s, want %s\n", __FILE__, __LINE__, hd_t_section, #expr, \
            cudaGetErrorName(got_), cudaGetErrorName(want)); } } while (0)
#define CHECK_CU_OK(expr) CHECK_CU(expr, cudaSuccess)

static void test_layout(void)
{
    SECTION("cudaDeviceProp layout");
    /* CUDA 11.2's layout on LP64 (see docs/cuda-runtime.md; tests/scripts/cuda_abi.sh compares
     * the fields CUDA 13 still has against its header). */
    CHECK_EQ_INT(sizeof(struct cudaDeviceProp), 728);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, uuid), 256);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, totalGlobalMem), 288);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, clockRate), 348);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, major), 360);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, multiProcessorCount), 388);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, maxTexture1D), 408);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, surfaceAlignment), 568);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, memoryClockRate), 608);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, l2CacheSize), 616);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, sharedMemPerMultiprocessor), 640);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, sharedMemPerBlockOptin), 696);
    CHECK_EQ_INT(offsetof(struct cudaDeviceProp, reservedSharedMemPerBlock), 720);
    CHECK_EQ_INT(sizeof(float4), 16);
    CHECK_EQ_INT(_Alignof(float4), 16);
    CHECK_EQ_INT(_Alignof(float2), 8);
    CHECK_EQ_INT(_Alignof(double2), 16);
    CHECK_EQ_INT(sizeof(dim3), 12);
    CHECK_EQ_INT(cudaMemcpyDefault, 4);
    CHECK_EQ_INT(cudaErrorInvalidResourceHandle, 400);
    CHECK_EQ_INT(cudaDevAttrComputeCapabilityMajor, 75);
}

static void test_device(void)
{
    SECTION("device");
    int n = 0, d = 7;
    CHECK_CU_OK(cudaGetDeviceCount(&n));
    CHECK_EQ_INT(n, 1);
    CHECK_CU_OK(cudaSetDevice(0));
    CHECK_CU(cudaSetDevice(1), cudaErrorInvalidDevice);
    CHECK_CU(cudaSetDevice(-1), cudaErrorInvalidDevice);
    CHECK_CU_OK(cudaGetDevice(&d));
    CHECK_EQ_INT(d, 0);
    CHECK_CU(cudaGetDevice(NULL), cudaErrorInvalidValue);
    CHECK_CU(cudaGetDeviceCount(NULL), cudaErrorInvalidValue);

    struct cudaDeviceProp p;
    memset(&p, 0xff, sizeof p);
    CHECK_CU_OK(cudaGetDeviceProperties(&p, 0));
    CHECK(p.name[0] != 0 && memchr(p.name, 0, sizeof p.name) != NULL);
    CHECK(p.totalGlobalMem > 0);
    CHECK_EQ_INT(p.major, 8);
    CHECK_EQ_INT(p.minor, 0);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    CHECK_EQ_INT(p.multiProcessorCount, cores > 0 ? cores : 1);
    CHECK_EQ_INT(p.warpSize, 32);
    CHECK_EQ_INT(p.maxThreadsPerBlock, 1024);
    CHECK(p.clockRate >= 0);
    CHECK_EQ_INT(p.unifiedAddressing, 1);
    CHECK_EQ_INT(p.managedMemory, 1);
    CHECK_EQ_INT(p.integrated, 1);
    CHECK_EQ_INT(p.computeMode, cudaComputeModeDefault);
    size_t fr, tot;
    CHECK_CU_OK(cudaMemGetInfo(&fr, &tot));
    CHECK(p.totalGlobalMem == tot);
    struct cudaDeviceProp keep;
    memset(&keep, 0x11, sizeof keep);
    CHECK_CU(cudaGetDeviceProperties(&keep, 1), cudaErrorInvalidDevice);
    CHECK(keep.major == 0x11111111);
    CHECK_CU(cudaGetDeviceProperties(NULL, 0), cudaErrorInvalidValue);

    SECTION("attributes");
    int v = -1;
    struct { enum cudaDeviceAttr a; int want; } pairs[] = {
        {cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock}, {cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2]},
        {cudaDevAttrMaxGridDimX, p.maxGridSize[0]}, {cudaDevAttrWarpSize, p.warpSize},
        {cudaDevAttrClockRate, p.clockRate}, {cudaDevAttrMultiProcessorCount, p.multiProcessorCount},
        {cudaDevAttrComputeCapabilityMajor, p.major}, {cudaDevAttrComputeCapabilityMinor, p.minor},
        {cudaDevAttrL2CacheSize, p.l2CacheSize}, {cudaDevAttrMemoryClockRate, p.memoryClockRate},
        {cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth}, {cudaDevAttrComputeMode, p.computeMode},
        {cudaDevAttrUnifiedAddressing, 1}, {cudaDevAttrManagedMemory, 1}, {cudaDevAttrIntegrated, 1},
        {cudaDevAttrMaxSharedMemoryPerBlock, (int)p.sharedMemPerBlock},
        {cudaDevAttrMaxSharedMemoryPerBlockOptin, (int)p.sharedMemPerBlockOptin},
        {cudaDevAttrMaxTexture2DLinearPitch, p.maxTexture2DLinear[2]}, {cudaDevAttrMemoryPoolsSupported, 0},
        {cudaDevAttrGpuOverlap, p.deviceOverlap}, {cudaDevAttrKernelExecTimeout, p.kernelExecTimeoutEnabled},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        CHECK_CU_OK(cudaDeviceGetAttribute(&v, pairs[i].a, 0));
        CHECK_MSG(v == pairs[i].want, "attribute %d: %d vs %d", (int)pairs[i].a, v, pairs[i].want);
    }
    /* every defined attribute answers */
    int answered = 0;
    for (int a = 1; a < cudaDevAttrMax; a++)
        if (cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)a, 0) == cudaSuccess)
            answered++;
    cudaGetLastError();
    CHECK(answered >= 100);
    v = 12345;
    CHECK_CU(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)0, 0), cudaErrorInvalidValue);
    CHECK_CU(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)9999, 0), cudaErrorInvalidValue);
    CHECK_EQ_INT(v, 12345);
    CHECK_CU(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 2), cudaErrorInvalidDevice);
    CHECK_CU(cudaDeviceGetAttribute(NULL, cudaDevAttrWarpSize, 0), cudaErrorInvalidValue);

    SECTION("peer, flags, config");
    int can = 5;
    CHECK_CU_OK(cudaDeviceCanAccessPeer(&can, 0, 0));
    CHECK_EQ_INT(can, 0);
    CHECK_CU(cudaDeviceCanAccessPeer(&can, 0, 1), cudaErrorInvalidDevice);
    unsigned int fl = 0;
    CHECK_CU_OK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    CHECK_CU_OK(cudaGetDeviceFlags(&fl));
    CHECK((fl & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync);
    CHECK_CU(cudaSetDeviceFlags(0x3), cudaErrorInvalidValue);
    CHECK_CU(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
    enum cudaFuncCache cc;
    CHECK_CU_OK(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1));
    CHECK_CU_OK(cudaDeviceGetCacheConfig(&cc));
    CHECK(cc == cudaFuncCachePreferL1);
    CHECK_CU(cudaDeviceSetCacheConfig((enum cudaFuncCache)9), cudaErrorInvalidValue);
    size_t lim = 0;
    CHECK_CU_OK(cudaDeviceGetLimit(&lim, cudaLimitStackSize));
    CHECK(lim > 0);
    CHECK_CU(cudaDeviceGetLimit(&lim, (enum cudaLimit)99), cudaErrorUnsupportedLimit);
    int lo = 9, hi = 9;
    CHECK_CU_OK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CHECK(lo == 0 && hi < 0);
    CHECK_CU_OK(cudaDeviceSynchronize());
    CHECK_CU_OK(cudaThreadSynchronize());
    char bus[32];
    CHECK_CU_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    CHECK(strcmp(bus, "0000:00:00.0") == 0);
    CHECK_CU(cudaDeviceGetPCIBusId(bus, 0, 0), cudaErrorInvalidValue);
    CHECK_CU(cudaDeviceGetPCIBusId(bus, sizeof bus, 1), cudaErrorInvalidDevice);
    CHECK_CU_OK(cudaProfilerStart());
    CHECK_CU_OK(cudaProfilerStop());
    cudaGetLastError();
}

static void test_versions(void)
{
    SECTION("versions");
    int v = 0;
    CHECK_CU_OK(cudaRuntimeGetVersion(&v));
    CHECK_EQ_INT(v, 11020);
    CHECK_CU_OK(cudaDriverGetVersion(&v));
    CHECK_EQ_INT(v, 11020);
    CHECK_EQ_INT(CUDART_VERSION, 11020);
    CHECK_CU(cudaRuntimeGetVersion(NULL), cudaErrorInvalidValue);
    CHECK_CU(cudaDriverGetVersion(NULL), cudaErrorInvalidValue);
    cudaGetLastError();
}

static void test_error_text(void)
{
    SECTION("error names");
    CHECK(strcmp(cudaGetErrorName(cudaSuccess), "cudaSuccess") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0);
    CHECK(strcmp(cudaGetErrorString((cudaError_t)12345), "unrecognized error code") == 0);
    CHECK(strcmp(cudaGetErrorName((cudaError_t)-3), "unrecognized error code") == 0);

    /* NVIDIA's runtime as oracle for every code this runtime names (skipped when absent;
     * names and messages of these codes are unchanged between CUDA 11.2 and 13). */
    const char *libs[] = {"libcudart.so.13", "/usr/local/cuda/lib64/libcudart.so.13", "libcudart.so.12",
                          "/usr/local/cuda/lib64/libcudart.so.12"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !lib; i++)
        lib = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        SKIP("error names vs NVIDIA libcudart: libcudart.so.12/13 not found");
        return;
    }
    SECTION("error names vs NVIDIA libcudart");
    const char *(*nv_name)(int) = (const char *(*)(int))dlsym(lib, "cudaGetErrorName");
    const char *(*nv_text)(int) = (const char *(*)(int))dlsym(lib, "cudaGetErrorString");
    CHECK(nv_name && nv_text);
    int compared = 0;
    for (int code = 0; nv_name && nv_text && code < 1100; code++) {
        const char *mine = cudaGetErrorName((cudaError_t)code);
        if (strcmp(mine, "unrecognized error code") == 0)
            continue;
        CHECK_MSG(strcmp(mine, nv_name(code)) == 0, "code %d: %s vs %s", code, mine, nv_name(code));
        CHECK_MSG(strcmp(cudaGetErrorString((cudaError_t)code), nv_text(code)) == 0, "code %d: '%s' vs '%s'", code,
                  cudaGetErrorString((cudaError_t)code), nv_text(code));
        compared++;
    }
    CHECK(compared >= 30);
    dlclose(lib);
}

static void test_last_error(void)
{
    SECTION("last error");
    cudaGetLastError();
    CHECK_CU(cudaPeekAtLastError(), cudaSuccess);
    CHECK_CU(cudaSetDevice(3), cudaErrorInvalidDevice);
    CHECK_CU_OK(cudaSetDevice(0));                     /* success does not clear it */
    CHECK_CU(cudaPeekAtLastError(), cudaErrorInvalidDevice);
    CHECK_CU(cudaPeekAtLastError(), cudaErrorInvalidDevice);
    CHECK_CU(cudaMalloc(NULL, 4), cudaErrorInvalidValue);   /* newest failure wins */
    CHECK_CU(cudaGetLastError(), cudaErrorInvalidValue);
    CHECK_CU(cudaGetLastError(), cudaSuccess);
    CHECK_CU(cudaPeekAtLastError(), cudaSuccess);
}

static void test_sticky(void)
{
    SECTION("sticky error");
    unsigned char *d = NULL;
    CHECK_CU_OK(cudaMalloc((void **)&d, 100));
    d[100] = 0;                                       /* a write past the end (inside the guard) */
    CHECK_CU(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    CHECK_CU(cudaGetLastError(), cudaErrorIllegalAddress);
    CHECK_CU(cudaGetLastError(), cudaErrorIllegalAddress);  /* cannot be cleared */
    void *p = NULL;
    CHECK_CU(cudaMalloc(&p, 16), cudaErrorIllegalAddress);
    CHECK(p == NULL);
    CHECK_CU(cudaMemset(d, 0, 10), cudaErrorIllegalAddress);
    CHECK_CU(cudaStreamSynchronize(0), cudaErrorIllegalAddress);
    /* Queries that do not touch the device still answer. */
    int n = 0;
    CHECK_CU_OK(cudaGetDeviceCount(&n));
    CHECK_CU_OK(cudaDeviceReset());                    /* frees everything, clears the error */
    CHECK_CU(cudaGetLastError(), cudaSuccess);
    CHECK_CU_OK(cudaMalloc(&p, 16));
    CHECK_CU_OK(cudaFree(p));
    CHECK_CU(cudaFree(d), cudaErrorInvalidValue);      /* released by the reset */
    cudaGetLastError();

    SECTION("damage found at free");
    CHECK_CU_OK(cudaMalloc((void **)&d, 10));
    d[12] = 1;
    CHECK_CU(cudaFree(d), cudaErrorIllegalAddress);
    CHECK_CU(cudaPeekAtLastError(), cudaErrorIllegalAddress);
    CHECK_CU_OK(cudaDeviceReset());
}

int main(void)
{
    test_layout();
    test_device();
    test_versions();
    test_error_text();
    test_last_error();
    test_sticky();
    return hd_test_finish();
}
