/*
 * norm/bn_backward.c -- the batch-normalization engine's backward half: the per-feature sums
 * of the gradient (alone, or in one pass with the statistics) and the apply pass
 * dx = alpha * (p * g + q * (x - m) + r) + beta * dx.
 */
#include "norm/bn_internal.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "core/parallel.h"

#include <math.h>
#include <string.h>

/* ---------- backward ---------- */

/* g = dy, times the activation derivative when the forward had one. */
static void load_grad(const hd_bn_problem *pb, int n, int c, double *g)
{
    hd_bn_load_row(&pb->dy, pb->dyp, n, c, g);
    if (pb->reserve) {
        const float *res = pb->reserve + ((size_t)n * pb->C + c) * (size_t)pb->S;
        for (int i = 0; i < pb->S; i++)
            g[i] *= res[i];
    }
}

/* Task (block of channels, chunk of images); per channel the images in order, as one. */
static void sums_spatial_task(void *vctx, size_t t, int thread)
{
    hd_bn_eng *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int B = hd_bn_plane_block(pb), c0 = (int)(t / (size_t)e->nch) * B, ch = (int)(t % (size_t)e->nch);
    int c1 = c0 + B < pb->C ? c0 + B : pb->C;
    int n0 = ch * e->rows_per, n1 = n0 + e->rows_per < pb->N ? n0 + e->rows_per : pb->N;
    int fast = !pb->reserve && hd_bn_row_contig(&pb->x) && hd_bn_row_contig(&pb->dy);
    int half = !pb->reserve && hd_bn_row_half(&pb->x) && hd_bn_row_half(&pb->dy);
    double *xb = hd_bn_thread_rows(e, thread), *gb = xb + pb->S;
    float *xf = (float *)xb, *gf = xf + pb->S;
    for (int c = c0; c < c1; c++) {
        double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
        part[0] = part[1] = 0.0;
    }
    for (int n = n0; n < n1; n++)
        for (int c = c0; c < c1; c++) {
            double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
            double m = e->in1[c], s = part[0], q = part[1];
            if (fast) {
                e->k->dsums((const float *)pb->dyp + hd_view_nc(&pb->dy, n, c),
                            (const float *)pb->xp + hd_view_nc(&pb->x, n, c), (size_t)pb->S, m, &s, &q);
            } else if (half) {
                hd_bn_to_f32(e->k, &pb->dy, pb->dyp, hd_view_nc(&pb->dy, n, c), gf, (size_t)pb->S);
                hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), xf, (size_t)pb->S);
                e->k->dsums(gf, xf, (size_t)pb->S, m, &s, &q);
            } else {
                hd_bn_load_row(&pb->x, pb->xp, n, c, xb);
                load_grad(pb, n, c, gb);
                for (int i = 0; i < pb->S; i++) {
                    s += gb[i];
                    q += gb[i] * (xb[i] - m);
                }
            }
            part[0] = s;
            part[1] = q;
        }
}

static void sums_act_task(void *vctx, size_t t, int thread)
{
    hd_bn_eng *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int c = (int)t, S = pb->S;
    double *xb = hd_bn_thread_rows(e, thread), *gb = xb + S;
    double *s = e->out1 + (size_t)c * S, *q = e->out2 + (size_t)c * S;
    const double *m = e->in1 + (size_t)c * S;
    for (int i = 0; i < S; i++)
        s[i] = q[i] = 0.0;
    for (int n = 0; n < pb->N; n++) {
        hd_bn_load_row(&pb->x, pb->xp, n, c, xb);
        load_grad(pb, n, c, gb);
        for (int i = 0; i < S; i++) {
            s[i] += gb[i];
            q[i] += gb[i] * (xb[i] - m[i]);
        }
    }
}

