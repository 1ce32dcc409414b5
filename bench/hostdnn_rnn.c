/*
 * hostdnn_rnn.c -- the hostdnn side of bench/compare_rnn.sh: times fp32 RNNs through the public
 * cuDNN v8 API only, as a framework would call them.
 *
 *   hostdnn_rnn [--reps R] PROBLEM...
 *
 * PROBLEM: <cell>-i<input>h<hidden>t<seq>n<batch>l<layers>d<dirs>, cell lstm or gru,
 * e.g. lstm-i512h512t50n32l1d1.  Every sequence has the full length (SEQ_MAJOR_UNPACKED).
 * Output, one line per pass:
 *   "<problem> <pass> hostdnn <median ms> <GFLOP/s>"
 * passes: inf (cudnnRNNForward INFERENCE), fwd (TRAINING), bwd_d (cudnnRNNBackwardData_v8),
 * bwd_w (cudnnRNNBackwardWeights_v8), train (fwd + bwd_d + bwd_w, timed as one sequence).
 *
 * FLOP count (shared with onednn_rnn.c): the matrix products only, 2 * G * H * (in_l + H) per
 * batch row, time step, direction and layer (in_l: input width of layer l), for each of the
 * forward, backward-data and backward-weights passes (each does the same products, transposed);
 * train counts all three.
 */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_time.h"

#define CK(x) do { cudnnStatus_t s_ = (x); if (s_ != CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_)); exit(1); } } while (0)

#define WARM_MS 30.0   /* untimed calls first: page faults and caches out of the timing */

typedef struct { int lstm, in, hid, t, n, l, d; } prob;

static int parse(const char *s, prob *p)
{
    memset(p, 0, sizeof *p);
    if (!strncmp(s, "lstm-", 5)) p->lstm = 1;
    else if (strncmp(s, "gru-", 4)) return -1;
    const char *q = strchr(s, '-') + 1;
    while (*q) {
        char key = *q++;
        char *end;
        long v = strtol(q, &end, 10);
        if (end == q || v <= 0) return -1;
        q = end;
        switch (key) {
        case 'i': p->in = (int)v; break;
        case 'h': p->hid = (int)v; break;
        case 't': p->t = (int)v; break;
        case 'n': p->n = (int)v; break;
        case 'l': p->l = (int)v; break;
        case 'd': p->d = (int)v; break;
        default: return -1;
        }
    }
    return p->in && p->hid && p->t && p->n && p->l && (p->d == 1 || p->d == 2) ? 0 : -1;
}

/* GFLOP of one pass (see the header). */
static double pass_gflop(const prob *p)
{
    double G = p->lstm ? 4 : 3, f = 0;
    for (int l = 0; l < p->l; l++) {
        double in = l == 0 ? p->in : (double)p->d * p->hid;
        f += 2.0 * G * p->hid * (in + p->hid) * p->n * p->t * p->d;
    }
    return f * 1e-9;
}

static void *filled(size_t bytes, unsigned seed)
{
    float *f = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!f) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (size_t i = 0; i < bytes / 4; i++)
        f[i] = (float)((i * 7 + seed) % 13) * 0.02f - 0.12f;
    return f;
}

typedef struct {
    cudnnHandle_t h;
    cudnnRNNDescriptor_t r;
    cudnnRNNDataDescriptor_t xd, yd;
    cudnnTensorDescriptor_t hd;
    int *lens;
    size_t wsize, wss, rss;
    void *w, *dw, *x, *y, *dx, *dy, *hx, *cx, *hy, *cy, *ws, *rs;
} net;

static void pass(net *k, const char *what)
{
    int train = strcmp(what, "inf") != 0;
    if (!strcmp(what, "inf") || !strcmp(what, "fwd") || !strcmp(what, "train"))
        CK(cudnnRNNForward(k->h, k->r, train ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, k->lens, k->xd, k->x,
                           k->yd, k->y, k->hd, k->hx, k->hy, k->hd, k->cx, k->cy, k->wsize, k->w, k->wss, k->ws,
                           k->rss, k->rs));
    if (!strcmp(what, "bwd_d") || !strcmp(what, "train"))
        CK(cudnnRNNBackwardData_v8(k->h, k->r, k->lens, k->yd, k->y, k->dy, k->xd, k->dx, k->hd, k->hx, NULL, NULL,
                                   k->hd, k->cx, NULL, NULL, k->wsize, k->w, k->wss, k->ws, k->rss, k->rs));
    if (!strcmp(what, "bwd_w") || !strcmp(what, "train"))
        CK(cudnnRNNBackwardWeights_v8(k->h, k->r, CUDNN_WGRAD_MODE_ADD, k->lens, k->xd, k->x, k->hd, k->hx, k->yd,
                                      k->y, k->wsize, k->dw, k->wss, k->ws, k->rss, k->rs));
}

