/*
 * norm/bn_forward.c -- the batch-normalization engine's forward half: the statistics (mean
 * and biased variance per feature, reduced in a fixed partition) and the normalizing apply
 * pass y = alpha * act(a * (x - m) + b (+ z)) + beta * y.
 */
#include "norm/bn_internal.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "core/parallel.h"

#include <math.h>
#include <string.h>

/* ---------- statistics ---------- */

/* Statistics read x once: each chunk sums d = x - k and d^2 with k the channel's first
 * element (a shift near the data, so the sums do not cancel when the mean is large next to
 * the spread), and turns them into (count, mean, M2) for the merge in hd_bn_stats.  M2 =
 * S2 - S1^2 / cnt loses about log2(S2 / M2) bits, so a chunk whose data sit far from k
 * next to their spread (S2 > 2^16 M2: an outlier first element, a drifting channel) is
 * redone with the exact two-pass method (the chunk is still in cache). */

/* (mean, M2) of rows n0..n1 of channel c, from shifted sums */
static int chunk_one_pass(hd_bn_eng *e, int c, int n0, int n1, double k, double *buf, double *mean, double *m2)
{
    const hd_bn_problem *pb = e->pb;
    int fast = hd_bn_row_contig(&pb->x), half = hd_bn_row_half(&pb->x);
    float *fb = (float *)buf;
    double s1 = 0.0, s2 = 0.0;
    for (int n = n0; n < n1; n++) {
        if (fast) {
            e->k->ssums((const float *)pb->xp + hd_view_nc(&pb->x, n, c), (size_t)pb->S, k, &s1, &s2);
        } else if (half) {
            hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), fb, (size_t)pb->S);
            e->k->ssums(fb, (size_t)pb->S, k, &s1, &s2);
        } else {
            hd_bn_load_row(&pb->x, pb->xp, n, c, buf);
            for (int i = 0; i < pb->S; i++) {
                double d = buf[i] - k;
                s1 += d;
                s2 += d * d;
            }
        }
    }
    double cnt = (double)(n1 - n0) * pb->S;
    *mean = k + s1 / cnt;
    *m2 = s2 - s1 * (s1 / cnt);
    return *m2 * HD_BN_CANCEL >= s2;    /* false also for NaN */
}

/* the exact fallback: the mean, then the squared deviations from it */
static void chunk_two_pass(hd_bn_eng *e, int c, int n0, int n1, double *buf, double *mean, double *m2)
{
    const hd_bn_problem *pb = e->pb;
    int fast = hd_bn_row_contig(&pb->x), half = hd_bn_row_half(&pb->x);
    float *fb = (float *)buf;
    double s = 0.0;
    for (int n = n0; n < n1; n++) {
        if (fast) {
            s += e->k->sum((const float *)pb->xp + hd_view_nc(&pb->x, n, c), (size_t)pb->S);
        } else if (half) {
            hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), fb, (size_t)pb->S);
            s += e->k->sum(fb, (size_t)pb->S);
        } else {
            hd_bn_load_row(&pb->x, pb->xp, n, c, buf);
            for (int i = 0; i < pb->S; i++)
                s += buf[i];
        }
    }
    double cnt = (double)(n1 - n0) * pb->S, m = s / cnt, q = 0.0;
    for (int n = n0; n < n1; n++) {
        if (fast) {
            q += e->k->sqdev((const float *)pb->xp + hd_view_nc(&pb->x, n, c), (size_t)pb->S, m);
        } else if (half) {
            hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), fb, (size_t)pb->S);
            q += e->k->sqdev(fb, (size_t)pb->S, m);
        } else {
            hd_bn_load_row(&pb->x, pb->xp, n, c, buf);
            for (int i = 0; i < pb->S; i++)
                q += (buf[i] - m) * (buf[i] - m);
        }
    }
    *mean = m;
    *m2 = q;
}

