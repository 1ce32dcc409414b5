/* core/memory.h -- aligned allocation for buffers that vector kernels touch. */
#ifndef HD_CORE_MEMORY_H
#define HD_CORE_MEMORY_H

#include <stddef.h>

#define HD_ALIGN 64

/* 64-byte aligned, uninitialised; NULL for size 0 overflowing requests or no memory. */
void *hd_aligned_alloc(size_t bytes);
void hd_aligned_free(void *p);

/* a*b without overflow: returns 0 and stores the product, or returns -1. */
static inline int hd_mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > (size_t)-1 / a)
        return -1;
    *out = a * b;
    return 0;
}

#endif
