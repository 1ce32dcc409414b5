/*
 * test_cudart_memory.c -- host CUDA runtime: allocation, copies, fills, the registry's
 * bad-input answers, pinned/managed/registered memory, pointer attributes.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

#define CHECK_CU(expr, want) do { cudaError_t got_ = (expr); \
    if (got_ == (want)) hd_t_passed++; else { hd_t_failed++; \
    fprintf(stderr, "FAIL %s:%d [%s] %s -> %s, want %s\n", __FILE__, __LINE__, hd_t_section, #expr, \
            cudaGetErrorName(got_), cudaGetErrorName(want)); } } while (0)
#define CHECK_CU_OK(expr) CHECK_CU(expr, cudaSuccess)

static int all_bytes(const void *p, size_t n, unsigned char v)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != v)
            return 0;
    return 1;
}

static void test_malloc_free(void)
{
    SECTION("malloc/free");
    void *d = NULL;
    CHECK_CU_OK(cudaMalloc(&d, 1000));
    CHECK(d != NULL);
    CHECK(((uintptr_t)d & 255) == 0);               /* 256-byte alignment */
    CHECK_CU_OK(cudaFree(d));
    CHECK_CU(cudaFree(d), cudaErrorInvalidValue);   /* double free */
    CHECK_CU(cudaGetLastError(), cudaErrorInvalidValue);
    CHECK_CU(cudaGetLastError(), cudaSuccess);

    void *z = (void *)0x1;
    CHECK_CU_OK(cudaMalloc(&z, 0));
    CHECK(z == NULL);
    CHECK_CU_OK(cudaFree(NULL));
    CHECK_CU(cudaMalloc(NULL, 16), cudaErrorInvalidValue);

    void *keep = (void *)0x1234;
    CHECK_CU(cudaMalloc(&keep, SIZE_MAX), cudaErrorMemoryAllocation);
    CHECK(keep == (void *)0x1234);                   /* output untouched on failure */
    CHECK_CU(cudaMalloc(&keep, SIZE_MAX - 8), cudaErrorMemoryAllocation);
    cudaGetLastError();

    int stack_var = 0;
    CHECK_CU(cudaFree(&stack_var), cudaErrorInvalidValue);   /* never allocated */
    CHECK_CU_OK(cudaMalloc(&d, 64));
    CHECK_CU(cudaFree((char *)d + 8), cudaErrorInvalidValue); /* interior pointer */
    CHECK_CU(cudaFreeHost(d), cudaErrorInvalidValue);          /* wrong free function */
    CHECK_CU_OK(cudaFree(d));

    void *h = NULL;
    CHECK_CU_OK(cudaMallocHost(&h, 100));
    CHECK_CU(cudaFree(h), cudaErrorInvalidValue);
    CHECK_CU_OK(cudaFreeHost(h));
    CHECK_CU(cudaFreeHost(h), cudaErrorInvalidValue);
    CHECK_CU_OK(cudaFreeHost(NULL));
    cudaGetLastError();
}

/* Allocations of 4 MiB or more start on a 2 MiB boundary (core/hugepage.h: they are offered
 * to transparent huge pages); every byte stays usable, the guard bytes past the end still
 * catch an overrun, and smaller allocations keep the 256-byte guarantee. */
static void test_large_alloc(void)
{
    SECTION("large allocations");
    const size_t mib = (size_t)1 << 20;
    void *d = NULL, *e = NULL, *h = NULL;
    CHECK_CU_OK(cudaMalloc(&d, 8 * mib + 3));
    CHECK(((uintptr_t)d & (2 * mib - 1)) == 0);
    CHECK_CU_OK(cudaMalloc(&e, 8 * mib + 3));
    CHECK_CU_OK(cudaMemset(d, 0x3C, 8 * mib + 3));
    CHECK_CU_OK(cudaMemcpy(e, d, 8 * mib + 3, cudaMemcpyDeviceToDevice));
    CHECK(all_bytes(e, 8 * mib + 3, 0x3C));
    CHECK_CU_OK(cudaFree(d));
    ((unsigned char *)e)[8 * mib + 3] = 0;          /* one byte past the end: the guard notices */
    CHECK_CU(cudaFree(e), cudaErrorIllegalAddress);
    cudaDeviceReset();                               /* clears the sticky error */
    CHECK_CU_OK(cudaMallocHost(&h, 5 * mib));
    CHECK(((uintptr_t)h & (2 * mib - 1)) == 0);
    CHECK_CU_OK(cudaFreeHost(h));
    CHECK_CU_OK(cudaMalloc(&d, 3 * mib));
    CHECK(((uintptr_t)d & 255) == 0);
    CHECK_CU_OK(cudaFree(d));
    CHECK_CU(cudaGetLastError(), cudaSuccess);
}

