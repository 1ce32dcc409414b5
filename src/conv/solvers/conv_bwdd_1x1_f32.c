/*
 * Backward data of a 1x1, unpadded convolution (conv/solvers/conv_bwdd.h, bwd_data.1x1):
 * per group dx = W^T dy, a plain GEMM (Cg x positions, Kg deep), run on the GEMM
 * micro-kernels (kernels/gemm/gemm-ukernels.h) directly, so nothing is copied twice.
 *
 *  - Channel planes in dy (NCHW-like): C = dx (rows = channels, columns = positions), A =
 *    W^T in MR-channel micro-panels (packed by the task; a thread keeps its last block), B =
 *    a sub-block of dy rows copied into the task's panel (one streaming pass per row; the
 *    next step's lines -- also the first of the thread's likely next task -- are prefetched a
 *    few per kernel call while this one is multiplied).  With few dx
 *    channels (at most 5 A tiles) and k blocks of at most 64 dy rows the rows are read in
 *    place instead, each A tile walking them as long runs (res2 1x1); with more of either,
 *    in place measured slower, but for a dy small enough to stay in L3 (batch 1), read in
 *    place at any k block.  The micro-kernel stores straight into dx.
 *  - Channels contiguous in dy (NHWC-like): the roles swap, dx^T = dy^T W.  A = MR dy pixels,
 *    read in place by the indirect micro-kernel (igemm-ukernels.h) through a table of the
 *    block's pixel rows, the rows two tiles ahead prefetched -- or, when 14 rows a pixel
 *    apart would share L1 sets (K = 1024: 4 KiB), transposed into micro-panels in the task's
 *    panel (in place is faster wherever the rows spread over the sets).  B = W's channel
 *    block as NR-wide panels, C = dx pixels, stored straight into dx when they are packed.
 *    NCHW-like small images swap too: their dy panel (all k blocks) stays in the slot for
 *    the thread's next channel block, and with one position block W's rows are B in place;
 *    the buffer goes to dx's channel planes as transposed tiles.
 *  - Stride s > 1 (the ResNet downsample projections): the dy positions are the GEMM's
 *    columns as before; the products go to the task's buffer, and its epilogue writes every
 *    dx element of the s x s cell of each dy position once (the corner gets the product, the
 *    rest beta*dx), so dx is written in one pass instead of one per stride phase (from the
    swapped form into channel planes, the buffer is first transposed into channel rows, so
    that each dx row is written as one run).
 *
 * A tile that cannot be stored straight into dx (a panel across two images, strided or
 * scattered dx) goes through the buffer in a way that rounds exactly as the direct store:
 * the buffer starts as beta*dx (unless beta = 0), the kernels run with the same alpha and
 * beta = 1, and the result is copied out.  So every dx element is, whatever the tiling,
 * round(alpha*acc_0 + beta*dx), then round(alpha*acc_b + previous) for each further k block
 * (k blocks of at most 256, a function of Kg only), one fused kernel call each: bitwise the
 * same for every thread count and partition, and between AVX2 and AVX-512.
 *
 * Blocks: position blocks (across images for small images and NHWC), dx-channel blocks of
 * at most 256; while there are fewer than 8 tasks (batch 1) they are cut finer so that
 * every thread works, channels first when the filter outweighs an image of dy.  Tasks are
 * dealt to the threads from a counter; each uses the scratch slot of its thread (at most 8
 * threads, so the workspace does not depend on the thread count).
 */
#include "conv/solvers/conv_solvers.h"
#include "conv/solvers/conv_bwdd.h"
#include "conv/solvers/conv_bwdd_1x1.h"

#include "conv/conv_internal.h"
#include "kernels/gemm/gemm.h"

#include <stdint.h>

#define KC 256              /* most k (dy channels) per block: sets the rounding */
#define MC 256              /* most dx channels per block */
#define UNIT 32             /* NCHW position blocks are multiples of this (swapped: of MR) */
#define SUBS 4              /* NCHW: most sub-blocks (panels) per position block */
#define MIN_TASKS 8         /* cut small problems finer, down to this many tasks */
#define X1_INPLACE_TILES 5  /* NCHW: dy read in place by blocks with at most this many A tiles */
#define X1_INPLACE_ROWS 64  /* ... and k blocks of at most this many dy rows (each a page of its own) */
#define X1_INPLACE_L3 (8 << 20) /* ... or any k block when all of dy is at most this many bytes */
#define X1_WT_ALL (9 << 15) /* NCHW: a slot keeps W^T of every k block of its channel block up to this many floats
                               (a 256-channel block, rounded up to the tile, of a 1024-deep filter) */
