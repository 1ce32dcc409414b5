/*
 * cudart/memory.c -- device, pinned and managed memory, copies and fills.
 *
 * "Device" memory is host memory, so every copy is a memcpy.  What a GPU would catch is
 * still caught: each allocation is recorded in a registry (sorted by address) and the
 * pointers and byte ranges of every call are checked against it, so a bad pointer, a double
 * free, a copy running off the end of an allocation or a wrong copy direction returns the
 * error CUDA would return instead of corrupting memory.  Each allocation carries guard bytes
 * past its end; damage found there (a write past the end by host code or a library) becomes
 * the sticky cudaErrorIllegalAddress, like a faulting kernel on a GPU.
 */
#define _DEFAULT_SOURCE /* posix_memalign, and madvise's MADV_HUGEPAGE (core/hugepage.h) */
#include "cudart/rt.h"

#include "core/hugepage.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT_ALIGN 256            /* cudaMalloc's alignment guarantee */
#define RT_GUARD 64             /* guard bytes after each allocation we own */
#define RT_GUARD_BYTE 0xA5

/* Blocks come from posix_memalign; on Windows that is _aligned_malloc (core/win32/posix.h). */
#ifdef _WIN32
#define rt_block_free _aligned_free
#else
#define rt_block_free free
#endif

typedef struct {
    rt_region r;
    void *block;                /* what posix_memalign returned; NULL for registered memory */
} rt_entry;

static pthread_mutex_t rt_mem_lock = PTHREAD_MUTEX_INITIALIZER;
static rt_entry *rt_entries;    /* sorted by r.base, non-overlapping */
static size_t rt_count, rt_cap;

