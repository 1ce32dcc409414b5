/*
 * WINOGRAD_NONFUSED with 5x5 filters (F(2x2,5x5), solvers 110/208/308) and FFT_TILING on 3-d
 * convolutions (solvers 111/209/309), the three directions, through the public API against
 * the float64 reference (tests/ref/conv_ref.c).
 *
 * Real-valued data uniform in [-1, 1) (rounded to the storage type first, so the reference
 * sees exactly what the library reads), FLOAT, DOUBLE and HALF (FLOAT compute) data, and for
 * 3-d also TRUE_HALF; NCHW-like and NHWC-like tensors with the matching filter format; both
 * modes; odd sizes, every padding the method takes, groups, depthwise, N = 1 and N > 1, up
 * to 256 channels, several transform tiles per dimension.  Each run gets exactly the workspace its query
 * returned, one byte less is refused with BAD_PARAM, the error is within the bound derived in
 * docs/algorithms.md, and the worst error per method, direction and type is printed.  Then:
 * 1 and 3 threads give bitwise the same results, the dispatch record names the solver,
 * cudnnGet*_v7 and cudnnFind* list the algorithm with the queried workspace, and what the
 * methods do not take is NOT_SUPPORTED.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostdnn.h"
#include "harness.h"
#include "ref/conv_ref.h"

/* ---- storage types ---- */

static double h2d(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* v rounded to the nearest half (ties to even); |v| < 65504. */
static double round_half(double v)
{
    double a = fabs(v);
    if (a == 0)
        return v;
    int e;
    frexp(a, &e);                                  /* a in [2^(e-1), 2^e) */
    double q = e - 1 < -14 ? ldexp(1, -24) : ldexp(1, e - 11);
    return nearbyint(v / q) * q;
}

static uint16_t d2h(double v)                      /* v a half value */
{
    uint16_t s = v < 0 ? 0x8000 : 0;
    v = fabs(v);
    if (v == 0)
        return s;
    if (v < ldexp(1, -14))
        return (uint16_t)(s | (int)(v / ldexp(1, -24)));
    int e;
    double f = frexp(v, &e);
    return (uint16_t)(s | ((e + 14) << 10) | ((int)(f * 2048) - 1024));
}

static size_t tsize(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? 8 : t == CUDNN_DATA_FLOAT ? 4 : 2; }

static double get(const void *b, long i, cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT ? ((const float *)b)[i] : t == CUDNN_DATA_DOUBLE ? ((const double *)b)[i]
                                                                                   : h2d(((const uint16_t *)b)[i]);
}

static void put(void *b, long i, cudnnDataType_t t, double v)
{
    if (t == CUDNN_DATA_FLOAT)
        ((float *)b)[i] = (float)v;
    else if (t == CUDNN_DATA_DOUBLE)
        ((double *)b)[i] = v;
    else
        ((uint16_t *)b)[i] = d2h(v);
}

static double quantize(double v, cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT ? (double)(float)v : t == CUDNN_DATA_DOUBLE ? v : round_half(v);
}

/* ---- cases: unit stride and dilation throughout ---- */

typedef struct {
    const char *name;
    int nsp, N, C, K, G;
    int in[3], flt[3], pad[3];
} tcase;

static const tcase cases[] = {
    {"5x5 pad 0 N=1", 2, 1, 3, 4, 1, {1, 9, 7}, {1, 5, 5}, {0, 0, 0}},
    {"5x5 pad 1 odd", 2, 2, 5, 3, 1, {1, 11, 6}, {1, 5, 5}, {0, 1, 1}},
    {"5x5 pad 2 N=3", 2, 3, 4, 6, 1, {1, 8, 8}, {1, 5, 5}, {0, 2, 2}},
    {"5x5 pad 3 grouped", 2, 2, 6, 4, 2, {1, 7, 10}, {1, 5, 5}, {0, 3, 3}},
    {"5x5 pad 4 input < filter", 2, 1, 2, 2, 1, {1, 3, 4}, {1, 5, 5}, {0, 4, 4}},
    {"5x5 pad 0,4", 2, 2, 3, 5, 1, {1, 13, 5}, {1, 5, 5}, {0, 0, 4}},
    {"5x5 depthwise", 2, 2, 4, 4, 4, {1, 6, 9}, {1, 5, 5}, {0, 2, 2}},
    {"5x5 many channels", 2, 1, 37, 19, 1, {1, 12, 13}, {1, 5, 5}, {0, 2, 2}},
    {"3d 3x3x3 pad 1", 3, 2, 3, 4, 1, {6, 7, 5}, {3, 3, 3}, {1, 1, 1}},
    {"3d 3x3x3 pad 0 N=1", 3, 1, 2, 3, 1, {5, 5, 5}, {3, 3, 3}, {0, 0, 0}},
    {"3d 3x3x3 pad 2 tiles", 3, 1, 2, 2, 1, {14, 9, 17}, {3, 3, 3}, {2, 2, 2}},
    {"3d 5x3x1 mixed", 3, 2, 3, 2, 1, {7, 8, 9}, {5, 3, 1}, {2, 1, 0}},
    {"3d grouped", 3, 2, 4, 6, 2, {5, 6, 4}, {2, 3, 3}, {1, 1, 2}},
    {"3d 16x1x2 filter", 3, 1, 1, 2, 1, {20, 3, 4}, {16, 1, 2}, {15, 0, 1}},
    {"3d depthwise", 3, 1, 3, 3, 3, {4, 5, 6}, {3, 3, 3}, {1, 1, 1}},
    {"5x5 256 channels", 2, 2, 256, 8, 1, {1, 8, 7}, {1, 5, 5}, {0, 2, 2}},
    {"3d 64 channels", 3, 1, 64, 4, 1, {6, 5, 7}, {3, 3, 3}, {1, 1, 1}},
};

typedef struct {
    cudnnDataType_t dt, ct;
    const char *name;
} tcfg;

static const tcfg types[] = {
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, "float"},
    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, "double"},
    {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, "half (pseudo)"},
    {CUDNN_DATA_HALF, CUDNN_DATA_HALF, "half (true)"},
};
enum { NTYPES = 4 };

