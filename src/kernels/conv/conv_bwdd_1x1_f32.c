/*
 * Backward data of a 1x1, unpadded convolution (kernels/conv/conv_bwdd.h, bwd_data.1x1):
 * per group dx = W^T dy, a plain GEMM (Cg x positions, Kg deep), run on the GEMM
 * micro-kernels (kernels/gemm/gemm-ukernels.h) directly, so nothing is copied twice.
 *
 *  - Channel planes in dy (NCHW-like): C = dx (rows = channels, columns = positions), A =
 *    W^T in MR-channel micro-panels (packed once per call, or by each task right before use
 *    at batch 1 and for small filters), B = a block of dy rows copied into the task's panel
 *    (one streaming pass per row, prefetched a few rows ahead: reading the rows in place
 *    a plane apart missed the caches).  The micro-kernel then stores straight into dx.
 *  - Channels contiguous in dy (NHWC-like): the roles swap, dx^T = dy^T W.  A = MR dy pixels
 *    transposed into a micro-panel (the task's panel holds the block's), B = W itself (its
 *    rows are the Kg dy channels, Cg contiguous dx channels each; only a partial last panel
 *    is copied), C = dx pixels, stored straight into dx when they are packed.
 *  - Stride s > 1 (the ResNet downsample projections): the dy positions are the GEMM's
 *    columns as before; the results go through the task's buffer, and its epilogue writes
 *    every dx element of the s x s cell of each dy position once (the cell's corner gets the
 *    product, the rest beta*dx), so dx is written in one pass instead of one per phase.
 *
 * Blocks: k blocks of at most 256 (a function of Kg only: they set the rounding), position
 * blocks (across images for small images and NHWC), dx-channel blocks of at most 256; while
 * there are fewer than 8 tasks (batch 1) channel or position blocks are halved so that every
 * thread works.  Each dx element is computed by one micro-kernel call per k block, in k
 * order, and its store path (straight into dx, or the buffer and the epilogue) is a function
 * of the problem only, never of the ISA or the threads: results are bitwise identical for
 * every thread count and between AVX2 and AVX-512.  Tasks are dealt to the threads from a
 * counter; each uses the scratch slot of its thread (at most 8 threads).
 */
#include "kernels/conv/conv_bwdd.h"

#include "core/parallel.h"
#include "kernels/conv/conv_fwd_gather.h"
#include "kernels/conv/conv_internal.h"
#include "kernels/gemm/gemm-ukernels.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define SLOTS 8             /* scratch slots, taken by thread index: at most 8 threads */
#define KC 256              /* most k (dy channels) per block: sets the rounding */
#define MC 256              /* most dx channels per block */
#define UNIT 32             /* NCHW position blocks are multiples of this (ISA-independent) */
#define MIN_TASKS 8         /* cut small problems finer, down to this many tasks */
#define SMALL_FILTER 16384  /* W^T of at most this many floats is packed by each task */
#define PF_ROWS 4           /* dy rows are prefetched this many rows ahead of the copy */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t rup(int64_t a, int64_t b) { return cdiv(a, b) * b; }
static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/* Positions of a tensor (strides s, dims d) addressed as pos * s[4]. */
static int linear_positions(const int64_t s[5], const int64_t d[3])
{
    return (d[1] == 1 || s[3] == d[2] * s[4]) && (d[0] == 1 || s[2] == d[1] * d[2] * s[4]);
}

/* dy's channels contiguous: positions are the A side (dx^T = dy^T W). */
static int dy_pix(const hd_conv_problem *p) { return p->ys[1] == 1 && p->ys[4] != 1 && p->Kg > 1; }

static int unit_stride(const hd_conv_problem *p) { return p->str[0] == 1 && p->str[1] == 1 && p->str[2] == 1; }

/* ---------------- the plan: a function of the problem (and the kernel's tile) ---------------- */

