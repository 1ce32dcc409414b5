/*
 * cudnnMakeFusedOpsPlan / cudnnFusedOpsExecute for the convolution ops (0: scale, bias,
 * ReLU, convolution, statistics; 1: the same before a weight gradient) against a float64
 * composition of the unfused steps (tests/ref/conv_ref.c), in FLOAT and in cuDNN's own HALF +
 * NHWC configuration; bad packs, bad variant packs and too-small workspaces (status, outputs
 * untouched); bitwise determinism across thread counts.  BN finalize and the unimplemented
 * ops are in test_fused_ops_bnfinal.c.
 */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "harness.h"
#include "ref/conv_ref.h"
#include "unit/fused_ops_util.h"

/* ---- data helpers (independent of src/) ---- */


static void put(void *p, cudnnDataType_t t, long i, double v)
{
    if (t == CUDNN_DATA_DOUBLE) {
        ((double *)p)[i] = v;
    } else if (t == CUDNN_DATA_BFLOAT16) {       /* test values are exact in bfloat16 */
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        ((uint16_t *)p)[i] = (uint16_t)(u >> 16);
    } else if (t == CUDNN_DATA_HALF) {
        ((uint16_t *)p)[i] = to_half(v);
    } else {
        ((float *)p)[i] = (float)v;
    }
}