enum { FWD, BWDD, BWDF };
static const char *dname[] = {"fwd", "bwd_data", "bwd_filter"};

/* The algorithm under test for a case and direction. */
static int algo_of(const tcase *c, int dir)
{
    if (c->nsp == 2)
        return dir == FWD ? CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED
               : dir == BWDD ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED
                             : CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
    return dir == FWD ? CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING
           : dir == BWDD ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING
                         : CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING;
}

typedef struct {
    int nb, dims[5], strides[5];
    long n;
    cudnnDataType_t dt;
    void *mem;
} tens;

static void tens_make(tens *t, int nb, const int *dims, int nhwc, cudnnDataType_t dt)
{
    t->nb = nb, t->dt = dt;
    memcpy(t->dims, dims, sizeof(int) * (size_t)nb);
    long acc = 1;
    if (nhwc) {
        t->strides[1] = 1;
        acc = dims[1];
        for (int i = nb - 1; i >= 2; i--)
            t->strides[i] = (int)acc, acc *= dims[i];
        t->strides[0] = (int)acc;
        acc *= dims[0];
    } else {
        for (int i = nb - 1; i >= 0; i--)
            t->strides[i] = (int)acc, acc *= dims[i];
    }
    t->n = acc;
    t->mem = calloc((size_t)acc, tsize(dt));
}

static long tens_off(const tens *t, long li)
{
    long off = 0;
    for (int i = t->nb - 1; i >= 0; i--) {
        off += (li % t->dims[i]) * t->strides[i];
        li /= t->dims[i];
    }
    return off;
}

static unsigned rng = 31;
static double rnd(void)
{
    rng = rng * 1103515245u + 12345u;
    return (double)((rng >> 8) & 0xffff) / 32768.0 - 1.0;
}

