/* Multi-head attention backward data / weights against central finite differences of the
 * forward pass (double), FLOAT against DOUBLE, bad input. */
#include <cudnn.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "rnn_test_util.h"
#include "attn_net.h"

static cudnnHandle_t h;

typedef struct {
    int heads, qs, ks, vs, qp, kp, vp, op;
    unsigned mode;
    int QT, KT, B, QB;
} bcase;

static void net_init(net *n, const bcase *c, cudnnDataType_t dt, unsigned seed)
{
    memset(n, 0, sizeof *n);
    n->dt = dt;
    n->es = dt == CUDNN_DATA_DOUBLE ? 8 : 4;
    CHECK_OK(cudnnCreateAttnDescriptor(&n->a));
    CHECK_OK(cudnnSetAttnDescriptor(n->a, c->mode, c->heads, 0.8, dt, dt, CUDNN_DEFAULT_MATH, NULL, NULL, c->qs, c->ks,
                                    c->vs, c->qp, c->kp, c->vp, c->op, c->QT, c->KT, c->B, c->QB));
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(h, n->a, &n->wsize, &n->wks, &n->rss));
    int dv = c->vp ? c->vp : c->vs;
    n->dout = c->op ? c->op : c->heads * dv;
    n->KB = (c->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) ? c->QB : 1;
    cudnnSeqDataAxis_t ax[4] = { CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BEAM_DIM,
                                 CUDNN_SEQDATA_VECT_DIM };
    int qdim[4], kdim[4], vdim[4], odim[4];
    qdim[CUDNN_SEQDATA_TIME_DIM] = c->QT; qdim[CUDNN_SEQDATA_BATCH_DIM] = c->B; qdim[CUDNN_SEQDATA_BEAM_DIM] = c->QB;
    memcpy(kdim, qdim, sizeof kdim); memcpy(odim, qdim, sizeof odim);
    kdim[CUDNN_SEQDATA_TIME_DIM] = c->KT; kdim[CUDNN_SEQDATA_BEAM_DIM] = n->KB;
    memcpy(vdim, kdim, sizeof vdim);
    qdim[3] = c->qs; kdim[3] = c->ks; vdim[3] = c->vs; odim[3] = n->dout;
    for (int i = 0; i < c->B * c->QB; i++) n->qlen[i] = c->QT - i % 2;
    for (int i = 0; i < c->B * n->KB; i++) n->klen[i] = c->KT - (i % 2) * 2;
    for (int t = 0; t < c->QT; t++) { n->lo[t] = t == 2 ? 1 : 0; n->hi[t] = t == 1 ? 2 : c->KT; }
    CHECK_OK(cudnnCreateSeqDataDescriptor(&n->qd)); CHECK_OK(cudnnCreateSeqDataDescriptor(&n->kd));
    CHECK_OK(cudnnCreateSeqDataDescriptor(&n->vd)); CHECK_OK(cudnnCreateSeqDataDescriptor(&n->od));
    CHECK_OK(cudnnSetSeqDataDescriptor(n->qd, dt, 4, qdim, ax, (size_t)c->B * c->QB, n->qlen, NULL));
    CHECK_OK(cudnnSetSeqDataDescriptor(n->kd, dt, 4, kdim, ax, (size_t)c->B * n->KB, n->klen, NULL));
    CHECK_OK(cudnnSetSeqDataDescriptor(n->vd, dt, 4, vdim, ax, (size_t)c->B * n->KB, n->klen, NULL));
    CHECK_OK(cudnnSetSeqDataDescriptor(n->od, dt, 4, odim, ax, (size_t)c->B * c->QB, n->qlen, NULL));
    n->nq = (size_t)c->QT * c->B * c->QB * c->qs; n->nk = (size_t)c->KT * c->B * n->KB * c->ks;
    n->nv = (size_t)c->KT * c->B * n->KB * c->vs; n->no = (size_t)c->QT * c->B * c->QB * n->dout;
    n->w = malloc(n->wsize ? n->wsize : 1); n->q = malloc(n->nq * n->es); n->k = malloc(n->nk * n->es);
    n->v = malloc(n->nv * n->es); n->o = malloc(n->no * n->es); n->ws = malloc(n->wks ? n->wks : 1);
    n->rs = malloc(n->rss);
    for (size_t i = 0; i < n->wsize / n->es; i++) put(n, n->w, i, rtu_rand(&seed, 0.7));
    for (size_t i = 0; i < n->nq; i++) put(n, n->q, i, rtu_rand(&seed, 1.0));
    for (size_t i = 0; i < n->nk; i++) put(n, n->k, i, rtu_rand(&seed, 1.0));
    for (size_t i = 0; i < n->nv; i++) put(n, n->v, i, rtu_rand(&seed, 1.0));
}

