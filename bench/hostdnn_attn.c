/*
 * hostdnn_attn -- multi-head attention through the public cuDNN API, timed: inference
 * (cudnnMultiHeadAttnForward) and a training step (forward with a reserve space, then
 * cudnnMultiHeadAttnBackwardData and cudnnMultiHeadAttnBackwardWeights).
 *
 *   hostdnn_attn [heads batch seq size proj reps dtype(0 float, 1 double)]
 *   defaults: 8 16 64 512 64 7 0 (NVIDIA's multiHeadAttention sample at 8 heads, batch 16)
 *
 * Queries, keys and values have SIZE features and SEQ steps; Q, K, V project to PROJ per head
 * and the output projects back to SIZE.  FLOPs counted: the multiply-adds of the projections,
 * the scores and the weighted values (2 per multiply-add); a training step counts three times
 * the forward pass, as usual for backpropagation.  Prints the median of REPS runs of each,
 * wall-clock and CPU time (on a busy machine the CPU time of a 1-thread run is the steadier).
 */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OK(x) do { cudnnStatus_t s_ = (x); if (s_ != CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudnnGetErrorString(s_)); exit(1); } } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int H = argc > 1 ? atoi(argv[1]) : 8, N = argc > 2 ? atoi(argv[2]) : 16, T = argc > 3 ? atoi(argv[3]) : 64;
    int S = argc > 4 ? atoi(argv[4]) : 512, P = argc > 5 ? atoi(argv[5]) : 64, reps = argc > 6 ? atoi(argv[6]) : 7;
    cudnnDataType_t dt = argc > 7 && atoi(argv[7]) ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    size_t es = dt == CUDNN_DATA_DOUBLE ? 8 : 4;
    if (reps < 1 || reps > 99) reps = 7;
    cudnnHandle_t h;
    OK(cudnnCreate(&h));
    cudnnAttnDescriptor_t a;
    OK(cudnnCreateAttnDescriptor(&a));
    OK(cudnnSetAttnDescriptor(a, CUDNN_ATTN_QUERYMAP_ALL_TO_ONE | CUDNN_ATTN_ENABLE_PROJ_BIASES, H, 1.0 / 8.0, dt, dt,
                              CUDNN_DEFAULT_MATH, NULL, NULL, S, S, S, P, P, P, S, T, T, N, 1));
    size_t wsz, wks, rss;
    OK(cudnnGetMultiHeadAttnBuffers(h, a, &wsz, &wks, &rss));
    cudnnSeqDataDescriptor_t d;
    OK(cudnnCreateSeqDataDescriptor(&d));
    int dims[4];
    dims[CUDNN_SEQDATA_TIME_DIM] = T; dims[CUDNN_SEQDATA_BATCH_DIM] = N; dims[CUDNN_SEQDATA_BEAM_DIM] = 1;
    dims[CUDNN_SEQDATA_VECT_DIM] = S;
    cudnnSeqDataAxis_t ax[4] = { CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_TIME_DIM,
                                 CUDNN_SEQDATA_VECT_DIM };
    int *len = malloc((size_t)N * sizeof *len), *lo = malloc((size_t)T * sizeof *lo), *hi = malloc((size_t)T * sizeof *hi);
    for (int i = 0; i < N; i++) len[i] = T;
    for (int t = 0; t < T; t++) { lo[t] = 0; hi[t] = T; }
    OK(cudnnSetSeqDataDescriptor(d, dt, 4, dims, ax, (size_t)N, len, NULL));
    size_t n = (size_t)N * T * S;
    char *buf[8];
    for (int i = 0; i < 7; i++) {
        buf[i] = malloc(n * es);
        for (size_t j = 0; j < n * es; j++) buf[i][j] = 0;
    }
    void *q = buf[0], *k = buf[1], *v = buf[2], *o = buf[3], *dq = buf[4], *dk = buf[5], *dv = buf[6];
    float *qf = q, *kf = k, *vf = v;
    unsigned seed = 1;
    for (size_t j = 0; j < n && es == 4; j++) {
        seed = seed * 1103515245u + 12345u; qf[j] = (float)((seed >> 9) & 1023) / 1024.0f - 0.5f;
        kf[j] = qf[j] * 0.5f; vf[j] = 0.25f - qf[j];
    }
    char *w = calloc(1, wsz), *dw = calloc(1, wsz), *ws = malloc(wks ? wks : 1), *rs = malloc(rss);
    float *wf = (float *)w;
    for (size_t j = 0; j < wsz / es && es == 4; j++) wf[j] = (float)((j * 7919u) % 1000u) / 20000.0f - 0.025f;
    double fwd = 2.0 * N * T * ((double)S * H * P * 3 + (double)H * P * S) + 2.0 * 2.0 * N * H * (double)T * T * P;
    double ti[99], tt[99], ci[99], ct[99];
    for (int r = -1; r < reps; r++) {   /* r = -1 warms up */
        double c0 = cpu_now(), t0 = now();
        OK(cudnnMultiHeadAttnForward(h, a, -1, lo, hi, len, len, d, q, NULL, d, k, d, v, d, o, wsz, w, wks, ws, 0, NULL));
        double t1 = now(), c1 = cpu_now();
        OK(cudnnMultiHeadAttnForward(h, a, -1, lo, hi, len, len, d, q, NULL, d, k, d, v, d, o, wsz, w, wks, ws, rss, rs));
        OK(cudnnMultiHeadAttnBackwardData(h, a, lo, hi, len, len, d, o, d, dq, q, d, dk, k, d, dv, v, wsz, w, wks, ws, rss,
                                          rs));
        OK(cudnnMultiHeadAttnBackwardWeights(h, a, CUDNN_WGRAD_MODE_ADD, d, q, d, k, d, v, d, o, wsz, w, dw, wks, ws, rss,
                                             rs));
        double t2 = now(), c2 = cpu_now();
        if (r >= 0) { ti[r] = t1 - t0; tt[r] = t2 - t1; ci[r] = c1 - c0; ct[r] = c2 - c1; }
    }
    qsort(ti, (size_t)reps, sizeof ti[0], cmp);
    qsort(tt, (size_t)reps, sizeof tt[0], cmp);
    qsort(ci, (size_t)reps, sizeof ci[0], cmp);
    qsort(ct, (size_t)reps, sizeof ct[0], cmp);
    double mi = ti[reps / 2], mt = tt[reps / 2];
    printf("attention %s heads %d batch %d seq %d size %d proj %d: inference %.2f ms %.1f GFLOP/s, "
           "training step %.2f ms %.1f GFLOP/s\n", dt == CUDNN_DATA_DOUBLE ? "double" : "float", H, N, T, S, P,
           mi * 1e3, fwd / mi * 1e-9, mt * 1e3, 3 * fwd / mt * 1e-9);
    printf("  CPU time (all threads): inference %.2f ms, training step %.2f ms\n", ci[reps / 2] * 1e3,
           ct[reps / 2] * 1e3);
    for (int i = 0; i < 7; i++) free(buf[i]);
    free(w); free(dw); free(ws); free(rs); free(len); free(lo); free(hi);
    cudnnDestroySeqDataDescriptor(d);
    cudnnDestroyAttnDescriptor(a);
    cudnnDestroy(h);
    return 0;
}