typedef struct {
    conv_ref_shape rs;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    tens x, y, w;
    double *lx, *ly, *lw;
} prob;

static void fill(tens *t, double *l)
{
    for (long i = 0; i < t->n; i++) {
        l[i] = quantize(rnd(), t->dt);
        put(t->mem, tens_off(t, i), t->dt, l[i]);
    }
}

static void prob_make(prob *P, const tcase *c, const tcfg *ty, int nhwc, int flip, const int *str)
{
    memset(P, 0, sizeof *P);
    conv_ref_shape *r = &P->rs;
    r->N = c->N, r->C = c->C, r->K = c->K, r->G = c->G, r->flip = flip;
    for (int i = 0; i < 3; i++) {
        r->in[i] = c->in[i], r->flt[i] = c->flt[i], r->pad[i] = c->pad[i];
        r->str[i] = str ? str[i] : 1, r->dil[i] = 1;
    }
    conv_ref_out_dims(r);
    int nb = c->nsp + 2, o = 3 - c->nsp, xd[5] = {c->N, c->C}, yd[5] = {c->N, c->K}, wd[5] = {c->K, c->C / c->G};
    int pad[3], st[3], dil[3] = {1, 1, 1};
    for (int i = 0; i < c->nsp; i++) {
        xd[2 + i] = r->in[o + i], yd[2 + i] = r->out[o + i], wd[2 + i] = r->flt[o + i];
        pad[i] = r->pad[o + i], st[i] = r->str[o + i];
    }
    tens_make(&P->x, nb, xd, nhwc, ty->dt);
    tens_make(&P->y, nb, yd, nhwc, ty->dt);
    tens_make(&P->w, nb, wd, nhwc, ty->dt);
    cudnnCreateTensorDescriptor(&P->xd), cudnnCreateTensorDescriptor(&P->yd);
    cudnnCreateFilterDescriptor(&P->wd), cudnnCreateConvolutionDescriptor(&P->cd);
    CHECK_OK(cudnnSetTensorNdDescriptor(P->xd, ty->dt, nb, xd, P->x.strides));
    CHECK_OK(cudnnSetTensorNdDescriptor(P->yd, ty->dt, nb, yd, P->y.strides));
    CHECK_OK(cudnnSetFilterNdDescriptor(P->wd, ty->dt, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, nb, wd));
    CHECK_OK(cudnnSetConvolutionNdDescriptor(P->cd, c->nsp, pad, st, dil,
                                             flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION, ty->ct));
    CHECK_OK(cudnnSetConvolutionGroupCount(P->cd, c->G));
    P->lx = malloc(sizeof(double) * (size_t)P->x.n);
    P->ly = malloc(sizeof(double) * (size_t)P->y.n);
    P->lw = malloc(sizeof(double) * (size_t)P->w.n);
    fill(&P->x, P->lx), fill(&P->y, P->ly), fill(&P->w, P->lw);
}

static void prob_free(prob *P)
{
    cudnnDestroyTensorDescriptor(P->xd), cudnnDestroyTensorDescriptor(P->yd);
    cudnnDestroyFilterDescriptor(P->wd), cudnnDestroyConvolutionDescriptor(P->cd);
    free(P->x.mem), free(P->y.mem), free(P->w.mem), free(P->lx), free(P->ly), free(P->lw);
}

static cudnnStatus_t ws_query(cudnnHandle_t h, prob *P, int dir, int algo, size_t *sz)
{
    if (dir == FWD)
        return cudnnGetConvolutionForwardWorkspaceSize(h, P->xd, P->wd, P->cd, P->yd, algo, sz);
    if (dir == BWDD)
        return cudnnGetConvolutionBackwardDataWorkspaceSize(h, P->wd, P->yd, P->cd, P->xd, algo, sz);
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, P->xd, P->yd, P->cd, P->wd, algo, sz);
}

