/* HALF data of the RNN and attention calls is computed on float (RNN) or double (attention)
 * values converted from it, and every result is rounded once to half.  So each HALF result
 * equals, bit for bit, the FLOAT call's result on the same half-representable inputs rounded
 * to half (round to nearest even).  Checked for the forward pass (inference and training),
 * backward data and backward weights, every cell and layout, projection, clipping; and the
 * HALF work and reserve spaces are the FLOAT ones (they hold floats). */
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "rnn_test_util.h"

static cudnnHandle_t h;
static unsigned seed_ = 2024u;

static unsigned rnd(void)
{
    seed_ = seed_ * 1664525u + 1013904223u;
    return seed_ >> 8;
}

/* half -> float: exact */
static float h2f(uint16_t v)
{
    int e = (v >> 10) & 31, m = v & 1023;
    float mag = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(1024 + m), e - 25);
    return (v & 0x8000) ? -mag : mag;
}

/* float -> half, round to nearest even (finite inputs below 65520 in magnitude) */
static uint16_t f2h(float f)
{
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    double a = fabs((double)f);
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e);                         /* a = m * 2^e, 0.5 <= m < 1 */
    int ulp_exp = (e - 1 < -14 ? -14 : e - 1) - 10;
    double q = nearbyint(ldexp(a, -ulp_exp));   /* ties to even */
    double v = ldexp(q, ulp_exp);
    if (v < ldexp(1.0, -14))
        return (uint16_t)(sign | (uint16_t)q);   /* subnormal: q counts 2^-24 */
    frexp(v, &e);
    int m = (int)ldexp(v, 11 - e) - 1024;
    return (uint16_t)(sign | ((e - 1 + 15) << 10) | m);
}

/* N random halves of magnitude about 2^-6 .. 1 (plus zeros), and their float values. */
static void gen(uint16_t *hv, float *fv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned r = rnd();
        uint16_t v = (r % 17 == 0) ? 0 : (uint16_t)(((r >> 5) & 1) << 15 | (9 + (r >> 6) % 6) << 10 | ((r >> 9) & 1023));
        hv[i] = v;
        fv[i] = h2f(v);
    }
}

/* Every half equals the rounded float. */
static int same(const uint16_t *hv, const float *fv, size_t n, size_t *where)
{
    for (size_t i = 0; i < n; i++)
        if (hv[i] != f2h(fv[i])) {
            *where = i;
            return 0;
        }
    return 1;
}

#define SAME(hbuf, fbuf, n, what) do { size_t w_ = 0; \
        CHECK_MSG(same(hbuf, fbuf, n, &w_), "%s[%zu]: half %04x, float %.9g (case %d)", what, w_, \
                  (unsigned)(hbuf)[w_], (double)(fbuf)[w_], cs); } while (0)

typedef struct {
    cudnnRNNMode_t cell;
    int dirs, layers, in, hid, proj, skip, clip;
    cudnnRNNBiasMode_t bias;
    cudnnRNNDataLayout_t layout;
    int T, B, lens[5];
} rcase;

typedef struct {
    cudnnRNNDescriptor_t r;
    cudnnRNNDataDescriptor_t xd, yd;
    cudnnTensorDescriptor_t hd, cd;
    size_t wsize, wss, rss, wssi;
} rnet;

static void rnet_init(rnet *n, const rcase *c, cudnnDataType_t dt)
{
    CHECK_OK(cudnnCreateRNNDescriptor(&n->r));
    CHECK_OK(cudnnSetRNNDescriptor_v8(n->r, CUDNN_RNN_ALGO_STANDARD, c->cell, c->bias,
                                      c->dirs == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
                                      c->skip ? CUDNN_SKIP_INPUT : CUDNN_LINEAR_INPUT, dt, CUDNN_DATA_FLOAT,
                                      CUDNN_DEFAULT_MATH, c->in, c->hid, c->proj, c->layers, NULL,
                                      CUDNN_RNN_PADDED_IO_ENABLED));
    if (c->clip)
        CHECK_OK(cudnnRNNSetClip_v8(n->r, CUDNN_RNN_CLIP_MINMAX, CUDNN_NOT_PROPAGATE_NAN, -0.4, 0.35));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&n->xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&n->yd));
    CHECK_OK(cudnnSetRNNDataDescriptor(n->xd, dt, c->layout, c->T, c->B, c->in, c->lens, NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(n->yd, dt, c->layout, c->T, c->B, c->dirs * c->proj, c->lens, NULL));
    int hdims[3] = { c->layers * c->dirs, c->B, c->proj }, cdims[3] = { c->layers * c->dirs, c->B, c->hid };
    n->hd = rtu_tensor(dt, 3, hdims);
    n->cd = rtu_tensor(dt, 3, cdims);
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, n->r, &n->wsize));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, n->r, CUDNN_FWD_MODE_TRAINING, n->xd, &n->wss, &n->rss));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, n->r, CUDNN_FWD_MODE_INFERENCE, n->xd, &n->wssi, NULL));
}