static void stats_spatial_task(void *vctx, size_t t, int thread)
{
    hd_bn_eng *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int c = (int)(t / (size_t)e->nch), ch = (int)(t % (size_t)e->nch);
    int n0 = ch * e->rows_per, n1 = n0 + e->rows_per < pb->N ? n0 + e->rows_per : pb->N;
    double *buf = hd_bn_thread_rows(e, thread), m, q;
    if (!chunk_one_pass(e, c, n0, n1, hd_bn_chan_shift(pb, c), buf, &m, &q))
        chunk_two_pass(e, c, n0, n1, buf, &m, &q);
    double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
    part[0] = (double)(n1 - n0) * pb->S;
    part[1] = m;
    part[2] = q;
}

static void stats_act_task(void *vctx, size_t t, int thread)
{
    hd_bn_eng *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int c = (int)t, S = pb->S;
    double *buf = hd_bn_thread_rows(e, thread), *acc = buf + S;
    double *mean = e->out1 + (size_t)c * S, *var = e->out2 + (size_t)c * S;
    for (int i = 0; i < S; i++)
        acc[i] = 0.0;
    for (int n = 0; n < pb->N; n++) {
        hd_bn_load_row(&pb->x, pb->xp, n, c, buf);
        for (int i = 0; i < S; i++)
            acc[i] += buf[i];
    }
    for (int i = 0; i < S; i++) {
        mean[i] = acc[i] / pb->N;
        acc[i] = 0.0;
    }
    for (int n = 0; n < pb->N; n++) {
        hd_bn_load_row(&pb->x, pb->xp, n, c, buf);
        for (int i = 0; i < S; i++)
            acc[i] += (buf[i] - mean[i]) * (buf[i] - mean[i]);
    }
    for (int i = 0; i < S; i++)
        var[i] = acc[i] / pb->N;
}

static void run_sum(hd_bn_eng *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    hd_bn_col_arg *a = arg;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        e->k->col_sum(hd_bn_pix(&pb->x, pb->xp, n, s), (size_t)len, C, a->acc);
        return;
    }
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_bn_pix_off(&pb->x, n, s + b), a->blk, bl * C);
        e->k->col_sum(a->blk, bl, C, a->acc);
    }
}

static void run_sqdev(hd_bn_eng *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    hd_bn_col_arg *a = arg;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        e->k->col_sqdev(hd_bn_pix(&pb->x, pb->xp, n, s), (size_t)len, C, a->mean, a->acc);
        return;
    }
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_bn_pix_off(&pb->x, n, s + b), a->blk, bl * C);
        e->k->col_sqdev(a->blk, bl, C, a->mean, a->acc);
    }
}

static void run_ssums(hd_bn_eng *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    hd_bn_col_arg *a = arg;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        e->k->col_ssums(hd_bn_pix(&pb->x, pb->xp, n, s), (size_t)len, C, a->mean, a->acc, a->acc2);
        return;
    }
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_bn_pix_off(&pb->x, n, s + b), a->blk, bl * C);
        e->k->col_ssums(a->blk, bl, C, a->mean, a->acc, a->acc2);
    }
}

/* Channel-contiguous statistics: one task per pixel chunk, all channels at once; one pass
 * with shifted sums, or (when any channel of the chunk would cancel) two exact passes. */
static void stats_nhwc_task(void *vctx, size_t t, int thread)
{
    hd_bn_eng *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int C = pb->C, ch = (int)t;
    double *acc = hd_bn_thread_rows(e, thread), *acc2 = acc + C, *k = acc2 + C;
    int64_t P = hd_bn_pix_per_chunk(pb), tot = (int64_t)pb->N * pb->S;
    double cnt = (double)((int64_t)(ch + 1) * P < tot ? P : tot - (int64_t)ch * P);
    for (int c = 0; c < C; c++) {
        acc[c] = acc2[c] = 0.0;
        k[c] = hd_bn_chan_shift(pb, c);
    }
    hd_bn_col_arg a = {acc, acc2, k, NULL, hd_bn_thread_blk(e, thread)};
    hd_bn_for_runs(e, ch, run_ssums, &a);
    int ok = 1;
    for (int c = 0; c < C; c++) {
        double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
        part[0] = cnt;
        part[1] = k[c] + acc[c] / cnt;
        part[2] = acc2[c] - acc[c] * (acc[c] / cnt);
        ok &= part[2] * HD_BN_CANCEL >= acc2[c];
    }
    if (ok)
        return;
    double *m = acc2;
    for (int c = 0; c < C; c++)
        acc[c] = 0.0;
    a.acc2 = NULL;
    a.mean = NULL;
    hd_bn_for_runs(e, ch, run_sum, &a);
    for (int c = 0; c < C; c++) {
        m[c] = acc[c] / cnt;
        acc[c] = 0.0;
    }
    a.mean = m;
    hd_bn_for_runs(e, ch, run_sqdev, &a);
    for (int c = 0; c < C; c++) {
        double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
        part[1] = m[c];
        part[2] = acc[c];
    }
}

