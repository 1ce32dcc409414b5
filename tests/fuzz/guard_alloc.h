/*
 * guard_alloc.h -- buffers that end right before an inaccessible page, for the compute harness.
 *
 * ASan's redzones catch most out-of-bounds accesses, but not a vector load that jumps far past
 * the end, nor anything in the SIMD kernels (the fuzz build leaves them uninstrumented), and
 * the gcc replay of the corpus has no ASan at all: a buffer whose last byte sits against a
 * PROT_NONE page faults on the first byte read or written past it, in any build.
 *
 * Each of the harness's buffer slots keeps its mapping between inputs and grows it when an
 * input needs more: a fresh mmap/mprotect/munmap per buffer per input costs more than the
 * small computations themselves.
 */
#ifndef HD_FUZZ_GUARD_ALLOC_H
#define HD_FUZZ_GUARD_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    uint8_t *map;      /* data pages, then the guard page */
    size_t data_bytes; /* the data pages' size */
} guard_slot;

/* BYTES usable bytes of slot G whose last one is right before its guard page (the start is
 * page-aligned minus BYTES: a multiple of the element size when BYTES is); NULL when the
 * mapping cannot be made. */
static inline void *guard_alloc(guard_slot *g, size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (!g->map || g->data_bytes < bytes) {
        if (g->map)
            munmap(g->map, g->data_bytes + page);
        size_t data = (bytes + page - 1) / page * page;
        if (data < 16 * page)
            data = 16 * page;
        g->map = mmap(NULL, data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (g->map == MAP_FAILED || mprotect(g->map + data, page, PROT_NONE) != 0) {
            if (g->map != MAP_FAILED)
                munmap(g->map, data + page);
            g->map = NULL;
            g->data_bytes = 0;
            return NULL;
        }
        g->data_bytes = data;
    }
    return g->map + g->data_bytes - bytes;
}

#endif