static void run_dsums(hd_bn_eng *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    hd_bn_col_arg *a = arg;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        e->k->col_dsums(hd_bn_pix(&pb->dy, pb->dyp, n, s), hd_bn_pix(&pb->x, pb->xp, n, s), (size_t)len, C, a->mean, a->acc,
                        a->acc2);
        return;
    }
    float *gb = a->blk, *xb = gb + HD_BN_BLK * C;
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        hd_bn_to_f32(e->k, &pb->dy, pb->dyp, hd_bn_pix_off(&pb->dy, n, s + b), gb, bl * C);
        hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_bn_pix_off(&pb->x, n, s + b), xb, bl * C);
        e->k->col_dsums(gb, xb, bl, C, a->mean, a->acc, a->acc2);
    }
}

static void sums_nhwc_task(void *vctx, size_t t, int thread)
{
    hd_bn_eng *e = vctx;
    int C = e->pb->C, ch = (int)t;
    double *s = hd_bn_thread_rows(e, thread), *q = s + C;
    for (int c = 0; c < C; c++)
        s[c] = q[c] = 0.0;
    hd_bn_col_arg a = {s, q, e->in1, NULL, hd_bn_thread_blk(e, thread)};
    hd_bn_for_runs(e, ch, run_dsums, &a);
    for (int c = 0; c < C; c++) {
        double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
        part[0] = s[c];
        part[1] = q[c];
    }
}

void hd_bn_bwd_sums(const hd_bn_problem *pb, const double *mean, double *sdy, double *sdyx, void *scratch)
{
    hd_bn_eng e;
    hd_bn_eng_init(&e, pb, scratch);
    e.in1 = mean;
    e.out1 = sdy;
    e.out2 = sdyx;
    if (pb->per_act) {
        hd_parallel_for((size_t)pb->C, pb->nthreads, sums_act_task, &e);
        return;
    }
    if (!pb->reserve && hd_bn_nhwc_contig(&pb->x) && hd_bn_nhwc_contig(&pb->dy)) {
        e.nch = hd_bn_pix_chunks(pb);
        hd_parallel_for((size_t)e.nch, pb->nthreads, sums_nhwc_task, &e);
    } else {
        hd_parallel_for(hd_bn_plane_tasks(pb, (size_t)e.nch), pb->nthreads, sums_spatial_task, &e);
    }
    for (int c = 0; c < pb->C; c++) {
        const double *part = e.parts + (size_t)c * (size_t)e.nch * 3;
        double s = 0.0, q = 0.0;
        for (int ch = 0; ch < e.nch; ch++) {
            s += part[(size_t)ch * 3];
            q += part[(size_t)ch * 3 + 1];
        }
        sdy[c] = s;
        sdyx[c] = q;
    }
}

/* One pass over x and dy per chunk: count, mean and M2 of x (shifted by the channel's first
 * element k), sum dy and sum dy (x - k); ok[0] = 0 when the shifted sums would cancel. */
static void stats_sums_task(void *vctx, size_t t, int thread)
{
    (void)thread;
    hd_bn_eng *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int c = (int)(t / (size_t)e->nch), ch = (int)(t % (size_t)e->nch);
    int n0 = ch * e->rows_per, n1 = n0 + e->rows_per < pb->N ? n0 + e->rows_per : pb->N;
    double k = hd_bn_chan_shift(pb, c), s1 = 0.0, s2 = 0.0, g = 0.0, h = 0.0;
    for (int n = n0; n < n1; n++)
        e->k->dssums((const float *)pb->dyp + hd_view_nc(&pb->dy, n, c),
                     (const float *)pb->xp + hd_view_nc(&pb->x, n, c), (size_t)pb->S, k, &s1, &s2, &g, &h);
    double cnt = (double)(n1 - n0) * pb->S, m2 = s2 - s1 * (s1 / cnt);
    double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 5;
    part[0] = cnt;
    part[1] = k + s1 / cnt;
    part[2] = m2;
    part[3] = g;
    part[4] = m2 * HD_BN_CANCEL >= s2 ? h : NAN;    /* NaN marks a chunk to redo */
}

