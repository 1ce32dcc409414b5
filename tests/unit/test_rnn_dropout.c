/* Inter-layer dropout of RNN training (cudnnRNNForward in TRAINING mode and the legacy training
 * calls): mask statistics and scaling, reproducibility from the states buffer (and across thread
 * counts), inference unaffected, gradients against central finite differences with the same
 * mask (the states buffer restored before every forward pass), the legacy calls, one layer,
 * bad input. */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "rnn_test_util.h"

static cudnnHandle_t h, h1, h2;   /* default, 1 thread, 2 threads */

typedef struct {
    cudnnRNNMode_t cell;
    int dirs, layers, in, hid, T, B;
    int lens[4];
    float p;
    cudnnDataType_t dt;
    unsigned long long seed;
} dcase;

typedef struct {
    dcase c;
    size_t es;
    cudnnHandle_t hh;
    cudnnDropoutDescriptor_t dd;
    void *states;
    size_t ssize;
    cudnnRNNDescriptor_t r;
    cudnnRNNDataDescriptor_t xd, yd;
    cudnnTensorDescriptor_t hd, cd;
    size_t wsize, wss, rss, nx, ny, nh, nc;
    void *w, *x, *hx, *cx, *y, *hy, *cy, *ws, *rs;
} net;

static double get(const net *n, const void *p, size_t i)
{
    return n->c.dt == CUDNN_DATA_DOUBLE ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static void put(const net *n, void *p, size_t i, double v)
{
    if (n->c.dt == CUDNN_DATA_DOUBLE) ((double *)p)[i] = v; else ((float *)p)[i] = (float)v;
}

/* Valid (t, b) rows of the SEQ_MAJOR_UNPACKED data: padding rows are not part of any check. */
static int valid_row(const dcase *c, size_t row)
{
    return (int)(row / (size_t)c->B) < c->lens[row % (size_t)c->B];
}

static void net_init(net *n, const dcase *c, cudnnHandle_t hh, unsigned seed)
{
    memset(n, 0, sizeof *n);
    n->c = *c;
    n->hh = hh;
    n->es = c->dt == CUDNN_DATA_DOUBLE ? 8 : 4;
    const int D = c->dirs, NPL = c->layers * D;
    CHECK_OK(cudnnCreateDropoutDescriptor(&n->dd));
    CHECK_OK(cudnnDropoutGetStatesSize(hh, &n->ssize));
    n->states = calloc(1, n->ssize);   /* bytes past the generator state are compared too */
    CHECK_OK(cudnnSetDropoutDescriptor(n->dd, hh, c->p, n->states, n->ssize, c->seed));
    CHECK_OK(cudnnCreateRNNDescriptor(&n->r));
    CHECK_OK(cudnnSetRNNDescriptor_v8(n->r, CUDNN_RNN_ALGO_STANDARD, c->cell, CUDNN_RNN_DOUBLE_BIAS,
                                      D == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, c->dt,
                                      c->dt, CUDNN_DEFAULT_MATH, c->in, c->hid, c->hid, c->layers, n->dd,
                                      CUDNN_RNN_PADDED_IO_ENABLED));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&n->xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&n->yd));
    CHECK_OK(cudnnSetRNNDataDescriptor(n->xd, c->dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, c->T, c->B, c->in,
                                       c->lens, NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(n->yd, c->dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, c->T, c->B,
                                       D * c->hid, c->lens, NULL));
    int sdims[3] = { NPL, c->B, c->hid };
    n->hd = rtu_tensor(c->dt, 3, sdims);
    n->cd = rtu_tensor(c->dt, 3, sdims);
    size_t wsi = 0, rsi = 0;
    CHECK_OK(cudnnGetRNNWeightSpaceSize(hh, n->r, &n->wsize));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(hh, n->r, CUDNN_FWD_MODE_TRAINING, n->xd, &n->wss, &n->rss));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(hh, n->r, CUDNN_FWD_MODE_INFERENCE, n->xd, &wsi, &rsi));
    if (wsi > n->wss) n->wss = wsi;
    n->nx = (size_t)c->T * c->B * c->in;
    n->ny = (size_t)c->T * c->B * D * c->hid;
    n->nh = n->nc = (size_t)NPL * c->B * c->hid;
    n->w = malloc(n->wsize); n->x = malloc(n->nx * n->es);
    n->hx = malloc(n->nh * n->es); n->cx = malloc(n->nc * n->es);
    n->y = calloc(n->ny, n->es); n->hy = calloc(n->nh, n->es); n->cy = calloc(n->nc, n->es);
    n->ws = malloc(n->wss); n->rs = malloc(n->rss);
    unsigned s = seed;
    for (size_t i = 0; i < n->wsize / n->es; i++) put(n, n->w, i, rtu_rand(&s, 0.6));
    for (size_t i = 0; i < n->nx; i++) put(n, n->x, i, rtu_rand(&s, 1.0));
    for (size_t i = 0; i < n->nh; i++) put(n, n->hx, i, rtu_rand(&s, 0.7));
    for (size_t i = 0; i < n->nc; i++) put(n, n->cx, i, rtu_rand(&s, 0.7));
}

