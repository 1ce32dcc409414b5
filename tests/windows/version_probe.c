/*
 * tests/windows/version_probe.c -- the first thing people run after unpacking the zip: does
 * cudnn64_8.dll load, and which cuDNN is it?  Built for the MSVC ABI (clang
 * --target=x86_64-pc-windows-msvc -ffreestanding) and linked by lld-link against cudnn.lib
 * alone, so the import libraries are checked with an MSVC-compatible linker; no C runtime,
 * so it writes through kernel32 and declares what it calls itself.
 */
#include <stddef.h>

#define WINAPI __stdcall
typedef void *HANDLE;
__declspec(dllimport) HANDLE WINAPI GetStdHandle(unsigned long which);
__declspec(dllimport) int WINAPI WriteFile(HANDLE h, const void *buf, unsigned long n, unsigned long *done,
                                           void *overlapped);
__declspec(dllimport) void WINAPI ExitProcess(unsigned int code);

typedef struct cudnnContext *cudnnHandle_t;
__declspec(dllimport) size_t cudnnGetVersion(void);
__declspec(dllimport) size_t cudnnGetCudartVersion(void);
__declspec(dllimport) int cudnnCreate(cudnnHandle_t *handle);
__declspec(dllimport) int cudnnDestroy(cudnnHandle_t handle);
__declspec(dllimport) const char *cudnnGetErrorString(int status);

static int passed, failed;

static void put(const char *s)
{
    unsigned long n = 0, done;
    while (s[n])
        n++;
    WriteFile(GetStdHandle((unsigned long)-11), s, n, &done, NULL);
}

static void put_num(size_t v)
{
    char b[24];
    int i = 23;
    b[i] = 0;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    put(b + i);
}

static void check(int ok, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        put("FAIL ");
        put(what);
        put("\r\n");
    }
}

void mainCRTStartup(void)
{
    size_t v = cudnnGetVersion();
    put("cudnnGetVersion() = ");
    put_num(v);
    put("\r\n");
    check(v == 8100, "cudnnGetVersion() == 8100");
    check(cudnnGetCudartVersion() == 11020, "cudnnGetCudartVersion() == 11020");
    cudnnHandle_t h = NULL;
    int st = cudnnCreate(&h);   /* loads cudnn_ops_infer64_8.dll from cudnn64_8.dll's folder */
    check(st == 0 && h != NULL, "cudnnCreate");
    if (st == 0)
        check(cudnnDestroy(h) == 0, "cudnnDestroy");
    const char *s = cudnnGetErrorString(0);
    check(s && s[0] == 'C', "cudnnGetErrorString(CUDNN_STATUS_SUCCESS)");
    put_num((size_t)passed);
    put(" passed, ");
    put_num((size_t)failed);
    put(" failed\r\n");
    ExitProcess(failed ? 1u : 0u);
}