/* Index of the first entry whose base is > p. */
static size_t rt_upper(uintptr_t p)
{
    size_t lo = 0, hi = rt_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rt_entries[mid].r.base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Entry index holding address p, or -1.  Caller holds the lock. */
static long rt_find_locked(uintptr_t p)
{
    size_t i = rt_upper(p);
    if (i == 0)
        return -1;
    const rt_entry *e = &rt_entries[i - 1];
    if (p < e->r.base + (e->r.size ? e->r.size : 1))
        return (long)(i - 1);
    return -1;
}

int rt_find(const void *p, rt_region *out)
{
    pthread_mutex_lock(&rt_mem_lock);
    long i = rt_find_locked((uintptr_t)p);
    if (i >= 0 && out)
        *out = rt_entries[i].r;
    pthread_mutex_unlock(&rt_mem_lock);
    return i >= 0;
}

/* Insert; returns 0 when out of memory or when [base, base+size) overlaps an entry. */
static int rt_insert(const rt_entry *e)
{
    size_t i = rt_upper(e->r.base);
    if (i > 0) {
        const rt_entry *p = &rt_entries[i - 1];
        if (p->r.base + p->r.size > e->r.base)
            return 0;
    }
    if (i < rt_count && e->r.base + e->r.size > rt_entries[i].r.base)
        return 0;
    if (rt_count == rt_cap) {
        size_t ncap = rt_cap ? rt_cap * 2 : 64;
        rt_entry *n = realloc(rt_entries, ncap * sizeof *n);
        if (!n)
            return 0;
        rt_entries = n;
        rt_cap = ncap;
    }
    memmove(&rt_entries[i + 1], &rt_entries[i], (rt_count - i) * sizeof *rt_entries);
    rt_entries[i] = *e;
    rt_count++;
    return 1;
}

static void rt_remove_at(size_t i)
{
    memmove(&rt_entries[i], &rt_entries[i + 1], (rt_count - i - 1) * sizeof *rt_entries);
    rt_count--;
}

static int rt_guard_intact(const rt_entry *e)
{
    if (!e->block)
        return 1;
    const unsigned char *g = (const unsigned char *)e->r.base + e->r.size;
    for (int i = 0; i < RT_GUARD; i++)
        if (g[i] != RT_GUARD_BYTE)
            return 0;
    return 1;
}

cudaError_t rt_check_guards(void)
{
    int damaged = 0;
    pthread_mutex_lock(&rt_mem_lock);
    for (size_t i = 0; i < rt_count && !damaged; i++)
        damaged = !rt_guard_intact(&rt_entries[i]);
    pthread_mutex_unlock(&rt_mem_lock);
    if (damaged)
        rt_set_sticky(cudaErrorIllegalAddress);
    return rt_sticky();
}

void rt_memory_reset(void)
{
    pthread_mutex_lock(&rt_mem_lock);
    for (size_t i = 0; i < rt_count; i++)
        rt_block_free(rt_entries[i].block);
    free(rt_entries);
    rt_entries = NULL;
    rt_count = rt_cap = 0;
    pthread_mutex_unlock(&rt_mem_lock);
}

/* Allocate SIZE bytes of KIND; *out = NULL for size 0, as CUDA does. */
static cudaError_t rt_alloc(void **out, size_t size, enum rt_kind kind, unsigned int flags, const char *fn)
{
    if (!out)
        return rt_fail(cudaErrorInvalidValue, fn, "the pointer to store the result in is NULL");
    if (size == 0) {
        *out = NULL;
        return cudaSuccess;
    }
    if (size > rt_total_memory() || size > SIZE_MAX - RT_GUARD - RT_ALIGN)
        return rt_fail(cudaErrorMemoryAllocation, fn, "%zu bytes exceed the %zu bytes of memory", size,
                       rt_total_memory());
    void *block = NULL;
    if (posix_memalign(&block, hd_huge_align(size, RT_ALIGN), size + RT_GUARD) != 0 || !block)
        return rt_fail(cudaErrorMemoryAllocation, fn, "the host allocation of %zu bytes failed", size);
    hd_huge_advise(block, size);
    memset((unsigned char *)block + size, RT_GUARD_BYTE, RT_GUARD);
    rt_entry e = {{(uintptr_t)block, size, kind, flags}, block};
    pthread_mutex_lock(&rt_mem_lock);
    int ok = rt_insert(&e);
    pthread_mutex_unlock(&rt_mem_lock);
    if (!ok) {
        rt_block_free(block);
        return rt_fail(cudaErrorMemoryAllocation, fn, "the allocation registry could not grow");
    }
    *out = block;
    return cudaSuccess;
}

/* Free the allocation starting exactly at P whose kind is accepted by MASK (bit per kind). */
static cudaError_t rt_release(void *p, unsigned mask, const char *fn)
{
    if (!p)
        return cudaSuccess;
    pthread_mutex_lock(&rt_mem_lock);
    long i = rt_find_locked((uintptr_t)p);
    if (i < 0 || rt_entries[i].r.base != (uintptr_t)p || !(mask & (1u << rt_entries[i].r.kind))) {
        int known = i >= 0;
        pthread_mutex_unlock(&rt_mem_lock);
        return rt_fail(cudaErrorInvalidValue, fn, "%p is %s", p,
                       known ? "not the start of an allocation this function frees"
                             : "not a live allocation (never allocated, or already freed)");
    }
    rt_entry e = rt_entries[i];
    int intact = rt_guard_intact(&e);
    rt_remove_at((size_t)i);
    pthread_mutex_unlock(&rt_mem_lock);
    rt_block_free(e.block);
    if (!intact) {
        rt_set_sticky(cudaErrorIllegalAddress);
        return rt_fail(cudaErrorIllegalAddress, fn, "memory past the end of %p was overwritten", p);
    }
    return cudaSuccess;
}

#define RT_DEVICE_SIDE ((1u << RT_DEVICE) | (1u << RT_PINNED) | (1u << RT_MANAGED) | (1u << RT_REGISTERED))

/*
 * Check that [p, p + n) may be touched.  DEVICE_SIDE: it must lie in memory the device can
 * address (device, managed, pinned or registered).  Otherwise any pointer is accepted, but a
 * range that starts inside a known allocation must end inside it too.
 */
static cudaError_t rt_check_range(const void *p, size_t n, int device_side, const char *what, const char *fn)
{
    if (!p)
        return rt_fail(cudaErrorInvalidValue, fn, "%s is NULL", what);
    if (n > (size_t)PTRDIFF_MAX || (uintptr_t)p > UINTPTR_MAX - n)
        return rt_fail(cudaErrorInvalidValue, fn, "%s %p + %zu bytes runs past the end of the address space", what,
                       p, n);
    rt_region r;
    if (!rt_find(p, &r)) {
        if (device_side)
            return rt_fail(cudaErrorInvalidValue, fn, "%s %p is not device memory", what, p);
        return cudaSuccess;
    }
    size_t avail = r.base + r.size - (uintptr_t)p;
    if (n > avail)
        return rt_fail(cudaErrorInvalidValue, fn, "%s %p + %zu bytes runs %zu bytes past the end of its allocation",
                       what, p, n, n - avail);
    return cudaSuccess;
}

static int rt_overlap(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + bn && y < x + an;
}

/* Which operands must be device memory for each direction. */
static cudaError_t rt_check_kind(int kind, int *dst_dev, int *src_dev, const char *fn)
{
    switch (kind) {
    case cudaMemcpyHostToHost: *dst_dev = 0; *src_dev = 0; return cudaSuccess;
    case cudaMemcpyHostToDevice: *dst_dev = 1; *src_dev = 0; return cudaSuccess;
    case cudaMemcpyDeviceToHost: *dst_dev = 0; *src_dev = 1; return cudaSuccess;
    case cudaMemcpyDeviceToDevice: *dst_dev = 1; *src_dev = 1; return cudaSuccess;
    case cudaMemcpyDefault: *dst_dev = 0; *src_dev = 0; return cudaSuccess;
    default:
        return rt_fail(cudaErrorInvalidMemcpyDirection, fn, "kind %d is not a cudaMemcpyKind", kind);
    }
}

static cudaError_t rt_memcpy(void *dst, const void *src, size_t count, int kind, const char *fn)
{
    int dd = 0, sd = 0;
    cudaError_t e = rt_check_kind(kind, &dd, &sd, fn);
    if (e != cudaSuccess)
        return e;
    if (count == 0)
        return cudaSuccess;
    if ((e = rt_check_range(dst, count, dd, "dst", fn)) != cudaSuccess ||
        (e = rt_check_range(src, count, sd, "src", fn)) != cudaSuccess)
        return e;
    if (dst == src)
        return cudaSuccess;
    if (rt_overlap(dst, count, src, count))
        return rt_fail(cudaErrorInvalidValue, fn, "the source and destination ranges overlap");
    memcpy(dst, src, count);
    return cudaSuccess;
}

/* Bytes spanned by HEIGHT rows of WIDTH bytes PITCH apart; 0 on overflow (never 0 otherwise). */
static size_t rt_span(size_t pitch, size_t width, size_t height)
{
    if (height - 1 > 0 && pitch > (SIZE_MAX - width) / (height - 1))
        return 0;
    return pitch * (height - 1) + width;
}

static cudaError_t rt_memcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                               size_t height, int kind, const char *fn)
{
    int dd = 0, sd = 0;
    cudaError_t e = rt_check_kind(kind, &dd, &sd, fn);
    if (e != cudaSuccess)
        return e;
    if (width > dpitch || width > spitch)
        return rt_fail(cudaErrorInvalidPitchValue, fn, "width %zu exceeds dpitch %zu or spitch %zu", width, dpitch,
                       spitch);
    if (width == 0 || height == 0)
        return cudaSuccess;
    size_t dn = rt_span(dpitch, width, height), sn = rt_span(spitch, width, height);
    if (!dn || !sn)
        return rt_fail(cudaErrorInvalidValue, fn, "pitch * height overflows");
    if ((e = rt_check_range(dst, dn, dd, "dst", fn)) != cudaSuccess ||
        (e = rt_check_range(src, sn, sd, "src", fn)) != cudaSuccess)
        return e;
    if (rt_overlap(dst, dn, src, sn))
        return rt_fail(cudaErrorInvalidValue, fn, "the source and destination ranges overlap");
    for (size_t r = 0; r < height; r++)
        memcpy((unsigned char *)dst + r * dpitch, (const unsigned char *)src + r * spitch, width);
    return cudaSuccess;
}