#define X1_DY_ALL (1 << 17) /* NCHW, swapped: a slot keeps the dy panel of every k block up to this many floats */


/* Positions of a tensor (strides s, dims d) addressed as pos * s[4]. */
static int linear_positions(const int64_t s[5], const int64_t d[3])
{
    return (d[1] == 1 || s[3] == d[2] * s[4]) && (d[0] == 1 || s[2] == d[1] * d[2] * s[4]);
}

/* dy's channels contiguous: positions are the A side (dx^T = dy^T W). */
static int dy_pix(const hd_conv_problem *p) { return p->ys[1] == 1 && p->ys[4] != 1 && p->Kg > 1; }

static int unit_stride(const hd_conv_problem *p) { return p->str[0] == 1 && p->str[1] == 1 && p->str[2] == 1; }

/* dx and dy with channels contiguous and pixels linear across images, the filter's
 * channels contiguous: the batch is one GEMM in place, dx (N*Q x Cg) = dy (N*Q x Kg) W. */
static int whole_ok(const hd_conv_problem *p)
{
    const int64_t *xs = p->xs, *ys = p->ys;
    int lx = xs[1] == 1 && xs[4] >= p->C && linear_positions(xs, p->in) && (p->N == 1 || xs[0] == p->Q * xs[4]);
    int ly = ys[1] == 1 && ys[4] >= p->K && linear_positions(ys, p->out) && (p->N == 1 || ys[0] == p->P * ys[4]);
    return lx && ly && p->wst[1] == 1 && p->wst[0] >= p->Cg;
}

/* ---------------- the plan: a function of the problem (and the kernel's tile) ---------------- */