void hd_bn_stats(const hd_bn_problem *pb, double *mean, double *var, void *scratch)
{
    hd_bn_eng e;
    hd_bn_eng_init(&e, pb, scratch);
    e.out1 = mean;
    e.out2 = var;
    if (pb->per_act) {
        hd_parallel_for((size_t)pb->C, pb->nthreads, stats_act_task, &e);
        return;
    }
    if (hd_bn_nhwc_contig(&pb->x)) {
        e.nch = hd_bn_pix_chunks(pb);
        hd_parallel_for((size_t)e.nch, pb->nthreads, stats_nhwc_task, &e);
    } else {
        hd_parallel_for((size_t)pb->C * (size_t)e.nch, pb->nthreads, stats_spatial_task, &e);
    }
    /* combine the chunks of each channel in chunk order (Chan et al.) */
    for (int c = 0; c < pb->C; c++) {
        const double *part = e.parts + (size_t)c * (size_t)e.nch * 3;
        double cnt = part[0], m = part[1], q = part[2];
        for (int ch = 1; ch < e.nch; ch++) {
            const double *b = part + (size_t)ch * 3;
            double tot = cnt + b[0], delta = b[1] - m;
            m += delta * (b[0] / tot);
            q += b[2] + delta * delta * (cnt * b[0] / tot);
            cnt = tot;
        }
        mean[c] = m;
        var[c] = q / cnt;
    }
}

/* ---------- forward apply ---------- */

static void apply_plane(hd_bn_eng *e, int n, int c, int thread)
{
    const hd_bn_problem *pb = e->pb;
    int S = pb->S;
    const double *a = e->in1, *b = e->in2;
    int plain = !pb->per_act && !pb->zp && !pb->act.on && !pb->reserve;
    float bf = 0.0f, mf = plain ? hd_bn_shift_f32(e, (size_t)c, a[c], b[c], &bf) : 0.0f;
    if (plain && hd_bn_row_contig(&pb->x) && hd_bn_row_contig(&pb->y)) {
        (e->stream ? e->k->affine_stream : e->k->affine)((const float *)pb->xp + hd_view_nc(&pb->x, n, c),
                                                         (float *)pb->yp + hd_view_nc(&pb->y, n, c), (size_t)S, mf,
                                                         (float)(e->alpha * a[c]), bf, (float)e->beta);
        return;
    }
    if (plain && hd_bn_row_half(&pb->x) && hd_bn_row_half(&pb->y)) {
        float *xf = (float *)hd_bn_thread_rows(e, thread), *yf = xf + S;
        int64_t yo = hd_view_nc(&pb->y, n, c);
        hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), xf, (size_t)S);
        if (e->beta != 0.0)
            hd_bn_to_f32(e->k, &pb->y, pb->yp, yo, yf, (size_t)S);
        e->k->affine(xf, yf, (size_t)S, mf, (float)(e->alpha * a[c]), bf, (float)e->beta);
        hd_bn_from_f32(e->k, &pb->y, pb->yp, yo, yf, (size_t)S);
        return;
    }
    double *xb = hd_bn_thread_rows(e, thread), *zb = xb + S;
    hd_bn_load_row(&pb->x, pb->xp, n, c, xb);
    if (pb->zp)
        hd_bn_load_row(&pb->z, pb->zp, n, c, zb);
    float *res = pb->reserve ? pb->reserve + ((size_t)n * pb->C + c) * (size_t)S : NULL;
    for (int i = 0; i < S; i++) {
        size_t f = pb->per_act ? (size_t)c * S + i : (size_t)c;
        double v = a[f] * (xb[i] - (e->shift ? e->shift[f] : 0.0)) + b[f];
        if (pb->zp)
            v += zb[i];
        double d;
        xb[i] = hd_bn_act_apply(&pb->act, v, &d);
        if (res)
            res[i] = (float)d;
    }
    hd_bn_store_row(&pb->y, pb->yp, n, c, xb, e->alpha, e->beta);
}

