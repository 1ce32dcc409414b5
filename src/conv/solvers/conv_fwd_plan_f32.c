/*
 * Forward fp32 convolution, solvers 150-153 (conv/solvers/conv_fast.h, conv_fwd_f32.h):
 * blocked implicit GEMM that drives the GEMM micro-kernels (kernels/gemm/gemm-ukernels.h)
 * itself.  One plan decides the variant: 150 gathers columns of NCHW-like x, 152 reads
 * NHWC-like x through a row table, 153 takes few-channel NHWC-like x tile by tile through the
 * strided kernel, 151 (conv_fwd_dot_f32.c) reads both sides in place.
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
 * reduction and a filter too large to stay cached (the 7x7 layers at batch 1) go to solver
 * 151 instead (conv_fwd_dot_f32.c), which reads the filter rows in place -- except plain
 * 1x1 ones whose positions fill 14-row tiles better than 32-wide panels, which this plan takes
 * with the roles swapped (conv_fwd_1x1_f32.c).  Small
 * groups (depthwise) share a task, so that the per-block work is not repeated per group.
 *
 * Every element of y is reduced over the same k blocks (a function of CRS only) in order,
 * each by one micro-kernel call in k order, and its epilogue does not depend on the
 * partition: results are bitwise identical for every thread count, and between the AVX2 and
 * AVX-512 kernels (both fused multiply-add).  The partition itself depends on the problem
 * only.  Tasks take one of HD_SCRATCH_SLOTS scratch areas by thread index, so the workspace does
 * not depend on the thread count; at most HD_SCRATCH_SLOTS threads are used.
 */
#include "conv/solvers/conv_fwd_f32.h"

#include "conv/solvers/conv_fwd_dot.h"
#include "conv/solvers/conv_solvers.h"

/* ---------------- the plan: a function of the problem (and the kernel's tile) ---------------- */

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

/* Whether ROWS rows of x STRIDE floats apart (one per reduction step of a k block) fall in at
 * least half of the 64 L1 sets, so that a B micro-panel read in place does not crowd the sets
 * of the A micro-panel kept in L1. */
static int rows_cover_l1(int64_t stride, int64_t rows)
{
    unsigned char seen[64] = {0};
    int n = 0;
    for (int64_t i = 0; i < rows && n < 32; i++) {
        int set = (int)(((uint64_t)(i * stride) * sizeof(float) >> 6) & 63);
        n += !seen[set];
        seen[set] = 1;
    }
    return n >= 32;
}

/* Batch 1, blocks of at most NC positions: the block length (a multiple of FW_UNIT, NC down
 * to half of it) whose blocks, dealt alternately to two threads, leave the busier one the
 * fewest column tiles, a quarter tile counted per block (its filter panels read again).  With
 * a last block much shorter than the others (784 positions: three blocks of 224 and one of
 * 112) one thread otherwise takes two full blocks while the other idles.  A function of the
 * problem only. */
static int64_t fw_even_blocks(int64_t P, int64_t nc)
{
    int64_t best = nc, best_cost = INT64_MAX;
    for (int64_t b = nc; b >= nc / 2 && b >= FW_UNIT; b -= FW_UNIT) {
        int64_t nb = cdiv(P, b), t[2] = {0, 0};
        for (int64_t i = 0; i < nb; i++)   /* in quarter tiles */
            t[i & 1] += 4 * cdiv(imin(b, P - i * b), FW_UNIT / 2) / 2 + 1;
        int64_t cost = imax(t[0], t[1]);
        if (cost < best_cost)
            best = b, best_cost = cost;
    }
    return best;
}

/* A plain 1x1 at batch 1 whose shape suits the swapped orientation (see plan_fw's t1x1) with
 * the AVX-512 tiles.  Decided on the tile shape of that kernel whatever the ISA, as it also
 * keeps such problems from the dot plan: the solver, and so the rounding, must not depend on
 * the ISA. */
