/*
 * Forward fp32 convolution, solver 151 fwd.dot_f32 (planned with the other blocked-GEMM
 * variants in conv_fwd_plan_f32.c, which hands it such problems): few positions (at most 64
 * over all images, taken image after image), a long reduction and a filter too large to stay
 * cached between calls -- the 7x7 layers at batch 1 (res5 3x3: 49 positions, a reduction of 4608, a 9 MiB filter).
 *
 * There the filter is most of the memory traffic, and it is read from the user's tensor
 * once per call.  The outer-product kernels need it transposed (packed as the B side, or
 * broadcast from 14 rows at a time as the A side), which leaves them waiting on memory for
 * a large part of the time.  Here both sides are rows read in place and the reduction runs along them
 * (dot-ukernels.h): a filter row is a contiguous stream, five of them at a time, and a
 * position's row is either its channels at one tap (NHWC-like x and a KRSC filter; a
 * reduction block, one kernel call, takes whole taps or equal parts of one, about DOT_KC
 * steps) or its row of x's im2col, built once per call (positions x CRS, for a KCRS filter).
 *
 * A task takes a run of channel tiles (NR filter rows); per tile and reduction block it
 * runs the kernel over every position tile (MR rows), whose partial sums wait in the task's
 * slot, so the tile's filter block (NR x block) is read from memory once and then from L1.
 * The im2col rows are read by every channel tile: a task takes the position tiles in phases
 * whose rows stay in L2 (the filter is then read once per phase).
 * Tap by tap (tapc), the calls of the taps at which a whole position tile reads the padding
 * are skipped, the positions sorted into tiles that share their border (dot_order).
 * After the last block each partial is folded to its sum and stored through the epilogue
 * (alpha/beta, or the fused bias, z and activation).  Every output is one chain per lane in
 * reduction order plus a fixed fold, whatever the tiles, blocks, tasks or threads: results
 * are bitwise identical for every thread count, and between AVX2 and AVX-512.
 */
#include "conv/solvers/conv_fwd_dot.h"

#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/dot/dot-ukernels.h"

#include <stdint.h>
#include <string.h>

#define DOT_MAX_POS 64         /* at most this many positions over the batch: beyond, the filter
                                  packed by the outer-product plans serves enough positions to
                                  pay for its packing */
#define DOT_MIN_R 1024         /* reductions at least this long (shorter ones, e.g. 512, run faster
                                  on the packed-filter plans) */
#define DOT_MAX_TAPS 64        /* im2col: filters of at most this many taps */
#define DOT_FILTER_CACHED (1 << 20) /* filters of at most this many bytes stay cached: not here */
#define DOT_KC 1024            /* steps per kernel call, about (the filter block of NR rows in L1) */
#define DOT_XCOL_CB 16         /* im2col: channels per task building it */
#define DOT_XCOL_L2 (384 << 10) /* im2col: bytes of position rows one phase reads, so that they
                                   stay in a core's L2 (1 MiB) while the filter streams through */
#define DOT_MAX_WS ((size_t)64 << 20) /* most workspace bytes of the plan */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t rup(int64_t a, int64_t b) { return cdiv(a, b) * b; }
static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }

/* Filter rows contiguous in (tap, channel) order (KRSC) or (channel, tap) order (KCRS). */
static int w_tapc(const hd_conv_problem *p)
{
    const int64_t *ws = p->wst;
    return ws[1] == 1 && ws[4] == p->C && ws[3] == p->flt[2] * p->C && ws[2] == p->flt[1] * p->flt[2] * p->C;
}
static int w_ctap(const hd_conv_problem *p)
{
    const int64_t *ws = p->wst;
    return ws[4] == 1 && ws[3] == p->flt[2] && ws[2] == p->flt[1] * p->flt[2] && ws[1] == p->TRS;
}

