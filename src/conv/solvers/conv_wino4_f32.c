/*
 * Winograd F(4x4, 3x3) convolution in fp32 (conv/solvers/conv_wino4.h): the forward solver
 * and the backward-data solver, one engine.
 *
 * The engine computes a forward convolution described by a view (w4_view, conv_wino4_view.h):
 * input planes (x forward, dy backward data), output planes (y, dx), padding, dilation, and
 * how to reach tap (r, s) of filter (group, output channel, input channel).  Backward data at
 * stride 1 is the forward convolution of dy with the filter rotated by 180 degrees and its
 * k / c roles exchanged, padded by 2 d - pad: its view only swaps strides and reverses the
 * taps, so the rotated, transposed filter goes straight into the transformed-filter packing
 * and dy / dx are read and written in place.
 *
 * Dilated problems run as their d*d phases, more images of the same plan (the view and the
 * tile enumeration, conv_wino4_view.h).
 *
 * Per call:
 *   1. the filter of every (k, c) is transformed to its 36 values U = G g G^T (in double,
 *      rounded once) and stored as packed GEMM A panels: for each group and each of the 36
 *      positions, K in panels of MR rows, each panel Cg rows of MR values (positions a
 *      little more than a whole number of 4 KiB pages apart, see pos_stride);
 *   2. the output tiles (4x4, raster order over n, tile row, tile column) are cut into blocks
 *      of T tiles; a task takes one (group, tile block, K range): it transforms the input
 *      tiles of its block into packed B panels (for each position, T tiles in panels of NR
 *      columns, each Cg rows of NR values), then, for a sub-block of K at a time, runs the
 *      36 GEMMs M[pos] = U[pos] V[pos] with the SGEMM micro-kernel (one call per MR x NR
 *      tile, depth Cg in one go, so A and B are read exactly as packed) and transforms the
 *      products back into the output through the epilogue.
 * With few tile blocks (small images) step 1 is skipped: each task transforms the filter
 * panels of its K range into its own scratch area, and when there is a single block that the
 * tasks split over K, its input is transformed once (in parallel over channel chunks) into a
 * V they share.
 * The partition (T, the K ranges and sub-blocks) depends on the problem and the ISA only,
 * and every output element is computed by one task in a fixed order, so the result does not
 * depend on the thread count.  Tasks use one of W4_SLOTS scratch areas by thread index: the
 * workspace is the transformed filter (or the shared V) plus W4_SLOTS x (V block, unless
 * shared + M sub-block [+ the task's filter panels]).
 */
#include "conv/solvers/conv_solvers.h"
#include "conv/solvers/conv_wino4.h"
#include "conv/solvers/conv_wino4_view.h"

#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/gemm/gemm-ukernels.h"

#include <string.h>

#define W4_SLOTS 8
#define MIN_TASKS 8                     /* cut small problems finer, down to this many tasks */
#define V_BUDGET ((int64_t)1 << 20)     /* bytes of one transformed input block (L2) */
#define M_BUDGET ((int64_t)512 << 10)   /* bytes of one product sub-block (L2) */
#define T_MAX 128                       /* tiles per block */
#define OTF_BLOCKS 4                    /* tile blocks up to which filters are transformed per task */
#define U_SPLIT_BYTES ((int64_t)4 << 20) /* a transformed filter above this: two K ranges per tile block */
#define U_BUDGET ((int64_t)512 << 10)   /* bytes of one chunk of a task's transformed filter panels */
#define V_STREAMED ((int64_t)4 << 20)   /* a transformed input block at least this large: read from
                                           memory by every sub-block (see w4_plan_make) */
#define SHARED_CHANNELS 32              /* channels per task of the shared input transform */
#define IN_CHANNELS 8                   /* channels per input transform call */

/* ---------------- the plan ---------------- */

/* Two forms of the same computation (bitwise the same results on AVX-512):
 *  - tile lanes (any layout): the transforms take 16 (8) tiles per vector; U is the GEMM's A
 *    side (panels of MR filters, SGEMM micro-kernel), V the B side (panels of NR tiles);
 *  - channel lanes (x and y with contiguous channels, AVX-512): the transforms take 16
 *    channels of one tile per vector, so each window element is one load and each output
 *    one store; V^T (rows = tiles, channels contiguous) is read in place as the A side of the
 *    6 x 64 kernel of wino4-ukernels.h, U^T (panels of 64 filters) is the B side. */
typedef struct {
    const hd_gemm_kernel *gk;
    const hd_wino4_kernels *wk;
    int cl;                       /* 1: channel lanes */
    int64_t FP, TP;               /* filters per U panel (MR, or 64), tiles per GEMM block (NR, or 6) */
    int64_t gs;                   /* tiles per transform call */
    int64_t TH, TW, ntiles;       /* tile rows and columns per image, tiles in all */
    int64_t Kpan;                 /* panels of FP filters per group */
    int64_t T, ntb;               /* tiles per block (a multiple of TP), blocks */
    int64_t nkq, kbp;             /* K ranges per block (tasks), panels per M sub-block */
    int64_t ldv, ldm;             /* channel lanes: floats between the positions of a tile in V^T, M^T */
    int64_t cc;                   /* channels per chunk of the filters a task transforms (Cg if not) */
    int otf;                      /* 1: each task transforms its filter panels itself */
    int shared;                   /* 1: one tile block, split over K: its input is transformed
                                   * once, into a V shared by the tasks */
    hd_conv_layout W;
} w4_plan;

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Whether the view's filter is split into 3x3 pieces (conv_wino4_view.h). */
static int w4_split(const w4_view *v) { return v->nqh * v->nqw > 1; }

/* Distance between the 36 positions of V and M: a whole number of 4 KiB pages plus one cache
 * line, so that the 36 rows a transform reads or writes fall into 36 different L1 sets (a
 * multiple of 4 KiB would put them all into one set, 12 ways for 36 lines). */