#define FW_SWAP_MR 14
#define FW_SWAP_NR 32
static int fw_swap_1x1(const hd_conv_problem *p)
{
    if (x_pix(p) || p->N != 1 || p->G != 1 || p->TRS != 1 || p->xs[4] != 1 || !linear_positions(p->xs, p->in))
        return 0;
    for (int j = 0; j < 3; j++)
        if (p->pad[j] || p->str[j] != 1 || p->in[j] != p->out[j])
            return 0;
    int64_t M = p->Kg, P = p->P, pp = rup(P, FW_SWAP_NR);
    /* 7x7 images: only with a long reduction (res5_reduce, 2048 channels); with 960 channels
       (pw_b17_project) two threads measured slower than the usual orientation */
    if (P < 64 && p->CRS < 1024)
        return 0;
    return (pp - P) * 16 > pp && rup(M, FW_SWAP_NR) * rup(P, FW_SWAP_MR) < rup(M, FW_SWAP_MR) * pp;
}

static fw_plan plan_fw(const hd_conv_problem *p)
{
    fw_plan L;
    L.kern = hd_gemm_kernel_for(sizeof(float), p->isa);
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
     * cache.  This suits the 7x7 layers at batch 1 better than keeping the filter as the A side:
     * their 49 positions fill 56 rows of four 14-row A tiles instead of 64 lanes of two
     * 32-wide B tiles. */
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
    int plain_1x1 = L.direct_b;
    /* Plain 1x1 at batch 1 with the A-in-place kernel: the roles swap (conv_fwd_1x1_f32.c)
     * where the image leaves its last NR-wide panel mostly empty (196 = 6 x 32 + 4, 49 = 32 +
     * 17) and positions in MR-row tiles and channels in NR-wide ones leave fewer empty tile
     * places than the other way round (196 positions and 256 channels: none instead of 28
     * lanes and 10 rows).  Where the panels are full (784 or 3136 positions) the usual
     * orientation measured faster: its packed A side and direct stores cost less than the
     * swapped side's filter transposition and transposing store. */
    L.t1x1 = fw_swap_1x1(p) && L.kern->f32_sa && L.MR == FW_SWAP_MR && L.NR == FW_SWAP_NR;
    if (L.t1x1) {
        L.AR = L.NR;
        L.BR = L.MR;
        L.Mpad = rup(L.M, L.AR);
    }
    /* blocks */
    int64_t Q = L.cross ? p->N * L.P : L.P;
    /* swapped, the positions are the MR side: blocks of whole MR tiles (the blocks only pick
       which kernel call computes a position, never its rounding) */
    int64_t unit = L.pix || L.t1x1 ? L.BR : FW_UNIT;
    L.npb = cdiv(Q, FW_NC);
    L.nc = imin(rup(cdiv(Q, L.npb), unit), Q);
    L.npb = cdiv(Q, L.nc);
    /* x read in place (1x1): a whole image per block when an image of x and of the results
       each fit in FW_X_CACHED -- the kernel then walks each of x's channel rows as one long
       run, which the hardware prefetcher follows, instead of copying blocks of 256 positions
       or reading such blocks in place as short runs.  The blocks never change a result's
       rounding. */
    if (L.direct_b && p->N > 1 && p->C * L.P * (int64_t)sizeof(float) <= FW_X_CACHED &&
        rup(L.M, 16) * rup(L.P, FW_UNIT) * (int64_t)sizeof(float) <= FW_X_CACHED) {
        L.nc = L.P;
        L.npb = 1;
    }
    /* Batch 1, plain 1x1: position blocks as long as a k block of x's rows (kc x nc) stays
       well inside L2, in a multiple of FW_MIN_TASKS blocks, never shorter than FW_NC.  A
       channel tile writes its block's results as MR rows of nc positions: blocks of FW_NC
       positions gave the hardware prefetcher each row of y in pieces of 1 KiB, and with
       tasks dealt to alternate threads every row stream broke at each task -- with a short
       reduction (16 or 64 channels) the results are most of the traffic, and two threads
       scaled poorly.  The blocks never change a result's rounding. */
    if (plain_1x1 && p->N == 1) {
        int64_t nb = rup(cdiv(L.kc * L.P * (int64_t)sizeof(float), FW_B1_XBLOCK), FW_MIN_TASKS);
        int64_t nc = rup(cdiv(L.P, nb), unit);
        if (nc > L.nc) {
            L.nc = nc;
            L.npb = cdiv(Q, nc);
        } else if (L.npb > 2 && !L.t1x1) {
            L.nc = fw_even_blocks(L.P, L.nc);
            L.npb = cdiv(Q, L.nc);
        }
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
        /* t1x1: channel blocks first, down to two tiles -- each task packs (transposes) its
           block's filter rows, so position blocks would pack the same rows again */
        if (L.mb > 128 || (L.t1x1 && L.mb >= 4 * L.AR)) {
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
     * copied instead (a contiguous copy per row).  With the AVX-512 tiles and a batch a block of such
     * rows is read in place when the rows of a k block spread over the L1 sets (28x28
     * images: a plane is 49 lines): the block's rows are then prefetched into L2 while the
     * previous block is multiplied (pf_next), and the kernel's own prefetch takes them from
     * there.  Planes a multiple of 4 lines apart (56x56: 196 lines) crowd a quarter of the
     * sets or fewer, and the B stream evicts the A micro-panel from L1: copied.  At batch 1
     * the AVX-512 tiles read x in place whatever its plane stride: x (up to a few MiB) is
     * then read once from L3 by the first channel tile of a block and from L2 by the others,
     * and the copy (with its write and read back of each block) was the larger cost --
     * most of all with a short reduction (32 or 64 channels), where the copy is a large part
     * of the work.  In place or copied, the values and their order are the same. */
    if (L.nc != L.P && p->N * p->C * p->Q * (int64_t)sizeof(float) > FW_X_CACHED &&
        !(L.kern->isa >= HD_ISA_AVX512 && (p->N == 1 || rows_cover_l1(p->xs[1], L.kc))))
        L.direct_b = 0;
    L.pf_next = plain_1x1 && p->N > 1 && (!L.direct_b || L.nc != L.P);   /* batch 1: measured no gain */
    /* With at most two position blocks per group (batch 1) a filter tile serves one or two
     * tasks: each task packs its tiles right before use (the filter is read once, no packed
     * copy written and read back -- at batch 1 the filter is most of the memory traffic).
     * A small filter whose rows are contiguous is packed late too: packing it again per task
     * costs less than a parallel pass (a fork and join) of its own. */
    L.a_late = !L.pix && !L.t1x1 && (per_group <= 2 ||
                           (p->G * L.Mpad * L.R <= FW_SMALL_FILTER && hd_fw_filter_rows_contiguous(p, 0)));
    int contiguous = L.a_late && hd_fw_filter_rows_contiguous(p, 0);
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

/* Wide: floats of the border spans of one tile (wide_tile_units), every filter row. */
static int64_t fw_wide_span(const hd_conv_problem *p, const fw_plan *L)
{
    return L->nunits * ((L->MR - 1) * p->str[2] + (p->flt[2] - 1) * p->dil[2] + 1) * p->Cg;
}

/* Packed filter (G x Mpad x R), then HD_SCRATCH_SLOTS x (gathered panel, result buffer).  The
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
    if (L->t1x1)   /* the last position tile's copy; a k block of the task's B panels */
        L->bpack_at = L->abuf_at + rup(L->kc * L->BR, 16);
    L->slot = L->bpack_at + (L->b_late || L->t1x1 ? rup(L->kc * L->mb, 16) : 0);
    hd_conv_layout W = {{0}, 0};
    hd_conv_book(&W, 0, L->a_late || L->b_late || L->t1x1 ? 0 : p->G * L->Mpad, L->R, sizeof(float));
    hd_conv_book(&W, 1, HD_SCRATCH_SLOTS, L->slot, sizeof(float));
    return W;
}

/* The filter rows are contiguous in the reduction order (no flip): row k at w + k*wst[0]. */
int hd_fw_filter_rows_contiguous(const hd_conv_problem *p, int pix)
{
    const int64_t *ws = p->wst;
    int64_t S = p->flt[2], RS = p->flt[1] * S;
    if (p->flip)
        return 0;
    if (!pix)
        return ws[4] == 1 && ws[3] == S && ws[2] == RS && ws[1] == p->TRS;
    return ws[1] == 1 && ws[4] == p->Cg && ws[3] == S * p->Cg && ws[2] == RS * p->Cg;
}

/* ---------------- the plan of the family, and the solvers ---------------- */

/* What a plan of the family keeps: which variant runs, and its choices. */
typedef struct {
    int kind;                     /* HD_FW_* */
    size_t ws;
    hd_conv_layout W;             /* blocked variants */
    fw_plan L;
    _Alignas(16) unsigned char dot[HD_CONV_DOT_PLAN_BYTES];
} fw_family;
_Static_assert(sizeof(fw_family) <= HD_CONV_PLAN_PRIV, "the forward plan fits the plan's private space");

static int fw_fp32(const hd_conv_problem *p, const char **r)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8) {
        *r = "the blocked GEMM solvers take FLOAT x, w and y only";
        return 0;
    }
    return 1;
}

