/*
 * core/win32/posix.h -- the few POSIX calls hostdnn makes, for Windows (MinGW-w64 builds only).
 *
 * The Windows build force-includes this header (-include, cmake/windows.cmake) into every
 * source file, so the POSIX code paths stay as they are and Linux builds never see it.
 * pthreads, clock_gettime and gettimeofday come from MinGW-w64's winpthreads (linked
 * statically); this adds what winpthreads lacks: sysconf, CPU affinity sets, aligned
 * allocation, gmtime_r, the thread id, and (core/win32/include/dlfcn.h) the loader.
 *
 * Memory from aligned_alloc / posix_memalign here must be released with _aligned_free: the
 * C runtime's free() cannot take it.  hostdnn frees such memory in hd_aligned_free and in
 * the runtime's allocation registry, both of which say so.
 */
#ifndef HD_CORE_WIN32_POSIX_H
#define HD_CORE_WIN32_POSIX_H
#ifdef _WIN32

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef NOGDI
#define NOGDI
#endif
#include <windows.h>
/* windows.h's annotation macros would swallow hostdnn's identifiers of the same name. */
#undef IN
#undef OUT
#undef OPTIONAL
#undef near
#undef far
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <process.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- aligned allocation (release with _aligned_free) ---- */
static inline void *hd_win_aligned_alloc(size_t align, size_t bytes)
{
    return _aligned_malloc(bytes ? bytes : 1, align);
}
#ifndef HD_WIN32_TRACK_ALIGNED
#define aligned_alloc(align, bytes) hd_win_aligned_alloc((align), (bytes))
#else
/* Test programs (cmake/windows.cmake defines HD_WIN32_TRACK_ALIGNED for them) release
 * aligned_alloc'd buffers with free(), as C11 allows: remember those blocks, per file, so
 * that free() sends them to _aligned_free. */
#define HD_WIN32_TRACKED 4096
static void *hd_win_tracked[HD_WIN32_TRACKED];
static SRWLOCK hd_win_tracked_lock = SRWLOCK_INIT;
static inline void *hd_win_tracked_alloc(size_t align, size_t bytes)
{
    void *p = hd_win_aligned_alloc(align, bytes);
    AcquireSRWLockExclusive(&hd_win_tracked_lock);
    size_t i = 0;
    while (p && i < HD_WIN32_TRACKED && hd_win_tracked[i])
        i++;
    if (p && i < HD_WIN32_TRACKED) {
        hd_win_tracked[i] = p;
    } else if (p) {
        _aligned_free(p);   /* too many live blocks to tell apart: fail like out of memory */
        p = NULL;
    }
    ReleaseSRWLockExclusive(&hd_win_tracked_lock);
    return p;
}
static inline void hd_win_tracked_free(void *p)
{
    int aligned = 0;
    AcquireSRWLockExclusive(&hd_win_tracked_lock);
    for (size_t i = 0; p && i < HD_WIN32_TRACKED && !aligned; i++)
        if (hd_win_tracked[i] == p) {
            hd_win_tracked[i] = NULL;
            aligned = 1;
        }
    ReleaseSRWLockExclusive(&hd_win_tracked_lock);
    if (aligned)
        _aligned_free(p);
    else
        (free)(p);
}
#define aligned_alloc(align, bytes) hd_win_tracked_alloc((align), (bytes))
#define free(p) hd_win_tracked_free(p)
#endif

static inline int hd_win_posix_memalign(void **out, size_t align, size_t bytes)
{
    void *p = _aligned_malloc(bytes ? bytes : 1, align);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}
#define posix_memalign(out, align, bytes) hd_win_posix_memalign((out), (align), (bytes))

/* ---- fma, fmaf: correctly rounded ----
 * MinGW-w64's libm computes them with two roundings on some versions, so scalar kernels and
 * reference code that rely on one rounding would differ from the vector kernels.  With the
 * FMA instruction they are exact; without it fmaf goes through double (the product is exact
 * there; the sum may round twice in rare halfway cases) and fma stays the library's. */
__attribute__((target("fma"))) static inline float hd_win_fmaf_hw(float a, float b, float c)
{
    return __builtin_fmaf(a, b, c);
}
__attribute__((target("fma"))) static inline double hd_win_fma_hw(double a, double b, double c)
{
    return __builtin_fma(a, b, c);
}
static inline float hd_win_fmaf(float a, float b, float c)
{
    if (__builtin_cpu_supports("fma"))
        return hd_win_fmaf_hw(a, b, c);
    return (float)((double)a * (double)b + (double)c);
}
static inline double hd_win_fma(double a, double b, double c)
{
    if (__builtin_cpu_supports("fma"))
        return hd_win_fma_hw(a, b, c);
    return (fma)(a, b, c);
}
#define fmaf(a, b, c) hd_win_fmaf((a), (b), (c))
#define fma(a, b, c) hd_win_fma((a), (b), (c))