static int64_t pos_stride(int64_t floats) { return cdiv(floats, 1024) * 1024 + 16; }

/* Channel lanes: a tile's positions n floats apart (n a multiple of 16), one line more when
 * a tile (36 positions) would be a whole number of 4 KiB pages: the 6 A rows of a GEMM block
 * would share their L1 sets. */
static int64_t cl_ld(int64_t n)
{
    n = cdiv(n, 16) * 16;
    return (36 * n * 4) % 4096 ? n : n + 16;
}

/* V of one tile block, M of one sub-block, U of one task's sub-block (floats). */
static int64_t v_floats(const w4_view *v, const w4_plan *L)
{
    return L->cl ? L->T * 36 * L->ldv : 36 * pos_stride(v->Cg * L->T);
}
static int64_t m_floats(const w4_plan *L)
{
    return L->cl ? L->T * 36 * L->ldm : 36 * pos_stride(L->kbp * L->FP * L->T);
}
static int64_t u_sub_floats(const w4_plan *L) { return 36 * pos_stride(L->kbp * L->FP * L->cc); }

/* Whether V is so much larger than L2 that every pass over it comes from memory (see
 * w4_book and w4_plan_make for what the plan does about it). */
static int v_streamed(const w4_view *v, const w4_plan *L) { return v_floats(v, L) * 4 >= V_STREAMED; }

/* One slot: V (unless shared by all tasks), M and, transforming on the fly, U. */
static int64_t slot_floats(const w4_view *v, const w4_plan *L)
{
    return (L->shared ? 0 : v_floats(v, L)) + m_floats(L) + (L->otf ? u_sub_floats(L) : 0);
}

static void w4_book(const w4_view *v, w4_plan *L)
{
    hd_conv_layout W = {{0}, 0};
    L->shared = L->ntb == 1 && L->nkq > 1;
    L->ldm = L->cl ? cl_ld(L->kbp * L->FP) : 0;
    /* channel lanes: a task's filter panels in chunks of channels that stay in L2 (16 at
     * least); the tile-lane form keeps whole panels (its K sub-blocks are sized for that:
     * cut into chunks, the SGEMM calls ran at a third of the speed).  Not when V is 4 MiB or
     * more: a chunk reads a piece of each of V's rows (48 of 512 channels: 192 of 2048 bytes),
     * which then come from memory scattered; whole rows read in order, with the panels and
     * the products passed once, are faster there (with a smaller V the chunks stay faster). */
    L->cc = v->Cg;
    if (L->otf && L->cl && !v_streamed(v, L)) {
        int64_t cc = U_BUDGET / (36 * 4 * L->kbp * L->FP) / 16 * 16;
        L->cc = cc < 16 ? 16 : cc < v->Cg ? cc : v->Cg;
    }
    hd_conv_book(&W, 2, L->shared ? v->G : 0, v_floats(v, L), sizeof(float));
    hd_conv_book(&W, 0, L->otf ? 0 : v->G * 36, pos_stride(L->Kpan * v->Cg * L->FP), sizeof(float));
    hd_conv_book(&W, 1, W4_SLOTS, slot_floats(v, L), sizeof(float));
    /* a filter split into 3x3 pieces: the pieces as a 3x3 filter over the virtual channels */
    hd_conv_book(&W, 3, w4_split(v) ? v->G * v->Kg : 0, v->Cg * 9, sizeof(float));
    L->W = W;
}

