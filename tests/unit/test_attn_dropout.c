/* Multi-head attention dropout in training: the mask statistics of the probability and the
 * output dropout, reproducibility (seed, consecutive calls, thread counts), inference left
 * alone, gradients against central finite differences with the same mask, and the states
 * buffer a probability above 0 needs. */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <math.h>
#include <stdio.h>
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
    float p_attn, p_post;
    int identity_v;          /* values = identity rows (vs = KT): the output is the probabilities */
} dcase;

static void net_init(net *n, cudnnHandle_t hh, const dcase *c, cudnnDataType_t dt, unsigned seed, int ragged)
{
    memset(n, 0, sizeof *n);
    n->dt = dt;
    n->es = dt == CUDNN_DATA_DOUBLE ? 8 : 4;
    CHECK_OK(cudnnDropoutGetStatesSize(hh, &n->ssize));
    n->sa = malloc(n->ssize); n->sp = malloc(n->ssize); n->sa0 = malloc(n->ssize); n->sp0 = malloc(n->ssize);
    CHECK_OK(cudnnCreateDropoutDescriptor(&n->da)); CHECK_OK(cudnnCreateDropoutDescriptor(&n->dp));
    CHECK_OK(cudnnSetDropoutDescriptor(n->da, hh, c->p_attn, n->sa, n->ssize, 1234));
    CHECK_OK(cudnnSetDropoutDescriptor(n->dp, hh, c->p_post, n->sp, n->ssize, 5678));
    memcpy(n->sa0, n->sa, n->ssize); memcpy(n->sp0, n->sp, n->ssize);
    CHECK_OK(cudnnCreateAttnDescriptor(&n->a));
    CHECK_OK(cudnnSetAttnDescriptor(n->a, c->mode, c->heads, 0.7, dt, dt, CUDNN_DEFAULT_MATH, n->da, n->dp, c->qs, c->ks,
                                    c->vs, c->qp, c->kp, c->vp, c->op, c->QT, c->KT, c->B, c->QB));
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(hh, n->a, &n->wsize, &n->wks, &n->rss));
    int dv = c->vp ? c->vp : c->vs;
    n->dout = c->op ? c->op : c->heads * dv;
    n->KB = (c->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) ? c->QB : 1;
    cudnnSeqDataAxis_t ax[4] = { CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM,
                                 CUDNN_SEQDATA_VECT_DIM };
    int qdim[4], kdim[4], vdim[4], odim[4];
    qdim[CUDNN_SEQDATA_TIME_DIM] = c->QT; qdim[CUDNN_SEQDATA_BATCH_DIM] = c->B; qdim[CUDNN_SEQDATA_BEAM_DIM] = c->QB;
    memcpy(kdim, qdim, sizeof kdim); memcpy(odim, qdim, sizeof odim);
    kdim[CUDNN_SEQDATA_TIME_DIM] = c->KT; kdim[CUDNN_SEQDATA_BEAM_DIM] = n->KB;
    memcpy(vdim, kdim, sizeof vdim);
    qdim[3] = c->qs; kdim[3] = c->ks; vdim[3] = c->vs; odim[3] = n->dout;
    for (int i = 0; i < c->B * c->QB; i++) n->qlen[i] = c->QT - (ragged ? i % 2 : 0);
    for (int i = 0; i < c->B * n->KB; i++) n->klen[i] = c->KT - (ragged ? (i % 2) * 2 : 0);
    for (int t = 0; t < c->QT; t++) { n->lo[t] = ragged && t == 2 ? 1 : 0; n->hi[t] = ragged && t == 1 ? 2 : c->KT; }
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
    for (size_t i = 0; i < n->nv; i++)   /* layout time, batch, beam, vect */
        put(n, n->v, i, c->identity_v ? (double)((size_t)(i / (size_t)c->vs) / ((size_t)c->B * n->KB) == i % (size_t)c->vs)
                                      : rtu_rand(&seed, 1.0));
}

/* The generators back where net_init left them: the next training call draws the same masks. */
static void restore(net *n)
{
    memcpy(n->sa, n->sa0, n->ssize);
    memcpy(n->sp, n->sp0, n->ssize);
}

