/*
 * Convolution API behaviour beyond the numerics of test_conv.c: descriptor misuse,
 * algorithm counts, the _v7 ranking and the Find searches (every slot filled truthfully,
 * workspace sizes equal to the queries), refusals that leave outputs untouched, backward
 * bias, bias + activation forward, cudnnIm2Col, and determinism across runs and thread
 * counts.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "ref/conv_ref.h"

static cudnnHandle_t handle;

typedef struct {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t c;
    conv_ref_shape rs;
    long nx, nw, ny;
} problem;

/* NCHW float problem N C H W, K R S, pad, stride, dilation, groups. */
static void problem_make(problem *P, cudnnDataType_t dt, int N, int C, int H, int W, int K, int R, int S, int pad,
                         int str, int dil, int groups)
{
    cudnnCreateTensorDescriptor(&P->x);
    cudnnCreateTensorDescriptor(&P->y);
    cudnnCreateFilterDescriptor(&P->w);
    cudnnCreateConvolutionDescriptor(&P->c);
    CHECK_OK(cudnnSetTensor4dDescriptor(P->x, CUDNN_TENSOR_NCHW, dt, N, C, H, W));
    CHECK_OK(cudnnSetFilter4dDescriptor(P->w, dt, CUDNN_TENSOR_NCHW, K, C / groups, R, S));
    CHECK_OK(cudnnSetConvolution2dDescriptor(P->c, pad, pad, str, str, dil, dil, CUDNN_CROSS_CORRELATION,
                                             dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(P->c, groups));
    int n, k, h, w;
    CHECK_OK(cudnnGetConvolution2dForwardOutputDim(P->c, P->x, P->w, &n, &k, &h, &w));
    CHECK_OK(cudnnSetTensor4dDescriptor(P->y, CUDNN_TENSOR_NCHW, dt, n, k, h, w));
    conv_ref_shape r = {N, C, K, groups, {1, H, W}, {1, R, S}, {0}, {0, pad, pad}, {1, str, str}, {1, dil, dil}, 0};
    conv_ref_out_dims(&r);
    P->rs = r;
    P->nx = conv_ref_x_elems(&r), P->nw = conv_ref_w_elems(&r), P->ny = conv_ref_y_elems(&r);
}

static void problem_free(problem *P)
{
    cudnnDestroyTensorDescriptor(P->x);
    cudnnDestroyTensorDescriptor(P->y);
    cudnnDestroyFilterDescriptor(P->w);
    cudnnDestroyConvolutionDescriptor(P->c);
}

static float *ffill(long n, unsigned seed, int integers)
{
    float *p = malloc(n * sizeof(float));
    for (long i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        int v = (int)((seed >> 16) % 7) - 3;
        p[i] = integers ? (float)v : (float)v * 0.37f + (float)((seed >> 8) & 255) / 1024.0f;
    }
    return p;
}

static void descriptor_misuse(void)
{
    SECTION("descriptor misuse");
    CHECK_STATUS(cudnnCreateConvolutionDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyConvolutionDescriptor(NULL));
    cudnnConvolutionDescriptor_t c;
    CHECK_OK(cudnnCreateConvolutionDescriptor(&c));
    CHECK_OK(cudnnSetConvolution2dDescriptor(c, 1, 2, 3, 4, 5, 6, CUDNN_CONVOLUTION, CUDNN_DATA_HALF));
    int v[6];
    cudnnConvolutionMode_t m;
    cudnnDataType_t t;
    CHECK_OK(cudnnGetConvolution2dDescriptor(c, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &m, &t));
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 4 && v[4] == 5 && v[5] == 6 && m == CUDNN_CONVOLUTION &&
          t == CUDNN_DATA_HALF);
    CHECK_STATUS(cudnnGetConvolution2dDescriptor(c, NULL, &v[1], &v[2], &v[3], &v[4], &v[5], &m, &t),
                 CUDNN_STATUS_BAD_PARAM);
    const int pad[3] = {1, 2, 3}, str[3] = {1, 1, 2}, dil[3] = {2, 1, 1};
    CHECK_OK(cudnnSetConvolutionNdDescriptor(c, 3, pad, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_STATUS(cudnnSetConvolutionNdDescriptor(c, 7, pad, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetConvolutionNdDescriptor(c, 2, NULL, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                 CUDNN_STATUS_BAD_PARAM);
    int n, p[3], s[3], d[3];
    CHECK_OK(cudnnGetConvolutionNdDescriptor(c, 3, &n, p, s, d, &m, &t));
    CHECK(n == 3 && p[2] == 3 && s[2] == 2 && d[0] == 2 && m == CUDNN_CROSS_CORRELATION);
    CHECK_STATUS(cudnnSetConvolutionGroupCount(c, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetConvolutionMathType(c, (cudnnMathType_t)99), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetConvolutionMathType(c, CUDNN_TENSOR_OP_MATH));
    CHECK_OK(cudnnDestroyConvolutionDescriptor(c));
    /* destroyed and wrong-kind descriptors */
    CHECK_STATUS(cudnnSetConvolutionGroupCount(c, 2), CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t td;
    cudnnCreateTensorDescriptor(&td);
    CHECK_STATUS(cudnnSetConvolutionGroupCount((cudnnConvolutionDescriptor_t)td, 2), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(td);
}

static void counts(void)
{
    SECTION("max counts");
    int n = 0;
    CHECK_OK(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &n));
    CHECK_EQ_INT(n, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &n));
    CHECK_EQ_INT(n, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
    CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, &n));
    CHECK_EQ_INT(n, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
    CHECK_STATUS(cudnnGetConvolutionForwardAlgorithmMaxCount(NULL, &n), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, NULL), CUDNN_STATUS_BAD_PARAM);
}

/* Common checks of a perf array: distinct algos, successes first, memory = query. */
#define CHECK_PERF_ROWS(rows, count, total, wsquery, measured) do { \
    int seen[16] = {0}, succ = 0, after_fail = 0; \
    for (int i = 0; i < (count); i++) { \
        CHECK(rows[i].algo >= 0 && (int)rows[i].algo < (total) && !seen[rows[i].algo]); \
        seen[rows[i].algo] = 1; \
        if (rows[i].status == CUDNN_STATUS_SUCCESS) { \
            CHECK(!after_fail); succ++; \
            size_t q = 0; CHECK_OK(wsquery); CHECK_EQ_INT(q, rows[i].memory); \
            CHECK(rows[i].determinism == CUDNN_DETERMINISTIC); \
            if (measured) CHECK(rows[i].time >= 0); else CHECK(rows[i].time == -1); \
            if (measured && i > 0 && rows[i - 1].status == CUDNN_STATUS_SUCCESS) CHECK(rows[i - 1].time <= rows[i].time); \
        } else { after_fail = 1; CHECK(rows[i].time == -1 || rows[i].status == CUDNN_STATUS_ALLOC_FAILED); } \
    } \
    CHECK(succ >= 1); \
} while (0)

static void rankings(void)
{
    SECTION("v7 and find");
    problem P;
    problem_make(&P, CUDNN_DATA_FLOAT, 2, 4, 9, 8, 6, 3, 3, 1, 1, 1, 2);
    CHECK_OK(cudnnSetConvolutionMathType(P.c, CUDNN_FMA_MATH));
    cudnnConvolutionFwdAlgoPerf_t f[8];
    cudnnConvolutionBwdDataAlgoPerf_t d[6];
    cudnnConvolutionBwdFilterAlgoPerf_t b[7];
    int n = 0;
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle, P.x, P.w, P.c, P.y, 8, &n, f));
    CHECK_EQ_INT(n, 8);
    CHECK_PERF_ROWS(f, n, 8, cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, P.c, P.y, f[i].algo, &q), 0);
    for (int i = 0; i < n; i++) {
        CHECK(f[i].mathType == CUDNN_FMA_MATH);
        CHECK_EQ_INT(f[i].status, CUDNN_STATUS_SUCCESS);     /* 2-d 3x3 stride 1: every algorithm applies */
    }
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle, P.x, P.w, P.c, P.y, 2, &n, f));
    CHECK_EQ_INT(n, 2);
    CHECK_STATUS(cudnnGetConvolutionForwardAlgorithm_v7(handle, P.x, P.w, P.c, P.y, 0, &n, f), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, P.w, P.y, P.c, P.x, 6, &n, d));
    CHECK_EQ_INT(n, 6);
    CHECK_PERF_ROWS(d, n, 6, cudnnGetConvolutionBackwardDataWorkspaceSize(handle, P.w, P.y, P.c, P.x, d[i].algo, &q), 0);
    CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, P.x, P.y, P.c, P.w, 7, &n, b));
    CHECK_EQ_INT(n, 7);
    CHECK_PERF_ROWS(b, n, 7, cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, P.x, P.y, P.c, P.w, b[i].algo, &q), 0);
    for (int i = 0; i < n; i++)
        if (b[i].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD)
            CHECK_EQ_INT(b[i].status, CUDNN_STATUS_NOT_SUPPORTED);

    CHECK_OK(cudnnFindConvolutionForwardAlgorithm(handle, P.x, P.w, P.c, P.y, 8, &n, f));
    CHECK_EQ_INT(n, 8);
    CHECK_PERF_ROWS(f, n, 8, cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, P.c, P.y, f[i].algo, &q), 1);
    {   /* the handle caches the search: a second call answers the same rows */
        cudnnConvolutionFwdAlgoPerf_t again[8];
        int n2 = 0;
        CHECK_OK(cudnnFindConvolutionForwardAlgorithm(handle, P.x, P.w, P.c, P.y, 8, &n2, again));
        CHECK_EQ_INT(n2, n);
        for (int i = 0; i < n2; i++)
            CHECK(again[i].algo == f[i].algo && again[i].status == f[i].status && again[i].time == f[i].time &&
                  again[i].memory == f[i].memory);
    }
    CHECK_OK(cudnnFindConvolutionBackwardDataAlgorithm(handle, P.w, P.y, P.c, P.x, 6, &n, d));
    CHECK_PERF_ROWS(d, n, 6, cudnnGetConvolutionBackwardDataWorkspaceSize(handle, P.w, P.y, P.c, P.x, d[i].algo, &q), 1);
    CHECK_OK(cudnnFindConvolutionBackwardFilterAlgorithm(handle, P.x, P.y, P.c, P.w, 7, &n, b));
    CHECK_PERF_ROWS(b, n, 7, cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, P.x, P.y, P.c, P.w, b[i].algo, &q), 1);

    /* Ex without workspace: only the no-workspace algorithms run; the output is correct */
    float *x = ffill(P.nx, 1, 1), *w = ffill(P.nw, 2, 1), *y = malloc(P.ny * sizeof(float));
    CHECK_OK(cudnnFindConvolutionForwardAlgorithmEx(handle, P.x, x, P.w, w, P.c, P.y, y, 8, &n, f, NULL, 0));
    for (int i = 0; i < n; i++) {
        size_t q = 0;
        cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, P.c, P.y, f[i].algo, &q);
        if (f[i].algo <= CUDNN_CONVOLUTION_FWD_ALGO_DIRECT)
            CHECK_EQ_INT(f[i].status, q == 0 ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_ALLOC_FAILED);
    }
    double *xd = malloc(P.nx * sizeof(double)), *wd = malloc(P.nw * sizeof(double)), *yd = malloc(P.ny * sizeof(double));
    for (long i = 0; i < P.nx; i++)
        xd[i] = x[i];
    for (long i = 0; i < P.nw; i++)
        wd[i] = w[i];
    conv_ref_fwd(&P.rs, xd, wd, yd);
    long bad = 0;
    for (long i = 0; i < P.ny; i++)
        bad += y[i] != (float)yd[i];
    CHECK_EQ_INT(bad, 0);
    size_t big = 1 << 20;
    void *ws = malloc(big);
    CHECK_OK(cudnnFindConvolutionForwardAlgorithmEx(handle, P.x, x, P.w, w, P.c, P.y, y, 8, &n, f, ws, big));
    CHECK_PERF_ROWS(f, n, 8, cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, P.c, P.y, f[i].algo, &q), 1);
    float *dx = malloc(P.nx * sizeof(float)), *dw = malloc(P.nw * sizeof(float));
    CHECK_OK(cudnnFindConvolutionBackwardDataAlgorithmEx(handle, P.w, w, P.y, y, P.c, P.x, dx, 6, &n, d, ws, big));
    CHECK_PERF_ROWS(d, n, 6, cudnnGetConvolutionBackwardDataWorkspaceSize(handle, P.w, P.y, P.c, P.x, d[i].algo, &q), 1);
    CHECK_OK(cudnnFindConvolutionBackwardFilterAlgorithmEx(handle, P.x, x, P.y, y, P.c, P.w, dw, 7, &n, b, ws, big));
    CHECK_PERF_ROWS(b, n, 7, cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, P.x, P.y, P.c, P.w, b[i].algo, &q), 1);
    free(x), free(w), free(y), free(xd), free(wd), free(yd), free(ws), free(dx), free(dw);
    problem_free(&P);
}

