/*
 * Winograd F(4x4, 3x3) convolution in fp32 (kernels/conv/conv_wino4.h): the forward solver
 * and the backward-data solver, one engine.
 *
 * The engine computes a forward convolution described by a view (w4_view): input planes
 * (x forward, dy backward data), output planes (y, dx), padding, and how to reach tap (r, s)
 * of filter (group, output channel, input channel).  Backward data at stride 1 is the
 * forward convolution of dy with the filter rotated by 180 degrees and its k / c roles
 * exchanged, padded by 2 - pad: its view only swaps strides and reverses the taps, so the
 * rotated, transposed filter goes straight into the transformed-filter packing and dy / dx
 * are read and written in place.
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
#include "kernels/conv/conv_wino4.h"

#include "core/parallel.h"
#include "kernels/conv/conv_internal.h"
#include "kernels/gemm/gemm-ukernels.h"

#include <string.h>

#define W4_SLOTS 8
#define MIN_TASKS 8                     /* cut small problems finer, down to this many tasks */
#define V_BUDGET ((int64_t)1 << 20)     /* bytes of one transformed input block (L2) */
#define M_BUDGET ((int64_t)512 << 10)   /* bytes of one product sub-block (L2) */
#define T_MAX 128                       /* tiles per block */
#define OTF_BLOCKS 4                    /* tile blocks up to which filters are transformed per task */
#define U_BUDGET ((int64_t)1 << 20)     /* bytes of one task's transformed filter panels */
#define SHARED_CHANNELS 32              /* channels per task of the shared input transform */
#define IN_CHANNELS 8                   /* channels per input transform call */

static const hd_wino4_kernels w4_kernels[] = {
    {"f32-wino4-scalar", HD_ISA_SCALAR, 1, hd_f32_wino4_in__scalar, hd_f32_wino4_out__scalar,
     hd_f32_wino4_filter__scalar},
    {"f32-wino4-avx2", HD_ISA_AVX2, 8, hd_f32_wino4_in__avx2, hd_f32_wino4_out__avx2,
     hd_f32_wino4_filter__avx2},
    {"f32-wino4-avx512", HD_ISA_AVX512, 16, hd_f32_wino4_in__avx512, hd_f32_wino4_out__avx512,
     hd_f32_wino4_filter__avx512},
};

const hd_wino4_kernels *hd_wino4_kernel_table(size_t *count)
{
    *count = sizeof w4_kernels / sizeof *w4_kernels;
    return w4_kernels;
}

/* ---------------- the view: the forward convolution the engine computes ---------------- */

typedef struct {
    int bwd;                      /* 1: backward data (no fused epilogue) */
    int64_t N, G, Cg, Kg;         /* images, groups, input / output channels per group */
    int64_t H, W, OH, OW, ph, pw; /* input plane, output plane, padding */
    int64_t xs[5], ys[5];         /* strides (n, c, -, h, w) of the input and the output */
    int64_t wg, wk, wc;           /* filter (g, k, c) at g*wg + k*wk + c*wc ... */
    int64_t tap[9];               /* ... + tap[3*r + s] for tap (r, s) */
} w4_view;

static void view_fwd(const hd_conv_problem *p, w4_view *v)
{
    memset(v, 0, sizeof *v);
    v->N = p->N, v->G = p->G, v->Cg = p->Cg, v->Kg = p->Kg;
    v->H = p->in[1], v->W = p->in[2], v->OH = p->out[1], v->OW = p->out[2];
    v->ph = p->pad[1], v->pw = p->pad[2];
    memcpy(v->xs, p->xs, sizeof v->xs);
    memcpy(v->ys, p->ys, sizeof v->ys);
    v->wg = p->Kg * p->wst[0], v->wk = p->wst[0], v->wc = p->wst[1];
    for (int e = 0; e < 9; e++)
        v->tap[e] = hd_conv_w_off(p, 0, 0, 0, e / 3, e % 3);
}

/* dx = conv(dy, w rotated, k <-> c) padded by 2 - pad: input dy (Kg channels per group),
 * output dx (Cg channels); tap (r, s) of the view is tap (2 - r, 2 - s) of w (hd_conv_w_off
 * adds CONVOLUTION mode's flip on top, which undoes the rotation). */