static const char fw_memo;   /* marks a plan's private space as holding this family's plan */

int hd_conv_fw_plan(const hd_conv_problem *p, hd_conv_plan *pl, const char **r)
{
    fw_family *f = (fw_family *)(void *)pl->priv;
    pl->p = p;
    pl->memo = NULL;
    if (!fw_fp32(p, r))
        return 0;
    /* A plain 1x1 that the blocked plan takes with the roles swapped (7x7 images at batch 1)
       stays with it: it measured faster there than through the dot kernels. */
    if (!fw_swap_1x1(p) && hd_conv_fwd_dot_plan(p, f->dot, &f->ws)) {
        f->kind = HD_FW_DOT;
    } else {
        f->L = plan_fw(p);
        f->W = layout_fw(p, &f->L);
        f->ws = f->W.total;
        if (f->ws == SIZE_MAX) {
            *r = "its workspace would not fit in size_t";
            return 0;
        }
        /* wide x goes tile by tile through the strided kernel, where the ISA has one */
        f->L.wide_tiles = hd_igemm_kernel_for(p->isa)->fn_strided && f->L.wide && !f->L.x_copy &&
                          f->L.nunits <= FW_SSEG_MAX;
        f->kind = !f->L.pix ? HD_FW_BLOCKED : f->L.wide_tiles ? HD_FW_WIDE : HD_FW_ROWS;
    }
    pl->ws = f->ws;
    pl->memo = &fw_memo;
    return 1;
}