static void refusals(void)
{
    SECTION("refusals");
    problem P;
    problem_make(&P, CUDNN_DATA_FLOAT, 1, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1);
    float *x = ffill(P.nx, 3, 1), *w = ffill(P.nw, 4, 1), *y = ffill(P.ny, 5, 1), *y0 = malloc(P.ny * sizeof(float));
    memcpy(y0, y, P.ny * sizeof(float));
    float one = 1, zero = 0;
    cudnnConvolutionFwdAlgo_t a0 = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
#define FWD(h, xd, xp, wd, wp, cd, algo, yd, yp) \
    cudnnConvolutionForward(h, &one, xd, xp, wd, wp, cd, algo, NULL, 0, &zero, yd, yp)
    CHECK_STATUS(FWD(NULL, P.x, x, P.w, w, P.c, a0, P.y, y), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(handle, P.x, NULL, P.w, w, P.c, a0, P.y, y), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(handle, P.x, x, P.w, w, P.c, (cudnnConvolutionFwdAlgo_t)99, P.y, y), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(handle, P.x, x, P.w, w, P.c, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, P.y, y),
                 CUDNN_STATUS_BAD_PARAM);                                                  /* needs workspace */
    CHECK_STATUS(FWD(handle, P.y, x, P.w, w, P.c, a0, P.y, y), CUDNN_STATUS_BAD_PARAM);        /* C mismatch */
    CHECK_STATUS(FWD(handle, P.x, x, P.w, w, P.c, a0, P.x, y), CUDNN_STATUS_BAD_PARAM);        /* wrong y dims */
    CHECK_STATUS(FWD(handle, (cudnnTensorDescriptor_t)P.w, x, P.w, w, P.c, a0, P.y, y), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnConvolutionForward(handle, &one, P.x, x, P.w, w, P.c, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, NULL, 0,
                                         &zero, P.y, y), CUDNN_STATUS_BAD_PARAM);           /* no workspace */
    cudnnTensorDescriptor_t unset;
    cudnnCreateTensorDescriptor(&unset);
    CHECK_STATUS(FWD(handle, unset, x, P.w, w, P.c, a0, P.y, y), CUDNN_STATUS_BAD_PARAM);
    cudnnConvolutionDescriptor_t cunset;
    cudnnCreateConvolutionDescriptor(&cunset);
    CHECK_STATUS(FWD(handle, P.x, x, P.w, w, cunset, a0, P.y, y), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyConvolutionDescriptor(cunset);
    /* types: x/w mismatch is BAD_PARAM; int8 and odd compute types are NOT_SUPPORTED */
    cudnnFilterDescriptor_t wh;
    cudnnCreateFilterDescriptor(&wh);
    cudnnSetFilter4dDescriptor(wh, CUDNN_DATA_HALF, CUDNN_TENSOR_NCHW, 3, 2, 3, 3);
    CHECK_STATUS(FWD(handle, P.x, x, wh, w, P.c, a0, P.y, y), CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t xi, yi;
    cudnnFilterDescriptor_t wi;
    cudnnCreateTensorDescriptor(&xi), cudnnCreateTensorDescriptor(&yi), cudnnCreateFilterDescriptor(&wi);
    CHECK_OK(cudnnSetTensor4dDescriptor(xi, CUDNN_TENSOR_NHWC, CUDNN_DATA_UINT8, 1, 4, 5, 5));
    CHECK_OK(cudnnSetTensor4dDescriptor(yi, CUDNN_TENSOR_NHWC, CUDNN_DATA_UINT8, 1, 4, 5, 5));
    CHECK_OK(cudnnSetFilter4dDescriptor(wi, CUDNN_DATA_UINT8, CUDNN_TENSOR_NHWC, 4, 4, 3, 3));
    cudnnConvolutionDescriptor_t ci;
    cudnnCreateConvolutionDescriptor(&ci);
    cudnnSetConvolution2dDescriptor(ci, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT32);
    CHECK_STATUS(FWD(handle, xi, x, wi, w, ci, a0, yi, y), CUDNN_STATUS_NOT_SUPPORTED);
    cudnnSetConvolution2dDescriptor(ci, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_HALF);
    CHECK_STATUS(FWD(handle, P.x, x, P.w, w, ci, a0, P.y, y), CUDNN_STATUS_NOT_SUPPORTED);  /* float data, half compute */
    CHECK(memcmp(y, y0, P.ny * sizeof(float)) == 0);
    size_t q;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, P.c, P.y, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, &q));
    {   /* Winograd F(2x2,3x3) refuses stride 2 */
        cudnnConvolutionDescriptor_t c2;
        cudnnTensorDescriptor_t y2;
        cudnnCreateConvolutionDescriptor(&c2), cudnnCreateTensorDescriptor(&y2);
        cudnnSetConvolution2dDescriptor(c2, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        cudnnSetTensor4dDescriptor(y2, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 3, 3);
        for (int algo = CUDNN_CONVOLUTION_FWD_ALGO_FFT; algo <= CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED; algo++)
            CHECK_STATUS(cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, c2, y2, algo, &q),
                         CUDNN_STATUS_NOT_SUPPORTED);
        CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, c2, y2, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &q));
        cudnnDestroyConvolutionDescriptor(c2), cudnnDestroyTensorDescriptor(y2);
    }
    CHECK_STATUS(cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, P.x, P.y, P.c, P.w,
                                                                CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD, &q),
                 CUDNN_STATUS_NOT_SUPPORTED);
    setenv("HOSTDNN_CONV_DISABLE", "103, fwd.direct", 1);           /* debug switch: by id and by name */
    CHECK_STATUS(cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, P.c, P.y, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &q),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, P.c, P.y, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, &q),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, P.c, P.y,
                                                     CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &q));
    unsetenv("HOSTDNN_CONV_DISABLE");
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, P.c, P.y, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &q));
    CHECK_STATUS(cudnnConvolutionBackwardData(handle, &one, P.w, w, P.y, y, P.c, (cudnnConvolutionBwdDataAlgo_t)6, NULL,
                                              0, &zero, P.x, x), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnConvolutionBackwardFilter(handle, &one, P.x, x, P.y, y, P.c, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,
                                                NULL, 0, &zero, P.w, w), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(unset);
    cudnnDestroyFilterDescriptor(wh);
    cudnnDestroyTensorDescriptor(xi), cudnnDestroyTensorDescriptor(yi), cudnnDestroyFilterDescriptor(wi);
    cudnnDestroyConvolutionDescriptor(ci);
    free(x), free(w), free(y), free(y0);
    problem_free(&P);
}

