/*
 * hostdnn_conv.c -- the hostdnn side of `make bench-compare`, written as a cuDNN user writes
 * it: descriptors, cudnnFind*Algorithm to pick the fastest algorithm, then timed calls.
 *
 *   hostdnn_conv [--reps N] [--dir fwd|bwd_d|bwd_w] [--layout nchw|nhwc] [--algo heuristic|find]
 *                PROBLEM...
 *
 * Prints "<problem> <dir> hostdnn-<layout> <median ms> <GFLOP/s> <algorithm>" per problem.
 * Problem strings: g1n16c64h56w56k64r3s3p1u1[d1][_name], as in the files of bench/shapes.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_time.h"

#define WARM_MS 20.0   /* untimed calls before the timed ones (see the timing loop) */

typedef struct {
    int g, n, c, h, w, k, r, s, p, u, d, oh, ow;
} prob;

static int parse(const char *str, prob *pb)
{
    memset(pb, 0, sizeof *pb);
    pb->g = pb->u = pb->d = 1;
    const char *q = str;
    while (*q && *q != '_') {
        char key = *q++;
        char *end;
        long v = strtol(q, &end, 10);
        if (end == q || v < 0 || v > 1 << 20)
            return -1;
        q = end;
        int *f = key == 'g' ? &pb->g : key == 'n' ? &pb->n : key == 'c' ? &pb->c : key == 'h' ? &pb->h
               : key == 'w' ? &pb->w : key == 'k' ? &pb->k : key == 'r' ? &pb->r : key == 's' ? &pb->s
               : key == 'p' ? &pb->p : key == 'u' ? &pb->u : key == 'd' ? &pb->d : NULL;
        if (!f)
            return -1;
        *f = (int)v;
    }
    if (!pb->n || !pb->c || !pb->h || !pb->w || !pb->k || !pb->r || !pb->s || !pb->g)
        return -1;
    pb->oh = (pb->h + 2 * pb->p - (pb->d * (pb->r - 1) + 1)) / pb->u + 1;
    pb->ow = (pb->w + 2 * pb->p - (pb->d * (pb->s - 1) + 1)) / pb->u + 1;
    return 0;
}

#define CK(x) do { cudnnStatus_t s_ = (x); if (s_ != CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_)); exit(1); } } while (0)

/* Device buffers come from cudaMalloc, as in any cuDNN program (hostdnn's runtime returns
 * 256-byte aligned host memory, as CUDA does).  A malloc'd buffer starts 16 bytes past a
 * cache line, which splits every 64-byte store of an NHWC result in two. */
static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc of %zu bytes failed\n", bytes);
        exit(1);
    }
    return p;
}

static float *filled(size_t n)
{
    float *host = malloc(n * sizeof(float)), *p = dev_alloc(n * sizeof(float));
    if (!host) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        host[i] = (float)((i * 7) % 13) * 0.1f - 0.6f;
    cudaMemcpy(p, host, n * sizeof(float), cudaMemcpyHostToDevice);
    free(host);
    return p;
}

