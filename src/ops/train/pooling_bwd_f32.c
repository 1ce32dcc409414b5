/*
 * cudnnPoolingBackward for FLOAT 2-d tensors (pooling_bwd.c checks the call, then comes here).
 *
 * The rules are the generic path's: a max-mode output's gradient goes to the first maximum
 * of its window in row-major order (strictly greater replaces; PROPAGATE: the first NaN);
 * average modes add dy / divisor to every real input of the window.  Each dx value is the
 * double sum of its contributions taken in output order (oh, then ow), written once as
 * (float)(alpha * sum + beta * dx).
 *
 * Work is split into (image, channel plane, block of input rows) for row-contiguous layouts
 * and (image, block of input rows) for channel-contiguous ones.  A task owns the dx rows of
 * its block and walks every output row whose window meets the block; every dx value gets the
 * same sum in the same order whatever the blocks and the thread count, so results are
 * bitwise independent of both.  Six paths:
 *  - max (scatter): windows reach into the neighbouring blocks, whose x rows the task reads
 *    to find the argmax again; it keeps only the contributions that land in its own rows and
 *    adds them to a ring of double rows in output order.  A row leaves the ring for dx as
 *    soon as no later output row can reach it (window starts never move up).
 *  - max 3x3 stride 2, alpha 1, beta 0, AVX-512, channel-contiguous or along NCHW rows: the
 *    argmax and the sums in one pass (pooling_bwd_f32_max3s2.c).
 *  - max, channel-contiguous, AVX-512 (gather): each output row's argmax once, as a byte per
 *    channel; each dx row then gathers, in output order, the gradients of the covering outputs
 *    whose argmax it is (the maxgatherrow kernel): no ring, no flush pass.
 *  - average (gather): each output row's shares are made once, as doubles; each dx row then
 *    sums the shares of the outputs that cover it, in output order, in registers (the
 *    gatherrow / gatherpix kernels): no accumulator rows, no flush pass.
 *  - average whose windows tile the input (window == stride, no padding), alpha 1, beta 0:
 *    every dx value takes one output's share, which float arithmetic gives bitwise (the share
 *    and broadcast kernels), written without a double in between.
 *  - global average: one share per (image, channel), broadcast over the plane.
 */
#include "core/api.h"
#include "core/handle.h"
#include "core/log.h"
#include "core/memory.h"
#include "core/parallel.h"
#include "core/elem.h"
#include "kernels/pool/pool-ukernels.h"
#include "ops/infer/pooling.h"
#include "ops/train/pooling_bwd.h"

#include <math.h>
#include <string.h>

typedef struct {
    const struct cudnnPoolingStruct *p;
    const hd_view *dy, *x, *dx;
    const float *dyp, *xp;
    float *dxp;
    double alpha, beta;
    int maxm, prop, incl, nhwc;
    int kh;                  /* ring rows (max): the window height, at most H */
    int nslot;               /* output rows kept (average gather): the most that cover one input row */
    int nblk, rows_per_blk;  /* row blocks per plane (or image): input rows, output rows for the tiles */
    int64_t aw;              /* ring row length (max, planes path) */
    size_t sl, lpad;         /* average gather, planes path: share row length with its padding, left part */
    size_t per_thread;       /* doubles of scratch per thread */
    double *scratch;
    int stream;              /* dx rows streamed (beta 0, long channel-contiguous rows) */
    hd_f32_pool_rowargmax_fn rowargmax;
    hd_f32_pool_argmax_fn argmax;
    hd_f32_pool_flush_fn flush;
    hd_f32_pool_gatherrow_fn gatherrow;
    hd_f32_pool_gatherpix_fn gatherpix;
    hd_f32_pool_share_fn share;
    hd_f32_pool_broadcast_fn broadcast;
    hd_f32_pool_fence_fn fence;      /* after a task's last streamed store */
    hd_f32_pool_argmax8_fn argmax8;
    hd_f32_pool_maxgatherrow_fn maxgatherrow;
    int ncol;                /* max gather: the most outputs whose windows cover one input column */
} f32_ctx;

/* Output rows [*oh0, *oh1) whose windows meet input rows [r0, r1). */
static void out_rows(const f32_ctx *k, int r0, int r1, int *oh0, int *oh1)
{
    const struct cudnnPoolingStruct *p = k->p;
    int H = k->x->dims[2], OH = k->dy->dims[2];
    int a = 0;
    while (a < OH && hd_pool_span_of(a, H, p->window[0], p->pad[0], p->stride[0]).hi <= r0)
        a++;
    int b = a;
    while (b < OH && hd_pool_span_of(b, H, p->window[0], p->pad[0], p->stride[0]).lo < r1)
        b++;
    *oh0 = a;
    *oh1 = b;
}

/* Max pooling, row-contiguous planes: one task per (n, c, row block).  x rows are copied once
 * into a ring of padded float rows (padding -inf), the argmax of a whole output row comes from
 * the rowargmax kernel, and its scatter adds in ow order into a ring of padded double rows. */
