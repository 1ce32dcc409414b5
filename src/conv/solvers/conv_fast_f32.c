/*
 * Blocked implicit-GEMM convolution in fp32 (conv/solvers/conv_fast.h).  The forward solver
 * has its own files (conv_fwd_*_f32.c); exec_mm below serves backward data.
 *
 * Forward and backward data are the same computation seen from two sides: every value of
 * the result (y, or dx) is a dot product of a filter row with a "column" of the source
 * (x, or dy) gathered around its position.  The work is cut into tasks of (image, group,
 * block of result positions, block of result channels); a task gathers its columns into a
 * private panel (cache-sized, never the whole im2col matrix) and multiplies it with the
 * packed filter by hd_sgemm on the calling thread, writing straight into the result when
 * its strides allow.  Tasks never share an output element and hd_sgemm reduces each element
 * in a fixed order, so the result does not depend on the thread count.
 *
 * The reduction index r runs over (channel, tap) when the source's spatial positions are
 * contiguous (NCHW-like: a panel row is a strided copy), or over (tap, channel) when its
 * channels are contiguous (NHWC-like: a panel row is a run of channels).
 *
 * Backward filter accumulates dW += dy * col^T over (image, position block) steps that are
 * cut into a fixed number of chunks (a function of the problem only); each task owns one
 * chunk x group x filter-row block x reduction-column block and keeps its partial sums in
 * the workspace, and the chunks are added in chunk order at the end.
 *
 * Parallel tasks take one of HD_SCRATCH_SLOTS scratch areas by thread index, so the workspace
 * does not depend on the thread count; at most HD_SCRATCH_SLOTS threads are used.
 */
#include "conv/solvers/conv_solvers.h"
#include "conv/solvers/conv_fast.h"

#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/gemm/gemm.h"

#include <string.h>

#define PANEL_FLOATS (512 * 1024)     /* one gathered panel: 2 MiB */
#define MIN_TASKS 4                   /* cut small problems finer, down to this many tasks */

/* ---------------- the source of the gathered columns ---------------- */

typedef struct {
    const float *src;
    int64_t ss[5];            /* strides (n, channel, d, h, w) of the source */
    int64_t sin[3];           /* its spatial dims */
    int64_t dout[3];          /* dims of the result positions */
    int64_t flt[3], pad[3], str[3], dil[3];
    int64_t nch;              /* source channels per group */
    int64_t TRS;
    int bwd;                  /* result position o meets source position (o + pad - t*dil) / str */
    int pix;                  /* reduction order (tap, channel): channels contiguous */
} gather;

static void gather_init(gather *G, const hd_conv_problem *p, int bwd, const float *src)
{
    G->src = src;
    memcpy(G->ss, bwd ? p->ys : p->xs, sizeof G->ss);
    for (int j = 0; j < 3; j++) {
        G->sin[j] = bwd ? p->out[j] : p->in[j];
        G->dout[j] = bwd ? p->in[j] : p->out[j];
        G->flt[j] = p->flt[j];
        G->pad[j] = p->pad[j];
        G->str[j] = p->str[j];
        G->dil[j] = p->dil[j];
    }
    G->nch = bwd ? p->Kg : p->Cg;
    G->TRS = p->TRS;
    G->bwd = bwd;
    G->pix = G->ss[1] == 1 && G->ss[4] != 1 && G->nch > 1;
}

static int src_pix(const hd_conv_problem *p, int bwd)
{
    gather G;
    gather_init(&G, p, bwd, NULL);
    return G.pix;
}

/* Source coordinate along dim j for result coordinate o and tap t; -1 when outside. */
static inline int64_t src_coord(const gather *G, int j, int64_t o, int64_t t)
{
    int64_t i;
    if (!G->bwd) {
        i = o * G->str[j] - G->pad[j] + t * G->dil[j];
    } else {
        int64_t v = o + G->pad[j] - t * G->dil[j];
        if (v < 0 || v % G->str[j])
            return -1;
        i = v / G->str[j];
    }
    return i >= 0 && i < G->sin[j] ? i : -1;
}

static inline void tap_split(const gather *G, int64_t tap, int64_t *t, int64_t *r, int64_t *s)
{
    *s = tap % G->flt[2];
    *r = (tap / G->flt[2]) % G->flt[1];
    *t = tap / (G->flt[2] * G->flt[1]);
}