static x1_plan plan_x1(const hd_conv_problem *p)
{
    x1_plan L;
    L.kern = hd_gemm_kernel_for(sizeof(float), p->isa);
    L.MR = (int64_t)L.kern->mr;
    L.NR = (int64_t)L.kern->nr;
    L.pix = dy_pix(p);
    L.nkb = cdiv(p->Kg, KC);
    L.kc = cdiv(p->Kg, L.nkb);
    int64_t P = p->P;
    int64_t pp = rup(P, UNIT);
    /* NCHW-like dy with small images (7x7: 49 = 32 + 17 wastes a third of the 32-wide
       tiles), or awkward ones (14x14: 196 = 6 x 32 + 4) when the reduction outweighs the
       dx channels (the buffered epilogue then costs little), also swap: pixels are then
       the 14-row side and blocks run across images (measured on the ResNet-50 1x1 layers) */
    /* ... and at batch 1 also when the dx channels outweigh the reduction, from 256 dx channels
       (pw_b8_project, res4_reduce: the tiles of 14 channels and 32 positions were a ninth
       empty; with fewer channels, pw_b7_project, the buffered epilogue cost more than that) */
    L.swap = L.pix || (P < 128 || ((pp - P) * 16 > pp && (p->Kg > p->Cg || (p->N == 1 && p->Cg >= 256))));
    /* NHWC-like 7x7 and 14x14 images: hd_sgemm over the whole
       batch in place (it packs W and dy once per k chunk, where the tasks here would pack
       each again per k block; measured faster on those ResNet-50 layers) */
    L.whole = L.pix && unit_stride(p) && whole_ok(p) && P < 256;
    /* NHWC-like dy whose pixels' channel runs do not alias in L1: A is read in place through
       a table of pixel-row pointers (no transposed copy of dy) */
    L.inplace = L.pix && hd_conv_rows_spread(p->ys[4], L.MR);
    if (L.swap) {
        /* dx pixels packed (channels contiguous, positions linear across images): tiles of
           MR pixels are stored straight into dx */
        L.direct = unit_stride(p) && p->xs[1] == 1 && linear_positions(p->xs, p->in) &&
                   (p->N == 1 || p->xs[0] == p->Q * p->xs[4]);
        L.cross = 1;
        L.CT = L.NR;
    } else {
        L.cross = 0;
        L.direct = unit_stride(p) && p->xs[4] == 1 && linear_positions(p->xs, p->in);
        L.CT = L.MR;
    }
    /* position blocks: NCHW, up to SUBS sub-blocks whose panel (kc x sb) is about 64 Ki
       floats; NHWC, the block's panel about 32 Ki floats */
    int64_t Qt = L.cross ? p->N * P : P;
    int64_t sb = imax(128, imin(512, 65536 / L.kc)), nc = SUBS * sb;
    if (L.swap)
        nc = sb = imax(64, imin(512, 32768 / L.kc));
    /* swapped: positions are the MR-row side, so blocks of whole A tiles (a block of 32
       positions left their last 14-row tile 4 rows full) */
    int64_t U = L.swap ? L.MR : UNIT;
    L.npb = cdiv(Qt, nc);
    L.nc = imin(rup(cdiv(Qt, L.npb), U), Qt);
    L.npb = cdiv(Qt, L.nc);
    L.nmb = cdiv(p->Cg, MC);
    L.mb = rup(cdiv(p->Cg, L.nmb), L.CT);
    L.nmb = cdiv(p->Cg, L.mb);
    /* enough tasks for the threads: fewer sub-blocks per block, then split the larger
       operand's side first (channels when the filter outweighs an image of dy) */
    for (;;) {
        int64_t per_group = L.cross ? L.npb : p->N * L.npb;
        if (p->G * L.nmb * per_group >= MIN_TASKS)
            break;
        if (L.nc > sb)
            L.nc = imax(sb, rup(cdiv(L.nc, 2), U));
        else if (p->Cg >= P && L.mb >= 2 * L.CT)
            L.mb = rup(cdiv(L.mb, 2), L.CT);
        else if (L.swap && !L.pix && L.npb == 1 && L.nmb >= 4)
            /* NCHW-like small images, one position block, channel blocks of one panel: a
               second position block made each task copy its dy and pack its W block again
               (with one, the slot keeps dy and W is read in place); four or more channel
               blocks keep both threads busy */
            break;
        else if (L.nc >= 2 * U)
            L.nc = rup(cdiv(L.nc, 2), U);
        else if (L.mb >= 2 * L.CT)
            L.mb = rup(cdiv(L.mb, 2), L.CT);
        else
            break;
        L.nmb = cdiv(p->Cg, L.mb);
        L.npb = cdiv(Qt, L.nc);
    }
    L.sb = imin(rup(cdiv(L.nc, cdiv(L.nc, sb)), U), L.nc);
    /* slot: panel, result buffer (when some tile can need it), then the W^T block (NCHW) or
       W's tail panel (NHWC) */
    int bufd = !unit_stride(p) || !L.direct || L.cross;
    L.tab_at = 0;
    L.wall = 0;
    L.dyall = 0;
    L.pstep = 0;
    L.tpose = 0;
    L.tb_at = L.tld = 0;
    L.chfirst = 0;
    if (L.swap) {
        L.ld = 0;
        /* NCHW-like dy, swapped (or NHWC-like dy packed through the transposing pack): the
           block's dy panel of all k blocks kept while it is small, so
           that a thread's next task of the same positions (the channel blocks of a batch-1
           layer, one position block: with several, a thread's next task has other positions)
           copies nothing (each task copied all of dy again: conv_last copied it 10
           times) */
        int dyfit = (!L.pix || !L.inplace) && rup(L.nc, L.MR) * p->Kg <= X1_DY_ALL;
        /* ... and a batch-1 NCHW-like layer cut into several position and channel blocks whose
           W block is no larger than its dy block (res4_expand) runs its tasks channel blocks
           first, so that a thread's next task has the same positions: each task copied its dy
           block, and on two threads consecutive tasks of one channel block went to different
           threads anyway, so the kept W block never served twice (with a larger W block,
           res4a_proj, keeping W measured faster) */
        L.chfirst = !L.pix && p->N == 1 && L.npb > 1 && L.nmb > 1 && L.mb <= L.nc && dyfit;
        L.dyall = dyfit && (L.npb == 1 || L.chfirst);
        L.pstep = L.dyall ? rup(L.nc, L.MR) : 0;
        L.buf_at = L.inplace ? 0 : rup(rup(L.nc, L.MR) * (L.dyall ? p->Kg : L.kc), 16);
        L.aux_at = L.buf_at + (L.direct ? 0 : rup(L.nc * L.mb, 16));
        /* W's panels of all k blocks kept while small, as W^T below: each position block of a
           batch-1 layer packed the whole filter block again (res4_expand_os8 NHWC) */
        L.wall = L.nkb > 1 && rup(L.mb, L.NR) * L.kc * L.nkb <= X1_WT_ALL;
        /* ... but with one position block no task shares a channel block with another: each k
           block is then packed just before its products, while it is still in L2 (all of
           them first sent the block's first panels out to L3 before they were read) */
        if (L.npb == 1 || L.chfirst)
            L.wall = 0;
        /* NCHW-like dy in one position block (batch-1 small images): each channel block's
           panels would serve one task only, so W is read in place when its channel blocks
           are whole panels and its rows spread over the L1 sets */
        L.win = !L.pix && L.npb == 1 && p->Cg % L.NR == 0 && hd_conv_rows_spread(p->wst[0], 64);
        if (L.win)
            L.wall = 0;
        L.tab_at = L.aux_at + rup(L.kc * rup(L.mb, L.NR), 16) * (L.wall ? L.nkb : 1);
        L.slot = L.tab_at + (L.pix ? rup(cdiv(rup(L.nc, L.MR) * (int64_t)sizeof(float *), (int64_t)sizeof(float)), 16) : 0);
        /* strided dx in channel planes (the stride-2 projections): the buffer (positions x
           channels) is transposed into channel rows first, so that the epilogue writes each dx
           row as one run (it gathered the corners a buffer row apart, one element at a time) */
        L.tpose = !L.direct && !unit_stride(p) && p->xs[4] == 1 && p->xs[1] != 1;
        L.tb_at = L.slot;
        L.tld = rup(L.nc, 16);
        if (L.tpose)
            L.slot += rup(L.mb * L.tld, 16);
    } else {
        L.ld = rup(L.sb, L.NR);
        L.buf_at = rup(L.kc * L.ld, 16);
        L.aux_at = L.buf_at + (bufd ? rup(L.mb * L.ld, 16) : 0);
        /* several k blocks: W^T of all of them kept while it is small, so that a thread's next
           task of the same channel block packs nothing (each task repacked the whole filter
           block: a seventh of the time of batch-1 res3a_proj) */
        L.wall = L.nkb > 1 && L.mb * L.kc * L.nkb <= X1_WT_ALL;
        L.slot = L.aux_at + rup(L.mb * L.kc * (L.wall ? L.nkb : 1), 16);
    }
    return L;
}