static void max_plane_task(void *vctx, size_t t, int thread)
{
    const f32_ctx *k = vctx;
    const struct cudnnPoolingStruct *p = k->p;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3], OW = k->dy->dims[3];
    int blk = (int)(t % (size_t)k->nblk);
    size_t nc = t / (size_t)k->nblk;
    int n = (int)(nc / (size_t)C), c = (int)(nc % (size_t)C);
    int r0 = blk * k->rows_per_blk, r1 = r0 + k->rows_per_blk < H ? r0 + k->rows_per_blk : H;
    if (r0 >= r1)
        return;
    int kh = k->kh, kw = p->window[1], sw = p->stride[1], pw = p->pad[1];
    int64_t aw = k->aw;
    double *acc = k->scratch + (size_t)thread * k->per_thread;
    float *prow = (float *)(void *)(acc + (size_t)kh * (size_t)aw);
    int32_t *arg = (int32_t *)(void *)(prow + (size_t)kh * (size_t)aw);
    const float **rows = (const float **)(void *)(arg + 2 * (size_t)OW);
    int32_t *tab = (int32_t *)(void *)(rows + kh);
    memset(acc, 0, sizeof(double) * (size_t)kh * (size_t)aw);
    for (int r = 0; r < kh; r++) {      /* the padding of the x rows: -inf, set once, never overwritten */
        float *q = prow + (size_t)r * (size_t)aw;
        for (int i = 0; i < pw; i++)
            q[i] = -INFINITY;
        for (int64_t i = pw + W; i < aw; i++)
            q[i] = -INFINITY;
    }
    const float *x = k->xp + hd_view_nc(k->x, n, c);
    const float *dy = k->dyp + hd_view_nc(k->dy, n, c);
    float *dx = k->dxp + hd_view_nc(k->dx, n, c);
    int64_t xh = k->x->strides[2], xw = k->x->strides[3], dyh = k->dy->strides[2], dyw = k->dy->strides[3];
    int64_t dxh = k->dx->strides[2], dxw = k->dx->strides[3];
    int oh0, oh1;
    out_rows(k, r0, r1, &oh0, &oh1);
    int done = r0, loaded = -1;
    for (int oh = oh0; oh <= oh1; oh++) {
        hd_pool_span sh = oh < oh1 ? hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0])
                                   : (hd_pool_span){r1, r1, 0};
        for (; done < (sh.lo < r1 ? sh.lo : r1); done++) {       /* rows no later output reaches */
            double *a = acc + (size_t)(done % kh) * (size_t)aw;
            float *d = dx + done * dxh;
            if (dxw == 1) {
                /* the flush zeroes the row's real part; the padding and slack positions are
                 * never chosen (their x is -inf), so they stay 0 from the task's start */
                k->flush(d, a + pw, (size_t)W, k->alpha, k->beta);
            } else {
                for (int iw = 0; iw < W; iw++) {
                    double r = k->alpha * a[pw + iw];
                    if (k->beta != 0.0)
                        r += k->beta * (double)d[iw * dxw];
                    d[iw * dxw] = (float)r;
                }
                memset(a, 0, sizeof(double) * (size_t)aw);
            }
        }
        if (oh == oh1 || sh.hi <= sh.lo)
            continue;
        const float *g = dy + oh * dyh;
        if (loaded < sh.lo)
            loaded = sh.lo;
        for (; loaded < sh.hi; loaded++) {                  /* x rows into the padded ring */
            float *q = prow + (size_t)(loaded % kh) * (size_t)aw;
            const float *xr = x + loaded * xh;
            if (xw == 1)
                memcpy(q + pw, xr, sizeof(float) * (size_t)W);
            else
                for (int iw = 0; iw < W; iw++)
                    q[pw + iw] = xr[iw * xw];
        }
        int nr = sh.hi - sh.lo;
        for (int r = 0; r < nr; r++)
            rows[r] = prow + (size_t)((sh.lo + r) % kh) * (size_t)aw;
        /* each tap's place in the ring for output 0, -1 outside this block's rows */
        for (int r = 0, t = 0; r < nr; r++)
            for (int tk = 0; tk < kw; tk++, t++)
                tab[t] = sh.lo + r >= r0 && sh.lo + r < r1 ? (int32_t)(((sh.lo + r) % kh) * aw + tk) : -1;
        k->rowargmax(rows, nr, (size_t)OW, kw, sw, tab, k->prop, arg);
        if (dyw == 1) {
            for (int ow = 0; ow < OW; ow++)
                if (arg[ow] >= 0)
                    acc[arg[ow]] += (double)g[ow];
        } else {
            for (int ow = 0; ow < OW; ow++)
                if (arg[ow] >= 0)
                    acc[arg[ow]] += (double)g[ow * dyw];
        }
    }
    k->fence();
}

/* Max pooling, channel-contiguous images: one task per (n, row block).  Outputs are taken in
 * order (oh, then ow), each adding to its window's rows of this block in a ring of W x C
 * doubles, channels innermost; the argmax per channel over the window comes from the argmax
 * kernel. */