static void backward_bias(void)
{
    SECTION("backward bias");
    cudnnTensorDescriptor_t dy, db;
    cudnnCreateTensorDescriptor(&dy), cudnnCreateTensorDescriptor(&db);
    for (int nhwc = 0; nhwc < 2; nhwc++) {
        CHECK_OK(cudnnSetTensor4dDescriptor(dy, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 3, 5, 4, 3));
        CHECK_OK(cudnnSetTensor4dDescriptor(db, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 5, 1, 1));
        float *g = ffill(180, 9, 1), b[5] = {1, 2, 3, 4, 5}, want[5] = {0};
        for (int n = 0; n < 3; n++)
            for (int c = 0; c < 5; c++)
                for (int s = 0; s < 12; s++)
                    want[c] += g[nhwc ? (n * 12 + s) * 5 + c : (n * 5 + c) * 12 + s];
        float alpha = 2, beta = -1;
        CHECK_OK(cudnnConvolutionBackwardBias(handle, &alpha, dy, g, &beta, db, b));
        for (int c = 0; c < 5; c++)
            CHECK_EQ_INT(b[c], 2 * want[c] - (c + 1));
        float nan = NAN, zero = 0;
        for (int c = 0; c < 5; c++)
            b[c] = nan;
        CHECK_OK(cudnnConvolutionBackwardBias(handle, &alpha, dy, g, &zero, db, b));
        for (int c = 0; c < 5; c++)
            CHECK_EQ_INT(b[c], 2 * want[c]);
        CHECK_OK(cudnnSetTensor4dDescriptor(db, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 4, 1, 1));
        CHECK_STATUS(cudnnConvolutionBackwardBias(handle, &alpha, dy, g, &zero, db, b), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnConvolutionBackwardBias(handle, &alpha, dy, NULL, &zero, db, b), CUDNN_STATUS_BAD_PARAM);
        free(g);
    }
    double gd[2 * 3 * 2] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, bd[3], one = 1, zero = 0;
    CHECK_OK(cudnnSetTensor4dDescriptor(dy, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 3, 1, 2));
    CHECK_OK(cudnnSetTensor4dDescriptor(db, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 3, 1, 1));
    CHECK_OK(cudnnConvolutionBackwardBias(handle, &one, dy, gd, &zero, db, bd));
    CHECK(bd[0] == 1 + 2 + 7 + 8 && bd[1] == 3 + 4 + 9 + 10 && bd[2] == 5 + 6 + 11 + 12);
    cudnnDestroyTensorDescriptor(dy), cudnnDestroyTensorDescriptor(db);
}

