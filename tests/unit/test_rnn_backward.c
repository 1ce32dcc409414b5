/* cudnnRNNBackwardData_v8 / cudnnRNNBackwardWeights_v8: gradients checked by central finite
 * differences of the forward pass in double, for every cell, directions, layers, layouts,
 * projection and clipping; FLOAT against DOUBLE; bad input. */
#include <cudnn.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "rnn_test_util.h"

static cudnnHandle_t h;

typedef struct {
    cudnnRNNMode_t cell;
    int dirs, layers, in, hid, proj;
    cudnnRNNBiasMode_t bias;
    int skip, clip;
    cudnnRNNDataLayout_t layout;
    int T, B;
    int lens[6];
    int use_hx;
} bcase;

typedef struct {
    cudnnDataType_t dt;
    size_t es;
    cudnnRNNDescriptor_t r;
    cudnnRNNDataDescriptor_t xd, yd;
    cudnnTensorDescriptor_t hd, cd;
    size_t wsize, wss, rss, nx, ny, nh, nc;
    void *w, *x, *hx, *cx, *y, *hy, *cy, *ws, *rs;
} net;

static double get(const net *n, const void *p, size_t i)
{
    if (n->dt == CUDNN_DATA_HALF) return rtu_from_half(((const uint16_t *)p)[i]);
    return n->dt == CUDNN_DATA_DOUBLE ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static void put(const net *n, void *p, size_t i, double v)
{
    if (n->dt == CUDNN_DATA_HALF) ((uint16_t *)p)[i] = rtu_to_half(v);
    else if (n->dt == CUDNN_DATA_DOUBLE) ((double *)p)[i] = v; else ((float *)p)[i] = (float)v;
}

static size_t rows_total(const bcase *c)
{
    if (c->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) return (size_t)c->T * c->B;
    size_t n = 0;
    for (int b = 0; b < c->B; b++) n += (size_t)c->lens[b];
    return n;
}

static void net_init(net *n, const bcase *c, cudnnDataType_t dt, unsigned seed)
{
    memset(n, 0, sizeof *n);
    n->dt = dt;
    n->es = dt == CUDNN_DATA_DOUBLE ? 8 : dt == CUDNN_DATA_HALF ? 2 : 4;
    const int D = c->dirs, NPL = c->layers * D;
    CHECK_OK(cudnnCreateRNNDescriptor(&n->r));
    CHECK_OK(cudnnSetRNNDescriptor_v8(n->r, CUDNN_RNN_ALGO_STANDARD, c->cell, c->bias,
                                      D == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
                                      c->skip ? CUDNN_SKIP_INPUT : CUDNN_LINEAR_INPUT, dt, dt, CUDNN_DEFAULT_MATH,
                                      c->in, c->hid, c->proj, c->layers, NULL, CUDNN_RNN_PADDED_IO_ENABLED));
    if (c->clip)
        CHECK_OK(cudnnRNNSetClip_v8(n->r, CUDNN_RNN_CLIP_MINMAX, CUDNN_NOT_PROPAGATE_NAN, -0.35, 0.3));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&n->xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&n->yd));
    CHECK_OK(cudnnSetRNNDataDescriptor(n->xd, dt, c->layout, c->T, c->B, c->in, c->lens, NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(n->yd, dt, c->layout, c->T, c->B, D * c->proj, c->lens, NULL));
    int hdims[3] = { NPL, c->B, c->proj }, cdims[3] = { NPL, c->B, c->hid };
    n->hd = rtu_tensor(dt, 3, hdims);
    n->cd = rtu_tensor(dt, 3, cdims);
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, n->r, &n->wsize));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, n->r, CUDNN_FWD_MODE_TRAINING, n->xd, &n->wss, &n->rss));
    n->nx = rows_total(c) * c->in;
    n->ny = rows_total(c) * D * c->proj;
    n->nh = (size_t)NPL * c->B * c->proj;
    n->nc = (size_t)NPL * c->B * c->hid;
    n->w = malloc(n->wsize);
    n->x = malloc(n->nx * n->es);
    n->hx = malloc(n->nh * n->es);
    n->cx = malloc(n->nc * n->es);
    n->y = malloc(n->ny * n->es);
    n->hy = malloc(n->nh * n->es);
    n->cy = malloc(n->nc * n->es);
    n->ws = malloc(n->wss);
    n->rs = malloc(n->rss);
    unsigned s = seed;
    for (size_t i = 0; i < n->wsize / n->es; i++) put(n, n->w, i, rtu_rand(&s, 0.6));
    for (size_t i = 0; i < n->nx; i++) put(n, n->x, i, rtu_rand(&s, 1.0));
    for (size_t i = 0; i < n->nh; i++) put(n, n->hx, i, rtu_rand(&s, 0.7));
    for (size_t i = 0; i < n->nc; i++) put(n, n->cx, i, rtu_rand(&s, 0.7));
}