static void max_nhwc_task(void *vctx, size_t t, int thread)
{
    const f32_ctx *k = vctx;
    const struct cudnnPoolingStruct *p = k->p;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3], OW = k->dy->dims[3];
    int blk = (int)(t % (size_t)k->nblk);
    int64_t n = (int64_t)(t / (size_t)k->nblk), rowlen = (int64_t)W * C;
    int r0 = blk * k->rows_per_blk, r1 = r0 + k->rows_per_blk < H ? r0 + k->rows_per_blk : H;
    if (r0 >= r1)
        return;
    int kh = k->kh;
    int kw = p->window[1] < W ? p->window[1] : W;
    double *ring = k->scratch + (size_t)thread * k->per_thread;
    /* after the ring: the window's tap pointers and ring offsets, the argmax of each channel */
    const float **taps = (const float **)(void *)(ring + (size_t)kh * (size_t)rowlen);
    int64_t *at = (int64_t *)(void *)(taps + (size_t)kh * (size_t)kw);
    int32_t *arg = (int32_t *)(void *)(at + (size_t)kh * (size_t)kw);
    memset(ring, 0, sizeof(double) * (size_t)kh * (size_t)rowlen);
    const float *x = k->xp + n * k->x->strides[0];
    const float *dy = k->dyp + n * k->dy->strides[0];
    float *dx = k->dxp + n * k->dx->strides[0];
    int64_t xh = k->x->strides[2], xw = k->x->strides[3], dyh = k->dy->strides[2], dyw = k->dy->strides[3];
    int64_t dxh = k->dx->strides[2], dxw = k->dx->strides[3];
    int oh0, oh1;
    out_rows(k, r0, r1, &oh0, &oh1);
    int done = r0;
    for (int oh = oh0; oh <= oh1; oh++) {
        hd_pool_span sh = oh < oh1 ? hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0])
                                   : (hd_pool_span){r1, r1, 0};
        for (; done < (sh.lo < r1 ? sh.lo : r1); done++) {
            double *a = ring + (size_t)(done % kh) * (size_t)rowlen;
            float *d = dx + done * dxh;
            if (dxw == C) {                            /* packed row: one call */
                k->flush(d, a, (size_t)rowlen, k->alpha, k->beta);
            } else {
                for (int iw = 0; iw < W; iw++)
                    k->flush(d + iw * dxw, a + (int64_t)iw * C, (size_t)C, k->alpha, k->beta);
            }
        }
        if (oh == oh1)
            continue;
        for (int ow = 0; ow < OW; ow++) {
            hd_pool_span sw = hd_pool_span_of(ow, W, p->window[1], p->pad[1], p->stride[1]);
            int64_t cnt = (int64_t)(sh.hi - sh.lo) * (sw.hi - sw.lo);
            if (cnt == 0)
                continue;
            const float *g = dy + oh * dyh + ow * dyw;
            int nt = 0;
            for (int ih = sh.lo; ih < sh.hi; ih++)
                for (int iw = sw.lo; iw < sw.hi; iw++, nt++) {
                    taps[nt] = x + ih * xh + iw * xw;
                    /* taps outside this block's rows get no contribution */
                    at[nt] = ih >= r0 && ih < r1 ? (int64_t)(ih % kh) * rowlen + (int64_t)iw * C : -1;
                }
            k->argmax(taps, nt, (size_t)C, k->prop, arg);
            for (int c = 0; c < C; c++)
                if (arg[c] >= 0 && at[arg[c]] >= 0)
                    ring[at[arg[c]] + c] += (double)g[c];
        }
    }
    k->fence();
}

/* The output rows whose windows cover input row ih, [*first, *next): *first moves past rows
 * that end at or above ih, *next past rows that start at or above it (window starts and ends
 * never move up, so both only grow); make(oh) runs for each row as *next passes it. */
typedef void (*make_fn)(const f32_ctx *k, void *task, int oh);
static void cover(const f32_ctx *k, int ih, int oh_end, int *first, int *next, make_fn make, void *task)
{
    const struct cudnnPoolingStruct *p = k->p;
    int H = k->x->dims[2];
    while (*first < oh_end && hd_pool_span_of(*first, H, p->window[0], p->pad[0], p->stride[0]).hi <= ih)
        (*first)++;
    while (*next < oh_end && hd_pool_span_of(*next, H, p->window[0], p->pad[0], p->stride[0]).lo <= ih) {
        make(k, task, *next);
        (*next)++;
    }
}

/* Average, row-contiguous planes (gather): per task (n, c, block of dx rows) and per output
 * row, the share of each output as a double, in a row padded with zeros; each dx row then
 * gathers from the output rows that cover it, oldest first, taps right to left (outputs left
 * to right for any one column): the terms of the gatherrow kernel. */
typedef struct {
    int n, c;
    double *src;             /* nslot rows of sl doubles, output 0 at [lpad] */
    double *hf;              /* the divisor's horizontal factor per ow */
} avg_plane_state;

static void avg_plane_make(const f32_ctx *k, void *vs, int oh)
{
    avg_plane_state *st = vs;
    const struct cudnnPoolingStruct *p = k->p;
    int H = k->x->dims[2], OW = k->dy->dims[3];
    double *src = st->src + (size_t)(oh % k->nslot) * k->sl + k->lpad;
    hd_pool_span sh = hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0]);
    const float *g = k->dyp + hd_view_nc(k->dy, st->n, st->c) + oh * k->dy->strides[2];
    int64_t dyw = k->dy->strides[3];
    /* the divisor's two factors are small integers: their double product is exact, the
     * integer divisor itself (a window without real columns gets an infinite or NaN share
     * that no real dx column gathers) */
    double vf = k->incl ? sh.incl : sh.hi - sh.lo;
    for (int ow = 0; ow < OW; ow++)
        src[ow] = (double)g[ow * dyw] / (vf * st->hf[ow]);
}

