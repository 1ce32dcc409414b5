/*
 * core/hugepage.h -- large buffers on 2 MiB pages (transparent huge pages).
 *
 * A convolution walks x's channel planes, the filter's rows and y's rows a plane apart:
 * with 4 KiB pages every one of those rows is its own TLB entry, and a 14 x 32 tile of a
 * 1x1 layer from NCHW touches about 80 pages per k block.  GPUs map cudaMalloc'd memory with
 * large pages too.  So allocations of at least HD_HUGE_MIN bytes start on a 2 MiB boundary
 * and the whole 2 MiB pages inside them are offered to the kernel's transparent huge pages
 * (madvise: Debian's default "madvise" mode only gives them to regions that ask).  Where
 * the kernel has no such pages the advice fails quietly and the memory is ordinary;
 * HOSTDNN_HUGE_PAGES=0 turns the advice off (for a process where the kernel's compaction on a
 * fault would cost more than the TLB misses save).  The layers that gain most are those that
 * stride across planes: depthwise convolutions from NHWC and 1x1 backward data from NCHW.
 *
 * Header-only (static inline): libcudart holds no hostdnn core code.
 */
#ifndef HD_CORE_HUGEPAGE_H
#define HD_CORE_HUGEPAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HD_HUGE_PAGE ((size_t)2 << 20)
#define HD_HUGE_MIN ((size_t)4 << 20) /* smaller buffers: at most half of their last page wasted */

/* The alignment to ask for a buffer of BYTES bytes (at least MIN_ALIGN). */
static inline size_t hd_huge_align(size_t bytes, size_t min_align)
{
    return bytes >= HD_HUGE_MIN && min_align < HD_HUGE_PAGE ? HD_HUGE_PAGE : min_align;
}

/* Offers the whole 2 MiB pages of [p, p + bytes) to transparent huge pages.  Advice only:
 * the contents and the validity of the memory do not change, whatever the kernel answers. */
static inline void hd_huge_advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes < HD_HUGE_MIN || !p)
        return;
    const char *env = getenv("HOSTDNN_HUGE_PAGES");   /* read per large allocation: cheap next to it */
    if (env && env[0] == '0' && env[1] == 0)
        return;
    uintptr_t a = ((uintptr_t)p + HD_HUGE_PAGE - 1) & ~(uintptr_t)(HD_HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)(HD_HUGE_PAGE - 1);
    if (e > a)
        (void)madvise((void *)a, (size_t)(e - a), MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

#endif