static void net_free(net *n)
{
    free(n->w); free(n->x); free(n->hx); free(n->cx); free(n->y); free(n->hy); free(n->cy);
    free(n->ws); free(n->rs); free(n->states);
    rtu_tensor_free(n->hd); rtu_tensor_free(n->cd);
    cudnnDestroyRNNDataDescriptor(n->xd); cudnnDestroyRNNDataDescriptor(n->yd);
    cudnnDestroyRNNDescriptor(n->r);
    cudnnDestroyDropoutDescriptor(n->dd);
}

static cudnnStatus_t fwd(net *n, int training)
{
    return cudnnRNNForward(n->hh, n->r, training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, n->c.lens,
                           n->xd, n->x, n->yd, n->y, n->hd, n->hx, n->hy, n->cd, n->cx, n->cy, n->wsize, n->w, n->wss,
                           n->ws, n->rss, n->rs);
}

/* Number of (valid-row) elements of y that differ between A and B. */
static size_t y_diffs(const net *n, const void *a, const void *b)
{
    const size_t DP = (size_t)n->c.dirs * n->c.hid;
    size_t k = 0;
    for (size_t i = 0; i < n->ny; i++)
        if (valid_row(&n->c, i / DP) && get(n, a, i) != get(n, b, i)) k++;
    return k;
}

/* ---- (a) mask statistics ----
 * Two RELU layers built so y shows layer 0's output after dropout: layer 0 has zero matrices
 * and input bias v_j > 0 (its output is v_j everywhere), layer 1 has W = identity and nothing
 * else, so y = relu(dropped v) = v_j / (1 - p) where kept and 0 where dropped. */
static void mask_stats(float p)
{
    dcase c = { CUDNN_RNN_RELU, 1, 2, 8, 64, 64, 4, { 64, 64, 64, 64 }, p, CUDNN_DATA_FLOAT, 777 };
    net n;
    net_init(&n, &c, h, 5);
    memset(n.w, 0, n.wsize);
    cudnnTensorDescriptor_t md = rtu_tensor_empty(), bd = rtu_tensor_empty();
    void *m = NULL, *bias = NULL;
    CHECK_OK(cudnnGetRNNWeightParams(h, n.r, 0, n.wsize, n.w, 0, md, &m, bd, &bias));
    for (int j = 0; j < c.hid; j++) ((float *)bias)[j] = 0.5f + (float)j / 64.0f;
    CHECK_OK(cudnnGetRNNWeightParams(h, n.r, 1, n.wsize, n.w, 0, md, &m, bd, &bias));
    for (int j = 0; j < c.hid; j++) ((float *)m)[(size_t)j * c.hid + j] = 1.0f;
    rtu_tensor_free(md); rtu_tensor_free(bd);

    const float scale = (float)(1.0 / (1.0 - (double)p));
    float *first = malloc(n.ny * sizeof(float));
    size_t both = 0;
    int bad_value = 0;
    for (int call = 0; call < 2; call++) {
        CHECK_OK(fwd(&n, 1));
        const float *y = n.y;
        size_t dropped = 0;
        for (size_t i = 0; i < n.ny; i++) {
            int j = (int)(i % (size_t)c.hid);
            float want = (0.5f + (float)j / 64.0f) * scale;
            if (y[i] == 0.0f) {
                dropped++;
                if (call == 1 && first[i] == 0.0f) both++;
            } else if (fabsf(y[i] - want) > 1e-6f * want) {
                bad_value++;
            }
        }
        if (call == 0) memcpy(first, y, n.ny * sizeof(float));
        double frac = (double)dropped / (double)n.ny, sigma = sqrt(p * (1.0 - p) / (double)n.ny);
        printf("p %.2f call %d: dropped %zu of %zu (%.4f, expected %.2f, %.2f sigma)\n", p, call, dropped, n.ny,
               frac, p, (frac - p) / sigma);
        CHECK_MSG(fabs(frac - p) <= 4 * sigma, "p %g: dropped fraction %g is more than 4 sigma from p", p, frac);
    }
    CHECK_MSG(bad_value == 0, "%d kept values are not v / (1 - p)", bad_value);
    /* two calls draw independent masks: both-dropped fraction close to p^2 */
    double pp = (double)p * p, f2 = (double)both / (double)n.ny, s2 = sqrt(pp * (1 - pp) / (double)n.ny);
    printf("p %.2f: dropped in both calls %.4f (expected %.4f, %.2f sigma)\n", p, f2, pp, (f2 - pp) / s2);
    CHECK_MSG(fabs(f2 - pp) <= 4 * s2, "both-dropped fraction %g vs p^2 %g", f2, pp);
    free(first);
    net_free(&n);
}