static void forward(net *n, cudnnHandle_t hh, int training, void *out)
{
    CHECK_OK(cudnnMultiHeadAttnForward(hh, n->a, -1, n->lo, n->hi, n->qlen, n->klen, n->qd, n->q, NULL, n->kd, n->k,
                                       n->vd, n->v, n->od, out, n->wsize, n->w, n->wks, n->ws,
                                       training ? n->rss : 0, training ? n->rs : NULL));
}

static double loss(net *n, const double *gout)
{
    restore(n);
    memset(n->o, 0, n->no * n->es);
    forward(n, h, 1, n->o);
    double s = 0;
    for (size_t i = 0; i < n->no; i++) s += get(n, n->o, i) * gout[i];
    return s;
}

/* Compare training output with inference output element by element: each is dropped (0) or
 * kept and scaled by 1 / (1 - p); returns the fraction dropped among non-zero ones. */
static double drop_fraction(net *n, float p, int *bad)
{
    void *inf = malloc(n->no * n->es);
    forward(n, h, 0, inf);
    restore(n);
    forward(n, h, 1, n->o);
    size_t cnt = 0, dropped = 0;
    for (size_t i = 0; i < n->no; i++) {
        double x = get(n, inf, i), y = get(n, n->o, i);
        if (x == 0.0) continue;
        cnt++;
        if (y == 0.0) dropped++;
        else if (fabs(y - x / (1.0 - p)) > 1e-12 * (1.0 + fabs(x))) (*bad)++;
    }
    free(inf);
    return cnt ? (double)dropped / (double)cnt : -1.0;
}

static void stats(void)
{
    SECTION("attention dropout: mask statistics");
    /* probabilities: identity values and no projections make the output the probabilities */
    dcase ca = { 1, 4, 4, 32, 0, 0, 0, 0, 0, 32, 32, 8, 1, 0.4f, 0.0f, 1 };
    net n;
    net_init(&n, h, &ca, CUDNN_DATA_DOUBLE, 11, 0);
    int bad = 0;
    double f = drop_fraction(&n, ca.p_attn, &bad), sd = sqrt(0.4 * 0.6 / 8192.0);
    CHECK_MSG(bad == 0, "%d kept probabilities are not scaled by 1/(1-p)", bad);
    printf("probability dropout: %.4f of 8192 dropped (p = 0.4, sd %.4f)\n", f, sd);
    CHECK_MSG(fabs(f - 0.4) <= 4 * sd, "probability dropout rate %g, want 0.4 +- %g", f, 4 * sd);
    net_free(&n);
    /* output dropout */
    dcase co = { 2, 16, 16, 16, 8, 8, 8, 32, CUDNN_ATTN_ENABLE_PROJ_BIASES, 32, 16, 8, 1, 0.0f, 0.3f, 0 };
    net_init(&n, h, &co, CUDNN_DATA_DOUBLE, 12, 0);
    bad = 0;
    f = drop_fraction(&n, co.p_post, &bad);
    sd = sqrt(0.3 * 0.7 / 8192.0);
    CHECK_MSG(bad == 0, "%d kept outputs are not scaled by 1/(1-p)", bad);
    printf("output dropout: %.4f of 8192 dropped (p = 0.3, sd %.4f)\n", f, sd);
    CHECK_MSG(fabs(f - 0.3) <= 4 * sd, "output dropout rate %g, want 0.3 +- %g", f, 4 * sd);
    net_free(&n);
}

static int same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