/* 0 when no block size keeps the workspace within max(input, 64 MiB). */
static int w4_plan_make(const w4_view *v, w4_plan *L)
{
    memset(L, 0, sizeof *L);
    hd_isa_t isa = v->isa;
    L->gk = hd_gemm_kernel_for(sizeof(float), isa);
    L->wk = hd_wino4_kernel_for(isa);
    /* channel lanes: both tensors' channels contiguous, enough of them to fill the vectors */
    L->cl = L->wk->in_c && L->wk->out_c && L->wk->gemm && L->wk->isa >= HD_ISA_AVX512 && v->xs[1] == 1 &&
            v->ys[1] == 1 && v->Cg >= 8 && v->Kg >= 8;
    if (L->cl) {
        L->FP = HD_WINO4_GEMM_NR;
        L->TP = HD_WINO4_GEMM_MR;
        L->gs = HD_WINO4_LANES;
    } else {
        L->FP = (int64_t)L->gk->mr;
        L->TP = (int64_t)L->gk->nr;
        if (L->FP > HD_WINO4_LANES)   /* the filter transform takes one A panel per call */
            return 0;
        L->gs = L->wk->width == 1 ? L->TP : L->wk->width;
        if (L->gs > HD_WINO4_LANES || L->TP % L->gs)
            L->gs = 1;
    }
    L->ldv = L->cl ? cl_ld(v->Cg) : 0;
    /* tiles per phase: those of the largest (phase 0's sub-grid); the tiles a smaller phase
       does not have write nothing (out_tiles) */
    L->TH = cdiv(cdiv(v->OH, v->dh), 4);
    L->TW = cdiv(cdiv(v->OW, v->dw), 4);
    L->ntiles = v->N * v->dh * v->dw * L->TH * L->TW;
    L->Kpan = cdiv(v->Kg, L->FP);
    int64_t TP = L->TP, Cg = v->Cg;
    int64_t T = T_MAX / TP * TP > TP ? T_MAX / TP * TP : TP;
    L->kbp = 1;
    L->ldm = L->cl ? cl_ld(L->FP) : 0;
    for (;;) {
        L->T = T;
        if (T <= TP || (v_floats(v, L) * 4 <= V_BUDGET && (!L->cl || m_floats(L) * 4 <= M_BUDGET)))
            break;
        T -= TP;
    }
    if (T > cdiv(L->ntiles, TP) * TP)
        T = cdiv(L->ntiles, TP) * TP;
    while (T > TP && v->G * cdiv(L->ntiles, T) < MIN_TASKS)
        T -= TP;
    if (L->ntiles <= T_MAX)       /* one block: the tasks split K, the filter is transformed once */
        T = cdiv(L->ntiles, TP) * TP;
    L->T = T;
    L->ntb = cdiv(L->ntiles, T);
    L->nkq = 1;
    while (v->G * L->ntb * L->nkq < MIN_TASKS && v->Kg / (L->nkq + 1) >= 64 && L->nkq < L->Kpan)
        L->nkq++;
    /* One tile block: its K ranges are the only tasks, and an odd count leaves two threads
     * unequal shares (AlexNet conv2, batch 1: 4, 5, 5 panels, one thread 4, the other 10), so
     * an even count of equal ranges where the panels allow (never changes a result). */
    if (v->G * L->ntb == 1 && L->nkq % 2)
        for (int64_t q = L->nkq - 1; q >= 2; q -= 2)
            if (L->Kpan % q == 0) {
                L->nkq = q;
                break;
            }
    /* Few tile blocks: transforming each block's filters again costs less than a round trip
     * of the whole transformed filter (4x the filter) through memory. */
    L->otf = L->ntb <= OTF_BLOCKS;
    /* A transformed filter far larger than L2 is read from memory once per tile block; split
     * over two K ranges (tasks in K-range-major order, so with the contiguous static dealing
     * each of two threads streams its own half), the traffic per thread halves for one more
     * input transform per block.  That pays only for a large U (above U_SPLIT_BYTES); with a
     * U of a few MB the extra transforms cost more than the traffic saved. */
    if (!L->otf && L->nkq == 1 && L->Kpan >= 2 && 36 * v->Kg * Cg * (int64_t)sizeof(float) > U_SPLIT_BYTES)
        L->nkq = 2;
    L->kbp = cdiv(L->Kpan, L->nkq);
    L->ldm = L->cl ? cl_ld(L->kbp * L->FP) : 0;
    L->cc = Cg;
    /* The task's transformed filter panels are kept within 2 * U_BUDGET so that they stay in
     * L2 while the sub-block's GEMMs stream V past them -- unless V is far larger than L2:
     * then every sub-block reads all of V from memory again, and fewer, larger sub-blocks
     * save more than the panels' stay in L2 (with a V of a few MB, larger sub-blocks are
     * slower). */
    int u_cap = L->otf && !L->cl && !v_streamed(v, L);
    while (L->kbp > 1 && (m_floats(L) * 4 > M_BUDGET || (u_cap && u_sub_floats(L) * 4 > 2 * U_BUDGET))) {
        L->kbp--;
        L->ldm = L->cl ? cl_ld(L->kbp * L->FP) : 0;
    }
    size_t xbytes = (size_t)(v->N * v->G * Cg * v->H * v->W) * sizeof(float);
    size_t cap = xbytes > ((size_t)64 << 20) ? xbytes : ((size_t)64 << 20);
    for (;;) {
        w4_book(v, L);
        if (L->W.total <= cap)
            break;
        if (L->kbp > 1)
            L->kbp = (L->kbp + 1) / 2;
        else if (L->T > TP)
            L->T -= TP;
        else
            return 0;
        L->ntb = cdiv(L->ntiles, L->T);
    }
    /* Few tasks: blocks of equal size, as many, none larger (49 tiles: 30 + 19, not 36 + 13). */
    if (L->ntb > 1 && v->G * L->ntb * L->nkq < MIN_TASKS) {
        int64_t even = cdiv(cdiv(L->ntiles, L->ntb), L->TP) * L->TP;
        if (even < L->T && cdiv(L->ntiles, even) == L->ntb) {
            L->T = even;
            w4_book(v, L);
        }
    }
    return 1;
}

/* ---------------- applicability, workspace, cost ---------------- */

static int w4_app(const hd_conv_problem *p, const w4_view *v, const char **reason)
{
    if (!(w4_split(v) ? hd_conv_wino4_split_shape_ok(p, reason) : hd_conv_wino4_shape_ok(p, reason)))
        return 0;
    if (v->ph < 0 || v->pw < 0) {
        *reason = w4_split(v) ? "backward-data Winograd F(4x4,3x3) in 3x3 pieces needs padding < the filter size"
                              : "backward-data Winograd F(4x4,3x3) needs padding <= 2 * dilation";
        return 0;
    }
    /* the input gathers use 32-bit element offsets from the channel's origin (a piece's
       window reaches 3 (nq - 1) further) */
    const int64_t *xs = v->xs;
    int64_t reach = (v->N - 1) * xs[0] + (v->H + 6 * v->dh + 3 * (v->nqh - 1)) * xs[3] +
                    (v->W + 6 * v->dw + 3 * (v->nqw - 1)) * xs[4];
    if (xs[0] < 0 || xs[3] < 0 || xs[4] < 0 || reach >= INT32_MAX) {
        *reason = "the input is too large for the 32-bit offsets of the Winograd F(4x4,3x3) gathers";
        return 0;
    }
    /* so are the filter gathers, over the lanes of a panel (a split filter: of its pieces,
       9 Cg floats per filter) */
    if (v->wk < 0 || v->wc < 0 || 15 * (w4_split(v) ? 9 * v->Cg : v->wk) >= INT32_MAX) {
        *reason = "the filter is too large for the 32-bit offsets of the Winograd F(4x4,3x3) filter gathers";
        return 0;
    }
    w4_plan L;
    if (!w4_plan_make(v, &L)) {
        *reason = "the Winograd F(4x4,3x3) workspace would exceed max(input, 64 MiB)";
        return 0;
    }
    return 1;
}

static size_t w4_ws(const w4_view *v)
{
    w4_plan L;
    return w4_plan_make(v, &L) ? L.W.total : SIZE_MAX;
}