static double loss(net *n, const double *gout)
{
    memset(n->o, 0, n->no * n->es);
    CHECK_OK(cudnnMultiHeadAttnForward(h, n->a, -1, n->lo, n->hi, n->qlen, n->klen, n->qd, n->q, NULL, n->kd, n->k,
                                       n->vd, n->v, n->od, n->o, n->wsize, n->w, n->wks, n->ws, n->rss, n->rs));
    double s = 0;
    for (size_t i = 0; i < n->no; i++) s += get(n, n->o, i) * gout[i];
    return s;
}

typedef struct { double *dq, *dk, *dv, *dw; } grads;

static void backward(net *n, const double *gout, grads *g)
{
    void *go = malloc(n->no * n->es), *dq = calloc(n->nq, n->es), *dk = calloc(n->nk, n->es), *dv = calloc(n->nv, n->es);
    void *dw = calloc(n->wsize ? n->wsize : 1, 1);
    for (size_t i = 0; i < n->no; i++) put(n, go, i, gout[i]);
    loss(n, gout);   /* forward in training mode (reserve given) */
    CHECK_OK(cudnnMultiHeadAttnBackwardData(h, n->a, n->lo, n->hi, n->qlen, n->klen, n->od, go, n->qd, dq, n->q, n->kd,
                                            dk, n->k, n->vd, dv, n->v, n->wsize, n->w, n->wks, n->ws, n->rss, n->rs));
    CHECK_OK(cudnnMultiHeadAttnBackwardWeights(h, n->a, CUDNN_WGRAD_MODE_ADD, n->qd, n->q, n->kd, n->k, n->vd, n->v,
                                               n->od, go, n->wsize, n->w, dw, n->wks, n->ws, n->rss, n->rs));
    size_t nw = n->wsize / n->es;
    g->dq = malloc(n->nq * sizeof(double)); g->dk = malloc(n->nk * sizeof(double));
    g->dv = malloc(n->nv * sizeof(double)); g->dw = malloc((nw ? nw : 1) * sizeof(double));
    for (size_t i = 0; i < n->nq; i++) g->dq[i] = get(n, dq, i);
    for (size_t i = 0; i < n->nk; i++) g->dk[i] = get(n, dk, i);
    for (size_t i = 0; i < n->nv; i++) g->dv[i] = get(n, dv, i);
    for (size_t i = 0; i < nw; i++) g->dw[i] = get(n, dw, i);
    free(go); free(dq); free(dk); free(dv); free(dw);
}

static void grads_free(grads *g) { free(g->dq); free(g->dk); free(g->dv); free(g->dw); }