typedef struct {
    const hd_gemm_kernel *kern;
    int64_t MR, NR;
    int pix;                      /* NHWC-like: dx^T = dy^T W */
    int direct;                   /* results straight into dx (else buffer + epilogue) */
    int cross;                    /* position blocks run across images */
    int64_t nkb, kc;              /* k block b: dy channels [b*kc, min(Kg, (b+1)*kc)) */
    int64_t nc, npb;              /* positions per block, blocks (per image, or over N*P when cross) */
    int64_t mb, nmb;              /* dx channels per block, blocks */
    int64_t CT;                   /* tile of the channel side: MR (NCHW) or NR (NHWC) */
    int64_t Cpad;                 /* Cg rounded up to CT */
    int a_late;                   /* NCHW: W^T micro-panels packed by the task right before use */
    int64_t ld;                   /* panel row length (NCHW: nc rounded to NR) */
    int64_t buf_at, aux_at, slot; /* floats: result buffer, (A micro-panel | W tail panel), slot size */
} x1_plan;

static x1_plan plan_x1(const hd_conv_problem *p)
{
    x1_plan L;
    L.kern = hd_gemm_kernel_for(sizeof(float), hd_cpu_isa());
    L.MR = (int64_t)L.kern->mr;
    L.NR = (int64_t)L.kern->nr;
    L.pix = dy_pix(p);
    L.nkb = cdiv(p->Kg, KC);
    L.kc = cdiv(p->Kg, L.nkb);
    int64_t P = p->P;
    if (L.pix) {
        /* dx pixels packed (channels contiguous, positions linear across images): the
           micro-kernel stores whole tiles of pixels into dx */
        int lin = p->xs[1] == 1 && linear_positions(p->xs, p->in);
        L.direct = unit_stride(p) && lin;
        L.cross = !L.direct || p->N == 1 || p->xs[0] == p->Q * p->xs[4];
        L.CT = L.NR;
    } else {
        /* small images, or images whose last 32-wide panel would be mostly empty (14x14:
           196 = 6 x 32 + 4) with a reduction long enough to pay for the buffer */
        int64_t pp = rup(P, UNIT);
        L.cross = p->N > 1 && (P < 128 || ((pp - P) * 16 > pp && p->Kg >= 128));
        L.direct = unit_stride(p) && !L.cross && p->xs[4] == 1 && linear_positions(p->xs, p->in);
        L.CT = L.MR;
    }
    /* position blocks: the panel (kc x nc) about 64 Ki floats */
    int64_t Qt = L.cross ? p->N * P : P;
    int64_t nc = imax(128, imin(512, 65536 / L.kc));
    if (L.pix)
        nc = imax(64, imin(512, 32768 / L.kc));
    L.npb = cdiv(Qt, nc);
    L.nc = imin(rup(cdiv(Qt, L.npb), UNIT), Qt);
    L.npb = cdiv(Qt, L.nc);
    L.nmb = cdiv(p->Cg, MC);
    L.mb = rup(cdiv(p->Cg, L.nmb), L.CT);
    L.nmb = cdiv(p->Cg, L.mb);
    /* enough tasks for the threads: split the larger operand's side first (channels when the
       filter outweighs an image of dy, else positions) */
    for (;;) {
        int64_t per_group = L.cross ? L.npb : p->N * L.npb;
        if (p->G * L.nmb * per_group >= MIN_TASKS)
            break;
        int chan_first = p->Cg >= P;
        if (chan_first && L.mb >= 2 * L.CT)
            L.mb = rup(cdiv(L.mb, 2), L.CT);
        else if (L.nc >= 2 * UNIT)
            L.nc = rup(cdiv(L.nc, 2), UNIT);
        else if (L.mb >= 2 * L.CT)
            L.mb = rup(cdiv(L.mb, 2), L.CT);
        else
            break;
        L.nmb = cdiv(p->Cg, L.mb);
        L.npb = cdiv(Qt, L.nc);
    }
    L.Cpad = rup(p->Cg, L.CT);
    int64_t per_group = L.cross ? L.npb : p->N * L.npb;
    L.a_late = !L.pix && (per_group <= 2 || p->G * L.Cpad * p->Kg <= SMALL_FILTER);
    /* slot: panel, result buffer, then the A micro-panel (late packing) or W's tail panel */
    if (L.pix) {
        L.ld = 0;
        L.buf_at = rup(rup(L.nc, L.MR) * L.kc, 16);
        L.aux_at = L.buf_at + (L.direct ? 0 : rup(L.nc * L.mb, 16));
        L.slot = L.aux_at + rup(L.kc * L.NR, 16);
    } else {
        L.ld = rup(L.nc, L.NR);
        L.buf_at = rup(L.kc * L.ld, 16);
        L.aux_at = L.buf_at + (L.direct ? 0 : rup(L.mb * L.ld, 16));
        L.slot = L.aux_at + (L.a_late ? rup(L.kc * L.MR, 16) : 0);
    }
    return L;
}

