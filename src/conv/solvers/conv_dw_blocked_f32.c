/*
 * Depthwise fp32, blocked work (conv_dw_f32.h; the method: conv_dw_plan_f32.c): bands of
 * 16-channel blocked source rows, or the tensor's rows in place, through the blocked row
 * kernels; forward, backward data and the blocked backward-filter tasks.
 */
#include "conv/solvers/conv_dw_f32.h"

/* ---------------- blocked work ---------------- */

static blk_slot blk_slot_of(dw_ctx *c, int thread)
{
    const dw_plan *P = &c->P;
    char *b = c->slots + (size_t)thread * P->slot_bytes;
    blk_slot s;
    s.band = (float *)(void *)b;
    s.dyb = (float *)(void *)(b + P->off_dyb);
    s.scr = (float *)(void *)(b + P->off_scr);
    s.w = (float *)(void *)(b + P->off_w);
    s.rows = (const float **)(void *)(b + P->off_ptr);
    s.rowsf = s.rows + P->R;
    s.wf = s.rowsf + P->R;
    s.acc = (float **)(void *)(s.wf + P->R);
    if (!c->slot_ready[thread]) {          /* band row borders: zero, never written */
        int64_t l = 16 * (P->qf0 - P->qlo), h = 16 * (P->qf1 - P->qlo), W16 = 16 * P->Wa;
        for (int64_t r = 0; r < P->band_rows; r++) {
            memset(s.band + r * W16, 0, (size_t)l * sizeof(float));
            memset(s.band + r * W16 + h, 0, (size_t)(W16 - h) * sizeof(float));
        }
        c->slot_ready[thread] = 1;
    }
    return s;
}

/* Source rows [*qa, *qb] that result rows [o0, o1) read (*qa > *qb: none). */
static void band_span(const dw_plan *P, int64_t o0, int64_t o1, int64_t *qa, int64_t *qb)
{
    *qa = INT64_MAX, *qb = -1;
    for (int64_t o = o0; o < o1; o++)
        for (int64_t r = 0; r < P->R; r++) {
            int64_t q = axis_src(&P->V, o, r);
            if (q >= 0)
                *qa = min64(*qa, q), *qb = max64(*qb, q);
        }
}

/* Copy source rows [qa, qb] (all nc channels at src) into the band, the source read in order. */
static void fill_band(const dw_ctx *c, const blk_slot *s, const float *src, int64_t qa, int64_t qb, size_t nc)
{
    const dw_plan *P = &c->P;
    if (P->qf1 <= P->qf0)
        return;
    for (int64_t q = qa; q <= qb; q++)
        c->k.gather(s->band + ((q - qa) * P->Wa + P->qf0 - P->qlo) * 16, P->BR * P->Wa * 16,
                    src + q * c->ss[3] + P->qf0 * c->ss[4], (size_t)(P->qf1 - P->qf0), c->ss[1], c->ss[4], nc,
                    c->src_end);
}

/* The weights of channel block cb, [filter row][packed tap][16] (zero past C). */
static void pack_blk(const dw_ctx *c, int64_t cb, float *w)
{
    const hd_conv_problem *p = c->p;
    const dw_plan *P = &c->P;
    const float *wt = c->a->w;
    int bwd = P->dir == DIR_BWDD;
    int64_t c0 = cb * 16, nl = min64(16, P->C - c0);
    for (int64_t r = 0; r < P->R; r++)
        for (int64_t k = 0; k < P->nph; k++) {
            const blk_phase *f = &P->ph[k];
            for (int64_t t = 0; t < f->S; t++) {
                int64_t s = f->s0 + t * f->step;
                int64_t off = hd_conv_w_off(p, c0, 0, 0, bwd ? P->R - 1 - r : r, bwd ? P->S - 1 - s : s);
                float *d = w + (r * P->taps + f->tap0 + t) * 16;
                int64_t l = 0;
                for (; l < nl; l++)
                    d[l] = wt[off + l * p->wst[0]];
                for (; l < 16; l++)
                    d[l] = 0.0f;
            }
        }
}

/* In place: result j of a row reads source columns col + t*cd, t < S; [*t0, *t1) are the taps
 * inside the row (a contiguous range: the columns grow with the tap).  Returns col. */
static int64_t edge_taps(const dw_plan *P, int64_t j, int64_t *t0, int64_t *t1)
{
    const blk_phase *f = &P->ph[0];
    int64_t col = P->qlo + f->b0 + j * f->cs;
    *t0 = 0, *t1 = f->S;
    while (*t0 < *t1 && col + *t0 * f->cd < 0)
        ++*t0;
    while (*t1 > *t0 && col + (*t1 - 1) * f->cd >= P->Hz.src)
        --*t1;
    return col;
}

