/*
 * Max pooling backward for FLOAT 2-d row-contiguous planes (NCHW and the like), the two tasks
 * of pooling_bwd_f32.c's max path on planes.  Both give each dx value the double sum of its
 * gradients in output order (oh, then ow), written once as (float)(alpha * sum + beta * dx),
 * so they give the same bits, whatever the row blocks and the thread count.
 *  - scatter: per output row its argmax, then each output's gradient added into a ring of
 *    padded double rows; a row is flushed to dx once no later output row reaches it.
 *  - gather: per output row its argmax once (the rowargmax kernel, the tap kept as its index
 *    in the window), then each dx row sums in registers the gradients of the covering outputs
 *    whose argmax it is (the maxgatherplane kernel): no double rows, no flush pass.
 */
#include "core/elem.h"
#include "ops/infer/pooling.h"
#include "ops/train/pooling_bwd_f32.h"

#include <math.h>
#include <string.h>

/* Max pooling, row-contiguous planes: one task per (n, c, row block).  x rows are copied once
 * into a ring of padded float rows (padding -inf), the argmax of a whole output row comes from
 * the rowargmax kernel, and its scatter adds in ow order into a ring of padded double rows. */
void hd_pool_bwd_max_plane_task(void *vctx, size_t t, int thread)
{
    const hd_pool_bwd_ctx *k = vctx;
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
    hd_pool_bwd_out_rows(k, r0, r1, &oh0, &oh1);
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
typedef struct {
    int n, c;
    int loaded;              /* x rows below this one are in the ring */
    size_t argw;             /* argmax row length (OW rounded up) */
    float *prow;             /* kh padded x rows of aw floats (padding -inf) */
    int32_t *arg;            /* nslot argmax rows */
    const float **rows;      /* the window rows of the output row being made */
    int32_t *tab;            /* tab[t] = t: the argmax keeps the window tap */
} plane_gather_state;

/* Output row oh's argmax: its x rows into the ring (those not there yet), then rowargmax. */
static void plane_gather_make(const hd_pool_bwd_ctx *k, void *vs, int oh)
{
    plane_gather_state *st = vs;
    const struct cudnnPoolingStruct *p = k->p;
    int H = k->x->dims[2], W = k->x->dims[3], OW = k->dy->dims[3], kh = k->kh, pw = p->pad[1];
    hd_pool_span sh = hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0]);
    if (sh.hi <= sh.lo)
        return;                     /* no real rows: no dx row counts this output as covering it */
    const float *x = k->xp + hd_view_nc(k->x, st->n, st->c);
    int64_t xh = k->x->strides[2], xw = k->x->strides[3];
    if (st->loaded < sh.lo)
        st->loaded = sh.lo;
    for (; st->loaded < sh.hi; st->loaded++) {
        float *q = st->prow + (size_t)(st->loaded % kh) * (size_t)k->aw;
        const float *xr = x + st->loaded * xh;
        if (xw == 1)
            memcpy(q + pw, xr, sizeof(float) * (size_t)W);
        else
            for (int iw = 0; iw < W; iw++)
                q[pw + iw] = xr[iw * xw];
    }
    int nr = sh.hi - sh.lo;
    for (int r = 0; r < nr; r++)
        st->rows[r] = st->prow + (size_t)((sh.lo + r) % kh) * (size_t)k->aw;
    k->rowargmax(st->rows, nr, (size_t)OW, p->window[1], p->stride[1], st->tab, k->prop,
                 st->arg + (size_t)(oh % k->nslot) * st->argw);
}

void hd_pool_bwd_max_plane_gather_task(void *vctx, size_t t, int thread)
{
    const hd_pool_bwd_ctx *k = vctx;
    const struct cudnnPoolingStruct *p = k->p;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3], OW = k->dy->dims[3];
    int blk = (int)(t % (size_t)k->nblk);
    size_t nc = t / (size_t)k->nblk;
    int r0 = blk * k->rows_per_blk, r1 = r0 + k->rows_per_blk < H ? r0 + k->rows_per_blk : H;
    if (r0 >= r1)
        return;
    int kh = k->kh, kw = p->window[1], sw = p->stride[1], pw = p->pad[1], nslot = k->nslot;
    int64_t aw = k->aw;
    plane_gather_state st;
    st.n = (int)(nc / (size_t)C);
    st.c = (int)(nc % (size_t)C);
    st.loaded = -1;
    st.argw = ((size_t)OW + 15) / 16 * 16;
    /* the x rows and the argmax rows (both whole 64-byte multiples), then the pointers and
     * the int32 tables */
    st.prow = (float *)(void *)(k->scratch + (size_t)thread * k->per_thread);
    st.arg = (int32_t *)(void *)(st.prow + (size_t)kh * (size_t)aw);
    st.rows = (const float **)(void *)(st.arg + (size_t)nslot * st.argw);
    const int32_t **rarg = (const int32_t **)(void *)(st.rows + kh);
    const float **rg = (const float **)(void *)(rarg + nslot);
    st.tab = (int32_t *)(void *)(rg + nslot);
    int32_t *rty = st.tab + (size_t)kh * (size_t)kw;
    for (int i = 0; i < kh * kw; i++)
        st.tab[i] = i;
    for (int r = 0; r < kh; r++) {      /* the padding of the x rows: -inf, set once, never overwritten */
        float *q = st.prow + (size_t)r * (size_t)aw;
        for (int i = 0; i < pw; i++)
            q[i] = -INFINITY;
        for (int64_t i = pw + W; i < aw; i++)
            q[i] = -INFINITY;
    }
    const float *dy = k->dyp + hd_view_nc(k->dy, st.n, st.c);
    float *dx = k->dxp + hd_view_nc(k->dx, st.n, st.c);
    int64_t dyh = k->dy->strides[2], dxh = k->dx->strides[2];
    int oh0, oh1;
    hd_pool_bwd_out_rows(k, r0, r1, &oh0, &oh1);
    int first = oh0, next = oh0;
    for (int ih = r0; ih < r1; ih++) {
        hd_pool_bwd_cover(k, ih, oh1, &first, &next, plane_gather_make, &st);
        int nr = 0;
        for (int oh = first; oh < next; oh++) {
            hd_pool_span sh = hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0]);
            if (ih < sh.lo || ih >= sh.hi)
                continue;
            rarg[nr] = st.arg + (size_t)(oh % nslot) * st.argw;
            rg[nr] = dy + oh * dyh;
            rty[nr++] = ih - sh.lo;
        }
        k->maxgatherplane(dx + ih * dxh, (size_t)W, pw, sw, kw, (size_t)OW, nr, rarg, rg, rty, k->alpha, k->beta);
    }
}