static void view_bwdd(const hd_conv_problem *p, w4_view *v)
{
    memset(v, 0, sizeof *v);
    v->bwd = 1;
    v->N = p->N, v->G = p->G, v->Cg = p->Kg, v->Kg = p->Cg;
    v->H = p->out[1], v->W = p->out[2], v->OH = p->in[1], v->OW = p->in[2];
    v->ph = 2 - p->pad[1], v->pw = 2 - p->pad[2];
    memcpy(v->xs, p->ys, sizeof v->xs);
    memcpy(v->ys, p->xs, sizeof v->ys);
    v->wg = p->Kg * p->wst[0], v->wk = p->wst[1], v->wc = p->wst[0];
    for (int e = 0; e < 9; e++)
        v->tap[e] = hd_conv_w_off(p, 0, 0, 0, 2 - e / 3, 2 - e % 3);
}

/* ---------------- the plan ---------------- */

typedef struct {
    const hd_gemm_kernel *gk;
    const hd_wino4_kernels *wk;
    int64_t MR, NR, gs;           /* micro-kernel tile; tiles per transform call */
    int64_t TH, TW, ntiles;       /* tile rows and columns per image, tiles in all */
    int64_t Kpan;                 /* panels of MR filters per group */
    int64_t T, ntb;               /* tiles per block (a multiple of NR), blocks */
    int64_t nkq, kbp;             /* K ranges per block (tasks), panels per M sub-block */
    int otf;                      /* 1: each task transforms its filter panels itself */
    int shared;                   /* 1: one tile block, split over K: its input is transformed
                                   * once, into a V shared by the tasks */
    hd_conv_layout W;
} w4_plan;

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Distance between the 36 positions of V and M: a whole number of 4 KiB pages plus one cache
 * line, so that the 36 rows a transform reads or writes fall into 36 different L1 sets (a
 * multiple of 4 KiB would put them all into one set, 12 ways for 36 lines). */
static int64_t pos_stride(int64_t floats) { return cdiv(floats, 1024) * 1024 + 16; }

/* One slot: V (36 x Cg x T; shared by all tasks when there is one block), M (36 x kbp*MR x T) and, transforming on the fly, U (36 x
 * kbp*MR x Cg). */
static int64_t slot_floats(const w4_view *v, const w4_plan *L)
{
    int64_t u = L->otf ? pos_stride(L->kbp * L->MR * v->Cg) : 0;
    int64_t vb = L->shared ? 0 : pos_stride(v->Cg * L->T);
    return 36 * (vb + pos_stride(L->kbp * L->MR * L->T) + u);
}

static void w4_book(const w4_view *v, w4_plan *L)
{
    hd_conv_layout W = {{0}, 0};
    L->shared = L->ntb == 1 && L->nkq > 1;
    hd_conv_book(&W, 2, L->shared ? v->G * 36 : 0, pos_stride(v->Cg * L->T), sizeof(float));
    hd_conv_book(&W, 0, L->otf ? 0 : v->G * 36, pos_stride(L->Kpan * v->Cg * L->MR), sizeof(float));
    hd_conv_book(&W, 1, W4_SLOTS, slot_floats(v, L), sizeof(float));
    L->W = W;
}