/* The source is already a column panel (1x1, no padding, unit stride, positions
 * contiguous along one stride): its address and leading dimension, or NULL. */
static const float *direct_panel(const gather *G, int64_t n, int64_t ch0, int64_t nrows, int64_t p0, int64_t np,
                                 size_t *ld)
{
    if (G->TRS != 1)
        return NULL;
    for (int j = 0; j < 3; j++)
        if (G->pad[j] || G->str[j] != 1 || G->sin[j] != G->dout[j])
            return NULL;
    int64_t ps = G->ss[4];
    if ((G->sin[1] > 1 && G->ss[3] != G->sin[2] * ps) || (G->sin[0] > 1 && G->ss[2] != G->sin[1] * G->sin[2] * ps))
        return NULL;
    const float *b = G->src + n * G->ss[0];
    if (!G->pix && ps == 1 && G->ss[1] >= np && G->ss[1] > 0) {
        *ld = (size_t)G->ss[1];
        return b + ch0 * G->ss[1] + p0;
    }
    if (G->pix && G->ss[1] == 1 && ps >= nrows) {
        *ld = (size_t)ps;
        return b + ch0 + p0 * ps;
    }
    return NULL;
}

/* Gather reduction rows [r0, r0+nr) x result positions [p0, p0+np) of image n, source
 * channel base chb (group offset).  Channel-major order: dst[row * ld + j]; pixel order:
 * dst[j * ld + row]. */
static void gather_panel(const gather *G, int64_t n, int64_t chb, int64_t r0, int64_t nr, int64_t p0, int64_t np,
                         float *dst, int64_t ld)
{
    int64_t OW = G->dout[2], OH = G->dout[1];
    const float *base = G->src + n * G->ss[0] + chb * G->ss[1];
    if (!G->pix) {
        for (int64_t row = 0; row < nr; row++) {
            int64_t r = r0 + row, c = r / G->TRS, t, rr, s;
            tap_split(G, r % G->TRS, &t, &rr, &s);
            const float *bc = base + c * G->ss[1];
            float *d = dst + row * ld;
            int64_t pos = p0, left = np;
            while (left > 0) {
                int64_t ow = pos % OW, oh = (pos / OW) % OH, od = pos / (OW * OH);
                int64_t cnt = OW - ow < left ? OW - ow : left;
                int64_t id = src_coord(G, 0, od, t), ih = src_coord(G, 1, oh, rr);
                if (id < 0 || ih < 0) {
                    memset(d, 0, (size_t)cnt * sizeof *d);
                } else {
                    const float *bl = bc + id * G->ss[2] + ih * G->ss[3];
                    if (!G->bwd && G->str[2] == 1) {      /* contiguous run with zero borders */
                        int64_t off = s * G->dil[2] - G->pad[2];   /* iw = ow + off */
                        int64_t lo = -off > ow ? -off : ow, hi = G->sin[2] - off;
                        if (hi > ow + cnt)
                            hi = ow + cnt;
                        if (lo > hi)
                            lo = hi;
                        int64_t k = 0;
                        for (int64_t o = ow; o < lo; o++)
                            d[k++] = 0;
                        if (G->ss[4] == 1) {
                            memcpy(d + k, bl + lo + off, (size_t)(hi - lo) * sizeof *d);
                            k += hi - lo;
                        } else {
                            for (int64_t o = lo; o < hi; o++)
                                d[k++] = bl[(o + off) * G->ss[4]];
                        }
                        for (int64_t o = hi; o < ow + cnt; o++)
                            d[k++] = 0;
                    } else {
                        for (int64_t k = 0; k < cnt; k++) {
                            int64_t iw = src_coord(G, 2, ow + k, s);
                            d[k] = iw < 0 ? 0.0f : bl[iw * G->ss[4]];
                        }
                    }
                }
                d += cnt, pos += cnt, left -= cnt;
            }
        }
        return;
    }
    for (int64_t j = 0; j < np; j++) {
        int64_t pos = p0 + j;
        int64_t ow = pos % OW, oh = (pos / OW) % OH, od = pos / (OW * OH);
        float *d = dst + j * ld;
        int64_t row = 0;
        while (row < nr) {
            int64_t r = r0 + row, tap = r / G->nch, c = r % G->nch;
            int64_t cnt = G->nch - c < nr - row ? G->nch - c : nr - row;
            int64_t t, rr, s;
            tap_split(G, tap, &t, &rr, &s);
            int64_t id = src_coord(G, 0, od, t), ih = src_coord(G, 1, oh, rr), iw = src_coord(G, 2, ow, s);
            if (id < 0 || ih < 0 || iw < 0)
                memset(d + row, 0, (size_t)cnt * sizeof *d);
            else
                memcpy(d + row, base + id * G->ss[2] + ih * G->ss[3] + iw * G->ss[4] + c, (size_t)cnt * sizeof *d);
            row += cnt;
        }
    }
}