static void reproducible(void)
{
    SECTION("attention dropout: reproducible, fresh per call, thread count, inference alone");
    dcase c = { 4, 24, 20, 16, 8, 8, 12, 24, CUDNN_ATTN_ENABLE_PROJ_BIASES, 12, 10, 3, 2, 0.25f, 0.2f, 0 };
    net n;
    net_init(&n, h, &c, CUDNN_DATA_FLOAT, 21, 1);
    size_t bytes = n.no * n.es;
    void *o1 = calloc(1, bytes), *o2 = calloc(1, bytes), *o3 = calloc(1, bytes), *o4 = calloc(1, bytes);
    forward(&n, h, 1, o1);
    forward(&n, h, 1, o3);                   /* the next call: fresh numbers */
    CHECK_OK(cudnnSetDropoutDescriptor(n.da, h, c.p_attn, n.sa, n.ssize, 1234));
    CHECK_OK(cudnnSetDropoutDescriptor(n.dp, h, c.p_post, n.sp, n.ssize, 5678));
    forward(&n, h, 1, o2);                   /* same seeds, states set again */
    CHECK_MSG(same_bits(o1, o2, bytes), "the same seed gives the same training output");
    CHECK_MSG(!same_bits(o1, o3, bytes), "consecutive training calls draw different masks");
    setenv("HOSTDNN_NUM_THREADS", "2", 1);
    cudnnHandle_t h2;
    CHECK_OK(cudnnCreate(&h2));
    unsetenv("HOSTDNN_NUM_THREADS");
    restore(&n);
    forward(&n, h2, 1, o4);
    CHECK_MSG(same_bits(o1, o4, bytes), "1 and 2 threads give the same bits with dropout");
    /* inference ignores the dropout descriptors */
    forward(&n, h, 0, o2);
    cudnnAttnDescriptor_t plain;
    CHECK_OK(cudnnCreateAttnDescriptor(&plain));
    CHECK_OK(cudnnSetAttnDescriptor(plain, c.mode, c.heads, 0.7, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH,
                                    NULL, NULL, c.qs, c.ks, c.vs, c.qp, c.kp, c.vp, c.op, c.QT, c.KT, c.B, c.QB));
    CHECK_OK(cudnnMultiHeadAttnForward(h, plain, -1, n.lo, n.hi, n.qlen, n.klen, n.qd, n.q, NULL, n.kd, n.k, n.vd, n.v,
                                       n.od, o3, n.wsize, n.w, n.wks, n.ws, 0, NULL));
    CHECK_MSG(same_bits(o2, o3, bytes), "inference with dropout descriptors equals inference without");
    /* a probability above 0 needs a states buffer, in training only */
    cudnnDropoutDescriptor_t nost;
    CHECK_OK(cudnnCreateDropoutDescriptor(&nost));
    CHECK_OK(cudnnSetDropoutDescriptor(nost, h, 0.5f, NULL, 0, 1));
    CHECK_OK(cudnnSetAttnDescriptor(plain, c.mode, c.heads, 0.7, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH,
                                    nost, NULL, c.qs, c.ks, c.vs, c.qp, c.kp, c.vp, c.op, c.QT, c.KT, c.B, c.QB));
    memcpy(o4, o1, bytes);
    CHECK_STATUS(cudnnMultiHeadAttnForward(h, plain, -1, n.lo, n.hi, n.qlen, n.klen, n.qd, n.q, NULL, n.kd, n.k, n.vd,
                                           n.v, n.od, o4, n.wsize, n.w, n.wks, n.ws, n.rss, n.rs),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_MSG(same_bits(o1, o4, bytes), "a refused call leaves the output alone");
    CHECK_OK(cudnnMultiHeadAttnForward(h, plain, -1, n.lo, n.hi, n.qlen, n.klen, n.qd, n.q, NULL, n.kd, n.k, n.vd, n.v,
                                       n.od, o4, n.wsize, n.w, n.wks, n.ws, 0, NULL));
    cudnnDestroyDropoutDescriptor(nost);
    cudnnDestroyAttnDescriptor(plain);
    cudnnDestroy(h2);
    free(o1); free(o2); free(o3); free(o4);
    net_free(&n);
}

static void gradients(const dcase *c, unsigned seed)
{
    SECTION("attention dropout: gradients vs finite differences with the same mask");
    net n;
    net_init(&n, h, c, CUDNN_DATA_DOUBLE, seed, 1);
    unsigned s = seed * 17 + 3;
    double *gout = malloc(n.no * sizeof(double));
    void *go = malloc(n.no * n.es), *dq = calloc(n.nq, n.es), *dk = calloc(n.nk, n.es), *dv = calloc(n.nv, n.es);
    void *dw = calloc(n.wsize ? n.wsize : 1, 1);
    for (size_t i = 0; i < n.no; i++) { gout[i] = rtu_rand(&s, 1.0); put(&n, go, i, gout[i]); }
    loss(&n, gout);   /* the training forward the backward calls follow */
    CHECK_OK(cudnnMultiHeadAttnBackwardData(h, n.a, n.lo, n.hi, n.qlen, n.klen, n.od, go, n.qd, dq, n.q, n.kd, dk, n.k,
                                            n.vd, dv, n.v, n.wsize, n.w, n.wks, n.ws, n.rss, n.rs));
    CHECK_OK(cudnnMultiHeadAttnBackwardWeights(h, n.a, CUDNN_WGRAD_MODE_ADD, n.qd, n.q, n.kd, n.k, n.vd, n.v, n.od, go,
                                               n.wsize, n.w, dw, n.wks, n.ws, n.rss, n.rs));
    double worst = 0;
    const size_t nw = n.wsize / n.es;
    for (int kind = 0; kind < 4; kind++) {
        size_t cnt = kind == 0 ? n.nq : kind == 1 ? n.nk : kind == 2 ? n.nv : nw;
        void *buf = kind == 0 ? n.q : kind == 1 ? n.k : kind == 2 ? n.v : n.w;
        const void *an = kind == 0 ? dq : kind == 1 ? dk : kind == 2 ? dv : dw;
        int vec = kind == 0 ? c->qs : kind == 1 ? c->ks : c->vs;
        for (size_t i = 0; i < cnt; i++) {
            if (kind < 3) {   /* layout time, batch, beam: skip steps beyond a sequence */
                size_t row = i / (size_t)vec;
                int BM = kind == 0 ? c->QB : n.KB;
                int beam = (int)(row % BM), b = (int)((row / BM) % c->B), t = (int)(row / BM / c->B);
                int len = kind == 0 ? n.qlen[b * c->QB + beam] : n.klen[b * n.KB + beam];
                if (t >= len) continue;
            }
            const double eps = 1e-6, v = get(&n, buf, i);
            put(&n, buf, i, v + eps);
            double lp = loss(&n, gout);
            put(&n, buf, i, v - eps);
            double lm = loss(&n, gout);
            put(&n, buf, i, v);
            double num = (lp - lm) / (2 * eps), e = fabs(num - get(&n, an, i)) / (1.0 > fabs(num) ? 1.0 : fabs(num));
            if (!(e <= worst)) worst = e;
        }
    }
    printf("dropout p %g/%g: worst gradient error %.2e\n", (double)c->p_attn, (double)c->p_post, worst);
    CHECK_MSG(worst <= 1e-6, "heads %d proj %d/%d/%d/%d mode %u p %g/%g: worst gradient error %g", c->heads, c->qp, c->kp,
              c->vp, c->op, c->mode, (double)c->p_attn, (double)c->p_post, worst);
    free(gout); free(go); free(dq); free(dk); free(dv); free(dw);
    net_free(&n);
}

/* Gradients of one training step (forward, backward data, backward weights) on handle HH;
 * SKIP_DATA leaves backward data out, so backward weights computes everything itself. */
static void step(net *n, cudnnHandle_t hh, const void *go, void *dq, void *dk, void *dv, void *dw, int skip_data)
{
    restore(n);
    forward(n, hh, 1, n->o);
    if (!skip_data)
        CHECK_OK(cudnnMultiHeadAttnBackwardData(hh, n->a, n->lo, n->hi, n->qlen, n->klen, n->od, go, n->qd, dq, n->q,
                                                n->kd, dk, n->k, n->vd, dv, n->v, n->wsize, n->w, n->wks, n->ws, n->rss,
                                                n->rs));
    memset(dw, 0, n->wsize);
    CHECK_OK(cudnnMultiHeadAttnBackwardWeights(hh, n->a, CUDNN_WGRAD_MODE_ADD, n->qd, n->q, n->kd, n->k, n->vd, n->v,
                                               n->od, go, n->wsize, n->w, dw, n->wks, n->ws, n->rss, n->rs));
}

static void paths(void)
{
    SECTION("attention backward: same bits on every path and thread count");
    dcase c = { 4, 24, 20, 16, 8, 8, 12, 24, CUDNN_ATTN_ENABLE_PROJ_BIASES, 12, 10, 3, 2, 0.25f, 0.2f, 0 };
    net n;
    net_init(&n, h, &c, CUDNN_DATA_FLOAT, 77, 1);
    unsigned s = 99;
    void *go = malloc(n.no * n.es), *g[2][4];
    for (size_t i = 0; i < n.no; i++) put(&n, go, i, rtu_rand(&s, 1.0));
    size_t sz[4] = { n.nq * n.es, n.nk * n.es, n.nv * n.es, n.wsize };
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 4; k++) g[r][k] = calloc(1, sz[k] ? sz[k] : 1);
    step(&n, h, go, g[0][0], g[0][1], g[0][2], g[0][3], 0);
    /* backward weights alone (no backward data before it) recomputes what it reused */
    step(&n, h, go, g[1][0], g[1][1], g[1][2], g[1][3], 1);
    CHECK_MSG(same_bits(g[0][3], g[1][3], n.wsize), "backward weights alone gives the same bits");
    /* an inference call in between leaves the reserve space alone */
    restore(&n);
    forward(&n, h, 1, n.o);
    CHECK_OK(cudnnMultiHeadAttnBackwardData(h, n.a, n.lo, n.hi, n.qlen, n.klen, n.od, go, n.qd, g[1][0], n.q, n.kd,
                                            g[1][1], n.k, n.vd, g[1][2], n.v, n.wsize, n.w, n.wks, n.ws, n.rss, n.rs));
    forward(&n, h, 0, n.o);
    memset(g[1][3], 0, n.wsize);
    CHECK_OK(cudnnMultiHeadAttnBackwardWeights(h, n.a, CUDNN_WGRAD_MODE_ADD, n.qd, n.q, n.kd, n.k, n.vd, n.v, n.od, go,
                                               n.wsize, n.w, g[1][3], n.wks, n.ws, n.rss, n.rs));
    CHECK_MSG(same_bits(g[0][3], g[1][3], n.wsize), "an inference call between the passes changes nothing");
    for (int t = 2; t <= 3; t++) {
        char v[4];
        snprintf(v, sizeof v, "%d", t);
        setenv("HOSTDNN_NUM_THREADS", v, 1);
        cudnnHandle_t ht;
        CHECK_OK(cudnnCreate(&ht));
        unsetenv("HOSTDNN_NUM_THREADS");
        step(&n, ht, go, g[1][0], g[1][1], g[1][2], g[1][3], 0);
        for (int k = 0; k < 4; k++)
            CHECK_MSG(same_bits(g[0][k], g[1][k], sz[k]), "%d threads: gradient %d has the same bits as 1 thread", t, k);
        cudnnDestroy(ht);
    }
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 4; k++) free(g[r][k]);
    free(go);
    net_free(&n);
}

int main(void)
{
    setenv("HOSTDNN_NUM_THREADS", "1", 1);   /* h runs on one thread; others are compared with it */
    CHECK_OK(cudnnCreate(&h));
    unsetenv("HOSTDNN_NUM_THREADS");
    stats();
    reproducible();
    paths();
    const unsigned both = CUDNN_ATTN_ENABLE_PROJ_BIASES;
    const dcase g[] = {
        { 2, 5, 4, 3, 3, 3, 2, 4, both, 4, 5, 2, 2, 0.3f, 0.25f, 0 },
        { 2, 4, 4, 3, 0, 0, 0, 0, CUDNN_ATTN_QUERYMAP_ONE_TO_ONE, 4, 5, 2, 2, 0.5f, 0.0f, 0 },
        { 3, 4, 5, 4, 2, 2, 3, 0, both | CUDNN_ATTN_QUERYMAP_ONE_TO_ONE, 3, 4, 1, 2, 0.0f, 0.4f, 0 },
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
        gradients(&g[i], 40 + (unsigned)i);
    cudnnDestroy(h);
    return hd_test_finish();
}
