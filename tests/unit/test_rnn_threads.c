/* RNN forward (training and inference) / backward results are bitwise identical for 1, 2, 3 and 4
 * threads and across runs, and inference gives training's outputs: LSTM and GRU, one direction
 * (each step's rows dealt to the threads) and two (the directions side by side); LSTM with a
 * projection (the whole-row steps) and without (the column-block steps, with a hidden size of
 * several blocks and a partial one, at batch 37 with unequal and with equal sequence lengths, and
 * at batch 1, whose blocks are wider and whose product is a matrix-vector one). */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "rnn_test_util.h"

enum { T = 6, BMAX = 37, IN = 19, L = 2 };

typedef struct { float *y, *hy, *cy, *dx, *dhx, *dw, *yi, *hyi, *cyi; size_t ny, nh, nc, nx, nw; } result;

static void run(cudnnHandle_t h, result *out, cudnnRNNMode_t cell, int D, int HID, int PROJ, int B, int full)
{
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    CHECK_OK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, cell, CUDNN_RNN_DOUBLE_BIAS,
                                      D == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
                                      CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, IN, HID,
                                      PROJ, L, NULL, CUDNN_RNN_PADDED_IO_ENABLED));
    int lens[BMAX];
    for (int b = 0; b < B; b++) lens[b] = full ? T : 1 + (b * 7) % T;
    cudnnRNNDataDescriptor_t xd, yd;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&yd));
    CHECK_OK(cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, T, B, IN, lens, NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(yd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, T, B, D * PROJ, lens, NULL));
    int hdims[3] = { L * D, B, PROJ }, cdims[3] = { L * D, B, HID };
    cudnnTensorDescriptor_t hdsc = rtu_tensor(CUDNN_DATA_FLOAT, 3, hdims), cdsc = rtu_tensor(CUDNN_DATA_FLOAT, 3, cdims);
    size_t wsize, wss, rss;
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, r, &wsize));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r, CUDNN_FWD_MODE_TRAINING, xd, &wss, &rss));
    out->nw = wsize / 4; out->nx = (size_t)T * B * IN; out->ny = (size_t)T * B * D * PROJ;
    out->nh = (size_t)L * D * B * PROJ; out->nc = (size_t)L * D * B * HID;
    float *w = malloc(wsize), *x = malloc(out->nx * 4), *dy = malloc(out->ny * 4), *ws = malloc(wss), *rs = malloc(rss);
    unsigned s = 42;
    for (size_t i = 0; i < out->nw; i++) w[i] = (float)rtu_rand(&s, 0.3);
    for (size_t i = 0; i < out->nx; i++) x[i] = (float)rtu_rand(&s, 1.0);
    for (size_t i = 0; i < out->ny; i++) dy[i] = (float)rtu_rand(&s, 1.0);
    out->y = calloc(out->ny, 4); out->hy = calloc(out->nh, 4); out->cy = calloc(out->nc, 4);
    out->dx = calloc(out->nx, 4); out->dhx = calloc(out->nh, 4); out->dw = calloc(out->nw, 4);
    CHECK_OK(cudnnRNNForward(h, r, CUDNN_FWD_MODE_TRAINING, lens, xd, x, yd, out->y, hdsc, NULL, out->hy, cdsc, NULL,
                             out->cy, wsize, w, wss, ws, rss, rs));
    CHECK_OK(cudnnRNNBackwardData_v8(h, r, lens, yd, out->y, dy, xd, out->dx, hdsc, NULL, NULL, out->dhx, cdsc, NULL,
                                     NULL, NULL, wsize, w, wss, ws, rss, rs));
    CHECK_OK(cudnnRNNBackwardWeights_v8(h, r, CUDNN_WGRAD_MODE_ADD, lens, xd, x, hdsc, NULL, yd, out->y, wsize, out->dw,
                                        wss, ws, rss, rs));
    /* inference: the same sequences, nothing kept, in a work space of its own */
    size_t wsi = 0, rsi = 0;
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r, CUDNN_FWD_MODE_INFERENCE, xd, &wsi, &rsi));
    float *wi = malloc(wsi);
    out->yi = calloc(out->ny, 4); out->hyi = calloc(out->nh, 4); out->cyi = calloc(out->nc, 4);
    CHECK_OK(cudnnRNNForward(h, r, CUDNN_FWD_MODE_INFERENCE, lens, xd, x, yd, out->yi, hdsc, NULL, out->hyi, cdsc, NULL,
                             out->cyi, wsize, w, wsi, wi, 0, NULL));
    free(wi);
    free(w); free(x); free(dy); free(ws); free(rs);
    rtu_tensor_free(hdsc); rtu_tensor_free(cdsc);
    cudnnDestroyRNNDataDescriptor(xd); cudnnDestroyRNNDataDescriptor(yd);
    cudnnDestroyRNNDescriptor(r);
}