/* ---- (b) reproducibility, thread counts ---- */
typedef struct { void *y, *hy, *dx, *dw, *states; } outs;

static void run_all(net *n, unsigned dseed, outs *o)
{
    o->dx = calloc(n->nx, n->es);   /* padding rows are left alone */
    o->dw = calloc(1, n->wsize);
    void *dy = malloc(n->ny * n->es);
    unsigned s = dseed;
    for (size_t i = 0; i < n->ny; i++) put(n, dy, i, rtu_rand(&s, 1.0));
    CHECK_OK(fwd(n, 1));
    CHECK_OK(cudnnRNNBackwardData_v8(n->hh, n->r, n->c.lens, n->yd, n->y, dy, n->xd, o->dx, n->hd, n->hx, NULL, NULL,
                                     n->cd, n->cx, NULL, NULL, n->wsize, n->w, n->wss, n->ws, n->rss, n->rs));
    CHECK_OK(cudnnRNNBackwardWeights_v8(n->hh, n->r, CUDNN_WGRAD_MODE_ADD, n->c.lens, n->xd, n->x, n->hd, n->hx,
                                        n->yd, n->y, n->wsize, o->dw, n->wss, n->ws, n->rss, n->rs));
    o->y = malloc(n->ny * n->es); memcpy(o->y, n->y, n->ny * n->es);
    o->hy = malloc(n->nh * n->es); memcpy(o->hy, n->hy, n->nh * n->es);
    o->states = malloc(n->ssize); memcpy(o->states, n->states, n->ssize);
    free(dy);
}

static void outs_free(outs *o) { free(o->y); free(o->hy); free(o->dx); free(o->dw); free(o->states); }

static int outs_same(const net *n, const outs *a, const outs *b)
{
    return !memcmp(a->y, b->y, n->ny * n->es) && !memcmp(a->hy, b->hy, n->nh * n->es) &&
           !memcmp(a->dx, b->dx, n->nx * n->es) && !memcmp(a->dw, b->dw, n->wsize) &&
           !memcmp(a->states, b->states, n->ssize);
}

