/*
 * Forward fp32 convolution (solver 150, conv/solvers/conv_fast.h): blocked implicit GEMM
 * that drives the GEMM micro-kernels (kernels/gemm/gemm-ukernels.h) itself.
 *
 * Per group, y[K x P] = w[K x CRS] * col[CRS x P].  The reduction index r runs over
 * (channel, tap) when x's positions are contiguous (NCHW-like) and over (tap, channel)
 * when its channels are (NHWC-like), so that a run of the gathered data is a run of x.
 *
 *  - The filter is packed ONCE per call into the micro-kernel's A layout: per group, per k
 *    block, micro-panels of MR result channels (kc x MR, k-major, zero rows past K).
 *  - Tasks are (group, position block, result-channel block).  Per k block a task gathers
 *    its im2col columns straight into NR-wide B micro-panels (kc x NR, the layout the
 *    micro-kernel reads) -- or, for a 1x1 unit-stride unpadded NCHW convolution, hands the
 *    micro-kernel x itself (b_stride = channel stride, no copy at all) -- then runs the
 *    micro-kernel over the block, A micro-panel in L1, B block and C block in L2.
 *  - Results go straight into y when its positions are contiguous (the first k block
 *    applies alpha and beta, later ones add).  Otherwise (NHWC-like or odd strides, blocks
 *    that span images, the fused bias/activation epilogue) they accumulate in the task's
 *    private buffer and the epilogue writes them once.
 *  - NHWC-like x: the roles swap (y^T = col^T w^T).  The indirect kernel reads MR positions'
 *    rows of x (channels contiguous) through a table of row pointers and the packed filter
 *    is the B side, NR result channels wide; results go straight into y when its channels
 *    are contiguous.
 *
 * At batch 1 (one or two position blocks per group) each task packs the filter tiles it uses
 * right before use instead, A or (swapped) B tiles (the filter is then read once and its
 * packed copy never leaves the cache).  At most 64 positions over the batch with a long
 * reduction and a filter too large to stay cached (the 7x7 layers at batch 1) go to the
 * "dot" plan instead (conv_fwd_dot_f32.c), which reads the filter rows in place.  Small
 * groups (depthwise) share a task, so that the per-block work is not repeated per group.
 *
 * Every element of y is reduced over the same k blocks (a function of CRS only) in order,
 * each by one micro-kernel call in k order, and its epilogue does not depend on the
 * partition: results are bitwise identical for every thread count, and between the AVX2 and
 * AVX-512 kernels (both fused multiply-add).  The partition itself depends on the problem
 * only.  Tasks take one of FW_SLOTS scratch areas by thread index, so the workspace does
 * not depend on the thread count; at most FW_SLOTS threads are used.
 */
#include "conv/solvers/conv_fast.h"

#include "core/parallel.h"
#include "conv/solvers/conv_fwd_dot.h"
#include "kernels/conv/im2col-ukernels.h"
#include "conv/conv_internal.h"
#include "kernels/igemm/igemm-ukernels.h"
#include "kernels/gemm/gemm-ukernels.h"

#include <stdint.h>
#include <string.h>

#define FW_SLOTS 8
#define FW_KC 256          /* most reduction rows per k block (sets the rounding: never ISA-dependent) */
#define FW_NC 256          /* target positions per block */
#define FW_MC 512          /* most result channels per block */
#define FW_UNIT 32         /* position blocks are multiples of this (every kernel's tile width divides it) */
#define FW_SMALL_IMAGE 128 /* images with fewer positions are blocked across images */
#define FW_MIN_TASKS 4     /* cut small problems finer, down to this many tasks (each channel
                              block gathers the same columns again: not too fine) */
#define FW_X_CACHED (1 << 20) /* x of at most this many bytes is read in place by 1x1 blocks */
#define FW_SMALL_FILTER 16384 /* packed filters up to this many floats are packed by each task */
#define FW_GROUP_WORK 16384 /* groups per task: at least this many filter values (M x CRS) */
#define FW_FILTER_CACHED (1 << 20) /* filters read in place up to this many bytes stay cached between
                                         tiles: no prefetch of their rows (it cost 5-8% of the k loop) */
#define FW_SSEG_MAX 64     /* most segments a strided kernel call takes (more: the pointer kernel) */
#define FW_PF_ROWS 4       /* x's lines of a new channel are prefetched this many panel rows ahead */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t rup(int64_t a, int64_t b) { return cdiv(a, b) * b; }
static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/* A piece of a position block whose source offsets are affine: positions [j, j+len) read
 * x at off + k * str[2]*xs[4] (+ the channel and tap parts; padding not yet applied). */
typedef struct {
    int64_t j, len, off;
} fw_seg;

/* ---------------- the plan: a function of the problem (and the kernel's tile) ---------------- */

typedef struct {
    const hd_gemm_kernel *kern;
    int64_t MR, NR;
    int pix;                      /* x's channels contiguous: reduction order (tap, channel), and the
                                     roles swap (positions the A side, read from x in place) */
    int64_t M, R, P;              /* result channels per group, reduction length, positions per image */
    int64_t nkb, kc;              /* k blocks: block b is rows [b*kc, min(R, (b+1)*kc)) */
    int64_t AR, BR;               /* tile rows/cols of the (channel, position) side: MR/NR or NR/MR */
    int64_t Mpad;                 /* M rounded up to the channel side's tile */
    int64_t mb, nmb;              /* result channels per block (a multiple of the tile), blocks */
    int64_t nc, npb;              /* positions per block, blocks (per image; over all images when cross) */
    int64_t ncpad;                /* nc rounded up to the position side's tile */
    int cross;                    /* position blocks run across images */
    int direct_b;                 /* 1x1 NCHW: x itself is the B panel */
    int a_late;                   /* filter tiles packed by the task that uses them, into its slot */
    int b_late;                   /* swapped, the same: each task packs its B tiles of a k block */
    int a_direct;                 /* a_late, and the kernel reads the filter rows in place instead */
    int a_stream;                 /* a_direct with a filter too large to stay cached: the kernel's
                                     streaming entry, which prefetches those rows */
    int a_copy;                   /* a_late, rows contiguous but aliasing in L1: copied per tile
                                     with a padded stride (no transpose), read by the indirect kernel */
    int x_copy;                   /* swapped, x's position rows aliasing in L1 (C = 1024: 4 KiB
                                     apart): a tile's MR rows of a k block are copied, padded */
    int64_t gpt;                  /* groups per task */
    int cbuf;                     /* results go through the task's buffer and the epilogue */
    int64_t slot;                 /* floats of one scratch slot: panel, result buffer, segments, bits */
    int64_t buf_at, seg_at, bits_at, abuf_at, bpack_at, bstride;
    int64_t tab_at, zero_at, iseg_at; /* pix: row-pointer table; zero row; kernel segments */
    int64_t patch_at;             /* wide: copies of the runs that a border cuts */
    int wide;                     /* pix with one table entry per filter row (x_wide) */
    int64_t rl, nunits;           /* pix: run length (Cg, or S*Cg when wide) and runs per position */
} fw_plan;

/* Reduction order (tap, channel) when x's channels are contiguous and there are enough of
 * them to make runs worth copying; with few (conv1: 3) the (channel, tap) order and strided
 * position runs are cheaper. */
static int x_wide(const hd_conv_problem *p);
static int x_pix(const hd_conv_problem *p) { return p->xs[1] == 1 && p->xs[4] != 1 && (p->Cg >= 8 || x_wide(p)); }

/* Few channels (conv1: 3) whose pixels are dense along w: the S taps of one filter row are
 * one run of S*Cg floats of x, so the row table holds one pointer per filter row, not per
 * tap (runs of 3 would make kernel segments too short).  A run that a border cuts is
 * copied, zero-filled, into the task's scratch. */
static int x_wide(const hd_conv_problem *p)
{
    return p->xs[1] == 1 && p->Cg < 16 && p->flt[2] > 1 && p->dil[2] * p->xs[4] == p->Cg && p->CRS <= 1024;
}