int hd_bn_stats_bwd_sums(const hd_bn_problem *pb, double *mean, double *var, double *sdy, double *sdyx, void *scratch)
{
    if (pb->per_act || pb->reserve || !hd_bn_row_contig(&pb->x) || !hd_bn_row_contig(&pb->dy))
        return 0;
    hd_bn_eng e;
    hd_bn_eng_init(&e, pb, scratch);
    hd_parallel_for((size_t)pb->C * (size_t)e.nch, pb->nthreads, stats_sums_task, &e);
    for (int c = 0; c < pb->C; c++) {
        const double *part = e.parts + (size_t)c * (size_t)e.nch * 5;
        double k = hd_bn_chan_shift(pb, c), cnt = part[0], m = part[1], q = part[2], g = part[3], h = part[4];
        for (int ch = 1; ch < e.nch; ch++) {
            const double *b = part + (size_t)ch * 5;
            double tot = cnt + b[0], delta = b[1] - m;
            m += delta * (b[0] / tot);
            q += b[2] + delta * delta * (cnt * b[0] / tot);
            cnt = tot;
            g += b[3];
            h += b[4];
        }
        if (h != h)     /* a chunk would cancel (or NaN data): the caller's separate passes */
            return 0;
        mean[c] = m;
        var[c] = q / cnt;
        sdy[c] = g;
        sdyx[c] = h - (m - k) * g;              /* sum dy (x - mean) */
    }
    return 1;
}

static void bwd_plane(hd_bn_eng *e, int n, int c, int thread)
{
    const hd_bn_problem *pb = e->pb;
    int S = pb->S;
    const double *p = e->in1, *q = e->in2, *r = e->in3;
    int plain = !pb->per_act && !pb->reserve && !pb->dzp;
    float rf = 0.0f, mf = plain ? hd_bn_shift_f32(e, (size_t)c, q[c], r[c], &rf) : 0.0f;
    if (plain && hd_bn_row_contig(&pb->x) && hd_bn_row_contig(&pb->dy) && hd_bn_row_contig(&pb->dx)) {
        (e->stream ? e->k->bwd_stream : e->k->bwd)((const float *)pb->dyp + hd_view_nc(&pb->dy, n, c),
                                                   (const float *)pb->xp + hd_view_nc(&pb->x, n, c),
                                                   (float *)pb->dxp + hd_view_nc(&pb->dx, n, c), (size_t)S, mf,
                                                   (float)(e->alpha * p[c]), (float)(e->alpha * q[c]), rf, (float)e->beta);
        return;
    }
    if (plain && hd_bn_row_half(&pb->x) && hd_bn_row_half(&pb->dy) && hd_bn_row_half(&pb->dx)) {
        float *gf = (float *)hd_bn_thread_rows(e, thread), *xf = gf + S, *df = xf + S;
        int64_t dxo = hd_view_nc(&pb->dx, n, c);
        hd_bn_to_f32(e->k, &pb->dy, pb->dyp, hd_view_nc(&pb->dy, n, c), gf, (size_t)S);
        hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), xf, (size_t)S);
        if (e->beta != 0.0)
            hd_bn_to_f32(e->k, &pb->dx, pb->dxp, dxo, df, (size_t)S);
        e->k->bwd(gf, xf, df, (size_t)S, mf, (float)(e->alpha * p[c]), (float)(e->alpha * q[c]), rf, (float)e->beta);
        hd_bn_from_f32(e->k, &pb->dx, pb->dxp, dxo, df, (size_t)S);
        return;
    }
    double *xb = hd_bn_thread_rows(e, thread), *gb = xb + S;
    hd_bn_load_row(&pb->x, pb->xp, n, c, xb);
    load_grad(pb, n, c, gb);
    if (pb->dzp)
        hd_bn_store_row(&pb->dz, pb->dzp, n, c, gb, 1.0, 0.0);
    for (int i = 0; i < S; i++) {
        size_t f = pb->per_act ? (size_t)c * S + i : (size_t)c;
        xb[i] = p[f] * gb[i] + q[f] * (xb[i] - (e->shift ? e->shift[f] : 0.0)) + r[f];
    }
    hd_bn_store_row(&pb->dx, pb->dxp, n, c, xb, e->alpha, e->beta);
}

