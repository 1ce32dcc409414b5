/*
 * kernels/dot/dot-ukernels.h -- "dot" micro-kernels: both GEMM operands are rows read in
 * place, and the reduction runs along the rows (vectors of 16 consecutive reduction steps),
 * so neither side is ever transposed or packed.  Used by the forward convolution at batch 1
 * when the filter is too large to stay cached (conv_fwd_dot_f32.c): the filter's rows are
 * read straight from the user's tensor as long contiguous streams, where the outer-product
 * kernels need them transposed first.
 *
 A call adds nseg segments of kc reduction steps each to an MR x NR tile of 16-lane
 * partial sums.  Segment g reads x rows x[g*xstride + i] (i < MR) from their start and the
 * w rows' steps g*kc .. g*kc+kc-1 (w[j] + g*kc: a filter row runs on across segments, while
 * a position's row may jump, e.g. from one tap's channels to the next tap's):
 *
 *     part[(i*NR + j)*16 + l] (+)= sum over g, then s < kc with s % 16 == l, in that order, of
 *                                  x[g*xstride + i][s] * w[j][g*kc + s]
 *
 * with one fused multiply-add per step (AVX2, AVX-512) or a rounded product then a rounded
 * sum (scalar); first != 0 starts from zero instead of reading part.  Steps past kc in a
 * segment's last 16 are taken as 0 * 0 (the loads are zero-filled, never past the rows'
 * ends).  Every lane is one chain in step order, so splitting a reduction into calls at
 * segment boundaries never changes a bit, and the AVX2 kernel (two 8-lane halves) gives the
 * AVX-512 kernel's bits.  hd_f32_dot_fold then sums the 16 lanes in one fixed tree.
 */
#ifndef HD_KERNELS_DOT_DOT_UKERNELS_H
#define HD_KERNELS_DOT_DOT_UKERNELS_H

#include <stddef.h>

#include "core/cpu.h"

#define HD_DOT_LANES 16

typedef void (*hd_f32_dot_fn)(size_t kc, size_t nseg, const float *const *x, size_t xstride, const float *const *w,
                              float *part, int first);

void hd_f32_dot_ukernel_2x2__scalar(size_t kc, size_t nseg, const float *const *x, size_t xstride,
                                    const float *const *w, float *part, int first);
void hd_f32_dot_ukernel_3x3__avx2(size_t kc, size_t nseg, const float *const *x, size_t xstride, const float *const *w,
                                  float *part, int first);
void hd_f32_dot_ukernel_5x5__avx512(size_t kc, size_t nseg, const float *const *x, size_t xstride,
                                    const float *const *w, float *part, int first);

typedef struct {
    const char *name;
    hd_isa_t isa;               /* lowest ISA that may run it */
    size_t mr, nr;              /* x rows, w rows per call */
    hd_f32_dot_fn fn;
} hd_dot_kernel;

/* The kernel for ISA (the best with kernel->isa <= isa, ISA lowered to what the CPU
 * allows). */
const hd_dot_kernel *hd_dot_kernel_for(hd_isa_t isa);
/* All of them, scalar first (for the tests). */
const hd_dot_kernel *hd_dot_kernels(size_t *count);

/* The sum of 16 partial lanes, always in the same order: lanes l and l+8, then l and l+4,
 * l and l+2, then the last two. */
static inline float hd_f32_dot_fold(const float *v)
{
    float a[8];
    for (int l = 0; l < 8; l++)
        a[l] = v[l] + v[l + 8];
    for (int l = 0; l < 4; l++)
        a[l] = a[l] + a[l + 4];
    a[0] = a[0] + a[2];
    a[1] = a[1] + a[3];
    return a[0] + a[1];
}

#endif