static void rnet_free(rnet *n)
{
    rtu_tensor_free(n->hd);
    rtu_tensor_free(n->cd);
    cudnnDestroyRNNDataDescriptor(n->xd);
    cudnnDestroyRNNDataDescriptor(n->yd);
    cudnnDestroyRNNDescriptor(n->r);
}

/* The buffers of one call, as halves and as their float values. */
typedef struct {
    uint16_t *h;
    float *f;
    size_t n;
} pair;

static pair pair_new(size_t n, int random)
{
    pair p = { calloc(n ? n : 1, 2), calloc(n ? n : 1, 4), n };
    if (random)
        gen(p.h, p.f, n);
    return p;
}

static void pair_free(pair *p)
{
    free(p->h);
    free(p->f);
}

static void rnn_case(const rcase *c, int cs)
{
    rnet hn, fn;
    rnet_init(&hn, c, CUDNN_DATA_HALF);
    rnet_init(&fn, c, CUDNN_DATA_FLOAT);
    SECTION("RNN HALF spaces");
    CHECK_EQ_INT(hn.wsize * 2, fn.wsize);
    CHECK_EQ_INT(hn.wss, fn.wss);
    CHECK_EQ_INT(hn.rss, fn.rss);
    CHECK_EQ_INT(hn.wssi, fn.wssi);
    size_t rows = (size_t)c->T * c->B, NPL = (size_t)c->layers * c->dirs;
    size_t nx = rows * c->in, ny = rows * c->dirs * c->proj, nh = NPL * c->B * c->proj, nc = NPL * c->B * c->hid;
    pair w = pair_new(fn.wsize / 4, 1), x = pair_new(nx, 1), hx = pair_new(nh, 1), cx = pair_new(nc, 1);
    pair dy = pair_new(ny, 1), dhy = pair_new(nh, 1), dcy = pair_new(nc, 1), dw = pair_new(fn.wsize / 4, 1);
    pair y = pair_new(ny, 0), hy = pair_new(nh, 0), cy = pair_new(nc, 0);
    pair dx = pair_new(nx, 0), dhx = pair_new(nh, 0), dcx = pair_new(nc, 0);
    size_t wsb = fn.wss > fn.wssi ? fn.wss : fn.wssi;
    void *hws = malloc(wsb), *fws = malloc(wsb), *hrs = malloc(fn.rss), *frs = malloc(fn.rss);

    SECTION("RNN HALF forward inference");
    CHECK_OK(cudnnRNNForward(h, hn.r, CUDNN_FWD_MODE_INFERENCE, c->lens, hn.xd, x.h, hn.yd, y.h, hn.hd, hx.h, hy.h, hn.cd,
                             cx.h, cy.h, hn.wsize, w.h, hn.wssi, hws, 0, NULL));
    CHECK_OK(cudnnRNNForward(h, fn.r, CUDNN_FWD_MODE_INFERENCE, c->lens, fn.xd, x.f, fn.yd, y.f, fn.hd, hx.f, hy.f, fn.cd,
                             cx.f, cy.f, fn.wsize, w.f, fn.wssi, fws, 0, NULL));
    SAME(y.h, y.f, ny, "y");
    SAME(hy.h, hy.f, nh, "hy");
    if (c->cell == CUDNN_LSTM)
        SAME(cy.h, cy.f, nc, "cy");

    SECTION("RNN HALF forward training");
    CHECK_OK(cudnnRNNForward(h, hn.r, CUDNN_FWD_MODE_TRAINING, c->lens, hn.xd, x.h, hn.yd, y.h, hn.hd, hx.h, hy.h, hn.cd,
                             cx.h, cy.h, hn.wsize, w.h, hn.wss, hws, hn.rss, hrs));
    CHECK_OK(cudnnRNNForward(h, fn.r, CUDNN_FWD_MODE_TRAINING, c->lens, fn.xd, x.f, fn.yd, y.f, fn.hd, hx.f, hy.f, fn.cd,
                             cx.f, cy.f, fn.wsize, w.f, fn.wss, fws, fn.rss, frs));
    SAME(y.h, y.f, ny, "y");
    SAME(hy.h, hy.f, nh, "hy");

    SECTION("RNN HALF backward data");
    CHECK_OK(cudnnRNNBackwardData_v8(h, hn.r, c->lens, hn.yd, y.h, dy.h, hn.xd, dx.h, hn.hd, hx.h, dhy.h, dhx.h, hn.cd,
                                     cx.h, dcy.h, dcx.h, hn.wsize, w.h, hn.wss, hws, hn.rss, hrs));
    CHECK_OK(cudnnRNNBackwardData_v8(h, fn.r, c->lens, fn.yd, y.f, dy.f, fn.xd, dx.f, fn.hd, hx.f, dhy.f, dhx.f, fn.cd,
                                     cx.f, dcy.f, dcx.f, fn.wsize, w.f, fn.wss, fws, fn.rss, frs));
    SAME(dx.h, dx.f, nx, "dx");
    SAME(dhx.h, dhx.f, nh, "dhx");
    if (c->cell == CUDNN_LSTM)
        SAME(dcx.h, dcx.f, nc, "dcx");
    /* compared after backward data: the forward pass leaves the gradient areas to it */
    CHECK_MSG(!memcmp(hrs, frs, fn.rss), "the reserve spaces differ (case %d)", cs);

    SECTION("RNN HALF backward weights (added to half values)");
    CHECK_OK(cudnnRNNBackwardWeights_v8(h, hn.r, CUDNN_WGRAD_MODE_ADD, c->lens, hn.xd, x.h, hn.hd, hx.h, hn.yd, y.h,
                                        hn.wsize, dw.h, hn.wss, hws, hn.rss, hrs));
    CHECK_OK(cudnnRNNBackwardWeights_v8(h, fn.r, CUDNN_WGRAD_MODE_ADD, c->lens, fn.xd, x.f, fn.hd, hx.f, fn.yd, y.f,
                                        fn.wsize, dw.f, fn.wss, fws, fn.rss, frs));
    SAME(dw.h, dw.f, dw.n, "dw");

    pair *all[] = { &w, &x, &hx, &cx, &dy, &dhy, &dcy, &dw, &y, &hy, &cy, &dx, &dhx, &dcx };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        pair_free(all[i]);
    free(hws); free(fws); free(hrs); free(frs);
    rnet_free(&hn);
    rnet_free(&fn);
}