static void run(cudnnHandle_t h, const char *name, const prob *p, int reps)
{
    net k;
    memset(&k, 0, sizeof k);
    k.h = h;
    const int DH = p->d * p->hid, NPL = p->l * p->d;
    CK(cudnnCreateRNNDescriptor(&k.r));
    CK(cudnnSetRNNDescriptor_v8(k.r, CUDNN_RNN_ALGO_STANDARD, p->lstm ? CUDNN_LSTM : CUDNN_GRU, CUDNN_RNN_DOUBLE_BIAS,
                                p->d == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT,
                                CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, p->in, p->hid, p->hid, p->l,
                                NULL, 0));
    k.lens = malloc((size_t)p->n * sizeof *k.lens);
    for (int b = 0; b < p->n; b++) k.lens[b] = p->t;
    CK(cudnnCreateRNNDataDescriptor(&k.xd));
    CK(cudnnCreateRNNDataDescriptor(&k.yd));
    CK(cudnnSetRNNDataDescriptor(k.xd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, p->t, p->n, p->in,
                                 k.lens, NULL));
    CK(cudnnSetRNNDataDescriptor(k.yd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, p->t, p->n, DH,
                                 k.lens, NULL));
    int hdims[3] = { NPL, p->n, p->hid }, hstr[3] = { p->n * p->hid, p->hid, 1 };
    CK(cudnnCreateTensorDescriptor(&k.hd));
    CK(cudnnSetTensorNdDescriptor(k.hd, CUDNN_DATA_FLOAT, 3, hdims, hstr));
    size_t wi = 0, ri = 0;
    CK(cudnnGetRNNWeightSpaceSize(h, k.r, &k.wsize));
    CK(cudnnGetRNNTempSpaceSizes(h, k.r, CUDNN_FWD_MODE_TRAINING, k.xd, &k.wss, &k.rss));
    CK(cudnnGetRNNTempSpaceSizes(h, k.r, CUDNN_FWD_MODE_INFERENCE, k.xd, &wi, &ri));
    if (wi > k.wss) k.wss = wi;
    size_t nx = (size_t)p->t * p->n * p->in * 4, ny = (size_t)p->t * p->n * DH * 4, nh = (size_t)NPL * p->n * p->hid * 4;
    k.w = filled(k.wsize, 1); k.dw = filled(k.wsize, 2); k.x = filled(nx, 3); k.dx = filled(nx, 4);
    k.y = filled(ny, 5); k.dy = filled(ny, 6); k.hx = filled(nh, 7); k.cx = filled(nh, 8);
    k.hy = filled(nh, 9); k.cy = filled(nh, 10); k.ws = filled(k.wss, 11); k.rs = filled(k.rss, 12);

    static const char *passes[] = { "inf", "fwd", "bwd_d", "bwd_w", "train" };
    const double gf = pass_gflop(p);
    double *t = malloc((size_t)reps * sizeof *t);
    for (size_t q = 0; q < sizeof passes / sizeof passes[0]; q++) {
        /* the backward passes read the reserve space a training pass filled, and backward
           weights the gradients backward data left there: run them in that order first */
        pass(&k, "fwd");
        if (!strcmp(passes[q], "bwd_w"))
            pass(&k, "bwd_d");
        double t0 = now_ms();
        do pass(&k, passes[q]); while (now_ms() - t0 < WARM_MS);
        for (int i = 0; i < reps; i++) {
            double a = now_ms();
            pass(&k, passes[q]);
            t[i] = now_ms() - a;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_d);
        double med = t[reps / 2], flop = !strcmp(passes[q], "train") ? 3 * gf : gf;
        printf("%s %s hostdnn %.3f %.2f\n", name, passes[q], med, flop / (med * 1e-3));
        fflush(stdout);
    }
    free(t);
    free(k.w); free(k.dw); free(k.x); free(k.dx); free(k.y); free(k.dy); free(k.hx); free(k.cx);
    free(k.hy); free(k.cy); free(k.ws); free(k.rs); free(k.lens);
    cudnnDestroyTensorDescriptor(k.hd);
    cudnnDestroyRNNDataDescriptor(k.xd); cudnnDestroyRNNDataDescriptor(k.yd);
    cudnnDestroyRNNDescriptor(k.r);
}

int main(int argc, char **argv)
{
    int reps = 5, i = 1;
    if (i + 1 < argc && !strcmp(argv[i], "--reps")) { reps = atoi(argv[i + 1]); i += 2; }
    if (reps < 1 || i >= argc) {
        fprintf(stderr, "usage: hostdnn_rnn [--reps R] PROBLEM...   (e.g. lstm-i512h512t50n32l1d1)\n");
        return 2;
    }
    cudnnHandle_t h;
    CK(cudnnCreate(&h));
    for (; i < argc; i++) {
        prob p;
        if (parse(argv[i], &p)) { fprintf(stderr, "bad problem %s\n", argv[i]); return 2; }
        run(h, argv[i], &p, reps);
    }
    cudnnDestroy(h);
    return 0;
}