/* HD_SCRATCH_SLOTS scratch slots. */
static hd_conv_layout layout_x1(const x1_plan *L)
{
    hd_conv_layout W = {{0}, 0};
    hd_conv_book(&W, 0, L->whole ? 0 : HD_SCRATCH_SLOTS, L->slot, sizeof(float));
    return W;
}

/* ---------------- execution ---------------- */


/* Plain C version of the k-major transpose (im2col-ukernels.h). */
static void cols_c(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt)
{
    for (int64_t i = 0; i < T; i++) {
        const float *s = src[i];
        for (int64_t k = 0; k < cnt; k++)
            dst[k * ld + i] = s ? s[k] : 0.0f;
    }
}


/* Task geometry: group, dx channels [m0, m0+nm) of the group, positions [q0, q0+nq) (global). */
static void task_geom(const x1_ctx *c, int64_t t, int64_t *g, int64_t *m0, int64_t *nm, int64_t *q0, int64_t *nq)
{
    const hd_conv_problem *p = c->p;
    const x1_plan *L = &c->L;
    int64_t per_group = L->cross ? L->npb : p->N * L->npb;
    /* positions fastest: consecutive tasks share their channel block's filter (chfirst:
       channel blocks fastest, consecutive tasks share their dy panel) */
    int64_t pbi = t % per_group, mbi = (t / per_group) % L->nmb;
    if (L->chfirst) {
        mbi = t % L->nmb;
        pbi = (t / L->nmb) % per_group;
    }
    *g = t / (per_group * L->nmb);
    *m0 = mbi * L->mb;
    *nm = imin(L->mb, p->Cg - *m0);
    if (L->cross) {
        *q0 = pbi * L->nc;
        *nq = imin(L->nc, p->N * p->P - *q0);
    } else {
        int64_t n = pbi / L->npb, b = pbi % L->npb;
        *q0 = n * p->P + b * L->nc;
        *nq = imin(L->nc, p->P - b * L->nc);
    }
}

/* NCHW: a panel of positions [q, q + nr) goes straight into dx when it lies in one image. */
static int panel_direct(const x1_ctx *c, int64_t q, int64_t nr)
{
    return c->L.direct && q / c->p->P == (q + nr - 1) / c->p->P;
}