/* In place: the source rows result row o reads (filter row r of each in wr), column 0 of
 * row i at srow[i]; returns how many. */
static size_t inplace_src_rows(const dw_ctx *c, const float *src, int64_t o, const float **srow, int64_t *wr)
{
    size_t nr = 0;
    for (int64_t r = 0; r < c->P.R; r++) {
        int64_t q = axis_src(&c->P.V, o, r);
        if (q >= 0 && nr < 64) {
            srow[nr] = src + q * c->ss[3];
            wr[nr++] = r;
        }
    }
    return nr;
}

/* In place: results [e0, e1) of one row and channel block, whose first or last taps fall
 * outside the source row: each result alone, over its taps inside the row, which adds the
 * same nonzero terms in the same order as the zero-bordered rows of the band would.  nr
 * rows, column 0 of row i at srow[i]; wf[i] the packed weights of row i from tap 0; ba has
 * the rest (its source pixel stride the tensor's). */
static void edge_results(const dw_ctx *c, const blk_slot *sl, const float *const *srow, const float *const *wf,
                         size_t nr, int64_t e0, int64_t e1, hd_dw_brow_args *ba)
{
    const dw_plan *P = &c->P;
    const blk_phase *f = &P->ph[0];
    float *out = ba->out;
    for (int64_t j = e0; j < e1; j++) {
        int64_t t0, t1, col = edge_taps(P, j, &t0, &t1);
        for (size_t i = 0; i < nr; i++) {
            sl->rowsf[i] = srow[i] + (col + t0 * f->cd) * c->ss[4];
            sl->wf[i] = wf[i] + t0 * 16;
        }
        ba->out = out + j * ba->ops;
        ba->n = 1;
        ba->S = (size_t)(t1 - t0);
        ba->nr = t1 > t0 ? nr : 0;
        c->k.brow(ba);
    }
    ba->out = out;
}

/* In place: result rows [o0, o1) of image n, channel blocks [0, nb) from channel c0 (src is
 * the image's source at channel c0).  Row by row, and within a row DW_CHUNK results at a time
 * over all channel blocks, so the stores and the source reads advance through memory
 * together (channel block by channel block over whole rows is slower); the edge results
 * last, when the interior has brought their pixels into L1.  No software prefetch of the next
 * row: the hardware prefetcher follows these streams. */
static void inplace_rows(dw_ctx *c, blk_slot *sl, const float *src, int64_t n, int64_t c0, int64_t nb, int64_t o0,
                         int64_t o1)
{
    const dw_plan *P = &c->P;
    const blk_phase *f = &P->ph[0];
    const hd_conv_epilogue *e = &c->a->epi;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    int64_t RT16 = P->R * P->taps * 16, xps = c->ss[4], yps = c->ds[4];
    for (int64_t o = o0; o < o1; o++) {
        int64_t wr[64];
        const float *rows[64], *srow[64], *wrow[64];
        size_t nr = inplace_src_rows(c, src, o, rows, wr);
        float *orow = c->dst + n * c->ds[0] + c0 + o * c->ds[3];
        for (int64_t j0 = P->ol; j0 < P->oh; j0 += DW_CHUNK) {
            int64_t j1 = min64(j0 + DW_CHUNK, P->oh), first = (P->qlo + f->b0 + j0 * f->cs) * xps;
            for (int64_t b = 0; b < nb; b++) {
                for (size_t i = 0; i < nr; i++) {
                    sl->rowsf[i] = rows[i] + 16 * b + first;
                    sl->wf[i] = sl->w + b * RT16 + wr[i] * P->taps * 16;
                }
                hd_dw_brow_args ba = {orow + 16 * b + j0 * yps, yps, (size_t)(j1 - j0), sl->rowsf, sl->wf, nr,
                                      (size_t)f->S, (size_t)f->cs, (size_t)f->cd, alpha, beta, 0xffffu, xps, 1,
                                      c->stream};
                c->k.brow(&ba);
            }
        }
        for (int64_t b = 0; b < nb; b++) {
            for (size_t i = 0; i < nr; i++) {
                srow[i] = rows[i] + 16 * b;
                wrow[i] = sl->w + b * RT16 + wr[i] * P->taps * 16;
            }
            hd_dw_brow_args ba = {orow + 16 * b, yps, 0, sl->rowsf, sl->wf, nr, 0, (size_t)f->cs, (size_t)f->cd,
                                  alpha, beta, 0xffffu, xps, 1, c->stream};
            edge_results(c, sl, srow, wrow, nr, 0, P->ol, &ba);
            edge_results(c, sl, srow, wrow, nr, P->oh, f->n, &ba);
        }
    }
}