static cudnnStatus_t run(cudnnHandle_t h, prob *P, int dir, int algo, void *ws, size_t wsz)
{
    double one = 1, zero = 0;
    float fone = 1, fzero = 0;
    int dbl = P->x.dt == CUDNN_DATA_DOUBLE;
    const void *a = dbl ? (const void *)&one : (const void *)&fone, *b = dbl ? (const void *)&zero : (const void *)&fzero;
    if (dir == FWD)
        return cudnnConvolutionForward(h, a, P->xd, P->x.mem, P->wd, P->w.mem, P->cd, algo, ws, wsz, b, P->yd, P->y.mem);
    if (dir == BWDD)
        return cudnnConvolutionBackwardData(h, a, P->wd, P->w.mem, P->yd, P->y.mem, P->cd, algo, ws, wsz, b, P->xd,
                                            P->x.mem);
    return cudnnConvolutionBackwardFilter(h, a, P->xd, P->x.mem, P->yd, P->y.mem, P->cd, algo, ws, wsz, b, P->wd,
                                          P->w.mem);
}

static tens *out_of(prob *P, int dir) { return dir == FWD ? &P->y : dir == BWDD ? &P->x : &P->w; }

/* The error bound of the method on data bounded by 1 (derivations in docs/algorithms.md),
 * plus the rounding of the result to a HALF output (relative 2^-11 of |want|). */
static double bound(const tcase *c, const conv_ref_shape *r, int dir, const tcfg *ty, double want)
{
    double u = ty->dt == CUDNN_DATA_DOUBLE ? 0x1p-53 : 0x1p-24, b;
    if (c->nsp == 2) {
        double L = dir == BWDD ? r->K / r->G : r->C / r->G;
        double T = (double)r->N * ((r->out[1] + 1) / 2) * ((r->out[2] + 1) / 2);
        b = dir == BWDF ? (T + 20) * u * T * 6400.0 : (L + 16) * u * L * 8200.0;
    } else {
        double taps = (double)r->flt[0] * r->flt[1] * r->flt[2];
        double len = dir == FWD ? r->C / r->G * taps : dir == BWDD ? r->K / r->G * taps
                                                                   : (double)r->N * r->out[0] * r->out[1] * r->out[2];
        b = (ty->dt == CUDNN_DATA_DOUBLE ? 1e-10 : 2e-5) * len;
    }
    if (ty->dt == CUDNN_DATA_HALF)
        b += 0x1p-11 * fabs(want) + 0x1p-24;
    return b;
}

/* worst error, worst error / bound and largest |result| per (method, direction, type) */
static double worst[2][3][NTYPES], worst_ratio[2][3][NTYPES], biggest[2][3][NTYPES];
static int runs;

