/*
 * cudart/device.c -- the one device: the host CPU, described as a CUDA device.
 *
 * Fields with a CPU meaning describe the CPU truthfully (name = CPU brand, memory = RAM,
 * multiprocessors = online cores, clock = maximum core clock, L2 = the L2 cache, integrated
 * and unified addressing because device and host share one memory).  The compute capability
 * is 8.0 so programs take the paths they take on current GPUs (cuDNN 8.1 programs check
 * for >= 5.3 for FP16 and >= 7.0 for tensor-op math); limits without a CPU meaning
 * (threads per block, grid size, textures) are those of a compute-capability-8.0 device.
 * docs/cuda-runtime.md lists every field.
 */
#define _POSIX_C_SOURCE 200809L
#include "cudart/rt.h"
#include "cuda_profiler_api.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RT_CC_MAJOR 8
#define RT_CC_MINOR 0

static pthread_once_t rt_props_once = PTHREAD_ONCE_INIT;
static struct cudaDeviceProp rt_props;
static size_t rt_mem_total;

/* Process-wide settings any thread may set or read at any time (as with CUDA): atomics, so a
 * reader sees one whole value and concurrent setters are no data race. */
static _Atomic unsigned int rt_device_flags;
static _Atomic int rt_cache_config = cudaFuncCachePreferNone;
static _Atomic int rt_shmem_config = cudaSharedMemBankSizeFourByte;

size_t rt_total_memory(void)
{
    if (rt_mem_total == 0) {
        long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        size_t t = pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize : (size_t)1 << 30;
        __atomic_store_n(&rt_mem_total, t, __ATOMIC_RELAXED);
    }
    return rt_mem_total;
}

/* First line of /proc/cpuinfo starting with KEY, value part copied to OUT. */
static int rt_cpuinfo(const char *key, char *out, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[512];
    int found = 0;
    size_t kl = strlen(key);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) != 0)
            continue;
        char *c = strchr(line, ':');
        if (!c)
            continue;
        c++;
        while (*c == ' ' || *c == '\t')
            c++;
        size_t l = strcspn(c, "\n");
        if (l >= n)
            l = n - 1;
        memcpy(out, c, l);
        out[l] = 0;
        found = 1;
    }
    fclose(f);
    return found;
}

static long rt_read_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* The L2 cache size in bytes from sysfs ("1024K"), or sysconf. */
static int rt_l2_bytes(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index2/size", "r");
    long v = -1;
    char unit = 0;
    if (f) {
        if (fscanf(f, "%ld%c", &v, &unit) < 1)
            v = -1;
        fclose(f);
        if (unit == 'K')
            v *= 1024;
        else if (unit == 'M')
            v *= 1024 * 1024;
    }
#ifdef _SC_LEVEL2_CACHE_SIZE
    if (v <= 0)
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return v > 0 && v < (1L << 30) ? (int)v : 0;
}