/* In place with the edge-row kernel (plan_erow): result rows [o0, o1) of image n, channel
 * blocks [0, nb) from channel c0, row by row, chunk by chunk, and per chunk phase by phase
 * over all channel blocks (one kernel call each), so the stores of the two phases of a
 * strided backward data fill one stretch of dx. */
static void erow_rows(dw_ctx *c, blk_slot *sl, const float *src, int64_t n, int64_t c0, int64_t nb, int64_t o0,
                      int64_t o1)
{
    const dw_plan *P = &c->P;
    const hd_conv_epilogue *e = &c->a->epi;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    int64_t RT16 = P->R * P->taps * 16, xps = c->ss[4], yps = c->ds[4];
    for (int64_t o = o0; o < o1; o++) {
        int64_t wr[64];
        const float *rows[64];
        size_t nr = inplace_src_rows(c, src, o, rows, wr);
        float *orow = c->dst + n * c->ds[0] + c0 + o * c->ds[3];
        int64_t nk = max64(P->nek[0], P->nph > 1 ? P->nek[1] : 0);
        for (int64_t k = 0; k < nk; k++) {
            for (int64_t ph = 0; ph < P->nph; ph++) {
                const blk_phase *f = &P->ph[ph];
                if (k >= P->nek[ph])
                    continue;
                int skl = k == 0 ? P->ek_sl[ph] : 0, skr = k == P->nek[ph] - 1 ? P->ek_sr[ph] : 0;
                int64_t j0 = k * P->ekw[ph], col = P->qlo + f->b0 + j0 * f->cs + skl;   /* first column read */
                for (size_t i = 0; i < nr; i++) {
                    sl->rowsf[i] = rows[i] + col * xps;
                    sl->wf[i] = sl->w + (wr[i] * P->taps + f->tap0) * 16;
                }
                hd_dw_erow_args ea = {orow + (f->ooff + j0 * f->ostep) * yps, yps * f->ostep, (size_t)P->ekw[ph],
                                      sl->rowsf, sl->wf, nr, (size_t)f->S, (size_t)f->cs, skl, skr, alpha, beta,
                                      xps, c->stream, (size_t)nb, RT16};
                c->k.erow(&ea);
            }
        }
    }
}

/* Task (image, result row block, channel group) of forward or backward data: copy the band,
 * then channel block by channel block, result row by row (consecutive rows share band rows,
 * in L1). */
