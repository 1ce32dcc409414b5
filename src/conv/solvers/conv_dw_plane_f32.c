/*
 * Depthwise fp32, plane work (conv_dw_f32.h; the method: conv_dw_plan_f32.c): one channel
 * plane per task through zero-bordered buffer rows; the forward and backward-data entry
 * points, and backward filter (partial sums per chunk, added in chunk order).
 */
#include "conv/solvers/conv_dw_f32.h"

/* ---------------- plane work ---------------- */

static dw_slot slot_of(dw_ctx *c, int thread)
{
    char *b = c->slots + (size_t)thread * c->P.slot_bytes;
    if (!c->slot_ready[thread]) {
        memset(b + c->P.ptr_bytes, 0, (size_t)(c->P.rows_cap * c->P.BW) * sizeof(float));
        c->slot_ready[thread] = 1;
    }
    dw_slot s;
    s.rows = (const float **)(void *)b;
    s.w = (const float **)(void *)(b + (size_t)(c->P.R + 1) * sizeof(void *));
    s.buf = (float *)(void *)(b + c->P.ptr_bytes);
    return s;
}

/* Copy source row SRC (element q at src[q*st]) into a buffer row: element q goes to
 * j = q*up + pad, the index the kernels read for b = q*up.  The other elements of the row
 * are zero: the same j are written for every row, so each slot is zeroed once per call
 * (slot_ready) and only these are rewritten. */
static void fill_row(float *buf, int64_t BW, const float *src, int64_t st, const dw_axis *A)
{
    int64_t q0 = 0, q1 = A->src;
    if (A->pad < 0)
        q0 = cdiv(-A->pad, A->up);
    if (q1 > cdiv(BW - A->pad, A->up))
        q1 = cdiv(BW - A->pad, A->up);
    if (A->up == 1 && st == 1) {
        if (q0 < q1)
            memcpy(buf + q0 + A->pad, src + q0, (size_t)(q1 - q0) * sizeof *buf);
        return;
    }
    for (int64_t q = q0; q < q1; q++)
        buf[q * A->up + A->pad] = src[q * st];
}

/* Source rows [*lo, *hi] that result rows [o0, o1) read; *lo > *hi when none. */
static void row_span(const dw_plan *P, int64_t o0, int64_t o1, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX, *hi = -1;
    for (int64_t o = o0; o < o1; o++)
        for (int64_t r = 0; r < P->R; r++) {
            int64_t q = axis_src(&P->V, o, r);
            if (q >= 0) {
                *lo = q < *lo ? q : *lo;
                *hi = q > *hi ? q : *hi;
            }
        }
}

/* Buffer the source rows of result rows [o0, o1) of the plane at PLANE; returns the first. */
static int64_t buffer_rows(dw_ctx *c, const dw_slot *sl, const float *plane, int64_t o0, int64_t o1)
{
    int64_t lo, hi;
    row_span(&c->P, o0, o1, &lo, &hi);
    for (int64_t q = lo; q <= hi; q++)
        fill_row(sl->buf + (q - lo) * c->P.BW, c->P.BW, plane + q * c->ss[3], c->ss[4], &c->P.Hz);
    return lo;
}

static void pack_filter(const dw_ctx *c, float *wpk)
{
    const hd_conv_problem *p = c->p;
    const dw_plan *P = &c->P;
    int bwd = P->dir == DIR_BWDD;
    for (int64_t ch = 0; ch < P->C; ch++)
        for (int64_t r = 0; r < P->R; r++)
            for (int64_t s = 0; s < P->S; s++)
                wpk[(ch * P->R + r) * P->S + s] = ((const float *)c->a->w)[hd_conv_w_off(
                    p, ch, 0, 0, bwd ? P->R - 1 - r : r, bwd ? P->S - 1 - s : s)];
}

static void plane_task(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    dw_slot sl = slot_of(c, thread);
    int64_t t = (int64_t)task, rbi = t % P->nrb, ch = (t / P->nrb) % P->C, n = t / (P->nrb * P->C);
    int64_t o0 = rbi * P->rb, o1 = o0 + P->rb < P->OH ? o0 + P->rb : P->OH;
    int64_t lo = buffer_rows(c, &sl, c->src + n * c->ss[0] + ch * c->ss[1], o0, o1);
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    const float *wc = c->wpk + ch * P->R * P->S;
    float *spare = sl.buf + P->rows_cap * P->BW;
    const hd_conv_epilogue *e = &c->a->epi;
    int direct = c->ds[4] == 1 && !e->fused;
    for (int64_t o = o0; o < o1; o++) {
        size_t nr = 0;
        for (int64_t r = 0; r < P->R; r++) {
            int64_t q = axis_src(&P->V, o, r);
            if (q >= 0) {
                sl.rows[nr] = sl.buf + (q - lo) * P->BW;
                sl.w[nr++] = wc + r * P->S;
            }
        }
        float *orow = c->dst + n * c->ds[0] + ch * c->ds[1] + o * c->ds[3];
        hd_dw_row_args ra = {direct ? orow : spare, (size_t)P->OW, sl.rows, sl.w, nr, (size_t)P->S,
                             (size_t)P->Hz.s, (size_t)P->Hz.d, direct || e->fused ? alpha : 1.0f,
                             direct ? beta : 0.0f};
        c->k.row(&ra);
        if (e->fused) {
            int64_t off = n * c->ds[0] + ch * c->ds[1] + o * c->ds[3];
            for (int64_t j = 0; j < P->OW; j++)
                orow[j * c->ds[4]] = fuse(e, spare[j], off + j * c->ds[4], ch);
        } else if (!direct) {
            for (int64_t j = 0; j < P->OW; j++) {
                float *d = orow + j * c->ds[4];
                *d = beta == 0 ? alpha * spare[j] : alpha * spare[j] + beta * *d;
            }
        }
    }
}

