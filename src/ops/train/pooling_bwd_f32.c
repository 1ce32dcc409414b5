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
 * its block: it walks every output row whose window meets the block (windows reach into the
 * neighbouring blocks, whose x rows it reads to find the argmax again), keeps only the
 * contributions that land in its own rows, and adds them to a ring of double rows in output
 * order.  A row leaves the ring for dx as soon as no later output row can reach it (window
 * starts never move up).  So every dx value gets the same sum in the same order whatever the
 * blocks and the thread count: results are bitwise independent of both.
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
    int maxm, prop, incl;
    int kh;                  /* ring rows: the window height, at most H */
    int nblk, rows_per_blk;  /* input row blocks per plane (or image) */
    int64_t aw;              /* ring row length (padded input row, planes path) */
    size_t per_thread;       /* doubles of scratch per thread */
    double *scratch;
    hd_f32_pool_rowargmax_fn rowargmax;
    hd_f32_pool_argmax_fn argmax;
    hd_f32_pool_flush_fn flush;
    hd_f32_pool_fence_fn fence;      /* after a task's last flush (streaming stores) */
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

/* Row-contiguous planes: one task per (n, c, row block).  x rows are copied once into a ring
 * of padded float rows (padding -inf), the argmax of a whole output row comes from the
 * rowargmax kernel, and its scatter adds in ow order into a ring of padded double rows. */
static void plane_task(void *vctx, size_t t, int thread)
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
    double *share = (double *)(void *)(prow + (size_t)kh * (size_t)aw);
    int32_t *arg = (int32_t *)(void *)(share + OW);
    const float **rows = (const float **)(void *)(share + 2 * (size_t)OW);
    int32_t *tab = (int32_t *)(void *)(rows + kh);
    memset(acc, 0, sizeof(double) * (size_t)kh * (size_t)aw);
    if (k->maxm)          /* the padding of the x rows: -inf, set once, never overwritten */
        for (int r = 0; r < kh; r++) {
            float *q = prow + (size_t)r * (size_t)aw;
            for (int i = 0; i < pw; i++)
                q[i] = -INFINITY;
            for (int64_t i = pw + W; i < aw; i++)
                q[i] = -INFINITY;
        }
    double *hf = share + OW;          /* average: the divisor's horizontal factor per ow */
    if (!k->maxm)
        for (int ow = 0; ow < OW; ow++) {
            hd_pool_span sx = hd_pool_span_of(ow, W, kw, pw, sw);
            hf[ow] = k->incl ? sx.incl : sx.hi - sx.lo;
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
            if (dxw == 1) {                 /* the flush zeroes the row's real part */
                k->flush(d, a + pw, (size_t)W, k->alpha, k->beta);
                memset(a, 0, sizeof(double) * (size_t)pw);
                memset(a + pw + W, 0, sizeof(double) * (size_t)(aw - pw - W));
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
        if (k->maxm) {
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
        } else {
            /* the divisor's two factors are small integers: their double product is exact,
             * the integer divisor itself; a window with no real column gets an infinite or
             * NaN share that only padding positions receive */
            double vf = k->incl ? sh.incl : sh.hi - sh.lo;
            for (int ow = 0; ow < OW; ow++)
                share[ow] = (double)g[ow * dyw] / (vf * hf[ow]);
            int lo = sh.lo > r0 ? sh.lo : r0, hi = sh.hi < r1 ? sh.hi : r1;
            for (int ih = lo; ih < hi; ih++) {
                double *a = acc + (size_t)(ih % kh) * (size_t)aw;
                /* taps right to left: an input that two outputs of this row share gets the
                 * smaller ow first, as in output order (what lands in padding positions is
                 * dropped by the flush) */
                for (int tk = kw - 1; tk >= 0; tk--)
                    for (int ow = 0; ow < OW; ow++)
                        a[(int64_t)ow * sw + tk] += share[ow];
            }
        }
    }
    k->fence();
}

/* Channel-contiguous images: one task per (n, row block).  Outputs are taken in order (oh,
 * then ow), each adding to its window's rows of this block in a ring of W x C doubles,
 * channels innermost; the argmax per channel over the window comes from the argmax kernel. */