/* Positions of a tensor (strides s, dims d) addressed as pos * s[4]. */
static int linear_positions(const int64_t s[5], const int64_t d[3])
{
    return (d[1] == 1 || s[3] == d[2] * s[4]) && (d[0] == 1 || s[2] == d[1] * d[2] * s[4]);
}

static int filter_rows_contiguous(const hd_conv_problem *p, int pix);

static fw_plan plan_fw(const hd_conv_problem *p)
{
    fw_plan L;
    L.kern = hd_gemm_kernel_for(sizeof(float), hd_cpu_isa());
    L.MR = (int64_t)L.kern->mr;
    L.NR = (int64_t)L.kern->nr;
    L.pix = x_pix(p);
    L.wide = L.pix && x_wide(p) && p->Cg < 8;
    L.rl = L.wide ? p->flt[2] * p->Cg : p->Cg;
    L.nunits = L.wide ? p->flt[0] * p->flt[1] : p->TRS;
    L.M = p->Kg;
    L.R = p->CRS;
    L.P = p->P;
    L.nkb = cdiv(L.R, FW_KC);
    L.kc = cdiv(L.R, L.nkb);
    /* Small images, and images whose positions leave a last panel mostly empty (14x14: 196
     * = 6 x 32 + 4) when the reduction is long enough to pay for the result buffer, are
     * blocked across images.  (Not for NHWC-like x, whose positions are the 14-, 6- or 4-row
     * side: the rule may not depend on the ISA, as the store path sets the rounding.) */
    int64_t ppad = rup(L.P, FW_UNIT);
    L.cross = p->N > 1 && (L.P < FW_SMALL_IMAGE || (!L.pix && (ppad - L.P) * 16 > ppad && L.R >= 128));
    /* NHWC-like x: positions are the A side (MR rows read from x in place), the filter the B
     * side.  With few position blocks (batch 1) each task packs the B tiles of the filter it
     * uses per k block (b_late), so the filter is read once and its packed copy stays in
     * cache.  The 7x7 layers at batch 1 used to keep the filter as the A side, read in place;
     * swapped they ran 1.1x faster on AVX-512 and 1.5x on AVX2 (their 49 positions fill 56 rows
     * of four 14-row A tiles instead of 64 lanes of two 32-wide B tiles). */
    L.AR = L.pix ? L.NR : L.MR;      /* channel side tile */
    L.BR = L.pix ? L.MR : L.NR;      /* position side tile */
    L.Mpad = rup(L.M, L.AR);
    L.direct_b = 0;
    if (!L.pix && !L.cross && p->TRS == 1 && p->xs[4] == 1 && linear_positions(p->xs, p->in)) {
        L.direct_b = 1;
        for (int j = 0; j < 3; j++)
            if (p->pad[j] || p->str[j] != 1 || p->in[j] != p->out[j])
                L.direct_b = 0;
    }
    /* blocks */
    int64_t Q = L.cross ? p->N * L.P : L.P;
    /* swapped, the positions are the MR side: blocks of whole MR tiles (the blocks only pick
       which kernel call computes a position, never its rounding) */
    int64_t unit = L.pix ? L.BR : FW_UNIT;
    L.npb = cdiv(Q, FW_NC);
    L.nc = imin(rup(cdiv(Q, L.npb), unit), Q);
    L.npb = cdiv(Q, L.nc);
    /* x read in place (1x1): a whole image per block when an image of x and of the results
       each fit in FW_X_CACHED -- the kernel then walks each of x's channel rows as one long
       run, which the hardware prefetcher follows, where blocks of 256 positions were copied
       (res2 1x1 NCHW at batch 16, two threads: 1.9 -> 1.4 ms; blocks of 256 read in place
       1.6).  The blocks never change a result's rounding. */
    if (L.direct_b && p->N > 1 && p->C * L.P * (int64_t)sizeof(float) <= FW_X_CACHED &&
        rup(L.M, 16) * rup(L.P, FW_UNIT) * (int64_t)sizeof(float) <= FW_X_CACHED) {
        L.nc = L.P;
        L.npb = 1;
    }
    L.nmb = cdiv(L.M, FW_MC);
    L.mb = rup(cdiv(L.M, L.nmb), L.AR);
    L.nmb = cdiv(L.M, L.mb);
    /* groups per task: enough that a task multiplies at least FW_GROUP_WORK filter values */
    L.gpt = imin(p->G, cdiv(FW_GROUP_WORK, L.M * L.R));
    int64_t per_group = L.cross ? L.npb : p->N * L.npb;
    for (;;) {
        int64_t tasks = cdiv(p->G, L.gpt) * per_group * L.nmb;
        if (tasks >= FW_MIN_TASKS)
            break;
        if (L.mb > 128) {
            L.mb = rup(cdiv(L.mb, 2), L.AR);
        } else if (L.nc >= 128) {
            L.nc = rup(cdiv(L.nc, 2), unit);
            L.npb = cdiv(Q, L.nc);
        } else if (L.mb >= 2 * L.AR) {
            L.mb = rup(cdiv(L.mb, 2), L.AR);
        } else {
            break;
        }
        L.nmb = cdiv(L.M, L.mb);
        per_group = L.cross ? L.npb : p->N * L.npb;
    }
    L.ncpad = rup(L.nc, L.BR);
    /* x is read in place only when a block is a whole image (its rows are then one
     * contiguous stream, which the hardware prefetcher follows) or x is small enough to stay
     * in L2 between calls; otherwise a block of a larger image would be read as short rows a
     * channel plane apart, which missed the caches in the micro-kernel -- such blocks are
     * copied instead (a contiguous copy per row). */
    if (L.nc != L.P && p->N * p->C * p->Q * (int64_t)sizeof(float) > FW_X_CACHED)
        L.direct_b = 0;
    /* With at most two position blocks per group (batch 1) a filter tile serves one or two
     * tasks: each task packs its tiles right before use (the filter is read once, no packed
     * copy written and read back -- at batch 1 the filter is most of the memory traffic).
     * A small filter whose rows are contiguous is packed late too: packing it again per task
     * costs less than a parallel pass (a fork and join) of its own. */
    L.a_late = !L.pix && (per_group <= 2 ||
                           (p->G * L.Mpad * L.R <= FW_SMALL_FILTER && filter_rows_contiguous(p, 0)));
    int contiguous = L.a_late && filter_rows_contiguous(p, 0);
    L.a_direct = contiguous && hd_conv_rows_spread(p->wst[0], L.MR);
    L.a_copy = contiguous && !L.a_direct;
    L.a_stream = L.a_direct && p->G * L.M * L.R * (int64_t)sizeof(float) > FW_FILTER_CACHED;
    L.x_copy = L.pix && !hd_conv_rows_spread(p->xs[4] * p->str[2], L.MR);
    L.b_late = L.pix && per_group <= 2;
    L.cbuf = 0;
    L.slot = 0;
    return L;
}

/* Whether results go through the buffer: positions not contiguous in y (or channels, when
 * swapped), blocks across images, or the fused epilogue (z may be y itself). */
static int fw_cbuf(const hd_conv_problem *p, const fw_plan *L, int fused)
{
    if (fused || L->cross || !linear_positions(p->ys, p->out))
        return 1;
    return L->pix ? p->ys[1] != 1 : p->ys[4] != 1;
}

/* Most kernel segments of one k block (swapped): runs of channels of one tap. */
static int64_t fw_nseg_max(const fw_plan *L) { return imin(L->nunits, cdiv(L->kc, L->rl) + 1); }

/* Floats of the zero row: a run of x (pix), a k block of a filter row (a_direct). */
static int64_t fw_nzero(const fw_plan *L) { return imax(L->pix ? L->rl : 0, L->a_direct ? L->kc : 0); }

/* Row stride of the copied filter rows (a_copy) or x rows (x_copy): off the 4 KiB multiples. */
static int64_t fw_acopy_ld(const fw_plan *L) { return L->kc + 16; }