/* Task (image, block of channels): consecutive planes in memory order. */
static void bwd_task(void *vctx, size_t t, int thread)
{
    hd_bn_eng *e = vctx;
    int B = hd_bn_plane_block(e->pb), nb = (e->pb->C + B - 1) / B, n = (int)(t / (size_t)nb);
    int c0 = (int)(t % (size_t)nb) * B, c1 = c0 + B < e->pb->C ? c0 + B : e->pb->C;
    for (int c = c0; c < c1; c++)
        bwd_plane(e, n, c, thread);
}

static void run_bwd(hd_bn_eng *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    const hd_bn_col_arg *a = arg;
    const float *pqr = a->par;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        (e->stream ? e->k->col_bwd_stream : e->k->col_bwd)(hd_bn_pix(&pb->dy, pb->dyp, n, s),
                                                           hd_bn_pix(&pb->x, pb->xp, n, s),
                                                           (float *)hd_bn_pix(&pb->dx, pb->dxp, n, s), (size_t)len, C,
                                                           pqr, pqr + C, pqr + 2 * C, pqr + 3 * C, (float)e->beta);
        return;
    }
    float *gb = a->blk, *xb = gb + HD_BN_BLK * C, *db = xb + HD_BN_BLK * C;
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        int64_t dxo = hd_bn_pix_off(&pb->dx, n, s + b);
        hd_bn_to_f32(e->k, &pb->dy, pb->dyp, hd_bn_pix_off(&pb->dy, n, s + b), gb, bl * C);
        hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_bn_pix_off(&pb->x, n, s + b), xb, bl * C);
        if (e->beta != 0.0)
            hd_bn_to_f32(e->k, &pb->dx, pb->dxp, dxo, db, bl * C);
        e->k->col_bwd(gb, xb, db, bl, C, pqr, pqr + C, pqr + 2 * C, pqr + 3 * C, (float)e->beta);
        hd_bn_from_f32(e->k, &pb->dx, pb->dxp, dxo, db, bl * C);
    }
}

static void bwd_nhwc_task(void *vctx, size_t t, int thread)
{
    hd_bn_eng *e = vctx;
    int C = e->pb->C;
    float *pqr = (float *)hd_bn_thread_rows(e, thread);      /* m, p, q, r */
    for (int c = 0; c < C; c++) {
        pqr[c] = hd_bn_shift_f32(e, (size_t)c, e->in2[c], e->in3[c], &pqr[3 * C + c]);
        pqr[C + c] = (float)(e->alpha * e->in1[c]);
        pqr[2 * C + c] = (float)(e->alpha * e->in2[c]);
    }
    hd_bn_col_arg a = {NULL, NULL, NULL, pqr, hd_bn_thread_blk(e, thread)};
    hd_bn_for_runs(e, (int)t, run_bwd, &a);
}

void hd_bn_bwd_apply(const hd_bn_problem *pb, const double *m, const double *p, const double *q, const double *r,
                     double alpha, double beta, void *scratch)
{
    hd_bn_eng e;
    hd_bn_eng_init(&e, pb, scratch);
    e.shift = m;
    e.in1 = p;
    e.in2 = q;
    e.in3 = r;
    e.alpha = alpha;
    e.beta = beta;
    e.stream = beta == 0.0 && hd_bn_touched_bytes(pb, 3) >= (double)hd_eltwise_stream_min_bytes();
    if (!pb->per_act && !pb->reserve && !pb->dzp && hd_bn_nhwc_contig(&pb->x) && hd_bn_nhwc_contig(&pb->dy) &&
        hd_bn_nhwc_contig(&pb->dx)) {
        hd_parallel_for((size_t)hd_bn_pix_chunks(pb), pb->nthreads, bwd_nhwc_task, &e);
        return;
    }
    e.stream = e.stream && pb->S >= HD_BN_PLANE_MIN;
    hd_parallel_for(hd_bn_plane_tasks(pb, (size_t)pb->N), pb->nthreads, bwd_task, &e);
}