static void fw_run(const hd_conv_problem *p, const fw_family *f, const hd_conv_args *a)
{
    fw_ctx c;
    c.p = p;
    c.a = a;
    c.L = f->L;
    c.x = a->x;
    c.w = a->w;
    c.y = a->out;
    c.apack = (float *)((char *)a->ws + f->W.off[0]);
    c.slots = (float *)((char *)a->ws + f->W.off[1]);
    c.cbuf = fw_cbuf(p, &c.L, a->epi.fused);
    c.mrun = hd_f32_im2col_mrun_kernel(p->isa);
    c.cols = hd_f32_im2col_cols_kernel(p->isa);
    if (!c.mrun)
        c.mrun = hd_fw_mrun_c;
    if (!c.cols)
        c.cols = hd_fw_cols_c;
    const hd_igemm_kernel *ik = hd_igemm_kernel_for(p->isa);
    c.ik = ik->fn;
    c.ik_stream = ik->fn_stream;
    c.ik_strided = ik->fn_strided;
    c.wide_tiles = c.L.wide_tiles;
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    c.nthreads = nt;
    if (!c.L.a_late && !c.L.b_late && !c.L.t1x1)
        hd_parallel_deal((size_t)(p->G * c.L.nkb * (c.L.Mpad / c.L.AR)), nt, hd_fw_pack_w_task, &c);
    int64_t per_group = c.L.cross ? c.L.npb : p->N * c.L.npb;
    c.ntasks = cdiv(p->G, c.L.gpt) * per_group * c.L.nmb;
    hd_parallel_deal((size_t)c.ntasks, nt, hd_fw_task, &c);
}