/* A tile's rows of one k block, given as kernel segments (rows[row0 + i]), copied one after
 * another into DST rows LD floats apart, for A rows that in place would share L1 sets; OUT
 * (which may be the segments' own row table) then points at the copies.  Rows from ROWS up to
 * MR are read by the kernel but never stored: they point at the first copy.  The copies hold
 * the same values in the same order, so the kernel gives the same bits. */
static void copy_tile_rows(const hd_igemm_seg *sg, size_t nsg, size_t row0, size_t rows, size_t MR, float *dst,
                           int64_t ld, const float **out)
{
    for (size_t i = 0; i < rows; i++) {
        float *d = dst + (int64_t)i * ld;
        for (size_t k = 0; k < nsg; k++) {
            memcpy(d, sg[k].rows[row0 + i] + sg[k].off, sizeof(float) * (size_t)sg[k].kc);
            d += sg[k].kc;
        }
    }
    for (size_t i = 0; i < MR; i++)
        out[i] = dst + (int64_t)(i < rows ? i : 0) * ld;
}

/* Wide: floats of the border spans of one tile (wide_tile_units), every filter row. */
static int64_t fw_wide_span(const hd_conv_problem *p, const fw_plan *L)
{
    return L->nunits * ((L->MR - 1) * p->str[2] + (p->flt[2] - 1) * p->dil[2] + 1) * p->Cg;
}

/* Packed filter (G x Mpad x R), then FW_SLOTS x (gathered panel, result buffer).  The
 * workspace books the result buffer whenever any epilogue could need it. */
static hd_conv_layout layout_fw(const hd_conv_problem *p, fw_plan *L)
{
    L->bstride = cdiv(L->nc, 8) + 8;
    /* swapped: no gathered panel; the kernel reads x through a table of row pointers (one per
       position and tap, per block), rows in the padding point at a zero row of Cg floats */
    L->tab_at = L->pix ? 0 : rup(L->kc * (L->direct_b ? FW_UNIT : L->ncpad), 16);   /* direct_b: the last panel */
    L->zero_at = L->tab_at + (L->pix ? rup(cdiv(L->nunits * L->ncpad * (int64_t)sizeof(float *), (int64_t)sizeof(float)), 16) : 0);
    L->iseg_at = L->zero_at + rup(fw_nzero(L), 16);
    L->patch_at = L->iseg_at + (L->pix ? rup(fw_nseg_max(L) * (int64_t)(sizeof(hd_igemm_seg) / sizeof(float)), 16) : 0);
    L->buf_at = L->patch_at + (L->wide ? rup(imax(L->ncpad * L->R, fw_wide_span(p, L)), 16) : 0);
    L->seg_at = L->buf_at + rup(fw_cbuf(p, L, 1) ? L->mb * L->ncpad : 0, 16);
    L->bits_at = L->seg_at + rup((L->nc + 1) * (int64_t)(sizeof(fw_seg) / sizeof(float)), 16);
    L->abuf_at = L->bits_at + rup(cdiv(p->TRS * L->bstride, (int64_t)sizeof(float)), 16);
    L->bpack_at = L->abuf_at + (L->a_copy ? rup(L->AR * fw_acopy_ld(L), 16)
                                : L->x_copy ? rup(L->BR * fw_acopy_ld(L), 16)
                                : L->a_late && !L->a_direct ? rup(L->kc * L->AR, 16) : 0);
    L->slot = L->bpack_at + (L->b_late ? rup(L->kc * L->mb, 16) : 0);
    hd_conv_layout W = {{0}, 0};
    hd_conv_book(&W, 0, L->a_late || L->b_late ? 0 : p->G * L->Mpad, L->R, sizeof(float));
    hd_conv_book(&W, 1, FW_SLOTS, L->slot, sizeof(float));
    return W;
}

/* ---------------- the execution context ---------------- */

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    fw_plan L;
    const float *x, *w;
    float *y;
    float *apack, *slots;
    int cbuf;
    hd_conv_mrun_fn mrun;
    hd_conv_cols_fn cols;
    hd_f32_igemm_fn ik;             /* the indirect kernel (swapped, a_copy), tile MR x NR as kern */
    hd_f32_igemm_fn ik_stream;      /* its entry for filter rows read in place (a_direct) */
    hd_f32_igemm_strided_fn ik_strided; /* its entry for equally spaced rows; NULL: none */
    int wide_tiles;                 /* wide x through ik_strided, tile by tile, no row table */
} fw_ctx;

/* Source coordinate along spatial dim j for output coordinate o and tap t; -1 outside. */
static inline int64_t src_coord(const hd_conv_problem *p, int j, int64_t o, int64_t t)
{
    int64_t i = o * p->str[j] - p->pad[j] + t * p->dil[j];
    return i >= 0 && i < p->in[j] ? i : -1;
}

/* Filter offset of reduction row r (channel and tap of the group, flip applied) for k = 0. */
static int64_t w_row_off(const hd_conv_problem *p, int pix, int64_t r)
{
    int64_t ch, tap;
    if (pix)
        tap = r / p->Cg, ch = r % p->Cg;
    else
        ch = r / p->TRS, tap = r % p->TRS;
    int64_t s = tap % p->flt[2], rr = (tap / p->flt[2]) % p->flt[1], t = tap / (p->flt[2] * p->flt[1]);
    return hd_conv_w_off(p, 0, ch, t, rr, s);
}

/* The filter rows are contiguous in the reduction order (no flip): row k at w + k*wst[0]. */
static int filter_rows_contiguous(const hd_conv_problem *p, int pix)
{
    const int64_t *ws = p->wst;
    int64_t S = p->flt[2], RS = p->flt[1] * S;
    if (p->flip)
        return 0;
    if (!pix)
        return ws[4] == 1 && ws[3] == S && ws[2] == RS && ws[1] == p->TRS;
    return ws[1] == 1 && ws[4] == p->Cg && ws[3] == S * p->Cg && ws[2] == RS * p->Cg;
}

/*
 * Packing of (g, k block, channel tile): channels ch0 .. ch0+tile-1 of group g, rows of
 * the k block.  Not swapped: an A micro-panel, dst[p*MR + i].  Swapped: a B micro-panel,
 * dst[p*NR + j].  Both are "k-major, tile values per k step"; rows past M are zero.
 */
static void pack_w_tile(const fw_ctx *c, int64_t g, int64_t kb, int64_t q, float *dst)
{
    const hd_conv_problem *p = c->p;
    const fw_plan *L = &c->L;
    int64_t T = L->AR;
    int64_t r0 = kb * L->kc, kcb = imin(L->kc, L->R - r0);
    int64_t rows = imin(T, L->M - q * T);
    int64_t k0 = g * p->Kg + q * T;
    const float *w = c->w;
    int64_t ldw = p->wst[0];
    if (filter_rows_contiguous(p, L->pix)) {
        /* rows of at most 16 filters at a time, transposed (in registers with AVX-512) */
        for (int64_t i0 = 0; i0 < T; i0 += 16) {
            const float *src[16];
            int64_t n16 = imin(16, T - i0);
            for (int64_t i = 0; i < n16; i++)
                src[i] = i0 + i < rows ? w + (k0 + i0 + i) * ldw + r0 : NULL;
            c->cols(dst + i0, T, n16, src, kcb);
        }
        return;
    }
    for (int64_t pp = 0; pp < kcb; pp++) {
        const float *src = w + k0 * ldw + w_row_off(p, L->pix, r0 + pp);
        float *d = dst + pp * T;
        for (int64_t i = 0; i < rows; i++)
            d[i] = src[i * ldw];
        for (int64_t i = rows; i < T; i++)
            d[i] = 0;
    }
}

static void pack_w_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    fw_ctx *c = vctx;
    const fw_plan *L = &c->L;
    int64_t tiles = L->Mpad / L->AR, t = (int64_t)task;
    int64_t q = t % tiles, kb = (t / tiles) % L->nkb, g = t / (tiles * L->nkb);
    int64_t r0 = kb * L->kc, kcb = imin(L->kc, L->R - r0);
    pack_w_tile(c, g, kb, q, c->apack + g * L->Mpad * L->R + r0 * L->Mpad + q * kcb * L->AR);
}

