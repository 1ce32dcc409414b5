/* core/memory.c -- see memory.h. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (core/hugepage.h) */
#include "core/memory.h"

#include "core/hugepage.h"

#include <stdlib.h>

void *hd_aligned_alloc(size_t bytes)
{
    if (bytes == 0 || bytes > ((size_t)1 << 62))
        return NULL;
    size_t align = hd_huge_align(bytes, HD_ALIGN);
    size_t rounded = (bytes + align - 1) & ~(size_t)(align - 1);
    void *p = aligned_alloc(align, rounded);
    hd_huge_advise(p, rounded);
    return p;
}

void hd_aligned_free(void *p)
{
#ifdef _WIN32
    _aligned_free(p);   /* aligned_alloc is _aligned_malloc there (core/win32/posix.h) */
#else
    free(p);
#endif
}