void hd_conv_fw_execute(const hd_conv_plan *pl, const hd_conv_args *a)
{
    const fw_family *f = (const fw_family *)(const void *)pl->priv;
    if (f->kind == HD_FW_DOT)
        hd_conv_fwd_dot_exec(f->dot, pl->p, a);
    else
        fw_run(pl->p, f, a);
}

/* A variant's plan: the family's (made once while the registry walks the variants), if it
 * is this variant's. */
static int fw_variant(const hd_conv_problem *p, hd_conv_plan *pl, int kind, const char **r)
{
    static const char *const taken_by[] = {
        [HD_FW_BLOCKED] = "the problem is solver 150's (gathered columns)",
        [HD_FW_DOT] = "few positions, a long reduction and a large filter: the problem is solver 151's",
        [HD_FW_ROWS] = "the problem is solver 152's (x's channels contiguous)",
        [HD_FW_WIDE] = "the problem is solver 153's (few channels, dense pixels)",
    };
    const fw_family *f = (const fw_family *)(const void *)pl->priv;
    if (pl->memo != &fw_memo && !hd_conv_fw_plan(p, pl, r))
        return 0;
    pl->ws = f->ws;
    if (f->kind != kind) {
        *r = taken_by[f->kind];
        return 0;
    }
    return 1;
}

static int plan_blocked(const hd_conv_problem *p, hd_conv_plan *pl, const char **r) { return fw_variant(p, pl, HD_FW_BLOCKED, r); }
static int plan_dot(const hd_conv_problem *p, hd_conv_plan *pl, const char **r) { return fw_variant(p, pl, HD_FW_DOT, r); }
static int plan_rows(const hd_conv_problem *p, hd_conv_plan *pl, const char **r) { return fw_variant(p, pl, HD_FW_ROWS, r); }
static int plan_wide(const hd_conv_problem *p, hd_conv_plan *pl, const char **r) { return fw_variant(p, pl, HD_FW_WIDE, r); }

#define FW_SOLVER(id_, name_, plan_) \
    {.id = id_, .name = name_, .dir = HD_CONV_FWD, .algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, \
     .deterministic = 1, .family = id_ == 150 ? 0 : 150, .applicable = fw_fp32, .plan = plan_, \
     .execute = hd_conv_fw_execute, .cost_factor = 0.4}

/* x's channels not contiguous: packed (or in-place) filter rows times gathered columns. */
const hd_conv_solver hd_solver_fwd_blocked = FW_SOLVER(150, "fwd.blocked_gemm_f32", plan_blocked);
/* batch 1, few positions, long reduction, large filter: both sides read in place (dot kernels). */
const hd_conv_solver hd_solver_fwd_dot = FW_SOLVER(151, "fwd.dot_f32", plan_dot);
/* x's channels contiguous: positions' rows of x through a row table (indirect kernel). */
const hd_conv_solver hd_solver_fwd_rows = FW_SOLVER(152, "fwd.blocked_gemm_rows_f32", plan_rows);
/* few channels, dense pixels: one run per filter row, equally spaced rows (strided kernel). */
const hd_conv_solver hd_solver_fwd_wide = FW_SOLVER(153, "fwd.blocked_gemm_wide_f32", plan_wide);