static double get(const void *p, cudnnDataType_t t, long i)
{
    if (t == CUDNN_DATA_DOUBLE)
        return ((const double *)p)[i];
    if (t == CUDNN_DATA_BFLOAT16) {
        uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return t == CUDNN_DATA_HALF ? from_half(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

static size_t tsize(cudnnDataType_t t)
{
    return t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ? 2 : t == CUDNN_DATA_DOUBLE ? 8 : 4;
}

/* Element strides (n, c, h, w) of an N x C x H x W array in FORMAT, each outer stride
 * padded by PAD elements (0: packed). */
static void strides_for(cudnnTensorFormat_t f, int C, int H, int W, int pad, int st[4])
{
    if (f == CUDNN_TENSOR_NHWC) {
        st[1] = 1;
        st[3] = C + pad;
        st[2] = st[3] * W + pad;
        st[0] = st[2] * H + pad;
    } else {
        st[3] = 1;
        st[2] = W + pad;
        st[1] = st[2] * H + pad;
        st[0] = st[1] * C + pad;
    }
}

static long span(const int st[4], int N, int C, int H, int W)
{
    return (long)(N - 1) * st[0] + (long)(C - 1) * st[1] + (long)(H - 1) * st[2] + (long)(W - 1) * st[3] + 1;
}

static long at(const int st[4], int n, int c, int h, int w)
{
    return (long)n * st[0] + (long)c * st[1] + (long)h * st[2] + (long)w * st[3];
}

static unsigned rng = 12345u;
static double rnd8(void)            /* a multiple of 1/8 in [-1, 1]: exact in HALF */
{
    rng = rng * 1103515245u + 12345u;
    return (int)((rng >> 16) % 17) / 8.0 - 1.0;
}

/* Store a logical NCHW double array into buffer P of type T with strides ST. */
static void store_all(void *p, cudnnDataType_t t, const int st[4], int N, int C, int H, int W, const double *v)
{
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int h = 0; h < H; h++)
                for (int w = 0; w < W; w++)
                    put(p, t, at(st, n, c, h, w), v[(((long)n * C + c) * H + h) * W + w]);
}

static void *aligned(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
}

static cudnnHandle_t h;


/* ---- op 0 / op 1: scale, bias, ReLU, convolution (+ statistics) ---- */

typedef struct {
    cudnnDataType_t type;
    cudnnTensorFormat_t fmt;
    int N, C, H, W, K, R, pad, str;
    int scale, bias, relu, sum, sqsum;
    int padded;                         /* x and y strides padded (not packed) */
} conv_case;

typedef struct {
    conv_case k;
    conv_ref_shape s;
    cudnnTensorDescriptor_t xd, yd, eqd, statd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad;
    double *x, *w, *y, *sc, *bi, *xt;   /* logical double values */
    void *xb, *wb, *yb, *scb, *bib, *sumb, *sqb;
    int OH, OW;
    int xs[4], ys[4], fs[4];            /* element strides of x, y (or dy), w (or dw) */
} conv_setup;

static int eq_float;                    /* 1: eqScale/eqBias in FLOAT whatever the data type */

static void setup_conv(conv_setup *u, const conv_case *k, int wgrad)
{
    cudnnDataType_t eqt = eq_float ? CUDNN_DATA_FLOAT : k->type;
    memset(u, 0, sizeof *u);
    u->k = *k;
    conv_ref_shape *s = &u->s;
    s->N = k->N; s->C = k->C; s->K = k->K; s->G = 1;
    s->in[0] = 1; s->in[1] = k->H; s->in[2] = k->W;
    s->flt[0] = 1; s->flt[1] = k->R; s->flt[2] = k->R;
    s->pad[0] = 0; s->pad[1] = s->pad[2] = k->pad;
    s->str[0] = 1; s->str[1] = s->str[2] = k->str;
    s->dil[0] = s->dil[1] = s->dil[2] = 1;
    s->flip = 0;
    conv_ref_out_dims(s);
    u->OH = s->out[1]; u->OW = s->out[2];
    long nx = conv_ref_x_elems(s), nw = conv_ref_w_elems(s), ny = conv_ref_y_elems(s);
    u->x = malloc(nx * sizeof(double)); u->xt = malloc(nx * sizeof(double));
    u->w = malloc(nw * sizeof(double)); u->y = malloc(ny * sizeof(double));
    u->sc = malloc(k->C * sizeof(double)); u->bi = malloc(k->C * sizeof(double));
    for (long i = 0; i < nx; i++) u->x[i] = rnd8();
    for (long i = 0; i < nw; i++) u->w[i] = rnd8();
    for (long i = 0; i < ny; i++) u->y[i] = rnd8();       /* dy for op 1 */
    for (int c = 0; c < k->C; c++) { u->sc[c] = 0.5 + (c % 3) * 0.25; u->bi[c] = rnd8() / 2; }
    /* The unfused steps: xt = relu(x * scale + bias). */
    long hw = (long)k->H * k->W;
    for (long i = 0; i < nx; i++) {
        int c = (int)((i / hw) % k->C);
        double v = u->x[i];
        if (k->scale) v *= u->sc[c];
        if (k->bias) v += u->bi[c];
        if (k->relu && v < 0) v = 0;
        u->xt[i] = v;
    }
    size_t es = tsize(k->type);
    strides_for(k->fmt, k->C, k->H, k->W, k->padded, u->xs);
    strides_for(k->fmt, k->K, u->OH, u->OW, k->padded ? 3 : 0, u->ys);
    strides_for(k->fmt, k->C, k->R, k->R, 0, u->fs);
    nx = span(u->xs, k->N, k->C, k->H, k->W);
    ny = span(u->ys, k->N, k->K, u->OH, u->OW);
    u->xb = aligned(nx * es); u->wb = aligned(nw * es); u->yb = aligned(ny * es);
    memset(u->xb, 0xff, nx * es);       /* NaN in the gaps: they must never be read */
    u->scb = aligned(k->C * 8); u->bib = aligned(k->C * 8);
    u->sumb = aligned(k->K * 4); u->sqb = aligned(k->K * 4);
    store_all(u->xb, k->type, u->xs, k->N, k->C, k->H, k->W, u->x);
    store_all(u->wb, k->type, u->fs, k->K, k->C, k->R, k->R, u->w);
    if (wgrad) {
        memset(u->yb, 0xff, ny * es);
        store_all(u->yb, k->type, u->ys, k->N, k->K, u->OH, u->OW, u->y);
    }
    for (int c = 0; c < k->C; c++) { put(u->scb, eqt, c, u->sc[c]); put(u->bib, eqt, c, u->bi[c]); }
    cudnnCreateTensorDescriptor(&u->xd); cudnnCreateTensorDescriptor(&u->yd);
    cudnnCreateTensorDescriptor(&u->eqd); cudnnCreateTensorDescriptor(&u->statd);
    cudnnCreateFilterDescriptor(&u->wd); cudnnCreateConvolutionDescriptor(&u->cd);
    cudnnCreateActivationDescriptor(&u->ad);
    int xdims[4] = {k->N, k->C, k->H, k->W}, ydims[4] = {k->N, k->K, u->OH, u->OW};
    CHECK_OK(cudnnSetTensorNdDescriptor(u->xd, k->type, 4, xdims, u->xs));
    CHECK_OK(cudnnSetTensorNdDescriptor(u->yd, k->type, 4, ydims, u->ys));
    CHECK_OK(cudnnSetTensor4dDescriptor(u->eqd, k->fmt, eqt, 1, k->C, 1, 1));
    CHECK_OK(cudnnSetTensor4dDescriptor(u->statd, k->fmt, CUDNN_DATA_FLOAT, 1, k->K, 1, 1));
    CHECK_OK(cudnnSetFilter4dDescriptor(u->wd, k->type, k->fmt, k->K, k->C, k->R, k->R));
    CHECK_OK(cudnnSetConvolution2dDescriptor(u->cd, k->pad, k->pad, k->str, k->str, 1, 1, CUDNN_CROSS_CORRELATION,
                                             k->type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetActivationDescriptor(u->ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
}

static void free_conv(conv_setup *u)
{
    free(u->x); free(u->xt); free(u->w); free(u->y); free(u->sc); free(u->bi);
    free(u->xb); free(u->wb); free(u->yb); free(u->scb); free(u->bib); free(u->sumb); free(u->sqb);
    cudnnDestroyTensorDescriptor(u->xd); cudnnDestroyTensorDescriptor(u->yd);
    cudnnDestroyTensorDescriptor(u->eqd); cudnnDestroyTensorDescriptor(u->statd);
    cudnnDestroyFilterDescriptor(u->wd); cudnnDestroyConvolutionDescriptor(u->cd);
    cudnnDestroyActivationDescriptor(u->ad);
}

/* The constant pack cuDNN documents for op 0 (or op 1 when WGRAD). */
static cudnnFusedOpsConstParamPack_t conv_pack(const conv_setup *u, int wgrad)
{
    cudnnFusedOps_t op = wgrad ? CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD : CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    cudnnFusedOpsConstParamPack_t p;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&p, op));
    cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
    set_c(p, CUDNN_PARAM_XDESC, u->xd);
    set_ph(p, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_16B_ALIGNED);
    set_c(p, CUDNN_PARAM_BN_MODE, &mode);
    if (u->k.scale || u->k.bias)
        set_c(p, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, u->eqd);
    set_ph(p, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, u->k.scale ? CUDNN_PTR_16B_ALIGNED : CUDNN_PTR_NULL);
    set_ph(p, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, u->k.bias ? CUDNN_PTR_16B_ALIGNED : CUDNN_PTR_NULL);
    if (u->k.relu)
        set_c(p, CUDNN_PARAM_ACTIVATION_DESC, u->ad);
    set_c(p, CUDNN_PARAM_CONV_DESC, u->cd);
    if (wgrad) {
        set_c(p, CUDNN_PARAM_DWDESC, u->wd);
        set_ph(p, CUDNN_PARAM_DWDATA_PLACEHOLDER, CUDNN_PTR_16B_ALIGNED);
        set_c(p, CUDNN_PARAM_DYDESC, u->yd);
        set_ph(p, CUDNN_PARAM_DYDATA_PLACEHOLDER, CUDNN_PTR_16B_ALIGNED);
    } else {
        set_c(p, CUDNN_PARAM_WDESC, u->wd);
        set_ph(p, CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PTR_16B_ALIGNED);
        set_c(p, CUDNN_PARAM_YDESC, u->yd);
        set_ph(p, CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_16B_ALIGNED);
        if (u->k.sum || u->k.sqsum)
            set_c(p, CUDNN_PARAM_YSTATS_DESC, u->statd);
        set_ph(p, CUDNN_PARAM_YSUM_PLACEHOLDER, u->k.sum ? CUDNN_PTR_16B_ALIGNED : CUDNN_PTR_NULL);
        set_ph(p, CUDNN_PARAM_YSQSUM_PLACEHOLDER, u->k.sqsum ? CUDNN_PTR_16B_ALIGNED : CUDNN_PTR_NULL);
    }
    return p;
}

static cudnnFusedOpsVariantParamPack_t conv_vpack(conv_setup *u, int wgrad, void *ws, size_t wsb)
{
    cudnnFusedOps_t op = wgrad ? CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD : CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    cudnnFusedOpsVariantParamPack_t v;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&v, op));
    set_v(v, CUDNN_PTR_XDATA, u->xb);
    set_v(v, CUDNN_PTR_BN_EQSCALE, u->scb);
    set_v(v, CUDNN_PTR_BN_EQBIAS, u->bib);
    set_v(v, wgrad ? CUDNN_PTR_DWDATA : CUDNN_PTR_WDATA, u->wb);
    set_v(v, wgrad ? CUDNN_PTR_DYDATA : CUDNN_PTR_YDATA, u->yb);
    if (!wgrad) {
        set_v(v, CUDNN_PTR_YSUM, u->sumb);
        set_v(v, CUDNN_PTR_YSQSUM, u->sqb);
    }
    set_v(v, CUDNN_PTR_WORKSPACE, ws);
    set_v(v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &wsb);
    return v;
}

static void run_conv_case(const conv_case *k, int wgrad)
{
    conv_setup u;
    setup_conv(&u, k, wgrad);
    const conv_ref_shape *s = &u.s;
    int half = k->type == CUDNN_DATA_HALF || k->type == CUDNN_DATA_BFLOAT16;
    cudnnFusedOpsConstParamPack_t p = conv_pack(&u, wgrad);
    cudnnFusedOpsPlan_t plan;
    CHECK_OK(cudnnCreateFusedOpsPlan(&plan, wgrad ? CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD
                                                  : CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS));
    size_t wsb = 12345;
    CHECK_OK(cudnnMakeFusedOpsPlan(h, plan, p, &wsb));
    CHECK(wsb != 12345);
    if (k->scale || k->bias || k->relu) {
        size_t xbytes = conv_ref_x_elems(s) * tsize(k->type);
        CHECK_MSG(wsb >= xbytes, "workspace %zu holds the transformed x (%zu bytes)", wsb, xbytes);
    }
    cudnnDestroyFusedOpsConstParamPack(p);      /* the plan keeps its own copy */
    void *ws = aligned(wsb);
    /* beta is 0: the output is not read, NaN there must not leak. */
    size_t outb = (wgrad ? conv_ref_w_elems(s) : span(u.ys, k->N, k->K, u.OH, u.OW)) * tsize(k->type);
    memset(wgrad ? u.wb : u.yb, 0xff, outb);
    memset(u.sumb, 0xff, k->K * 4);
    memset(u.sqb, 0xff, k->K * 4);
    cudnnFusedOpsVariantParamPack_t v = conv_vpack(&u, wgrad, ws, wsb);
    CHECK_OK(cudnnFusedOpsExecute(h, plan, v));

    double tol = k->type == CUDNN_DATA_BFLOAT16 ? 1e-2 : half ? 2e-3 : k->type == CUDNN_DATA_DOUBLE ? 1e-12 : 1e-5;
    double maxerr = 0;
    int bad = 0;
    if (!wgrad) {
        double *yr = malloc(conv_ref_y_elems(s) * sizeof(double));
        conv_ref_fwd(s, u.xt, u.w, yr);
        double *sum = calloc(k->K, sizeof(double)), *sq = calloc(k->K, sizeof(double));
        for (int n = 0; n < k->N; n++)
            for (int c = 0; c < k->K; c++)
                for (int i = 0; i < u.OH; i++)
                    for (int j = 0; j < u.OW; j++) {
                        double want = yr[(((long)n * k->K + c) * u.OH + i) * u.OW + j];
                        double got = get(u.yb, k->type, at(u.ys, n, c, i, j));
                        double e = fabs(got - want) / (1 + fabs(want));
                        if (!(e <= tol)) bad++;
                        if (e > maxerr) maxerr = e;
                        /* statistics are of y as computed (before rounding to its type) */
                        sum[c] += want;
                        sq[c] += want * want;
                    }
        CHECK_MSG(bad == 0, "y: %d elements off, max rel err %g", bad, maxerr);
        for (int c = 0; c < k->K; c++) {
            float fs, fq;
            memcpy(&fs, (char *)u.sumb + 4 * c, 4);
            memcpy(&fq, (char *)u.sqb + 4 * c, 4);
            double stol = (k->type == CUDNN_DATA_BFLOAT16 ? 1e-2 : half ? 2e-3 : 1e-5) * (1 + fabs(sq[c]));
            if (k->sum) CHECK_NEAR(fs, sum[c], stol); else CHECK(isnan(fs));   /* untouched */
            if (k->sqsum) CHECK_NEAR(fq, sq[c], stol); else CHECK(isnan(fq));
        }
        free(yr); free(sum); free(sq);
    } else {
        double *dw = malloc(conv_ref_w_elems(s) * sizeof(double));
        conv_ref_bwd_filter(s, u.xt, u.y, dw);
        for (int kk = 0; kk < k->K; kk++)
            for (int c = 0; c < k->C; c++)
                for (int i = 0; i < k->R; i++)
                    for (int j = 0; j < k->R; j++) {
                        double want = dw[(((long)kk * k->C + c) * k->R + i) * k->R + j];
                        double got = get(u.wb, k->type, at(u.fs, kk, c, i, j));
                        double e = fabs(got - want) / (1 + fabs(want));
                        if (!(e <= tol)) bad++;
                        if (e > maxerr) maxerr = e;
                    }
        CHECK_MSG(bad == 0, "dw: %d elements off, max rel err %g", bad, maxerr);
        free(dw);
    }

    /* Too small a workspace: BAD_PARAM, outputs untouched. */
    if (wsb > 0) {
        memset(wgrad ? u.wb : u.yb, 0x5a, outb);
        size_t less = wsb - 1;
        set_v(v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &less);
        CHECK_STATUS(cudnnFusedOpsExecute(h, plan, v), CUDNN_STATUS_BAD_PARAM);
        int same = 1;
        for (size_t i = 0; i < outb; i++)
            same &= ((unsigned char *)(wgrad ? u.wb : u.yb))[i] == 0x5a;
        CHECK_MSG(same, "output written although the workspace was too small");
        set_v(v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &wsb);
        set_v(v, CUDNN_PTR_WORKSPACE, NULL);
        CHECK_STATUS(cudnnFusedOpsExecute(h, plan, v), CUDNN_STATUS_BAD_PARAM);
        set_v(v, CUDNN_PTR_WORKSPACE, ws);
    }
    /* A NULL data pointer the plan promised, and a misaligned one. */
    set_v(v, CUDNN_PTR_XDATA, NULL);
    CHECK_STATUS(cudnnFusedOpsExecute(h, plan, v), CUDNN_STATUS_BAD_PARAM);
    set_v(v, CUDNN_PTR_XDATA, (char *)u.xb + 2);
    CHECK_STATUS(cudnnFusedOpsExecute(h, plan, v), CUDNN_STATUS_BAD_PARAM);
    set_v(v, CUDNN_PTR_XDATA, u.xb);
    CHECK_OK(cudnnFusedOpsExecute(h, plan, v));   /* and it still runs */

    cudnnDestroyFusedOpsVariantParamPack(v);
    CHECK_OK(cudnnDestroyFusedOpsPlan(plan));
    free(ws);
    free_conv(&u);
}

static void five_d(int wgrad);

static void conv_ops(void)
{
    SECTION("op 0 SCALE_BIAS_ACTIVATION_CONV_BNSTATS");
    static const conv_case c0[] = {
        /* type, fmt, N C H W K R pad str, scale bias relu sum sqsum, padded strides */
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 3, 5, 4, 4, 3, 1, 1, 1, 1, 1, 1, 1, 0},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 1, 5, 6, 7, 3, 3, 0, 2, 1, 1, 0, 1, 0, 0},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, 1, 4, 4, 1, 1, 0, 1, 0, 0, 0, 0, 1, 0},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 4, 3, 3, 2, 1, 0, 1, 0, 0, 1, 1, 1, 0},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 3, 5, 6, 4, 3, 1, 1, 1, 1, 1, 1, 1, 2},   /* strided */
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 2, 3, 5, 6, 4, 3, 1, 2, 1, 1, 1, 1, 1, 1},
        {CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 2, 3, 4, 4, 2, 3, 1, 1, 1, 1, 1, 1, 1, 0},
        {CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 2, 8, 5, 5, 8, 3, 1, 1, 1, 1, 1, 1, 1, 0},  /* cuDNN's configuration */
        {CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 1, 8, 4, 6, 16, 1, 0, 1, 1, 0, 1, 1, 1, 0},
        {CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_NHWC, 2, 4, 5, 5, 4, 3, 1, 1, 1, 1, 1, 1, 1, 0},
    };
    for (size_t i = 0; i < sizeof c0 / sizeof c0[0]; i++)
        run_conv_case(&c0[i], 0);
    eq_float = 1;                                    /* HALF data, FLOAT eqScale/eqBias */
    run_conv_case(&c0[sizeof c0 / sizeof c0[0] - 3], 0);
    eq_float = 0;
    SECTION("op 1 SCALE_BIAS_ACTIVATION_WGRAD");
    static const conv_case c1[] = {
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 3, 5, 4, 4, 3, 1, 1, 1, 1, 1, 0, 0, 0},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 1, 2, 6, 5, 3, 3, 0, 2, 1, 0, 1, 0, 0, 0},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 3, 3, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0},
        {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 3, 5, 6, 4, 3, 1, 1, 1, 1, 1, 0, 0, 2},   /* strided */
        {CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NHWC, 2, 3, 4, 4, 2, 3, 1, 1, 1, 1, 1, 0, 0, 0},
        {CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 2, 8, 4, 4, 8, 3, 1, 1, 1, 1, 1, 0, 0, 0},
        {CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_NCHW, 1, 4, 5, 5, 4, 3, 1, 1, 1, 1, 1, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof c1 / sizeof c1[0]; i++)
        run_conv_case(&c1[i], 1);
    SECTION("ops 0/1 on 5-d tensors");
    five_d(0);
    five_d(1);
}