static void net_free(net *n)
{
    free(n->w); free(n->x); free(n->hx); free(n->cx); free(n->y); free(n->hy); free(n->cy); free(n->ws); free(n->rs);
    rtu_tensor_free(n->hd); rtu_tensor_free(n->cd);
    cudnnDestroyRNNDataDescriptor(n->xd); cudnnDestroyRNNDataDescriptor(n->yd);
    cudnnDestroyRNNDescriptor(n->r);
}

static cudnnStatus_t fwd(net *n, const bcase *c, int training)
{
    return cudnnRNNForward(h, n->r, training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, c->lens, n->xd, n->x,
                           n->yd, n->y, n->hd, c->use_hx ? n->hx : NULL, n->hy, n->cd, c->use_hx ? n->cx : NULL, n->cy,
                           n->wsize, n->w, n->wss, n->ws, n->rss, n->rs);
}

/* Loss = <y, gy> + <hy, ghy> + <cy, gcy>; padding rows of y (unpacked) are not part of it. */
static double loss(net *n, const bcase *c, const double *gy, const double *ghy, const double *gcy)
{
    CHECK_OK(fwd(n, c, 1));   /* the work space was sized for training */
    const int DP = c->dirs * c->proj;
    double s = 0;
    for (size_t i = 0; i < n->ny; i++) {
        size_t row = i / DP;
        int t, b;
        if (c->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED) { t = (int)(row / c->B); b = (int)(row % c->B); }
        else if (c->layout == CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED) { b = (int)(row / c->T); t = (int)(row % c->T); }
        else { t = 0; b = 0; }
        if (c->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED && t >= c->lens[b]) continue;
        s += get(n, n->y, i) * gy[i];
    }
    for (size_t i = 0; i < n->nh; i++) s += get(n, n->hy, i) * ghy[i];
    if (c->cell == CUDNN_LSTM)
        for (size_t i = 0; i < n->nc; i++) s += get(n, n->cy, i) * gcy[i];
    return s;
}

typedef struct { double *dx, *dhx, *dcx, *dw; } grads;

static void backward(net *n, const bcase *c, const double *gy, const double *ghy, const double *gcy, grads *g)
{
    void *dy = malloc(n->ny * n->es), *dhy = malloc(n->nh * n->es), *dcy = malloc(n->nc * n->es);
    void *dx = malloc(n->nx * n->es), *dhx = malloc(n->nh * n->es), *dcx = malloc(n->nc * n->es);
    void *dw = calloc(1, n->wsize);
    for (size_t i = 0; i < n->ny; i++) put(n, dy, i, gy[i]);
    for (size_t i = 0; i < n->nh; i++) put(n, dhy, i, ghy[i]);
    for (size_t i = 0; i < n->nc; i++) put(n, dcy, i, gcy[i]);
    CHECK_OK(fwd(n, c, 1));
    CHECK_OK(cudnnRNNBackwardData_v8(h, n->r, c->lens, n->yd, n->y, dy, n->xd, dx, n->hd, c->use_hx ? n->hx : NULL, dhy,
                                     dhx, n->cd, c->use_hx ? n->cx : NULL, dcy, dcx, n->wsize, n->w, n->wss, n->ws,
                                     n->rss, n->rs));
    CHECK_OK(cudnnRNNBackwardWeights_v8(h, n->r, CUDNN_WGRAD_MODE_ADD, c->lens, n->xd, n->x, n->hd,
                                        c->use_hx ? n->hx : NULL, n->yd, n->y, n->wsize, dw, n->wss, n->ws, n->rss,
                                        n->rs));
    size_t nw = n->wsize / n->es;
    g->dx = malloc(n->nx * sizeof(double)); g->dhx = malloc(n->nh * sizeof(double));
    g->dcx = malloc(n->nc * sizeof(double)); g->dw = malloc(nw * sizeof(double));
    for (size_t i = 0; i < n->nx; i++) g->dx[i] = get(n, dx, i);
    for (size_t i = 0; i < n->nh; i++) g->dhx[i] = get(n, dhx, i);
    for (size_t i = 0; i < n->nc; i++) g->dcx[i] = get(n, dcx, i);
    for (size_t i = 0; i < nw; i++) g->dw[i] = get(n, dw, i);
    free(dy); free(dhy); free(dcy); free(dx); free(dhx); free(dcx); free(dw);
}