/* ---------------- applicability ---------------- */

static int fp32_only(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8) {
        *reason = "the blocked GEMM solvers take FLOAT x, w and y only";
        return 0;
    }
    return 1;
}

/* Positions of the result tensor (strides OS, dims D) addressed as pos * os[4]. */
static int linear_positions(const int64_t os[5], const int64_t d[3])
{
    return (d[1] == 1 || os[3] == d[2] * os[4]) && (d[0] == 1 || os[2] == d[1] * d[2] * os[4]);
}

/* Write an nm x np block of results (row m: channel ch0 + m, column j: position p0 + j of
 * image n) through the epilogue; the output is FLOAT. */
static void store_block(const hd_conv_args *a, const int64_t os[5], const int64_t d[3], int64_t n, int64_t ch0,
                        int64_t nm, int64_t p0, int64_t np, const float *res, int64_t ld)
{
    const hd_conv_epilogue *e = &a->epi;
    float alpha = (float)e->alpha, beta = (float)e->beta, alpha2 = (float)e->alpha2;
    float *out = a->out;
    const float *z = e->z;
    for (int64_t m = 0; m < nm; m++) {
        int64_t ch = ch0 + m;
        float bias = e->fused ? ((const float *)e->bias)[ch * e->bias_stride] : 0.0f;
        const float *v = res + m * ld;
        int64_t ow = p0 % d[2], oh = (p0 / d[2]) % d[1], od = p0 / (d[2] * d[1]);
        for (int64_t j = 0; j < np; j++) {
            int64_t off = n * os[0] + ch * os[1] + od * os[2] + oh * os[3] + ow * os[4];
            if (++ow == d[2]) {
                ow = 0;
                if (++oh == d[1])
                    oh = 0, od++;
            }
            float r;
            if (e->fused) {
                r = alpha * v[j] + bias;
                if (alpha2 != 0)
                    r += alpha2 * z[off];
                if (e->relu && !(r > 0))
                    r = 0;
            } else if (beta == 0) {
                r = alpha * v[j];
            } else {
                r = alpha * v[j] + beta * out[off];
            }
            out[off] = r;
        }
    }
}

/* ---------------- forward and backward data ---------------- */

typedef struct {
    int64_t M, R, Pn;             /* result channels per group, reduction length, result positions */
    int64_t pb, npb, mb, nmb;     /* position blocks, result-channel blocks */
    int64_t bpi;                  /* blocks per image; 0: blocks run across images */
} mm_plan;

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static mm_plan plan_mm(const hd_conv_problem *p, int bwd)
{
    mm_plan L;
    L.M = bwd ? p->Cg : p->Kg;
    L.R = (bwd ? p->Kg : p->Cg) * p->TRS;
    L.Pn = bwd ? p->Q : p->P;
    L.nmb = cdiv(L.M, 256);
    L.mb = cdiv(L.M, L.nmb);
    int64_t pb = PANEL_FLOATS / L.R / 16 * 16;
    pb = pb < 128 ? 128 : pb > 1024 ? 1024 : pb;
    while ((L.R + L.mb) * pb > ((int64_t)6 << 20) / HD_SCRATCH_SLOTS && pb > 32)   /* all slots <= 24 MiB */
        pb /= 2;
    if (L.Pn >= 128) {                         /* large images: blocks stay inside one image */
        if (pb > L.Pn)
            pb = L.Pn;
        while (p->G * p->N * cdiv(L.Pn, pb) * L.nmb < MIN_TASKS && pb > 32)
            pb = pb / 2 < 32 ? 32 : pb / 2;
        while (p->G * p->N * cdiv(L.Pn, pb) * L.nmb < MIN_TASKS && L.mb > 64) {
            L.nmb *= 2;
            L.mb = cdiv(L.M, L.nmb);
        }
        L.bpi = cdiv(L.Pn, pb);
        L.pb = cdiv(L.Pn, L.bpi);
        L.npb = p->N * L.bpi;
        return L;
    }
    L.bpi = 0;
    int64_t all = p->N * L.Pn;                 /* small images: position blocks run across them */
    if (pb > all)
        pb = all;
    while (p->G * cdiv(all, pb) * L.nmb < MIN_TASKS && pb > 32)
        pb = pb / 2 < 32 ? 32 : pb / 2;
    while (p->G * cdiv(all, pb) * L.nmb < MIN_TASKS && L.mb > 64) {
        L.nmb *= 2;
        L.mb = cdiv(L.M, L.nmb);
    }
    L.npb = cdiv(all, pb);
    L.pb = cdiv(all, L.npb);                  /* balanced blocks */
    return L;
}