static void avg_plane_task(void *vctx, size_t t, int thread)
{
    const f32_ctx *k = vctx;
    const struct cudnnPoolingStruct *p = k->p;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3], OW = k->dy->dims[3];
    int blk = (int)(t % (size_t)k->nblk);
    size_t nc = t / (size_t)k->nblk;
    int r0 = blk * k->rows_per_blk, r1 = r0 + k->rows_per_blk < H ? r0 + k->rows_per_blk : H;
    if (r0 >= r1)
        return;
    int kw = p->window[1], sw = p->stride[1], pw = p->pad[1], nslot = k->nslot;
    size_t sl = k->sl, nterm = (size_t)nslot * (size_t)kw;
    avg_plane_state st;
    st.n = (int)(nc / (size_t)C);
    st.c = (int)(nc % (size_t)C);
    st.src = k->scratch + (size_t)thread * k->per_thread;
    st.hf = st.src + (size_t)nslot * sl;
    float *tmp = (float *)(void *)(st.hf + OW);                       /* a dx row when not packed */
    const double **tsrc = (const double **)(void *)(tmp + ((size_t)W + 1) / 2 * 2);
    int32_t *tk = (int32_t *)(void *)(tsrc + nterm);
    for (size_t i = 0; i < (size_t)nslot * sl; i++)   /* the padding around the real outputs stays 0 */
        st.src[i] = 0.0;
    for (int ow = 0; ow < OW; ow++) {
        hd_pool_span sx = hd_pool_span_of(ow, W, kw, pw, sw);
        st.hf[ow] = k->incl ? sx.incl : sx.hi - sx.lo;
    }
    float *dx = k->dxp + hd_view_nc(k->dx, st.n, st.c);
    int64_t dxh = k->dx->strides[2], dxw = k->dx->strides[3];
    int oh0, oh1;
    out_rows(k, r0, r1, &oh0, &oh1);
    int first = oh0, next = oh0;
    for (int ih = r0; ih < r1; ih++) {
        cover(k, ih, oh1, &first, &next, avg_plane_make, &st);
        int nt = 0;
        for (int oh = first; oh < next; oh++) {
            hd_pool_span sh = hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0]);
            if (ih < sh.lo || ih >= sh.hi)
                continue;
            for (int q = kw - 1; q >= 0; q--, nt++) {
                tsrc[nt] = st.src + (size_t)(oh % nslot) * sl + k->lpad;
                tk[nt] = q;
            }
        }
        float *d = dx + ih * dxh;
        if (dxw == 1) {
            k->gatherrow(d, (size_t)W, pw, sw, nt, tsrc, tk, k->alpha, k->beta);
        } else {
            if (k->beta != 0.0)
                for (int iw = 0; iw < W; iw++)
                    tmp[iw] = d[iw * dxw];
            k->gatherrow(tmp, (size_t)W, pw, sw, nt, tsrc, tk, k->alpha, k->beta);
            for (int iw = 0; iw < W; iw++)
                d[iw * dxw] = tmp[iw];
        }
    }
}

/* Average, channel-contiguous images (gather): per task (n, block of dx rows) and per output
 * row, the shares of each output's channels as doubles; each dx position then gathers from
 * the outputs that cover it, output rows oldest first, outputs left to right: the terms of
 * the gatherpix kernel. */
typedef struct {
    int64_t n;
    double *src;             /* nslot rows of OW x C doubles */
} avg_nhwc_state;

static void avg_nhwc_make(const f32_ctx *k, void *vs, int oh)
{
    avg_nhwc_state *st = vs;
    const struct cudnnPoolingStruct *p = k->p;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3], OW = k->dy->dims[3];
    double *src = st->src + (size_t)(oh % k->nslot) * (size_t)OW * (size_t)C;
    hd_pool_span sh = hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0]);
    const float *dy = k->dyp + st->n * k->dy->strides[0] + oh * k->dy->strides[2];
    int64_t dyw = k->dy->strides[3];
    for (int ow = 0; ow < OW; ow++, src += C) {
        hd_pool_span sx = hd_pool_span_of(ow, W, p->window[1], p->pad[1], p->stride[1]);
        double div = (double)(k->incl ? (int64_t)sh.incl * sx.incl : (int64_t)(sh.hi - sh.lo) * (sx.hi - sx.lo));
        const float *g = dy + ow * dyw;
        for (int c = 0; c < C; c++)
            src[c] = (double)g[c] / div;
    }
}

static int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* The outputs [*a, *b] whose padded windows [ow * sw, ow * sw + kw) hold column iw + pw (some
 * may still miss it where the window is clipped at the border: callers check the span). */
static void covering_cols(int iw, int kw, int pw, int sw, int OW, int *a, int *b)
{
    *a = -floor_div(-(iw + pw - kw + 1), sw);
    *b = floor_div(iw + pw, sw);
    if (*a < 0)
        *a = 0;
    if (*b > OW - 1)
        *b = OW - 1;
}