static void check_one(cudnnHandle_t h, const tcase *c, int ti, int nhwc, int flip, int dir)
{
    const tcfg *ty = &types[ti];
    prob P;
    prob_make(&P, c, ty, nhwc, flip, NULL);
    int algo = algo_of(c, dir);
    char what[160];
    snprintf(what, sizeof what, "%s %s %s %s %s", c->name, ty->name, nhwc ? "NHWC" : "NCHW", flip ? "conv" : "xcorr",
             dname[dir]);
    size_t wsz = 0;
    cudnnStatus_t st = ws_query(h, &P, dir, algo, &wsz);
    if (c->nsp == 2 && ty->ct == CUDNN_DATA_HALF) {     /* cuDNN: 5x5 takes no TRUE_HALF_CONFIG */
        CHECK_MSG(st == CUDNN_STATUS_NOT_SUPPORTED, "%s: status %d, want NOT_SUPPORTED", what, (int)st);
        prob_free(&P);
        return;
    }
    CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s: workspace query %s", what, cudnnGetErrorString(st));
    if (st != CUDNN_STATUS_SUCCESS) {
        prob_free(&P);
        return;
    }
    char *ws = wsz ? malloc(wsz) : NULL;
    tens *o = out_of(&P, dir);
    size_t bytes = (size_t)o->n * tsize(o->dt);
    void *saved = malloc(bytes);
    memcpy(saved, o->mem, bytes);
    if (wsz > 0) {
        CHECK_STATUS(run(h, &P, dir, algo, ws, wsz - 1), CUDNN_STATUS_BAD_PARAM);
        CHECK_MSG(!memcmp(saved, o->mem, bytes), "%s: output written by a refused call", what);
    }
    st = run(h, &P, dir, algo, ws, wsz);
    CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s: %s", what, cudnnGetErrorString(st));
    runs++;
    double *ref = malloc(sizeof(double) * (size_t)o->n);
    if (dir == FWD)
        conv_ref_fwd(&P.rs, P.lx, P.lw, ref);
    else if (dir == BWDD)
        conv_ref_bwd_data(&P.rs, P.ly, P.lw, ref);
    else
        conv_ref_bwd_filter(&P.rs, P.lx, P.ly, ref);
    int m = c->nsp == 3;
    long bad = 0, first = -1;
    for (long i = 0; i < o->n; i++) {
        double got = get(o->mem, tens_off(o, i), o->dt), err = fabs(got - ref[i]);
        double b = bound(c, &P.rs, dir, ty, ref[i]);
        if (!(err <= b) && bad++ == 0)
            first = i;
        if (err > worst[m][dir][ti])
            worst[m][dir][ti] = err;
        if (err / b > worst_ratio[m][dir][ti])
            worst_ratio[m][dir][ti] = err / b;
        if (fabs(ref[i]) > biggest[m][dir][ti])
            biggest[m][dir][ti] = fabs(ref[i]);
    }
    CHECK_MSG(bad == 0, "%s: %ld of %ld beyond the bound (first %ld: got %.9g want %.9g)", what, bad, o->n, first,
              first >= 0 ? get(o->mem, tens_off(o, first), o->dt) : 0.0, first >= 0 ? ref[first] : 0.0);
    free(ref), free(saved), free(ws);
    prob_free(&P);
}

static void correctness(cudnnHandle_t h)
{
    SECTION("against the float64 reference");
    for (unsigned ci = 0; ci < sizeof cases / sizeof *cases; ci++)
        for (int ti = 0; ti < NTYPES; ti++)
            for (int nhwc = 0; nhwc < 2; nhwc++)
                for (int dir = 0; dir < 3; dir++)
                    check_one(h, &cases[ci], ti, nhwc, (int)(ci + ti + nhwc + dir) % 2, dir);
    printf("%d runs; worst error against float64, its share of the bound, largest |result|:\n", runs);
    for (int m = 0; m < 2; m++)
        for (int dir = 0; dir < 3; dir++)
            for (int ti = 0; ti < NTYPES; ti++)
                if (worst_ratio[m][dir][ti] > 0)
                    printf("  %-22s %-10s %-14s %.3g (%.3g of the bound; |result| <= %.3g)\n",
                           m ? "FFT_TILING 3-d" : "WINOGRAD_NONFUSED 5x5", dname[dir], types[ti].name,
                           worst[m][dir][ti], worst_ratio[m][dir][ti], biggest[m][dir][ti]);
}

/* ---- the same results on 1 and 3 threads ---- */

static cudnnHandle_t handle_threads(int nt)
{
    char v[16];
    snprintf(v, sizeof v, "%d", nt);
    setenv("HOSTDNN_NUM_THREADS", v, 1);
    cudnnHandle_t h = NULL;
    cudnnCreate(&h);
    unsetenv("HOSTDNN_NUM_THREADS");
    return h;
}