static void nhwc_task(void *vctx, size_t t, int thread)
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
    /* after the ring: the window's tap pointers and ring offsets, the argmax or the share of
     * each channel */
    const float **taps = (const float **)(void *)(ring + (size_t)kh * (size_t)rowlen);
    int64_t *at = (int64_t *)(void *)(taps + (size_t)kh * (size_t)kw);
    double *share = (double *)(void *)(at + (size_t)kh * (size_t)kw);
    int32_t *arg = (int32_t *)(void *)share;
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
        int lo = sh.lo > r0 ? sh.lo : r0, hi = sh.hi < r1 ? sh.hi : r1;
        for (int ow = 0; ow < OW; ow++) {
            hd_pool_span sw = hd_pool_span_of(ow, W, p->window[1], p->pad[1], p->stride[1]);
            int64_t cnt = (int64_t)(sh.hi - sh.lo) * (sw.hi - sw.lo);
            if (cnt == 0)
                continue;
            const float *g = dy + oh * dyh + ow * dyw;
            if (!k->maxm) {
                double div = (double)(k->incl ? (int64_t)sh.incl * sw.incl : cnt);
                for (int c = 0; c < C; c++)
                    share[c] = (double)g[c] / div;
                for (int ih = lo; ih < hi; ih++) {
                    double *a = ring + (size_t)(ih % kh) * (size_t)rowlen;
                    for (int iw = sw.lo; iw < sw.hi; iw++) {
                        double *ai = a + (int64_t)iw * C;
                        for (int c = 0; c < C; c++)
                            ai[c] += share[c];
                    }
                }
                continue;
            }
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

/* Average pooling whose one window holds the whole plane (global pooling): every input of
 * a plane gets the one share g / divisor, so dx = alpha * share + beta * dx, written in the
 * order of the layout (channels innermost when they are contiguous).  One task per image. */
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
        share[c] = k->alpha * ((double)k->dyp[hd_view_nc(k->dy, n, c)] / div);
    float *dx = k->dxp + n * k->dx->strides[0];
    int64_t dc = k->dx->strides[1], dh = k->dx->strides[2], dw = k->dx->strides[3];
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

/* Row blocks per plane (or image): one unless there are fewer planes than twice the
 * threads, so that every thread has work at batch 1 too. */
static void pick_blocks(f32_ctx *k, size_t units, int nt)
{
    int H = k->x->dims[2];
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
    int N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], OW = dy->dims[3];
    k.kh = p->window[0] < H ? p->window[0] : H;
    int nhwc = x->strides[1] == 1 && dy->strides[1] == 1 && C > 1;
    /* beta 0 and long rows (channel-contiguous ones of at least 4 KiB): dx is only written,
     * so its rows are streamed past the cache.  Short rows (NCHW's 112 floats and the like)
     * measured faster with plain stores: the streamed part of a row is then only a few lines
     * between plainly stored partial ones. */
    k.flush = beta == 0.0 && nhwc && (int64_t)W * C >= 1024 ? hd_f32_pool_flush_stream_select(handle->isa)
                                                            : hd_f32_pool_flush_select(handle->isa);
    k.fence = hd_f32_pool_stream_fence_select(handle->isa);
    int nt = handle->num_threads;
    size_t units = nhwc ? (size_t)N : (size_t)N * (size_t)C;
    if (nhwc) {
        /* the ring of window rows, the window's taps and offsets (8 bytes each), the argmax
         * or the share of each channel (8 bytes each) */
        size_t kw = (size_t)(p->window[1] < W ? p->window[1] : W);
        k.per_thread = (size_t)k.kh * (size_t)W * (size_t)C + 2 * (size_t)k.kh * kw + (size_t)C + 8;
        k.argmax = hd_f32_pool_argmax_select(handle->isa);
    } else {
        /* padded rows: every window position of every output, and every real input */
        int64_t need = (int64_t)(OW - 1) * p->stride[1] + p->window[1];
        if (need < (int64_t)p->pad[1] + W)
            need = (int64_t)p->pad[1] + W;
        k.aw = (need + (k.maxm ? HD_POOL_BWD_ROW_SLACK : 0) + 15) / 16 * 16;   /* max: the kernel's slack */
        if ((int64_t)k.kh * k.aw > INT32_MAX || p->pad[1] < 0) {
            /* ring offsets are int32, and the padded rows start at column -pad: the generic
             * path takes such calls */
            *done = 0;
            return CUDNN_STATUS_SUCCESS;
        }
        /* the double ring, the float ring, the share (doubles), the argmax (int32), the row
         * pointers of a window, the ring offset of each tap (aw is even, so each piece stays
         * 8-byte aligned) */
        k.per_thread = (size_t)k.kh * (size_t)k.aw + (size_t)k.kh * (size_t)k.aw / 2 + 2 * (size_t)OW +
                       (size_t)k.kh + (size_t)k.kh * (size_t)p->window[1] + 8;
        k.rowargmax = hd_f32_pool_rowargmax_select(handle->isa);
    }
    hd_pool_span gh = hd_pool_span_of(0, H, p->window[0], p->pad[0], p->stride[0]);
    hd_pool_span gw = hd_pool_span_of(0, W, p->window[1], p->pad[1], p->stride[1]);
    if (!k.maxm && dy->dims[2] == 1 && OW == 1 && gh.lo == 0 && gh.hi == H && gw.lo == 0 && gw.hi == W) {
        k.per_thread = (size_t)C;         /* the share of each channel */
        size_t gbytes;
        if (hd_mul_size(k.per_thread * sizeof(double), (size_t)nt, &gbytes) != 0)
            return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "scratch size overflows");
        k.scratch = hd_handle_scratch(handle, gbytes);
        if (!k.scratch)
            return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for %zu bytes of scratch", gbytes);
        hd_parallel_for((size_t)N, nt, global_avg_task, &k);
        return CUDNN_STATUS_SUCCESS;
    }
    pick_blocks(&k, units, nt);
    size_t bytes;
    if (hd_mul_size(k.per_thread * sizeof(double), (size_t)nt, &bytes) != 0)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "scratch size overflows");
    k.scratch = hd_handle_scratch(handle, bytes);
    if (!k.scratch)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for %zu bytes of scratch", bytes);
    hd_parallel_for(units * (size_t)k.nblk, nt, nhwc ? nhwc_task : plane_task, &k);
    return CUDNN_STATUS_SUCCESS;
}