/* 0 when no block size keeps the workspace within max(input, 64 MiB). */
static int w4_plan_make(const w4_view *v, w4_plan *L)
{
    memset(L, 0, sizeof *L);
    hd_isa_t isa = hd_cpu_isa();
    L->gk = hd_gemm_kernel_for(sizeof(float), isa);
    L->wk = &w4_kernels[0];
    for (size_t i = 0; i < sizeof w4_kernels / sizeof *w4_kernels; i++)
        if (w4_kernels[i].isa <= isa)
            L->wk = &w4_kernels[i];
    L->MR = (int64_t)L->gk->mr;
    L->NR = (int64_t)L->gk->nr;
    if (L->MR > HD_WINO4_LANES)   /* the filter transform takes one A panel per call */
        return 0;
    L->gs = L->wk->width == 1 ? L->NR : L->wk->width;
    if (L->gs > HD_WINO4_LANES || L->NR % L->gs)
        L->gs = 1;
    L->TH = cdiv(v->OH, 4);
    L->TW = cdiv(v->OW, 4);
    L->ntiles = v->N * L->TH * L->TW;
    L->Kpan = cdiv(v->Kg, L->MR);
    int64_t NR = L->NR, Cg = v->Cg;
    int64_t T = T_MAX / NR * NR > NR ? T_MAX / NR * NR : NR;
    while (T > NR && 36 * Cg * T * 4 > V_BUDGET)
        T -= NR;
    if (T > cdiv(L->ntiles, NR) * NR)
        T = cdiv(L->ntiles, NR) * NR;
    while (T > NR && v->G * cdiv(L->ntiles, T) < MIN_TASKS)
        T -= NR;
    if (L->ntiles <= T_MAX)       /* one block: the tasks split K, the filter is transformed once */
        T = cdiv(L->ntiles, NR) * NR;
    L->T = T;
    L->ntb = cdiv(L->ntiles, T);
    L->nkq = 1;
    while (v->G * L->ntb * L->nkq < MIN_TASKS && v->Kg / (L->nkq + 1) >= 64 && L->nkq < L->Kpan)
        L->nkq++;
    /* Few tile blocks: transforming each block's filters again costs less than a round trip
     * of the whole transformed filter (4x the filter) through memory. */
    L->otf = L->ntb <= OTF_BLOCKS;
    int64_t kbp = cdiv(L->Kpan, L->nkq);
    while (kbp > 1 && (36 * kbp * L->MR * T * 4 > M_BUDGET || (L->otf && 36 * kbp * L->MR * Cg * 4 > U_BUDGET)))
        kbp--;
    L->kbp = kbp;
    size_t xbytes = (size_t)(v->N * v->G * v->Cg * v->H * v->W) * sizeof(float);
    size_t cap = xbytes > ((size_t)64 << 20) ? xbytes : ((size_t)64 << 20);
    for (;;) {
        w4_book(v, L);
        if (L->W.total <= cap)
            break;
        if (L->kbp > 1)
            L->kbp = (L->kbp + 1) / 2;
        else if (L->T > NR)
            L->T -= NR;
        else
            return 0;
        L->ntb = cdiv(L->ntiles, L->T);
    }
    return 1;
}

/* ---------------- applicability, workspace, cost ---------------- */