static void bias_activation(void)
{
    SECTION("bias activation");
    cudnnActivationDescriptor_t act;
    if (cudnnCreateActivationDescriptor(&act) != CUDNN_STATUS_SUCCESS) {
        SKIP("bias-activation: activation descriptors not available in this build");
        return;
    }
    if (cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0) != CUDNN_STATUS_SUCCESS) {
        SKIP("bias-activation: activation descriptors not available in this build");
        cudnnDestroyActivationDescriptor(act);
        return;
    }
    problem P;
    problem_make(&P, CUDNN_DATA_FLOAT, 2, 3, 6, 5, 4, 3, 3, 1, 1, 1, 1);
    cudnnTensorDescriptor_t bd;
    cudnnCreateTensorDescriptor(&bd);
    cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 4, 1, 1);
    float *x = ffill(P.nx, 11, 1), *w = ffill(P.nw, 12, 1), *z = ffill(P.ny, 13, 1), *y = malloc(P.ny * sizeof(float));
    float bias[4] = {1, -2, 3, -4}, a1 = 2, a2 = -1;
    double *xd = malloc(P.nx * sizeof(double)), *wd = malloc(P.nw * sizeof(double)), *yd = malloc(P.ny * sizeof(double));
    for (long i = 0; i < P.nx; i++)
        xd[i] = x[i];
    for (long i = 0; i < P.nw; i++)
        wd[i] = w[i];
    conv_ref_fwd(&P.rs, xd, wd, yd);
    long per = P.ny / (2 * 4);
    for (int mode = 0; mode < 2; mode++) {
        cudnnSetActivationDescriptor(act, mode ? CUDNN_ACTIVATION_IDENTITY : CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0);
        cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
        size_t q = 0;
        CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, P.x, P.w, P.c, P.y, algo, &q));
        void *ws = malloc(q + 1);
        CHECK_OK(cudnnConvolutionBiasActivationForward(handle, &a1, P.x, x, P.w, w, P.c, algo, ws, q, &a2, P.y, z, bd,
                                                       bias, act, P.y, y));
        long bad = 0;
        for (long i = 0; i < P.ny; i++) {
            double v = 2 * yd[i] - z[i] + bias[(i / per) % 4];
            if (!mode && v < 0)
                v = 0;
            bad += y[i] != (float)v;
        }
        CHECK_EQ_INT(bad, 0);
        if (mode)   /* IDENTITY needs IMPLICIT_PRECOMP_GEMM */
            CHECK_STATUS(cudnnConvolutionBiasActivationForward(handle, &a1, P.x, x, P.w, w, P.c,
                                                               CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ws, q, &a2, P.y, z,
                                                               bd, bias, act, P.y, y), CUDNN_STATUS_NOT_SUPPORTED);
        free(ws);
    }
    /* in place: y is z */
    cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0);
    memcpy(y, z, P.ny * sizeof(float));
    CHECK_OK(cudnnConvolutionBiasActivationForward(handle, &a1, P.x, x, P.w, w, P.c, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
                                                   NULL, 0, &a2, P.y, y, bd, bias, act, P.y, y));
    long bad = 0;
    for (long i = 0; i < P.ny; i++) {
        double v = 2 * yd[i] - z[i] + bias[(i / per) % 4];
        bad += y[i] != (float)(v < 0 ? 0 : v);
    }
    CHECK_EQ_INT(bad, 0);
    cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_TANH, CUDNN_PROPAGATE_NAN, 0);
    CHECK_STATUS(cudnnConvolutionBiasActivationForward(handle, &a1, P.x, x, P.w, w, P.c, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
                                                       NULL, 0, &a2, P.y, z, bd, bias, act, P.y, y),
                 CUDNN_STATUS_NOT_SUPPORTED);
    cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 1, 1);
    cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0);
    CHECK_STATUS(cudnnConvolutionBiasActivationForward(handle, &a1, P.x, x, P.w, w, P.c, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
                                                       NULL, 0, &a2, P.y, z, bd, bias, act, P.y, y),
                 CUDNN_STATUS_BAD_PARAM);
    free(x), free(w), free(z), free(y), free(xd), free(wd), free(yd);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyActivationDescriptor(act);
    problem_free(&P);
}