static cudaError_t rt_memset2d(void *p, size_t pitch, int value, size_t width, size_t height, const char *fn)
{
    if (width > pitch)
        return rt_fail(cudaErrorInvalidValue, fn, "width %zu exceeds pitch %zu", width, pitch);
    if (width == 0 || height == 0)
        return cudaSuccess;
    size_t n = rt_span(pitch, width, height);
    if (!n)
        return rt_fail(cudaErrorInvalidValue, fn, "pitch * height overflows");
    cudaError_t e = rt_check_range(p, n, 1, "devPtr", fn);
    if (e != cudaSuccess)
        return e;
    for (size_t r = 0; r < height; r++)
        memset((unsigned char *)p + r * pitch, value, width);
    return cudaSuccess;
}

/* ---------------------------------------------------------------- public functions */

RT_API cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    RT_STICKY();
    return rt_alloc(devPtr, size, RT_DEVICE, 0, __func__);
}

RT_API cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    RT_STICKY();
    if (!devPtr || !pitch)
        return RT_FAIL(cudaErrorInvalidValue, "devPtr or pitch is NULL");
    /* Rows start on 512-byte boundaries, the pitch cudaMallocPitch picks on current GPUs. */
    if (width > SIZE_MAX - 511)
        return RT_FAIL(cudaErrorMemoryAllocation, "width %zu is too large", width);
    size_t p = width == 0 ? 0 : (width + 511) / 512 * 512;
    if (height != 0 && p > SIZE_MAX / height)
        return RT_FAIL(cudaErrorMemoryAllocation, "pitch %zu * height %zu overflows", p, height);
    cudaError_t e = rt_alloc(devPtr, p * height, RT_DEVICE, 0, __func__);
    if (e == cudaSuccess)
        *pitch = p;
    return e;
}