typedef struct {
    unsigned mode;
    int heads, qs, ks, vs, qp, kp, vp, op, QT, KT, B, QB, residuals;
} acase;

typedef struct {
    cudnnAttnDescriptor_t a;
    cudnnSeqDataDescriptor_t qd, kd, vd, od;
    size_t wsize, wks, rss;
} anet;

static void anet_init(anet *n, const acase *c, cudnnDataType_t dt, const int *qlen, const int *klen, int KB, int dout)
{
    CHECK_OK(cudnnCreateAttnDescriptor(&n->a));
    CHECK_OK(cudnnSetAttnDescriptor(n->a, c->mode, c->heads, 0.7, dt, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, NULL, NULL,
                                    c->qs, c->ks, c->vs, c->qp, c->kp, c->vp, c->op, c->QT, c->KT, c->B, c->QB));
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(h, n->a, &n->wsize, &n->wks, &n->rss));
    cudnnSeqDataAxis_t ax[4] = { CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM,
                                 CUDNN_SEQDATA_VECT_DIM };
    int qdim[4], kdim[4], vdim[4], odim[4];
    qdim[CUDNN_SEQDATA_TIME_DIM] = c->QT; qdim[CUDNN_SEQDATA_BATCH_DIM] = c->B;
    qdim[CUDNN_SEQDATA_BEAM_DIM] = c->QB; qdim[CUDNN_SEQDATA_VECT_DIM] = c->qs;
    memcpy(odim, qdim, sizeof odim);
    odim[CUDNN_SEQDATA_VECT_DIM] = dout;
    kdim[CUDNN_SEQDATA_TIME_DIM] = c->KT; kdim[CUDNN_SEQDATA_BATCH_DIM] = c->B;
    kdim[CUDNN_SEQDATA_BEAM_DIM] = KB; kdim[CUDNN_SEQDATA_VECT_DIM] = c->ks;
    memcpy(vdim, kdim, sizeof vdim);
    vdim[CUDNN_SEQDATA_VECT_DIM] = c->vs;
    cudnnSeqDataDescriptor_t *ds[4] = { &n->qd, &n->kd, &n->vd, &n->od };
    const int *dims[4] = { qdim, kdim, vdim, odim }, *lens[4] = { qlen, klen, klen, qlen };
    size_t nl[4] = { (size_t)c->B * c->QB, (size_t)c->B * KB, (size_t)c->B * KB, (size_t)c->B * c->QB };
    for (int i = 0; i < 4; i++) {
        CHECK_OK(cudnnCreateSeqDataDescriptor(ds[i]));
        CHECK_OK(cudnnSetSeqDataDescriptor(*ds[i], dt, 4, dims[i], ax, nl[i], lens[i], NULL));
    }
}