static void im2col(void)
{
    SECTION("im2col");
    problem P;
    problem_make(&P, CUDNN_DATA_FLOAT, 2, 2, 4, 5, 3, 2, 3, 1, 2, 1, 1);
    float *x = ffill(P.nx, 21, 1);
    int oh = P.rs.out[1], ow = P.rs.out[2];
    long rows = 2 * 2 * 3, cols = (long)oh * ow;
    float *col = malloc(2 * rows * cols * sizeof(float));
    CHECK_OK(cudnnIm2Col(handle, P.x, x, P.w, P.c, col));
    long bad = 0;
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 2; c++)
            for (int r = 0; r < 2; r++)
                for (int s = 0; s < 3; s++)
                    for (int i = 0; i < oh; i++)
                        for (int j = 0; j < ow; j++) {
                            int ih = i * 2 - 1 + r, iw = j * 2 - 1 + s;
                            float want = (ih < 0 || ih >= 4 || iw < 0 || iw >= 5) ? 0 : x[((n * 2 + c) * 4 + ih) * 5 + iw];
                            bad += col[((long)n * rows + (c * 2 + r) * 3 + s) * cols + i * ow + j] != want;
                        }
    CHECK_EQ_INT(bad, 0);
    CHECK_STATUS(cudnnIm2Col(handle, P.x, x, P.w, P.c, NULL), CUDNN_STATUS_BAD_PARAM);
    free(x), free(col);
    problem_free(&P);
}

/* Offsets beyond 2^31 elements: an INT8 input whose image stride is close to INT_MAX, so
 * image 1 lives past element 2^31 (2 GiB of address space, only a few pages touched). */
static void offsets_64bit(void)
{
    SECTION("64-bit offsets");
    const char *mode = getenv("HD_MODE");
    if (mode && strstr(mode, "sanitized")) {
        SKIP("64-bit offset test: not under the sanitizers");
        return;
    }
    const int C = 4, H = 3, W = 3, K = 4;
    const long nstride = 2147483600L;
    int8_t *big = malloc((size_t)nstride + 64);
    if (!big) {
        SKIP("64-bit offset test: no 2 GiB of address space");
        return;
    }
    int8_t small[2 * 36], wv[K * C * 9];
    for (int i = 0; i < 72; i++)
        small[i] = (int8_t)(i % 11 - 5);
    for (int i = 0; i < K * C * 9; i++)
        wv[i] = (int8_t)(i % 7 - 3);
    memcpy(big, small, 36);
    memcpy(big + nstride, small + 36, 36);
    cudnnTensorDescriptor_t xb, xs, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t c;
    cudnnCreateTensorDescriptor(&xb), cudnnCreateTensorDescriptor(&xs), cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w), cudnnCreateConvolutionDescriptor(&c);
    int dims[4] = {2, C, H, W}, sb[4] = {(int)nstride, 1, W * C, C};
    CHECK_OK(cudnnSetTensorNdDescriptor(xb, CUDNN_DATA_INT8, 4, dims, sb));
    CHECK_OK(cudnnSetTensor4dDescriptor(xs, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, 2, C, H, W));
    CHECK_OK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 2, K, H, W));
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, K, C, 3, 3));
    CHECK_OK(cudnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT32));
    float ya[2 * K * H * W], yb[2 * K * H * W], one = 1, zero = 0;
    for (int algo = 0; algo <= CUDNN_CONVOLUTION_FWD_ALGO_DIRECT; algo++) {
        size_t q = 0;
        CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, xb, w, c, y, algo, &q));
        void *ws = malloc(q + 1);
        CHECK_OK(cudnnConvolutionForward(handle, &one, xs, small, w, wv, c, algo, ws, q, &zero, y, ya));
        CHECK_OK(cudnnConvolutionForward(handle, &one, xb, big, w, wv, c, algo, ws, q, &zero, y, yb));
        CHECK_MSG(!memcmp(ya, yb, sizeof ya), "algo %d differs with a 2^31-element image stride", algo);
        free(ws);
    }
    free(big);
    cudnnDestroyTensorDescriptor(xb), cudnnDestroyTensorDescriptor(xs), cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w), cudnnDestroyConvolutionDescriptor(c);
}