static void avg_nhwc_task(void *vctx, size_t t, int thread)
{
    const f32_ctx *k = vctx;
    const struct cudnnPoolingStruct *p = k->p;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3], OW = k->dy->dims[3];
    int blk = (int)(t % (size_t)k->nblk);
    int r0 = blk * k->rows_per_blk, r1 = r0 + k->rows_per_blk < H ? r0 + k->rows_per_blk : H;
    if (r0 >= r1)
        return;
    int nslot = k->nslot, kw = p->window[1], sw = p->stride[1], pw = p->pad[1];
    avg_nhwc_state st;
    st.n = (int64_t)(t / (size_t)k->nblk);
    st.src = k->scratch + (size_t)thread * k->per_thread;
    const double **tsrc = (const double **)(void *)(st.src + (size_t)nslot * (size_t)OW * (size_t)C);
    float *dx = k->dxp + st.n * k->dx->strides[0];
    int64_t dxh = k->dx->strides[2], dxw = k->dx->strides[3];
    int oh0, oh1;
    out_rows(k, r0, r1, &oh0, &oh1);
    int first = oh0, next = oh0;
    for (int ih = r0; ih < r1; ih++) {
        cover(k, ih, oh1, &first, &next, avg_nhwc_make, &st);
        for (int iw = 0; iw < W; iw++) {
            int ow_a, ow_b;
            covering_cols(iw, kw, pw, sw, OW, &ow_a, &ow_b);
            int nt = 0;
            for (int oh = first; oh < next; oh++) {
                hd_pool_span sh = hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0]);
                if (ih < sh.lo || ih >= sh.hi)
                    continue;
                for (int ow = ow_a; ow <= ow_b; ow++) {
                    hd_pool_span sx = hd_pool_span_of(ow, W, kw, pw, sw);
                    if (iw >= sx.lo && iw < sx.hi)
                        tsrc[nt++] = st.src + ((size_t)(oh % nslot) * (size_t)OW + (size_t)ow) * (size_t)C;
                }
            }
            k->gatherpix(dx + ih * dxh + iw * dxw, (size_t)C, nt, tsrc, k->alpha, k->beta, k->stream);
        }
    }
    if (k->stream)
        k->fence();
}

/* Max, channel-contiguous images (gather): per task (n, block of dx rows) and per output
 * row, the argmax of each output's channels as bytes (argmax8); each dx position then
 * gathers from the outputs that cover it, output rows oldest first, outputs left to right,
 * taking an output's gradient where its argmax is this position's tap (maxgatherrow).  The
 * argmax of an output row is found once per task however many dx rows it covers. */
typedef struct {
    int64_t n;
    int8_t *arg;             /* nslot rows of OW x C taps */
    const float **taps;      /* one window's taps */
} max_gather_state;

static void max_gather_make(const f32_ctx *k, void *vs, int oh)
{
    max_gather_state *st = vs;
    const struct cudnnPoolingStruct *p = k->p;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3], OW = k->dy->dims[3];
    int8_t *arg = st->arg + (size_t)(oh % k->nslot) * (size_t)OW * (size_t)C;
    hd_pool_span sh = hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0]);
    const float *x = k->xp + st->n * k->x->strides[0];
    int64_t xh = k->x->strides[2], xw = k->x->strides[3];
    /* the input rows that the next output row adds, fetched while this row's argmax runs
     * (packed pixels; hints only, so rows past the image are harmless): the hardware
     * prefetcher follows the window's row streams late */
    int sr = p->stride[0], sc = p->stride[1];
    size_t pfbytes = xw == C ? (size_t)sc * (size_t)C * sizeof(float) : 0;
    const char *pf = (const char *)(x + (int64_t)sh.hi * xh);
    for (int ow = 0; ow < OW; ow++) {
        hd_pool_span sx = hd_pool_span_of(ow, W, p->window[1], p->pad[1], p->stride[1]);
        int nt = 0;
        for (int ih = sh.lo; ih < sh.hi; ih++)
            for (int iw = sx.lo; iw < sx.hi; iw++)
                st->taps[nt++] = x + ih * xh + iw * xw;
        for (int r = 0; r < sr && pfbytes; r++)
            for (size_t off = 0; off < pfbytes; off += 64)
                __builtin_prefetch(pf + ((int64_t)r * xh + (int64_t)ow * sc * xw) * (int64_t)sizeof(float) + off, 0, 3);
        k->argmax8(st->taps, nt, (size_t)C, k->prop, arg + (size_t)ow * (size_t)C);
    }
}