/* Runs of consecutive buffered panels of the sub-block [s0, s0+ns): MODE to or from dx. */
static void nchw_cells(const x1_ctx *c, int mode, int64_t ch0, int64_t nm, int64_t s0, int64_t ns, float *buf)
{
    const int64_t NR = c->L.NR;
    for (int64_t jr = 0; jr < ns;) {
        if (panel_direct(c, s0 + jr, imin(NR, ns - jr))) {
            jr += NR;
            continue;
        }
        int64_t je = jr;
        while (je < ns && !panel_direct(c, s0 + je, imin(NR, ns - je)))
            je += NR;
        je = imin(je, ns);
        hd_x1_cells(c, mode, ch0, nm, s0 + jr, je - jr, buf + jr, c->L.ld, 1);
        jr = je;
    }
}

static void nchw_task(x1_ctx *c, size_t task, int thread)
{
    const hd_conv_problem *p = c->p;
    const x1_plan *L = &c->L;
    int64_t g, m0, nm, q0, nq;
    task_geom(c, (int64_t)task, &g, &m0, &nm, &q0, &nq);
    float *panel = c->slots + (size_t)thread * (size_t)L->slot, *buf = panel + L->buf_at, *abuf = panel + L->aux_at;
    hd_f32_gemm_ukernel_fn uk = L->kern->f32;
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    int64_t ch0 = g * p->Cg + m0, ntiles = cdiv(nm, L->MR), P = p->P;
    /* dy's rows read in place (B stride = plane) when every panel of the block is whole and
       stored straight into dx, there are few A tiles to sweep them (the copy pays off over
       many) and few rows per k block (each on a page of its own): each A tile then walks the
       rows as long runs, which the hardware prefetcher follows (with many rows per k block the
       runs, a page each, no longer stay in the prefetcher's reach from memory; a dy small
       enough to stay in the L3 cache, a batch-1 layer's, is read in place at any k block, which
       measured faster than the copy there and slower at batch 16) */
    int inplace = L->direct && q0 / P == (q0 + nq - 1) / P && nq % L->NR == 0 && ntiles <= X1_INPLACE_TILES &&
                  (L->kc <= X1_INPLACE_ROWS || p->N * p->K * P * (int64_t)sizeof(float) <= X1_INPLACE_L3);
    /* steps: (sub-block, k block), k blocks inner so that the sub-block's results stay in
       L2; each step prefetches the next one's dy rows while it multiplies */
    for (int64_t s0 = q0; s0 < q0 + nq; s0 += L->sb) {
        int64_t ns = imin(L->sb, q0 + nq - s0);
        if (beta != 0)
            nchw_cells(c, CELLS_LOAD, ch0, nm, s0, ns, buf);
        for (int64_t kb = 0; kb < L->nkb; kb++) {
            int64_t r0 = kb * L->kc, kcb = imin(L->kc, p->Kg - r0);
            float bd = kb > 0 ? 1.0f : beta, bb = kb > 0 || beta != 0 ? 1.0f : 0.0f;   /* direct, buffered */
            /* W^T of this channel block: packed again only when the thread's last step did not
               leave it in the slot (one k block, or all of them when they fit) -- a copy, so
               which thread ran what never changes a result */
            int64_t tag = (g * L->nmb + m0 / L->mb) + 1;
            const float *wt = abuf;
            if (L->wall) {
                wt = abuf + kb * L->mb * L->kc;
                if (kb == 0 && c->tag[thread] != tag) {
                    for (int64_t kk = 0; kk < L->nkb; kk++)
                        hd_x1_pack_wt(c, g, kk, m0, nm, abuf + kk * L->mb * L->kc);
                    c->tag[thread] = tag;
                }
            } else if (L->nkb > 1 || c->tag[thread] != tag) {
                hd_x1_pack_wt(c, g, kb, m0, nm, abuf);
                c->tag[thread] = L->nkb > 1 ? 0 : tag;
            }
            const float *yrows = c->dy + (s0 / P) * p->ys[0] + (g * p->Kg + r0) * p->ys[1] + s0 % P;
            if (inplace) {
                for (int64_t ir = 0; ir < nm; ir += L->MR)
                    for (int64_t jr = 0; jr < ns; jr += L->NR) {
                        int64_t q = s0 + jr;
                        uk((size_t)imin(L->MR, nm - ir), (size_t)L->NR, (size_t)kcb, wt + ir * kcb, yrows + jr,
                           (size_t)p->ys[1], c->dx + (q / P) * p->xs[0] + (ch0 + ir) * p->xs[1] + q % P,
                           (size_t)p->xs[1], alpha, bd);
                    }
                continue;
            }
            hd_x1_copy_rows(c, g, r0, kcb, s0, ns, panel, L->NR);
            /* the dy rows of the next step, into L2 a few lines per kernel call: the next k
               block, else the next sub-block, else the first sub-block of the task this thread
               probably takes next (tasks are dealt in order to whichever thread is free) */
            int last_kb = kb + 1 == L->nkb;
            int64_t xr0 = last_kb ? 0 : r0 + kcb, xkcb = imin(L->kc, p->Kg - xr0);
            int64_t xs0 = last_kb ? s0 + L->sb : s0, xns = imin(L->sb, q0 + nq - xs0), xg = g;
            if (xns <= 0 && p->N > 1 && (int64_t)task + c->nthreads < c->ntasks) {   /* batch 1: no gain */
                int64_t m2, nm2, nq2;
                task_geom(c, (int64_t)task + c->nthreads, &xg, &m2, &nm2, &xs0, &nq2);
                xns = imin(L->sb, nq2);
            }
            hd_conv_pf pf = HD_CONV_PF_NONE;
            if (xns > 0)
                hd_conv_pf_start(&pf, c->dy + (xs0 / P) * p->ys[0] + (xg * p->Kg + xr0) * p->ys[1] + xs0 % P, p->ys[1],
                                 xns, xkcb, ntiles * cdiv(ns, L->NR));
            for (int64_t ir = 0; ir < nm; ir += L->MR) {
                const float *ap = wt + ir * kcb;
                size_t mr = (size_t)imin(L->MR, nm - ir);
                for (int64_t jr = 0; jr < ns; jr += L->NR) {
                    hd_conv_pf_step(&pf);
                    int64_t q = s0 + jr, nr = imin(L->NR, ns - jr);
                    if (panel_direct(c, q, nr))
                        uk(mr, (size_t)nr, (size_t)kcb, ap, panel + jr * kcb, (size_t)L->NR,
                           c->dx + (q / P) * p->xs[0] + (ch0 + ir) * p->xs[1] + q % P, (size_t)p->xs[1], alpha, bd);
                    else
                        uk(mr, (size_t)nr, (size_t)kcb, ap, panel + jr * kcb, (size_t)L->NR, buf + ir * L->ld + jr,
                           (size_t)L->ld, alpha, bb);
                }
            }
        }
        nchw_cells(c, CELLS_STORE, ch0, nm, s0, ns, buf);
    }
}