/* INT8x4 (int8 and float output) and INT8x32 with NCHW_VECT_C: [N][C/v][H][W][v]. */
static void int8_vect(int v, int float_out)
{
    SECTION("int8 vect");
    enum { N = 2, H = 5, W = 4, R = 3 };
    int C = v == 4 ? 8 : 32, K = v == 4 ? 4 : 32;
    cudnnDataType_t dt = v == 4 ? CUDNN_DATA_INT8x4 : CUDNN_DATA_INT8x32;
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t c;
    cudnnCreateTensorDescriptor(&x), cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w), cudnnCreateConvolutionDescriptor(&c);
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW_VECT_C, dt, N, C, H, W));
    if (float_out)
        CHECK_OK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W));
    else
        CHECK_OK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW_VECT_C, dt, N, K, H, W));
    CHECK_OK(cudnnSetFilter4dDescriptor(w, dt, CUDNN_TENSOR_NCHW_VECT_C, K, C, R, R));
    CHECK_OK(cudnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_INT32));
    int8_t *xv = malloc((size_t)N * C * H * W), *wv = malloc((size_t)K * C * R * R), *yv = malloc((size_t)N * K * H * W);
    float *yf = malloc((size_t)N * K * H * W * sizeof(float));
    double *ref = malloc((size_t)N * K * H * W * sizeof(double));
    unsigned seed = 77;
    for (int i = 0; i < N * C * H * W; i++)
        seed = seed * 1664525u + 1013904223u, xv[i] = (int8_t)((int)(seed >> 24) % 9 - 4);
    for (int i = 0; i < K * C * R * R; i++)
        seed = seed * 1664525u + 1013904223u, wv[i] = (int8_t)((int)(seed >> 24) % 9 - 4);
#define XV(n, ch, h, ww) xv[((((n) * (C / v) + (ch) / v) * H + (h)) * W + (ww)) * v + (ch) % v]
#define WV(k, ch, r, s) wv[((((k) * (C / v) + (ch) / v) * R + (r)) * R + (s)) * v + (ch) % v]
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int h = 0; h < H; h++)
                for (int ww = 0; ww < W; ww++) {
                    double acc = 0;
                    for (int ch = 0; ch < C; ch++)
                        for (int r = 0; r < R; r++)
                            for (int s = 0; s < R; s++) {
                                int ih = h - 1 + r, iw = ww - 1 + s;
                                if (ih >= 0 && ih < H && iw >= 0 && iw < W)     /* CONVOLUTION: flipped */
                                    acc += XV(n, ch, ih, iw) * WV(k, ch, R - 1 - r, R - 1 - s);
                            }
                    ref[((n * K + k) * H + h) * W + ww] = acc;
                }
    float alpha = 0.5f, zero = 0;
    for (int algo = 0; algo <= CUDNN_CONVOLUTION_FWD_ALGO_DIRECT; algo++) {
        size_t q = 0;
        CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, c, y, algo, &q));
        void *ws = malloc(q + 1);
        CHECK_OK(cudnnConvolutionForward(handle, &alpha, x, xv, w, wv, c, algo, ws, q, &zero, y, float_out ? (void *)yf : yv));
        long bad = 0;
        for (int n = 0; n < N; n++)
            for (int k = 0; k < K; k++)
                for (int h = 0; h < H; h++)
                    for (int ww = 0; ww < W; ww++) {
                        double want = ref[((n * K + k) * H + h) * W + ww] * 0.5;
                        if (float_out) {
                            bad += yf[((n * K + k) * H + h) * W + ww] != (float)want;
                        } else {
                            double rnd = nearbyint(want);
                            rnd = rnd > 127 ? 127 : rnd < -128 ? -128 : rnd;
                            bad += yv[((((n * (K / v) + k / v) * H + h) * W + ww) * v) + k % v] != (int8_t)rnd;
                        }
                    }
        CHECK_MSG(bad == 0, "INT8x%d %s algo %d: %ld wrong", v, float_out ? "->float" : "", algo, bad);
        free(ws);
    }
    if (v == 32 && !float_out) {   /* reordered filter + NO_REORDER gives the same result */
        int8_t *wr = malloc((size_t)K * C * R * R), *y2 = malloc((size_t)N * K * H * W);
        float bias[32], biasr[32];
        for (int i = 0; i < 32; i++)
            bias[i] = (float)i;
        CHECK_OK(cudnnReorderFilterAndBias(handle, w, CUDNN_DEFAULT_REORDER, wv, wr, 1, bias, biasr));
        CHECK_OK(cudnnSetConvolutionReorderType(c, CUDNN_NO_REORDER));
        CHECK_OK(cudnnConvolutionForward(handle, &alpha, x, xv, w, wr, c, 0, NULL, 0, &zero, y, y2));
        CHECK_OK(cudnnConvolutionForward(handle, &alpha, x, xv, w, wv, c, 0, NULL, 0, &zero, y, yv));
        CHECK(memcmp(y2, yv, (size_t)N * K * H * W) == 0 && memcmp(bias, biasr, sizeof bias) == 0);
        CHECK_STATUS(cudnnReorderFilterAndBias(handle, w, (cudnnReorderType_t)7, wv, wr, 0, NULL, NULL),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnReorderFilterAndBias(handle, w, CUDNN_DEFAULT_REORDER, wv, wr, 1, NULL, NULL),
                     CUDNN_STATUS_BAD_PARAM);
        free(wr), free(y2);
    }
    if (v == 4 && !float_out)
        CHECK_STATUS(cudnnReorderFilterAndBias(handle, w, CUDNN_DEFAULT_REORDER, wv, wv, 0, NULL, NULL),
                     CUDNN_STATUS_NOT_SUPPORTED);