/* Forward with an unflipped filter stored in the panel's reduction order (KCRS filter with
 * an NCHW-like x, KRSC with an NHWC-like x): its rows already are the packed filter. */
static int filter_is_packed(const hd_conv_problem *p, int bwd)
{
    if (bwd || p->flip)
        return 0;
    const int64_t *ws = p->wst;
    int64_t S = p->flt[2], RS = p->flt[1] * S;
    if (!src_pix(p, bwd))
        return ws[4] == 1 && ws[3] == S && ws[2] == RS && ws[1] == p->TRS && ws[0] >= p->CRS;
    return ws[1] == 1 && ws[4] == p->Cg && ws[3] == S * p->Cg && ws[2] == RS * p->Cg && ws[0] >= p->CRS;
}

/* Packed filter (G*M x R; none when the filter is packed already), then HD_SCRATCH_SLOTS x
 * (panel R x pb, result mb x pb). */
static hd_conv_layout layout_mm(const hd_conv_problem *p, int bwd)
{
    mm_plan L = plan_mm(p, bwd);
    hd_conv_layout W = {{0}, 0};
    hd_conv_book(&W, 0, filter_is_packed(p, bwd) ? 0 : p->G * L.M, L.R, sizeof(float));
    hd_conv_book(&W, 1, HD_SCRATCH_SLOTS, (L.R + L.mb) * L.pb, sizeof(float));
    return W;
}

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    gather G;
    mm_plan L;
    const float *wp;              /* packed filter rows, lda apart */
    float *wpack, *slots;
    size_t slot_floats, lda;
    const int64_t *os, *od;       /* result strides and position dims */
    int lin;
} mm_ctx;

static void mm_pack_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    mm_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const gather *G = &c->G;
    const float *w = c->a->w;
    int64_t g = (int64_t)task / c->L.M, m = (int64_t)task % c->L.M;
    float *d = c->wpack + (int64_t)task * c->L.R;
    int64_t nch = G->nch, TRS = G->TRS;
    for (int64_t ch = 0; ch < nch; ch++) {
        int64_t k = G->bwd ? g * p->Kg + ch : g * p->Kg + m, cc = G->bwd ? m : ch, tap = 0;
        for (int64_t t = 0; t < p->flt[0]; t++)
            for (int64_t r = 0; r < p->flt[1]; r++)
                for (int64_t s = 0; s < p->flt[2]; s++, tap++)
                    d[G->pix ? tap * nch + ch : ch * TRS + tap] = w[hd_conv_w_off(p, k, cc, t, r, s)];
    }
}