/* Estimated time in units of one multiply-add of the blocked GEMM solver (cost factor 0.4),
 * first fitted to single-thread CPU-time measurements of both solvers on the ResNet-50 and
 * VGG-16 3x3 layers at batch 1 and 16 (AVX-512; docs/algorithms.md): per GEMM multiply-add 1.0
 * (padding of K and of the last tile panel included, see w4_gemm_tiles), per input tile and channel 200
 * (per K range, unless shared), per output tile and filter 700, per transformed 3x3 filter and
 * tile block that transforms it again 300 (tile lanes) or 250 (channel lanes: chunks kept in
 * L2, loads transposed in registers), 1000 when transformed once for the call (the 4x larger
 * result goes through memory).  The filter constants are set so that the ranking follows the
 * measurements against solvers 150 and 254: batch-1 NHWC res4 (16 tiles) ranks Winograd
 * first and res5 (4 tiles) does not, and batch-1 NCHW res4 and VGG conv5 (14x14, 256 and 512
 * channels), where Winograd is the faster, rank it first too (docs/algorithms.md). */
/* Tile columns the GEMMs compute over all blocks: whole panels of TP, except that a last
 * panel of at most 16 tiles costs 16 where TP is 32 (the AVX-512 14x32 kernel then runs one
 * column vector: 16 tiles at batch 1 for a 14x14 image). */
static double w4_gemm_tiles(const w4_plan *L)
{
    double sum = 0;
    for (int64_t b = 0; b < L->ntb; b++) {
        int64_t n = L->ntiles - b * L->T < L->T ? L->ntiles - b * L->T : L->T;
        int64_t full = n / L->TP * L->TP, rem = n - full;
        sum += (double)full + (double)(rem == 0 ? 0 : rem <= 16 && L->TP > 16 ? 16 : L->TP);
    }
    return sum;
}

static double w4_cost(const w4_view *v)
{
    w4_plan L;
    if (!w4_plan_make(v, &L))
        return 1e9;
    double blocks = (double)(L.ntb * L.T), kc = (double)(v->G * v->Kg * v->Cg);
    double gemm = 36.0 * (double)(L.Kpan * L.FP) * (double)v->Cg * w4_gemm_tiles(&L) * (double)v->G;
    double in = 200.0 * blocks * (double)(v->G * v->Cg * (L.shared ? 1 : L.nkq));
    double out = 700.0 * (double)(cdiv(L.ntiles, HD_WINO4_LANES) * HD_WINO4_LANES) * (double)(v->G * v->Kg);
    double filt = L.otf ? (L.cl ? 250.0 : 300.0) * kc * (double)L.ntb : 1000.0 * kc;
    /* per multiply-add of the real filter (a split filter's pieces have zero taps) */
    double macs = (double)(v->N * v->OH * v->OW) * (double)(v->G * v->Kg) * (double)(v->Cr * v->R * v->S);
    return 0.4 * (gemm + in + out + filt) / macs;
}

/* ---------------- execution ---------------- */

typedef struct {
    const w4_view *v;
    const hd_conv_args *a;
    const float *src, *w;         /* the view's input and filter */
    float *dst;                   /* its output */
    w4_plan L;
    float *U, *slots, *vshared;
    size_t slot_floats;
} w4_ctx;

/* Filter panel kp of group g at all 36 positions (upos floats apart), per channel:
 *  - tile lanes: the A panel of the MR filters, 36 runs of MR values per channel (rows of the
 *    last panel past Kg are not written: the GEMM rows they feed are never stored);
 *  - channel lanes: the B panel of 64 filters, 36 rows of 64 values per channel, in 4 calls of
 *    16 lanes (columns past Kg are not written: never stored either).
 * With tile lanes, before each transform call the taps of the next one are prefetched (the
 * next channels, or the first call of panel kp + 1 when kp + 1 < KEND), so that its loads
 * overlap this call's arithmetic. */
static void transform_panel(const w4_ctx *c, int64_t g, int64_t kp, int64_t kend, int64_t c0, int64_t c1, float *base,
                            size_t upos)
{
    const w4_view *v = c->v;
    int64_t FP = c->L.FP;
    int64_t nk = v->Kg - kp * FP < FP ? v->Kg - kp * FP : FP;
    const float *wg = c->w + g * v->wg, *w = wg + kp * FP * v->wk + c0 * v->wc;
    /* 16 channels at a time over all lane groups: the groups' filter lines are neighbours */
    for (int64_t ch = 0; ch < c1 - c0; ch += 16) {
        int64_t nc = c1 - c0 - ch < 16 ? c1 - c0 - ch : 16;
        for (int64_t q = 0; q < nk; q += HD_WINO4_LANES) {
            int n = (int)(nk - q < HD_WINO4_LANES ? nk - q : HD_WINO4_LANES);
            /* tile lanes (one lane group: MR <= 16): the next call's taps, the next 16
               channels or else panel kp + 1's first; not with channel lanes, where the kernel
               prefetches further channels itself and this gave no measured gain */
            if (!c->L.cl && ch + 16 < c1 - c0) {
                int64_t nc2 = c1 - c0 - ch - 16 < 16 ? c1 - c0 - ch - 16 : 16;
                hd_w4_prefetch_filters(v, w + (ch + 16) * v->wc, nk, nc2);
            } else if (!c->L.cl && kp + 1 < kend) {
                int64_t nk2 = v->Kg - (kp + 1) * FP < FP ? v->Kg - (kp + 1) * FP : FP;
                hd_w4_prefetch_filters(v, wg + (kp + 1) * FP * v->wk + c0 * v->wc, nk2, c1 - c0 < 16 ? c1 - c0 : 16);
            }
            c->L.wk->filter(w + q * v->wk + ch * v->wc, v->wk, v->wc, v->tap, n, nc, base + ch * FP + q, upos,
                            (size_t)FP);
        }
    }
}