/* Maximum core clock in kHz. */
static int rt_clock_khz(void)
{
    long khz = rt_read_long("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    if (khz > 0)
        return (int)khz;
    char mhz[64];
    if (rt_cpuinfo("cpu MHz", mhz, sizeof mhz))
        return (int)(atof(mhz) * 1000.0);
    return 0;
}

/* A stable identity: the machine id when readable. */
static void rt_uuid(char out[16])
{
    memset(out, 0, 16);
    FILE *f = fopen("/etc/machine-id", "r");
    if (!f)
        return;
    char hex[33] = {0};
    if (fscanf(f, "%32s", hex) == 1 && strlen(hex) == 32)
        for (int i = 0; i < 16; i++) {
            unsigned int b;
            if (sscanf(hex + 2 * i, "%2x", &b) == 1)
                out[i] = (char)b;
        }
    fclose(f);
}

static void rt_fill_props(void)
{
    struct cudaDeviceProp *p = &rt_props;
    memset(p, 0, sizeof *p);
    if (!rt_cpuinfo("model name", p->name, sizeof p->name) || !p->name[0])
        snprintf(p->name, sizeof p->name, "hostdnn host CPU");
    rt_uuid(p->uuid.bytes);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    p->totalGlobalMem = rt_total_memory();
    p->sharedMemPerBlock = 48 * 1024;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->clockRate = rt_clock_khz();
    p->totalConstMem = 65536;
    p->major = RT_CC_MAJOR;
    p->minor = RT_CC_MINOR;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->deviceOverlap = 1;
    p->multiProcessorCount = cores > 0 ? (int)cores : 1;
    p->kernelExecTimeoutEnabled = 0;
    p->integrated = 1;
    p->canMapHostMemory = 1;
    p->computeMode = cudaComputeModeDefault;
    p->maxTexture1D = 131072;
    p->maxTexture1DMipmap = 32768;
    p->maxTexture1DLinear = 268435456;
    p->maxTexture2D[0] = 131072;
    p->maxTexture2D[1] = 65536;
    p->maxTexture2DMipmap[0] = 32768;
    p->maxTexture2DMipmap[1] = 32768;
    p->maxTexture2DLinear[0] = 131072;
    p->maxTexture2DLinear[1] = 65000;
    p->maxTexture2DLinear[2] = 2097120;
    p->maxTexture2DGather[0] = 32768;
    p->maxTexture2DGather[1] = 32768;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->maxTexture3DAlt[0] = 8192;
    p->maxTexture3DAlt[1] = 8192;
    p->maxTexture3DAlt[2] = 32768;
    p->maxTextureCubemap = 32768;
    p->maxTexture1DLayered[0] = 32768;
    p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = 32768;
    p->maxTexture2DLayered[1] = 32768;
    p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 32768;
    p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 32768;
    p->maxSurface2D[0] = 131072;
    p->maxSurface2D[1] = 65536;
    p->maxSurface3D[0] = p->maxSurface3D[1] = p->maxSurface3D[2] = 16384;
    p->maxSurface1DLayered[0] = 32768;
    p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = 32768;
    p->maxSurface2DLayered[1] = 32768;
    p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 32768;
    p->maxSurfaceCubemapLayered[0] = 32768;
    p->maxSurfaceCubemapLayered[1] = 2046;
    p->surfaceAlignment = 512;
    p->concurrentKernels = 1;
    p->ECCEnabled = 0;
    p->pciBusID = 0;
    p->pciDeviceID = 0;
    p->pciDomainID = 0;
    p->tccDriver = 0;
    p->asyncEngineCount = 0;          /* copies run on the calling thread */
    p->unifiedAddressing = 1;
    p->memoryClockRate = 0;           /* not visible to an unprivileged process */
    p->memoryBusWidth = 64;           /* one DDR channel */
    p->l2CacheSize = rt_l2_bytes();
    p->persistingL2CacheMaxSize = 0;
    p->maxThreadsPerMultiProcessor = 2048;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = 167936;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->isMultiGpuBoard = 0;
    p->multiGpuBoardGroupID = 0;
    p->hostNativeAtomicSupported = 1;
    p->singleToDoublePrecisionPerfRatio = 2;  /* SIMD lanes hold half as many doubles */
    p->pageableMemoryAccess = 1;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 0;         /* no kernels are launched */
    p->cooperativeMultiDeviceLaunch = 0;
    p->sharedMemPerBlockOptin = 166912;
    p->pageableMemoryAccessUsesHostPageTables = 1;
    p->directManagedMemAccessFromHost = 1;
    p->maxBlocksPerMultiProcessor = 32;
    p->accessPolicyMaxWindowSize = 0;
    p->reservedSharedMemPerBlock = 1024;
}

static const struct cudaDeviceProp *rt_device_props(void)
{
    pthread_once(&rt_props_once, rt_fill_props);
    return &rt_props;
}

#define RT_CHECK_DEVICE(d) do { if ((d) != 0) \
    return RT_FAIL(cudaErrorInvalidDevice, "device %d does not exist (there is one, device 0)", (d)); } while (0)

RT_API cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return RT_FAIL(cudaErrorInvalidValue, "count is NULL");
    *count = 1;
    return cudaSuccess;
}

RT_API cudaError_t cudaSetDevice(int device)
{
    RT_CHECK_DEVICE(device);
    RT_STICKY();
    return cudaSuccess;
}

RT_API cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return RT_FAIL(cudaErrorInvalidValue, "device is NULL");
    *device = 0;
    return cudaSuccess;
}

RT_API cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    unsigned int sched = flags & cudaDeviceScheduleMask;
    if ((flags & ~(unsigned)cudaDeviceMask) || (sched != 0 && sched != cudaDeviceScheduleSpin &&
                                                 sched != cudaDeviceScheduleYield &&
                                                 sched != cudaDeviceScheduleBlockingSync))
        return RT_FAIL(cudaErrorInvalidValue, "flags 0x%x are not a valid combination", flags);
    rt_device_flags = flags;
    return cudaSuccess;
}