/* Packed W^T (NCHW, not late: G x Cpad x Kg), then SLOTS scratch slots. */
static hd_conv_layout layout_x1(const hd_conv_problem *p, const x1_plan *L)
{
    hd_conv_layout W = {{0}, 0};
    hd_conv_book(&W, 0, L->pix || L->a_late ? 0 : p->G * L->Cpad, p->Kg, sizeof(float));
    hd_conv_book(&W, 1, SLOTS, L->slot, sizeof(float));
    return W;
}

/* ---------------- execution ---------------- */

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    x1_plan L;
    const float *dy, *w;
    float *dx, *apack, *slots;
    hd_conv_cols_fn cols;
    atomic_size_t next;
    size_t ntasks;
    hd_task_fn fn;
} x1_ctx;

/* Plain C version of the k-major transpose (conv_fwd_gather.h). */
static void cols_c(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt)
{
    for (int64_t i = 0; i < T; i++) {
        const float *s = src[i];
        for (int64_t k = 0; k < cnt; k++)
            dst[k * ld + i] = s ? s[k] : 0.0f;
    }
}

/* W^T micro-panel of group g, k block kb, dx channels [c0, c0 + MR) (zero past Cg):
 * dst[pp * MR + i] = W[k0 + pp][c0 + i]. */
static void pack_wt(const x1_ctx *c, int64_t g, int64_t kb, int64_t c0, float *dst)
{
    const hd_conv_problem *p = c->p;
    int64_t MR = c->L.MR, r0 = kb * c->L.kc, kcb = imin(c->L.kc, p->Kg - r0), rows = imin(MR, p->Cg - c0);
    const float *w = c->w + (g * p->Kg + r0) * p->wst[0] + c0 * p->wst[1];
    for (int64_t pp = 0; pp < kcb; pp++, w += p->wst[0]) {
        float *d = dst + pp * MR;
        for (int64_t i = 0; i < rows; i++)
            d[i] = w[i * p->wst[1]];
        for (int64_t i = rows; i < MR; i++)
            d[i] = 0;
    }
}

static void pack_wt_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    x1_ctx *c = vctx;
    const x1_plan *L = &c->L;
    int64_t tiles = L->Cpad / L->MR, t = (int64_t)task;
    int64_t q = t % tiles, kb = (t / tiles) % L->nkb, g = t / (tiles * L->nkb);
    int64_t r0 = kb * L->kc, kcb = imin(L->kc, c->p->Kg - r0);
    pack_wt(c, g, kb, q * L->MR, c->apack + (g * L->Cpad * c->p->Kg + r0 * L->Cpad + q * kcb * L->MR));
}

/* dy position q of image n (q < P) as (od, oh, ow). */
static void pos3(const hd_conv_problem *p, int64_t q, int64_t o[3])
{
    o[2] = q % p->out[2];
    o[1] = (q / p->out[2]) % p->out[1];
    o[0] = q / (p->out[2] * p->out[1]);
}

/* NCHW panel: dy rows (channels r0 .. r0+kcb of group g) x the block's positions [q0, q0+nq)
 * (global over images), row pp at dst[pp * ld], zero up to the next multiple of NR. */
static void copy_rows(const x1_ctx *c, int64_t g, int64_t r0, int64_t kcb, int64_t q0, int64_t nq, float *dst,
                      int64_t ld)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ys = p->ys, P = p->P;
    int64_t tail = rup(nq, c->L.NR) - nq;
    for (int64_t q = q0; q < q0 + nq;) {           /* one run per image */
        int64_t n = q / P, i = q % P, cnt = imin(P - i, q0 + nq - q);
        const float *src = c->dy + n * ys[0] + (g * p->Kg + r0) * ys[1] + i;
        float *d = dst + (q - q0);
        for (int64_t pp = 0; pp < kcb; pp++) {
            if (pp + PF_ROWS < kcb) {
                /* rows are a plane apart: the hardware prefetcher meets each one late */
                const char *f = (const char *)(src + (pp + PF_ROWS) * ys[1]);
                for (int64_t o = 0; o < cnt * (int64_t)sizeof(float); o += 64)
                    __builtin_prefetch(f + o);
            }
            memcpy(d + pp * ld, src + pp * ys[1], sizeof(float) * (size_t)cnt);
        }
        q += cnt;
    }
    if (tail)
        for (int64_t pp = 0; pp < kcb; pp++)
            memset(dst + pp * ld + nq, 0, sizeof(float) * (size_t)tail);
}