int main(int argc, char **argv)
{
    int reps = 11, find = 1;
    const char *dir = "fwd", *layout = "nchw";
    cudnnHandle_t h;
    CK(cudnnCreate(&h));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) { reps = atoi(argv[++i]); continue; }
        if (!strcmp(argv[i], "--dir") && i + 1 < argc) { dir = argv[++i]; continue; }
        if (!strcmp(argv[i], "--layout") && i + 1 < argc) { layout = argv[++i]; continue; }
        if (!strcmp(argv[i], "--algo") && i + 1 < argc) { find = !strcmp(argv[++i], "find"); continue; }
        prob pb;
        if (parse(argv[i], &pb) != 0) {
            fprintf(stderr, "bad problem string: %s\n", argv[i]);
            return 2;
        }
        cudnnTensorFormat_t fmt = !strcmp(layout, "nhwc") ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
        cudnnTensorDescriptor_t xD, yD;
        cudnnFilterDescriptor_t wD;
        cudnnConvolutionDescriptor_t cD;
        CK(cudnnCreateTensorDescriptor(&xD));
        CK(cudnnCreateTensorDescriptor(&yD));
        CK(cudnnCreateFilterDescriptor(&wD));
        CK(cudnnCreateConvolutionDescriptor(&cD));
        CK(cudnnSetTensor4dDescriptor(xD, fmt, CUDNN_DATA_FLOAT, pb.n, pb.c, pb.h, pb.w));
        CK(cudnnSetTensor4dDescriptor(yD, fmt, CUDNN_DATA_FLOAT, pb.n, pb.k, pb.oh, pb.ow));
        CK(cudnnSetFilter4dDescriptor(wD, CUDNN_DATA_FLOAT, fmt, pb.k, pb.c / pb.g, pb.r, pb.s));
        CK(cudnnSetConvolution2dDescriptor(cD, pb.p, pb.p, pb.u, pb.u, pb.d, pb.d, CUDNN_CROSS_CORRELATION,
                                           CUDNN_DATA_FLOAT));
        CK(cudnnSetConvolutionGroupCount(cD, pb.g));
        size_t nx = (size_t)pb.n * pb.c * pb.h * pb.w, ny = (size_t)pb.n * pb.k * pb.oh * pb.ow;
        size_t nw = (size_t)pb.k * (pb.c / pb.g) * pb.r * pb.s;
        float *x = filled(nx), *y = filled(ny), *w = filled(nw);
        const float one = 1, zero = 0;
        int got = 0, algo = 0;
        size_t ws_size = 0;
        const char *algo_name = "";
        /* Pick the algorithm: Find times them (as frameworks do with benchmark mode), the
         * heuristic is what Get_v7 ranks first. */
        if (!strcmp(dir, "fwd")) {
            cudnnConvolutionFwdAlgoPerf_t perf[16];
            if (find)
                CK(cudnnFindConvolutionForwardAlgorithm(h, xD, wD, cD, yD, 16, &got, perf));
            else
                CK(cudnnGetConvolutionForwardAlgorithm_v7(h, xD, wD, cD, yD, 16, &got, perf));
            algo = perf[0].algo;
            CK(cudnnGetConvolutionForwardWorkspaceSize(h, xD, wD, cD, yD, perf[0].algo, &ws_size));
        } else if (!strcmp(dir, "bwd_d")) {
            cudnnConvolutionBwdDataAlgoPerf_t perf[16];
            if (find)
                CK(cudnnFindConvolutionBackwardDataAlgorithm(h, wD, yD, cD, xD, 16, &got, perf));
            else
                CK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wD, yD, cD, xD, 16, &got, perf));
            algo = perf[0].algo;
            CK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, wD, yD, cD, xD, perf[0].algo, &ws_size));
        } else {
            cudnnConvolutionBwdFilterAlgoPerf_t perf[16];
            if (find)
                CK(cudnnFindConvolutionBackwardFilterAlgorithm(h, xD, yD, cD, wD, 16, &got, perf));
            else
                CK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xD, yD, cD, wD, 16, &got, perf));
            algo = perf[0].algo;
            CK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xD, yD, cD, wD, perf[0].algo, &ws_size));
        }
        void *ws = ws_size ? dev_alloc(ws_size) : NULL;
        double *t = malloc(sizeof(double) * (size_t)reps);
        /* Warm up for at least WARM_MS (and two calls) before timing: on the 2-vCPU VM the
         * first milliseconds of a process run up to 2x slow (the second vCPU and the clock
         * wake up), which a 0.3 ms batch-1 call would otherwise measure.  onednn_conv.c
         * warms up the same way. */
        double warm_end = now_ms() + WARM_MS;
        for (int rep = -2; rep < reps; rep++) {
            if (rep == -1 && now_ms() < warm_end)
                rep = -2;                 /* stay in the warm-up */
            double t0 = now_ms();
            if (!strcmp(dir, "fwd"))
                CK(cudnnConvolutionForward(h, &one, xD, x, wD, w, cD, (cudnnConvolutionFwdAlgo_t)algo, ws, ws_size, &zero,
                                           yD, y));
            else if (!strcmp(dir, "bwd_d"))
                CK(cudnnConvolutionBackwardData(h, &one, wD, w, yD, y, cD, (cudnnConvolutionBwdDataAlgo_t)algo, ws,
                                                ws_size, &zero, xD, x));
            else
                CK(cudnnConvolutionBackwardFilter(h, &one, xD, x, yD, y, cD, (cudnnConvolutionBwdFilterAlgo_t)algo, ws,
                                                  ws_size, &zero, wD, w));
            if (rep >= 0)
                t[rep] = now_ms() - t0;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_d);
        double ms = t[reps / 2];
        double flops = 2.0 * pb.n * pb.k * pb.oh * pb.ow * (double)(pb.c / pb.g) * pb.r * pb.s;
        char name[32];
        snprintf(name, sizeof name, "algo%d", algo);
        algo_name = name;
        printf("%s %s hostdnn-%s %.4f %.2f %s\n", argv[i], dir, layout, ms, flops / (ms * 1e6), algo_name);
        fflush(stdout);
        free(t), cudaFree(ws), cudaFree(x), cudaFree(y), cudaFree(w);
        cudnnDestroyTensorDescriptor(xD), cudnnDestroyTensorDescriptor(yD);
        cudnnDestroyFilterDescriptor(wD), cudnnDestroyConvolutionDescriptor(cD);
    }
    cudnnDestroy(h);
    return 0;
}