static void reproducibility(void)
{
    dcase c = { CUDNN_LSTM, 2, 3, 6, 8, 5, 4, { 5, 3, 4, 1 }, 0.5f, CUDNN_DATA_FLOAT, 1234 };
    net a, b, t1, t2;
    net_init(&a, &c, h, 11);
    net_init(&b, &c, h, 11);
    outs o1, o2, o3;
    unsigned char before[64];
    memcpy(before, a.states, a.ssize < 64 ? a.ssize : 64);
    run_all(&a, 3, &o1);
    CHECK_MSG(memcmp(before, a.states, a.ssize < 64 ? a.ssize : 64) != 0, "a training call advances the states");
    run_all(&b, 3, &o2);   /* same seed, freshly initialised states */
    CHECK_MSG(outs_same(&a, &o1, &o2), "same seed and fresh states give bitwise the same results");
    run_all(&a, 3, &o3);   /* the next call draws fresh numbers */
    CHECK_MSG(y_diffs(&a, o1.y, o3.y) > 0, "two consecutive training calls drop differently");
    CHECK_MSG(memcmp(o1.dx, o3.dx, a.nx * a.es) != 0, "and their gradients differ");
    /* re-initialising the states with the same seed repeats the first call */
    outs o4;
    CHECK_OK(cudnnSetDropoutDescriptor(a.dd, h, c.p, a.states, a.ssize, c.seed));
    run_all(&a, 3, &o4);
    CHECK_MSG(outs_same(&a, &o1, &o4), "cudnnSetDropoutDescriptor with the same seed restarts the sequence");
    outs_free(&o4);
    /* another seed, another mask */
    CHECK_OK(cudnnSetDropoutDescriptor(a.dd, h, c.p, a.states, a.ssize, c.seed + 1));
    CHECK_OK(fwd(&a, 1));
    CHECK_MSG(y_diffs(&a, o1.y, a.y) > 0, "another seed drops differently");
    /* 1 and 2 threads */
    net_init(&t1, &c, h1, 11);
    net_init(&t2, &c, h2, 11);
    outs p1, p2;
    run_all(&t1, 3, &p1);
    run_all(&t2, 3, &p2);
    CHECK_MSG(outs_same(&t1, &p1, &p2), "1 and 2 threads give bitwise the same results");
    CHECK_MSG(outs_same(&t1, &p1, &o1), "and the same as the default handle");
    outs_free(&o1); outs_free(&o2); outs_free(&o3); outs_free(&p1); outs_free(&p2);
    net_free(&a); net_free(&b); net_free(&t1); net_free(&t2);
}

/* ---- (c) inference ignores dropout; one layer has no inter-layer dropout ---- */
static void inference_and_one_layer(void)
{
    dcase c = { CUDNN_GRU, 2, 2, 5, 6, 4, 3, { 4, 2, 3, 0 }, 0.5f, CUDNN_DATA_FLOAT, 99 };
    net n;
    net_init(&n, &c, h, 21);
    unsigned char st0[64];
    memcpy(st0, n.states, 64);
    CHECK_OK(fwd(&n, 0));
    void *y5 = malloc(n.ny * n.es);
    memcpy(y5, n.y, n.ny * n.es);
    CHECK_MSG(!memcmp(st0, n.states, 64), "inference leaves the states alone");
    CHECK_OK(cudnnSetDropoutDescriptor(n.dd, h, 0.0f, NULL, 0, 0));   /* probability only */
    memset(n.y, 0, n.ny * n.es);
    CHECK_OK(fwd(&n, 0));
    CHECK_MSG(!memcmp(y5, n.y, n.ny * n.es), "inference with p = 0.5 equals inference with p = 0");
    memset(n.y, 0, n.ny * n.es);
    CHECK_OK(fwd(&n, 1));
    CHECK_MSG(!memcmp(y5, n.y, n.ny * n.es), "training with p = 0 equals inference");
    CHECK_MSG(!memcmp(st0, n.states, 64), "training with p = 0 draws nothing");
    CHECK_OK(cudnnSetDropoutDescriptor(n.dd, h, 0.5f, NULL, 0, 0));
    CHECK_OK(fwd(&n, 1));
    CHECK_MSG(y_diffs(&n, y5, n.y) > 0, "training with p = 0.5 differs from inference");
    free(y5);
    net_free(&n);

    dcase c1 = { CUDNN_LSTM, 2, 1, 5, 6, 4, 3, { 4, 2, 3, 0 }, 0.7f, CUDNN_DATA_FLOAT, 99 };
    net o;
    net_init(&o, &c1, h, 22);
    size_t wsn = 0, rsn = 0;
    cudnnRNNDescriptor_t rn;
    CHECK_OK(cudnnCreateRNNDescriptor(&rn));
    CHECK_OK(cudnnSetRNNDescriptor_v8(rn, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                      CUDNN_BIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                      CUDNN_DEFAULT_MATH, 5, 6, 6, 1, NULL, CUDNN_RNN_PADDED_IO_ENABLED));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, rn, CUDNN_FWD_MODE_TRAINING, o.xd, &wsn, &rsn));
    CHECK_EQ_INT(rsn, o.rss);   /* one layer: nothing to keep for dropout */
    cudnnDestroyRNNDescriptor(rn);
    memcpy(st0, o.states, 64);
    CHECK_OK(fwd(&o, 0));
    void *yi = malloc(o.ny * o.es);
    memcpy(yi, o.y, o.ny * o.es);
    CHECK_OK(fwd(&o, 1));
    CHECK_MSG(!memcmp(yi, o.y, o.ny * o.es), "one layer with p = 0.7: training equals inference");
    CHECK_MSG(!memcmp(st0, o.states, 64), "one layer draws nothing");
    free(yi);
    net_free(&o);
}

