/* The legacy RNN algorithm queries: MaxCount, and Find*AlgorithmEx giving the same outputs as
 * the plain legacy calls plus one filled performance result (STANDARD, SUCCESS, time >= 0,
 * the workspace size); findIntensity values; bad input leaves every output untouched. */
#include <cudnn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "rnn_test_util.h"

static cudnnHandle_t h;

enum { T = 4, B = 3, IN = 5, HID = 4, L = 2 };
static const int batch_of_t[T] = { 3, 3, 2, 1 };

/* One result as Find left it: algorithm STANDARD, SUCCESS, a time, the workspace size. */
static void check_perf(cudnnAlgorithmPerformance_t p, size_t want_mem)
{
    cudnnAlgorithmDescriptor_t ad = NULL;
    cudnnStatus_t s = CUDNN_STATUS_INTERNAL_ERROR;
    float t = -5.0f;
    size_t mem = 1;
    CHECK_OK(cudnnGetAlgorithmPerformance(p, &ad, &s, &t, &mem));
    CHECK(ad != NULL);
    CHECK_EQ_INT(s, CUDNN_STATUS_SUCCESS);
    CHECK(t >= 0.0f && isfinite(t));
    CHECK_EQ_INT(mem, want_mem);
    cudnnAlgorithm_t a;
    memset(&a, 0x55, sizeof a);
    CHECK_OK(cudnnGetAlgorithmDescriptor(ad, &a));
    CHECK_EQ_INT(a.algo.RNNAlgo, CUDNN_RNN_ALGO_STANDARD);
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(ad));
}

/* A result object Find must not have touched (as cudnnCreateAlgorithmPerformance made it). */
static void check_untouched(cudnnAlgorithmPerformance_t p)
{
    cudnnAlgorithmDescriptor_t ad = (cudnnAlgorithmDescriptor_t)(void *)1;
    cudnnStatus_t s;
    float t = 0;
    size_t mem = 9;
    CHECK_OK(cudnnGetAlgorithmPerformance(p, &ad, &s, &t, &mem));
    CHECK(ad == NULL && t == -1.0f && mem == 0);
}

static void fill(void *p, size_t n, cudnnDataType_t dt, unsigned *seed, double a)
{
    for (size_t i = 0; i < n; i++) {
        double v = rtu_rand(seed, a);
        if (dt == CUDNN_DATA_DOUBLE) ((double *)p)[i] = v; else ((float *)p)[i] = (float)v;
    }
}