/* A position cursor: global index q (image-major when blocks cross images). */
typedef struct {
    int64_t n, od, oh, ow;
} poscur;

static poscur pos_at(const hd_conv_problem *p, int64_t n, int64_t q)
{
    poscur u;
    u.n = n + q / p->P;
    q %= p->P;
    u.ow = q % p->out[2];
    u.oh = (q / p->out[2]) % p->out[1];
    u.od = q / (p->out[2] * p->out[1]);
    return u;
}

static inline void pos_advance(const hd_conv_problem *p, poscur *u, int64_t cnt)
{
    u->ow += cnt;
    if (u->ow == p->out[2]) {
        u->ow = 0;
        if (++u->oh == p->out[1]) {
            u->oh = 0;
            if (++u->od == p->out[0])
                u->od = 0, u->n++;
        }
    }
}

/* Plain C versions of the panel copies (im2col-ukernels.h). */
static void cols_c(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt)
{
    for (int64_t i = 0; i < T; i++) {
        const float *s = src[i];
        for (int64_t k = 0; k < cnt; k++)
            dst[k * ld + i] = s ? s[k] : 0.0f;
    }
}

static void mrun_c(float *d, const float *src, int64_t step, const uint8_t *bits, int64_t bit0, int64_t cnt)
{
    for (int64_t k = 0; k < cnt; k++)
        d[k] = (bits[(bit0 + k) >> 3] >> ((bit0 + k) & 7)) & 1 ? src[k * step] : 0.0f;
}

/* Set bits [from, to) of B. */
static void set_bits(uint8_t *b, int64_t from, int64_t to)
{
    for (; from < to && (from & 7); from++)
        b[from >> 3] |= (uint8_t)(1u << (from & 7));
    if (to - from >= 8) {
        memset(b + (from >> 3), 0xFF, (size_t)((to - from) >> 3));
        from += (to - from) & ~(int64_t)7;
    }
    for (; from < to; from++)
        b[from >> 3] |= (uint8_t)(1u << (from & 7));
}

/*
 * The geometry of positions [q0, q0+nq) from image n, shared by every channel: its
 * segments (output rows, merged while the source stays affine -- a whole image for a
 * stride-1 "same" convolution) and, per tap, one bit per position: its source lies inside
 * x (not in the padding).  Returns the number of segments.
 */
static int64_t block_geometry(const fw_ctx *c, int64_t n, int64_t q0, int64_t nq, fw_seg *seg, uint8_t *bits,
                              int64_t bstride)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ss = p->xs, step = p->str[2] * ss[4];
    int64_t ns = 0;
    poscur u = pos_at(p, n, q0);
    memset(bits, 0, (size_t)(p->TRS * bstride));
    for (int64_t j = 0; j < nq;) {
        int64_t len = imin(p->out[2] - u.ow, nq - j);
        int64_t off = u.n * ss[0] + (u.od * p->str[0] - p->pad[0]) * ss[2] + (u.oh * p->str[1] - p->pad[1]) * ss[3] +
                      (u.ow * p->str[2] - p->pad[2]) * ss[4];
        if (ns && seg[ns - 1].off + seg[ns - 1].len * step == off) {
            seg[ns - 1].len += len;
        } else {
            seg[ns].j = j, seg[ns].len = len, seg[ns].off = off;
            ns++;
        }
        uint8_t *b = bits;
        for (int64_t t = 0; t < p->flt[0]; t++)
            for (int64_t rr = 0; rr < p->flt[1]; rr++)
                for (int64_t s = 0; s < p->flt[2]; s++, b += bstride) {
                    if (src_coord(p, 0, u.od, t) < 0 || src_coord(p, 1, u.oh, rr) < 0)
                        continue;
                    int64_t base = u.ow * p->str[2] + s * p->dil[2] - p->pad[2];   /* iw of position j */
                    int64_t lo = base >= 0 ? 0 : cdiv(-base, p->str[2]);
                    int64_t hi = base > p->in[2] - 1 ? 0 : imin((p->in[2] - 1 - base) / p->str[2] + 1, len);
                    set_bits(b, j + lo, j + hi);
                }
        j += len;
        pos_advance(p, &u, len);
    }
    return ns;
}

/*
 * NCHW-like gather: reduction rows [r0, r0+kcb) x the block's positions (geometry above) of
 * group channel base chb, row-major: (row pp, column j) at dst[pp*ld + j]; columns from nq
 * up to the next multiple of NR are zero.
 */
static void gather_b_rows(const fw_ctx *c, const fw_seg *seg, int64_t ns, const uint8_t *bits, int64_t bstride,
                          int64_t chb, int64_t r0, int64_t kcb, int64_t nq, float *dst, int64_t ld)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ss = p->xs, TRS = p->TRS, step = p->str[2] * ss[4];
    hd_conv_mrun_fn mrun = c->mrun;
    int64_t tail = rup(nq, c->L.NR) - nq;
    for (int64_t pp = 0; pp < kcb; pp++) {
        int64_t r = r0 + pp, ch = r / TRS, tap = r % TRS;
        int64_t s = tap % p->flt[2], rr = (tap / p->flt[2]) % p->flt[1], t = tap / (p->flt[2] * p->flt[1]);
        int64_t base = (chb + ch) * ss[1] + t * p->dil[0] * ss[2] + rr * p->dil[1] * ss[3] + s * p->dil[2] * ss[4];
        const uint8_t *b = bits + tap * bstride;
        if (pp + FW_PF_ROWS < kcb && (r + FW_PF_ROWS) % TRS == 0) {
            /* a new channel FW_PF_ROWS rows ahead: ask for its lines now, as the rows of a
               block are short runs a channel plane apart that the hardware prefetcher meets
               too late (a prefetch never faults, even where the address is in the padding) */
            int64_t pb = (chb + (r + FW_PF_ROWS) / TRS) * ss[1];
            for (int64_t i = 0; i < ns; i++) {
                const char *a = (const char *)((uintptr_t)c->x + (uintptr_t)((pb + seg[i].off) * (int64_t)sizeof(float)));
                for (int64_t o = 0; o < seg[i].len * step * (int64_t)sizeof(float); o += 64)
                    __builtin_prefetch(a + o);
            }
        }
        float *d = dst + pp * ld;
        for (int64_t i = 0; i < ns; i++) {
            /* the segment's first address may lie in the padding, outside x: integer arithmetic */
            const float *src = (const float *)((uintptr_t)c->x + (uintptr_t)((base + seg[i].off) * (int64_t)sizeof(float)));
            mrun(d + seg[i].j, src, step, b, seg[i].j, seg[i].len);
        }
        for (int64_t k = 0; k < tail; k++)
            d[nq + k] = 0;
    }
}

/*
 * NHWC-like rows: the indirect kernel (swapped) reads x in place.  For every run u (a tap, or a filter row when wide) and every position j of
 * the block, tab[u * ld + j] points at the run's first float (channel 0 of group channel
 * base chb), or at ZERO when the run lies in the padding; a wide run that a border cuts is
 * copied, zero-filled, to PATCH.  Positions from nq up to ld (the last tile's unused rows)
 * point at ZERO too.  A piece [off, off + cnt) of run u is then the kernel segment
 * {tab + u * ld, off, cnt}.
 */
/* Result columns o of a row whose tap reads inside x along w: o * str - pad + tap_off in
 * [0, in), as the range [*lo, *hi) of o within [0, ow_n). */
static void inside_cols(int64_t str, int64_t pad, int64_t tap_off, int64_t in, int64_t ow_n, int64_t *lo, int64_t *hi)
{
    int64_t b = tap_off - pad; /* input column of result column 0 */
    int64_t l = b >= 0 ? 0 : cdiv(-b, str);
    int64_t h = b > in - 1 ? 0 : (in - 1 - b) / str + 1;
    *lo = imin(l, ow_n);
    *hi = imax(*lo, imin(h, ow_n));
}