/* ---- (d) gradients against finite differences with the same mask ---- */
static double loss(net *n, const void *saved, const double *gy, const double *ghy, const double *gcy)
{
    memcpy(n->states, saved, n->ssize);   /* the same draws: the same mask */
    CHECK_OK(fwd(n, 1));
    const size_t DP = (size_t)n->c.dirs * n->c.hid;
    double s = 0;
    for (size_t i = 0; i < n->ny; i++)
        if (valid_row(&n->c, i / DP)) s += get(n, n->y, i) * gy[i];
    for (size_t i = 0; i < n->nh; i++) s += get(n, n->hy, i) * ghy[i];
    if (n->c.cell == CUDNN_LSTM)
        for (size_t i = 0; i < n->nc; i++) s += get(n, n->cy, i) * gcy[i];
    return s;
}

static void fd_case(const dcase *c, unsigned seed)
{
    net n;
    net_init(&n, c, h, seed);
    void *saved = malloc(n.ssize);
    memcpy(saved, n.states, n.ssize);
    unsigned s = seed * 5 + 1;
    double *gy = malloc(n.ny * 8), *ghy = malloc(n.nh * 8), *gcy = malloc(n.nc * 8);
    for (size_t i = 0; i < n.ny; i++) gy[i] = rtu_rand(&s, 1.0);
    for (size_t i = 0; i < n.nh; i++) ghy[i] = rtu_rand(&s, 1.0);
    for (size_t i = 0; i < n.nc; i++) gcy[i] = rtu_rand(&s, 1.0);

    /* the mask is not trivial: training differs from inference */
    CHECK_OK(fwd(&n, 0));
    void *yinf = malloc(n.ny * 8);
    memcpy(yinf, n.y, n.ny * 8);
    loss(&n, saved, gy, ghy, gcy);
    CHECK_MSG(y_diffs(&n, yinf, n.y) > 0, "cell %d layers %d dirs %d: dropout changed y", c->cell, c->layers, c->dirs);
    free(yinf);

    double *dy = malloc(n.ny * 8), *dhy = malloc(n.nh * 8), *dcy = malloc(n.nc * 8);
    double *dx = malloc(n.nx * 8), *dhx = malloc(n.nh * 8), *dcx = malloc(n.nc * 8), *dw = calloc(1, n.wsize);
    memcpy(dy, gy, n.ny * 8); memcpy(dhy, ghy, n.nh * 8); memcpy(dcy, gcy, n.nc * 8);
    loss(&n, saved, gy, ghy, gcy);
    CHECK_OK(cudnnRNNBackwardData_v8(h, n.r, c->lens, n.yd, n.y, dy, n.xd, dx, n.hd, n.hx, dhy, dhx, n.cd, n.cx, dcy,
                                     dcx, n.wsize, n.w, n.wss, n.ws, n.rss, n.rs));
    CHECK_OK(cudnnRNNBackwardWeights_v8(h, n.r, CUDNN_WGRAD_MODE_ADD, c->lens, n.xd, n.x, n.hd, n.hx, n.yd, n.y,
                                        n.wsize, dw, n.wss, n.ws, n.rss, n.rs));
    const char *names[4] = { "dx", "dhx", "dcx", "dw" };
    for (int kind = 0; kind < 4; kind++) {
        if (kind == 2 && c->cell != CUDNN_LSTM) continue;
        size_t cnt = kind == 0 ? n.nx : kind == 1 ? n.nh : kind == 2 ? n.nc : n.wsize / 8;
        double *buf = kind == 0 ? n.x : kind == 1 ? n.hx : kind == 2 ? n.cx : n.w;
        const double *an = kind == 0 ? dx : kind == 1 ? dhx : kind == 2 ? dcx : dw;
        size_t step = cnt > 80 ? cnt / 80 : 1;
        double worst = 0;
        size_t where = 0;
        for (size_t i = 0; i < cnt; i += step) {
            if (kind == 0 && !valid_row(c, i / (size_t)c->in)) continue;
            const double eps = 1e-6, v = buf[i];
            buf[i] = v + eps;
            double lp = loss(&n, saved, gy, ghy, gcy);
            buf[i] = v - eps;
            double lm = loss(&n, saved, gy, ghy, gcy);
            buf[i] = v;
            double num = (lp - lm) / (2 * eps);
            double e = fabs(num - an[i]) / (1.0 > fabs(num) ? 1.0 : fabs(num));
            if (!(e <= worst)) { worst = e; where = i; }
        }
        printf("FD %s %d layers %s: %s max relative error %.2e\n", c->cell == CUDNN_LSTM ? "LSTM" : "GRU",
               c->layers, c->dirs == 2 ? "bidirectional" : "unidirectional", names[kind], worst);
        CHECK_MSG(worst <= 2e-6, "cell %d layers %d dirs %d: %s relative error %g at %zu", c->cell, c->layers,
                  c->dirs, names[kind], worst, where);
    }
    free(dy); free(dhy); free(dcy); free(dx); free(dhx); free(dcx); free(dw);
    free(gy); free(ghy); free(gcy); free(saved);
    net_free(&n);
}