/* NHWC panel: micro-panels of MR positions, k-major: (k pp, position j) at
 * dst[(j / MR) * kcb * MR + pp * MR + j % MR]; positions past nq are zero. */
static void pack_pix(const x1_ctx *c, int64_t g, int64_t r0, int64_t kcb, int64_t q0, int64_t nq, float *dst)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ys = p->ys, P = p->P, MR = c->L.MR;
    const float *src[16];
    for (int64_t j0 = 0; j0 < nq; j0 += MR) {
        int64_t cnt = imin(MR, nq - j0);
        for (int64_t i = 0; i < MR; i++) {
            src[i] = NULL;
            if (i < cnt) {
                int64_t q = q0 + j0 + i, n = q / P, o[3];
                pos3(p, q % P, o);
                src[i] = c->dy + n * ys[0] + (g * p->Kg + r0) + o[0] * ys[2] + o[1] * ys[3] + o[2] * ys[4];
            }
        }
        c->cols(dst + j0 * kcb, MR, MR, src, kcb);
    }
}

/*
 * The epilogue from the buffer: the products for dx channels [ch0, ch0+nm) (of the whole
 * tensor) and dy positions [q0, q0+nq), buf[m * ms + j * js].  Each dy position o owns the
 * dx cell [s*o, s*o + s) (clipped to dx) along every dimension: its corner gets
 * alpha*v + beta*dx, the rest beta*dx.  With unit stride the cell is the position itself.
 */
static void store_cells(const x1_ctx *c, int64_t ch0, int64_t nm, int64_t q0, int64_t nq, const float *buf,
                        int64_t ms, int64_t js)
{
    const hd_conv_problem *p = c->p;
    const int64_t *xs = p->xs, *s = p->str, P = p->P;
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    for (int64_t j = 0; j < nq;) {
        /* a run of dy positions along one dy row (ow varies) */
        int64_t q = q0 + j, n = q / P, o[3];
        pos3(p, q % P, o);
        int64_t cnt = imin(p->out[2] - o[2], nq - j);
        int64_t iw0 = o[2] * s[2], iw1 = imin((o[2] + cnt) * s[2], p->in[2]);
        for (int64_t a0 = 0; a0 < s[0] && o[0] * s[0] + a0 < p->in[0]; a0++)
            for (int64_t a1 = 0; a1 < s[1] && o[1] * s[1] + a1 < p->in[1]; a1++) {
                int corner_row = a0 == 0 && a1 == 0;
                float *row = c->dx + n * xs[0] + ch0 * xs[1] + (o[0] * s[0] + a0) * xs[2] + (o[1] * s[1] + a1) * xs[3];
                if (xs[4] == 1 || xs[1] != 1) {
                    /* positions inner (channel planes) */
                    for (int64_t m = 0; m < nm; m++) {
                        float *d = row + m * xs[1];
                        const float *v = buf + m * ms + j * js;
                        for (int64_t iw = iw0; iw < iw1; iw++) {
                            int64_t k = iw - iw0;
                            float b = beta == 0 ? 0.0f : beta * d[iw * xs[4]];
                            if (corner_row && k % s[2] == 0)
                                d[iw * xs[4]] = beta == 0 ? alpha * v[(k / s[2]) * js] : alpha * v[(k / s[2]) * js] + b;
                            else
                                d[iw * xs[4]] = b;
                        }
                    }
                } else {
                    /* channels inner (pixels) */
                    for (int64_t iw = iw0; iw < iw1; iw++) {
                        int64_t k = iw - iw0;
                        float *d = row + iw * xs[4];
                        if (corner_row && k % s[2] == 0) {
                            const float *v = buf + (j + k / s[2]) * js;
                            if (beta == 0)
                                for (int64_t m = 0; m < nm; m++)
                                    d[m] = alpha * v[m * ms];
                            else
                                for (int64_t m = 0; m < nm; m++)
                                    d[m] = alpha * v[m * ms] + beta * d[m];
                        } else if (beta == 0) {
                            memset(d, 0, sizeof(float) * (size_t)nm);
                        } else {
                            for (int64_t m = 0; m < nm; m++)
                                d[m] = beta * d[m];
                        }
                    }
                }
            }
        j += cnt;
    }
}