static void mm_task(void *vctx, size_t task, int thread)
{
    mm_ctx *c = vctx;
    const hd_conv_args *a = c->a;
    const mm_plan *L = &c->L;
    int64_t t = (int64_t)task;
    int64_t mbi = t % L->nmb, pbi = (t / L->nmb) % L->npb, g = t / (L->nmb * L->npb);
    int64_t m0 = mbi * L->mb, nm = L->M - m0 < L->mb ? L->M - m0 : L->mb;
    int64_t all = c->p->N * L->Pn, q0 = pbi * L->pb, nq = all - q0 < L->pb ? all - q0 : L->pb;
    if (L->bpi) {
        int64_t bp0 = (pbi % L->bpi) * L->pb;
        q0 = (pbi / L->bpi) * L->Pn + bp0;
        nq = L->Pn - bp0 < L->pb ? L->Pn - bp0 : L->pb;
    }
    int64_t n = q0 / L->Pn, p0 = q0 % L->Pn, np = nq;
    float *col = c->slots + (size_t)thread * c->slot_floats, *res = col + L->R * L->pb;
    int pix = c->G.pix;
    const float *A = c->wp + (size_t)(g * L->M + m0) * c->lda;
    if (p0 + nq > L->Pn) {                     /* the block spans images: gather, multiply, store per image */
        int64_t ld = pix ? L->R : nq;
        for (int64_t q = q0; q < q0 + nq;) {
            int64_t qn = q / L->Pn, qp = q % L->Pn, cnt = L->Pn - qp < q0 + nq - q ? L->Pn - qp : q0 + nq - q;
            gather_panel(&c->G, qn, g * c->G.nch, 0, L->R, qp, cnt, col + (pix ? (q - q0) * ld : q - q0), ld);
            q += cnt;
        }
        hd_sgemm(1, 'N', pix ? 'T' : 'N', (size_t)nm, (size_t)nq, (size_t)L->R, 1.0f, A, c->lda, col, (size_t)ld,
                 0.0f, res, (size_t)nq);
        for (int64_t q = q0; q < q0 + nq;) {
            int64_t qn = q / L->Pn, qp = q % L->Pn, cnt = L->Pn - qp < q0 + nq - q ? L->Pn - qp : q0 + nq - q;
            store_block(a, c->os, c->od, qn, g * L->M + m0, nm, qp, cnt, res + (q - q0), nq);
            q += cnt;
        }
        return;
    }
    size_t ldb;
    const float *B = direct_panel(&c->G, n, g * c->G.nch, L->R, p0, np, &ldb);
    if (!B) {
        gather_panel(&c->G, n, g * c->G.nch, 0, L->R, p0, np, col, pix ? L->R : np);
        B = col;
        ldb = (size_t)(pix ? L->R : np);
    }
    size_t R = (size_t)L->R, lda = c->lda;
    const int64_t *os = c->os;
    int64_t ch0 = g * L->M + m0;
    float alpha = (float)a->epi.alpha, beta = (float)a->epi.beta;
    float *out = a->out;
    if (!a->epi.fused && c->lin && os[4] == 1 && os[1] >= np) {
        float *C = out + n * os[0] + ch0 * os[1] + p0;
        hd_sgemm(1, 'N', pix ? 'T' : 'N', (size_t)nm, (size_t)np, R, alpha, A, lda, B, ldb, beta, C, (size_t)os[1]);
    } else if (!a->epi.fused && c->lin && os[1] == 1 && os[4] >= nm) {
        float *C = out + n * os[0] + ch0 + p0 * os[4];
        hd_sgemm(1, pix ? 'N' : 'T', 'T', (size_t)np, (size_t)nm, R, alpha, B, ldb, A, lda, beta, C, (size_t)os[4]);
    } else {
        hd_sgemm(1, 'N', pix ? 'T' : 'N', (size_t)nm, (size_t)np, R, 1.0f, A, lda, B, ldb, 0.0f, res, (size_t)np);
        store_block(a, os, c->od, n, ch0, nm, p0, np, res, np);
    }
}

static void exec_mm(const hd_conv_problem *p, const hd_conv_args *a, int bwd)
{
    hd_conv_layout W = layout_mm(p, bwd);
    mm_ctx c;
    c.p = p;
    c.a = a;
    gather_init(&c.G, p, bwd, bwd ? a->y : a->x);
    c.L = plan_mm(p, bwd);
    c.wpack = (float *)((char *)a->ws + W.off[0]);
    c.slots = (float *)((char *)a->ws + W.off[1]);
    c.slot_floats = (size_t)((c.L.R + c.L.mb) * c.L.pb);
    c.os = bwd ? p->xs : p->ys;
    c.od = c.G.dout;
    c.lin = linear_positions(c.os, c.od);
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    if (filter_is_packed(p, bwd)) {
        c.wp = a->w;
        c.lda = (size_t)p->wst[0];
    } else {
        hd_parallel_for((size_t)(p->G * c.L.M), nt, mm_pack_task, &c);
        c.wp = c.wpack;
        c.lda = (size_t)c.L.R;
    }
    size_t ntasks = (size_t)(p->G * c.L.npb * c.L.nmb);
    hd_parallel_for(ntasks, nt, mm_task, &c);
}

/* ---------------- backward filter ---------------- */