static void nhwc_task(x1_ctx *c, size_t task, int thread)
{
    const hd_conv_problem *p = c->p;
    const x1_plan *L = &c->L;
    int64_t g, m0, nm, q0, nq;
    task_geom(c, (int64_t)task, &g, &m0, &nm, &q0, &nq);
    float *panel = c->slots + (size_t)thread * (size_t)L->slot, *buf = panel + L->buf_at, *wpk = panel + L->aux_at;
    hd_f32_gemm_ukernel_fn uk = L->kern->f32;
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    int64_t ch0 = g * p->Cg + m0, MR = L->MR, NR = L->NR, ldw = p->wst[0];
    /* dx pixels packed across images (direct): pixel q at dx + q * xs[4] */
    float *dxb = L->direct ? c->dx + (q0 / p->P) * p->xs[0] + (q0 % p->P) * p->xs[4] + ch0 : NULL;
    if (!dxb && beta != 0)
        hd_x1_cells(c, CELLS_LOAD, ch0, nm, q0, nq, buf, 1, L->mb);
    const float **tab = (const float **)(void *)(panel + L->tab_at);
    if (L->pix)
        hd_x1_pix_rows(c, g, q0, nq, tab);
    for (int64_t kb = 0; kb < L->nkb; kb++) {
        int64_t r0 = kb * L->kc, kcb = imin(L->kc, p->Kg - r0);
        float be = kb > 0 ? 1.0f : dxb ? beta : beta != 0 ? 1.0f : 0.0f;
        const float *wk = c->w + (g * p->Kg + r0) * ldw + m0;
        /* W's channel block as NR-wide panels (k-major, contiguous): in place, rows a
           channel count apart (4 KiB for 1024 channels) all fell into a few cache sets.
           Packed again only when the thread's last task did not leave them in the slot (one k
           block, or all of them when they fit) */
        int64_t tag = (g * L->nmb + m0 / L->mb) + 1, wstep = L->kc * rup(L->mb, NR);
        const float *wpan = wpk;
        int64_t wbs = NR, wjs = kcb;               /* B's row stride, offset per panel */
        if (L->win) {
            wpan = wk;
            wbs = ldw;
            wjs = 1;
        } else if (L->wall) {
            wpan = wpk + kb * wstep;
            if (kb == 0 && c->tag[thread] != tag) {    /* (kb 0: wk is W's row 0 of the group) */
                for (int64_t kk = 0; kk < L->nkb; kk++) {
                    int64_t rk = kk * L->kc;
                    hd_x1_pack_w(c, wk + rk * ldw, imin(L->kc, p->Kg - rk), nm, wpk + kk * wstep);
                }
                c->tag[thread] = tag;
            }
        } else if (L->nkb > 1 || c->tag[thread] != tag) {
            hd_x1_pack_w(c, wk, kcb, nm, wpk);
            c->tag[thread] = L->nkb > 1 ? 0 : tag;
        }
        const float *apanel = panel;
        if (L->pix && !L->inplace && !L->dyall)    /* (in place: A is dy's rows, through tab) */
            hd_x1_pack_pix(c, r0, kcb, nq, tab, panel);
        else if (!L->pix && !L->dyall)
            hd_x1_copy_rows(c, g, r0, kcb, q0, nq, panel, MR);
        else if (L->dyall) {
            /* all k blocks, once per thread and position block (a copy: which thread ran
               what never changes a result) */
            int64_t ptag = g * p->N * p->P + q0 + 1;
            if (kb == 0 && c->ptag[thread] != ptag) {
                for (int64_t kk = 0; kk < L->nkb; kk++) {
                    int64_t rk = kk * L->kc, kck = imin(L->kc, p->Kg - rk);
                    if (L->pix)
                        hd_x1_pack_pix(c, rk, kck, nq, tab, panel + rk * L->pstep);
                    else
                        hd_x1_copy_rows(c, g, rk, kck, q0, nq, panel + rk * L->pstep, MR);
                }
                c->ptag[thread] = ptag;
            }
            apanel = panel + r0 * L->pstep;
        }
        hd_igemm_seg seg = {tab, r0, kcb};
        for (int64_t ir = 0; ir < nq; ir += MR) {
            const float *ap = apanel + ir * kcb;
            size_t mr = (size_t)imin(MR, nq - ir);
            if (L->inplace)
                /* the rows two tiles ahead, as pack_pix does for its copy */
                hd_conv_prefetch_rows(tab, r0, ir + 2 * MR, imin(ir + 3 * MR, nq), kcb);
            /* dy's positions equally spaced (every full tile of a dense NHWC dy): the strided
               entry, which reloads no row pointer */
            hd_igemm_sseg ss;
            int strided = L->inplace && c->iks && hd_igemm_strided_segments(&seg, 1, (size_t)ir, (size_t)MR, &ss, 1);
            for (int64_t jr = 0; jr < nm; jr += NR) {
                size_t nr = (size_t)imin(NR, nm - jr);
                const float *bp = wpan + jr * wjs;
                size_t bs = (size_t)wbs, ldc = dxb ? (size_t)p->xs[4] : (size_t)L->mb;
                float *cp = dxb ? dxb + ir * p->xs[4] + jr : buf + ir * L->mb + jr;
                /* the indirect and the packed kernel round alike (igemm-ukernels.h) */
                if (strided)
                    c->iks(mr, nr, 1, &ss, bp, bs, cp, ldc, alpha, be);
                else if (L->inplace)
                    c->ik(mr, nr, 1, &seg, (size_t)ir, bp, bs, cp, ldc, alpha, be);
                else
                    uk(mr, nr, (size_t)kcb, ap, bp, bs, cp, ldc, alpha, be);
            }
        }
    }
    if (!dxb && c->tile)
        hd_x1_store_planes(c, ch0, nm, q0, nq, buf, L->mb);
    else if (L->tpose) {
        /* a copy (alpha 1, beta 0): the same bits in the other order */
        float *tb = panel + L->tb_at;
        c->ttile(nq, nm, buf, L->mb, tb, L->tld, 1.0f, 0.0f);
        hd_x1_cells(c, CELLS_STORE, ch0, nm, q0, nq, tb, L->tld, 1);
    } else if (!dxb)
        hd_x1_cells(c, CELLS_STORE, ch0, nm, q0, nq, buf, 1, L->mb);
}

