/* Legacy RNN calls (v6 descriptor, per-step descriptor arrays, filter-described weights, the
 * Ex forms): same results as the v8 calls on the same problem, size queries, bad input. */
#include <cudnn.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "rnn_test_util.h"

static cudnnHandle_t h;

enum { T = 4, B = 3, IN = 5, HID = 4, L = 2, D = 2 };
static const int batch_of_t[T] = { 3, 3, 2, 1 };   /* -> lengths {4, 3, 2} */
static const int lens[B] = { 4, 3, 2 };

static void run(cudnnRNNMode_t cell, cudnnDataType_t dt)
{
    const size_t es = dt == CUDNN_DATA_DOUBLE ? 8 : 4;
    const int G = cell == CUDNN_LSTM ? 4 : cell == CUDNN_GRU ? 3 : 1, DP = D * HID, NPL = L * D;
    cudnnRNNDescriptor_t r6, r8;
    cudnnTensorDescriptor_t xs[T], ys[T];
    CHECK_OK(rtu_legacy_pair(h, cell, dt, NULL, IN, HID, L, T, batch_of_t, &r6, &r8, xs, ys));
    /* sizes */
    size_t psize = 0, wsize8 = 0, lws = 0, lrs = 0, ws8 = 0, rs8 = 0;
    CHECK_OK(cudnnGetRNNParamsSize(h, r6, xs[0], &psize, dt));
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, r8, &wsize8));
    CHECK_EQ_INT(psize, wsize8);
    CHECK_EQ_INT(psize, es * (size_t)D * (G * HID * (IN + HID + 2) + (L - 1) * G * HID * (DP + HID + 2)));
    CHECK_OK(cudnnGetRNNWorkspaceSize(h, r6, T, xs, &lws));
    CHECK_OK(cudnnGetRNNTrainingReserveSize(h, r6, T, xs, &lrs));
    cudnnRNNDataDescriptor_t xd, yd;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&yd));
    CHECK_OK(cudnnSetRNNDataDescriptor(xd, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, IN, lens, NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(yd, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, DP, lens, NULL));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r8, CUDNN_FWD_MODE_TRAINING, xd, &ws8, &rs8));
    CHECK_EQ_INT(lrs, rs8);
    CHECK(lws >= ws8);

    /* weights through the legacy lookups, checked against the v8 lookup */
    int wdims[3] = { (int)(psize / es), 1, 1 };
    cudnnFilterDescriptor_t wdesc = rtu_filter(dt, 3, wdims), mdesc = rtu_filter(dt, 0, NULL);
    cudnnTensorDescriptor_t t8 = rtu_tensor_empty();
    unsigned char *w = calloc(psize, 1);
    unsigned seed = 99;
    for (int pl = 0; pl < NPL; pl++)
        for (int id = 0; id < 2 * G; id++) {
            void *m = NULL, *b = NULL, *m8 = NULL, *b8 = NULL;
            CHECK_OK(cudnnGetRNNLinLayerMatrixParams(h, r6, pl, xs[0], wdesc, w, id, mdesc, &m));
            cudnnDataType_t fdt; int nb = 0, dims[8];
            CHECK(rtu_filter_get(mdesc, &fdt, &nb, dims) == 0);
            int cols = id < G ? (pl < D ? IN : DP) : HID;
            CHECK_MSG(nb == 3 && dims[0] == 1 && dims[1] == HID && dims[2] == cols && fdt == dt,
                      "matrix filter of pl %d id %d", pl, id);
            CHECK_OK(cudnnGetRNNLinLayerBiasParams(h, r6, pl, xs[0], wdesc, w, id, mdesc, &b));
            CHECK(rtu_filter_get(mdesc, &fdt, &nb, dims) == 0);
            CHECK_MSG(nb == 3 && dims[1] == HID && dims[2] == 1, "bias filter of pl %d id %d", pl, id);
            CHECK_OK(cudnnGetRNNWeightParams(h, r8, pl, psize, w, id, t8, &m8, t8, &b8));
            CHECK(m == m8 && b == b8);
            for (int i = 0; i < HID * cols; i++) {
                double v = rtu_rand(&seed, 0.5);
                if (dt == CUDNN_DATA_DOUBLE) ((double *)m)[i] = v; else ((float *)m)[i] = (float)v;
            }
            for (int i = 0; i < HID; i++) {
                double v = rtu_rand(&seed, 0.5);
                if (dt == CUDNN_DATA_DOUBLE) ((double *)b)[i] = v; else ((float *)b)[i] = (float)v;
            }
        }

    /* data */
    size_t nx = 0;
    for (int t = 0; t < T; t++) nx += (size_t)batch_of_t[t];
    size_t ny = nx * DP;
    nx *= IN;
    const size_t nh = (size_t)NPL * B * HID;
    unsigned char *x = malloc(nx * es), *hx = malloc(nh * es), *cx = malloc(nh * es), *dy = malloc(ny * es);
    unsigned char *dhy = malloc(nh * es), *dcy = malloc(nh * es);
    for (size_t i = 0; i < nx * es / 4; i++) ((float *)x)[i] = (float)rtu_rand(&seed, 1.0);
    for (size_t i = 0; i < nh; i++) {
        double a = rtu_rand(&seed, 0.5), b2 = rtu_rand(&seed, 0.5), c = rtu_rand(&seed, 0.5), d = rtu_rand(&seed, 0.5);
        if (dt == CUDNN_DATA_DOUBLE) { ((double *)hx)[i] = a; ((double *)cx)[i] = b2; ((double *)dhy)[i] = c; ((double *)dcy)[i] = d; }
        else { ((float *)hx)[i] = (float)a; ((float *)cx)[i] = (float)b2; ((float *)dhy)[i] = (float)c; ((float *)dcy)[i] = (float)d; }
    }
    if (dt == CUDNN_DATA_DOUBLE)
        for (size_t i = 0; i < nx; i++) ((double *)x)[i] = rtu_rand(&seed, 1.0);
    for (size_t i = 0; i < ny; i++) {
        double v = rtu_rand(&seed, 1.0);
        if (dt == CUDNN_DATA_DOUBLE) ((double *)dy)[i] = v; else ((float *)dy)[i] = (float)v;
    }
    int sd[3] = { NPL, B, HID };
    cudnnTensorDescriptor_t st = rtu_tensor(dt, 3, sd);

    /* v8 results */
    unsigned char *y8 = malloc(ny * es), *hy8 = malloc(nh * es), *cy8 = malloc(nh * es), *ws = malloc(lws);
    unsigned char *rs = malloc(lrs), *dx8 = malloc(nx * es), *dhx8 = malloc(nh * es), *dcx8 = malloc(nh * es);
    unsigned char *dw8 = calloc(psize, 1);
    CHECK_OK(cudnnRNNForward(h, r8, CUDNN_FWD_MODE_TRAINING, lens, xd, x, yd, y8, st, hx, hy8, st, cx, cy8, psize, w,
                             ws8, ws, rs8, rs));
    CHECK_OK(cudnnRNNBackwardData_v8(h, r8, lens, yd, y8, dy, xd, dx8, st, hx, dhy, dhx8, st, cx, dcy, dcx8, psize, w,
                                     ws8, ws, rs8, rs));
    CHECK_OK(cudnnRNNBackwardWeights_v8(h, r8, CUDNN_WGRAD_MODE_ADD, lens, xd, x, st, hx, yd, y8, psize, dw8, ws8, ws,
                                        rs8, rs));

    /* legacy array API */
    unsigned char *y = malloc(ny * es), *hy = malloc(nh * es), *cy = malloc(nh * es), *dx = malloc(nx * es);
    unsigned char *dhx = malloc(nh * es), *dcx = malloc(nh * es), *dw = calloc(psize, 1);
    CHECK_OK(cudnnRNNForwardInference(h, r6, T, xs, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy, ws, lws));
    CHECK(memcmp(y, y8, ny * es) == 0);
    CHECK(memcmp(hy, hy8, nh * es) == 0);
    if (cell == CUDNN_LSTM) CHECK(memcmp(cy, cy8, nh * es) == 0);
    memset(y, 0, ny * es);
    CHECK_OK(cudnnRNNForwardTraining(h, r6, T, xs, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy, ws, lws, rs, lrs));
    CHECK(memcmp(y, y8, ny * es) == 0);
    CHECK_OK(cudnnRNNBackwardData(h, r6, T, ys, y, ys, dy, st, dhy, st, dcy, wdesc, w, st, hx, st, cx, xs, dx, st, dhx,
                                  st, dcx, ws, lws, rs, lrs));
    CHECK(memcmp(dx, dx8, nx * es) == 0);
    CHECK(memcmp(dhx, dhx8, nh * es) == 0);
    if (cell == CUDNN_LSTM) CHECK(memcmp(dcx, dcx8, nh * es) == 0);
    CHECK_OK(cudnnRNNBackwardWeights(h, r6, T, xs, x, st, hx, ys, y, ws, lws, wdesc, dw, rs, lrs));
    CHECK(memcmp(dw, dw8, psize) == 0);

    /* Ex forms with RNN data descriptors */
    memset(y, 0, ny * es);
    CHECK_OK(cudnnRNNForwardInferenceEx(h, r6, xd, x, st, hx, st, cx, wdesc, w, yd, y, st, hy, st, cy, NULL, NULL, NULL,
                                        NULL, NULL, NULL, NULL, NULL, ws, lws));
    CHECK(memcmp(y, y8, ny * es) == 0);
    CHECK_OK(cudnnRNNForwardTrainingEx(h, r6, xd, x, st, hx, st, cx, wdesc, w, yd, y, st, hy, st, cy, NULL, NULL, NULL,
                                       NULL, NULL, NULL, NULL, NULL, ws, lws, rs, lrs));
    CHECK(memcmp(y, y8, ny * es) == 0);
    memset(dx, 0, nx * es);
    CHECK_OK(cudnnRNNBackwardDataEx(h, r6, yd, y, yd, dy, NULL, NULL, st, dhy, st, dcy, wdesc, w, st, hx, st, cx, xd, dx,
                                    st, dhx, st, dcx, NULL, NULL, ws, lws, rs, lrs));
    CHECK(memcmp(dx, dx8, nx * es) == 0);
    memset(dw, 0, psize);
    CHECK_OK(cudnnRNNBackwardWeightsEx(h, r6, xd, x, st, hx, yd, y, ws, lws, wdesc, dw, rs, lrs));
    CHECK(memcmp(dw, dw8, psize) == 0);

    /* bad input */
    if (cell == CUDNN_LSTM && dt == CUDNN_DATA_FLOAT) {
        SECTION("legacy bad input");
        memset(y, 0x7f, ny * es);
        unsigned char *ysave = malloc(ny * es);
        memcpy(ysave, y, ny * es);
        CHECK_STATUS(cudnnRNNForwardInference(h, r6, 0, xs, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNForwardInference(h, r6, T, NULL, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);
        cudnnTensorDescriptor_t grow[T] = { xs[3], xs[2], xs[1], xs[0] };   /* batch grows */
        CHECK_STATUS(cudnnRNNForwardInference(h, r6, T, grow, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNForwardInference(h, r6, T, xs, x, st, hx, st, cx, wdesc, w, xs, y, st, hy, st, cy, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);   /* y width */
        int small[3] = { 10, 1, 1 };
        cudnnFilterDescriptor_t wsmall = rtu_filter(dt, 3, small);
        CHECK_STATUS(cudnnRNNForwardInference(h, r6, T, xs, x, st, hx, st, cx, wsmall, w, ys, y, st, hy, st, cy, ws, lws),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNForwardInference(h, r6, T, xs, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy, ws, ws8 / 2),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNForwardTraining(h, r6, T, xs, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy, ws, lws, rs,
                                             lrs - 1), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNForwardInference(h, r6, T, xs, x, (cudnnTensorDescriptor_t)(void *)wdesc, hx, st, cx, wdesc,
                                              w, ys, y, st, hy, st, cy, ws, lws), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNForwardInferenceEx(h, r6, xd, x, st, hx, st, cx, wdesc, w, yd, y, st, hy, st, cy, xd, NULL,
                                                NULL, NULL, NULL, NULL, NULL, NULL, ws, lws), CUDNN_STATUS_NOT_SUPPORTED);
        CHECK_STATUS(cudnnRNNForwardInferenceEx(h, r6, yd, x, st, hx, st, cx, wdesc, w, yd, y, st, hy, st, cy, NULL, NULL,
                                                NULL, NULL, NULL, NULL, NULL, NULL, ws, lws), CUDNN_STATUS_BAD_PARAM);
        CHECK(memcmp(y, ysave, ny * es) == 0);
        free(ysave);
        /* one workspace for every legacy call, of the size cudnnGetRNNWorkspaceSize answers; the
         * forward output y is required by the backward calls */
        CHECK_STATUS(cudnnRNNForwardTraining(h, r6, T, xs, x, st, hx, st, cx, wdesc, w, ys, y, st, hy, st, cy, ws,
                                             lws - 1, rs, lrs), CUDNN_STATUS_BAD_PARAM);
        unsigned char *dxsave = malloc(nx * es), *dwsave = malloc(psize);
        memcpy(dxsave, dx, nx * es);
        memcpy(dwsave, dw, psize);
        CHECK_STATUS(cudnnRNNBackwardData(h, r6, T, ys, y, ys, dy, st, dhy, st, dcy, wdesc, w, st, hx, st, cx, xs, dx, st,
                                          dhx, st, dcx, ws, lws - 1, rs, lrs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNBackwardData(h, r6, T, ys, NULL, ys, dy, st, dhy, st, dcy, wdesc, w, st, hx, st, cx, xs, dx,
                                          st, dhx, st, dcx, ws, lws, rs, lrs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNBackwardData_v8(h, r8, lens, yd, NULL, dy, xd, dx, st, hx, dhy, dhx, st, cx, dcy, dcx, psize,
                                             w, ws8, ws, rs8, rs), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNBackwardWeights(h, r6, T, xs, x, st, hx, ys, y, ws, lws - 1, wdesc, dw, rs, lrs),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNBackwardWeights(h, r6, T, xs, x, st, hx, ys, NULL, ws, lws, wdesc, dw, rs, lrs),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnRNNBackwardWeights_v8(h, r8, CUDNN_WGRAD_MODE_ADD, lens, xd, x, st, hx, yd, NULL, psize, dw,
                                                ws8, ws, rs8, rs), CUDNN_STATUS_BAD_PARAM);
        CHECK(memcmp(dx, dxsave, nx * es) == 0);
        CHECK(memcmp(dw, dwsave, psize) == 0);
        free(dxsave);
        free(dwsave);
        size_t sz = 5;
        CHECK_STATUS(cudnnGetRNNParamsSize(h, r6, xs[0], &sz, CUDNN_DATA_DOUBLE), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNParamsSize(h, r8, ys[0], &sz, dt), CUDNN_STATUS_BAD_PARAM);   /* v8 inputSize differs */
        CHECK_STATUS(cudnnGetRNNParamsSize(h, r6, xs[0], NULL, dt), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNWorkspaceSize(h, r6, T, NULL, &sz), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNWorkspaceSize(h, r6, -1, xs, &sz), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNTrainingReserveSize(h, r6, T, grow, &sz), CUDNN_STATUS_BAD_PARAM);
        CHECK_EQ_INT(sz, 5);
        void *m = (void *)3;
        CHECK_STATUS(cudnnGetRNNLinLayerMatrixParams(h, r6, NPL, xs[0], wdesc, w, 0, mdesc, &m), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNLinLayerMatrixParams(h, r6, 0, xs[0], wdesc, w, 2 * G, mdesc, &m), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNLinLayerMatrixParams(h, r6, 0, xs[0], wsmall, w, 0, mdesc, &m), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNLinLayerMatrixParams(h, r6, 0, xs[0], wdesc, NULL, 0, mdesc, &m), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNLinLayerBiasParams(h, r6, 0, xs[0], wdesc, w, 0, NULL, &m), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetRNNLinLayerBiasParams(h, r6, 0, xs[0], wdesc, w, 0, mdesc, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK(m == (void *)3);
        rtu_filter_free(wsmall);
    }

    free(y); free(hy); free(cy); free(dx); free(dhx); free(dcx); free(dw);
    free(y8); free(hy8); free(cy8); free(ws); free(rs); free(dx8); free(dhx8); free(dcx8); free(dw8);
    free(x); free(hx); free(cx); free(dy); free(dhy); free(dcy); free(w);
    rtu_tensor_free(st); rtu_tensor_free(t8);
    rtu_filter_free(wdesc); rtu_filter_free(mdesc);
    for (int t = 0; t < T; t++) { rtu_tensor_free(xs[t]); rtu_tensor_free(ys[t]); }
    cudnnDestroyRNNDataDescriptor(xd); cudnnDestroyRNNDataDescriptor(yd);
    cudnnDestroyRNNDescriptor(r6); cudnnDestroyRNNDescriptor(r8);
}

int main(void)
{
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 1;
    SECTION("legacy == v8");
    run(CUDNN_LSTM, CUDNN_DATA_FLOAT);
    run(CUDNN_GRU, CUDNN_DATA_DOUBLE);
    run(CUDNN_RNN_TANH, CUDNN_DATA_FLOAT);
    run(CUDNN_RNN_RELU, CUDNN_DATA_DOUBLE);
    cudnnDestroy(h);
    return hd_test_finish();
}