/* Task geometry: group, dx channels [m0, m0+nm) of the group, positions [q0, q0+nq) (global). */
static void task_geom(const x1_ctx *c, int64_t t, int64_t *g, int64_t *m0, int64_t *nm, int64_t *q0, int64_t *nq)
{
    const hd_conv_problem *p = c->p;
    const x1_plan *L = &c->L;
    int64_t per_group = L->cross ? L->npb : p->N * L->npb;
    /* positions fastest: consecutive tasks share their channel block's filter */
    int64_t pbi = t % per_group, mbi = (t / per_group) % L->nmb;
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

static void nchw_task(x1_ctx *c, size_t task, int thread)
{
    const hd_conv_problem *p = c->p;
    const x1_plan *L = &c->L;
    int64_t g, m0, nm, q0, nq;
    task_geom(c, (int64_t)task, &g, &m0, &nm, &q0, &nq);
    float *panel = c->slots + (size_t)thread * (size_t)L->slot, *buf = panel + L->buf_at, *abuf = panel + L->aux_at;
    hd_f32_gemm_ukernel_fn uk = L->kern->f32;
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    int64_t ch0 = g * p->Cg + m0;
    float *dxb = L->direct ? c->dx + (q0 / p->P) * p->xs[0] + ch0 * p->xs[1] + q0 % p->P : NULL;
    for (int64_t kb = 0; kb < L->nkb; kb++) {
        int64_t r0 = kb * L->kc, kcb = imin(L->kc, p->Kg - r0);
        float al = L->direct ? alpha : 1.0f, be = kb > 0 ? 1.0f : L->direct ? beta : 0.0f;
        copy_rows(c, g, r0, kcb, q0, nq, panel, L->ld);
        for (int64_t ir = 0; ir < nm; ir += L->MR) {
            const float *ap;
            if (L->a_late) {
                pack_wt(c, g, kb, m0 + ir, abuf);
                ap = abuf;
            } else {
                ap = c->apack + g * L->Cpad * p->Kg + r0 * L->Cpad + (m0 + ir) * kcb;
            }
            size_t mr = (size_t)imin(L->MR, nm - ir);
            for (int64_t jr = 0; jr < nq; jr += L->NR) {
                size_t nr = (size_t)imin(L->NR, nq - jr);
                if (dxb)
                    uk(mr, nr, (size_t)kcb, ap, panel + jr, (size_t)L->ld, dxb + ir * p->xs[1] + jr, (size_t)p->xs[1],
                       al, be);
                else
                    uk(mr, nr, (size_t)kcb, ap, panel + jr, (size_t)L->ld, buf + ir * L->ld + jr, (size_t)L->ld, al,
                       be);
            }
        }
    }
    if (!L->direct)
        store_cells(c, ch0, nm, q0, nq, buf, L->ld, 1);
}

static void nhwc_task(x1_ctx *c, size_t task, int thread)
{
    const hd_conv_problem *p = c->p;
    const x1_plan *L = &c->L;
    int64_t g, m0, nm, q0, nq;
    task_geom(c, (int64_t)task, &g, &m0, &nm, &q0, &nq);
    float *panel = c->slots + (size_t)thread * (size_t)L->slot, *buf = panel + L->buf_at, *wtail = panel + L->aux_at;
    hd_f32_gemm_ukernel_fn uk = L->kern->f32;
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    int64_t ch0 = g * p->Cg + m0, MR = L->MR, NR = L->NR, ldw = p->wst[0];
    int64_t nfull = nm / NR * NR;
    /* dx pixels packed across images (direct): pixel q at dx + q * xs[4] */
    float *dxb = L->direct ? c->dx + (q0 / p->P) * p->xs[0] + (q0 % p->P) * p->xs[4] + ch0 : NULL;
    for (int64_t kb = 0; kb < L->nkb; kb++) {
        int64_t r0 = kb * L->kc, kcb = imin(L->kc, p->Kg - r0);
        float al = L->direct ? alpha : 1.0f, be = kb > 0 ? 1.0f : L->direct ? beta : 0.0f;
        const float *wk = c->w + (g * p->Kg + r0) * ldw + m0 * p->wst[1];
        pack_pix(c, g, r0, kcb, q0, nq, panel);
        if (nfull < nm) {
            /* the partial last channel panel: its rows would run past W's end */
            for (int64_t pp = 0; pp < kcb; pp++) {
                for (int64_t j = 0; j < nm - nfull; j++)
                    wtail[pp * NR + j] = wk[pp * ldw + (nfull + j) * p->wst[1]];
                for (int64_t j = nm - nfull; j < NR; j++)
                    wtail[pp * NR + j] = 0;
            }
        }
        for (int64_t ir = 0; ir < nq; ir += MR) {
            const float *ap = panel + ir * kcb;
            size_t mr = (size_t)imin(MR, nq - ir);
            for (int64_t jr = 0; jr < nm; jr += NR) {
                size_t nr = (size_t)imin(NR, nm - jr);
                const float *bp = jr < nfull ? wk + jr * p->wst[1] : wtail;
                size_t bs = jr < nfull ? (size_t)ldw : (size_t)NR;
                if (dxb)
                    uk(mr, nr, (size_t)kcb, ap, bp, bs, dxb + ir * p->xs[4] + jr, (size_t)p->xs[4], al, be);
                else
                    uk(mr, nr, (size_t)kcb, ap, bp, bs, buf + ir * L->mb + jr, (size_t)L->mb, al, be);
            }
        }
    }
    if (!L->direct)
        store_cells(c, ch0, nm, q0, nq, buf, 1, L->mb);
}

static void x1_task(void *vctx, size_t task, int thread)
{
    x1_ctx *c = vctx;
    if (c->L.pix)
        nhwc_task(c, task, thread);
    else
        nchw_task(c, task, thread);
}

/* Tasks taken from a counter (a preempted thread does not hold up the call); which thread
 * runs a task only picks its scratch slot, never its arithmetic. */
static void dealt_worker(void *vctx, size_t task, int thread)
{
    (void)task;
    x1_ctx *c = vctx;
    for (size_t t; (t = atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed)) < c->ntasks;)
        c->fn(c, t, thread);
}