/* NHWC-like x and a KRSC filter: position rows are x's channel runs, per tap. */
static int dot_tapc(const hd_conv_problem *p) { return p->xs[1] == 1 && w_tapc(p); }

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    hd_f32_dot_fn fn;
    int64_t MR, NR;
    int tapc;
    int64_t ulen, nunits;       /* the reduction in units: tapc, taps or equal parts of a tap
                                   (nch per tap); otherwise chunks of DOT_KC of the im2col rows
                                   (the last one shorter) */
    int64_t nch;                /* tapc: units per tap */
    int64_t upb, nblk;          /* units per block (per kernel call), blocks */
    int64_t npos;               /* positions of all images (image-major) */
    int64_t npt, ppad;          /* position tiles, positions rounded up to MR */
    int64_t nph;                /* phases: runs of position tiles that a task takes one after
                                   the other, each over all its channel tiles */
    int64_t nct, ctpt;          /* channel tiles, tiles per task */
    int64_t ldcol;              /* im2col: floats between two positions' rows */
    int64_t part;               /* floats of one slot */
    const float **xtab;         /* nunits x ppad position-row pointers */
    const float *zero;          /* upb * ulen zeros: a padding position's row of a unit, and the
                                   filter rows past K of a whole block */
    unsigned char perm[DOT_MAX_POS]; /* slot i of the position tiles holds position perm[i] */
    float *xcol, *slots;
    float alpha, beta, alpha2;
} dot_ctx;

/* The taps [lo, hi] of a filter dimension that read inside x for output coordinate o along
 * spatial dimension j (lo > hi: none). */
static void tap_range(const hd_conv_problem *p, int j, int64_t o, int64_t *lo, int64_t *hi)
{
    *lo = p->flt[j];
    *hi = -1;
    for (int64_t t = 0; t < p->flt[j]; t++) {
        int64_t i = o * p->str[j] - p->pad[j] + t * p->dil[j];
        if (i >= 0 && i < p->in[j]) {
            *lo = t < *lo ? t : *lo;
            *hi = t;
        }
    }
}

/* The order of the positions in the tiles.  Taken tap by tap (tapc), a kernel call of a
 * tile is skipped where every position of the tile reads the padding at that tap, so
 * positions that read the padding at the same taps share tiles: sorted by the number of
 * taps inside x (most first), then by those taps' ranges, then by position.  At 7x7 with a
 * 3x3 filter and padding 1 this gives 25 interior positions in 5 tiles, the four edges in a
 * tile each (6 taps), the four corners in the last: 13% fewer products than with every tap
 * of every tile.  The im2col rows mix all taps in every reduction block: positions in
 * order. */
static void dot_order(const hd_conv_problem *p, dot_ctx *c)
{
    int64_t key[DOT_MAX_POS][5];
    for (int64_t q = 0; q < c->npos; q++) {
        int64_t *k = key[q], hl, hh, wl, wh;
        tap_range(p, 1, q % p->P / p->out[2], &hl, &hh);
        tap_range(p, 2, q % p->out[2], &wl, &wh);
        int64_t taps = (hh >= hl ? hh - hl + 1 : 0) * (wh >= wl ? wh - wl + 1 : 0);
        k[0] = c->tapc ? -taps : 0;
        k[1] = c->tapc ? hl : 0;
        k[2] = c->tapc ? hh : 0;
        k[3] = c->tapc ? wl : 0;
        k[4] = c->tapc ? wh : 0;
    }
    /* insertion sort, stable: equal keys keep the positions' order */
    for (int64_t i = 0; i < c->npos; i++) {
        int64_t j = i;
        for (; j > 0; j--) {
            const int64_t *a = key[c->perm[j - 1]], *b = key[i];
            int before = 0;
            for (int m = 0; m < 5 && !before; m++) {
                if (a[m] != b[m]) {
                    before = b[m] < a[m];
                    break;
                }
            }
            if (!before)
                break;
            c->perm[j] = c->perm[j - 1];
        }
        c->perm[j] = (unsigned char)i;
    }
}