static void threads(void)
{
    SECTION("bitwise identical across thread counts");
    cudnnHandle_t h1 = handle_threads(1), h3 = handle_threads(3);
    for (unsigned ci = 0; ci < sizeof cases / sizeof *cases; ci++)
        for (int dir = 0; dir < 3; dir++) {
            prob P;
            prob_make(&P, &cases[ci], &types[0], ci % 2, 0, NULL);
            int algo = algo_of(&cases[ci], dir);
            size_t wsz = 0;
            CHECK_OK(ws_query(h1, &P, dir, algo, &wsz));
            void *ws = malloc(wsz + 1);
            tens *o = out_of(&P, dir);
            size_t bytes = (size_t)o->n * sizeof(float);
            void *a = malloc(bytes);
            CHECK_OK(run(h1, &P, dir, algo, ws, wsz));
            memcpy(a, o->mem, bytes);
            memset(o->mem, 0, bytes);
            CHECK_OK(run(h3, &P, dir, algo, ws, wsz));
            CHECK_MSG(!memcmp(a, o->mem, bytes), "%s %s: 3 threads differ from 1", cases[ci].name, dname[dir]);
            free(a), free(ws);
            prob_free(&P);
        }
    cudnnDestroy(h1), cudnnDestroy(h3);
}

/* ---- the dispatch record names the new solvers ---- */

static int last_id;

static void on_log(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud, (void)msg;
    int id, dir, algo;
    if (hostdnnDebugGetConvSolver(dbg, &id, &dir, &algo))
        last_id = id;
}

static void solver_ids(cudnnHandle_t h)
{
    SECTION("the solvers that run");
    static const int ids[2][3] = {{110, 208, 308}, {111, 209, 309}};
    const tcase *picks[] = {&cases[2], &cases[8]};
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, on_log);
    for (int k = 0; k < 2; k++)
        for (int dir = 0; dir < 3; dir++) {
            prob P;
            prob_make(&P, picks[k], &types[1], 0, 0, NULL);
            size_t wsz = 0;
            CHECK_OK(ws_query(h, &P, dir, algo_of(picks[k], dir), &wsz));
            void *ws = malloc(wsz + 1);
            last_id = 0;
            CHECK_OK(run(h, &P, dir, algo_of(picks[k], dir), ws, wsz));
            CHECK_MSG(last_id == ids[k][dir], "%s %s: solver %d ran, want %d", picks[k]->name, dname[dir], last_id,
                      ids[k][dir]);
            free(ws);
            prob_free(&P);
        }
    cudnnSetCallback(0, NULL, NULL);
}

/* ---- the heuristics and the search list them ---- */

static void listed(cudnnHandle_t h)
{
    SECTION("cudnnGet*_v7 and cudnnFind* list the algorithms");
    const tcase *picks[] = {&cases[2], &cases[8]};
    for (int k = 0; k < 2; k++) {
        prob P;
        prob_make(&P, picks[k], &types[0], 0, 0, NULL);
        size_t q[3];
        for (int dir = 0; dir < 3; dir++)
            CHECK_OK(ws_query(h, &P, dir, algo_of(picks[k], dir), &q[dir]));
        int n = 0, seen = 0;
        cudnnConvolutionFwdAlgoPerf_t f[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        cudnnConvolutionBwdDataAlgoPerf_t d[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        cudnnConvolutionBwdFilterAlgoPerf_t b[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
#define LISTED(rows, dir)                                                                                         \
    do {                                                                                                          \
        seen = 0;                                                                                                 \
        for (int i = 0; i < n; i++)                                                                               \
            if ((int)rows[i].algo == algo_of(picks[k], dir)) {                                                    \
                seen = 1;                                                                                         \
                CHECK_MSG(rows[i].status == CUDNN_STATUS_SUCCESS && rows[i].memory == q[dir],                     \
                          "%s %s: status %d memory %zu, want SUCCESS and %zu", picks[k]->name, dname[dir],        \
                          (int)rows[i].status, rows[i].memory, q[dir]);                                           \
            }                                                                                                     \
        CHECK_MSG(seen, "%s %s: the algorithm is not listed", picks[k]->name, dname[dir]);                        \
    } while (0)
        CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, P.xd, P.wd, P.cd, P.yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                        &n, f));
        LISTED(f, FWD);
        CHECK_OK(cudnnFindConvolutionForwardAlgorithm(h, P.xd, P.wd, P.cd, P.yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n,
                                                      f));
        LISTED(f, FWD);
        CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, P.wd, P.yd, P.cd, P.xd,
                                                             CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, d));
        LISTED(d, BWDD);
        CHECK_OK(cudnnFindConvolutionBackwardDataAlgorithm(h, P.wd, P.yd, P.cd, P.xd,
                                                           CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, d));
        LISTED(d, BWDD);
        CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, P.xd, P.yd, P.cd, P.wd,
                                                               CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, b));
        LISTED(b, BWDF);
        CHECK_OK(cudnnFindConvolutionBackwardFilterAlgorithm(h, P.xd, P.yd, P.cd, P.wd,
                                                             CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, b));
        LISTED(b, BWDF);