RT_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    RT_STICKY();
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
        return RT_FAIL(cudaErrorInvalidValue, "flags 0x%x must be cudaMemAttachGlobal or cudaMemAttachHost", flags);
    if (size == 0)
        return RT_FAIL(cudaErrorInvalidValue, "size is 0");
    return rt_alloc(devPtr, size, RT_MANAGED, flags, __func__);
}

RT_API cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    RT_STICKY();
    if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return RT_FAIL(cudaErrorInvalidValue, "unknown flags 0x%x", flags);
    return rt_alloc(pHost, size, RT_PINNED, flags, __func__);
}

RT_API cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    RT_STICKY();
    return rt_alloc(ptr, size, RT_PINNED, 0, __func__);
}

RT_API cudaError_t cudaFree(void *devPtr)
{
    RT_STICKY();
    return rt_release(devPtr, (1u << RT_DEVICE) | (1u << RT_MANAGED), __func__);
}

RT_API cudaError_t cudaFreeHost(void *ptr)
{
    RT_STICKY();
    return rt_release(ptr, 1u << RT_PINNED, __func__);
}

RT_API cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    RT_STICKY();
    if (!ptr || size == 0)
        return RT_FAIL(cudaErrorInvalidValue, "ptr is NULL or size is 0");
    if (flags & ~0x0fu)
        return RT_FAIL(cudaErrorInvalidValue, "unknown flags 0x%x", flags);
    if ((uintptr_t)ptr > UINTPTR_MAX - size)
        return RT_FAIL(cudaErrorInvalidValue, "the range wraps around the address space");
    rt_entry e = {{(uintptr_t)ptr, size, RT_REGISTERED, flags}, NULL};
    pthread_mutex_lock(&rt_mem_lock);
    int ok = rt_insert(&e);
    pthread_mutex_unlock(&rt_mem_lock);
    if (!ok)
        return RT_FAIL(cudaErrorHostMemoryAlreadyRegistered, "%p + %zu overlaps known memory", ptr, size);
    return cudaSuccess;
}

RT_API cudaError_t cudaHostUnregister(void *ptr)
{
    RT_STICKY();
    pthread_mutex_lock(&rt_mem_lock);
    long i = ptr ? rt_find_locked((uintptr_t)ptr) : -1;
    int ok = i >= 0 && rt_entries[i].r.kind == RT_REGISTERED && rt_entries[i].r.base == (uintptr_t)ptr;
    if (ok)
        rt_remove_at((size_t)i);
    pthread_mutex_unlock(&rt_mem_lock);
    if (!ok)
        return RT_FAIL(cudaErrorHostMemoryNotRegistered, "%p was not registered with cudaHostRegister", ptr);
    return cudaSuccess;
}

RT_API cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    RT_STICKY();
    rt_region r;
    if (!pDevice || flags != 0)
        return RT_FAIL(cudaErrorInvalidValue, "pDevice is NULL or flags is not 0");
    if (!pHost || !rt_find(pHost, &r) || (r.kind != RT_PINNED && r.kind != RT_REGISTERED))
        return RT_FAIL(cudaErrorInvalidValue, "%p is not pinned or registered host memory", pHost);
    *pDevice = pHost;             /* one address space */
    return cudaSuccess;
}

RT_API cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    RT_STICKY();
    rt_region r;
    if (!pFlags || !pHost || !rt_find(pHost, &r) || r.kind != RT_PINNED)
        return RT_FAIL(cudaErrorInvalidValue, "pFlags is NULL or %p is not from cudaHostAlloc", pHost);
    *pFlags = r.flags;
    return cudaSuccess;
}

RT_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    RT_STICKY();
    if (!attributes)
        return RT_FAIL(cudaErrorInvalidValue, "attributes is NULL");
    rt_region r;
    struct cudaPointerAttributes a;
    a.device = 0;
    a.devicePointer = (void *)(uintptr_t)ptr;
    a.hostPointer = (void *)(uintptr_t)ptr;
    if (!ptr || !rt_find(ptr, &r)) {
        a.type = cudaMemoryTypeUnregistered;
        a.device = -2;
        a.devicePointer = NULL;
    } else if (r.kind == RT_DEVICE) {
        a.type = cudaMemoryTypeDevice;
        a.hostPointer = NULL;
    } else if (r.kind == RT_MANAGED) {
        a.type = cudaMemoryTypeManaged;
    } else {
        a.type = cudaMemoryTypeHost;
    }
    *attributes = a;
    return cudaSuccess;
}