static void run_dealt(x1_ctx *c, size_t ntasks, int nt, hd_task_fn fn)
{
    atomic_store_explicit(&c->next, 0, memory_order_relaxed);
    c->ntasks = ntasks;
    c->fn = fn;
    hd_parallel_for(ntasks < (size_t)nt ? ntasks : (size_t)nt, nt, dealt_worker, c);
}

/* ---------------- the solver ---------------- */

/* Spatial positions of a tensor (strides S, dims D) contiguous: pos * 1. */
static int planes(const int64_t s[5], const int64_t d[3]) { return s[4] == 1 && linear_positions(s, d); }

size_t hd_conv_bwdd_1x1_ws(const hd_conv_problem *p)
{
    x1_plan L = plan_x1(p);
    return layout_x1(p, &L).total;
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
    if (dy_pix(p) && p->wst[1] != 1) {
        *reason = "NHWC-like: needs the filter's channels contiguous";
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
    hd_conv_layout W = layout_x1(p, &c.L);
    c.dy = a->y;
    c.w = a->w;
    c.dx = a->out;
    c.apack = (float *)((char *)a->ws + W.off[0]);
    c.slots = (float *)((char *)a->ws + W.off[1]);
    c.cols = hd_cpu_isa() >= HD_ISA_AVX512 ? hd_conv_gather_cols__avx512 : cols_c;
    int nt = a->nthreads < SLOTS ? a->nthreads : SLOTS;
    if (nt < 1)
        nt = 1;
    if (!c.L.pix && !c.L.a_late)
        run_dealt(&c, (size_t)(p->G * c.L.nkb * (c.L.Cpad / c.L.MR)), nt, pack_wt_task);
    int64_t per_group = c.L.cross ? c.L.npb : p->N * c.L.npb;
    run_dealt(&c, (size_t)(p->G * c.L.nmb * per_group), nt, x1_task);
}