/* Task (g, kp) of the whole transformed filter U. */
static void w4_filter_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    w4_ctx *c = vctx;
    int64_t Kpan = c->L.Kpan, CgFP = c->v->Cg * c->L.FP;
    int64_t g = (int64_t)task / Kpan, kp = (int64_t)task % Kpan;
    size_t upos = (size_t)pos_stride(Kpan * CgFP);
    transform_panel(c, g, kp, kp + 1, 0, c->v->Cg, c->U + (size_t)(g * 36) * upos + (size_t)(kp * CgFP), upos);
}

/* The fused epilogue for NK consecutive channels from CH0 of one output position (offset
 * POS without the channel), raw values in RAW (the channel-lane layout's raw tile row). */
static void fuse_channels(const hd_conv_args *a, const w4_view *v, int64_t ch0, int64_t nk, int64_t pos, const float *raw)
{
    const hd_conv_epilogue *e = &a->epi;
    const float alpha = (float)e->alpha, alpha2 = (float)e->alpha2, *bias = e->bias;
    const float *z = alpha2 != 0 ? e->z : NULL;
    float *y = a->out;
    const int relu = e->relu;
    const int64_t bs = e->bias_stride, cs = v->ys[1];
    for (int64_t kk = 0; kk < nk; kk++) {
        int64_t ch = ch0 + kk, o = ch * cs + pos;
        float val = alpha * raw[kk] + bias[ch * bs];
        if (z)
            val += alpha2 * z[o];
        y[o] = relu ? (val > 0 ? val : 0.0f) : val;
    }
}

/* Channels per output-transform call on the fused path (NCHW-style layout): the raw tiles
 * of 4 channels of a 16-tile group are 4 KiB, in L1 when the epilogue reads them. */
#define FUSE_CHANNELS 4

/* The fused epilogue from raw tiles (the output transform's RAW mode, written with plain
 * vector stores just before) to y: act(alpha raw + bias + alpha2 z).  z is read before y is
 * written, so z may be the output itself. */
static void fuse_raw(const hd_conv_args *a, const w4_view *v, const hd_wino4_out_tiles *ot, int64_t ch0, int64_t nk,
                     const float *raw)
{
    const hd_conv_epilogue *e = &a->epi;
    const float alpha = (float)e->alpha, alpha2 = (float)e->alpha2, *bias = e->bias;
    const float *z = alpha2 != 0 ? e->z : NULL;
    float *y = a->out;
    const int relu = e->relu;
    const int64_t bs = e->bias_stride, cs = v->ys[1], hs = ot->hs, ws = ot->ws;
    for (int64_t kk = 0; kk < nk; kk++) {
        const int64_t ch = ch0 + kk;
        const float b = bias[ch * bs];
        for (int i = 0; i < ot->lanes; i++) {
            const float *rt = raw + (kk * HD_WINO4_LANES + i) * 16;
            for (int r = 0; r < ot->nrow[i]; r++) {
                int64_t o = ch * cs + ot->off[i] + r * hs;
                if (ot->ncol[i] == 4 && ws == 1) {
                    /* a whole contiguous tile row: one 4-wide vector (SSE) pass, one store */
                    float t[4], zt[4] = {0, 0, 0, 0};
                    if (z)
                        memcpy(zt, z + o, sizeof zt);
                    for (int q = 0; q < 4; q++) {
                        t[q] = alpha * rt[4 * r + q] + b + alpha2 * zt[q];
                        t[q] = relu ? (t[q] > 0 ? t[q] : 0.0f) : t[q];
                    }
                    memcpy(y + o, t, sizeof t);
                    continue;
                }
                for (int s = 0; s < ot->ncol[i]; s++, o += ws) {
                    float val = alpha * rt[4 * r + s] + b;
                    if (z)
                        val += alpha2 * z[o];
                    y[o] = relu ? (val > 0 ? val : 0.0f) : val;
                }
            }
        }
    }
}

/* Input transform of channels c0..c1 of group g, tile block tb, into V: the B panels of the
 * block (tile lanes; positions pos_stride(Cg*T) apart, tiles past the end zero) or V^T (channel
 * lanes; tiles past the end not written: the GEMM rows they feed are never stored). */
static void transform_input(const w4_ctx *c, int64_t g, int64_t tb, int64_t c0, int64_t c1, float *V)
{
    const w4_view *v = c->v;
    const w4_plan *L = &c->L;
    int64_t T = L->T, Cg = v->Cg, gs = L->gs;
    int64_t t0 = tb * T, nt = L->ntiles - t0 < T ? L->ntiles - t0 : T;
    const int64_t Cr = v->Cr;
    const float *xg = c->src + g * Cr * v->xs[1];
    hd_wino4_in_tiles it;
    /* virtual channels c0..c1 piece by piece: piece q's channels q*Cr.. read the real
       channels 0..Cr-1 through q's shift */
    for (int q = (int)(c0 / Cr); q * Cr < c1; q++) {
        int64_t v0 = c0 > q * Cr ? c0 : q * Cr, v1 = c1 < (q + 1) * Cr ? c1 : (q + 1) * Cr;
        if (L->cl) {
            for (int64_t j = 0; j < nt; j += gs) {
                hd_w4_in_tiles(v, L->TH, L->TW, t0 + j, nt - j, (int)(nt - j < gs ? nt - j : gs), q, &it);
                L->wk->in_c(xg + (v0 - q * Cr), v1 - v0, &it, V + j * 36 * L->ldv + v0, (size_t)L->ldv,
                            (size_t)(36 * L->ldv));
            }
            continue;
        }
        int64_t NR = L->TP, ntp = cdiv(nt, NR);
        size_t vpos = (size_t)pos_stride(Cg * T);
        hd_wino4_in_tiles its[T_MAX];
        int64_t ngrp = ntp * NR / gs;
        for (int64_t j = 0; j < ngrp; j++)
            hd_w4_in_tiles(v, L->TH, L->TW, t0 + j * gs, nt - j * gs, (int)gs, q, &its[j]);
        /* a few channels at a time over all tiles: the block's rows of those channels stay in L1 */
        for (int64_t ch = v0; ch < v1; ch += IN_CHANNELS) {
            int64_t nc = v1 - ch < IN_CHANNELS ? v1 - ch : IN_CHANNELS;
            for (int64_t j = 0; j < ngrp; j++) {
                int64_t col = j * gs;
                L->wk->in(xg + (ch - q * Cr) * v->xs[1], v->xs[1], nc, &its[j],
                          V + (col / NR) * Cg * NR + ch * NR + col % NR, vpos, (size_t)NR);
            }
        }
    }
}