RT_API cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    RT_STICKY();
    if (!free_bytes || !total)
        return RT_FAIL(cudaErrorInvalidValue, "free or total is NULL");
    size_t avail = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                avail = (size_t)kb * 1024;
                break;
            }
        fclose(f);
    }
    size_t tot = rt_total_memory();
    if (avail == 0 || avail > tot)
        avail = tot;
    *free_bytes = avail;
    *total = tot;
    return cudaSuccess;
}

RT_API cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream)
{
    RT_STICKY();
    rt_region r;
    cudaError_t e = rt_check_stream(stream);
    if (e != cudaSuccess)
        return rt_ret(e);
    if (dstDevice != 0 && dstDevice != -1)
        return RT_FAIL(cudaErrorInvalidDevice, "dstDevice %d is neither device 0 nor cudaCpuDeviceId", dstDevice);
    if (!devPtr || !rt_find(devPtr, &r) || r.kind != RT_MANAGED)
        return RT_FAIL(cudaErrorInvalidValue, "%p is not managed memory", devPtr);
    return rt_check_range(devPtr, count, 1, "devPtr", __func__);
}

RT_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    RT_STICKY();
    cudaError_t e = rt_memcpy(dst, src, count, (int)kind, __func__);
    if (e == cudaSuccess)
        e = rt_check_guards();        /* a synchronizing call: report earlier damage */
    return rt_ret(e);
}

RT_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                   cudaStream_t stream)
{
    RT_STICKY();
    cudaError_t e = rt_check_stream(stream);
    if (e != cudaSuccess)
        return RT_FAIL(e, "stream %p is not a live stream", (void *)stream);
    return rt_memcpy(dst, src, count, (int)kind, __func__);
}

RT_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                size_t height, enum cudaMemcpyKind kind)
{
    RT_STICKY();
    return rt_memcpy2d(dst, dpitch, src, spitch, width, height, (int)kind, __func__);
}

RT_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                     size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_STICKY();
    cudaError_t e = rt_check_stream(stream);
    if (e != cudaSuccess)
        return RT_FAIL(e, "stream %p is not a live stream", (void *)stream);
    return rt_memcpy2d(dst, dpitch, src, spitch, width, height, (int)kind, __func__);
}

RT_API cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    RT_STICKY();
    return rt_memset2d(devPtr, count, value, count, 1, __func__);
}

RT_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    RT_STICKY();
    cudaError_t e = rt_check_stream(stream);
    if (e != cudaSuccess)
        return RT_FAIL(e, "stream %p is not a live stream", (void *)stream);
    return rt_memset2d(devPtr, count, value, count, 1, __func__);
}

RT_API cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    RT_STICKY();
    return rt_memset2d(devPtr, pitch, value, width, height, __func__);
}

RT_API cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                     cudaStream_t stream)
{
    RT_STICKY();
    cudaError_t e = rt_check_stream(stream);
    if (e != cudaSuccess)
        return RT_FAIL(e, "stream %p is not a live stream", (void *)stream);
    return rt_memset2d(devPtr, pitch, value, width, height, __func__);
}

/* Stream-ordered allocation: the stream has no pending work, so these are cudaMalloc/cudaFree. */
RT_API cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    RT_STICKY();
    if (rt_check_stream(hStream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "stream %p is not a live stream", (void *)hStream);
    return rt_alloc(devPtr, size, RT_DEVICE, 0, __func__);
}

RT_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    RT_STICKY();
    if (rt_check_stream(hStream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "stream %p is not a live stream", (void *)hStream);
    return rt_release(devPtr, 1u << RT_DEVICE, __func__);
}

/* Peer copies: there is one device, so both sides must name device 0. */
RT_API cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    RT_STICKY();
    if (dstDevice != 0 || srcDevice != 0)
        return RT_FAIL(cudaErrorInvalidDevice, "devices %d and %d: only device 0 exists", dstDevice, srcDevice);
    return rt_memcpy(dst, src, count, cudaMemcpyDeviceToDevice, __func__);
}

RT_API cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                       cudaStream_t stream)
{
    RT_STICKY();
    if (rt_check_stream(stream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "stream %p is not a live stream", (void *)stream);
    if (dstDevice != 0 || srcDevice != 0)
        return RT_FAIL(cudaErrorInvalidDevice, "devices %d and %d: only device 0 exists", dstDevice, srcDevice);
    return rt_memcpy(dst, src, count, cudaMemcpyDeviceToDevice, __func__);
}
