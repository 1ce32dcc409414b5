/*
 * kernels/igemm/igemm-ukernels.h -- "indirect" GEMM micro-kernels for the forward convolution
 * (conv_fast_fwd_f32.c): the A operand is read in place through row pointers instead of
 * from a packed micro-panel.
 *
 * A call computes one MR x NR tile of C from nseg segments of the reduction:
 *
 *     C[i][j] = alpha * acc[i][j] + beta * C[i][j]              for i < mr, j < nr
 *     acc[i][j] = sum over s = 0 .. nseg-1, then p = 0 .. seg[s].kc-1, in that order, of
 *                 seg[s].rows[row0 + i][seg[s].off + p] * b[(k_s + p) * b_stride + j]
 *
 * where k_s is the sum of the kc of the earlier segments (B's rows run on across segments).
 * A row of a segment is a run of one row of the user's data: a position's channels of an
 * NHWC-like x (one filter tap per segment), or a filter row; a row that reads padding, or a
 * row past mr, points at zeros.  All MR rows may be read (rows[row0 + i] for every i < MR must
 * be readable for off + kc elements; the AVX-512 kernel reads only 4, 7 or 10 of them when
 * mr is that small), only mr are stored.  b is a packed panel (b_stride = NR)
 * or any array of rows.  beta == 0 means C is not read.
 *
 * The accumulation is that of the packed kernels (gemm-ukernels.h): acc starts at 0 and takes
 * one fused multiply-add per (s, p) in order (AVX2, AVX-512), or a rounded product then a
 * rounded sum (scalar).  So an indirect call and a packed call over the same reduction give
 * the same bits, and the AVX2 and AVX-512 kernels agree with each other.
 */
#ifndef HD_KERNELS_IGEMM_IGEMM_UKERNELS_H
#define HD_KERNELS_IGEMM_IGEMM_UKERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"

typedef struct {
    const float *const *rows;   /* row pointers; rows[row0 + i] is row i of the tile */
    int64_t off;                /* elements added to every row pointer */
    int64_t kc;                 /* reduction steps of this segment */
} hd_igemm_seg;

/* A segment whose MR rows are equally spaced: row i starts at (char *)a + i * d (d in bytes,
 * 0 when every row is the zero row).  Equivalent to an hd_igemm_seg whose row pointers are
 * those addresses; kernels that take it need no table of row pointers. */
typedef struct {
    const float *a;             /* row 0 of the tile, at the segment's first step */
    ptrdiff_t d;                /* bytes from one row to the next */
    int64_t kc;                 /* reduction steps of this segment */
} hd_igemm_sseg;

typedef void (*hd_f32_igemm_fn)(size_t mr, size_t nr, size_t nseg, const hd_igemm_seg *seg, size_t row0,
                                const float *b, size_t b_stride, float *c, size_t ldc, float alpha, float beta);

void hd_f32_igemm_ukernel_4x4__scalar(size_t mr, size_t nr, size_t nseg, const hd_igemm_seg *seg, size_t row0,
                                      const float *b, size_t b_stride, float *c, size_t ldc, float alpha, float beta);
void hd_f32_igemm_ukernel_6x16__avx2(size_t mr, size_t nr, size_t nseg, const hd_igemm_seg *seg, size_t row0,
                                     const float *b, size_t b_stride, float *c, size_t ldc, float alpha, float beta);
void hd_f32_igemm_ukernel_14x32__avx512(size_t mr, size_t nr, size_t nseg, const hd_igemm_seg *seg, size_t row0,
                                        const float *b, size_t b_stride, float *c, size_t ldc, float alpha, float beta);
void hd_f32_igemm_ukernel_14x32_pfa__avx512(size_t mr, size_t nr, size_t nseg, const hd_igemm_seg *seg, size_t row0,
                                            const float *b, size_t b_stride, float *c, size_t ldc, float alpha,
                                            float beta);

typedef void (*hd_f32_igemm_strided_fn)(size_t mr, size_t nr, size_t nseg, const hd_igemm_sseg *seg, const float *b,
                                        size_t b_stride, float *c, size_t ldc, float alpha, float beta);

void hd_f32_igemm_ukernel_14x32_strided__avx512(size_t mr, size_t nr, size_t nseg, const hd_igemm_sseg *seg,
                                                const float *b, size_t b_stride, float *c, size_t ldc, float alpha,
                                                float beta);

typedef struct {
    const char *name;
    hd_isa_t isa;               /* lowest ISA that may run it */
    size_t mr, nr;              /* the tile: the same as the packed kernel of that ISA */
    hd_f32_igemm_fn fn;         /* A rows mostly in the caches */
    hd_f32_igemm_fn fn_stream;  /* the same results, for A rows streamed from memory (prefetched) */
    hd_f32_igemm_strided_fn fn_strided; /* the same results from equally spaced rows; NULL: none */
} hd_igemm_kernel;

/* Tile rows [row0, row0 + mr_full) of segments sg as equally spaced segments (ss), when in
 * every segment each row is the same number of bytes after the one before -- an x row's
 * positions inside x, or the zero row throughout.  The same addresses either way, so the
 * strided kernel reads exactly what the pointer kernel would.  Returns 0 when some segment
 * is not so (a border patch, a tile across two result rows), or there are more than nmax. */
static inline int hd_igemm_strided_segments(const hd_igemm_seg *sg, size_t nsg, size_t row0, size_t mr_full,
                                            hd_igemm_sseg *ss, size_t nmax)
{
    if (nsg > nmax || mr_full < 2)
        return 0;
    for (size_t s = 0; s < nsg; s++) {
        const float *const *r = sg[s].rows + row0;
        uintptr_t r0 = (uintptr_t)r[0];
        uintptr_t d = (uintptr_t)r[1] - r0;   /* modulo arithmetic: a negative step works too */
        for (size_t i = 2; i < mr_full; i++)
            if ((uintptr_t)r[i] != r0 + (uintptr_t)i * d)
                return 0;
        ss[s].a = r[0] + sg[s].off;
        ss[s].d = (ptrdiff_t)d;
        ss[s].kc = sg[s].kc;
    }
    return 1;
}

/* The kernel for ISA (the best with kernel->isa <= isa, ISA lowered to what the CPU
 * allows); its tile equals that of
 * hd_gemm_kernel_for(sizeof(float), isa). */
const hd_igemm_kernel *hd_igemm_kernel_for(hd_isa_t isa);
/* All of them, scalar first (for the tests). */
const hd_igemm_kernel *hd_igemm_kernels(size_t *count);

#endif