/* One task, dealt from a counter (hd_parallel_deal): which thread runs it only picks its
 * scratch slot, never its arithmetic. */
static void x1_task(void *vctx, size_t t, int thread)
{
    x1_ctx *c = vctx;
    if (c->L.swap)
        nhwc_task(c, t, thread);
    else
        nchw_task(c, t, thread);
}

/* ---------------- the solver ---------------- */

/* Spatial positions of a tensor (strides S, dims D) contiguous: pos * 1. */
static int planes(const int64_t s[5], const int64_t d[3]) { return s[4] == 1 && linear_positions(s, d); }

size_t hd_conv_bwdd_1x1_ws(const hd_conv_problem *p)
{
    x1_plan L = plan_x1(p);
    return layout_x1(&L).total;
}

int hd_conv_bwdd_1x1_app(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "the 1x1 backward-data solver takes FLOAT x, w and y only";
        return 0;
    }
    for (int j = 0; j < 3; j++)
        if (p->flt[j] != 1 || p->pad[j] != 0) {
            *reason = "needs a 1x1 filter and no padding";
            return 0;
        }
    if (!dy_pix(p) && !planes(p->ys, p->out)) {
        *reason = "needs packed channel planes (NCHW-like) or contiguous channels (NHWC-like) in dy";
        return 0;
    }
    if (p->wst[1] != 1) {
        *reason = "needs the filter's channels contiguous";
        return 0;
    }
    if (p->Cg * p->Kg < 64) {
        *reason = "too few channels for a GEMM";
        return 0;
    }
    if (hd_conv_bwdd_1x1_ws(p) == SIZE_MAX) {
        *reason = "its workspace would not fit in size_t";
        return 0;
    }
    return 1;
}