typedef struct {
    int64_t R, pb, npb, mb, nmb, cb, ncb, nr, steps;
} wf_plan;

static wf_plan plan_wf(const hd_conv_problem *p)
{
    wf_plan L;
    L.R = p->CRS;
    L.nmb = cdiv(p->Kg, 256);
    L.mb = cdiv(p->Kg, L.nmb);
    L.ncb = cdiv(L.R, 512);
    L.cb = cdiv(L.R, L.ncb);
    int64_t pb = PANEL_FLOATS / L.cb / 16 * 16;
    pb = pb < 64 ? 64 : pb > 1024 ? 1024 : pb;
    L.pb = pb > p->P ? p->P : pb;
    L.npb = cdiv(p->P, L.pb);
    L.steps = p->N * L.npb;
    size_t part = (size_t)p->K * (size_t)L.R * sizeof(float);
    L.nr = 1;
    while (p->G * L.nmb * L.ncb * L.nr < MIN_TASKS && L.nr * 2 <= L.steps && L.nr < 8 &&
           part * (size_t)L.nr * 2 <= ((size_t)48 << 20))
        L.nr *= 2;
    return L;
}

/* Partial sums (nr x K x CRS), then HD_SCRATCH_SLOTS x (panel cb x pb, dy block mb x pb). */
static hd_conv_layout layout_wf(const hd_conv_problem *p)
{
    wf_plan L = plan_wf(p);
    hd_conv_layout W = {{0}, 0};
    hd_conv_book(&W, 0, L.nr * p->K, L.R, sizeof(float));
    hd_conv_book(&W, 1, HD_SCRATCH_SLOTS, (L.cb + L.mb) * L.pb, sizeof(float));
    return W;
}

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    gather G;
    wf_plan L;
    float *part, *slots;
    size_t slot_floats;
    int lin;
} wf_ctx;

static void wf_task(void *vctx, size_t task, int thread)
{
    wf_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const wf_plan *L = &c->L;
    int64_t t = (int64_t)task;
    int64_t cbi = t % L->ncb, mbi = (t / L->ncb) % L->nmb, g = (t / (L->ncb * L->nmb)) % p->G;
    int64_t rc = t / (L->ncb * L->nmb * p->G);
    int64_t c0 = cbi * L->cb, nc = L->R - c0 < L->cb ? L->R - c0 : L->cb;
    int64_t k0 = mbi * L->mb, nk = p->Kg - k0 < L->mb ? p->Kg - k0 : L->mb;
    float *col = c->slots + (size_t)thread * c->slot_floats, *dyb = col + L->cb * L->pb;
    float *C = c->part + (rc * p->K + g * p->Kg + k0) * L->R + c0;
    const float *y = c->a->y;
    const int64_t *ys = p->ys;
    int pix = c->G.pix;
    int64_t s0 = L->steps * rc / L->nr, s1 = L->steps * (rc + 1) / L->nr;
    for (int64_t st = s0; st < s1; st++) {
        int64_t n = st / L->npb, p0 = (st % L->npb) * L->pb, np = p->P - p0 < L->pb ? p->P - p0 : L->pb;
        size_t ldb;
        const float *B = c->G.TRS == 1 ? direct_panel(&c->G, n, g * p->Cg + c0, nc, p0, np, &ldb) : NULL;
        if (!B) {
            gather_panel(&c->G, n, g * p->Cg, c0, nc, p0, np, col, pix ? nc : np);
            B = col;
            ldb = (size_t)(pix ? nc : np);
        }
        const float *A;
        size_t lda;
        char ta = 'N';
        int64_t kb = g * p->Kg + k0;
        if (c->lin && ys[4] == 1 && ys[1] >= np) {
            A = y + n * ys[0] + kb * ys[1] + p0;
            lda = (size_t)ys[1];
        } else if (c->lin && ys[1] == 1 && ys[4] >= nk) {
            A = y + n * ys[0] + kb + p0 * ys[4];
            lda = (size_t)ys[4];
            ta = 'T';
        } else {
            for (int64_t k = 0; k < nk; k++)
                for (int64_t j = 0; j < np; j++) {
                    int64_t pos = p0 + j, ow = pos % p->out[2], oh = (pos / p->out[2]) % p->out[1];
                    int64_t od = pos / (p->out[2] * p->out[1]);
                    dyb[k * np + j] = y[n * ys[0] + (kb + k) * ys[1] + od * ys[2] + oh * ys[3] + ow * ys[4]];
                }
            A = dyb;
            lda = (size_t)np;
        }
        hd_sgemm(1, ta, pix ? 'N' : 'T', (size_t)nk, (size_t)nc, (size_t)np, 1.0f, A, lda, B, ldb,
                 st == s0 ? 0.0f : 1.0f, C, (size_t)L->R);
    }
}

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    const gather *G;
    const wf_plan *L;
    const float *part;
} wf_store_ctx;