static dot_ctx dot_plan(const hd_conv_problem *p)
{
    dot_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    const hd_dot_kernel *k = hd_dot_kernel_for(p->isa);
    c.fn = k->fn;
    c.MR = (int64_t)k->mr;
    c.NR = (int64_t)k->nr;
    c.tapc = dot_tapc(p);
    /* blocks of about DOT_KC steps: with shorter ones the kernel's partial sums, loaded and
       stored per call, cost too much, with longer ones the NR filter rows of a block no longer
       stay in L1.  A tap of more than DOT_KC channels
       is cut into equal parts when C has a divisor near C / DOT_KC. */
    if (c.tapc) {
        int64_t want = cdiv(p->C, DOT_KC), nch = want;
        while (p->C % nch)
            nch++;
        c.nch = nch <= 2 * want ? nch : 1;
        c.ulen = p->C / c.nch;
        c.nunits = p->TRS * c.nch;
        c.upb = c.ulen < DOT_KC ? DOT_KC / c.ulen : 1;
    } else {
        c.ulen = DOT_KC;
        c.nunits = cdiv(p->CRS, c.ulen);
        c.upb = 1;
    }
    c.nblk = cdiv(c.nunits, c.upb);
    c.npos = p->N * p->P;
    c.npt = cdiv(c.npos, c.MR);
    c.ppad = c.npt * c.MR;
    c.nct = cdiv(p->K, c.NR);
    c.ctpt = 1;
    c.ldcol = c.tapc ? 0 : rup(p->CRS, 16) + 16;   /* rows off multiples of 4 KiB */
    c.part = rup(c.ppad * c.NR * HD_DOT_LANES, 16);
    /* the im2col rows of all positions (res5 3x3: 50 rows of 18 KiB) would not stay in L2
       beside the filter stream, and every channel tile reads them all: in phases of position
       tiles, each phase's rows stay there, and the filter is read once per phase (x's own
       rows, taken tap by tap, are small enough) */
    c.nph = c.tapc ? 1 : imin(c.npt, cdiv(c.ppad * c.ldcol * (int64_t)sizeof(float), DOT_XCOL_L2));
    dot_order(p, &c);
    return c;
}

/* Floats of the row table (nunits x ppad pointers). */
static int64_t dot_tab_floats(const dot_ctx *c)
{
    return rup(cdiv(c->nunits * c->ppad * (int64_t)sizeof(float *), (int64_t)sizeof(float)), 16);
}

/* Row table and zero row, per-thread partial sums, x's im2col. */
static hd_conv_layout dot_layout(const dot_ctx *c)
{
    hd_conv_layout W = {{0}, 0};
    hd_conv_book(&W, 0, 1, dot_tab_floats(c) + c->upb * c->ulen, sizeof(float));
    hd_conv_book(&W, 1, HD_SCRATCH_SLOTS, c->part, sizeof(float));
    hd_conv_book(&W, 2, c->tapc ? 0 : c->npos, c->ldcol, sizeof(float));
    return W;
}

/* What the plan keeps: the choices (the context before execution fills its pointers) and
 * the workspace layout. */
typedef struct {
    dot_ctx c;
    hd_conv_layout W;
} dot_saved;
_Static_assert(sizeof(dot_saved) <= HD_CONV_DOT_PLAN_BYTES, "the dot plan fits its space");

int hd_conv_fwd_dot_plan(const hd_conv_problem *p, void *plan, size_t *ws)
{
    if (p->G != 1 || p->flip || p->in[0] != 1 || p->out[0] != 1 || p->flt[0] != 1)
        return 0;
    if (p->N * p->P > DOT_MAX_POS || p->CRS < DOT_MIN_R || p->K * p->CRS * (int64_t)sizeof(float) <= DOT_FILTER_CACHED)
        return 0;
    if (!dot_tapc(p) && !(w_ctap(p) && p->TRS <= DOT_MAX_TAPS))
        return 0;
    dot_saved *d = plan;
    d->c = dot_plan(p);
    d->W = dot_layout(&d->c);
    *ws = d->W.total;
    /* the im2col rows of a huge reduction: leave the problem to the other plans */
    return d->W.total <= DOT_MAX_WS;
}

/* x's im2col: xcol[q * ldcol + ch * TRS + tap] = x at channel ch and the tap's window
 * position for output position q (zero in the padding).  A task takes DOT_XCOL_CB channels,
 * whose planes stay in L1, and writes one run of CB * TRS floats per position. */