static void test_memcpy(void)
{
    SECTION("memcpy");
    enum { N = 4096 };
    unsigned char *h1 = malloc(N), *h2 = malloc(N);
    for (int i = 0; i < N; i++)
        h1[i] = (unsigned char)(i * 7 + 3);
    memset(h2, 0, N);
    void *d1 = NULL, *d2 = NULL;
    CHECK_CU_OK(cudaMalloc(&d1, N));
    CHECK_CU_OK(cudaMalloc(&d2, N));
    CHECK_CU_OK(cudaMemcpy(d1, h1, N, cudaMemcpyHostToDevice));
    CHECK_CU_OK(cudaMemcpy(d2, d1, N, cudaMemcpyDeviceToDevice));
    CHECK_CU_OK(cudaMemcpy(h2, d2, N, cudaMemcpyDeviceToHost));
    CHECK(memcmp(h1, h2, N) == 0);
    memset(h2, 0, N);
    CHECK_CU_OK(cudaMemcpy(h2, h1, N, cudaMemcpyHostToHost));
    CHECK(memcmp(h1, h2, N) == 0);
    /* cudaMemcpyDefault: every combination works, direction inferred */
    memset(h2, 0, N);
    CHECK_CU_OK(cudaMemcpy(d2, h1, N / 2, cudaMemcpyDefault));
    CHECK_CU_OK(cudaMemcpy(h2, d2, N / 2, cudaMemcpyDefault));
    CHECK(memcmp(h1, h2, N / 2) == 0);
    CHECK_CU_OK(cudaMemcpy(d1, d2, N, cudaMemcpyDefault));
    CHECK_CU_OK(cudaMemcpy(h2, h1, N, cudaMemcpyDefault));
    /* sub-ranges inside an allocation */
    CHECK_CU_OK(cudaMemcpy((char *)d1 + 100, h1, N - 100, cudaMemcpyHostToDevice));
    CHECK_CU_OK(cudaMemcpyAsync(h2, (char *)d1 + 100, 10, cudaMemcpyDeviceToHost, 0));
    CHECK(memcmp(h1, h2, 10) == 0);
    CHECK_CU_OK(cudaMemcpy(NULL, NULL, 0, cudaMemcpyHostToDevice));   /* nothing to do */
    CHECK_CU_OK(cudaMemcpy(d1, d1, N, cudaMemcpyDeviceToDevice));       /* same range: no-op */

    SECTION("memcpy bad input");
    memset(h2, 0x5a, N);
    CHECK_CU(cudaMemcpy(d1, h1, N, (enum cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
    CHECK_CU(cudaMemcpy(d1, h1, N, (enum cudaMemcpyKind)-1), cudaErrorInvalidMemcpyDirection);
    CHECK_CU(cudaMemcpy(h2, h1, N, cudaMemcpyHostToDevice), cudaErrorInvalidValue);  /* dst is not device */
    CHECK_CU(cudaMemcpy(h2, h1, N, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);  /* src is not device */
    CHECK_CU(cudaMemcpy(h2, h1, N, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
    CHECK_CU(cudaMemcpy(d1, h1, N + 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue); /* runs past the end */
    CHECK_CU(cudaMemcpy(h2, (char *)d1 + 1, N, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    CHECK_CU(cudaMemcpy(d1, d2, SIZE_MAX, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
    CHECK_CU(cudaMemcpy(h2, h1, SIZE_MAX, cudaMemcpyHostToHost), cudaErrorInvalidValue);  /* wraps */
    CHECK_CU(cudaMemcpy(h2, h1, SIZE_MAX / 2 + 1, cudaMemcpyDefault), cudaErrorInvalidValue);
    CHECK_CU(cudaMemcpy2D(h2, SIZE_MAX / 4, h1, SIZE_MAX / 4, 4, 3, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    CHECK_CU(cudaMemcpy(NULL, h1, 4, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    CHECK_CU(cudaMemcpy(h2, NULL, 4, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    CHECK_CU(cudaMemcpy((char *)d1 + 8, d1, 64, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue); /* overlap */
    CHECK(all_bytes(h2, N, 0x5a));                     /* nothing was written */
    CHECK_CU(cudaMemcpyAsync(d1, h1, 16, cudaMemcpyHostToDevice, (cudaStream_t)0x12345),
             cudaErrorInvalidResourceHandle);
    CHECK_CU_OK(cudaMemcpyAsync(d1, h1, 16, cudaMemcpyHostToDevice, cudaStreamPerThread));
    CHECK_CU_OK(cudaMemcpyAsync(d1, h1, 16, cudaMemcpyHostToDevice, cudaStreamLegacy));
    cudaGetLastError();

    CHECK_CU_OK(cudaFree(d1));
    CHECK_CU_OK(cudaFree(d2));
    CHECK_CU(cudaMemcpy(h2, d1, 16, cudaMemcpyDeviceToHost), cudaErrorInvalidValue); /* freed */
    cudaGetLastError();
    free(h1);
    free(h2);
}

static void test_memcpy2d(void)
{
    SECTION("memcpy2D");
    enum { W = 13, H = 7, SP = 16, DP = 32 };
    unsigned char src[SP * H], out[W * H];
    for (int i = 0; i < SP * H; i++)
        src[i] = (unsigned char)i;
    void *d = NULL;
    size_t pitch = 0;
    CHECK_CU_OK(cudaMallocPitch(&d, &pitch, W, H));
    CHECK(pitch >= W && pitch % 256 == 0);
    CHECK_CU_OK(cudaMemset2D(d, pitch, 0xee, pitch, H));
    CHECK_CU_OK(cudaMemcpy2D(d, pitch, src, SP, W, H, cudaMemcpyHostToDevice));
    CHECK_CU_OK(cudaMemcpy2D(out, W, d, pitch, W, H, cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++)
            ok &= out[r * W + c] == src[r * SP + c];
    CHECK(ok);
    CHECK(((unsigned char *)d)[W] == 0xee);            /* padding untouched */
    CHECK_CU_OK(cudaMemcpy2DAsync(out, W, d, pitch, W, H, cudaMemcpyDeviceToHost, 0));
    CHECK_CU_OK(cudaMemcpy2D(out, W, d, pitch, 0, H, cudaMemcpyDeviceToHost));
    CHECK_CU(cudaMemcpy2D(out, W, d, pitch, W + 1, H, cudaMemcpyDeviceToHost), cudaErrorInvalidPitchValue);
    CHECK_CU(cudaMemcpy2D(out, W, d, DP, W, H * 100, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    CHECK_CU(cudaMemcpy2D(out, W, d, pitch, W, H, (enum cudaMemcpyKind)9), cudaErrorInvalidMemcpyDirection);
    CHECK_CU(cudaMemcpy2D(out, SIZE_MAX / 2, d, pitch, W, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK_CU_OK(cudaFree(d));
}

static void test_memset(void)
{
    SECTION("memset");
    unsigned char *d = NULL;
    CHECK_CU_OK(cudaMalloc((void **)&d, 1000));
    CHECK_CU_OK(cudaMemset(d, 0xab, 1000));
    CHECK(all_bytes(d, 1000, 0xab));
    CHECK_CU_OK(cudaMemsetAsync(d + 10, 0x100 + 0x11, 20, 0));     /* value taken as unsigned char */
    CHECK(all_bytes(d + 10, 20, 0x11) && d[9] == 0xab && d[30] == 0xab);
    CHECK_CU_OK(cudaMemset(d, 0, 0));
    CHECK_CU(cudaMemset(d, 0, 1001), cudaErrorInvalidValue);
    CHECK_CU(cudaMemset(NULL, 0, 4), cudaErrorInvalidValue);
    unsigned char host[16];
    memset(host, 1, sizeof host);
    CHECK_CU(cudaMemset(host, 0, sizeof host), cudaErrorInvalidValue); /* not device memory */
    CHECK(all_bytes(host, sizeof host, 1));
    CHECK_CU(cudaMemsetAsync(d, 0, 4, (cudaStream_t)0x777), cudaErrorInvalidResourceHandle);
    CHECK_CU_OK(cudaMemset2D(d, 100, 0x22, 50, 10));
    CHECK(d[0] == 0x22 && d[49] == 0x22 && d[50] == 0xab && d[900] == 0x22);
    CHECK_CU(cudaMemset2D(d, 100, 0, 101, 2), cudaErrorInvalidValue);
    CHECK_CU(cudaMemset2D(d, 100, 0, 50, 11), cudaErrorInvalidValue);  /* past the end */
    CHECK_CU_OK(cudaMemset2DAsync(d, 100, 0x33, 10, 2, 0));
    cudaGetLastError();
    CHECK_CU_OK(cudaFree(d));
}

static void test_host_managed(void)
{
    SECTION("host/managed memory");
    void *h = NULL, *dp = NULL;
    unsigned int flags = 99;
    CHECK_CU_OK(cudaHostAlloc(&h, 256, cudaHostAllocMapped | cudaHostAllocPortable));
    CHECK_CU_OK(cudaHostGetFlags(&flags, h));
    CHECK(flags == (cudaHostAllocMapped | cudaHostAllocPortable));
    CHECK_CU_OK(cudaHostGetDevicePointer(&dp, h, 0));
    CHECK(dp == h);
    CHECK_CU(cudaHostGetDevicePointer(&dp, h, 1), cudaErrorInvalidValue);
    CHECK_CU(cudaHostAlloc(&h, 16, 0x80), cudaErrorInvalidValue);
    /* pinned memory is device-accessible: H2D into it works */
    int v = 42;
    CHECK_CU_OK(cudaMemcpy(h, &v, sizeof v, cudaMemcpyHostToDevice));
    CHECK_CU_OK(cudaMemset(h, 0, 8));
    struct cudaPointerAttributes pa;
    CHECK_CU_OK(cudaPointerGetAttributes(&pa, h));
    CHECK(pa.type == cudaMemoryTypeHost && pa.hostPointer == h && pa.devicePointer == h);
    CHECK_CU_OK(cudaFreeHost(h));

    void *m = NULL;
    CHECK_CU_OK(cudaMallocManaged(&m, 1024, cudaMemAttachGlobal));
    memset(m, 3, 1024);                              /* host access to managed memory */
    CHECK_CU_OK(cudaMemPrefetchAsync(m, 1024, 0, 0));
    CHECK_CU(cudaMemPrefetchAsync(m, 1025, 0, 0), cudaErrorInvalidValue);
    CHECK_CU(cudaMemPrefetchAsync(m, 1024, 3, 0), cudaErrorInvalidDevice);
    CHECK_CU_OK(cudaPointerGetAttributes(&pa, (char *)m + 10));
    CHECK(pa.type == cudaMemoryTypeManaged);
    CHECK_CU(cudaMallocManaged(&m, 0, cudaMemAttachGlobal), cudaErrorInvalidValue);
    CHECK_CU(cudaMallocManaged(&m, 16, 0), cudaErrorInvalidValue);
    CHECK_CU_OK(cudaFree(m));

    void *d = NULL;
    CHECK_CU_OK(cudaMalloc(&d, 64));
    CHECK_CU_OK(cudaPointerGetAttributes(&pa, d));
    CHECK(pa.type == cudaMemoryTypeDevice && pa.devicePointer == d && pa.hostPointer == NULL && pa.device == 0);
    CHECK_CU(cudaPointerGetAttributes(NULL, d), cudaErrorInvalidValue);
    CHECK_CU_OK(cudaFree(d));
    int local = 0;
    CHECK_CU_OK(cudaPointerGetAttributes(&pa, &local));
    CHECK(pa.type == cudaMemoryTypeUnregistered);

    SECTION("host register");
    static char buf[4096];
    CHECK_CU_OK(cudaHostRegister(buf, sizeof buf, cudaHostRegisterDefault));
    CHECK_CU(cudaHostRegister(buf + 100, 10, 0), cudaErrorHostMemoryAlreadyRegistered);
    CHECK_CU_OK(cudaMemcpy(buf, &v, sizeof v, cudaMemcpyHostToDevice));  /* now device-accessible */
    CHECK_CU(cudaMemcpy(buf + 4094, &v, sizeof v, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    CHECK_CU(cudaHostUnregister(buf + 1), cudaErrorHostMemoryNotRegistered);
    CHECK_CU_OK(cudaHostUnregister(buf));
    CHECK_CU(cudaHostUnregister(buf), cudaErrorHostMemoryNotRegistered);
    CHECK_CU(cudaHostRegister(NULL, 10, 0), cudaErrorInvalidValue);
    cudaGetLastError();

    SECTION("meminfo");
    size_t fr = 0, tot = 0;
    CHECK_CU_OK(cudaMemGetInfo(&fr, &tot));
    CHECK(tot > 0 && fr > 0 && fr <= tot);
    CHECK_CU(cudaMemGetInfo(NULL, &tot), cudaErrorInvalidValue);
    CHECK_CU(cudaMalloc(&d, tot + 1), cudaErrorMemoryAllocation);
    cudaGetLastError();
}

static void test_async_alloc_peer(void)
{
    SECTION("stream-ordered allocation, peer copies");
    cudaStream_t s;
    void *a = NULL, *b = NULL;
    CHECK_CU_OK(cudaStreamCreate(&s));
    CHECK_CU_OK(cudaMallocAsync(&a, 128, s));
    CHECK_CU_OK(cudaMallocAsync(&b, 128, 0));
    CHECK_CU_OK(cudaMemsetAsync(a, 9, 128, s));
    CHECK_CU_OK(cudaMemcpyPeer(b, 0, a, 0, 128));
    CHECK(all_bytes(b, 128, 9));
    CHECK_CU_OK(cudaMemcpyPeerAsync(b, 0, a, 0, 64, s));
    CHECK_CU(cudaMemcpyPeer(b, 1, a, 0, 16), cudaErrorInvalidDevice);
    CHECK_CU(cudaMemcpyPeer(b, 0, a, 0, 129), cudaErrorInvalidValue);
    CHECK_CU(cudaMallocAsync(&a, 16, (cudaStream_t)0x3), cudaErrorInvalidResourceHandle);
    CHECK_CU_OK(cudaFreeAsync(a, s));
    CHECK_CU(cudaFreeAsync(a, s), cudaErrorInvalidValue);
    CHECK_CU_OK(cudaFreeAsync(b, 0));
    CHECK_CU_OK(cudaStreamDestroy(s));
    cudaGetLastError();
}

static void test_cpp_style_usage(void)
{
    SECTION("typical program");
    /* What a cuDNN program does: allocate, upload, compute on the host side, download. */
    enum { N = 1000 };
    float *x = NULL, host[N], back[N];
    for (int i = 0; i < N; i++)
        host[i] = (float)i * 0.5f;
    CHECK_CU_OK(cudaMalloc((void **)&x, N * sizeof(float)));
    CHECK_CU_OK(cudaMemcpy(x, host, sizeof host, cudaMemcpyHostToDevice));
    CHECK_CU_OK(cudaDeviceSynchronize());
    CHECK_CU_OK(cudaMemcpy(back, x, sizeof back, cudaMemcpyDeviceToHost));
    CHECK(memcmp(host, back, sizeof host) == 0);
    CHECK_CU_OK(cudaFree(x));
    CHECK_CU(cudaGetLastError(), cudaSuccess);
}

int main(void)
{
    test_malloc_free();
    test_large_alloc();
    test_memcpy();
    test_memcpy2d();
    test_memset();
    test_host_managed();
    test_async_alloc_peer();
    test_cpp_style_usage();
    return hd_test_finish();
}