/* Shared input transform, task (g, chunk of SHARED_CHANNELS channels). */
static void w4_input_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    w4_ctx *c = vctx;
    int64_t nch = cdiv(c->v->Cg, SHARED_CHANNELS), g = (int64_t)task / nch, ch = (int64_t)task % nch;
    int64_t c0 = ch * SHARED_CHANNELS, c1 = c0 + SHARED_CHANNELS < c->v->Cg ? c0 + SHARED_CHANNELS : c->v->Cg;
    transform_input(c, g, 0, c0, c1, c->vshared + (size_t)g * (size_t)v_floats(c->v, &c->L));
}

/* The 36 GEMMs of filter panels s0..s1 (tile lanes) over channels c0..c1 (added to M unless
 * c0 == 0).  Ap: panel s0 at position 0 (positions upos apart, panels pst apart, starting at
 * channel c0); M: 36 x (s1-s0)*MR x T. */
static void gemm_t(const w4_ctx *c, const float *Ap, size_t upos, int64_t pst, const float *V, float *M, int64_t s0,
                   int64_t s1, int64_t nt, int64_t c0, int64_t c1)
{
    const w4_plan *L = &c->L;
    int64_t MR = L->FP, NR = L->TP, T = L->T, Cg = c->v->Cg, Kg = c->v->Kg, ntp = cdiv(nt, NR);
    size_t vpos = (size_t)pos_stride(Cg * T), mpos = (size_t)pos_stride(L->kbp * MR * T);
    float beta = c0 > 0 ? 1.0f : 0.0f;
    for (int pos = 0; pos < 36; pos++) {
        const float *A = Ap + (size_t)pos * upos, *B = V + (size_t)pos * vpos + c0 * NR;
        float *Mp = M + (size_t)pos * mpos;
        for (int64_t kp = s0; kp < s1; kp++) {
            size_t mr = (size_t)(Kg - kp * MR < MR ? Kg - kp * MR : MR);
            for (int64_t tp = 0; tp < ntp; tp++) {
                size_t nr = (size_t)(nt - tp * NR < NR ? nt - tp * NR : NR);
                L->gk->f32(mr, nr, (size_t)(c1 - c0), A + (kp - s0) * pst, B + tp * Cg * NR, (size_t)NR,
                           Mp + (kp - s0) * MR * T + tp * NR, (size_t)T, 1.0f, beta);
            }
        }
    }
}

/* The same, channel lanes: M^T[tile][pos][k] (tiles 36*ldm apart), V^T[tile][pos][c]; each B
 * panel (one position, 64 filters) serves every 6-tile block in turn, from L2. */
static void gemm_c(const w4_ctx *c, const float *Bp, size_t upos, int64_t pst, const float *V, float *M, int64_t s0,
                   int64_t s1, int64_t nt, int64_t c0, int64_t c1)
{
    const w4_plan *L = &c->L;
    int64_t NRc = L->FP, MRc = L->TP, Kg = c->v->Kg, ldv = L->ldv, ldm = L->ldm;
    for (int pos = 0; pos < 36; pos++)
        for (int64_t kp = s0; kp < s1; kp++) {
            const float *B = Bp + (size_t)pos * upos + (kp - s0) * pst;
            size_t nr = (size_t)(Kg - kp * NRc < NRc ? Kg - kp * NRc : NRc);
            for (int64_t t = 0; t < nt; t += MRc) {
                size_t mr = (size_t)(nt - t < MRc ? nt - t : MRc);
                L->wk->gemm(mr, nr, (size_t)(c1 - c0), V + (t * 36 + pos) * ldv + c0, (size_t)(36 * ldv), B,
                            (size_t)NRc, M + (t * 36 + pos) * ldm + (kp - s0) * NRc, (size_t)(36 * ldm), c0 > 0);
            }
        }
}

/* Output transform of filters k0..k1 of group g from M (tiles t0.. of the block, nt of them). */
static void transform_output(const w4_ctx *c, int64_t g, const float *M, int64_t k0, int64_t k1, int64_t t0, int64_t nt)
{
    const w4_view *v = c->v;
    const w4_plan *L = &c->L;
    const hd_conv_args *a = c->a;
    int64_t gs = L->gs, T = L->T;
    float alpha = (float)a->epi.alpha, beta = (float)a->epi.beta;
    int fused = !v->bwd && a->epi.fused;
    float *yg = c->dst + (g * v->Kg + k0) * v->ys[1];
    for (int64_t j = 0; j < nt; j += gs) {
        hd_wino4_out_tiles ot;
        int lanes = (int)(nt - j < gs ? nt - j : gs);
        hd_w4_out_tiles(v, L->TH, L->TW, t0 + j, lanes, &ot);
        if (L->cl) {
            const float *Mj = M + j * 36 * L->ldm;
            size_t ts = (size_t)(36 * L->ldm);
            if (!fused) {
                L->wk->out_c(Mj, (size_t)L->ldm, ts, k1 - k0, &ot, yg, alpha, beta, NULL);
                continue;
            }
            for (int i = 0; i < lanes; i++) {   /* one tile at a time through a raw buffer */
                float raw[16 * 64];
                hd_wino4_out_tiles o1 = ot;
                o1.lanes = 1, o1.off[0] = ot.off[i], o1.nrow[0] = ot.nrow[i], o1.ncol[0] = ot.ncol[i];
                for (int64_t k = k0; k < k1; k += 64) {
                    int64_t nk = k1 - k < 64 ? k1 - k : 64;
                    L->wk->out_c(Mj + (size_t)i * ts + (k - k0), (size_t)L->ldm, ts, nk, &o1, NULL, 1.0f, 0.0f, raw);
                    for (int r = 0; r < o1.nrow[0]; r++)
                        for (int s = 0; s < o1.ncol[0]; s++)
                            fuse_channels(a, v, g * v->Kg + k, nk, o1.off[0] + r * ot.hs + s * ot.ws,
                                          raw + (4 * r + s) * nk);
                }
            }
            continue;
        }
        size_t mpos = (size_t)pos_stride(L->kbp * L->FP * T);
        if (!fused) {
            L->wk->out(M + j, mpos, (size_t)T, k1 - k0, &ot, yg, v->ys[1], alpha, beta, NULL);
            continue;
        }
        /* a few channels at a time through a raw buffer, so that the epilogue reads what the
         * transform has just written from L1 */
        for (int64_t k = k0; k < k1; k += FUSE_CHANNELS) {
            float raw[FUSE_CHANNELS * HD_WINO4_LANES * 16];
            int64_t nk = k1 - k < FUSE_CHANNELS ? k1 - k : FUSE_CHANNELS;
            L->wk->out(M + (k - k0) * T + j, mpos, (size_t)T, nk, &ot, NULL, 0, 1.0f, 0.0f, raw);
            fuse_raw(a, v, &ot, g * v->Kg + k, nk, raw);
        }
    }
}