static void xcol_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const dot_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const int64_t *xs = p->xs, S = p->flt[2], TRS = p->TRS;
    const float *x = c->a->x;
    int64_t c0 = (int64_t)task * DOT_XCOL_CB, c1 = imin(c0 + DOT_XCOL_CB, p->C), off[DOT_MAX_TAPS];
    for (int64_t q = 0; q < c->npos; q++) {
        int64_t n = q / p->P, oh = q % p->P / p->out[2], ow = q % p->out[2];
        int inside = 1;
        for (int64_t t = 0; t < TRS; t++) {
            int64_t ih = oh * p->str[1] - p->pad[1] + (t / S) * p->dil[1];
            int64_t iw = ow * p->str[2] - p->pad[2] + (t % S) * p->dil[2];
            off[t] = ih < 0 || ih >= p->in[1] || iw < 0 || iw >= p->in[2] ? -1 : ih * xs[3] + iw * xs[4];
            inside &= off[t] >= 0;
        }
        float *d = c->xcol + q * c->ldcol + c0 * TRS;
        /* inside, with unit steps along w: a filter row's S taps are S consecutive floats */
        int runs = inside && p->dil[2] * xs[4] == 1;
        for (int64_t ch = c0; ch < c1; ch++, d += TRS) {
            const float *xc = x + n * xs[0] + ch * xs[1];
            if (runs && S == 3)                  /* a constant size: the copies inline */
                for (int64_t t = 0; t < TRS; t += 3)
                    memcpy(d + t, xc + off[t], 3 * sizeof(float));
            else if (runs)
                for (int64_t t = 0; t < TRS; t += S)
                    memcpy(d + t, xc + off[t], sizeof(float) * (size_t)S);
            else if (inside)
                for (int64_t t = 0; t < TRS; t++)
                    d[t] = xc[off[t]];
            else
                for (int64_t t = 0; t < TRS; t++)
                    d[t] = off[t] < 0 ? 0.0f : xc[off[t]];
        }
    }
}

/* The position rows of every unit: tapc, x's channel run (or its part) at the tap's window
 * position (the zero row in the padding); im2col, the unit's part of the position's row.
 * Positions past P read the zero row. */
static void build_xtab(dot_ctx *c)
{
    const hd_conv_problem *p = c->p;
    const float *x = c->a->x;
    int64_t S = p->flt[2];
    for (int64_t b = 0; b < c->nunits; b++) {
        const float **row = c->xtab + b * c->ppad;
        for (int64_t i = 0; i < c->ppad; i++) {
            row[i] = c->zero;
            if (i >= c->npos)
                continue;
            int64_t q = c->perm[i];
            if (!c->tapc) {
                row[i] = c->xcol + q * c->ldcol + b * c->ulen;
                continue;
            }
            int64_t tap = b / c->nch, part = b % c->nch;
            int64_t n = q / p->P, oh = q % p->P / p->out[2], ow = q % p->out[2];
            int64_t ih = oh * p->str[1] - p->pad[1] + (tap / S) * p->dil[1];
            int64_t iw = ow * p->str[2] - p->pad[2] + (tap % S) * p->dil[2];
            if (ih >= 0 && ih < p->in[1] && iw >= 0 && iw < p->in[2])
                row[i] = x + n * p->xs[0] + ih * p->xs[3] + iw * p->xs[4] + part * c->ulen;
        }
    }
}

/* The sums of one channel tile (channels k0 .. k0+NR-1) at the positions in slots [i0, i1)
 * into y, with the epilogue. */
static void store_tile(const dot_ctx *c, int64_t k0, const float *part, int64_t i0, int64_t i1)
{
    const hd_conv_problem *p = c->p;
    const hd_conv_epilogue *e = &c->a->epi;
    const float *z = e->fused && e->alpha2 != 0 ? e->z : NULL, *bias = e->fused ? (const float *)e->bias : NULL;
    float *y = c->a->out;
    int64_t nk = imin(c->NR, p->K - k0);
    for (int64_t i = i0; i < imin(i1, c->npos); i++) {
        int64_t q = c->perm[i];
        int64_t base = q / p->P * p->ys[0] + q % p->P / p->out[2] * p->ys[3] + q % p->out[2] * p->ys[4];
        const float *v = part + i * c->NR * HD_DOT_LANES;
        for (int64_t j = 0; j < nk; j++) {
            int64_t o = base + (k0 + j) * p->ys[1];
            /* + 0: a sum whose products were all zeros is +0 whichever of them a tile
               skipped (a skipped -0 product would otherwise leave -0 where another tiling
               gives +0) */
            float s = c->alpha * (hd_f32_dot_fold(v + j * HD_DOT_LANES) + 0.0f);
            if (bias) {
                s += bias[(k0 + j) * e->bias_stride];
                if (z)
                    s += c->alpha2 * z[o];
                if (e->relu && !(s > 0))
                    s = 0;
            } else if (c->beta != 0) {
                s += c->beta * y[o];
            }
            y[o] = s;
        }
    }
}

/* Whether some of the MR positions of a tile reads inside x at a unit (its rows, MR pointers). */
static int unit_live(const dot_ctx *c, const float *const *rows)
{
    for (int64_t i = 0; i < c->MR; i++)
        if (rows[i] != c->zero)
            return 1;
    return 0;
}