/* Constant packs that Make must refuse, with the plan and *workspace left alone. */
static void bad_conv_packs(void)
{
    SECTION("op 0/1 bad constant packs");
    conv_case k = {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 3, 4, 4, 2, 3, 1, 1, 1, 1, 1, 1, 1, 0};
    conv_setup u;
    setup_conv(&u, &k, 0);
    cudnnFusedOpsPlan_t plan;
    CHECK_OK(cudnnCreateFusedOpsPlan(&plan, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS));
    size_t ws = 777;
    cudnnFusedOpsConstParamPack_t p;

#define EXPECT_MAKE(want) do { ws = 777; CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, p, &ws), (want)); \
    CHECK_EQ_INT(ws, 777); } while (0)
    /* Each required descriptor missing. */
    static const cudnnFusedOpsConstParamLabel_t req[] = {CUDNN_PARAM_XDESC, CUDNN_PARAM_CONV_DESC, CUDNN_PARAM_WDESC,
                                                         CUDNN_PARAM_YDESC, CUDNN_PARAM_BN_EQSCALEBIAS_DESC,
                                                         CUDNN_PARAM_YSTATS_DESC};
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
        p = conv_pack(&u, 0);
        set_c(p, req[i], NULL);
        EXPECT_MAKE(CUDNN_STATUS_BAD_PARAM);
        cudnnDestroyFusedOpsConstParamPack(p);
    }
    /* Required data placeholders set to CUDNN_PTR_NULL. */
    static const cudnnFusedOpsConstParamLabel_t reqp[] = {CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PARAM_WDATA_PLACEHOLDER,
                                                          CUDNN_PARAM_YDATA_PLACEHOLDER};
    for (size_t i = 0; i < sizeof reqp / sizeof reqp[0]; i++) {
        p = conv_pack(&u, 0);
        set_ph(p, reqp[i], CUDNN_PTR_NULL);
        EXPECT_MAKE(CUDNN_STATUS_BAD_PARAM);
        cudnnDestroyFusedOpsConstParamPack(p);
    }
    /* Wrong descriptors: y of the wrong shape, stats of the wrong channel count or type,
     * scale/bias of the wrong channel count, mismatched data types. */
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    p = conv_pack(&u, 0);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 5, 4);
    set_c(p, CUDNN_PARAM_YDESC, t);
    EXPECT_MAKE(CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyFusedOpsConstParamPack(p);
    p = conv_pack(&u, 0);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 1, 1);
    set_c(p, CUDNN_PARAM_YSTATS_DESC, t);
    EXPECT_MAKE(CUDNN_STATUS_BAD_PARAM);
    set_c(p, CUDNN_PARAM_YSTATS_DESC, u.statd);
    set_c(p, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, t);    /* 3 channels is right for x ... */
    CHECK_OK(cudnnMakeFusedOpsPlan(h, plan, p, &ws));
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 1, 1);
    set_c(p, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, t);    /* ... 2 is not */
    EXPECT_MAKE(CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyFusedOpsConstParamPack(p);
    p = conv_pack(&u, 0);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 2, 1, 1);
    set_c(p, CUDNN_PARAM_YSTATS_DESC, t);            /* statistics are FLOAT */
    EXPECT_MAKE(CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyFusedOpsConstParamPack(p);
    p = conv_pack(&u, 0);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 2, 4, 4);
    set_c(p, CUDNN_PARAM_YDESC, t);                  /* y HALF, x FLOAT */
    EXPECT_MAKE(CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyFusedOpsConstParamPack(p);
    /* Unsupported: an activation other than RELU, a per-activation BN mode, INT8 data. */
    p = conv_pack(&u, 0);
    cudnnActivationDescriptor_t a;
    cudnnCreateActivationDescriptor(&a);
    cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_TANH, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    set_c(p, CUDNN_PARAM_ACTIVATION_DESC, a);
    EXPECT_MAKE(CUDNN_STATUS_NOT_SUPPORTED);
    set_c(p, CUDNN_PARAM_ACTIVATION_DESC, u.ad);
    cudnnBatchNormMode_t pa = CUDNN_BATCHNORM_PER_ACTIVATION;
    set_c(p, CUDNN_PARAM_BN_MODE, &pa);
    EXPECT_MAKE(CUDNN_STATUS_NOT_SUPPORTED);
    cudnnDestroyFusedOpsConstParamPack(p);
    cudnnDestroyActivationDescriptor(a);
    /* The plan is still unmade after all these failures. */
    cudnnFusedOpsVariantParamPack_t v = conv_vpack(&u, 0, NULL, 0);
    CHECK_STATUS(cudnnFusedOpsExecute(h, plan, v), CUDNN_STATUS_BAD_PARAM);
    /* A good Make, then a failed re-Make keeps the good plan. */
    p = conv_pack(&u, 0);
    CHECK_OK(cudnnMakeFusedOpsPlan(h, plan, p, &ws));
    size_t good = ws;
    set_c(p, CUDNN_PARAM_XDESC, NULL);
    EXPECT_MAKE(CUDNN_STATUS_BAD_PARAM);
    void *wsp = aligned(good);
    set_v(v, CUDNN_PTR_WORKSPACE, wsp);
    set_v(v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &good);
    CHECK_OK(cudnnFusedOpsExecute(h, plan, v));
    free(wsp);
    cudnnDestroyFusedOpsConstParamPack(p);
    cudnnDestroyFusedOpsVariantParamPack(v);
    cudnnDestroyTensorDescriptor(t);
    CHECK_OK(cudnnDestroyFusedOpsPlan(plan));
    free_conv(&u);

    /* Op 1 needs dy and dw. */
    setup_conv(&u, &k, 1);
    CHECK_OK(cudnnCreateFusedOpsPlan(&plan, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    p = conv_pack(&u, 1);
    set_c(p, CUDNN_PARAM_DYDESC, NULL);
    EXPECT_MAKE(CUDNN_STATUS_BAD_PARAM);
    set_c(p, CUDNN_PARAM_DYDESC, u.yd);
    set_ph(p, CUDNN_PARAM_DWDATA_PLACEHOLDER, CUDNN_PTR_NULL);
    EXPECT_MAKE(CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyFusedOpsConstParamPack(p);
    CHECK_OK(cudnnDestroyFusedOpsPlan(plan));
    free_conv(&u);
#undef EXPECT_MAKE
}

/* 5-d (3-d convolution) problems, packed NCDHW FLOAT: the logical order of conv_ref. */
static void five_d(int wgrad)
{
    conv_ref_shape s = {.N = 2, .C = 3, .K = 2, .G = 1, .in = {3, 4, 5}, .flt = {2, 3, 2}, .pad = {0, 1, 1},
                        .str = {1, 1, 2}, .dil = {1, 1, 1}, .flip = 0};
    conv_ref_out_dims(&s);
    long nx = conv_ref_x_elems(&s), nw = conv_ref_w_elems(&s), ny = conv_ref_y_elems(&s);
    long sp = (long)s.in[0] * s.in[1] * s.in[2];
    double *x = malloc(nx * sizeof(double)), *xt = malloc(nx * sizeof(double)), *w = malloc(nw * sizeof(double));
    double *y = malloc(ny * sizeof(double)), *r = malloc((ny > nw ? ny : nw) * sizeof(double));
    float *xb = aligned(nx * 4), *wb = aligned(nw * 4), *yb = aligned(ny * 4), *sc = aligned(64), *bi = aligned(64);
    float *sum = aligned(64), *sq = aligned(64);
    for (int c = 0; c < s.C; c++) { sc[c] = (float)(1.5 - 0.25 * c); bi[c] = (float)(0.125 * c - 0.25); }
    for (long i = 0; i < nx; i++) {
        x[i] = rnd8();
        xb[i] = (float)x[i];
        int c = (int)((i / sp) % s.C);
        xt[i] = x[i] * sc[c] + bi[c] > 0 ? x[i] * sc[c] + bi[c] : 0;
    }
    for (long i = 0; i < nw; i++) { w[i] = rnd8(); wb[i] = (float)w[i]; }
    for (long i = 0; i < ny; i++) { y[i] = rnd8(); if (wgrad) yb[i] = (float)y[i]; }
    int xd_[5] = {s.N, s.C, s.in[0], s.in[1], s.in[2]}, yd_[5] = {s.N, s.K, s.out[0], s.out[1], s.out[2]};
    int wd_[5] = {s.K, s.C, s.flt[0], s.flt[1], s.flt[2]}, ed_[5] = {1, s.C, 1, 1, 1}, sd_[5] = {1, s.K, 1, 1, 1};
    int xs_[5], ys_[5], es_[5], ss_[5];
    xs_[4] = ys_[4] = es_[4] = ss_[4] = 1;
    for (int d = 3; d >= 0; d--) {
        xs_[d] = xs_[d + 1] * xd_[d + 1]; ys_[d] = ys_[d + 1] * yd_[d + 1];
        es_[d] = es_[d + 1] * ed_[d + 1]; ss_[d] = ss_[d + 1] * sd_[d + 1];
    }
    cudnnTensorDescriptor_t xd, yd, ed, sd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad;
    cudnnCreateTensorDescriptor(&xd); cudnnCreateTensorDescriptor(&yd);
    cudnnCreateTensorDescriptor(&ed); cudnnCreateTensorDescriptor(&sd);
    cudnnCreateFilterDescriptor(&wd); cudnnCreateConvolutionDescriptor(&cd); cudnnCreateActivationDescriptor(&ad);
    CHECK_OK(cudnnSetTensorNdDescriptor(xd, CUDNN_DATA_FLOAT, 5, xd_, xs_));
    CHECK_OK(cudnnSetTensorNdDescriptor(yd, CUDNN_DATA_FLOAT, 5, yd_, ys_));
    CHECK_OK(cudnnSetTensorNdDescriptor(ed, CUDNN_DATA_FLOAT, 5, ed_, es_));
    CHECK_OK(cudnnSetTensorNdDescriptor(sd, CUDNN_DATA_FLOAT, 5, sd_, ss_));
    CHECK_OK(cudnnSetFilterNdDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 5, wd_));
    CHECK_OK(cudnnSetConvolutionNdDescriptor(cd, 3, s.pad, s.str, s.dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));

    cudnnFusedOps_t op = wgrad ? CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD : CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    cudnnFusedOpsConstParamPack_t p;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&p, op));
    cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL;
    set_c(p, CUDNN_PARAM_XDESC, xd);
    set_ph(p, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    set_c(p, CUDNN_PARAM_BN_MODE, &mode);
    set_c(p, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, ed);
    set_ph(p, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    set_ph(p, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    set_c(p, CUDNN_PARAM_ACTIVATION_DESC, ad);
    set_c(p, CUDNN_PARAM_CONV_DESC, cd);
    set_c(p, wgrad ? CUDNN_PARAM_DWDESC : CUDNN_PARAM_WDESC, wd);
    set_ph(p, wgrad ? CUDNN_PARAM_DWDATA_PLACEHOLDER : CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    set_c(p, wgrad ? CUDNN_PARAM_DYDESC : CUDNN_PARAM_YDESC, yd);
    set_ph(p, wgrad ? CUDNN_PARAM_DYDATA_PLACEHOLDER : CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    if (!wgrad) {
        set_c(p, CUDNN_PARAM_YSTATS_DESC, sd);
        set_ph(p, CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
        set_ph(p, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    }
    cudnnFusedOpsPlan_t plan;
    CHECK_OK(cudnnCreateFusedOpsPlan(&plan, op));
    size_t wsb = 0;
    CHECK_OK(cudnnMakeFusedOpsPlan(h, plan, p, &wsb));
    void *ws = aligned(wsb);
    cudnnFusedOpsVariantParamPack_t v;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&v, op));
    set_v(v, CUDNN_PTR_XDATA, xb);
    set_v(v, CUDNN_PTR_BN_EQSCALE, sc);
    set_v(v, CUDNN_PTR_BN_EQBIAS, bi);
    set_v(v, wgrad ? CUDNN_PTR_DWDATA : CUDNN_PTR_WDATA, wb);
    set_v(v, wgrad ? CUDNN_PTR_DYDATA : CUDNN_PTR_YDATA, yb);
    if (!wgrad) {
        set_v(v, CUDNN_PTR_YSUM, sum);
        set_v(v, CUDNN_PTR_YSQSUM, sq);
    }
    set_v(v, CUDNN_PTR_WORKSPACE, ws);
    set_v(v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &wsb);
    CHECK_OK(cudnnFusedOpsExecute(h, plan, v));
    int bad = 0;
    if (wgrad) {
        conv_ref_bwd_filter(&s, xt, y, r);
        for (long i = 0; i < nw; i++)
            bad += !(fabs(wb[i] - r[i]) <= 1e-5 * (1 + fabs(r[i])));
        CHECK_MSG(bad == 0, "5-d dw: %d elements off", bad);
    } else {
        conv_ref_fwd(&s, xt, w, r);
        long per = ny / s.N / s.K;
        for (long i = 0; i < ny; i++)
            bad += !(fabs(yb[i] - r[i]) <= 1e-5 * (1 + fabs(r[i])));
        CHECK_MSG(bad == 0, "5-d y: %d elements off", bad);
        for (int k = 0; k < s.K; k++) {
            double a = 0, b = 0;
            for (int n = 0; n < s.N; n++)
                for (long i = 0; i < per; i++) {
                    double t = r[((long)n * s.K + k) * per + i];
                    a += t;
                    b += t * t;
                }
            CHECK_NEAR(sum[k], a, 1e-5 * (1 + b));
            CHECK_NEAR(sq[k], b, 1e-5 * (1 + b));
        }
    }
    cudnnDestroyFusedOpsVariantParamPack(v);
    cudnnDestroyFusedOpsPlan(plan);
    cudnnDestroyFusedOpsConstParamPack(p);
    cudnnDestroyTensorDescriptor(xd); cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyTensorDescriptor(ed); cudnnDestroyTensorDescriptor(sd);
    cudnnDestroyFilterDescriptor(wd); cudnnDestroyConvolutionDescriptor(cd); cudnnDestroyActivationDescriptor(ad);
    free(x); free(xt); free(w); free(y); free(r);
    free(xb); free(wb); free(yb); free(sc); free(bi); free(sum); free(sq); free(ws);
}

/* Op 0 on handle H: y and both statistics into OUT (bytes). */
static size_t op0_bits(cudnnHandle_t hh, unsigned char *out)
{
    conv_case k = {CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 5, 6, 7, 5, 7, 3, 1, 1, 1, 1, 1, 1, 1, 1};
    conv_setup u;
    rng = 777u;
    setup_conv(&u, &k, 0);
    cudnnFusedOpsConstParamPack_t p = conv_pack(&u, 0);
    cudnnFusedOpsPlan_t plan;
    CHECK_OK(cudnnCreateFusedOpsPlan(&plan, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS));
    size_t wsb = 0;
    CHECK_OK(cudnnMakeFusedOpsPlan(hh, plan, p, &wsb));
    void *ws = aligned(wsb);
    cudnnFusedOpsVariantParamPack_t v = conv_vpack(&u, 0, ws, wsb);
    size_t yb = span(u.ys, k.N, k.K, u.OH, u.OW) * 4;
    memset(u.yb, 0, yb);                 /* the gaps between rows stay as they are */
    CHECK_OK(cudnnFusedOpsExecute(hh, plan, v));
    memcpy(out, u.yb, yb);
    memcpy(out + yb, u.sumb, k.K * 4);
    memcpy(out + yb + k.K * 4, u.sqb, k.K * 4);
    cudnnDestroyFusedOpsVariantParamPack(v);
    cudnnDestroyFusedOpsPlan(plan);
    cudnnDestroyFusedOpsConstParamPack(p);
    free(ws);
    free_conv(&u);
    return yb + 8 * k.K;
}

static void determinism(void)
{
    SECTION("bitwise identical across thread counts");
    setenv("HOSTDNN_NUM_THREADS", "1", 1);
    cudnnHandle_t h1, h3;
    CHECK_OK(cudnnCreate(&h1));
    setenv("HOSTDNN_NUM_THREADS", "3", 1);
    CHECK_OK(cudnnCreate(&h3));
    unsetenv("HOSTDNN_NUM_THREADS");
    unsigned char *a = malloc(1 << 16), *b = malloc(1 << 16);
    size_t n1 = op0_bits(h1, a), n3 = op0_bits(h3, b);
    CHECK_EQ_INT(n1, n3);
    CHECK(n1 == n3 && memcmp(a, b, n1) == 0);
    free(a);
    free(b);
    cudnnDestroy(h1);
    cudnnDestroy(h3);
}

int main(void)
{
    CHECK_OK(cudnnCreate(&h));
    conv_ops();
    bad_conv_packs();
    determinism();
    cudnnDestroy(h);
    return hd_test_finish();
}