static void anet_free(anet *n)
{
    cudnnDestroySeqDataDescriptor(n->qd);
    cudnnDestroySeqDataDescriptor(n->kd);
    cudnnDestroySeqDataDescriptor(n->vd);
    cudnnDestroySeqDataDescriptor(n->od);
    cudnnDestroyAttnDescriptor(n->a);
}

static void attn_case(const acase *c, int cs)
{
    const int KB = (c->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) ? c->QB : 1;
    const int dv = c->vp ? c->vp : c->vs, dout = c->op ? c->op : c->heads * dv;
    int qlen[16], klen[16], lo[16], hi[16];
    for (int i = 0; i < c->B * c->QB; i++) qlen[i] = c->QT - i % 2;
    for (int i = 0; i < c->B * KB; i++) klen[i] = c->KT - (i % 3 == 1);
    for (int t = 0; t < c->QT; t++) { lo[t] = t % 3 == 2; hi[t] = t % 2 ? c->KT : c->KT - 1; }
    anet hn, fn;
    anet_init(&hn, c, CUDNN_DATA_HALF, qlen, klen, KB, dout);
    anet_init(&fn, c, CUDNN_DATA_FLOAT, qlen, klen, KB, dout);
    SECTION("attention HALF buffers");
    CHECK_EQ_INT(hn.wsize * 2, fn.wsize);
    size_t nq = (size_t)c->QT * c->B * c->QB * c->qs, nk = (size_t)c->KT * c->B * KB * c->ks;
    size_t nv = (size_t)c->KT * c->B * KB * c->vs, no = (size_t)c->QT * c->B * c->QB * dout;
    pair w = pair_new(fn.wsize / 4, 1), q = pair_new(nq, 1), k = pair_new(nk, 1), v = pair_new(nv, 1);
    pair go = pair_new(no, 1), dw = pair_new(fn.wsize / 4, 1), o = pair_new(no, 0);
    pair dq = pair_new(nq, 0), dk = pair_new(nk, 0), dvv = pair_new(nv, 0);
    void *hws = malloc(hn.wks ? hn.wks : 1), *fws = malloc(fn.wks ? fn.wks : 1);
    void *hrs = malloc(hn.rss), *frs = malloc(fn.rss);

    SECTION("attention HALF forward");
    CHECK_OK(cudnnMultiHeadAttnForward(h, hn.a, -1, lo, hi, qlen, klen, hn.qd, q.h, c->residuals ? q.h : NULL, hn.kd, k.h,
                                       hn.vd, v.h, hn.od, o.h, hn.wsize, w.h, hn.wks, hws, hn.rss, hrs));
    CHECK_OK(cudnnMultiHeadAttnForward(h, fn.a, -1, lo, hi, qlen, klen, fn.qd, q.f, c->residuals ? q.f : NULL, fn.kd, k.f,
                                       fn.vd, v.f, fn.od, o.f, fn.wsize, w.f, fn.wks, fws, fn.rss, frs));
    SAME(o.h, o.f, no, "out");

    SECTION("attention HALF backward data");
    CHECK_OK(cudnnMultiHeadAttnBackwardData(h, hn.a, lo, hi, qlen, klen, hn.od, go.h, hn.qd, dq.h, q.h, hn.kd, dk.h, k.h,
                                            hn.vd, dvv.h, v.h, hn.wsize, w.h, hn.wks, hws, hn.rss, hrs));
    CHECK_OK(cudnnMultiHeadAttnBackwardData(h, fn.a, lo, hi, qlen, klen, fn.od, go.f, fn.qd, dq.f, q.f, fn.kd, dk.f, k.f,
                                            fn.vd, dvv.f, v.f, fn.wsize, w.f, fn.wks, fws, fn.rss, frs));
    SAME(dq.h, dq.f, nq, "dqueries");
    SAME(dk.h, dk.f, nk, "dkeys");
    SAME(dvv.h, dvv.f, nv, "dvalues");

    SECTION("attention HALF backward weights (added to half values)");
    CHECK_OK(cudnnMultiHeadAttnBackwardWeights(h, hn.a, CUDNN_WGRAD_MODE_ADD, hn.qd, q.h, hn.kd, k.h, hn.vd, v.h, hn.od,
                                               go.h, hn.wsize, w.h, dw.h, hn.wks, hws, hn.rss, hrs));
    CHECK_OK(cudnnMultiHeadAttnBackwardWeights(h, fn.a, CUDNN_WGRAD_MODE_ADD, fn.qd, q.f, fn.kd, k.f, fn.vd, v.f, fn.od,
                                               go.f, fn.wsize, w.f, dw.f, fn.wks, fws, fn.rss, frs));
    SAME(dw.h, dw.f, dw.n, "dweights");

    pair *all[] = { &w, &q, &k, &v, &go, &dw, &o, &dq, &dk, &dvv };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        pair_free(all[i]);
    free(hws); free(fws); free(hrs); free(frs);
    anet_free(&hn);
    anet_free(&fn);
}