static void max_gather_task(void *vctx, size_t t, int thread)
{
    const f32_ctx *k = vctx;
    const struct cudnnPoolingStruct *p = k->p;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3], OW = k->dy->dims[3];
    int blk = (int)(t % (size_t)k->nblk);
    int r0 = blk * k->rows_per_blk, r1 = r0 + k->rows_per_blk < H ? r0 + k->rows_per_blk : H;
    if (r0 >= r1)
        return;
    int nslot = k->nslot, ncol = k->ncol, kw = p->window[1], sw = p->stride[1], pw = p->pad[1];
    max_gather_state st;
    st.n = (int64_t)(t / (size_t)k->nblk);
    double *base = k->scratch + (size_t)thread * k->per_thread;
    st.taps = (const float **)(void *)base;
    /* the covering output rows of one dx row: argmax rows, gradient rows, window rows */
    const int8_t **rarg = (const int8_t **)(void *)(st.taps + (size_t)p->window[0] * (size_t)kw);
    const float **rg = (const float **)(void *)(rarg + nslot);
    int32_t *rty = (int32_t *)(void *)(rg + nslot);
    /* per input column, its covering outputs: (ow, column within the window, window width) */
    int32_t *col = rty + ((size_t)nslot + 1) / 2 * 2;
    int32_t *ncov = col + (size_t)W * (size_t)ncol * 3;
    st.arg = (int8_t *)(void *)(ncov + ((size_t)W + 1) / 2 * 2);
    for (int iw = 0; iw < W; iw++) {
        int ow_a, ow_b, m = 0;
        covering_cols(iw, kw, pw, sw, OW, &ow_a, &ow_b);
        for (int ow = ow_a; ow <= ow_b; ow++) {
            hd_pool_span sx = hd_pool_span_of(ow, W, kw, pw, sw);
            if (iw >= sx.lo && iw < sx.hi) {
                int32_t *e = col + ((size_t)iw * (size_t)ncol + (size_t)m++) * 3;
                e[0] = ow;
                e[1] = iw - sx.lo;
                e[2] = sx.hi - sx.lo;
            }
        }
        ncov[iw] = m;
    }
    const float *dy = k->dyp + st.n * k->dy->strides[0];
    float *dx = k->dxp + st.n * k->dx->strides[0];
    int64_t dyh = k->dy->strides[2], dyw = k->dy->strides[3], dxh = k->dx->strides[2], dxw = k->dx->strides[3];
    size_t rowbytes = (size_t)OW * (size_t)C;
    int oh0, oh1;
    out_rows(k, r0, r1, &oh0, &oh1);
    int first = oh0, next = oh0;
    for (int ih = r0; ih < r1; ih++) {
        cover(k, ih, oh1, &first, &next, max_gather_make, &st);
        int nr = 0;
        for (int oh = first; oh < next; oh++) {
            hd_pool_span sh = hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0]);
            if (ih < sh.lo || ih >= sh.hi)
                continue;
            rarg[nr] = st.arg + (size_t)(oh % nslot) * rowbytes;
            rg[nr] = dy + oh * dyh;
            rty[nr++] = ih - sh.lo;
        }
        k->maxgatherrow(dx + ih * dxh, (ptrdiff_t)dxw, (size_t)W, (size_t)C, nr, rarg, rg, rty, (ptrdiff_t)dyw, col,
                        ncov, ncol, k->alpha, k->beta, k->stream);
    }
    if (k->stream)
        k->fence();
}

/* Average whose windows tile the input, alpha 1, beta 0: one task per (plane or image, block
 * of output rows); each output row's shares in float (share kernel), then each of its sh dx
 * rows takes them, each repeated sw times (broadcast kernel). */
static void tile_task(void *vctx, size_t t, int thread)
{
    const f32_ctx *k = vctx;
    const struct cudnnPoolingStruct *p = k->p;
    int C = k->x->dims[1], OH = k->dy->dims[2], OW = k->dy->dims[3];
    int blk = (int)(t % (size_t)k->nblk);
    size_t u = t / (size_t)k->nblk;
    int o0 = blk * k->rows_per_blk, o1 = o0 + k->rows_per_blk < OH ? o0 + k->rows_per_blk : OH;
    int sh = p->stride[0], sw = p->stride[1];
    float *v = (float *)(void *)(k->scratch + (size_t)thread * k->per_thread);
    float div = (float)(p->window[0] * p->window[1]);
    const float *dy;
    float *dx;
    size_t c = 1;
    if (k->nhwc) {
        dy = k->dyp + (int64_t)u * k->dy->strides[0];
        dx = k->dxp + (int64_t)u * k->dx->strides[0];
        c = (size_t)C;
    } else {
        int n = (int)(u / (size_t)C), ch = (int)(u % (size_t)C);
        dy = k->dyp + hd_view_nc(k->dy, n, ch);
        dx = k->dxp + hd_view_nc(k->dx, n, ch);
    }
    int64_t dyh = k->dy->strides[2], dxh = k->dx->strides[2];
    for (int oh = o0; oh < o1; oh++) {
        k->share(v, dy + oh * dyh, (size_t)OW * c, div);
        for (int q = 0; q < sh; q++)
            k->broadcast(dx + ((int64_t)oh * sh + q) * dxh, v, (size_t)OW, (size_t)sw, c, k->stream);
    }
    if (k->stream)
        k->fence();
}

/* Average pooling whose one window holds the whole plane (global pooling): every input of
 * a plane gets the one share g / divisor, so dx = alpha * share + beta * dx, written in the
 * order of the layout (channels innermost when they are contiguous).  One task per image;
 * with beta 0 and packed planes (or packed pixels) the float shares are broadcast over the
 * image, streamed. */