/* Entries e[0, len) of one run: ZERO outside [lo, hi), inside pointers from q stepping by step. */
static void fill_run(const float **e, int64_t len, int64_t lo, int64_t hi, const float *q, int64_t step, const float *zero)
{
    for (int64_t k = 0; k < lo; k++)
        e[k] = zero;
    for (int64_t k = lo; k < hi; k++)
        e[k] = q + (k - lo) * step;
    for (int64_t k = hi; k < len; k++)
        e[k] = zero;
}

/* Wide: the entry of a filter row whose S taps a border cuts (some or all outside x): the
 * taps inside are copied, zero-filled, to *patch, which advances; ZERO when none is inside.
 * ROW is x's row (offset from base, in floats), w0 the input column of tap 0. */
static const float *wide_edge(const hd_conv_problem *p, const float *base, int64_t row, int64_t w0, const float *zero,
                              float **patch)
{
    const int64_t S = p->flt[2], cg = p->Cg, dl = p->dil[2], xs4 = p->xs[4];
    int64_t slo = w0 >= 0 ? 0 : cdiv(-w0, dl);
    int64_t shi = w0 > p->in[2] - 1 ? 0 : imin(S, (p->in[2] - 1 - w0) / dl + 1);
    if (slo >= shi)
        return zero;
    float *d = *patch;
    memset(d, 0, sizeof(float) * (size_t)(S * cg));
    for (int64_t sx = slo; sx < shi; sx++)
        memcpy(d + sx * cg, base + (row + (w0 + sx * dl) * xs4), sizeof(float) * (size_t)cg);
    *patch += S * cg;
    return d;
}

/* Wide, row table: the lines at both ends of every x row the block reads, fetched before
 * build_rows copies the runs that a border cuts.  Those copies are the block's first reads of
 * each new x row, and their misses came one after the other (conv1 from NHWC at batch 16
 * under HOSTDNN_MAX_ISA=avx2: 3% faster; the AVX-512 tile path gained nothing from it). */
static void prefetch_wide_edges(const hd_conv_problem *p, const float *xb, int64_t n, int64_t q0, int64_t nq)
{
    const int64_t *ss = p->xs;
    const int64_t run = p->flt[2] * p->Cg * (int64_t)sizeof(float);   /* bytes of a filter row's run */
    const int64_t row_bytes = p->in[2] * ss[4] * (int64_t)sizeof(float);
    poscur u = pos_at(p, n, q0);
    for (int64_t j = 0; j < nq;) {
        int64_t len = imin(p->out[2] - u.ow, nq - j);
        int64_t d0 = u.od * p->str[0] - p->pad[0], h0 = u.oh * p->str[1] - p->pad[1];
        const char *base = (const char *)(xb + u.n * ss[0]);
        for (int64_t t = 0; t < p->flt[0]; t++) {
            int64_t id = d0 + t * p->dil[0];
            for (int64_t rr = 0; id >= 0 && id < p->in[0] && rr < p->flt[1]; rr++) {
                int64_t ih = h0 + rr * p->dil[1];
                if (ih < 0 || ih >= p->in[1])
                    continue;
                const char *row = base + (id * ss[2] + ih * ss[3]) * (int64_t)sizeof(float);
                for (int64_t b = 0; b < imin(run, row_bytes); b += 64) {
                    _mm_prefetch(row + b, _MM_HINT_T0);
                    _mm_prefetch(row + row_bytes - 1 - b, _MM_HINT_T0);
                }
            }
        }
        j += len;
        pos_advance(p, &u, len);
    }
}

static void build_rows(const fw_ctx *c, int64_t n, int64_t chb, int64_t q0, int64_t nq, int64_t ld,
                       const float **tab, const float *zero, float *patch)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ss = p->xs, S = p->flt[2], str = p->str[2], dl = p->dil[2];
    const float *xb = c->x + chb * ss[1];
    const int wide = c->L.wide;
    /* One result row (a run of positions with the same n, od, oh) at a time: per tap (or per
       filter row, when wide) the positions that read inside x are one range, and their
       pointers step by the stride.  (Built per position, with a division each, the table
       cost a tenth of a 1x1 layer's time.)  Pointers are formed only inside x. */
    if (wide)
        prefetch_wide_edges(p, xb, n, q0, nq);
    poscur u = pos_at(p, n, q0);
    for (int64_t j = 0; j < nq;) {
        int64_t len = imin(p->out[2] - u.ow, nq - j);
        int64_t d0 = u.od * p->str[0] - p->pad[0], h0 = u.oh * p->str[1] - p->pad[1];
        const float *base = xb + u.n * ss[0];
        int64_t un = 0;
        for (int64_t t = 0; t < p->flt[0]; t++) {
            int64_t id = d0 + t * p->dil[0];
            int din = id >= 0 && id < p->in[0];
            for (int64_t rr = 0; rr < p->flt[1]; rr++) {
                int64_t ih = h0 + rr * p->dil[1];
                int hin = din && ih >= 0 && ih < p->in[1];
                int64_t row = id * ss[2] + ih * ss[3];
                for (int64_t sx = 0; sx < (wide ? 1 : S); sx++) {
                    const float **e = tab + un++ * ld + j;
                    int64_t lo = len, hi = len;
                    if (hin) {
                        /* wide: all S taps inside (tap 0 and tap S-1 are) */
                        int64_t lo2, hi2;
                        inside_cols(str, p->pad[2], sx * dl, p->in[2], p->out[2], &lo, &hi);
                        inside_cols(str, p->pad[2], (wide ? S - 1 : sx) * dl, p->in[2], p->out[2], &lo2, &hi2);
                        lo = imin(imax(imax(lo, lo2) - u.ow, 0), len);
                        hi = imax(imin(imin(hi, hi2) - u.ow, len), lo);
                    }
                    const float *q = base;
                    if (lo < hi)
                        q = base + (row + ((u.ow + lo) * str - p->pad[2] + sx * dl) * ss[4]);
                    fill_run(e, len, lo, hi, q, str * ss[4], zero);
                    if (wide && hin) {
                        for (int64_t k = 0; k < lo; k++)
                            e[k] = wide_edge(p, base, row, (u.ow + k) * str - p->pad[2], zero, &patch);
                        for (int64_t k = hi; k < len; k++)
                            e[k] = wide_edge(p, base, row, (u.ow + k) * str - p->pad[2], zero, &patch);
                    }
                }
            }
        }
        j += len;
        pos_advance(p, &u, len);
    }
    for (int64_t un = 0; un < c->L.nunits; un++)
        for (int64_t j = nq; j < ld; j++)
            tab[un * ld + j] = zero;
}

/* The kernel segments of k block [r0, r0 + kcb) in the (tap, channel) order: one per piece
 * of a run.  Returns their number. */
static int64_t row_segments(const fw_plan *L, const float *const *tab, int64_t ld, int64_t r0, int64_t kcb,
                            hd_igemm_seg *sg)
{
    int64_t ns = 0;
    for (int64_t r = r0; r < r0 + kcb;) {
        int64_t un = r / L->rl, off = r % L->rl, cnt = imin(L->rl - off, r0 + kcb - r);
        sg[ns].rows = tab + un * ld;
        sg[ns].off = off;
        sg[ns].kc = cnt;
        ns++;
        r += cnt;
    }
    return ns;
}

/* One line of the epilogue: cnt values v[k*vs] to y elements o[k*os] (z alike), bias
 * bias[k*bs] (bs = 0: one channel). */
static void store_line(const hd_conv_epilogue *e, float *o, const float *zz, int64_t os, const float *v, int64_t vs,
                       const float *bias, int64_t bs, int64_t cnt)
{
    float alpha = (float)e->alpha, beta = (float)e->beta, alpha2 = (float)e->alpha2;
    if (!e->fused && os == 1 && vs == 1) {
        hd_conv_scale_add(o, v, cnt, alpha, beta);   /* both contiguous (NCHW-like y from the buffer) */
        return;
    }
    if (e->fused) {
        for (int64_t k = 0; k < cnt; k++) {
            float r = alpha * v[k * vs] + bias[k * bs];
            if (alpha2 != 0)
                r += alpha2 * zz[k * os];
            if (e->relu && !(r > 0))
                r = 0;
            o[k * os] = r;
        }
    } else if (beta == 0) {
        for (int64_t k = 0; k < cnt; k++)
            o[k * os] = alpha * v[k * vs];
    } else {
        for (int64_t k = 0; k < cnt; k++)
            o[k * os] = alpha * v[k * vs] + beta * o[k * os];
    }
}

