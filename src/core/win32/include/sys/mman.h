/* core/win32/include/sys/mman.h -- Windows build: no madvise, so MADV_HUGEPAGE stays undefined
 * and core/hugepage.h gives no advice (Windows has no transparent huge pages to offer). */