static void check(const bcase *c, unsigned seed)
{
    SECTION("attention gradients vs finite differences");
    net n;
    net_init(&n, c, CUDNN_DATA_DOUBLE, seed);
    unsigned s = seed * 31 + 7;
    double *gout = malloc(n.no * sizeof(double));
    for (size_t i = 0; i < n.no; i++) gout[i] = rtu_rand(&s, 1.0);
    grads g;
    backward(&n, gout, &g);
    double worst = 0;
    int wk = -1;
    size_t wi = 0;
    const size_t nw = n.wsize / n.es;
    for (int kind = 0; kind < 4; kind++) {
        size_t cnt = kind == 0 ? n.nq : kind == 1 ? n.nk : kind == 2 ? n.nv : nw;
        void *buf = kind == 0 ? n.q : kind == 1 ? n.k : kind == 2 ? n.v : n.w;
        const double *an = kind == 0 ? g.dq : kind == 1 ? g.dk : kind == 2 ? g.dv : g.dw;
        int vec = kind == 0 ? c->qs : kind == 1 ? c->ks : c->vs;
        for (size_t i = 0; i < cnt; i++) {
            if (kind < 3) {   /* skip positions beyond the sequence (not computed, left alone) */
                size_t row = i / (size_t)vec;   /* axes: batch, time, beam */
                int T = kind == 0 ? c->QT : c->KT, BM = kind == 0 ? c->QB : n.KB;
                int beam = (int)(row % BM), t = (int)((row / BM) % T), b = (int)(row / BM / T);
                int len = kind == 0 ? n.qlen[b * c->QB + beam] : n.klen[b * n.KB + beam];
                if (t >= len) continue;
            }
            const double eps = 1e-6;
            double v = get(&n, buf, i);
            put(&n, buf, i, v + eps);
            double lp = loss(&n, gout);
            put(&n, buf, i, v - eps);
            double lm = loss(&n, gout);
            put(&n, buf, i, v);
            double num = (lp - lm) / (2 * eps);
            double e = fabs(num - an[i]) / (1.0 > fabs(num) ? 1.0 : fabs(num));
            if (!(e <= worst)) { worst = e; wk = kind; wi = i; }
        }
    }
    CHECK_MSG(worst <= 1e-6, "heads %d proj %d/%d/%d/%d mode %u: worst gradient error %g (kind %d index %zu)", c->heads,
              c->qp, c->kp, c->vp, c->op, c->mode, worst, wk, wi);

    /* FLOAT agrees with DOUBLE */
    net f;
    net_init(&f, c, CUDNN_DATA_FLOAT, seed);
    for (size_t i = 0; i < nw; i++) put(&n, n.w, i, get(&f, f.w, i));
    for (size_t i = 0; i < n.nq; i++) put(&n, n.q, i, get(&f, f.q, i));
    for (size_t i = 0; i < n.nk; i++) put(&n, n.k, i, get(&f, f.k, i));
    for (size_t i = 0; i < n.nv; i++) put(&n, n.v, i, get(&f, f.v, i));
    grads gd, gf;
    backward(&n, gout, &gd);
    backward(&f, gout, &gf);
    double fe = 0;
    for (size_t i = 0; i < nw; i++) { double e = fabs(gd.dw[i] - gf.dw[i]); if (!(e <= fe)) fe = e; }
    CHECK_MSG(fe <= 1e-4, "FLOAT vs DOUBLE weight gradients differ by %g", fe);
    grads_free(&gd); grads_free(&gf);
    net_free(&f);

    if (c->heads == 2 && c->op) {
        SECTION("attention backward bad input");
        void *dq = calloc(n.nq, n.es), *dk = calloc(n.nk, n.es), *dv = calloc(n.nv, n.es), *dw = calloc(n.wsize, 1);
        void *go = calloc(n.no, n.es);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardData(NULL, n.a, n.lo, n.hi, n.qlen, n.klen, n.od, go, n.qd, dq, n.q, n.kd,
                     dk, n.k, n.vd, dv, n.v, n.wsize, n.w, n.wks, n.ws, n.rss, n.rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardData(h, n.a, NULL, n.hi, n.qlen, n.klen, n.od, go, n.qd, dq, n.q, n.kd,
                     dk, n.k, n.vd, dv, n.v, n.wsize, n.w, n.wks, n.ws, n.rss, n.rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardData(h, n.a, n.lo, n.hi, n.qlen, n.klen, n.od, go, n.qd, NULL, n.q, n.kd,
                     dk, n.k, n.vd, dv, n.v, n.wsize, n.w, n.wks, n.ws, n.rss, n.rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardData(h, n.a, n.lo, n.hi, n.qlen, n.klen, n.od, go, n.qd, dq, n.q, n.kd,
                     dk, n.k, n.vd, dv, n.v, n.wsize, n.w, n.wks, n.ws, n.rss - 1, n.rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardData(h, n.a, n.lo, n.hi, n.qlen, n.klen, n.od, go, n.qd, dq, n.q, n.kd,
                     dk, n.k, n.vd, dv, n.v, n.wsize - 1, n.w, n.wks, n.ws, n.rss, n.rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardData(h, n.a, n.lo, n.hi, n.qlen, n.klen, n.qd, go, n.qd, dq, n.q, n.kd,
                     dk, n.k, n.vd, dv, n.v, n.wsize, n.w, n.wks, n.ws, n.rss, n.rs),
                     n.dout == c->qs ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardWeights(h, n.a, CUDNN_WGRAD_MODE_SET, n.qd, n.q, n.kd, n.k, n.vd, n.v,
                     n.od, go, n.wsize, n.w, dw, n.wks, n.ws, n.rss, n.rs), CUDNN_STATUS_NOT_SUPPORTED);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardWeights(h, n.a, (cudnnWgradMode_t)9, n.qd, n.q, n.kd, n.k, n.vd, n.v,
                     n.od, go, n.wsize, n.w, dw, n.wks, n.ws, n.rss, n.rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardWeights(h, n.a, CUDNN_WGRAD_MODE_ADD, n.qd, n.q, n.kd, n.k, n.vd, n.v,
                     n.od, go, n.wsize, n.w, NULL, n.wks, n.ws, n.rss, n.rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardWeights(h, n.a, CUDNN_WGRAD_MODE_ADD, n.qd, n.q, n.kd, n.k, n.vd, n.v,
                     n.od, go, n.wsize, n.w, dw, n.wks, n.ws, n.rss, NULL), CUDNN_STATUS_BAD_PARAM);
        /* the workspace cudnnGetMultiHeadAttnBuffers asked for: one byte short, or NULL */
        CHECK(n.wks > 0);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardData(h, n.a, n.lo, n.hi, n.qlen, n.klen, n.od, go, n.qd, dq, n.q, n.kd,
                     dk, n.k, n.vd, dv, n.v, n.wsize, n.w, n.wks - 1, n.ws, n.rss, n.rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardData(h, n.a, n.lo, n.hi, n.qlen, n.klen, n.od, go, n.qd, dq, n.q, n.kd,
                     dk, n.k, n.vd, dv, n.v, n.wsize, n.w, n.wks, NULL, n.rss, n.rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardWeights(h, n.a, CUDNN_WGRAD_MODE_ADD, n.qd, n.q, n.kd, n.k, n.vd, n.v,
                     n.od, go, n.wsize, n.w, dw, n.wks - 1, n.ws, n.rss, n.rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnBackwardWeights(h, n.a, CUDNN_WGRAD_MODE_ADD, n.qd, n.q, n.kd, n.k, n.vd, n.v,
                     n.od, go, n.wsize, n.w, dw, n.wks, NULL, n.rss, n.rs), CUDNN_STATUS_BAD_PARAM);
        free(dq); free(dk); free(dv); free(dw); free(go);
    }
    grads_free(&g);
    free(gout);
    net_free(&n);
}

int main(void)
{
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 1;
    SECTION("attention gradients vs finite differences");
    unsigned seed = 5;
    for (int variant = 0; variant < 5; variant++) {
        bcase c;
        memset(&c, 0, sizeof c);
        c.heads = 1 + variant % 2 + (variant == 4); c.qs = 4; c.ks = 3; c.vs = 3; c.qp = 2; c.kp = 2; c.vp = 2; c.op = 3;
        c.mode = (variant & 1 ? CUDNN_ATTN_QUERYMAP_ONE_TO_ONE : 0) | (variant & 2 ? CUDNN_ATTN_ENABLE_PROJ_BIASES : 0);
        c.QT = 3; c.KT = 4; c.B = 2; c.QB = 2;
        if (variant == 3) { c.qp = c.kp = 0; c.ks = 4; c.vp = 0; c.op = 0; }
        if (variant == 4) { c.op = 0; c.mode = CUDNN_ATTN_ENABLE_PROJ_BIASES; }
        check(&c, seed++);
    }
    cudnnDestroy(h);
    return hd_test_finish();
}