static void run(cudnnRNNMode_t cell, cudnnDataType_t dt, cudnnDirectionMode_t dir)
{
    const size_t es = dt == CUDNN_DATA_DOUBLE ? 8 : 4;
    const int D = dir == CUDNN_BIDIRECTIONAL ? 2 : 1, DP = D * HID, NPL = L * D;
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, r, HID, L, NULL, CUDNN_LINEAR_INPUT, dir, cell, CUDNN_RNN_ALGO_STANDARD, dt));
    cudnnTensorDescriptor_t xs[T], ys[T];
    size_t rows = 0;
    for (int t = 0; t < T; t++) {
        int xd3[3] = { batch_of_t[t], IN, 1 }, yd3[3] = { batch_of_t[t], DP, 1 };
        xs[t] = rtu_tensor(dt, 3, xd3);
        ys[t] = rtu_tensor(dt, 3, yd3);
        rows += (size_t)batch_of_t[t];
    }
    int sd[3] = { NPL, B, HID };
    cudnnTensorDescriptor_t st = rtu_tensor(dt, 3, sd);
    size_t psize = 0, lws = 0, lrs = 0;
    CHECK_OK(cudnnGetRNNParamsSize(h, r, xs[0], &psize, dt));
    CHECK_OK(cudnnGetRNNWorkspaceSize(h, r, T, xs, &lws));
    CHECK_OK(cudnnGetRNNTrainingReserveSize(h, r, T, xs, &lrs));
    int wdims[3] = { (int)(psize / es), 1, 1 };
    cudnnFilterDescriptor_t wdesc = rtu_filter(dt, 3, wdims);

    const size_t nx = rows * IN, ny = rows * DP, nh = (size_t)NPL * B * HID, nw = psize / es;
    unsigned seed = 7u + (unsigned)cell;
    unsigned char *w = malloc(psize), *x = malloc(nx * es), *hx = malloc(nh * es), *cx = malloc(nh * es);
    unsigned char *dy = malloc(ny * es), *dhy = malloc(nh * es), *dcy = malloc(nh * es);
    fill(w, nw, dt, &seed, 0.4); fill(x, nx, dt, &seed, 1.0); fill(hx, nh, dt, &seed, 0.5);
    fill(cx, nh, dt, &seed, 0.5); fill(dy, ny, dt, &seed, 1.0); fill(dhy, nh, dt, &seed, 0.5);
    fill(dcy, nh, dt, &seed, 0.5);
    unsigned char *ws = malloc(lws), *rs = malloc(lrs), *rs2 = malloc(lrs);

    /* reference: the plain legacy calls */
    unsigned char *yi = malloc(ny * es), *hyi = malloc(nh * es), *cyi = malloc(nh * es);
    unsigned char *y = malloc(ny * es), *hy = malloc(nh * es), *cy = malloc(nh * es);
    unsigned char *dx = malloc(nx * es), *dhx = malloc(nh * es), *dcx = malloc(nh * es), *dw = malloc(psize);
    CHECK_OK(cudnnRNNForwardInference(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, yi, st, hyi, st, cyi, ws, lws));
    CHECK_OK(cudnnRNNForwardTraining(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy, ws, lws, rs, lrs));
    CHECK_OK(cudnnRNNBackwardData(h, r, T, ys, y, ys, dy, st, dhy, st, dcy, wdesc, w, st, hx, st, cx, xs, dx, st, dhx,
                                  st, dcx, ws, lws, rs, lrs));
    fill(dw, nw, dt, &seed, 0.1);   /* the weight gradient is added to what dw holds */
    unsigned char *dw0 = malloc(psize);
    memcpy(dw0, dw, psize);
    CHECK_OK(cudnnRNNBackwardWeights(h, r, T, xs, x, st, hx, ys, y, ws, lws, wdesc, dw, rs, lrs));

    /* MaxCount */
    int count = -1;
    CHECK_OK(cudnnGetRNNForwardInferenceAlgorithmMaxCount(h, r, &count)); CHECK_EQ_INT(count, 1);
    count = -1;
    CHECK_OK(cudnnGetRNNForwardTrainingAlgorithmMaxCount(h, r, &count)); CHECK_EQ_INT(count, 1);
    count = -1;
    CHECK_OK(cudnnGetRNNBackwardDataAlgorithmMaxCount(h, r, &count)); CHECK_EQ_INT(count, 1);
    count = -1;
    CHECK_OK(cudnnGetRNNBackwardWeightsAlgorithmMaxCount(h, r, &count)); CHECK_EQ_INT(count, 1);

    cudnnAlgorithmPerformance_t perf[3];
    CHECK_OK(cudnnCreateAlgorithmPerformance(perf, 3));
    const float intensities[] = { 0.0f, 0.3f, 1.0f, -1.0f, 50.0f, NAN };
    unsigned char *y2 = malloc(ny * es), *hy2 = malloc(nh * es), *cy2 = malloc(nh * es);
    unsigned char *dx2 = malloc(nx * es), *dhx2 = malloc(nh * es), *dcx2 = malloc(nh * es), *dw2 = malloc(psize);
    const int lstm = cell == CUDNN_LSTM;
    for (size_t k = 0; k < sizeof intensities / sizeof intensities[0]; k++) {
        float fi = intensities[k];
        int req = (int)k % 3 + 1, got = -7;
        memset(y2, 0, ny * es); memset(hy2, 0, nh * es); memset(cy2, 0, nh * es);
        CHECK_OK(cudnnFindRNNForwardInferenceAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st, hy2, st,
                                                         cy2, fi, req, &got, perf, ws, lws));
        CHECK_EQ_INT(got, 1);
        CHECK(memcmp(y2, yi, ny * es) == 0 && memcmp(hy2, hyi, nh * es) == 0);
        if (lstm) CHECK(memcmp(cy2, cyi, nh * es) == 0);
        check_perf(perf[0], lws);
        if (req > 1) check_untouched(perf[1]);

        got = -7;
        memset(y2, 0, ny * es); memset(hy2, 0, nh * es);
        CHECK_OK(cudnnFindRNNForwardTrainingAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st, hy2, st,
                                                        cy2, fi, req, &got, perf, ws, lws, rs2, lrs));
        CHECK_EQ_INT(got, 1);
        CHECK(memcmp(y2, y, ny * es) == 0 && memcmp(hy2, hy, nh * es) == 0);
        if (lstm) CHECK(memcmp(cy2, cy, nh * es) == 0);
        check_perf(perf[0], lws);

        got = -7;
        memset(dx2, 0, nx * es); memset(dhx2, 0, nh * es); memset(dcx2, 0, nh * es);
        CHECK_OK(cudnnFindRNNBackwardDataAlgorithmEx(h, r, T, ys, y2, ys, dy, st, dhy, st, dcy, wdesc, w, st, hx, st, cx,
                                                     xs, dx2, st, dhx2, st, dcx2, fi, req, &got, perf, ws, lws, rs2,
                                                     lrs));
        CHECK_EQ_INT(got, 1);
        CHECK(memcmp(dx2, dx, nx * es) == 0 && memcmp(dhx2, dhx, nh * es) == 0);
        if (lstm) CHECK(memcmp(dcx2, dcx, nh * es) == 0);
        check_perf(perf[0], lws);

        /* dw receives exactly one gradient, however many timed runs */
        got = -7;
        memcpy(dw2, dw0, psize);
        CHECK_OK(cudnnFindRNNBackwardWeightsAlgorithmEx(h, r, T, xs, x, st, hx, ys, y2, fi, req, &got, perf, ws, lws,
                                                        wdesc, dw2, rs2, lrs));
        CHECK_EQ_INT(got, 1);
        CHECK_MSG(memcmp(dw2, dw, psize) == 0, "dw after Find (intensity %g)", (double)fi);
        check_perf(perf[0], lws);
    }

    /* bad input: status, and y / dx / dw / count / perf untouched */
    if (cell == CUDNN_LSTM && dt == CUDNN_DATA_FLOAT) {
        SECTION("find bad input");
        cudnnAlgorithmPerformance_t fresh[1];
        CHECK_OK(cudnnCreateAlgorithmPerformance(fresh, 1));
        memset(y2, 0x7f, ny * es); memset(dx2, 0x7f, nx * es); memcpy(dw2, dw0, psize);
        int got = -7;
        CHECK_STATUS(cudnnGetRNNForwardInferenceAlgorithmMaxCount(h, r, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNForwardTrainingAlgorithmMaxCount(NULL, r, &got), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNBackwardDataAlgorithmMaxCount(h, NULL, &got), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNBackwardWeightsAlgorithmMaxCount(h, (cudnnRNNDescriptor_t)(void *)wdesc, &got),
                     CUDNN_STATUS_BAD_PARAM);
        cudnnRNNDescriptor_t unset;
        CHECK_OK(cudnnCreateRNNDescriptor(&unset));
        CHECK_STATUS(cudnnGetRNNForwardInferenceAlgorithmMaxCount(h, unset, &got), CUDNN_STATUS_BAD_PARAM);
        CHECK_EQ_INT(got, -7);
        for (int req = -1; req <= 0; req++) {
            CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st,
                                                                 hy2, st, cy2, 0.f, req, &got, fresh, ws, lws),
                         CUDNN_STATUS_BAD_PARAM);
            CHECK_STATUS(cudnnFindRNNForwardTrainingAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st,
                                                                hy2, st, cy2, 0.f, req, &got, fresh, ws, lws, rs2, lrs),
                         CUDNN_STATUS_BAD_PARAM);
            CHECK_STATUS(cudnnFindRNNBackwardDataAlgorithmEx(h, r, T, ys, y, ys, dy, st, dhy, st, dcy, wdesc, w, st, hx,
                                                             st, cx, xs, dx2, st, dhx2, st, dcx2, 0.f, req, &got, fresh,
                                                             ws, lws, rs2, lrs), CUDNN_STATUS_BAD_PARAM);
            CHECK_STATUS(cudnnFindRNNBackwardWeightsAlgorithmEx(h, r, T, xs, x, st, hx, ys, y, 0.f, req, &got, fresh,
                                                                ws, lws, wdesc, dw2, rs2, lrs), CUDNN_STATUS_BAD_PARAM);
        }
        CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st, hy2,
                                                             st, cy2, 0.f, 1, NULL, fresh, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st, hy2,
                                                             st, cy2, 0.f, 1, &got, NULL, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);
        cudnnAlgorithmPerformance_t wrong[1] = { (cudnnAlgorithmPerformance_t)(void *)wdesc };
        CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st, hy2,
                                                             st, cy2, 0.f, 1, &got, wrong, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);
        cudnnAlgorithmPerformance_t none[1] = { NULL };
        CHECK_STATUS(cudnnFindRNNForwardTrainingAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st, hy2,
                                                            st, cy2, 0.f, 1, &got, none, ws, lws, rs2, lrs),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(NULL, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st, hy2,
                                                             st, cy2, 0.f, 1, &got, fresh, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(h, unset, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st,
                                                             hy2, st, cy2, 0.f, 1, &got, fresh, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);
        /* too-small workspace / reserve space, wrong descriptors */
        CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st, hy2,
                                                             st, cy2, 1.f, 1, &got, fresh, ws, lws / 2),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnFindRNNForwardInferenceAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, xs, y2, st, hy2,
                                                             st, cy2, 1.f, 1, &got, fresh, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnFindRNNForwardTrainingAlgorithmEx(h, r, T, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st, hy2,
                                                            st, cy2, 1.f, 1, &got, fresh, ws, lws, rs2, lrs - 1),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnFindRNNForwardTrainingAlgorithmEx(h, r, 0, xs, x, st, hx, st, cx, wdesc, w, ys, y2, st, hy2,
                                                            st, cy2, 1.f, 1, &got, fresh, ws, lws, rs2, lrs),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnFindRNNBackwardDataAlgorithmEx(h, r, T, ys, y, ys, dy, st, dhy, st, dcy, wdesc, w, st, hx, st,
                                                         cx, xs, dx2, st, dhx2, st, dcx2, 1.f, 1, &got, fresh, ws, lws,
                                                         rs2, lrs / 2), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnFindRNNBackwardDataAlgorithmEx(h, r, T, ys, y, ys, dy, st, dhy, st, dcy, wdesc, w, st, hx, st,
                                                         cx, xs, NULL, st, dhx2, st, dcx2, 1.f, 1, &got, fresh, ws, lws,
                                                         rs2, lrs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnFindRNNBackwardWeightsAlgorithmEx(h, r, T, xs, x, st, hx, ys, y, 1.f, 1, &got, fresh, ws,
                                                            4, wdesc, dw2, rs2, lrs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnFindRNNBackwardWeightsAlgorithmEx(h, r, T, xs, x, st, hx, ys, y, 1.f, 1, &got, fresh, ws,
                                                            lws, (cudnnFilterDescriptor_t)(void *)st, dw2, rs2, lrs),
                     CUDNN_STATUS_BAD_PARAM);
        int small[3] = { 10, 1, 1 };
        cudnnFilterDescriptor_t wsmall = rtu_filter(dt, 3, small);
        CHECK_STATUS(cudnnFindRNNBackwardWeightsAlgorithmEx(h, r, T, xs, x, st, hx, ys, y, 1.f, 1, &got, fresh, ws,
                                                            lws, wsmall, dw2, rs2, lrs), CUDNN_STATUS_BAD_PARAM);
        rtu_filter_free(wsmall);
        CHECK_EQ_INT(got, -7);
        check_untouched(fresh[0]);
        unsigned char *pat = malloc(nx * es > ny * es ? nx * es : ny * es);
        memset(pat, 0x7f, nx * es > ny * es ? nx * es : ny * es);
        CHECK(memcmp(y2, pat, ny * es) == 0);
        CHECK(memcmp(dx2, pat, nx * es) == 0);
        CHECK(memcmp(dw2, dw0, psize) == 0);
        free(pat);
        CHECK_OK(cudnnDestroyAlgorithmPerformance(fresh, 1));
        CHECK_OK(cudnnDestroyRNNDescriptor(unset));
    }

    CHECK_OK(cudnnDestroyAlgorithmPerformance(perf, 3));
    free(y2); free(hy2); free(cy2); free(dx2); free(dhx2); free(dcx2); free(dw2); free(dw0);
    free(yi); free(hyi); free(cyi); free(y); free(hy); free(cy); free(dx); free(dhx); free(dcx); free(dw);
    free(w); free(x); free(hx); free(cx); free(dy); free(dhy); free(dcy); free(ws); free(rs); free(rs2);
    rtu_tensor_free(st);
    rtu_filter_free(wdesc);
    for (int t = 0; t < T; t++) { rtu_tensor_free(xs[t]); rtu_tensor_free(ys[t]); }
    cudnnDestroyRNNDescriptor(r);
}

int main(void)
{
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 1;
    SECTION("find == plain legacy calls");
    run(CUDNN_LSTM, CUDNN_DATA_FLOAT, CUDNN_UNIDIRECTIONAL);
    run(CUDNN_GRU, CUDNN_DATA_DOUBLE, CUDNN_BIDIRECTIONAL);
    run(CUDNN_RNN_RELU, CUDNN_DATA_FLOAT, CUDNN_BIDIRECTIONAL);
    run(CUDNN_RNN_TANH, CUDNN_DATA_DOUBLE, CUDNN_UNIDIRECTIONAL);
    cudnnDestroy(h);
    return hd_test_finish();
}