static void release(result *r)
{
    free(r->y); free(r->hy); free(r->cy); free(r->dx); free(r->dhx); free(r->dw);
    free(r->yi); free(r->hyi); free(r->cyi);
}

static int same(const result *a, const result *b)
{
    return !memcmp(a->y, b->y, a->ny * 4) && !memcmp(a->hy, b->hy, a->nh * 4) && !memcmp(a->cy, b->cy, a->nc * 4) &&
           !memcmp(a->dx, b->dx, a->nx * 4) && !memcmp(a->dhx, b->dhx, a->nh * 4) && !memcmp(a->dw, b->dw, a->nw * 4) &&
           !memcmp(a->yi, b->yi, a->ny * 4) && !memcmp(a->hyi, b->hyi, a->nh * 4) && !memcmp(a->cyi, b->cyi, a->nc * 4);
}

int main(void)
{
    SECTION("thread-count determinism");
    cudnnHandle_t hs[4];
    for (int i = 0; i < 4; i++) {
        char v[2] = { (char)('1' + i), 0 };
        setenv("HOSTDNN_NUM_THREADS", v, 1);
        if (cudnnCreate(&hs[i]) != CUDNN_STATUS_SUCCESS) return 1;
    }
    /* { cell, hidden, projection }: a projection is LSTM's only */
    /* full: every sequence runs all T steps (the column-block steps then keep h in y's rows) */
    static const struct { cudnnRNNMode_t cell; int hid, proj, batch, full; } cases[] = {
        { CUDNN_LSTM, 23, 17, 37, 0 }, { CUDNN_GRU, 23, 23, 37, 0 }, { CUDNN_LSTM, 75, 75, 37, 0 },
        { CUDNN_GRU, 75, 75, 37, 0 }, { CUDNN_LSTM, 75, 75, 37, 1 }, { CUDNN_GRU, 75, 75, 37, 1 },
        { CUDNN_LSTM, 300, 300, 1, 1 }, { CUDNN_GRU, 300, 300, 1, 1 },
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (int D = 1; D <= 2; D++) {
            result a, b, c, e, f;
            const int H = cases[ci].hid, P = cases[ci].proj, NB = cases[ci].batch;
            run(hs[0], &a, cases[ci].cell, D, H, P, NB, cases[ci].full);
            run(hs[3], &b, cases[ci].cell, D, H, P, NB, cases[ci].full);
            run(hs[3], &c, cases[ci].cell, D, H, P, NB, cases[ci].full);
            run(hs[2], &e, cases[ci].cell, D, H, P, NB, cases[ci].full);
            run(hs[1], &f, cases[ci].cell, D, H, P, NB, cases[ci].full);
            const char *name = cases[ci].cell == CUDNN_LSTM ? "LSTM" : "GRU";
            CHECK_MSG(same(&a, &b), "%s h%d p%d n%d, %d direction(s): 1 and 4 threads give the same bits", name, H, P, NB, D);
            CHECK_MSG(same(&a, &e), "%s h%d p%d n%d, %d direction(s): 1 and 3 threads give the same bits", name, H, P, NB, D);
            CHECK_MSG(same(&a, &f), "%s h%d p%d n%d, %d direction(s): 1 and 2 threads give the same bits", name, H, P, NB, D);
            CHECK_MSG(!memcmp(f.y, f.yi, f.ny * 4) && !memcmp(f.hy, f.hyi, f.nh * 4) && !memcmp(f.cy, f.cyi, f.nc * 4),
                      "%s h%d p%d n%d, %d direction(s): inference gives training's y, hy, cy", name, H, P, NB, D);
            CHECK_MSG(same(&b, &c), "%s h%d p%d n%d, %d direction(s): two runs give the same bits", name, H, P, NB, D);
            release(&a); release(&b); release(&c); release(&e); release(&f);
        }
    for (int i = 0; i < 4; i++)
        cudnnDestroy(hs[i]);
    return hd_test_finish();
}