static void grads_free(grads *g) { free(g->dx); free(g->dhx); free(g->dcx); free(g->dw); }

/* Central difference of the loss w.r.t. element I of buffer P (double net). */
static double numeric(net *n, const bcase *c, void *p, size_t i, const double *gy, const double *ghy, const double *gcy)
{
    const double eps = 1e-6;
    double v = get(n, p, i);
    put(n, p, i, v + eps);
    double lp = loss(n, c, gy, ghy, gcy);
    put(n, p, i, v - eps);
    double lm = loss(n, c, gy, ghy, gcy);
    put(n, p, i, v);
    return (lp - lm) / (2 * eps);
}

static void check_case(const bcase *c, unsigned seed)
{
    net n;
    net_init(&n, c, CUDNN_DATA_DOUBLE, seed);
    unsigned s = seed * 7 + 3;
    double *gy = malloc(n.ny * sizeof(double)), *ghy = malloc(n.nh * sizeof(double)), *gcy = malloc(n.nc * sizeof(double));
    for (size_t i = 0; i < n.ny; i++) gy[i] = rtu_rand(&s, 1.0);
    for (size_t i = 0; i < n.nh; i++) ghy[i] = rtu_rand(&s, 1.0);
    for (size_t i = 0; i < n.nc; i++) gcy[i] = rtu_rand(&s, 1.0);
    /* padding rows of dy carry garbage that must be ignored */
    grads g;
    backward(&n, c, gy, ghy, gcy, &g);
    const int DP = c->dirs * c->proj;
    double worst = 0;
    size_t where = 0;
    int which = -1;
    const size_t nw = n.wsize / n.es;
    for (int kind = 0; kind < 4; kind++) {
        size_t cnt = kind == 0 ? n.nx : kind == 1 ? (c->use_hx ? n.nh : 0) : kind == 2 ? (c->use_hx && c->cell == CUDNN_LSTM ? n.nc : 0) : nw;
        void *buf = kind == 0 ? n.x : kind == 1 ? n.hx : kind == 2 ? n.cx : n.w;
        const double *an = kind == 0 ? g.dx : kind == 1 ? g.dhx : kind == 2 ? g.dcx : g.dw;
        size_t step = cnt > 60 ? cnt / 60 : 1;
        for (size_t i = 0; i < cnt; i += step) {
            if (kind == 0 && c->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) {
                size_t row = i / c->in;
                int t, b;
                if (c->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED) { t = (int)(row / c->B); b = (int)(row % c->B); }
                else { b = (int)(row / c->T); t = (int)(row % c->T); }
                if (t >= c->lens[b]) continue;
            }
            double num = numeric(&n, c, buf, i, gy, ghy, gcy);
            double e = fabs(num - an[i]) / (1.0 > fabs(num) ? 1.0 : fabs(num));
            if (!(e <= worst)) { worst = e; where = i; which = kind; }
        }
    }
    (void)DP;
    CHECK_MSG(worst <= 2e-6, "cell %d dirs %d layers %d proj %d/%d clip %d layout %d: worst relative gradient "
              "error %g (kind %d, index %zu)", c->cell, c->dirs, c->layers, c->proj, c->hid, c->clip, c->layout, worst,
              which, where);

    /* FLOAT run of the same problem agrees with DOUBLE */
    net f;
    net_init(&f, c, CUDNN_DATA_FLOAT, seed);
    for (size_t i = 0; i < nw; i++) put(&f, f.w, i, (double)(float)get(&n, n.w, i));
    grads gf;
    backward(&f, c, gy, ghy, gcy, &gf);
    double fe = 0;
    for (size_t i = 0; i < nw; i++) { double e = fabs(gf.dw[i] - g.dw[i]); if (!(e <= fe)) fe = e; }
    for (size_t i = 0; i < n.nx; i++) {
        if (c->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) {
            size_t row = i / c->in;
            int t, b;
            if (c->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED) { t = (int)(row / c->B); b = (int)(row % c->B); }
            else { b = (int)(row / c->T); t = (int)(row % c->T); }
            if (t >= c->lens[b]) continue;
        }
        double e = fabs(gf.dx[i] - g.dx[i]); if (!(e <= fe)) fe = e;
    }
    CHECK_MSG(fe <= 2e-4, "float vs double gradients: max difference %g (cell %d)", fe, c->cell);
    grads_free(&gf);
    net_free(&f);

    /* HALF (float compute) against FLOAT on the same half-representable inputs */
    {
        net hn, fn;
        net_init(&hn, c, CUDNN_DATA_HALF, seed);
        net_init(&fn, c, CUDNN_DATA_FLOAT, seed);
        for (size_t i = 0; i < nw; i++) { double v = get(&hn, hn.w, i); put(&fn, fn.w, i, v); }
        for (size_t i = 0; i < n.nx; i++) { double v = get(&hn, hn.x, i); put(&fn, fn.x, i, v); }
        for (size_t i = 0; i < n.nh; i++) { double v = get(&hn, hn.hx, i); put(&fn, fn.hx, i, v); }
        for (size_t i = 0; i < n.nc; i++) { double v = get(&hn, hn.cx, i); put(&fn, fn.cx, i, v); }
        double *ry = malloc(n.ny * sizeof(double)), *rh = malloc(n.nh * sizeof(double)), *rc = malloc(n.nc * sizeof(double));
        for (size_t i = 0; i < n.ny; i++) ry[i] = rtu_from_half(rtu_to_half(gy[i]));
        for (size_t i = 0; i < n.nh; i++) rh[i] = rtu_from_half(rtu_to_half(ghy[i]));
        for (size_t i = 0; i < n.nc; i++) rc[i] = rtu_from_half(rtu_to_half(gcy[i]));
        grads gh, gfl;
        backward(&hn, c, ry, rh, rc, &gh);
        backward(&fn, c, ry, rh, rc, &gfl);
        double he = 0;
        for (size_t i = 0; i < nw; i++) {
            double e = fabs(gh.dw[i] - gfl.dw[i]) / (1.0 + fabs(gfl.dw[i]));
            if (!(e <= he)) he = e;
        }
        for (size_t i = 0; i < n.nh; i++) {
            double e = fabs(gh.dhx[i] - gfl.dhx[i]) / (1.0 + fabs(gfl.dhx[i]));
            if (!(e <= he)) he = e;
        }
        CHECK_MSG(he <= 2e-3, "HALF vs FLOAT gradients: max relative difference %g (cell %d)", he, c->cell);
        grads_free(&gh); grads_free(&gfl);
        free(ry); free(rh); free(rc);
        net_free(&hn); net_free(&fn);
    }

    grads_free(&g);
    free(gy); free(ghy); free(gcy);
    net_free(&n);
}