static int w4_app(const hd_conv_problem *p, const w4_view *v, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "Winograd F(4x4,3x3) takes FLOAT x, w and y only";
        return 0;
    }
    if (p->nsp != 2 || p->flt[1] != 3 || p->flt[2] != 3 || p->str[1] != 1 || p->str[2] != 1 || p->dil[1] != 1 ||
        p->dil[2] != 1) {
        *reason = "Winograd F(4x4,3x3) needs a 2-d 3x3 filter, unit stride and dilation";
        return 0;
    }
    if (v->ph < 0 || v->pw < 0) {
        *reason = "backward-data Winograd F(4x4,3x3) needs padding <= 2";
        return 0;
    }
    /* the input gathers use 32-bit element offsets from the channel's origin */
    const int64_t *xs = v->xs;
    int64_t reach = (v->N - 1) * xs[0] + (v->H + 6) * xs[3] + (v->W + 6) * xs[4];
    if (xs[0] < 0 || xs[3] < 0 || xs[4] < 0 || reach >= INT32_MAX) {
        *reason = "the input is too large for the 32-bit offsets of the Winograd F(4x4,3x3) gathers";
        return 0;
    }
    /* so are the filter gathers, over the lanes of a panel */
    if (v->wk < 0 || v->wc < 0 || 15 * v->wk >= INT32_MAX) {
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
 * fitted to single-thread CPU-time measurements of both solvers on the ResNet-50 and VGG-16 3x3
 * layers at batch 1 and 16 (AVX-512; docs/algorithms.md): per GEMM multiply-add 1.0 (the
 * 36 GEMMs are as fast per multiply-add as the blocked solver's), per input tile and channel
 * 200 (per K range, unless shared), per output tile and filter 700, per transformed 3x3 filter 600 for each
 * tile block that transforms it again, 2000 when it is transformed once (the 4x larger result
 * goes through memory). */
static double w4_cost(const w4_view *v)
{
    w4_plan L;
    if (!w4_plan_make(v, &L))
        return 1e9;
    double blocks = (double)(L.ntb * L.T), kc = (double)(v->G * v->Kg * v->Cg);
    double gemm = 36.0 * (double)(L.Kpan * L.MR) * (double)v->Cg * blocks * (double)v->G;
    double in = 200.0 * blocks * (double)(v->G * v->Cg * (L.shared ? 1 : L.nkq));
    double out = 700.0 * (double)(cdiv(L.ntiles, HD_WINO4_LANES) * HD_WINO4_LANES) * (double)(v->G * v->Kg);
    double filt = L.otf ? 600.0 * kc * (double)L.ntb : 2000.0 * kc;
    double macs = (double)(v->N * v->OH * v->OW) * (double)(v->G * v->Kg) * (double)v->Cg * 9.0;
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

/* The A panel kp of group g at all 36 positions (upos floats apart): per channel, the MR
 * filters of the panel, one per lane, stored as 36 runs of MR values.  Rows of the last
 * panel past Kg are not written: the GEMM rows they feed are never stored. */
static void transform_panel(const w4_ctx *c, int64_t g, int64_t kp, float *base, size_t upos)
{
    const w4_view *v = c->v;
    int64_t MR = c->L.MR;
    int64_t nk = v->Kg - kp * MR < MR ? v->Kg - kp * MR : MR;
    const float *w = c->w + g * v->wg + kp * MR * v->wk;
    c->L.wk->filter(w, v->wk, v->wc, v->tap, (int)nk, v->Cg, base, upos, (size_t)MR);
}

/* Task (g, kp) of the whole transformed filter U. */
static void w4_filter_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    w4_ctx *c = vctx;
    int64_t Kpan = c->L.Kpan, CgMR = c->v->Cg * c->L.MR;
    int64_t g = (int64_t)task / Kpan, kp = (int64_t)task % Kpan;
    size_t upos = (size_t)pos_stride(Kpan * CgMR);
    transform_panel(c, g, kp, c->U + (size_t)(g * 36) * upos + (size_t)(kp * CgMR), upos);
}

static void in_tiles(const w4_view *v, const w4_plan *L, int64_t t0, int64_t count, int lanes, hd_wino4_in_tiles *it)
{
    it->lanes = lanes;
    it->hs = (int32_t)v->xs[3];
    it->ws = (int32_t)v->xs[4];
    int64_t H = v->H, Wd = v->W;
    for (int i = 0; i < lanes; i++) {
        int64_t t = t0 + i;
        if (i >= count) {
            it->off[i] = 0, it->rmask[i] = 0, it->cmask[i] = 0;
            continue;
        }
        int64_t tj = t % L->TW, ti = (t / L->TW) % L->TH, n = t / (L->TW * L->TH);
        int64_t h0 = 4 * ti - v->ph, w0 = 4 * tj - v->pw;
        it->off[i] = (int32_t)(n * v->xs[0] + h0 * v->xs[3] + w0 * v->xs[4]);
        unsigned rm = 0, cm = 0;
        for (int j = 0; j < 6; j++) {
            rm |= (unsigned)(h0 + j >= 0 && h0 + j < H) << j;
            cm |= (unsigned)(w0 + j >= 0 && w0 + j < Wd) << j;
        }
        it->rmask[i] = (uint8_t)rm;
        it->cmask[i] = (uint8_t)cm;
    }
}

static void out_tiles(const w4_view *v, const w4_plan *L, int64_t t0, int lanes, hd_wino4_out_tiles *ot)
{
    ot->lanes = lanes;
    ot->hs = v->ys[3];
    ot->ws = v->ys[4];
    for (int i = 0; i < lanes; i++) {
        int64_t t = t0 + i;
        int64_t tj = t % L->TW, ti = (t / L->TW) % L->TH, n = t / (L->TW * L->TH);
        ot->off[i] = n * v->ys[0] + 4 * ti * v->ys[3] + 4 * tj * v->ys[4];
        ot->nrow[i] = (uint8_t)(v->OH - 4 * ti < 4 ? v->OH - 4 * ti : 4);
        ot->ncol[i] = (uint8_t)(v->OW - 4 * tj < 4 ? v->OW - 4 * tj : 4);
    }
}

/* The fused epilogue (bias, z, activation) on raw tile values, element by element. */
static void store_fused(const w4_view *v, const hd_conv_args *a, const hd_wino4_out_tiles *ot, int64_t ch,
                        const float *raw)
{
    const hd_conv_epilogue *e = &a->epi;
    float alpha = (float)e->alpha, alpha2 = (float)e->alpha2;
    float bias = ((const float *)e->bias)[ch * e->bias_stride];
    const float *z = e->z;
    float *y = a->out;
    for (int i = 0; i < ot->lanes; i++)
        for (int r = 0; r < ot->nrow[i]; r++)
            for (int s = 0; s < ot->ncol[i]; s++) {
                int64_t off = ch * v->ys[1] + ot->off[i] + r * ot->hs + s * ot->ws;
                float val = alpha * raw[i * 16 + 4 * r + s] + bias;
                if (alpha2 != 0)
                    val += alpha2 * z[off];
                if (e->relu && !(val > 0))
                    val = 0;
                y[off] = val;
            }
}

/* Input transform of channels c0..c1 of group g, tile block tb: the B panels of the block
 * (tiles past the end are zero) in V (positions pos_stride(Cg*T) apart). */
static void transform_input(const w4_ctx *c, int64_t g, int64_t tb, int64_t c0, int64_t c1, float *V)
{
    const w4_view *v = c->v;
    const w4_plan *L = &c->L;
    int64_t NR = L->NR, T = L->T, Cg = v->Cg, gs = L->gs;
    int64_t t0 = tb * T, nt = L->ntiles - t0 < T ? L->ntiles - t0 : T, ntp = cdiv(nt, NR);
    size_t vpos = (size_t)pos_stride(Cg * T);
    const float *xg = c->src + g * Cg * v->xs[1];
    hd_wino4_in_tiles it[T_MAX];
    int64_t ngrp = ntp * NR / gs;
    for (int64_t j = 0; j < ngrp; j++)
        in_tiles(v, L, t0 + j * gs, nt - j * gs, (int)gs, &it[j]);
    /* a few channels at a time over all tiles: the block's rows of those channels stay in L1 */
    for (int64_t ch = c0; ch < c1; ch += IN_CHANNELS) {
        int64_t nc = c1 - ch < IN_CHANNELS ? c1 - ch : IN_CHANNELS;
        for (int64_t j = 0; j < ngrp; j++) {
            int64_t col = j * gs;
            L->wk->in(xg + ch * v->xs[1], v->xs[1], nc, &it[j], V + (col / NR) * Cg * NR + ch * NR + col % NR, vpos,
                      (size_t)NR);
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
    float *V = c->vshared + (size_t)(g * 36) * (size_t)pos_stride(c->v->Cg * c->L.T);
    transform_input(c, g, 0, c0, c1, V);
}

static void w4_task(void *vctx, size_t task, int thread)
{
    w4_ctx *c = vctx;
    const w4_view *v = c->v;
    const hd_conv_args *a = c->a;
    const w4_plan *L = &c->L;
    int64_t kq = (int64_t)task % L->nkq, tb = ((int64_t)task / L->nkq) % L->ntb, g = (int64_t)task / (L->nkq * L->ntb);
    int64_t MR = L->MR, NR = L->NR, T = L->T, Cg = v->Cg, Kg = v->Kg, gs = L->gs;
    int64_t vpos = pos_stride(Cg * T);
    size_t mpos = (size_t)pos_stride(L->kbp * MR * T);
    size_t upos = (size_t)(L->otf ? pos_stride(L->kbp * MR * Cg) : pos_stride(L->Kpan * Cg * MR));
    float *V = c->slots + (size_t)thread * c->slot_floats, *M = V + (L->shared ? 0 : 36 * vpos), *Ub = M + 36 * mpos;
    int64_t t0 = tb * T, nt = L->ntiles - t0 < T ? L->ntiles - t0 : T, ntp = cdiv(nt, NR);

    if (L->shared)
        V = c->vshared + (size_t)(g * 36) * (size_t)vpos;
    else
        transform_input(c, g, tb, 0, Cg, V);

    int64_t q0 = L->Kpan * kq / L->nkq, q1 = L->Kpan * (kq + 1) / L->nkq;
    int64_t nsub = cdiv(q1 - q0, L->kbp);
    float alpha = (float)a->epi.alpha, beta = (float)a->epi.beta;
    for (int64_t sb = 0; sb < nsub; sb++) {
        int64_t s0 = q0 + (q1 - q0) * sb / nsub, s1 = q0 + (q1 - q0) * (sb + 1) / nsub;
        int64_t k0 = s0 * MR, k1 = s1 * MR < Kg ? s1 * MR : Kg;
        if (L->otf)
            for (int64_t kp = s0; kp < s1; kp++)
                transform_panel(c, g, kp, Ub + (kp - s0) * Cg * MR, upos);
        for (int pos = 0; pos < 36; pos++) {
            /* panel s0 of this position: in the task's own U, or in the whole one */
            const float *Ap = L->otf ? Ub + (size_t)pos * upos : c->U + (size_t)(g * 36 + pos) * upos + s0 * Cg * MR;
            const float *Bp = V + (size_t)pos * (size_t)vpos;
            float *Mp = M + (size_t)pos * mpos;
            for (int64_t kp = s0; kp < s1; kp++) {
                size_t mr = (size_t)(Kg - kp * MR < MR ? Kg - kp * MR : MR);
                for (int64_t tp = 0; tp < ntp; tp++) {
                    size_t nr = (size_t)(nt - tp * NR < NR ? nt - tp * NR : NR);
                    L->gk->f32(mr, nr, (size_t)Cg, Ap + (kp - s0) * Cg * MR, Bp + tp * Cg * NR, (size_t)NR,
                               Mp + (kp - s0) * MR * T + tp * NR, (size_t)T, 1.0f, 0.0f);
                }
            }
        }
        /* output transform of filters k0..k1 */
        float *yg = c->dst + (g * Kg + k0) * v->ys[1];
        for (int64_t j = 0; j < nt; j += gs) {
            hd_wino4_out_tiles ot;
            int lanes = (int)(nt - j < gs ? nt - j : gs);
            out_tiles(v, L, t0 + j, lanes, &ot);
            if (v->bwd || !a->epi.fused) {
                L->wk->out(M + j, mpos, (size_t)T, k1 - k0, &ot, yg, v->ys[1], alpha, beta, NULL);
                continue;
            }
            for (int64_t k = k0; k < k1; k++) {
                float raw[HD_WINO4_LANES * 16];
                L->wk->out(M + (k - k0) * T + j, mpos, (size_t)T, 1, &ot, NULL, 0, 1.0f, 0.0f, raw);
                store_fused(v, a, &ot, g * Kg + k, raw);
            }
        }
    }
}

static void w4_exec(const w4_view *v, const hd_conv_args *a, const float *src, float *dst)
{
    w4_ctx c;
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
    view_fwd(p, &v);
    return w4_app(p, &v, reason);
}

size_t hd_conv_wino4_ws(const hd_conv_problem *p)
{
    w4_view v;
    view_fwd(p, &v);
    return w4_ws(&v);
}

double hd_conv_wino4_cost(const hd_conv_problem *p)
{
    w4_view v;
    view_fwd(p, &v);
    return w4_cost(&v);
}

void hd_conv_wino4_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    w4_view v;
    view_fwd(p, &v);
    w4_exec(&v, a, a->x, a->out);
}

int hd_conv_wino4_bwdd_app(const hd_conv_problem *p, const char **reason)
{
    w4_view v;
    view_bwdd(p, &v);
    return w4_app(p, &v, reason);
}

size_t hd_conv_wino4_bwdd_ws(const hd_conv_problem *p)
{
    w4_view v;
    view_bwdd(p, &v);
    return w4_ws(&v);
}

double hd_conv_wino4_bwdd_cost(const hd_conv_problem *p)
{
    w4_view v;
    view_bwdd(p, &v);
    return w4_cost(&v);
}

void hd_conv_wino4_bwdd_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    w4_view v;
    view_bwdd(p, &v);
    w4_exec(&v, a, a->y, a->out);
}