#undef XV
#undef WV
    free(xv), free(wv), free(yv), free(yf), free(ref);
    cudnnDestroyTensorDescriptor(x), cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w), cudnnDestroyConvolutionDescriptor(c);
}

/* Real-valued data: every algorithm within a rounding tolerance of the float64 reference,
 * scaled with the reduction length (Winograd and FFT round differently from direct sums). */
static void real_data(void)
{
    SECTION("real data");
    problem P;
    problem_make(&P, CUDNN_DATA_FLOAT, 2, 6, 19, 17, 4, 3, 3, 1, 1, 1, 1);
    float *x = ffill(P.nx, 41, 0), *w = ffill(P.nw, 42, 0), *y = ffill(P.ny, 43, 0);
    long most = P.nx > P.ny ? P.nx : P.ny;
    float *o = malloc((most > P.nw ? most : P.nw) * sizeof(float));
    double *xd = malloc(P.nx * sizeof(double)), *wd = malloc(P.nw * sizeof(double)), *yd = malloc(P.ny * sizeof(double));
    double *ref = malloc((most > P.nw ? most : P.nw) * sizeof(double));
    for (long i = 0; i < P.nx; i++)
        xd[i] = x[i];
    for (long i = 0; i < P.nw; i++)
        wd[i] = w[i];
    for (long i = 0; i < P.ny; i++)
        yd[i] = y[i];
    float one = 1, zero = 0;
    size_t big = 1 << 22;
    void *ws = malloc(big);
    for (int dir = 0; dir < 3; dir++) {
        long n = dir == 0 ? P.ny : dir == 1 ? P.nx : P.nw;
        long len = dir == 0 ? 6 * 9 : dir == 1 ? 4 * 9 : 2 * 19 * 17;
        if (dir == 0)
            conv_ref_fwd(&P.rs, xd, wd, ref);
        else if (dir == 1)
            conv_ref_bwd_data(&P.rs, yd, wd, ref);
        else
            conv_ref_bwd_filter(&P.rs, xd, yd, ref);
        int count = dir == 0 ? 8 : dir == 1 ? 6 : 7;
        for (int algo = 0; algo < count; algo++) {
            cudnnStatus_t st;
            if (dir == 0)
                st = cudnnConvolutionForward(handle, &one, P.x, x, P.w, w, P.c, algo, ws, big, &zero, P.y, o);
            else if (dir == 1)
                st = cudnnConvolutionBackwardData(handle, &one, P.w, w, P.y, y, P.c, algo, ws, big, &zero, P.x, o);
            else
                st = cudnnConvolutionBackwardFilter(handle, &one, P.x, x, P.y, y, P.c, algo, ws, big, &zero, P.w, o);
            if (st == CUDNN_STATUS_NOT_SUPPORTED)
                continue;
            CHECK_OK(st);
            double worst = 0, tol = 4e-7 * (double)len * 4.0;   /* |values| < 2 */
            for (long i = 0; i < n; i++)
                worst = fmax(worst, fabs(o[i] - ref[i]));
            CHECK_MSG(worst <= tol, "direction %d algo %d: error %g > %g", dir, algo, worst, tol);
        }
    }
    free(x), free(w), free(y), free(o), free(xd), free(wd), free(yd), free(ref), free(ws);
    problem_free(&P);
}