/*
 * The epilogue from the buffer: buf[m * ld + j] is the sum for channel ch0 + m and position
 * q0 + j (from image n); y = alpha*v + beta*y, or the fused form.  Swapped: buf[j * ld + m].
 * The inner loop runs along y's smaller stride (channels for NHWC-like y), so that the
 * stores fill whole cache lines.
 */
static void store_from_buffer(const fw_ctx *c, int64_t n, int64_t ch0, int64_t nm, int64_t q0, int64_t nq,
                              const float *buf, int64_t ld, int swap)
{
    const hd_conv_problem *p = c->p;
    const hd_conv_epilogue *e = &c->a->epi;
    const int64_t *os = p->ys;
    const float *z = e->z, *bias = e->fused ? (const float *)e->bias : NULL;
    float *y = c->y;
    int64_t ms = swap ? 1 : ld, js = swap ? ld : 1;
    int z_used = e->fused && e->alpha2 != 0;
    if (!swap && os[1] == 1 && !e->fused && e->alpha == 1 && e->beta == 0) {
        /* a plain store to channels-contiguous y: 16 x 16 blocks transposed (in registers with
           AVX-512), one output-row run of positions at a time */
        poscur u = pos_at(p, n, q0);
        for (int64_t j = 0; j < nq;) {
            int64_t cnt = imin(p->out[2] - u.ow, nq - j);
            int64_t base = u.n * os[0] + ch0 + u.od * os[2] + u.oh * os[3] + u.ow * os[4];
            for (int64_t m0 = 0; m0 < nm; m0 += 16) {
                const float *src[16];
                int64_t n16 = imin(16, nm - m0);
                for (int64_t i = 0; i < n16; i++)
                    src[i] = buf + (m0 + i) * ld + j;
                c->cols(y + base + m0, os[4], n16, src, cnt);
            }
            j += cnt;
            pos_advance(p, &u, cnt);
        }
        return;
    }
    if ((os[1] < 0 ? -os[1] : os[1]) < (os[4] < 0 ? -os[4] : os[4])) {
        poscur u = pos_at(p, n, q0);
        for (int64_t j = 0; j < nq; j++, pos_advance(p, &u, 1)) {
            int64_t base = u.n * os[0] + ch0 * os[1] + u.od * os[2] + u.oh * os[3] + u.ow * os[4];
            store_line(e, y + base, z_used ? z + base : NULL, os[1], buf + j * js, ms,
                       bias ? bias + ch0 * e->bias_stride : NULL, e->bias_stride, nm);
        }
        return;
    }
    /* y's positions linear within an image (NCHW-like): a run goes on to the image's end,
       not only the output row's */
    int img_runs = linear_positions(os, p->out);
    for (int64_t m = 0; m < nm; m++) {
        int64_t ch = ch0 + m;
        poscur u = pos_at(p, n, q0);
        for (int64_t j = 0; j < nq;) {
            int64_t qi = (u.od * p->out[1] + u.oh) * p->out[2] + u.ow;
            int64_t cnt = imin(img_runs ? p->P - qi : p->out[2] - u.ow, nq - j);
            int64_t base = u.n * os[0] + ch * os[1] + u.od * os[2] + u.oh * os[3] + u.ow * os[4];
            store_line(e, y + base, z_used ? z + base : NULL, os[4], buf + m * ms + j * js, js,
                       bias ? bias + ch * e->bias_stride : NULL, 0, cnt);
            j += cnt;
            if (img_runs)
                u = pos_at(p, u.n, qi + cnt);
            else
                pos_advance(p, &u, cnt);
        }
    }
}

/*
 * Wide x (conv1), tile by tile: the A side of the MR positions from q (image n), one equally
 * spaced unit per filter row (units[un], kc = rl), for the strided kernel.  A tile inside one
 * result row whose runs x holds whole is read in place: its positions' runs are str * xs[4]
 * floats apart (a filter row outside x is the zero row, step 0).  Any other tile (a border,
 * two result rows, fewer than MR positions) has its runs copied, zero-filled where taps or
 * rows fall outside x, into PATCH, one run after the other.  Either way each position's
 * values and their order are those of the row table's runs, so the results are the same bits
 * as the pointer kernel's.  (With the table, building it and the border copies took 8% of
 * conv1's time from NHWC at batch 16; the pointer kernel reloads row pointers every step.)
 */
static void wide_tile_units(const fw_ctx *c, int64_t n, int64_t chb, int64_t q, size_t mr, size_t MR,
                            const float *zero, float *patch, hd_igemm_sseg *units)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ss = p->xs, S = p->flt[2], str = p->str[2], dl = p->dil[2], cg = p->Cg, rl = c->L.rl;
    const float *xb = c->x + chb * ss[1];
    poscur u = pos_at(p, n, q);
    int64_t w0 = u.ow * str - p->pad[2];
    int64_t npix = ((int64_t)MR - 1) * str + (S - 1) * dl + 1;   /* the tile's pixels along w */
    int one_row = mr == MR && u.ow + (int64_t)MR <= p->out[2];
    int inplace = one_row && w0 >= 0 && w0 + npix <= p->in[2];
    if (inplace || (one_row && dl == 1)) {
        /* in place; or, at a border (dense pixels), the row's span of npix pixels copied with
           zeros for those outside x -- the same steps between positions as in place */
        int64_t d0 = u.od * p->str[0] - p->pad[0], h0 = u.oh * p->str[1] - p->pad[1], un = 0;
        for (int64_t t = 0; t < p->flt[0]; t++) {
            int64_t id = d0 + t * p->dil[0];
            for (int64_t rr = 0; rr < p->flt[1]; rr++, un++) {
                int64_t ih = h0 + rr * p->dil[1];
                int in = id >= 0 && id < p->in[0] && ih >= 0 && ih < p->in[1];
                units[un].d = in ? (ptrdiff_t)(str * ss[4] * (int64_t)sizeof(float)) : 0;
                units[un].kc = rl;
                if (!in) {
                    units[un].a = zero;
                    continue;
                }
                const float *row = xb + u.n * ss[0] + id * ss[2] + ih * ss[3];   /* x's row, pixel 0 */
                if (inplace) {
                    units[un].a = row + w0 * ss[4];
                } else {
                    /* dense pixels (ss[4] == cg): the part inside x is one run */
                    float *o = patch + un * npix * cg;
                    int64_t lo = imin(imax(-w0, 0), npix), hi = imax(imin(p->in[2] - w0, npix), lo);
                    memset(o, 0, sizeof(float) * (size_t)(lo * cg));
                    if (hi > lo)
                        memcpy(o + lo * cg, row + (w0 + lo) * ss[4], sizeof(float) * (size_t)((hi - lo) * cg));
                    memset(o + hi * cg, 0, sizeof(float) * (size_t)((npix - hi) * cg));
                    units[un].a = o;
                }
            }
        }
        return;
    }
    int64_t nun = c->L.nunits;
    for (int64_t un = 0; un < nun; un++) {
        units[un].a = patch + un * (int64_t)MR * rl;
        units[un].d = (ptrdiff_t)(rl * (int64_t)sizeof(float));
        units[un].kc = rl;
    }
    for (size_t i = 0; i < MR; i++) {
        int64_t d0 = u.od * p->str[0] - p->pad[0], h0 = u.oh * p->str[1] - p->pad[1];
        int64_t wi = u.ow * str - p->pad[2], un = 0;
        for (int64_t t = 0; t < p->flt[0]; t++) {
            int64_t id = d0 + t * p->dil[0];
            for (int64_t rr = 0; rr < p->flt[1]; rr++, un++) {
                int64_t ih = h0 + rr * p->dil[1];
                int in = i < mr && id >= 0 && id < p->in[0] && ih >= 0 && ih < p->in[1];
                float *o = patch + ((int64_t)un * (int64_t)MR + (int64_t)i) * rl;
                for (int64_t sx = 0; sx < S; sx++) {
                    int64_t w = wi + sx * dl;
                    if (in && w >= 0 && w < p->in[2]) {
                        const float *src = xb + u.n * ss[0] + id * ss[2] + ih * ss[3] + w * ss[4];
                        for (int64_t k = 0; k < cg; k++)
                            o[sx * cg + k] = src[k];
                    } else {
                        for (int64_t k = 0; k < cg; k++)
                            o[sx * cg + k] = 0.0f;
                    }
                }
            }
        }
        if (i + 1 < mr)
            pos_advance(p, &u, 1);
    }
}