static void global_avg_task(void *vctx, size_t t, int thread)
{
    const f32_ctx *k = vctx;
    const struct cudnnPoolingStruct *p = k->p;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3];
    int64_t n = (int64_t)t;
    double *share = k->scratch + (size_t)thread * k->per_thread;
    hd_pool_span sh = hd_pool_span_of(0, H, p->window[0], p->pad[0], p->stride[0]);
    hd_pool_span sw = hd_pool_span_of(0, W, p->window[1], p->pad[1], p->stride[1]);
    double div = (double)(k->incl ? (int64_t)sh.incl * sw.incl : (int64_t)H * W);
    for (int c = 0; c < C; c++)
        share[c] = k->alpha * (0.0 + (double)k->dyp[hd_view_nc(k->dy, n, c)] / div);   /* the sum's +0.0 start */
    float *dx = k->dxp + n * k->dx->strides[0];
    int64_t dc = k->dx->strides[1], dh = k->dx->strides[2], dw = k->dx->strides[3];
    if (k->beta == 0.0 && ((dw == 1 && dh == W && dc == (int64_t)H * W) || (dc == 1 && dw == C && dh == (int64_t)W * C))) {
        float *v = (float *)(void *)(share + C);
        for (int c = 0; c < C; c++)
            v[c] = (float)share[c];
        if (dw == 1)
            k->broadcast(dx, v, (size_t)C, (size_t)H * (size_t)W, 1, 1);
        else
            k->broadcast(dx, v, 1, (size_t)H * (size_t)W, (size_t)C, 1);
        k->fence();
        return;
    }
    if (dc == 1 && C > 1) {                    /* channels innermost */
        for (int h = 0; h < H; h++)
            for (int w = 0; w < W; w++) {
                float *d = dx + h * dh + w * dw;
                if (k->beta == 0.0)
                    for (int c = 0; c < C; c++)
                        d[c] = (float)share[c];
                else
                    for (int c = 0; c < C; c++)
                        d[c] = (float)(share[c] + k->beta * (double)d[c]);
            }
        return;
    }
    for (int c = 0; c < C; c++)
        for (int h = 0; h < H; h++) {
            float *d = dx + c * dc + h * dh;
            float v = (float)share[c];
            for (int w = 0; w < W; w++) {
                if (k->beta == 0.0)
                    d[w * dw] = v;
                else
                    d[w * dw] = (float)(share[c] + k->beta * (double)d[w * dw]);
            }
        }
}

/* Blocks of rows (H of them) per plane (or image): one unless there are fewer planes than
 * twice the threads, so that every thread has work at batch 1 too. */
static void pick_blocks(f32_ctx *k, size_t units, int nt, int H)
{
    int nblk = 1;
    if (units < 2 * (size_t)nt) {
        size_t want = (2 * (size_t)nt + units - 1) / units;
        nblk = want < (size_t)H ? (int)want : H;
    }
    k->rows_per_blk = (H + nblk - 1) / nblk;
    k->nblk = (H + k->rows_per_blk - 1) / k->rows_per_blk;
}