static void w4_task(void *vctx, size_t task, int thread)
{
    w4_ctx *c = vctx;
    const w4_view *v = c->v;
    const w4_plan *L = &c->L;
    /* K-range-major: consecutive tasks (one thread's share) keep to one K range */
    int64_t tb = (int64_t)task % L->ntb, kq = ((int64_t)task / L->ntb) % L->nkq, g = (int64_t)task / (L->nkq * L->ntb);
    int64_t FP = L->FP, T = L->T, Cg = v->Cg, Kg = v->Kg;
    float *V = c->slots + (size_t)thread * c->slot_floats;
    float *M = V + (L->shared ? 0 : v_floats(v, L)), *Ub = M + m_floats(L);
    size_t upos = (size_t)(L->otf ? pos_stride(L->kbp * FP * L->cc) : pos_stride(L->Kpan * Cg * FP));
    int64_t t0 = tb * T, nt = L->ntiles - t0 < T ? L->ntiles - t0 : T;

    if (L->shared)
        V = c->vshared + (size_t)g * (size_t)v_floats(v, L);
    else
        transform_input(c, g, tb, 0, Cg, V);

    int64_t q0 = L->Kpan * kq / L->nkq, q1 = L->Kpan * (kq + 1) / L->nkq;
    int64_t nsub = cdiv(q1 - q0, L->kbp);
    for (int64_t sb = 0; sb < nsub; sb++) {
        int64_t s0 = q0 + (q1 - q0) * sb / nsub, s1 = q0 + (q1 - q0) * (sb + 1) / nsub;
        int64_t k0 = s0 * FP, k1 = s1 * FP < Kg ? s1 * FP : Kg;
        /* the task's own filter panels chunk by chunk (kept in L2), or the whole U at once */
        for (int64_t c0 = 0; c0 < Cg; c0 += L->cc) {
            int64_t c1 = c0 + L->cc < Cg ? c0 + L->cc : Cg, pst = (L->otf ? c1 - c0 : Cg) * FP;
            if (L->otf)
                for (int64_t kp = s0; kp < s1; kp++)
                    transform_panel(c, g, kp, s1, c0, c1, Ub + (kp - s0) * pst, upos);
            /* panel s0 at position 0 */
            const float *Up = L->otf ? Ub : c->U + (size_t)(g * 36) * upos + s0 * Cg * FP;
            if (L->cl)
                gemm_c(c, Up, upos, pst, V, M, s0, s1, nt, c0, c1);
            else
                gemm_t(c, Up, upos, pst, V, M, s0, s1, nt, c0, c1);
        }
        transform_output(c, g, M, k0, k1, t0, nt);
    }
}

/* Task (g, k) of the pieces' filter (hd_w4_pieces). */
typedef struct {
    const w4_view *v;
    const float *w;
    float *dst;
} w4_pieces_ctx;

static void w4_pieces_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const w4_pieces_ctx *pc = vctx;
    hd_w4_pieces(pc->v, pc->w, (int64_t)task, pc->dst);
}

static void w4_exec(const w4_view *v0, const hd_conv_args *a, const float *src, float *dst)
{
    w4_ctx c;
    w4_view sv = *v0;             /* a split filter: the view of its pieces' filter */
    const w4_view *v = &sv;
    c.v = v;
    c.a = a;
    c.src = src;
    c.w = a->w;
    c.dst = dst;
    if (!w4_plan_make(v, &c.L))
        return;   /* refused by the applicability check already */
    c.U = (float *)((char *)a->ws + c.L.W.off[0]);
    c.slots = (float *)((char *)a->ws + c.L.W.off[1]);
    c.slot_floats = (size_t)slot_floats(v, &c.L);
    c.vshared = (float *)((char *)a->ws + c.L.W.off[2]);
    int nt = a->nthreads < W4_SLOTS ? a->nthreads : W4_SLOTS;
    if (w4_split(v)) {
        w4_pieces_ctx pc = {v0, a->w, (float *)((char *)a->ws + c.L.W.off[3])};
        hd_parallel_for((size_t)(v->G * v->Kg), nt, w4_pieces_task, &pc);
        sv.wg = v->Kg * v->Cg * 9, sv.wk = v->Cg * 9, sv.wc = 9;
        for (int e = 0; e < 9; e++)
            sv.tap[e] = e;
        c.w = pc.dst;
    }
    if (hd_log_enabled(CUDNN_SEV_INFO))
        hd_logf(CUDNN_SEV_INFO, w4_split(v) ? (v->bwd ? "bwd_data.winograd_f4x3_split_f32" : "fwd.winograd_f4x3_split_f32")
                                            : (v->bwd ? "bwd_data.winograd_f4x3_f32" : "fwd.winograd_f4x3_f32"),
                CUDNN_STATUS_SUCCESS,
                "plan: %s lanes, %lld tiles in %lld blocks of %lld, %lld K ranges, %lld panels of %lld filters per "
                "sub-block%s (in chunks of %lld channels)%s", c.L.cl ? "channel" : "tile", (long long)c.L.ntiles,
                (long long)c.L.ntb, (long long)c.L.T, (long long)c.L.nkq, (long long)c.L.kbp, (long long)c.L.FP,
                c.L.otf ? ", filters per task" : "", (long long)c.L.cc, c.L.shared ? ", shared input" : "");
    if (!c.L.otf)
        hd_parallel_for((size_t)(v->G * c.L.Kpan), nt, w4_filter_task, &c);
    if (c.L.shared)
        hd_parallel_for((size_t)(v->G * cdiv(v->Cg, SHARED_CHANNELS)), nt, w4_input_task, &c);
    hd_parallel_for((size_t)(v->G * c.L.ntb * c.L.nkq), nt, w4_task, &c);
}