RT_API cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        return RT_FAIL(cudaErrorInvalidValue, "flags is NULL");
    /* CUDA reports the mapped-memory flag as always set on unified-addressing devices. */
    *flags = rt_device_flags | cudaDeviceMapHost;
    return cudaSuccess;
}

RT_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (!prop)
        return RT_FAIL(cudaErrorInvalidValue, "prop is NULL");
    RT_CHECK_DEVICE(device);
    *prop = *rt_device_props();
    return cudaSuccess;
}

RT_API cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    if (!device || !prop)
        return RT_FAIL(cudaErrorInvalidValue, "device or prop is NULL");
    *device = 0;
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value)
        return RT_FAIL(cudaErrorInvalidValue, "value is NULL");
    RT_CHECK_DEVICE(device);
    const struct cudaDeviceProp *p = rt_device_props();
    int v;
    switch ((int)attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = p->maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: v = p->maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: v = p->maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: v = p->maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: v = p->maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: v = p->maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: v = p->maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = (int)p->sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: v = (int)p->totalConstMem; break;
    case cudaDevAttrWarpSize: v = p->warpSize; break;
    case cudaDevAttrMaxPitch: v = (int)p->memPitch; break;
    case cudaDevAttrMaxRegistersPerBlock: v = p->regsPerBlock; break;
    case cudaDevAttrClockRate: v = p->clockRate; break;
    case cudaDevAttrTextureAlignment: v = (int)p->textureAlignment; break;
    case cudaDevAttrGpuOverlap: v = p->deviceOverlap; break;
    case cudaDevAttrMultiProcessorCount: v = p->multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: v = p->kernelExecTimeoutEnabled; break;
    case cudaDevAttrIntegrated: v = p->integrated; break;
    case cudaDevAttrCanMapHostMemory: v = p->canMapHostMemory; break;
    case cudaDevAttrComputeMode: v = p->computeMode; break;
    case cudaDevAttrMaxTexture1DWidth: v = p->maxTexture1D; break;
    case cudaDevAttrMaxTexture2DWidth: v = p->maxTexture2D[0]; break;
    case cudaDevAttrMaxTexture2DHeight: v = p->maxTexture2D[1]; break;
    case cudaDevAttrMaxTexture3DWidth: v = p->maxTexture3D[0]; break;
    case cudaDevAttrMaxTexture3DHeight: v = p->maxTexture3D[1]; break;
    case cudaDevAttrMaxTexture3DDepth: v = p->maxTexture3D[2]; break;
    case cudaDevAttrMaxTexture2DLayeredWidth: v = p->maxTexture2DLayered[0]; break;
    case cudaDevAttrMaxTexture2DLayeredHeight: v = p->maxTexture2DLayered[1]; break;
    case cudaDevAttrMaxTexture2DLayeredLayers: v = p->maxTexture2DLayered[2]; break;
    case cudaDevAttrSurfaceAlignment: v = (int)p->surfaceAlignment; break;
    case cudaDevAttrConcurrentKernels: v = p->concurrentKernels; break;
    case cudaDevAttrEccEnabled: v = p->ECCEnabled; break;
    case cudaDevAttrPciBusId: v = p->pciBusID; break;
    case cudaDevAttrPciDeviceId: v = p->pciDeviceID; break;
    case cudaDevAttrTccDriver: v = p->tccDriver; break;
    case cudaDevAttrMemoryClockRate: v = p->memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: v = p->memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: v = p->l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = p->maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: v = p->asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: v = p->unifiedAddressing; break;
    case cudaDevAttrMaxTexture1DLayeredWidth: v = p->maxTexture1DLayered[0]; break;
    case cudaDevAttrMaxTexture1DLayeredLayers: v = p->maxTexture1DLayered[1]; break;
    case cudaDevAttrMaxTexture2DGatherWidth: v = p->maxTexture2DGather[0]; break;
    case cudaDevAttrMaxTexture2DGatherHeight: v = p->maxTexture2DGather[1]; break;
    case cudaDevAttrMaxTexture3DWidthAlt: v = p->maxTexture3DAlt[0]; break;
    case cudaDevAttrMaxTexture3DHeightAlt: v = p->maxTexture3DAlt[1]; break;
    case cudaDevAttrMaxTexture3DDepthAlt: v = p->maxTexture3DAlt[2]; break;
    case cudaDevAttrPciDomainId: v = p->pciDomainID; break;
    case cudaDevAttrTexturePitchAlignment: v = (int)p->texturePitchAlignment; break;
    case cudaDevAttrMaxTextureCubemapWidth: v = p->maxTextureCubemap; break;
    case cudaDevAttrMaxTextureCubemapLayeredWidth: v = p->maxTextureCubemapLayered[0]; break;
    case cudaDevAttrMaxTextureCubemapLayeredLayers: v = p->maxTextureCubemapLayered[1]; break;
    case cudaDevAttrMaxSurface1DWidth: v = p->maxSurface1D; break;
    case cudaDevAttrMaxSurface2DWidth: v = p->maxSurface2D[0]; break;
    case cudaDevAttrMaxSurface2DHeight: v = p->maxSurface2D[1]; break;
    case cudaDevAttrMaxSurface3DWidth: v = p->maxSurface3D[0]; break;
    case cudaDevAttrMaxSurface3DHeight: v = p->maxSurface3D[1]; break;
    case cudaDevAttrMaxSurface3DDepth: v = p->maxSurface3D[2]; break;
    case cudaDevAttrMaxSurface1DLayeredWidth: v = p->maxSurface1DLayered[0]; break;
    case cudaDevAttrMaxSurface1DLayeredLayers: v = p->maxSurface1DLayered[1]; break;
    case cudaDevAttrMaxSurface2DLayeredWidth: v = p->maxSurface2DLayered[0]; break;
    case cudaDevAttrMaxSurface2DLayeredHeight: v = p->maxSurface2DLayered[1]; break;
    case cudaDevAttrMaxSurface2DLayeredLayers: v = p->maxSurface2DLayered[2]; break;
    case cudaDevAttrMaxSurfaceCubemapWidth: v = p->maxSurfaceCubemap; break;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth: v = p->maxSurfaceCubemapLayered[0]; break;
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers: v = p->maxSurfaceCubemapLayered[1]; break;
    case cudaDevAttrMaxTexture1DLinearWidth: v = p->maxTexture1DLinear; break;
    case cudaDevAttrMaxTexture2DLinearWidth: v = p->maxTexture2DLinear[0]; break;
    case cudaDevAttrMaxTexture2DLinearHeight: v = p->maxTexture2DLinear[1]; break;
    case cudaDevAttrMaxTexture2DLinearPitch: v = p->maxTexture2DLinear[2]; break;
    case cudaDevAttrMaxTexture2DMipmappedWidth: v = p->maxTexture2DMipmap[0]; break;
    case cudaDevAttrMaxTexture2DMipmappedHeight: v = p->maxTexture2DMipmap[1]; break;
    case cudaDevAttrComputeCapabilityMajor: v = p->major; break;
    case cudaDevAttrComputeCapabilityMinor: v = p->minor; break;
    case cudaDevAttrMaxTexture1DMipmappedWidth: v = p->maxTexture1DMipmap; break;
    case cudaDevAttrStreamPrioritiesSupported: v = p->streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: v = p->globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: v = p->localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = (int)p->sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: v = p->regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: v = p->managedMemory; break;
    case cudaDevAttrIsMultiGpuBoard: v = p->isMultiGpuBoard; break;
    case cudaDevAttrMultiGpuBoardGroupID: v = p->multiGpuBoardGroupID; break;
    case cudaDevAttrHostNativeAtomicSupported: v = p->hostNativeAtomicSupported; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = p->singleToDoublePrecisionPerfRatio; break;
    case cudaDevAttrPageableMemoryAccess: v = p->pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: v = p->concurrentManagedAccess; break;
    case cudaDevAttrComputePreemptionSupported: v = p->computePreemptionSupported; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: v = p->canUseHostPointerForRegisteredMem; break;
    case cudaDevAttrReserved92: case cudaDevAttrReserved93: case cudaDevAttrReserved94: v = 0; break;
    case cudaDevAttrCooperativeLaunch: v = p->cooperativeLaunch; break;
    case cudaDevAttrCooperativeMultiDeviceLaunch: v = p->cooperativeMultiDeviceLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = (int)p->sharedMemPerBlockOptin; break;
    case cudaDevAttrCanFlushRemoteWrites: v = 0; break;
    case cudaDevAttrHostRegisterSupported: v = 1; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: v = p->pageableMemoryAccessUsesHostPageTables; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: v = p->directManagedMemAccessFromHost; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = p->maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxPersistingL2CacheSize: v = p->persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: v = p->accessPolicyMaxWindowSize; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = (int)p->reservedSharedMemPerBlock; break;
    case cudaDevAttrSparseCudaArraySupported: v = 0; break;
    case cudaDevAttrHostRegisterReadOnlySupported: v = 1; break;
    case cudaDevAttrMaxTimelineSemaphoreInteropSupported: v = 0; break;
    case cudaDevAttrMemoryPoolsSupported: v = 0; break;   /* no cudaMallocAsync */
    default:
        return RT_FAIL(cudaErrorInvalidValue, "attribute %d is not a cudaDeviceAttr", (int)attr);
    }
    *value = v;
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    if (!canAccessPeer)
        return RT_FAIL(cudaErrorInvalidValue, "canAccessPeer is NULL");
    RT_CHECK_DEVICE(device);
    RT_CHECK_DEVICE(peerDevice);
    *canAccessPeer = 0;           /* a device is not its own peer, as in CUDA */
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual)
        return RT_FAIL(cudaErrorInvalidValue, "cacheConfig %d is not a cudaFuncCache", (int)cacheConfig);
    rt_cache_config = cacheConfig;
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    if (!pCacheConfig)
        return RT_FAIL(cudaErrorInvalidValue, "pCacheConfig is NULL");
    *pCacheConfig = (enum cudaFuncCache)rt_cache_config;
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    if ((unsigned)config > cudaSharedMemBankSizeEightByte)
        return RT_FAIL(cudaErrorInvalidValue, "config %d is not a cudaSharedMemConfig", (int)config);
    rt_shmem_config = config;
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    if (!pConfig)
        return RT_FAIL(cudaErrorInvalidValue, "pConfig is NULL");
    *pConfig = (enum cudaSharedMemConfig)rt_shmem_config;
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    if (!pValue)
        return RT_FAIL(cudaErrorInvalidValue, "pValue is NULL");
    switch ((int)limit) {
    case cudaLimitStackSize: *pValue = 1024; break;
    case cudaLimitPrintfFifoSize: *pValue = 1048576; break;
    case cudaLimitMallocHeapSize: *pValue = 8388608; break;
    case cudaLimitDevRuntimeSyncDepth: *pValue = 2; break;
    case cudaLimitDevRuntimePendingLaunchCount: *pValue = 2048; break;
    case cudaLimitMaxL2FetchGranularity: *pValue = 64; break;
    case cudaLimitPersistingL2CacheSize: *pValue = 0; break;
    default:
        return RT_FAIL(cudaErrorUnsupportedLimit, "limit %d is not a cudaLimit", (int)limit);
    }
    return cudaSuccess;
}

