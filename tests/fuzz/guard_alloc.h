/*
 * guard_alloc.h -- buffers that end right before an inaccessible page, for the compute harness.
 *
 * ASan's redzones catch most out-of-bounds accesses, but not a vector load that jumps far past
 * the end, and the gcc replay of the corpus has no ASan at all: a buffer whose last byte sits
 * against a PROT_NONE page faults on the first byte read or written past it, in any build.
 */
#ifndef HD_FUZZ_GUARD_ALLOC_H
#define HD_FUZZ_GUARD_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    void *map;        /* the whole mapping, guard page included */
    size_t map_bytes;
} guard_buf;

/* BYTES usable bytes whose last one is right before a guard page (the start is page-aligned
 * minus BYTES: a multiple of the element size when BYTES is); NULL when mmap fails. */
static inline void *guard_alloc(guard_buf *g, size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (bytes + page - 1) / page;
    if (data_pages == 0)
        data_pages = 1;
    g->map_bytes = (data_pages + 1) * page;
    g->map = mmap(NULL, g->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) {
        g->map = NULL;
        return NULL;
    }
    uint8_t *guard = (uint8_t *)g->map + data_pages * page;
    if (mprotect(guard, page, PROT_NONE) != 0) {
        munmap(g->map, g->map_bytes);
        g->map = NULL;
        return NULL;
    }
    return guard - bytes;
}

static inline void guard_free(guard_buf *g)
{
    if (g->map)
        munmap(g->map, g->map_bytes);
    g->map = NULL;
}

#endif