/* ---- (e) legacy calls: the same results as the v8 calls from the same states ---- */
static void legacy(cudnnRNNMode_t cell)
{
    enum { T = 4, B = 3, IN = 5, HID = 4, L = 3, D = 2, DP = D * HID, NPL = L * D };
    static const int batch_of_t[T] = { 3, 3, 2, 1 }, lens[B] = { 4, 3, 2 };
    const cudnnDataType_t dt = CUDNN_DATA_DOUBLE;
    cudnnDropoutDescriptor_t dd;
    size_t ssize;
    CHECK_OK(cudnnCreateDropoutDescriptor(&dd));
    CHECK_OK(cudnnDropoutGetStatesSize(h, &ssize));
    void *states = calloc(1, ssize), *saved = malloc(ssize);
    CHECK_OK(cudnnSetDropoutDescriptor(dd, h, 0.35f, states, ssize, 4242));
    memcpy(saved, states, ssize);
    cudnnRNNDescriptor_t r6, r8;
    cudnnTensorDescriptor_t xs[T], ys[T];
    CHECK_OK(rtu_legacy_pair(h, cell, dt, dd, IN, HID, L, T, batch_of_t, &r6, &r8, xs, ys));
    size_t psize = 0, lws = 0, lrs = 0, ws8 = 0, rs8 = 0;
    CHECK_OK(cudnnGetRNNParamsSize(h, r6, xs[0], &psize, dt));
    CHECK_OK(cudnnGetRNNWorkspaceSize(h, r6, T, xs, &lws));
    CHECK_OK(cudnnGetRNNTrainingReserveSize(h, r6, T, xs, &lrs));
    cudnnRNNDataDescriptor_t xd, yd;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&yd));
    CHECK_OK(cudnnSetRNNDataDescriptor(xd, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, IN, lens, NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(yd, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, DP, lens, NULL));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r8, CUDNN_FWD_MODE_TRAINING, xd, &ws8, &rs8));
    CHECK_EQ_INT(lrs, rs8);
    int wdims[3] = { (int)(psize / 8), 1, 1 };
    cudnnFilterDescriptor_t wdesc = rtu_filter(dt, 3, wdims);
    const size_t nx = 9 * IN, ny = 9 * DP, nh = (size_t)NPL * B * HID, nw = psize / 8;
    double *w = malloc(psize), *x = malloc(nx * 8), *hx = malloc(nh * 8), *cx = malloc(nh * 8), *dy = malloc(ny * 8);
    unsigned s = 17;
    for (size_t i = 0; i < nw; i++) w[i] = rtu_rand(&s, 0.5);
    for (size_t i = 0; i < nx; i++) x[i] = rtu_rand(&s, 1.0);
    for (size_t i = 0; i < nh; i++) { hx[i] = rtu_rand(&s, 0.5); cx[i] = rtu_rand(&s, 0.5); }
    for (size_t i = 0; i < ny; i++) dy[i] = rtu_rand(&s, 1.0);
    int sd[3] = { NPL, B, HID };
    cudnnTensorDescriptor_t st = rtu_tensor(dt, 3, sd);
    double *y8 = malloc(ny * 8), *hy = malloc(nh * 8), *cy = malloc(nh * 8), *dx8 = malloc(nx * 8);
    double *dhx8 = malloc(nh * 8), *dcx8 = malloc(nh * 8), *dw8 = calloc(1, psize), *yi = malloc(ny * 8);
    unsigned char *ws = malloc(lws), *rs = malloc(lrs);
    void *states8 = malloc(ssize);
    CHECK_OK(cudnnRNNForward(h, r8, CUDNN_FWD_MODE_TRAINING, lens, xd, x, yd, y8, st, hx, hy, st, cx, cy, psize, w,
                             ws8, ws, rs8, rs));
    memcpy(states8, states, ssize);
    CHECK_OK(cudnnRNNBackwardData_v8(h, r8, lens, yd, y8, dy, xd, dx8, st, hx, NULL, dhx8, st, cx, NULL, dcx8, psize, w,
                                     ws8, ws, rs8, rs));
    CHECK_OK(cudnnRNNBackwardWeights_v8(h, r8, CUDNN_WGRAD_MODE_ADD, lens, xd, x, st, hx, yd, y8, psize, dw8, ws8, ws,
                                        rs8, rs));
    CHECK_OK(cudnnRNNForwardInference(h, r6, T, xs, x, st, hx, st, cx, wdesc, w, ys, yi, st, hy, st, cy, ws, lws));
    CHECK_MSG(memcmp(yi, y8, ny * 8) != 0, "legacy: the training pass dropped something");

    double *y = malloc(ny * 8), *dx = malloc(nx * 8), *dhx = malloc(nh * 8), *dcx = malloc(nh * 8);
    double *dw = calloc(1, psize);
    memcpy(states, saved, ssize);
    CHECK_OK(cudnnRNNForwardTraining(h, r6, T, xs, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy, ws, lws, rs, lrs));
    CHECK_MSG(!memcmp(y, y8, ny * 8), "legacy training forward equals cudnnRNNForward bitwise");
    CHECK_MSG(!memcmp(states, states8, ssize), "and advances the states the same way");
    CHECK_OK(cudnnRNNBackwardData(h, r6, T, ys, y, ys, dy, st, NULL, st, NULL, wdesc, w, st, hx, st, cx, xs, dx, st, dhx,
                                  st, dcx, ws, lws, rs, lrs));
    CHECK_MSG(!memcmp(dx, dx8, nx * 8) && !memcmp(dhx, dhx8, nh * 8), "legacy backward data equals the v8 call");
    CHECK_OK(cudnnRNNBackwardWeights(h, r6, T, xs, x, st, hx, ys, y, ws, lws, wdesc, dw, rs, lrs));
    CHECK_MSG(!memcmp(dw, dw8, psize), "legacy backward weights equals the v8 call");
    memcpy(states, saved, ssize);
    memset(y, 0, ny * 8);
    CHECK_OK(cudnnRNNForwardTrainingEx(h, r6, xd, x, st, hx, st, cx, wdesc, w, yd, y, st, hy, st, cy, NULL, NULL, NULL,
                                       NULL, NULL, NULL, NULL, NULL, ws, lws, rs, lrs));
    CHECK_MSG(!memcmp(y, y8, ny * 8), "cudnnRNNForwardTrainingEx equals cudnnRNNForward bitwise");
    /* Find with three timed runs leaves the outputs and the states as one call does */
    memcpy(states, saved, ssize);
    memset(y, 0, ny * 8);
    cudnnAlgorithmPerformance_t perf;
    int got = 0;
    CHECK_OK(cudnnCreateAlgorithmPerformance(&perf, 1));
    CHECK_OK(cudnnFindRNNForwardTrainingAlgorithmEx(h, r6, T, xs, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy,
                                                    1.0f, 1, &got, &perf, ws, lws, rs, lrs));
    CHECK_MSG(!memcmp(y, y8, ny * 8) && !memcmp(states, states8, ssize), "Find: one call's outputs and states");
    cudnnAlgorithmDescriptor_t ad = NULL;
    cudnnStatus_t ast;
    float tm;
    size_t mem;
    if (cudnnGetAlgorithmPerformance(perf, &ad, &ast, &tm, &mem) == CUDNN_STATUS_SUCCESS && ad) {
        cudnnDestroyAlgorithmDescriptor(ad);
    }
    cudnnDestroyAlgorithmPerformance(&perf, 1);

    free(y); free(dx); free(dhx); free(dcx); free(dw); free(y8); free(hy); free(cy); free(dx8); free(dhx8);
    free(dcx8); free(dw8); free(yi); free(ws); free(rs); free(states8); free(w); free(x); free(hx); free(cx);
    free(dy); free(states); free(saved);
    for (int t = 0; t < T; t++) { rtu_tensor_free(xs[t]); rtu_tensor_free(ys[t]); }
    rtu_tensor_free(st);
    rtu_filter_free(wdesc);
    cudnnDestroyRNNDataDescriptor(xd); cudnnDestroyRNNDataDescriptor(yd);
    cudnnDestroyRNNDescriptor(r6); cudnnDestroyRNNDescriptor(r8);
    cudnnDestroyDropoutDescriptor(dd);
}