static void test_gradients(void)
{
    SECTION("gradients vs finite differences");
    static const cudnnRNNMode_t cells[4] = { CUDNN_RNN_RELU, CUDNN_RNN_TANH, CUDNN_LSTM, CUDNN_GRU };
    static const cudnnRNNDataLayout_t lays[3] = { CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
                                                  CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
                                                  CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED };
    unsigned seed = 11;
    for (int ci = 0; ci < 4; ci++)
        for (int d = 1; d <= 2; d++)
            for (int li = 0; li < 3; li++) {
                bcase c;
                memset(&c, 0, sizeof c);
                c.cell = cells[ci]; c.dirs = d; c.layers = 1 + (li + ci) % 2; c.in = 3; c.hid = 3; c.proj = 3;
                c.bias = (cudnnRNNBiasMode_t)((ci + d + li) % 4);
                c.layout = lays[li]; c.T = 3; c.B = 3;
                if (c.layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) { c.lens[0] = 3; c.lens[1] = 2; c.lens[2] = 2; }
                else { c.lens[0] = 2; c.lens[1] = 3; c.lens[2] = li == 0 ? 0 : 1; }
                c.use_hx = (ci + li + d) % 2;
                check_case(&c, seed++);
            }
    bcase c;
    memset(&c, 0, sizeof c);
    c.cell = CUDNN_LSTM; c.dirs = 2; c.layers = 2; c.in = 3; c.hid = 4; c.proj = 2; c.bias = CUDNN_RNN_DOUBLE_BIAS;
    c.layout = CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED; c.T = 3; c.B = 2; c.lens[0] = 3; c.lens[1] = 2; c.use_hx = 1;
    check_case(&c, seed++);
    c.proj = 4; c.clip = 1; c.dirs = 1;
    check_case(&c, seed++);
    c.clip = 0; c.skip = 1; c.in = 4; c.cell = CUDNN_GRU;
    check_case(&c, seed++);
    c.cell = CUDNN_RNN_TANH;
    check_case(&c, seed++);
    /* float LSTM / GRU without a projection: backward data in blocks of 32 hidden units
       (rnn_bwd.inc), here two, the second partial; checked through FLOAT vs DOUBLE */
    for (int ci = 0; ci < 2; ci++) {
        memset(&c, 0, sizeof c);
        c.cell = ci ? CUDNN_GRU : CUDNN_LSTM; c.dirs = 1 + ci; c.layers = 1 + ci; c.in = 3; c.hid = 40; c.proj = 40;
        c.bias = ci ? CUDNN_RNN_DOUBLE_BIAS : CUDNN_RNN_SINGLE_REC_BIAS;
        c.layout = CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED; c.T = 3; c.B = 3;
        c.lens[0] = 3; c.lens[1] = 1; c.lens[2] = 2; c.use_hx = 1;
        check_case(&c, seed++);
    }
    /* every sequence of full length in a sequence-major layout: backward data reads dy and
       backward weights x in place (two layers: the layer below takes a work-space gradient) */
    for (int ci = 0; ci < 2; ci++) {
        memset(&c, 0, sizeof c);
        c.cell = ci ? CUDNN_GRU : CUDNN_LSTM; c.dirs = 2 - ci; c.layers = 2; c.in = 3; c.hid = 40; c.proj = 40;
        c.bias = CUDNN_RNN_DOUBLE_BIAS;
        c.layout = ci ? CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED : CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
        c.T = 3; c.B = 3; c.lens[0] = c.lens[1] = c.lens[2] = 3; c.use_hx = ci;
        check_case(&c, seed++);
    }
}