static void wf_store_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    wf_store_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    int64_t k = (int64_t)task, R = c->L->R, plane = p->K * R;
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    float *dw = c->a->out;
    for (int64_t ch = 0; ch < p->Cg; ch++) {
        int64_t tap = 0;
        for (int64_t t = 0; t < p->flt[0]; t++)
            for (int64_t rr = 0; rr < p->flt[1]; rr++)
                for (int64_t s = 0; s < p->flt[2]; s++, tap++) {
                    int64_t r = c->G->pix ? tap * p->Cg + ch : ch * p->TRS + tap;
                    const float *v = c->part + k * R + r;
                    float sum = v[0];
                    for (int64_t i = 1; i < c->L->nr; i++)
                        sum += v[i * plane];
                    int64_t off = hd_conv_w_off(p, k, ch, t, rr, s);
                    dw[off] = beta == 0 ? alpha * sum : alpha * sum + beta * dw[off];
                }
    }
}

static void exec_bwdf_run(const hd_conv_problem *p, const hd_conv_args *a)
{
    hd_conv_layout W = layout_wf(p);
    wf_ctx c;
    c.p = p;
    c.a = a;
    gather_init(&c.G, p, 0, a->x);
    c.L = plan_wf(p);
    c.part = (float *)((char *)a->ws + W.off[0]);
    c.slots = (float *)((char *)a->ws + W.off[1]);
    c.slot_floats = (size_t)((c.L.cb + c.L.mb) * c.L.pb);
    c.lin = linear_positions(p->ys, p->out);
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    hd_parallel_for((size_t)(c.L.nr * p->G * c.L.nmb * c.L.ncb), nt, wf_task, &c);
    wf_store_ctx sc = {p, a, &c.G, &c.L, c.part};
    hd_parallel_for((size_t)p->K, nt, wf_store_task, &sc);
}

/* ---------------- the solvers ---------------- */

size_t hd_conv_fast_ws_bwdd(const hd_conv_problem *p) { return layout_mm(p, 1).total; }
size_t hd_conv_fast_ws_bwdf(const hd_conv_problem *p) { return layout_wf(p).total; }

/* The workspace's fit is checked by the registry when it plans. */
int hd_conv_fast_app_bwdd(const hd_conv_problem *p, const char **r) { return fp32_only(p, r); }
int hd_conv_fast_app_bwdf(const hd_conv_problem *p, const char **r) { return fp32_only(p, r); }

void hd_conv_fast_exec_bwdd(const hd_conv_problem *p, const hd_conv_args *a) { exec_mm(p, a, 1); }
void hd_conv_fast_exec_bwdf(const hd_conv_problem *p, const hd_conv_args *a) { exec_bwdf_run(p, a); }

/* Backward data: the gather over dy, per block of input positions (ALGO_1). */
const hd_conv_solver hd_solver_bwdd_blocked = {
    .id = 250, .name = "bwd_data.blocked_gemm_f32", .dir = HD_CONV_BWD_DATA, .algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, .deterministic = 1,
    .applicable = hd_conv_fast_app_bwdd, .workspace = hd_conv_fast_ws_bwdd, .run = hd_conv_fast_exec_bwdd, .cost_factor = 0.4, .cost = NULL};

/* Backward filter: per (reduction chunk, group, filter-row block, reduction-column block)
 * partial products, chunks summed in a fixed order (ALGO_1). */
const hd_conv_solver hd_solver_bwdf_blocked = {
    .id = 350, .name = "bwd_filter.blocked_gemm_f32", .dir = HD_CONV_BWD_FILTER, .algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, .deterministic = 1,
    .applicable = hd_conv_fast_app_bwdf, .workspace = hd_conv_fast_ws_bwdf, .run = hd_conv_fast_exec_bwdf, .cost_factor = 0.4, .cost = NULL};