static void blk_rows(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    blk_slot sl = blk_slot_of(c, thread);
    int64_t t = (int64_t)task, g = t % P->G, rbi = t / P->G % P->nrb, n = t / (P->G * P->nrb);
    int64_t cb0 = g * P->cbg, nb = min64(P->cbg, P->CB - cb0), c0 = cb0 * 16;
    int64_t o0 = rbi * P->rb, o1 = min64(o0 + P->rb, P->OH), RT16 = P->R * P->taps * 16, qa, qb;
    size_t nc = (size_t)min64(16 * nb, P->C - c0);
    /* The weights depend on the channel group only: a slot keeps the group it packed last,
     * so a thread packs each group once per call, not once per (image, row block) task.  (With
     * one group of 36 blocks, MobileNet-v2's 14x14 and 7x7 layers at batch 16, packing them
     * per task, a strided gather of R*S*C floats, took as long as the convolution.) */
    if (c->slot_wg[thread] != g) {
        for (int64_t b = 0; b < nb; b++)
            pack_blk(c, cb0 + b, sl.w + b * RT16);
        c->slot_wg[thread] = g;
    }
    const float *src = c->src + n * c->ss[0] + c0 * c->ss[1];
    const hd_conv_epilogue *e = &c->a->epi;
    int direct = c->ds[1] == 1 && !e->fused, inpl = P->inpl && direct;
    if (inpl) {
        if (P->erow)
            erow_rows(c, &sl, src, n, c0, nb, o0, o1);
        else
            inplace_rows(c, &sl, src, n, c0, nb, o0, o1);
        return;
    }
    band_span(P, o0, o1, &qa, &qb);
    fill_band(c, &sl, src, qa, qb, nc);
    float alpha = (float)e->alpha, beta = (float)e->beta;
    for (int64_t b = 0; b < nb; b++) {
        size_t nl = (size_t)min64(16, P->C - c0 - 16 * b);
        const float *bb = sl.band + b * P->BR * P->Wa * 16;
        for (int64_t o = o0; o < o1; o++) {
            size_t nr = 0;
            int64_t wr[64];
            for (int64_t r = 0; r < P->R; r++) {
                int64_t q = axis_src(&P->V, o, r);
                if (q >= 0 && nr < 64) {
                    sl.rows[nr] = bb + (q - qa) * P->Wa * 16;
                    wr[nr++] = r;
                }
            }
            int64_t doff = n * c->ds[0] + (c0 + 16 * b) * c->ds[1] + o * c->ds[3];
            float *out = direct ? c->dst + doff : sl.scr;
            int64_t ops = direct ? c->ds[4] : 16;
            for (int64_t ph = 0; ph < P->nph; ph++) {
                const blk_phase *f = &P->ph[ph];
                for (size_t i = 0; i < nr; i++) {
                    sl.rowsf[i] = sl.rows[i] + 16 * f->b0;
                    sl.wf[i] = sl.w + b * RT16 + (wr[i] * P->taps + f->tap0) * 16;
                }
                hd_dw_brow_args ba = {out + f->ooff * ops, ops * f->ostep, (size_t)f->n, sl.rowsf, sl.wf,
                                      f->S ? nr : 0, (size_t)f->S, (size_t)f->cs, (size_t)f->cd,
                                      direct || e->fused ? alpha : 1.0f, direct ? beta : 0.0f,
                                      direct ? (1u << nl) - 1u : 0xffffu, 16, 0, direct && c->stream};
                c->k.brow(&ba);
            }
            if (e->fused) {
                for (int64_t j = 0; j < P->OW; j++)
                    for (size_t l = 0; l < nl; l++) {
                        int64_t off = doff + j * c->ds[4] + (int64_t)l * c->ds[1];
                        c->dst[off] = fuse(e, sl.scr[16 * j + (int64_t)l], off, c0 + 16 * b + (int64_t)l);
                    }
            } else if (!direct) {
                c->k.scatter(c->dst + doff, c->ds[1], c->ds[4], sl.scr, (size_t)P->OW, nl, alpha, beta);
            }
        }
    }
}

/* blk_rows, then a store fence when the task streamed its results (weakly ordered stores
 * must be visible before the pool reports the task done). */
void hd_dw_blk_task(void *vctx, size_t task, int thread)
{
    blk_rows(vctx, task, thread);
    if (((const dw_ctx *)vctx)->stream)
        _mm_sfence();
}

/* In place, backward filter: the partial sums acc ([channel block][R][S][16]) of dy rows
 * [o0, o1) of one image over channel blocks [0, nb) (src and dy at the image and the first
 * channel).  Per sum the pixels still come row by row in increasing order -- the left edge
 * results, the interior, the right edge -- and an edge result adds only its taps inside the
 * row (the band's zero border adds zeros there), so the sums are the band path's bits.
 * Row by row over all channel blocks, as the forward in place. */
static void inplace_wrows(dw_ctx *c, blk_slot *sl, const float *src, const float *dy, float *acc, int64_t nb,
                          int64_t o0, int64_t o1)
{
    const dw_plan *P = &c->P;
    const blk_phase *f = &P->ph[0];
    int64_t RS16 = P->R * P->S * 16, xps = c->ss[4], dps = c->ds[4], base = P->qlo + f->b0;
    for (int64_t o = o0; o < o1; o++) {
        int64_t wr[64];
        const float *srow[64];
        size_t nr = inplace_src_rows(c, src, o, srow, wr);
        if (!nr)
            continue;
        const float *drow = dy + o * c->ds[3];
        if (P->erow) {             /* whole chunks, their border pixels included */
            for (int64_t k = 0; k < P->nek[0]; k++) {
                int skl = k == 0 ? P->ek_sl[0] : 0, skr = k == P->nek[0] - 1 ? P->ek_sr[0] : 0;
                int64_t j0 = k * P->ekw[0], col = base + j0 * f->cs + skl;
                for (size_t i = 0; i < nr; i++) {
                    sl->rows[i] = srow[i] + col * xps;
                    sl->acc[i] = acc + wr[i] * P->S * 16;
                }
                hd_dw_ewrow_args ea = {sl->acc, drow + j0 * dps, (size_t)P->ekw[0], sl->rows, nr, (size_t)f->cs, skl,
                                       skr, xps, dps, (size_t)nb, RS16};
                c->k.ewrow(&ea);
            }
            continue;
        }
        for (int64_t b = 0; b < nb; b++) {
            float *accb = acc + b * RS16;
            for (int64_t j = 0; j < f->n; j++) {
                int64_t t0 = 0, t1 = f->S, n = 1;
                if (j == P->ol)                   /* the interior in one call */
                    n = P->oh - P->ol;
                else
                    edge_taps(P, j, &t0, &t1);
                if (t1 > t0) {
                    for (size_t i = 0; i < nr; i++) {
                        sl->rows[i] = srow[i] + 16 * b + (base + j * f->cs + t0 * f->cd) * xps;
                        sl->acc[i] = accb + wr[i] * P->S * 16 + t0 * 16;
                    }
                    hd_dw_bwrow_args wa = {sl->acc, drow + 16 * b + j * dps, (size_t)n, sl->rows, nr,
                                           (size_t)(t1 - t0), (size_t)f->cs, (size_t)f->cd, xps, dps};
                    c->k.bwrow(&wa);
                }
                j += n - 1;
            }
        }
    }
}

