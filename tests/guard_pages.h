/*
 * guard_pages.h -- pages with inaccessible neighbours, for kernel tests that must show a read
 * or write past the end of their data as a crash: POSIX mmap/mprotect, Windows
 * VirtualAlloc/VirtualProtect (so the same tests run under Wine).  Test code only.
 */
#ifndef HD_TESTS_GUARD_PAGES_H
#define HD_TESTS_GUARD_PAGES_H

#include <stddef.h>

#ifdef _WIN32
#include <windows.h>

static inline size_t hd_test_page_size(void)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (size_t)si.dwPageSize;
}

/* n readable and writable pages, or NULL */
static inline char *hd_test_pages(size_t n)
{
    return VirtualAlloc(NULL, n * hd_test_page_size(), MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

/* page i of a block from hd_test_pages made inaccessible */
static inline void hd_test_page_none(char *m, size_t i)
{
    DWORD old;
    size_t pg = hd_test_page_size();
    VirtualProtect(m + i * pg, pg, PAGE_NOACCESS, &old);
}
#else
#include <sys/mman.h>
#include <unistd.h>

static inline size_t hd_test_page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static inline char *hd_test_pages(size_t n)
{
    void *m = mmap(NULL, n * hd_test_page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : (char *)m;
}

static inline void hd_test_page_none(char *m, size_t i)
{
    size_t pg = hd_test_page_size();
    mprotect(m + i * pg, pg, PROT_NONE);
}
#endif

#endif