/* Wide x, AVX-512: the position block's tiles through the strided kernel (see
 * wide_tile_units), all k blocks in order as fw_block's row-table path does them. */
static void fw_block_wide(fw_ctx *c, float *panel, int64_t g, int64_t n, int64_t chb, int64_t q0, int64_t nq,
                          int64_t m0, int64_t nm, float *ybase, float alpha, float beta)
{
    const fw_plan *L = &c->L;
    const size_t MR = (size_t)L->MR, NR = (size_t)L->NR;
    const float *zero = panel + L->zero_at;
    float *buf = panel + L->buf_at, *bpack = panel + L->bpack_at;
    const float *wg = c->apack + g * L->Mpad * L->R;
    hd_igemm_sseg units[FW_SSEG_MAX], sg[FW_SSEG_MAX + 1];
    for (int64_t kb = 0; kb < L->nkb; kb++) {
        int64_t r0 = kb * L->kc, kcb = imin(L->kc, L->R - r0), unit0 = r0 / L->rl, off0 = r0 % L->rl;
        float al = c->cbuf ? 1.0f : alpha;
        float be = kb > 0 ? 1.0f : c->cbuf ? 0.0f : beta;
        if (L->b_late)
            for (int64_t jr = 0; jr < nm; jr += (int64_t)NR)
                pack_w_tile(c, g, kb, (m0 + jr) / (int64_t)NR, bpack + jr * kcb);
        for (int64_t ir = 0; ir < nq; ir += (int64_t)MR) {
            size_t mr = (size_t)imin((int64_t)MR, nq - ir);
            wide_tile_units(c, n, chb, q0 + ir, mr, MR, zero, panel + L->patch_at, units);
            size_t nsg = 0;   /* this k block's pieces of the units, as row_segments cuts them */
            for (int64_t r = r0, un = unit0, off = off0; r < r0 + kcb; nsg++, un++, off = 0) {
                int64_t cnt = imin(L->rl - off, r0 + kcb - r);
                sg[nsg].a = units[un].a + off;
                sg[nsg].d = units[un].d;
                sg[nsg].kc = cnt;
                r += cnt;
            }
            for (int64_t jr = 0; jr < nm; jr += (int64_t)NR) {
                const float *bp = L->b_late ? bpack + jr * kcb
                                            : wg + r0 * L->Mpad + ((m0 + jr) / (int64_t)NR) * kcb * (int64_t)NR;
                size_t nr = (size_t)imin((int64_t)NR, nm - jr);
                float *cp = c->cbuf ? buf + ir * L->mb + jr : ybase + ir * c->p->ys[4] + jr;
                size_t ldc = c->cbuf ? (size_t)L->mb : (size_t)c->p->ys[4];
                c->ik_strided(mr, nr, nsg, sg, bp, NR, cp, ldc, al, be);
            }
        }
    }
    if (c->cbuf)
        store_from_buffer(c, n, g * c->p->Kg + m0, nm, q0, nq, buf, L->mb, 1);
}

/* Channels [m0, m0+nm) of group g x one position block (geometry in seg/bits), all k
 * blocks in order. */
static void fw_block(fw_ctx *c, int thread, int64_t g, int64_t n, int64_t q0, int64_t nq, int64_t m0, int64_t nm,
                     const fw_seg *seg, int64_t ns, const uint8_t *bits, int64_t nfull)
{
    const hd_conv_problem *p = c->p;
    const fw_plan *L = &c->L;
    const hd_conv_args *a = c->a;
    int64_t ch0 = g * p->Kg + m0, chb = g * p->Cg;
    float *panel = c->slots + (size_t)thread * (size_t)L->slot;
    float *buf = panel + L->buf_at;
    float *abuf = panel + L->abuf_at;
    const int64_t *os = p->ys, *xs = p->xs;
    const size_t MR = (size_t)L->MR, NR = (size_t)L->NR;
    hd_f32_gemm_ukernel_fn uk = L->kern->f32;
    float alpha = (float)a->epi.alpha, beta = (float)a->epi.beta;
    const float *wg = c->apack + g * L->Mpad * L->R;
    float *ybase = c->cbuf ? NULL : c->y + n * os[0] + ch0 * os[1] + q0 * os[4];
    const float **tab = (const float **)(void *)(panel + L->tab_at);
    float *zero = panel + L->zero_at;
    if (L->pix || L->a_direct)
        memset(zero, 0, sizeof(float) * (size_t)fw_nzero(L));
    if (c->wide_tiles) {
        fw_block_wide(c, panel, g, n, chb, q0, nq, m0, nm, ybase, alpha, beta);
        return;
    }
    if (L->pix)
        build_rows(c, n, chb, q0, nq, L->ncpad, tab, zero, panel + L->patch_at);

    for (int64_t kb = 0; kb < L->nkb; kb++) {
        int64_t r0 = kb * L->kc, kcb = imin(L->kc, L->R - r0);
        float al = c->cbuf ? 1.0f : alpha;
        float be = kb > 0 ? 1.0f : c->cbuf ? 0.0f : beta;
        const float *wk = wg + r0 * L->Mpad;
        if (L->pix) {
            /* A: MR positions, read from x through the row table; B: NR channels of the
               packed filter. */
            hd_igemm_seg *sg = (hd_igemm_seg *)(panel + L->iseg_at);
            size_t nsg = (size_t)row_segments(L, tab, L->ncpad, r0, kcb, sg);
            float *bpack = panel + L->bpack_at;
            if (L->b_late)   /* this k block of the task's filter tiles, packed once for all A tiles */
                for (int64_t jr = 0; jr < nm; jr += (int64_t)NR)
                    pack_w_tile(c, g, kb, (m0 + jr) / (int64_t)NR, bpack + jr * kcb);
            for (int64_t ir = 0; ir < nq; ir += (int64_t)MR) {
                size_t mr = (size_t)imin((int64_t)MR, nq - ir);
                if (nsg == 1 && !L->x_copy && sg[0].kc >= 128)
                    /* one long run per position (1x1, 128 or more channels): the rows two tiles ahead */
                    hd_conv_prefetch_rows(sg[0].rows, sg[0].off, ir + 2 * (int64_t)MR, imin(ir + 3 * (int64_t)MR, nq),
                                          sg[0].kc);
                const hd_igemm_seg *use = sg;
                size_t nuse = nsg, row0 = (size_t)ir;
                const float *crow[16];
                hd_igemm_seg cseg = {crow, 0, kcb};
                if (L->x_copy) {
                    copy_tile_rows(sg, nsg, (size_t)ir, mr, MR, abuf, fw_acopy_ld(L), crow);
                    use = &cseg;
                    nuse = 1;
                    row0 = 0;
                }
                hd_igemm_sseg ss[FW_SSEG_MAX];
                /* rows equally spaced (x's positions along a result row, or the full tile of
                   copied rows): the strided entry */
                int strided = c->ik_strided && hd_igemm_strided_segments(use, nuse, row0, MR, ss, FW_SSEG_MAX);
                for (int64_t jr = 0; jr < nm; jr += (int64_t)NR) {
                    const float *bp = L->b_late ? bpack + jr * kcb : wk + ((m0 + jr) / (int64_t)NR) * kcb * (int64_t)NR;
                    size_t nr = (size_t)imin((int64_t)NR, nm - jr);
                    float *cp = c->cbuf ? buf + ir * L->mb + jr : ybase + ir * os[4] + jr;
                    size_t ldc = c->cbuf ? (size_t)L->mb : (size_t)os[4];
                    if (strided)
                        c->ik_strided(mr, nr, nuse, ss, bp, NR, cp, ldc, al, be);
                    else
                        c->ik(mr, nr, nuse, use, row0, bp, NR, cp, ldc, al, be);
                }
            }
            continue;
        }
        const float *xdirect = NULL;
        if (L->direct_b) {
            xdirect = c->x + n * xs[0] + (chb + r0) * xs[1] + q0;
            if (nq % (int64_t)NR)                  /* the partial last panel is copied */
                gather_b_rows(c, seg, ns, bits, L->bstride, chb, r0, kcb, nq - nfull, panel, (int64_t)NR);
        } else {
            gather_b_rows(c, seg, ns, bits, L->bstride, chb, r0, kcb, nq, panel, L->ncpad);
        }
        for (int64_t ir = 0; ir < nm; ir += (int64_t)MR) {
            const float *ap;
            const float *arow[16];
            hd_igemm_seg aseg = {arow, 0, kcb};
            if (L->a_direct || L->a_copy) {
                /* the filter rows themselves, contiguous in the reduction order (or a copy of
                   this k block of them, when in place they would share L1 sets); rows past
                   the last channel are never stored: they read the zero row (in place) or
                   the first copy */
                int64_t rows = imin((int64_t)MR, nm - ir);
                const float *w0 = c->w + (ch0 + ir) * p->wst[0] + r0;
                for (int64_t i = 0; i < (int64_t)MR; i++)
                    arow[i] = i < rows ? w0 + i * p->wst[0] : zero;
                if (L->a_copy)
                    copy_tile_rows(&aseg, 1, 0, (size_t)rows, MR, abuf, fw_acopy_ld(L), arow);
                ap = NULL;
            } else if (L->a_late) {
                pack_w_tile(c, g, kb, (m0 + ir) / (int64_t)MR, abuf);
                ap = abuf;
            } else {
                ap = wk + ((m0 + ir) / (int64_t)MR) * kcb * (int64_t)MR;
            }
            size_t mr = (size_t)imin((int64_t)MR, nm - ir);
            for (int64_t jr = 0; jr < nq; jr += (int64_t)NR) {
                size_t nr = (size_t)imin((int64_t)NR, nq - jr);
                const float *bp = panel + jr;
                size_t bs = (size_t)L->ncpad;
                if (xdirect && nr == NR) {
                    bp = xdirect + jr;
                    bs = (size_t)xs[1];
                } else if (xdirect) {
                    bp = panel;
                    bs = NR;
                }
                float *cp = c->cbuf ? buf + ir * L->ncpad + jr : ybase + ir * os[1] + jr;
                size_t ldc = c->cbuf ? (size_t)L->ncpad : (size_t)os[1];
                if (L->a_stream)
                    c->ik_stream(mr, nr, 1, &aseg, 0, bp, bs, cp, ldc, al, be);
                else if (L->a_direct || L->a_copy)
                    c->ik(mr, nr, 1, &aseg, 0, bp, bs, cp, ldc, al, be);
                else
                    uk(mr, nr, (size_t)kcb, ap, bp, bs, cp, ldc, al, be);
            }
        }
    }
    if (c->cbuf) {
        if (L->pix)
            store_from_buffer(c, n, ch0, nm, q0, nq, buf, L->mb, 1);
        else
            store_from_buffer(c, n, ch0, nm, q0, nq, buf, L->ncpad, 0);
    }
}