#undef LISTED
        prob_free(&P);
    }
}

/* ---- what stays refused ---- */

static void refused_case(cudnnHandle_t h, const tcase *c, const int *str, int dirs, const char *what)
{
    prob P;
    prob_make(&P, c, &types[0], 0, 0, str);
    for (int dir = 0; dir < 3; dir++) {
        if (!(dirs >> dir & 1))
            continue;
        size_t q = 0;
        CHECK_MSG(ws_query(h, &P, dir, algo_of(c, dir), &q) == CUDNN_STATUS_NOT_SUPPORTED, "%s %s: not refused",
                  what, dname[dir]);
    }
    prob_free(&P);
}

static void refusals(cudnnHandle_t h)
{
    SECTION("refusals");
    static const int s2[3] = {1, 2, 2}, s3[3] = {2, 1, 1};
    static const tcase w7 = {"7x7", 2, 1, 2, 2, 1, {1, 9, 9}, {1, 7, 7}, {0, 1, 1}};
    static const tcase w53 = {"5x3", 2, 1, 2, 2, 1, {1, 9, 9}, {1, 5, 3}, {0, 1, 1}};
    static const tcase w5p5 = {"5x5 pad 5", 2, 1, 2, 2, 1, {1, 9, 9}, {1, 5, 5}, {0, 5, 5}};
    static const tcase f17 = {"3d filter 17", 3, 1, 1, 1, 1, {18, 3, 3}, {17, 1, 1}, {0, 0, 0}};
    static const tcase fpad = {"3d pad = filter", 3, 1, 1, 1, 1, {4, 4, 4}, {3, 3, 2}, {1, 1, 2}};
    refused_case(h, &cases[2], s2, 7, "5x5 stride 2");
    refused_case(h, &w7, NULL, 7, "7x7");
    refused_case(h, &w53, NULL, 7, "5x3");
    refused_case(h, &w5p5, NULL, 2, "5x5 backward data pad 5");
    refused_case(h, &cases[8], s3, 7, "3d stride 2");
    refused_case(h, &f17, NULL, 7, "3d filter 17");
    refused_case(h, &fpad, NULL, 7, "3d pad = filter");
    /* FFT (not tiling) stays 2-d only, as in cuDNN */
    prob P;
    prob_make(&P, &cases[8], &types[0], 0, 0, NULL);
    size_t q;
    CHECK_STATUS(ws_query(h, &P, FWD, CUDNN_CONVOLUTION_FWD_ALGO_FFT, &q), CUDNN_STATUS_NOT_SUPPORTED);
    prob_free(&P);
    {   /* forward pads as far as it likes: 5x5 pad 5 runs */
        prob Q;
        prob_make(&Q, &w5p5, &types[0], 0, 0, NULL);
        CHECK_OK(ws_query(h, &Q, FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, &q));
        CHECK_OK(ws_query(h, &Q, BWDF, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, &q));
        prob_free(&Q);
    }
}

int main(void)
{
    cudnnHandle_t h = handle_threads(1);
    correctness(h);
    threads();
    solver_ids(h);
    listed(h);
    refusals(h);
    cudnnDestroy(h);
    return hd_test_finish();
}