cudnnStatus_t hd_pool_bwd_f32_2d(cudnnHandle_t handle, const struct cudnnPoolingStruct *p, const hd_view *dy,
                                 const hd_view *x, const hd_view *dx, const float *dyp, const float *xp, float *dxp,
                                 double alpha, double beta, int *done)
{
    *done = 1;
    f32_ctx k;
    memset(&k, 0, sizeof k);
    k.p = p;
    k.dy = dy;
    k.x = x;
    k.dx = dx;
    k.dyp = dyp;
    k.xp = xp;
    k.dxp = dxp;
    k.alpha = alpha;
    k.beta = beta;
    k.maxm = p->mode == CUDNN_POOLING_MAX || p->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
    k.prop = p->nan_opt == CUDNN_PROPAGATE_NAN;
    k.incl = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    int N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], OH = dy->dims[2], OW = dy->dims[3];
    int kh = p->window[0], kw = p->window[1], sh = p->stride[0], sw = p->stride[1], pw = p->pad[1];
    k.kh = kh < H ? kh : H;
    k.nslot = (kh + sh - 1) / sh;
    int nhwc = x->strides[1] == 1 && dy->strides[1] == 1 && C > 1;
    k.nhwc = nhwc;
    cudnnStatus_t fused;
    if (k.maxm && hd_pool_bwd_f32_max3s2(handle, p, dy, x, dx, dyp, xp, dxp, alpha, beta, &fused))
        return fused;
    /* beta 0 and long rows (channel-contiguous ones of at least 4 KiB): dx is only written,
     * so its rows are streamed past the cache.  Short rows (NCHW's 112 floats and the like)
     * measured faster with plain stores: the streamed part of a row is then only a few lines
     * between plainly stored partial ones. */
    int long_rows = beta == 0.0 && nhwc && (int64_t)W * C >= 1024;
    k.flush = long_rows ? hd_f32_pool_flush_stream_select(handle->isa) : hd_f32_pool_flush_select(handle->isa);
    k.stream = long_rows && x->strides[3] == C && C % 16 == 0;
    k.fence = hd_f32_pool_stream_fence_select(handle->isa);
    k.share = hd_f32_pool_share_select(handle->isa);
    k.broadcast = hd_f32_pool_broadcast_select(handle->isa);
    int nt = handle->num_threads;
    size_t units = nhwc ? (size_t)N : (size_t)N * (size_t)C;
    void (*task)(void *, size_t, int);
    hd_pool_span gh = hd_pool_span_of(0, H, kh, p->pad[0], sh);
    hd_pool_span gw = hd_pool_span_of(0, W, kw, pw, sw);
    if (!k.maxm && OH == 1 && OW == 1 && gh.lo == 0 && gh.hi == H && gw.lo == 0 && gw.hi == W) {
        /* global: the share of each channel (doubles), then as floats */
        k.per_thread = (size_t)C + ((size_t)C + 1) / 2;
        k.nblk = 1;
        units = (size_t)N;
        task = global_avg_task;
    } else if (!k.maxm && kh == sh && kw == sw && p->pad[0] == 0 && pw == 0 && H == OH * sh && W == OW * sw &&
               (int64_t)kh * kw < (1 << 24) && alpha == 1.0 && beta == 0.0 &&
               dy->strides[3] == (nhwc ? C : 1) && dx->strides[3] == (nhwc ? C : 1)) {
        /* windows that tile the input: one output row of float shares */
        k.per_thread = ((size_t)OW * (nhwc ? (size_t)C : 1) + 1) / 2;
        pick_blocks(&k, units, nt, OH);
        task = tile_task;
    } else if (k.maxm && nhwc && (int64_t)k.kh * (kw < W ? kw : W) <= 127 &&
               (int64_t)k.nslot * ((kw + sw - 1) / sw) <= 128 &&
               (k.argmax8 = hd_f32_pool_argmax8_select(handle->isa)) != NULL) {
        /* the taps fit a byte: the window's taps; per covering output row an argmax row
         * pointer, a gradient row pointer and a window row; the column table (three int32 per
         * covering output and a count per column); nslot rows of argmax bytes */
        k.maxgatherrow = hd_f32_pool_maxgatherrow_select(handle->isa);
        k.ncol = (kw + sw - 1) / sw;
        size_t bytes = (size_t)kh * (size_t)kw * sizeof(void *) + 2 * (size_t)k.nslot * sizeof(void *) +
                       ((size_t)k.nslot + 1) / 2 * 2 * sizeof(int32_t) +
                       ((size_t)W * (size_t)k.ncol * 3 + ((size_t)W + 1) / 2 * 2) * sizeof(int32_t) +
                       (size_t)k.nslot * (size_t)OW * (size_t)C;
        k.per_thread = (bytes + sizeof(double) - 1) / sizeof(double) + 8;
        pick_blocks(&k, units, nt, H);
        task = max_gather_task;
    } else if (k.maxm && nhwc) {
        /* the ring of window rows, the window's taps and offsets (8 bytes each), the argmax
         * of each channel */
        size_t kwc = (size_t)(kw < W ? kw : W);
        k.per_thread = (size_t)k.kh * (size_t)W * (size_t)C + 2 * (size_t)k.kh * kwc + (size_t)C + 8;
        k.argmax = hd_f32_pool_argmax_select(handle->isa);
        pick_blocks(&k, units, nt, H);
        task = max_nhwc_task;
    } else if (k.maxm) {
        /* padded rows: every window position of every output, and every real input */
        int64_t need = (int64_t)(OW - 1) * sw + kw;
        if (need < (int64_t)pw + W)
            need = (int64_t)pw + W;
        k.aw = (need + HD_POOL_BWD_ROW_SLACK + 15) / 16 * 16;     /* the kernel's slack */
        if ((int64_t)k.kh * k.aw > INT32_MAX || pw < 0) {
            /* ring offsets are int32, and the padded rows start at column -pad: the generic
             * path takes such calls */
            *done = 0;
            return CUDNN_STATUS_SUCCESS;
        }
        /* the double ring, the float ring, the argmax (int32), the row pointers of a window,
         * the ring offset of each tap (aw is even, so each piece stays 8-byte aligned) */
        k.per_thread = (size_t)k.kh * (size_t)k.aw + (size_t)k.kh * (size_t)k.aw / 2 + (size_t)OW +
                       (size_t)k.kh + (size_t)k.kh * (size_t)kw + 8;
        k.rowargmax = hd_f32_pool_rowargmax_select(handle->isa);
        pick_blocks(&k, units, nt, H);
        task = max_plane_task;
    } else if (nhwc) {
        /* nslot output rows of shares (OW x C doubles), the terms' pointers */
        size_t nterm = (size_t)k.nslot * (size_t)((kw + sw - 1) / sw + 1);
        k.per_thread = (size_t)k.nslot * (size_t)OW * (size_t)C + nterm + 8;
        k.gatherpix = hd_f32_pool_gatherpix_select(handle->isa);
        pick_blocks(&k, units, nt, H);
        task = avg_nhwc_task;
    } else {
        if (pw < 0) {
            *done = 0;               /* the shares' padding starts at column -pad */
            return CUDNN_STATUS_SUCCESS;
        }
        /* share rows padded for the gatherrow kernel: kw + 1 before output 0, and up to
         * (W + pw + 16) / sw + 16 after it (at least OW) */
        int64_t right = (int64_t)(W + pw + 16) / sw + 17;
        if (right < OW)
            right = OW;
        k.lpad = (size_t)kw + 1;
        k.sl = k.lpad + (size_t)right + 1;
        /* nslot share rows, the horizontal factors, a dx row (floats), the terms (a pointer
         * and an int32 each) */
        size_t nterm = (size_t)k.nslot * (size_t)kw;
        k.per_thread = (size_t)k.nslot * k.sl + (size_t)OW + ((size_t)W + 1) / 2 + nterm + (nterm + 1) / 2 + 8;
        k.gatherrow = hd_f32_pool_gatherrow_select(handle->isa);
        pick_blocks(&k, units, nt, H);
        task = avg_plane_task;
    }
    size_t bytes;
    if (hd_mul_size(k.per_thread * sizeof(double), (size_t)nt, &bytes) != 0)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "scratch size overflows");
    k.scratch = hd_handle_scratch(handle, bytes);
    if (!k.scratch)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for %zu bytes of scratch", bytes);
    hd_parallel_for(units * (size_t)k.nblk, nt, task, &k);
    return CUDNN_STATUS_SUCCESS;
}