/* One task: a position block x a result-channel block x a run of groups (depthwise and
 * other small groups share one task, and the block's geometry, across many groups). */
static void fw_task(void *vctx, size_t task, int thread)
{
    fw_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const fw_plan *L = &c->L;
    int64_t t = (int64_t)task, per_group = L->cross ? L->npb : p->N * L->npb;
    int64_t mbi = t % L->nmb, pbi = (t / L->nmb) % per_group, gc = t / (L->nmb * per_group);
    int64_t n = 0, q0, nq;
    if (L->cross) {
        q0 = pbi * L->nc;
        nq = imin(L->nc, p->N * L->P - q0);
    } else {
        n = pbi / L->npb;
        q0 = (pbi % L->npb) * L->nc;
        nq = imin(L->nc, L->P - q0);
    }
    int64_t m0 = mbi * L->mb, nm = imin(L->mb, L->M - m0);
    float *panel = c->slots + (size_t)thread * (size_t)L->slot;
    fw_seg *seg = (fw_seg *)(panel + L->seg_at);
    uint8_t *bits = (uint8_t *)(panel + L->bits_at);
    int64_t ns = 0, nfull = L->direct_b ? nq / L->NR * L->NR : 0;
    if (!L->pix && nfull < nq)
        ns = block_geometry(c, n, q0 + nfull, nq - nfull, seg, bits, L->bstride);
    for (int64_t g = gc * L->gpt; g < imin(p->G, (gc + 1) * L->gpt); g++)
        fw_block(c, thread, g, n, q0, nq, m0, nm, seg, ns, bits, nfull);
}

/* ---------------- the entry points ---------------- */

size_t hd_conv_fast_ws_fwd(const hd_conv_problem *p)
{
    if (hd_conv_fwd_dot_applies(p))
        return hd_conv_fwd_dot_ws(p);
    fw_plan L = plan_fw(p);
    return layout_fw(p, &L).total;
}

int hd_conv_fast_app_fwd(const hd_conv_problem *p, const char **r)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8) {
        *r = "the blocked GEMM solvers take FLOAT x, w and y only";
        return 0;
    }
    if (hd_conv_fast_ws_fwd(p) == SIZE_MAX) {
        *r = "its workspace would not fit in size_t";
        return 0;
    }
    return 1;
}

void hd_conv_fast_exec_fwd(const hd_conv_problem *p, const hd_conv_args *a)
{
    if (hd_conv_fwd_dot_applies(p)) {
        hd_conv_fwd_dot_exec(p, a);
        return;
    }
    fw_ctx c;
    c.p = p;
    c.a = a;
    c.L = plan_fw(p);
    hd_conv_layout W = layout_fw(p, &c.L);
    c.x = a->x;
    c.w = a->w;
    c.y = a->out;
    c.apack = (float *)((char *)a->ws + W.off[0]);
    c.slots = (float *)((char *)a->ws + W.off[1]);
    c.cbuf = fw_cbuf(p, &c.L, a->epi.fused);
    int v512 = hd_cpu_isa() >= HD_ISA_AVX512;
    c.mrun = v512 ? hd_f32_im2col_ukernel_mrun__avx512 : mrun_c;
    c.cols = v512 ? hd_f32_im2col_ukernel_cols__avx512 : cols_c;
    c.ik = hd_igemm_kernel_for(hd_cpu_isa())->fn;
    c.ik_stream = hd_igemm_kernel_for(hd_cpu_isa())->fn_stream;
    c.ik_strided = hd_igemm_kernel_for(hd_cpu_isa())->fn_strided;
    c.wide_tiles = c.ik_strided && c.L.wide && !c.L.x_copy && c.L.nunits <= FW_SSEG_MAX;
    int nt = a->nthreads < FW_SLOTS ? a->nthreads : FW_SLOTS;
    if (!c.L.a_late && !c.L.b_late)
        hd_parallel_deal((size_t)(p->G * c.L.nkb * (c.L.Mpad / c.L.AR)), nt, pack_w_task, &c);
    int64_t per_group = c.L.cross ? c.L.npb : p->N * c.L.npb;
    hd_parallel_deal((size_t)(cdiv(p->G, c.L.gpt) * per_group * c.L.nmb), nt, fw_task, &c);
}
