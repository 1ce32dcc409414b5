/* core/memory.c -- see memory.h. */
#include "core/memory.h"

#include <stdlib.h>

void *hd_aligned_alloc(size_t bytes)
{
    if (bytes == 0 || bytes > ((size_t)1 << 62))
        return NULL;
    size_t rounded = (bytes + HD_ALIGN - 1) & ~(size_t)(HD_ALIGN - 1);
    return aligned_alloc(HD_ALIGN, rounded);
}

void hd_aligned_free(void *p) { free(p); }