RT_API cudaError_t cudaDeviceSynchronize(void)
{
    RT_STICKY();
    return rt_ret(rt_check_guards());
}

RT_API cudaError_t cudaThreadSynchronize(void)
{
    return cudaDeviceSynchronize();
}

/* Free everything the process allocated, destroy streams and events, clear every error. */
RT_API cudaError_t cudaDeviceReset(void)
{
    rt_memory_reset();
    rt_streams_reset();
    rt_device_flags = 0;
    rt_cache_config = cudaFuncCachePreferNone;
    rt_shmem_config = cudaSharedMemBankSizeFourByte;
    rt_reset_errors();
    return cudaSuccess;
}

/* The host CPU has no PCI address of its own; report the all-zero one, as pciBusID etc. do. */
RT_API cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    if (!pciBusId || len <= 0)
        return RT_FAIL(cudaErrorInvalidValue, "pciBusId is NULL or len %d is not positive", len);
    RT_CHECK_DEVICE(device);
    snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.0", 0u, 0u, 0u);
    return cudaSuccess;
}

/* No profiler can attach to host code: starting and stopping a range succeeds and does
 * nothing, as CUDA does when no profiler is attached. */
RT_API cudaError_t cudaProfilerStart(void)
{
    return cudaSuccess;
}

RT_API cudaError_t cudaProfilerStop(void)
{
    return cudaSuccess;
}