/* INT8_CONFIG (int8 out, saturated) and INT8_EXT_CONFIG (float out), NHWC. */
static void int8_configs(void)
{
    SECTION("int8");
    enum { N = 2, C = 8, H = 6, W = 5, K = 4, R = 3 };
    cudnnTensorDescriptor_t x, y8, yf;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t c;
    cudnnCreateTensorDescriptor(&x), cudnnCreateTensorDescriptor(&y8), cudnnCreateTensorDescriptor(&yf);
    cudnnCreateFilterDescriptor(&w), cudnnCreateConvolutionDescriptor(&c);
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, N, C, H, W));
    CHECK_OK(cudnnSetTensor4dDescriptor(y8, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, N, K, H, W));
    CHECK_OK(cudnnSetTensor4dDescriptor(yf, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, K, H, W));
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, K, C, R, R));
    CHECK_OK(cudnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT32));
    int8_t xv[N * C * H * W], wv[K * C * R * R], y8v[N * K * H * W];
    float yfv[N * K * H * W];
    unsigned seed = 5;
    for (int i = 0; i < N * C * H * W; i++)
        seed = seed * 1664525u + 1013904223u, xv[i] = (int8_t)((int)(seed >> 24) % 21 - 10);
    for (int i = 0; i < K * C * R * R; i++)
        seed = seed * 1664525u + 1013904223u, wv[i] = (int8_t)((int)(seed >> 24) % 21 - 10);
    /* reference in NHWC / KRSC */
    double ref[N * K * H * W];
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int h = 0; h < H; h++)
                for (int ww = 0; ww < W; ww++) {
                    double acc = 0;
                    for (int r = 0; r < R; r++)
                        for (int s = 0; s < R; s++) {
                            int ih = h - 1 + r, iw = ww - 1 + s;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                                continue;
                            for (int cc = 0; cc < C; cc++)
                                acc += xv[((n * H + ih) * W + iw) * C + cc] * wv[((k * R + r) * R + s) * C + cc];
                        }
                    ref[((n * H + h) * W + ww) * K + k] = acc;
                }
    float alpha = 0.25f, zero = 0;
    for (int algo = 0; algo < 8; algo++) {
        size_t q = 0;
        cudnnStatus_t st = cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, c, y8, algo, &q);
        int gemmish = algo <= CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
        CHECK_EQ_INT(st, gemmish ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED);
        if (!gemmish)
            continue;
        void *ws = malloc(q + 1);
        CHECK_OK(cudnnConvolutionForward(handle, &alpha, x, xv, w, wv, c, algo, ws, q, &zero, y8, y8v));
        CHECK_OK(cudnnConvolutionForward(handle, &alpha, x, xv, w, wv, c, algo, ws, q, &zero, yf, yfv));
        long bad8 = 0, badf = 0;
        for (int i = 0; i < N * K * H * W; i++) {
            double v = nearbyint(ref[i] * 0.25);
            v = v > 127 ? 127 : v < -128 ? -128 : v;
            bad8 += y8v[i] != (int8_t)v;
            badf += yfv[i] != (float)(ref[i] * 0.25);
        }
        CHECK_MSG(bad8 == 0 && badf == 0, "int8 algo %d: %ld int8 and %ld float outputs wrong", algo, bad8, badf);
        free(ws);
    }
    /* refusals: backward directions, NCHW, channels not multiples of 4, FLOAT compute */
    float one = 1;
    CHECK_STATUS(cudnnConvolutionBackwardData(handle, &one, w, wv, y8, y8v, c, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, NULL, 0,
                                              &zero, x, xv), CUDNN_STATUS_NOT_SUPPORTED);
    cudnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    CHECK_STATUS(cudnnConvolutionForward(handle, &one, x, xv, w, wv, c, 0, NULL, 0, &zero, y8, y8v),
                 CUDNN_STATUS_NOT_SUPPORTED);
    cudnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT32);
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, N, C, H, W);
    CHECK_STATUS(cudnnConvolutionForward(handle, &one, x, xv, w, wv, c, 0, NULL, 0, &zero, y8, y8v),
                 CUDNN_STATUS_NOT_SUPPORTED);
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, N, 6, H, W);
    cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, K, 6, R, R);
    CHECK_STATUS(cudnnConvolutionForward(handle, &one, x, xv, w, wv, c, 0, NULL, 0, &zero, y8, y8v),
                 CUDNN_STATUS_NOT_SUPPORTED);
    cudnnDestroyTensorDescriptor(x), cudnnDestroyTensorDescriptor(y8), cudnnDestroyTensorDescriptor(yf);
    cudnnDestroyFilterDescriptor(w), cudnnDestroyConvolutionDescriptor(c);
}

/* Non-integer data: every algorithm gives bitwise the same result on 1 and 3 threads and
 * across repeated runs. */
static void determinism(void)
{
    SECTION("determinism");
    setenv("HOSTDNN_NUM_THREADS", "1", 1);
    cudnnHandle_t h1, h3;
    CHECK_OK(cudnnCreate(&h1));
    setenv("HOSTDNN_NUM_THREADS", "3", 1);
    CHECK_OK(cudnnCreate(&h3));
    unsetenv("HOSTDNN_NUM_THREADS");
    problem P;
    problem_make(&P, CUDNN_DATA_FLOAT, 3, 8, 13, 11, 12, 3, 3, 1, 1, 1, 2);
    float *x = ffill(P.nx, 31, 0), *w = ffill(P.nw, 32, 0), *y = ffill(P.ny, 33, 0);
    long most = P.nx > P.ny ? P.nx : P.ny;
    most = most > P.nw ? most : P.nw;
    float *o1 = malloc(most * sizeof(float)), *o2 = malloc(most * sizeof(float)), *o3 = malloc(most * sizeof(float));
    float one = 1, zero = 0;
    size_t big = 1 << 22;
    void *ws = malloc(big);
    for (int dir = 0; dir < 3; dir++) {
        int count = dir == 0 ? 8 : dir == 1 ? 6 : 7;
        for (int algo = 0; algo < count; algo++) {
            long n = dir == 0 ? P.ny : dir == 1 ? P.nx : P.nw;
            float *outs[3] = {o1, o2, o3};
            cudnnHandle_t hs[3] = {h1, h3, h3};
            cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
            for (int r = 0; r < 3 && st == CUDNN_STATUS_SUCCESS; r++) {
                if (dir == 0)
                    st = cudnnConvolutionForward(hs[r], &one, P.x, x, P.w, w, P.c, algo, ws, big, &zero, P.y, outs[r]);
                else if (dir == 1)
                    st = cudnnConvolutionBackwardData(hs[r], &one, P.w, w, P.y, y, P.c, algo, ws, big, &zero, P.x, outs[r]);
                else
                    st = cudnnConvolutionBackwardFilter(hs[r], &one, P.x, x, P.y, y, P.c, algo, ws, big, &zero, P.w,
                                                        outs[r]);
            }
            if (st == CUDNN_STATUS_NOT_SUPPORTED)
                continue;
            CHECK_OK(st);
            CHECK_MSG(!memcmp(o1, o2, n * sizeof(float)) && !memcmp(o2, o3, n * sizeof(float)),
                      "direction %d algo %d is not bitwise reproducible", dir, algo);
        }
    }
    free(x), free(w), free(y), free(o1), free(o2), free(o3), free(ws);
    problem_free(&P);
    cudnnDestroy(h1), cudnnDestroy(h3);
}

int main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    descriptor_misuse();
    counts();
    rankings();
    refusals();
    backward_bias();
    bias_activation();
    im2col();
    int8_configs();
    int8_vect(4, 0);
    int8_vect(4, 1);
    int8_vect(32, 0);
    real_data();
    offsets_64bit();
    determinism();
    cudnnDestroy(handle);
    return hd_test_finish();
}