/* ---- bad input: refused before anything is written ---- */
static void bad_input(void)
{
    dcase c = { CUDNN_LSTM, 1, 2, 4, 5, 3, 2, { 3, 2, 0, 0 }, 0.5f, CUDNN_DATA_FLOAT, 5 };
    net n;
    net_init(&n, &c, h, 31);
    memset(n.y, 0x5a, n.ny * n.es);
    void *ycopy = malloc(n.ny * n.es);
    memcpy(ycopy, n.y, n.ny * n.es);
    /* probability > 0 without a states buffer */
    cudnnDropoutDescriptor_t nostates, never;
    CHECK_OK(cudnnCreateDropoutDescriptor(&nostates));
    CHECK_OK(cudnnSetDropoutDescriptor(nostates, h, 0.5f, NULL, 0, 1));
    CHECK_OK(cudnnSetRNNDescriptor_v8(n.r, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                      CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, c.dt, c.dt, CUDNN_DEFAULT_MATH, c.in,
                                      c.hid, c.hid, c.layers, nostates, CUDNN_RNN_PADDED_IO_ENABLED));
    CHECK_STATUS(fwd(&n, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK(!memcmp(ycopy, n.y, n.ny * n.es));
    CHECK_OK(fwd(&n, 0));   /* inference does not need it */
    memcpy(n.y, ycopy, n.ny * n.es);
    /* a never-set dropout descriptor */
    CHECK_OK(cudnnCreateDropoutDescriptor(&never));
    CHECK_OK(cudnnSetRNNDescriptor_v8(n.r, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                      CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, c.dt, c.dt, CUDNN_DEFAULT_MATH, c.in,
                                      c.hid, c.hid, c.layers, never, CUDNN_RNN_PADDED_IO_ENABLED));
    CHECK_STATUS(fwd(&n, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK(!memcmp(ycopy, n.y, n.ny * n.es));
    /* a states buffer that was never initialised */
    CHECK_OK(cudnnSetRNNDescriptor_v8(n.r, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                      CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, c.dt, c.dt, CUDNN_DEFAULT_MATH, c.in,
                                      c.hid, c.hid, c.layers, n.dd, CUDNN_RNN_PADDED_IO_ENABLED));
    memset(n.states, 0, n.ssize);
    CHECK_STATUS(fwd(&n, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK(!memcmp(ycopy, n.y, n.ny * n.es));
    cudnnDestroyDropoutDescriptor(nostates);
    cudnnDestroyDropoutDescriptor(never);
    free(ycopy);
    net_free(&n);
}

int main(void)
{
    setenv("HOSTDNN_NUM_THREADS", "1", 1);
    if (cudnnCreate(&h1) != CUDNN_STATUS_SUCCESS) return 1;
    setenv("HOSTDNN_NUM_THREADS", "2", 1);
    if (cudnnCreate(&h2) != CUDNN_STATUS_SUCCESS) return 1;
    unsetenv("HOSTDNN_NUM_THREADS");
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS) return 1;

    SECTION("mask statistics");
    mask_stats(0.3f);
    mask_stats(0.7f);
    SECTION("reproducibility");
    reproducibility();
    SECTION("inference and one layer");
    inference_and_one_layer();
    SECTION("finite differences");
    unsigned seed = 3;
    for (int cell = 0; cell < 2; cell++)
        for (int layers = 2; layers <= 3; layers++)
            for (int dirs = 1; dirs <= 2; dirs++) {
                dcase c = { cell ? CUDNN_GRU : CUDNN_LSTM, dirs, layers, 3, 3, 4, 3, { 4, 2, 3, 0 }, 0.4f,
                            CUDNN_DATA_DOUBLE, 1000u + seed };
                fd_case(&c, seed++);
            }
    SECTION("legacy");
    legacy(CUDNN_LSTM);
    legacy(CUDNN_GRU);
    SECTION("bad input");
    bad_input();
    cudnnDestroy(h); cudnnDestroy(h1); cudnnDestroy(h2);
    return hd_test_finish();
}