/* Channel tile CT (NR filter rows) over every reduction block at the position tiles
 * [pt0, pt1), then its sums there stored into y; the partial sums wait in PART. */
static void tile_phase(const dot_ctx *c, int64_t ct, int64_t pt0, int64_t pt1, float *part)
{
    const hd_conv_problem *p = c->p;
    const float *w = c->a->w;
    int64_t k0 = ct * c->NR;
    unsigned char started[DOT_MAX_POS];
    memset(started, 0, sizeof started);
    for (int64_t b = 0; b < c->nblk; b++) {
        int64_t u0 = b * c->upb, nseg = imin(c->upb, c->nunits - u0), r0 = u0 * c->ulen;
        int64_t kc = imin(c->ulen, p->CRS - r0);     /* the last im2col chunk is shorter */
        const float *wr[16];
        for (int64_t j = 0; j < c->NR; j++)
            wr[j] = k0 + j < p->K ? w + (k0 + j) * p->wst[0] + r0 : c->zero;
        const float **xr = c->xtab + u0 * c->ppad;
        for (int64_t pt = pt0; pt < pt1; pt++) {
            /* runs of units that some position of the tile reads inside x */
            const float **xt = xr + pt * c->MR;
            for (int64_t g = 0, g1; g < nseg; g = g1) {
                while (g < nseg && !unit_live(c, xt + g * c->ppad))
                    g++;
                for (g1 = g; g1 < nseg && unit_live(c, xt + g1 * c->ppad);)
                    g1++;
                if (g1 == g)
                    break;
                const float *wg[16];
                for (int64_t j = 0; j < c->NR; j++)
                    wg[j] = wr[j] + g * kc;
                c->fn((size_t)kc, (size_t)(g1 - g), xt + g * c->ppad, (size_t)c->ppad, wg,
                      part + pt * c->MR * c->NR * HD_DOT_LANES, !started[pt]);
                started[pt] = 1;
            }
        }
    }
    /* a tile whose every position reads only the padding: its sums are zero */
    for (int64_t pt = pt0; pt < pt1; pt++)
        if (!started[pt])
            memset(part + pt * c->MR * c->NR * HD_DOT_LANES, 0, sizeof(float) * (size_t)(c->MR * c->NR * HD_DOT_LANES));
    store_tile(c, k0, part, pt0 * c->MR, pt1 * c->MR);
}

/* One task: channel tiles [t*ctpt, (t+1)*ctpt), phase after phase. */
static void dot_task(void *vctx, size_t task, int thread)
{
    const dot_ctx *c = vctx;
    float *part = c->slots + (size_t)thread * (size_t)c->part;
    int64_t t1 = imin(c->nct, ((int64_t)task + 1) * c->ctpt);
    for (int64_t ph = 0; ph < c->nph; ph++) {
        int64_t pt0 = c->npt * ph / c->nph, pt1 = c->npt * (ph + 1) / c->nph;
        for (int64_t ct = (int64_t)task * c->ctpt; ct < t1; ct++)
            tile_phase(c, ct, pt0, pt1, part);
    }
}

void hd_conv_fwd_dot_exec(const void *plan, const hd_conv_problem *p, const hd_conv_args *a)
{
    const dot_saved *d = plan;
    dot_ctx c = d->c;
    c.p = p;
    c.a = a;
    hd_conv_layout W = d->W;
    char *ws = a->ws;
    c.xtab = (const float **)(ws + W.off[0]);
    float *zero = (float *)(ws + W.off[0]) + dot_tab_floats(&c);
    memset(zero, 0, sizeof(float) * (size_t)(c.upb * c.ulen));
    c.zero = zero;
    c.slots = (float *)(ws + W.off[1]);
    c.xcol = (float *)(ws + W.off[2]);
    c.alpha = (float)a->epi.alpha;
    c.beta = (float)a->epi.beta;
    c.alpha2 = (float)a->epi.alpha2;
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    if (!c.tapc)
        hd_parallel_deal((size_t)cdiv(p->C, DOT_XCOL_CB), nt, xcol_task, &c);
    build_xtab(&c);
    /* two runs of channel tiles per thread: a task's filter rows are one contiguous stream
       (more, shorter runs are slower); which task computes a value never changes
       its bits */
    c.ctpt = cdiv(c.nct, 2 * (int64_t)nt);
    hd_parallel_deal((size_t)cdiv(c.nct, c.ctpt), nt, dot_task, &c);
}