/* The test's own conversions agree with each other on every half and at the rounding ties. */
static void check_conversions(void)
{
    SECTION("test conversions");
    int bad = 0;
    for (unsigned v = 0; v < 65536; v++)
        if ((v & 0x7c00) != 0x7c00 && f2h(h2f((uint16_t)v)) != v)
            bad++;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(f2h(1.0f + ldexpf(1.0f, -11)), 0x3c00);          /* tie: to even (down) */
    CHECK_EQ_INT(f2h(1.0f + 3 * ldexpf(1.0f, -11)), 0x3c02);      /* tie: to even (up) */
    CHECK_EQ_INT(f2h(ldexpf(1.0f, -25)), 0x0000);                  /* half the smallest subnormal */
    CHECK_EQ_INT(f2h(ldexpf(3.0f, -25)), 0x0002);
    CHECK_EQ_INT(f2h(65504.0f), 0x7bff);
}

int main(void)
{
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 1;
    check_conversions();
    const cudnnRNNMode_t cells[4] = { CUDNN_RNN_RELU, CUDNN_RNN_TANH, CUDNN_LSTM, CUDNN_GRU };
    int cs = 0;
    for (int i = 0; i < 4; i++) {
        int lstm = cells[i] == CUDNN_LSTM;
        rcase a = { cells[i], 2, 2, 7, 8, lstm ? 5 : 8, 0, lstm, CUDNN_RNN_DOUBLE_BIAS,
                    CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, 5, 4, { 5, 2, 4, 1 } };
        rnn_case(&a, cs++);
        rcase b = { cells[i], 1, 2, 6, 6, 6, 1, 0, CUDNN_RNN_SINGLE_INP_BIAS,
                    CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 4, 3, { 4, 3, 1 } };
        rnn_case(&b, cs++);
        rcase d = { cells[i], 2, 1, 5, 7, 7, 0, 0, CUDNN_RNN_SINGLE_REC_BIAS,
                    CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, 4, 3, { 2, 4, 3 } };
        rnn_case(&d, cs++);
    }
    const acase ac[3] = {
        { CUDNN_ATTN_QUERYMAP_ALL_TO_ONE | CUDNN_ATTN_ENABLE_PROJ_BIASES, 3, 6, 5, 7, 4, 4, 3, 6, 5, 6, 2, 3, 0 },
        { CUDNN_ATTN_QUERYMAP_ONE_TO_ONE | CUDNN_ATTN_DISABLE_PROJ_BIASES, 2, 6, 6, 5, 0, 0, 0, 0, 4, 5, 2, 2, 0 },
        { CUDNN_ATTN_QUERYMAP_ALL_TO_ONE | CUDNN_ATTN_ENABLE_PROJ_BIASES, 2, 6, 5, 7, 4, 4, 3, 6, 5, 6, 2, 1, 1 },
    };
    for (int i = 0; i < 3; i++)
        attn_case(&ac[i], cs++);
    cudnnDestroy(h);
    return hd_test_finish();
}