/* Backward filter, task (image, dy row block, channel group): partial sums of its own, per
 * channel block at part[(chunk*CB + cb)*RS*16] with chunk = image*nrb + row block; each sum
 * runs over the dy rows of the task in order, each row's pixels in order. */
void hd_dw_blk_wtask(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    const hd_conv_problem *p = c->p;
    blk_slot sl = blk_slot_of(c, thread);
    int64_t t = (int64_t)task, g = t % P->G, chunk = t / P->G, rbi = chunk % P->nrb, n = chunk / P->nrb;
    int64_t cb0 = g * P->cbg, nb = min64(P->cbg, P->CB - cb0), c0 = cb0 * 16;
    int64_t o0 = rbi * P->rb, o1 = min64(o0 + P->rb, P->OH), RS16 = P->R * P->S * 16, qa, qb;
    size_t nc = (size_t)min64(16 * nb, P->C - c0);
    float *acc = c->wpk + (chunk * P->CB + cb0) * RS16;
    memset(acc, 0, (size_t)(nb * RS16) * sizeof *acc);
    const float *src = c->src + n * c->ss[0] + c0 * c->ss[1];
    const float *dy = (const float *)c->a->y + n * p->ys[0] + c0 * p->ys[1];
    if (P->inpl) {
        inplace_wrows(c, &sl, src, dy, acc, nb, o0, o1);
        return;
    }
    band_span(P, o0, o1, &qa, &qb);
    fill_band(c, &sl, src, qa, qb, nc);
    for (int64_t o = o0; o < o1; o++)
        c->k.gather(sl.dyb + (o - o0) * P->OW * 16, P->rb * P->OW * 16, dy + o * p->ys[3], (size_t)P->OW, p->ys[1],
                    p->ys[4], nc, c->dy_end);
    for (int64_t b = 0; b < nb; b++) {
        const float *bb = sl.band + b * P->BR * P->Wa * 16;
        for (int64_t o = o0; o < o1; o++) {
            size_t nr = 0;
            for (int64_t r = 0; r < P->R; r++) {
                int64_t q = axis_src(&P->V, o, r);
                if (q >= 0) {
                    sl.rows[nr] = bb + (q - qa) * P->Wa * 16;
                    sl.acc[nr++] = acc + b * RS16 + r * P->S * 16;
                }
            }
            if (!nr)
                continue;
            hd_dw_bwrow_args wa = {sl.acc, sl.dyb + (b * P->rb + o - o0) * P->OW * 16, (size_t)P->OW, sl.rows, nr,
                                   (size_t)P->S, (size_t)P->Hz.s, (size_t)P->Hz.d, 16, 16};
            c->k.bwrow(&wa);
        }
    }
}

/* dw of channel block `task`: the partial sums of its chunks added in chunk order. */
void hd_dw_blk_wstore(void *vctx, size_t task, int thread)
{
    (void)thread;
    const dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    int64_t cb = (int64_t)task, RS = P->R * P->S, c0 = cb * 16, nl = min64(16, P->C - c0);
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    float *dw = c->a->out;
    for (int64_t tap = 0; tap < RS; tap++) {
        float sums[16];
        const float *q = c->wpk + cb * RS * 16 + tap * 16;
        for (int l = 0; l < 16; l++)
            sums[l] = q[l];
        for (int64_t k = 1; k < P->nch; k++)
            for (int l = 0; l < 16; l++)
                sums[l] += q[k * P->CB * RS * 16 + l];
        for (int64_t l = 0; l < nl; l++) {
            float *d = dw + hd_conv_w_off(c->p, c0 + l, 0, 0, tap / P->S, tap % P->S);
            *d = beta == 0 ? alpha * sums[l] : alpha * sums[l] + beta * *d;
        }
    }
}