/* Task (image, block of channels): consecutive planes in memory order. */
static void apply_task(void *vctx, size_t t, int thread)
{
    hd_bn_eng *e = vctx;
    int B = hd_bn_plane_block(e->pb), nb = (e->pb->C + B - 1) / B, n = (int)(t / (size_t)nb);
    int c0 = (int)(t % (size_t)nb) * B, c1 = c0 + B < e->pb->C ? c0 + B : e->pb->C;
    for (int c = c0; c < c1; c++)
        apply_plane(e, n, c, thread);
}

static void run_affine(hd_bn_eng *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    const hd_bn_col_arg *a = arg;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        (e->stream ? e->k->col_affine_stream : e->k->col_affine)(hd_bn_pix(&pb->x, pb->xp, n, s),
                                                                 (float *)hd_bn_pix(&pb->y, pb->yp, n, s), (size_t)len,
                                                                 C, a->par, a->par + C, a->par + 2 * C, (float)e->beta);
        return;
    }
    float *xb = a->blk, *yb = xb + HD_BN_BLK * C;
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        int64_t yo = hd_bn_pix_off(&pb->y, n, s + b);
        hd_bn_to_f32(e->k, &pb->x, pb->xp, hd_bn_pix_off(&pb->x, n, s + b), xb, bl * C);
        if (e->beta != 0.0)
            hd_bn_to_f32(e->k, &pb->y, pb->yp, yo, yb, bl * C);
        e->k->col_affine(xb, yb, bl, C, a->par, a->par + C, a->par + 2 * C, (float)e->beta);
        hd_bn_from_f32(e->k, &pb->y, pb->yp, yo, yb, bl * C);
    }
}

static void apply_nhwc_task(void *vctx, size_t t, int thread)
{
    hd_bn_eng *e = vctx;
    int C = e->pb->C;
    float *ab = (float *)hd_bn_thread_rows(e, thread);       /* m, a, b */
    for (int c = 0; c < C; c++) {
        ab[c] = hd_bn_shift_f32(e, (size_t)c, e->in1[c], e->in2[c], &ab[2 * C + c]);
        ab[C + c] = (float)(e->alpha * e->in1[c]);
    }
    hd_bn_col_arg a = {NULL, NULL, NULL, ab, hd_bn_thread_blk(e, thread)};
    hd_bn_for_runs(e, (int)t, run_affine, &a);
}

void hd_bn_apply(const hd_bn_problem *pb, const double *m, const double *a, const double *b, double alpha, double beta,
                 void *scratch)
{
    hd_bn_eng e;
    hd_bn_eng_init(&e, pb, scratch);
    e.shift = m;
    e.in1 = a;
    e.in2 = b;
    e.alpha = alpha;
    e.beta = beta;
    e.stream = beta == 0.0 && hd_bn_touched_bytes(pb, 2) >= (double)hd_eltwise_stream_min_bytes();
    if (!pb->per_act && !pb->zp && !pb->act.on && !pb->reserve && hd_bn_nhwc_contig(&pb->x) && hd_bn_nhwc_contig(&pb->y)) {
        hd_parallel_for((size_t)hd_bn_pix_chunks(pb), pb->nthreads, apply_nhwc_task, &e);
        return;
    }
    e.stream = e.stream && pb->S >= HD_BN_PLANE_MIN;
    hd_parallel_for(hd_bn_plane_tasks(pb, (size_t)pb->N), pb->nthreads, apply_task, &e);
}