double hd_conv_bwdd_1x1_cost(const hd_conv_problem *p)
{
    (void)p;
    return 0.25;
}

void hd_conv_bwdd_1x1_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    x1_ctx c;
    c.p = p;
    c.a = a;
    c.L = plan_x1(p);
    if (c.L.whole) {                               /* its result does not depend on the threads */
        for (int64_t g = 0; g < p->G; g++)
            hd_sgemm(a->nthreads, 'N', 'N', (size_t)(p->N * p->Q), (size_t)p->Cg, (size_t)p->Kg, (float)a->epi.alpha,
                     (const float *)a->y + g * p->Kg, (size_t)p->ys[4], (const float *)a->w + g * p->Kg * p->wst[0],
                     (size_t)p->wst[0], (float)a->epi.beta, (float *)a->out + g * p->Cg, (size_t)p->xs[4]);
        return;
    }
    hd_conv_layout W = layout_x1(&c.L);
    c.dy = a->y;
    c.w = a->w;
    c.dx = a->out;
    c.slots = (float *)((char *)a->ws + W.off[0]);
    c.cols = hd_f32_im2col_cols_kernel(p->isa);
    if (!c.cols)
        c.cols = cols_c;
    c.ik = hd_igemm_kernel_for(p->isa)->fn;
    c.iks = hd_igemm_kernel_for(p->isa)->fn_strided;
    c.tile = c.L.swap && unit_stride(p) && p->xs[4] == 1 && linear_positions(p->xs, p->in) ? hd_f32_tile_select(p->isa)
                                                                                          : NULL;
    c.ttile = c.L.tpose ? hd_f32_tile_select(p->isa) : NULL;
    for (int i = 0; i < HD_SCRATCH_SLOTS; i++)
        c.tag[i] = c.ptag[i] = 0;
    int64_t per_group = c.L.cross ? c.L.npb : p->N * c.L.npb;
    size_t ntasks = (size_t)(p->G * c.L.nmb * per_group);
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    if (nt < 1)
        nt = 1;
    c.nthreads = nt;
    c.ntasks = (int64_t)ntasks;
    hd_parallel_deal(ntasks, nt, x1_task, &c);
}

/* The name keeps "blocked_gemm_f32": it runs on the packed-panel SGEMM of that family. */
const hd_conv_solver hd_solver_bwdd_1x1 = {
    .id = 253, .name = "bwd_data.1x1_blocked_gemm_f32", .dir = HD_CONV_BWD_DATA, .algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, .deterministic = 1,
    .applicable = hd_conv_bwdd_1x1_app, .workspace = hd_conv_bwdd_1x1_ws, .run = hd_conv_bwdd_1x1_exec, .cost_factor = 0.25, .cost = hd_conv_bwdd_1x1_cost};