/* ---- sysconf: the names hostdnn asks for ---- */
#define _SC_NPROCESSORS_ONLN 0x7801
#define _SC_PHYS_PAGES 0x7802
#define _SC_PAGESIZE 0x7803
#define _SC_LEVEL2_CACHE_SIZE 0x7804
#define _SC_LEVEL3_CACHE_SIZE 0x7805

static inline long hd_win_cache_size(int level)
{
    DWORD bytes = 0;
    GetLogicalProcessorInformation(NULL, &bytes);
    if (bytes == 0)
        return 0;
    SYSTEM_LOGICAL_PROCESSOR_INFORMATION *info = malloc(bytes);
    long size = 0;
    if (info && GetLogicalProcessorInformation(info, &bytes)) {
        for (size_t i = 0; i < bytes / sizeof *info; i++)
            if (info[i].Relationship == RelationCache && info[i].Cache.Level == level &&
                info[i].Cache.Type != CacheInstruction && (long)info[i].Cache.Size > size)
                size = (long)info[i].Cache.Size;
    }
    free(info);
    return size;
}

static inline long hd_win_sysconf(int name)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    switch (name) {
    case _SC_NPROCESSORS_ONLN:
        return (long)si.dwNumberOfProcessors;
    case _SC_PAGESIZE:
        return (long)si.dwPageSize;
    case _SC_PHYS_PAGES: {
        MEMORYSTATUSEX ms;
        ms.dwLength = sizeof ms;
        if (!GlobalMemoryStatusEx(&ms) || si.dwPageSize == 0)
            return -1;
        return (long)(ms.ullTotalPhys / si.dwPageSize);
    }
    case _SC_LEVEL2_CACHE_SIZE:
        return hd_win_cache_size(2);
    case _SC_LEVEL3_CACHE_SIZE:
        return hd_win_cache_size(3);
    default:
        errno = EINVAL;
        return -1;
    }
}
#define sysconf(name) hd_win_sysconf(name)

/* ---- CPU sets: the process affinity mask (the first 64 CPUs, one processor group) ---- */
typedef struct {
    unsigned long long bits;
} hd_win_cpu_set;
#define cpu_set_t hd_win_cpu_set
#define CPU_ZERO(s) ((s)->bits = 0)
#define CPU_SET(c, s) ((c) < 64 ? (void)((s)->bits |= 1ull << (c)) : (void)0)
#define CPU_CLR(c, s) ((c) < 64 ? (void)((s)->bits &= ~(1ull << (c))) : (void)0)
#define CPU_ISSET(c, s) ((c) < 64 && (((s)->bits >> (c)) & 1))
#define CPU_COUNT(s) __builtin_popcountll((s)->bits)

static inline int hd_win_getaffinity(int pid, size_t size, hd_win_cpu_set *set)
{
    DWORD_PTR proc = 0, sys = 0;
    (void)pid;
    if (size < sizeof *set || !GetProcessAffinityMask(GetCurrentProcess(), &proc, &sys))
        return -1;
    set->bits = (unsigned long long)proc;
    return 0;
}
#define sched_getaffinity(pid, size, set) hd_win_getaffinity((pid), (size), (set))

/* Moving a running thread between CPUs is left to the Windows scheduler. */
static inline int hd_win_setaffinity(int pid, size_t size, const hd_win_cpu_set *set)
{
    (void)pid;
    (void)size;
    (void)set;
    return -1;
}
#define sched_setaffinity(pid, size, set) hd_win_setaffinity((pid), (size), (set))
#define sched_getcpu() ((int)GetCurrentProcessorNumber())

/* ---- process and thread ids, time ---- */
#define SYS_gettid 186
#define syscall(nr) ((void)(nr), (long)GetCurrentThreadId())
#ifndef getpid
#define getpid() ((int)GetCurrentProcessId())
#endif

static inline struct tm *hd_win_gmtime_r(const time_t *t, struct tm *out)
{
    return gmtime_s(out, t) == 0 ? out : NULL;
}
#undef gmtime_r
#define gmtime_r(t, out) hd_win_gmtime_r((t), (out))

/* ---- environment (the tests set variables before the library reads them) ---- */
static inline int hd_win_setenv(const char *name, const char *value, int overwrite)
{
    if (!overwrite && getenv(name))
        return 0;
    return _putenv_s(name, value) == 0 ? 0 : -1;
}
#define setenv(name, value, overwrite) hd_win_setenv((name), (value), (overwrite))
#define unsetenv(name) (_putenv_s((name), "") == 0 ? 0 : -1)
/* No symbolic links to follow (the tests ask for /proc/self/exe). */
#define readlink(path, buf, size) ((void)(path), (void)(buf), (void)(size), (errno = ENOSYS), -1)

/* No fork() on Windows: nothing to re-arm in a child. */
static inline int hd_win_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    (void)prepare;
    (void)parent;
    (void)child;
    return 0;
}
#undef pthread_atfork /* winpthreads' expands to 0, leaving the handlers unused */
#define pthread_atfork(prepare, parent, child) hd_win_atfork((prepare), (parent), (child))

#endif /* _WIN32 */
#endif