/* ---------------- the two solvers ---------------- */

int hd_conv_wino4_app(const hd_conv_problem *p, const char **reason)
{
    w4_view v;
    hd_w4_view_fwd(p, &v);
    return w4_app(p, &v, reason);
}

size_t hd_conv_wino4_ws(const hd_conv_problem *p)
{
    w4_view v;
    hd_w4_view_fwd(p, &v);
    return w4_ws(&v);
}

double hd_conv_wino4_cost(const hd_conv_problem *p)
{
    w4_view v;
    hd_w4_view_fwd(p, &v);
    return w4_cost(&v);
}

void hd_conv_wino4_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    w4_view v;
    hd_w4_view_fwd(p, &v);
    w4_exec(&v, a, a->x, a->out);
}

int hd_conv_wino4_bwdd_app(const hd_conv_problem *p, const char **reason)
{
    w4_view v;
    hd_w4_view_bwdd(p, &v);
    return w4_app(p, &v, reason);
}

size_t hd_conv_wino4_bwdd_ws(const hd_conv_problem *p)
{
    w4_view v;
    hd_w4_view_bwdd(p, &v);
    return w4_ws(&v);
}

/* 3x3 backward data: 0.9 of the estimate, for AlexNet's 13x13 layers (docs/algorithms.md) */
double hd_conv_wino4_bwdd_cost(const hd_conv_problem *p)
{
    w4_view v;
    hd_w4_view_bwdd(p, &v);
    return w4_cost(&v) * (w4_split(&v) ? 1.0 : 0.9);
}

void hd_conv_wino4_bwdd_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    w4_view v;
    hd_w4_view_bwdd(p, &v);
    w4_exec(&v, a, a->y, a->out);
}

/* Solvers 109/207 take the 3x3 views, 112/210 the 5x5 ones split into 3x3 pieces
 * (conv_wino4_view.h); w4_app applies the shape rules of the view's kind. */
static int app_as(const hd_conv_problem *p, int bwd, int split, const char **reason)
{
    w4_view v;
    if (bwd)
        hd_w4_view_bwdd(p, &v);
    else
        hd_w4_view_fwd(p, &v);
    if (w4_split(&v) != split) {
        *reason = split ? "Winograd F(4x4,3x3) in 3x3 pieces needs a 2-d 5x5 filter"
                        : "Winograd F(4x4,3x3) needs a 2-d 3x3 filter and unit stride";
        return 0;
    }
    return w4_app(p, &v, reason);
}

static int plain_app(const hd_conv_problem *p, const char **reason) { return app_as(p, 0, 0, reason); }
static int plain_bwdd_app(const hd_conv_problem *p, const char **reason) { return app_as(p, 1, 0, reason); }
static int split_app(const hd_conv_problem *p, const char **reason) { return app_as(p, 0, 1, reason); }
static int split_bwdd_app(const hd_conv_problem *p, const char **reason) { return app_as(p, 1, 1, reason); }

const hd_conv_solver hd_solver_fwd_wino4 = {
    .id = 109, .name = "fwd.winograd_f4x3_f32", .dir = HD_CONV_FWD, .algo = CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, .deterministic = 1,
    .applicable = plain_app, .workspace = hd_conv_wino4_ws, .run = hd_conv_wino4_exec, .cost_factor = 0.3, .cost = hd_conv_wino4_cost};

const hd_conv_solver hd_solver_fwd_wino4_split = {
    .id = 112, .name = "fwd.winograd_f4x3_split_f32", .dir = HD_CONV_FWD, .algo = CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, .deterministic = 1,
    .applicable = split_app, .workspace = hd_conv_wino4_ws, .run = hd_conv_wino4_exec, .cost_factor = 0.3, .cost = hd_conv_wino4_cost};

const hd_conv_solver hd_solver_bwdd_wino4_split = {
    .id = 210, .name = "bwd_data.winograd_f4x3_split_f32", .dir = HD_CONV_BWD_DATA, .algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, .deterministic = 1,
    .applicable = split_bwdd_app, .workspace = hd_conv_wino4_bwdd_ws, .run = hd_conv_wino4_bwdd_exec, .cost_factor = 0.3, .cost = hd_conv_wino4_bwdd_cost};

const hd_conv_solver hd_solver_bwdd_wino4 = {
    .id = 207, .name = "bwd_data.winograd_f4x3_f32", .dir = HD_CONV_BWD_DATA, .algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, .deterministic = 1,
    .applicable = plain_bwdd_app, .workspace = hd_conv_wino4_bwdd_ws, .run = hd_conv_wino4_bwdd_exec, .cost_factor = 0.3, .cost = hd_conv_wino4_bwdd_cost};
