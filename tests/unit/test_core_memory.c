/*
 * Large buffers on 2 MiB pages (src/core/hugepage.h): hd_aligned_alloc and, in
 * test_cudart_memory.c, cudaMalloc.  What can be checked on any machine is the placement:
 * buffers of at least 4 MiB start on a 2 MiB boundary, smaller ones keep their usual
 * alignment, the whole buffer is usable, and HOSTDNN_HUGE_PAGES=0 changes nothing a program
 * can see.  Whether the kernel really backs them with huge pages depends on its settings
 * (transparent_hugepage "never", no free huge pages): printed, never asserted.
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/hugepage.h"
#include "core/memory.h"

#define MIB ((size_t)1 << 20)

/* Fills the buffer and reads both ends back: every byte of the request is writable. */
static int usable(unsigned char *p, size_t n)
{
    memset(p, 0x5A, n);
    return p[0] == 0x5A && p[n / 2] == 0x5A && p[n - 1] == 0x5A;
}

static void test_align_rule(void)
{
    SECTION("alignment rule");
    CHECK(hd_huge_align(HD_HUGE_MIN, 64) == HD_HUGE_PAGE);
    CHECK(hd_huge_align(HD_HUGE_MIN - 1, 64) == 64);
    CHECK(hd_huge_align(0, 256) == 256);
    CHECK(hd_huge_align(SIZE_MAX, 256) == HD_HUGE_PAGE);
    CHECK(hd_huge_align(64 * MIB, 4 * MIB) == 4 * MIB);   /* a larger request is kept */
    /* advice on NULL and on small buffers is a no-op (it must not fault, nor change them) */
    hd_huge_advise(NULL, 64 * MIB);
    char small[64];
    memset(small, 7, sizeof small);
    hd_huge_advise(small, sizeof small);
    CHECK(small[0] == 7 && small[63] == 7);
}

static void test_aligned_alloc(void)
{
    SECTION("hd_aligned_alloc");
    size_t sizes[] = {1, 4096, HD_HUGE_MIN - 1, HD_HUGE_MIN, HD_HUGE_MIN + 3, 9 * MIB + 1};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *p = hd_aligned_alloc(sizes[i]);
        CHECK(p != NULL);
        if (!p)
            continue;
        CHECK(((uintptr_t)p & (HD_ALIGN - 1)) == 0);
        if (sizes[i] >= HD_HUGE_MIN)
            CHECK_MSG(((uintptr_t)p & (HD_HUGE_PAGE - 1)) == 0, "%zu bytes at %p", sizes[i], (void *)p);
        CHECK(usable(p, sizes[i]));
        hd_aligned_free(p);
    }
    CHECK(hd_aligned_alloc(0) == NULL);
    CHECK(hd_aligned_alloc(SIZE_MAX) == NULL);
}

static void test_opt_out(void)
{
    SECTION("HOSTDNN_HUGE_PAGES=0");
    setenv("HOSTDNN_HUGE_PAGES", "0", 1);
    unsigned char *p = hd_aligned_alloc(8 * MIB);
    CHECK(p != NULL);
    if (p) {
        CHECK(((uintptr_t)p & (HD_HUGE_PAGE - 1)) == 0);   /* placement does not depend on it */
        CHECK(usable(p, 8 * MIB));
        hd_aligned_free(p);
    }
    unsetenv("HOSTDNN_HUGE_PAGES");
}

/* Informational: how much of a touched 32 MiB buffer the kernel gave huge pages. */
static void report_backing(void)
{
    unsigned char *p = hd_aligned_alloc(32 * MIB);
    if (!p)
        return;
    memset(p, 1, 32 * MIB);
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "AnonHugePages:", 14) == 0)
            printf("  (informational) after touching 32 MiB: %s", line);
    if (f)
        fclose(f);
    hd_aligned_free(p);
}

int main(void)
{
    test_align_rule();
    test_aligned_alloc();
    test_opt_out();
    report_backing();
    return hd_test_finish();
}