/* ---------------- small planes ---------------- */

#define SMALL_PLANES 16           /* channel planes of one image per small-plane task */

/* Small planes, forward and backward data: task (image, 16 channels), one kernel call per
 * plane; the fused epilogue goes through the slot's plane of results. */
static void small_task(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    const hd_conv_epilogue *e = &c->a->epi;
    int64_t ng = cdiv(P->C, SMALL_PLANES), n = (int64_t)task / ng, c0 = (int64_t)task % ng * SMALL_PLANES;
    int64_t c1 = min64(P->C, c0 + SMALL_PLANES);
    float *scr = (float *)(void *)(c->slots + (size_t)thread * P->slot_bytes);
    hd_dw_splane_geom g = c->sg;
    int64_t tail = P->OW - 16 * (int64_t)(g.nck - 1), sw = 16 * (int64_t)g.nck;   /* last chunk's columns; scratch row */
    uint16_t lm = (uint16_t)(tail >= 16 ? 0xffffu : (1u << tail) - 1u);
    for (int64_t ch = c0; ch < c1; ch++) {
        g.src = c->src + n * c->ss[0] + ch * c->ss[1];
        int64_t off = n * c->ds[0] + ch * c->ds[1];
        hd_dw_splane_args ka = {&g, c->dst + off, c->ds[3], (size_t)P->OH, lm, c->wpk + ch * P->R * P->S,
                                (float)e->alpha, (float)e->beta};
        hd_dw_fplane_args fa = {g.src, c->dst + off, (size_t)(P->OH * P->OW), (size_t)(P->R * P->S), c->fd, c->fm,
                                c->wpk + ch * P->R * P->S, (float)e->alpha, (float)e->beta};
        if (!e->fused) {
            if (P->flat)
                c->k.fplane(&fa);
            else
                c->k.splane(&ka);
            continue;
        }
        ka.out = fa.out = scr, ka.ors = sw, ka.beta = fa.beta = 0.0f;
        if (P->flat)
            c->k.fplane(&fa);
        else
            c->k.splane(&ka);
        int64_t srow = P->flat ? P->OW : sw;
        for (int64_t o = 0; o < P->OH; o++)
            for (int64_t j = 0; j < P->OW; j++) {
                int64_t at = off + o * c->ds[3] + j;
                c->dst[at] = fuse(e, scr[o * srow + j], at, ch);
            }
    }
}

/* Small planes, backward filter: channels of one task (enough consecutive planes of an image
 * to read about 4096 values in memory order, as a block instead of one plane per image). */
static int64_t small_wblock(const dw_plan *P)
{
    return min64(P->C, max64(1, 4096 / (P->OH * P->OW)));
}

/* Small planes, backward filter: task (block of channels, chunk of images), one kernel call
 * per plane adding into its channel's partial sums for the chunk; per channel the images in
 * order, as one channel per task would. */
static void small_wtask(void *vctx, size_t task, int thread)
{
    (void)thread;
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    const hd_conv_problem *p = c->p;
    int64_t t = (int64_t)task, chunk = t % P->nch, B = small_wblock(P), c0 = t / P->nch * B;
    int64_t c1 = min64(P->C, c0 + B);
    int64_t RS16 = P->R * P->S * 16;
    memset(c->wpk + (chunk * P->C + c0) * RS16, 0, (size_t)((c1 - c0) * RS16) * sizeof(float));
    hd_dw_splane_geom g = c->sg;
    int64_t tail = P->OW - 16 * (int64_t)(g.nck - 1);
    uint16_t lm = (uint16_t)(tail >= 16 ? 0xffffu : (1u << tail) - 1u);
    for (int64_t n = P->N * chunk / P->nch; n < P->N * (chunk + 1) / P->nch; n++)
        for (int64_t ch = c0; ch < c1; ch++) {
            float *acc = c->wpk + (chunk * P->C + ch) * RS16;
            g.src = c->src + n * c->ss[0] + ch * c->ss[1];
            const float *dy = (const float *)c->a->y + n * p->ys[0] + ch * p->ys[1];
            if (P->flat) {
                hd_dw_fwplane_args fa = {g.src, dy, acc, (size_t)(P->OH * P->OW), (size_t)(P->R * P->S), c->fd,
                                         c->fm};
                c->k.fwplane(&fa);
                continue;
            }
            hd_dw_swplane_args ka = {&g, acc, dy, p->ys[3], (size_t)P->OH, lm};
            c->k.swplane(&ka);
        }
}