static void test_backward_errors(void)
{
    SECTION("backward bad input");
    bcase c;
    memset(&c, 0, sizeof c);
    c.cell = CUDNN_LSTM; c.dirs = 1; c.layers = 1; c.in = 2; c.hid = 3; c.proj = 3; c.bias = CUDNN_RNN_DOUBLE_BIAS;
    c.layout = CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED; c.T = 2; c.B = 2; c.lens[0] = 2; c.lens[1] = 1; c.use_hx = 1;
    net n;
    net_init(&n, &c, CUDNN_DATA_FLOAT, 5);
    CHECK_OK(fwd(&n, &c, 1));
    float dy[16], dx[8], dw[200];
    CHECK(n.wsize <= sizeof dw);
    for (int i = 0; i < 16; i++) dy[i] = 1.0f;
    for (int i = 0; i < 8; i++) dx[i] = 55.0f;
    for (int i = 0; i < 200; i++) dw[i] = 0.0f;
#define BD(hh, rr, lens, xd, dxp, yd, dyp, hd, cd, wsz, wss, rss) \
    cudnnRNNBackwardData_v8(hh, rr, lens, yd, n.y, dyp, xd, dxp, hd, n.hx, NULL, NULL, cd, n.cx, NULL, NULL, wsz, n.w, \
                            wss, n.ws, rss, n.rs)
    CHECK_STATUS(BD(NULL, n.r, c.lens, n.xd, dx, n.yd, dy, n.hd, n.cd, n.wsize, n.wss, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BD(h, NULL, c.lens, n.xd, dx, n.yd, dy, n.hd, n.cd, n.wsize, n.wss, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BD(h, n.r, NULL, n.xd, dx, n.yd, dy, n.hd, n.cd, n.wsize, n.wss, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BD(h, n.r, c.lens, n.yd, dx, n.yd, dy, n.hd, n.cd, n.wsize, n.wss, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BD(h, n.r, c.lens, n.xd, NULL, n.yd, dy, n.hd, n.cd, n.wsize, n.wss, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BD(h, n.r, c.lens, n.xd, dx, n.yd, NULL, n.hd, n.cd, n.wsize, n.wss, n.rss), CUDNN_STATUS_BAD_PARAM);
    int wd[3] = { 2, 2, 3 };
    cudnnTensorDescriptor_t wrong = rtu_tensor(CUDNN_DATA_FLOAT, 3, wd);
    CHECK_STATUS(BD(h, n.r, c.lens, n.xd, dx, n.yd, dy, wrong, n.cd, n.wsize, n.wss, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BD(h, n.r, c.lens, n.xd, dx, n.yd, dy, n.hd, wrong, n.wsize, n.wss, n.rss), CUDNN_STATUS_BAD_PARAM);
    rtu_tensor_free(wrong);
    CHECK_STATUS(BD(h, n.r, c.lens, n.xd, dx, n.yd, dy, n.hd, NULL, n.wsize, n.wss, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BD(h, n.r, c.lens, n.xd, dx, n.yd, dy, n.hd, n.cd, n.wsize - 4, n.wss, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BD(h, n.r, c.lens, n.xd, dx, n.yd, dy, n.hd, n.cd, n.wsize, n.wss - 1, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BD(h, n.r, c.lens, n.xd, dx, n.yd, dy, n.hd, n.cd, n.wsize, n.wss, n.rss - 1), CUDNN_STATUS_BAD_PARAM);
    int ok = 1;
    for (int i = 0; i < 8; i++) ok &= dx[i] == 55.0f;
    CHECK_MSG(ok, "dx untouched after refused calls");
    CHECK_OK(BD(h, n.r, c.lens, n.xd, dx, n.yd, dy, n.hd, n.cd, n.wsize, n.wss, n.rss));
#undef BD
#define BW(mode, xp, wsz, dwp, rss) \
    cudnnRNNBackwardWeights_v8(h, n.r, mode, c.lens, n.xd, xp, n.hd, n.hx, n.yd, n.y, wsz, dwp, n.wss, n.ws, rss, n.rs)
    CHECK_STATUS(BW((cudnnWgradMode_t)99, n.x, n.wsize, dw, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BW(CUDNN_WGRAD_MODE_SET, n.x, n.wsize, dw, n.rss), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(BW(CUDNN_WGRAD_MODE_ADD, NULL, n.wsize, dw, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BW(CUDNN_WGRAD_MODE_ADD, n.x, n.wsize - 4, dw, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BW(CUDNN_WGRAD_MODE_ADD, n.x, n.wsize, NULL, n.rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(BW(CUDNN_WGRAD_MODE_ADD, n.x, n.wsize, dw, n.rss - 1), CUDNN_STATUS_BAD_PARAM);
    ok = 1;
    for (int i = 0; i < 200; i++) ok &= dw[i] == 0.0f;
    CHECK_MSG(ok, "dw untouched after refused calls");
    CHECK_OK(BW(CUDNN_WGRAD_MODE_ADD, n.x, n.wsize, dw, n.rss));
    float dw1[200];
    memcpy(dw1, dw, sizeof dw1);
    CHECK_OK(BW(CUDNN_WGRAD_MODE_ADD, n.x, n.wsize, dw, n.rss));
    ok = 1;
    for (size_t i = 0; i < n.wsize / 4; i++) ok &= fabsf(dw[i] - 2.0f * dw1[i]) <= 1e-5f * (1.0f + fabsf(dw1[i]));
    CHECK_MSG(ok, "CUDNN_WGRAD_MODE_ADD accumulates");
#undef BW
    net_free(&n);
}

int main(void)
{
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 1;
    test_gradients();
    test_backward_errors();
    cudnnDestroy(h);
    return hd_test_finish();
}