static void exec_data(const hd_conv_problem *p, const hd_conv_args *a, int dir)
{
    dw_ctx c;
    hd_dw_ctx_init(&c, p, a, dir);
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    if (c.P.blk) {
        hd_parallel_for((size_t)(c.P.N * c.P.nrb * c.P.G), nt, hd_dw_blk_task, &c);
        return;
    }
    pack_filter(&c, c.wpk);
    if (c.P.small) {
        hd_parallel_for((size_t)(c.P.N * cdiv(c.P.C, SMALL_PLANES)), nt, small_task, &c);
        return;
    }
    hd_parallel_for((size_t)(c.P.N * c.P.C * c.P.nrb), nt, plane_task, &c);
}

void hd_conv_dw_exec_fwd(const hd_conv_problem *p, const hd_conv_args *a) { exec_data(p, a, DIR_FWD); }
void hd_conv_dw_exec_bwdd(const hd_conv_problem *p, const hd_conv_args *a) { exec_data(p, a, DIR_BWDD); }

/* ---------------- backward filter ---------------- */

/* Plane: task (channel, chunk of images); lanes of 16 partial sums per tap. */
static void wplane_task(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    const hd_conv_problem *p = c->p;
    dw_slot sl = slot_of(c, thread);
    int64_t t = (int64_t)task, chunk = t % P->nch, ch = t / P->nch;
    int64_t RS16 = P->R * P->S * 16;
    float *acc = c->wpk + (chunk * P->C + ch) * RS16;
    memset(acc, 0, (size_t)RS16 * sizeof *acc);
    float *spare = sl.buf + P->rows_cap * P->BW;
    const float *dy = c->a->y;
    float **accr = (float **)(void *)sl.w;    /* the weight-pointer array holds accumulator rows here */
    for (int64_t n = P->N * chunk / P->nch; n < P->N * (chunk + 1) / P->nch; n++)
        for (int64_t o0 = 0; o0 < P->OH; o0 += P->rb) {
            int64_t o1 = o0 + P->rb < P->OH ? o0 + P->rb : P->OH;
            int64_t lo = buffer_rows(c, &sl, c->src + n * c->ss[0] + ch * c->ss[1], o0, o1);
            for (int64_t o = o0; o < o1; o++) {
                size_t nr = 0;
                for (int64_t r = 0; r < P->R; r++) {
                    int64_t q = axis_src(&P->V, o, r);
                    if (q >= 0) {
                        sl.rows[nr] = sl.buf + (q - lo) * P->BW;
                        accr[nr++] = acc + r * P->S * 16;
                    }
                }
                const float *drow = dy + n * p->ys[0] + ch * p->ys[1] + o * p->ys[3];
                if (p->ys[4] != 1) {
                    for (int64_t j = 0; j < P->OW; j++)
                        spare[j] = drow[j * p->ys[4]];
                    drow = spare;
                }
                hd_dw_wrow_args wa = {accr, drow, (size_t)P->OW, sl.rows, nr, (size_t)P->S, (size_t)P->Hz.s,
                                      (size_t)P->Hz.d};
                c->k.wrow(&wa);
            }
        }
}

/* Plane: dw of channel `task`, its chunks in chunk order and each chunk's 16 lanes in lane
 * order. */
static void wstore_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    int64_t RS = P->R * P->S, b = (int64_t)task;
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    float *dw = c->a->out;
    for (int64_t r = 0; r < P->R; r++)
        for (int64_t s = 0; s < P->S; s++) {
            float sum = 0.0f;
            for (int64_t k = 0; k < P->nch; k++) {
                const float *l = c->wpk + ((k * P->C + b) * RS + r * P->S + s) * 16;
                for (int i = 0; i < 16; i++)
                    sum += l[i];
            }
            float *d = dw + hd_conv_w_off(c->p, b, 0, 0, r, s);
            *d = beta == 0 ? alpha * sum : alpha * sum + beta * *d;
        }
}

/* Two parallel calls: the partial sums, then dw (a busy machine costs one more barrier only). */
void hd_conv_dw_exec_bwdf(const hd_conv_problem *p, const hd_conv_args *a)
{
    dw_ctx c;
    hd_dw_ctx_init(&c, p, a, DIR_BWDF);
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    if (c.P.blk) {
        hd_parallel_for((size_t)(c.P.N * c.P.nrb * c.P.G), nt, hd_dw_blk_wtask, &c);
        hd_parallel_for((size_t)c.P.CB, nt, hd_dw_blk_wstore, &c);
        return;
    }
    if (c.P.small)
        hd_parallel_for((size_t)(cdiv(c.P.C, small_wblock(&c.P)) * c.P.nch), nt, small_wtask, &c);
    else
        hd_parallel_for((size_t)(c.P.C * c.P.nch), nt, wplane_task, &c);
    hd_parallel_for((size_t)c.P.C, nt, wstore_task, &c);
}
