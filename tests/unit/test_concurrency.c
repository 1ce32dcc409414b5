/*
 * test_concurrency.c -- hostdnn used from several application threads at once, as cuDNN
 * allows: (a) threads with a handle each run convolution forward / backward data / backward
 * filter, batch norm training forward and backward, softmax, pooling, an LSTM forward and a
 * cuBLAS sgemm on buffers of their own, and get the bits of a single-threaded run; (b) one
 * handle passed between threads under a mutex gives the same bits; (c) handles are created and
 * destroyed by several threads at once; (d) descriptors are created, set, read back and
 * destroyed by several threads at once, with bad calls among them, while API logging (every
 * level, to a file) is on; (e) the host CUDA runtime's device settings, memory, streams and
 * error state are used by several threads at once; (f) the logging callback is switched while
 * other threads log.
 *
 * The point is as much the ThreadSanitizer pass (make check-tsan, tests/tsan.sh) as the
 * checks: every shared structure of the runtime (the worker pool, the object free lists, the
 * log, the cuBLAS handle table, the CPU probe) is reached from several threads here.
 */
#define _DEFAULT_SOURCE /* setenv, mkstemp */
#include <cudnn.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"

#define NWORK 3          /* application threads of (a) and (b) */
#define NCHURN 4         /* threads of (c) and (d) */

/* Checks made in threads are counted here and added to the harness's counts in main. */
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static int t_pass, t_fail;

static void tcheck(int ok, const char *what, int who)
{
    pthread_mutex_lock(&count_lock);
    if (ok)
        t_pass++;
    else {
        t_fail++;
        fprintf(stderr, "FAIL thread %d: %s\n", who, what);
    }
    pthread_mutex_unlock(&count_lock);
}
#define TOK(expr, who) tcheck((expr) == CUDNN_STATUS_SUCCESS, #expr, (who))

/* ---- the workload ---- */

enum { N = 2, C = 8, H = 12, W = 12, K = 8, R = 3, PH = 6, PW = 6 };
enum { T_SEQ = 5, BATCH = 3, IN = 7, HID = 9 };
enum { GM = 40, GN = 36, GK = 44 };

enum { O_CONV_Y, O_CONV_DX, O_CONV_DW, O_BN_Y, O_BN_MEAN, O_BN_VAR, O_BN_DX, O_BN_DSCALE, O_BN_DBIAS,
       O_SOFTMAX, O_POOL, O_RNN_Y, O_RNN_HY, O_RNN_CY, O_SGEMM, O_COUNT };

typedef struct {
    float *buf[O_COUNT];
    size_t n[O_COUNT];
} outputs;

static float *fill(size_t n, uint32_t *s, float scale)
{
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; p && i < n; i++) {
        *s = *s * 1664525u + 1013904223u;
        p[i] = scale * ((float)(*s >> 8) / 16777216.0f - 0.5f);
    }
    return p;
}

static float *out_new(outputs *o, int which, size_t n)
{
    o->n[which] = n;
    o->buf[which] = calloc(n, sizeof(float));
    return o->buf[which];
}

static void outputs_free(outputs *o)
{
    for (int i = 0; i < O_COUNT; i++)
        free(o->buf[i]);
    memset(o, 0, sizeof *o);
}

static int outputs_same(const outputs *a, const outputs *b)
{
    for (int i = 0; i < O_COUNT; i++)
        if (a->n[i] != b->n[i] || !a->buf[i] || !b->buf[i] || memcmp(a->buf[i], b->buf[i], a->n[i] * sizeof(float)))
            return 0;
    return 1;
}

static cudnnTensorDescriptor_t tensor4(int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t t = NULL;
    if (cudnnCreateTensorDescriptor(&t) != CUDNN_STATUS_SUCCESS)
        return NULL;
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w);
    return t;
}

static void conv_part(cudnnHandle_t h, uint32_t seed, outputs *o, int who)
{
    const float one = 1.0f, zero = 0.0f;
    uint32_t s = seed;
    float *x = fill((size_t)N * C * H * W, &s, 2.0f), *w = fill((size_t)K * C * R * R, &s, 0.5f);
    float *dy = fill((size_t)N * K * H * W, &s, 1.0f);
    cudnnTensorDescriptor_t xd = tensor4(N, C, H, W), yd = tensor4(N, K, H, W);
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    TOK(cudnnCreateFilterDescriptor(&wd), who);
    TOK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, R), who);
    TOK(cudnnCreateConvolutionDescriptor(&cd), who);
    TOK(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT), who);
    size_t s1 = 0, s2 = 0, s3 = 0;
    const cudnnConvolutionFwdAlgo_t fa = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    const cudnnConvolutionBwdDataAlgo_t da = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    const cudnnConvolutionBwdFilterAlgo_t wa = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    TOK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, fa, &s1), who);
    TOK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd, yd, cd, xd, da, &s2), who);
    TOK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cd, wd, wa, &s3), who);
    size_t ws_size = s1 > s2 ? s1 : s2;
    ws_size = ws_size > s3 ? ws_size : s3;
    void *ws = malloc(ws_size ? ws_size : 1);
    float *y = out_new(o, O_CONV_Y, (size_t)N * K * H * W);
    float *dx = out_new(o, O_CONV_DX, (size_t)N * C * H * W);
    float *dw = out_new(o, O_CONV_DW, (size_t)K * C * R * R);
    TOK(cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, fa, ws, ws_size, &zero, yd, y), who);
    TOK(cudnnConvolutionBackwardData(h, &one, wd, w, yd, dy, cd, da, ws, ws_size, &zero, xd, dx), who);
    TOK(cudnnConvolutionBackwardFilter(h, &one, xd, x, yd, dy, cd, wa, ws, ws_size, &zero, wd, dw), who);
    free(ws);
    free(x);
    free(w);
    free(dy);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
}

static void ops_part(cudnnHandle_t h, uint32_t seed, outputs *o, int who)
{
    const float one = 1.0f, zero = 0.0f;
    uint32_t s = seed ^ 0x9e3779b9u;
    size_t nx = (size_t)N * C * H * W;
    float *x = fill(nx, &s, 3.0f), *dy = fill(nx, &s, 1.0f), *scale = fill(C, &s, 1.0f), *bias = fill(C, &s, 1.0f);
    cudnnTensorDescriptor_t xd = tensor4(N, C, H, W), pd_out = tensor4(N, C, PH, PW), bnd;
    TOK(cudnnCreateTensorDescriptor(&bnd), who);
    TOK(cudnnDeriveBNTensorDescriptor(bnd, xd, CUDNN_BATCHNORM_SPATIAL), who);

    float *y = out_new(o, O_BN_Y, nx), *mean = out_new(o, O_BN_MEAN, C), *var = out_new(o, O_BN_VAR, C);
    float run_mean[C], run_var[C];
    for (int c = 0; c < C; c++)
        run_mean[c] = 0.0f, run_var[c] = 1.0f;
    TOK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x, xd, y, bnd, scale, bias,
                                               0.1, run_mean, run_var, 1e-5, mean, var), who);
    float *dx = out_new(o, O_BN_DX, nx), *ds = out_new(o, O_BN_DSCALE, C), *db = out_new(o, O_BN_DBIAS, C);
    TOK(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, xd, x, xd, dy, xd, dx,
                                        bnd, scale, ds, db, 1e-5, mean, var), who);

    float *sm = out_new(o, O_SOFTMAX, nx);
    TOK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, xd, x, &zero, xd, sm), who);

    cudnnPoolingDescriptor_t pd;
    TOK(cudnnCreatePoolingDescriptor(&pd), who);
    TOK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2), who);
    float *py = out_new(o, O_POOL, (size_t)N * C * PH * PW);
    TOK(cudnnPoolingForward(h, pd, &one, xd, x, &zero, pd_out, py), who);

    cudnnDestroyPoolingDescriptor(pd);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(pd_out);
    cudnnDestroyTensorDescriptor(bnd);
    free(x);
    free(dy);
    free(scale);
    free(bias);
}

static void rnn_part(cudnnHandle_t h, uint32_t seed, outputs *o, int who)
{
    uint32_t s = seed ^ 0x85ebca6bu;
    cudnnRNNDescriptor_t r;
    TOK(cudnnCreateRNNDescriptor(&r), who);
    TOK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL,
                                 CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, IN, HID, HID,
                                 1, NULL, CUDNN_RNN_PADDED_IO_ENABLED), who);
    int lens[BATCH];
    for (int b = 0; b < BATCH; b++)
        lens[b] = T_SEQ - b;
    cudnnRNNDataDescriptor_t xd, yd;
    TOK(cudnnCreateRNNDataDescriptor(&xd), who);
    TOK(cudnnCreateRNNDataDescriptor(&yd), who);
    TOK(cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T_SEQ, BATCH, IN,
                                  lens, NULL), who);
    TOK(cudnnSetRNNDataDescriptor(yd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T_SEQ, BATCH, HID,
                                  lens, NULL), who);
    int hdims[3] = {1, BATCH, HID}, hstr[3] = {BATCH * HID, HID, 1};
    cudnnTensorDescriptor_t hd;
    TOK(cudnnCreateTensorDescriptor(&hd), who);
    TOK(cudnnSetTensorNdDescriptor(hd, CUDNN_DATA_FLOAT, 3, hdims, hstr), who);
    size_t wsize = 0, wss = 0, rss = 0;
    TOK(cudnnGetRNNWeightSpaceSize(h, r, &wsize), who);
    TOK(cudnnGetRNNTempSpaceSizes(h, r, CUDNN_FWD_MODE_INFERENCE, xd, &wss, &rss), who);
    float *wts = fill(wsize / sizeof(float), &s, 0.6f), *x = fill((size_t)T_SEQ * BATCH * IN, &s, 2.0f);
    float *hx = fill((size_t)BATCH * HID, &s, 1.0f), *cx = fill((size_t)BATCH * HID, &s, 1.0f);
    void *ws = malloc(wss ? wss : 1);
    float *y = out_new(o, O_RNN_Y, (size_t)T_SEQ * BATCH * HID);
    float *hy = out_new(o, O_RNN_HY, (size_t)BATCH * HID), *cy = out_new(o, O_RNN_CY, (size_t)BATCH * HID);
    TOK(cudnnRNNForward(h, r, CUDNN_FWD_MODE_INFERENCE, lens, xd, x, yd, y, hd, hx, hy, hd, cx, cy, wsize, wts, wss, ws,
                        0, NULL), who);
    free(ws);
    free(wts);
    free(x);
    free(hx);
    free(cx);
    cudnnDestroyTensorDescriptor(hd);
    cudnnDestroyRNNDataDescriptor(xd);
    cudnnDestroyRNNDataDescriptor(yd);
    cudnnDestroyRNNDescriptor(r);
}

static void sgemm_part(cublasHandle_t b, uint32_t seed, outputs *o, int who)
{
    uint32_t s = seed ^ 0xc2b2ae35u;
    float *a = fill((size_t)GM * GK, &s, 1.0f), *bm = fill((size_t)GK * GN, &s, 1.0f);
    float *c = out_new(o, O_SGEMM, (size_t)GM * GN);
    const float alpha = 1.0f, beta = 0.0f;
    tcheck(cublasSgemm(b, CUBLAS_OP_N, CUBLAS_OP_T, GM, GN, GK, &alpha, a, GM, bm, GN, &beta, c, GM) ==
               CUBLAS_STATUS_SUCCESS, "cublasSgemm", who);
    free(a);
    free(bm);
}

static void workload(cudnnHandle_t h, cublasHandle_t b, uint32_t seed, outputs *o, int who)
{
    memset(o, 0, sizeof *o);
    conv_part(h, seed, o, who);
    ops_part(h, seed, o, who);
    rnn_part(h, seed, o, who);
    sgemm_part(b, seed, o, who);
}

/* ---- (a) a handle per thread; (b) one handle shared under a mutex ---- */

static outputs reference[NWORK];

typedef struct {
    int id;
    cudnnHandle_t shared;            /* (b): the handle all threads use; NULL for (a) */
    cublasHandle_t shared_blas;
    pthread_mutex_t *lock;
    int rounds;
} work_arg;

static void *work_thread(void *p)
{
    work_arg *a = p;
    cudnnHandle_t h = a->shared;
    cublasHandle_t b = a->shared_blas;
    if (!h) {
        TOK(cudnnCreate(&h), a->id);
        tcheck(cublasCreate(&b) == CUBLAS_STATUS_SUCCESS, "cublasCreate", a->id);
    }
    for (int r = 0; r < a->rounds; r++) {
        outputs o;
        if (a->lock)
            pthread_mutex_lock(a->lock);
        workload(h, b, (uint32_t)a->id + 1u, &o, a->id);
        if (a->lock)
            pthread_mutex_unlock(a->lock);
        tcheck(outputs_same(&o, &reference[a->id]), "results bitwise equal to the single-threaded run", a->id);
        outputs_free(&o);
    }
    if (!a->shared) {
        TOK(cudnnDestroy(h), a->id);
        cublasDestroy(b);
    }
    return NULL;
}

static void run_workers(cudnnHandle_t shared, cublasHandle_t shared_blas, pthread_mutex_t *lock)
{
    pthread_t t[NWORK];
    work_arg a[NWORK];
    for (int i = 0; i < NWORK; i++) {
        a[i] = (work_arg){i, shared, shared_blas, lock, 2};
        CHECK(pthread_create(&t[i], NULL, work_thread, &a[i]) == 0);
    }
    for (int i = 0; i < NWORK; i++)
        pthread_join(t[i], NULL);
}

/* ---- (c) handles created and destroyed at once ---- */

static void *handle_churn(void *p)
{
    int id = (int)(intptr_t)p;
    const float one = 1.0f, zero = 0.0f;
    float x[2 * 3 * 4], y[2 * 3 * 4];
    for (int i = 0; i < 24; i++)
        x[i] = (float)(i % 7) - 3.0f;
    for (int it = 0; it < 40; it++) {
        cudnnHandle_t h = NULL;
        cublasHandle_t b = NULL;
        TOK(cudnnCreate(&h), id);
        cudaStream_t st = (cudaStream_t)(uintptr_t)(0x1000 + id), got = NULL;
        TOK(cudnnSetStream(h, st), id);
        TOK(cudnnGetStream(h, &got), id);
        tcheck(got == st, "cudnnGetStream gives the stream set", id);
        cudnnTensorDescriptor_t d = tensor4(2, 3, 2, 2);
        TOK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_MODE_INSTANCE, &one, d, x, &zero, d, y), id);
        cudnnDestroyTensorDescriptor(d);
        tcheck(cublasCreate(&b) == CUBLAS_STATUS_SUCCESS, "cublasCreate", id);
        tcheck(cublasDestroy(b) == CUBLAS_STATUS_SUCCESS, "cublasDestroy", id);
        TOK(cudnnDestroy(h), id);
    }
    return NULL;
}

/* ---- (d) descriptors created, set, read back and destroyed at once ---- */

static void desc_round(cudnnHandle_t h, int id, int it)
{
    int n = 1 + (id + it) % 4, c = 2 + it % 5;
    cudnnTensorDescriptor_t t;
    TOK(cudnnCreateTensorDescriptor(&t), id);
    TOK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, c, 3, 5), id);
    cudnnDataType_t dt;
    int gn, gc, gh, gw, sn, sc, sh, sw;
    TOK(cudnnGetTensor4dDescriptor(t, &dt, &gn, &gc, &gh, &gw, &sn, &sc, &sh, &sw), id);
    tcheck(gn == n && gc == c && sc == 1 && sw == c, "tensor descriptor reads back", id);
    /* a bad call: logged (error level) from several threads at once, nothing changes */
    tcheck(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, -1, c, 3, 5) == CUDNN_STATUS_BAD_PARAM,
           "negative dimension refused", id);
    TOK(cudnnGetTensor4dDescriptor(t, &dt, &gn, &gc, &gh, &gw, &sn, &sc, &sh, &sw), id);
    tcheck(gn == n, "refused set leaves the descriptor", id);

    cudnnFilterDescriptor_t f;
    TOK(cudnnCreateFilterDescriptor(&f), id);
    TOK(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, c, 3, 3), id);
    cudnnConvolutionDescriptor_t cv;
    TOK(cudnnCreateConvolutionDescriptor(&cv), id);
    TOK(cudnnSetConvolution2dDescriptor(cv, 1, 1, 1 + it % 2, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT), id);
    int on, oc, oh, ow;
    TOK(cudnnGetConvolution2dForwardOutputDim(cv, t, f, &on, &oc, &oh, &ow), id);
    tcheck(on == n && oc == 4 && oh == (it % 2 ? 2 : 3) && ow == 5, "convolution output shape", id);
    size_t ws = 0;
    cudnnTensorDescriptor_t y = tensor4(on, oc, oh, ow);
    TOK(cudnnGetConvolutionForwardWorkspaceSize(h, t, f, cv, y, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &ws), id);

    cudnnPoolingDescriptor_t p;
    TOK(cudnnCreatePoolingDescriptor(&p), id);
    TOK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_PROPAGATE_NAN, 2, 2, 1, 1,
                                    1, 2), id);
    cudnnActivationDescriptor_t a;
    TOK(cudnnCreateActivationDescriptor(&a), id);
    TOK(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.5 * it), id);
    cudnnLRNDescriptor_t l;
    TOK(cudnnCreateLRNDescriptor(&l), id);
    TOK(cudnnSetLRNDescriptor(l, 5, 1e-4, 0.75, 2.0), id);
    cudnnOpTensorDescriptor_t op;
    TOK(cudnnCreateOpTensorDescriptor(&op), id);
    TOK(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN), id);
    cudnnReduceTensorDescriptor_t rd;
    TOK(cudnnCreateReduceTensorDescriptor(&rd), id);
    TOK(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES), id);
    cudnnRNNDescriptor_t r;
    TOK(cudnnCreateRNNDescriptor(&r), id);
    TOK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, CUDNN_GRU, CUDNN_RNN_SINGLE_INP_BIAS, CUDNN_BIDIRECTIONAL,
                                 CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, 3 + it % 4, 5,
                                 5, 2, NULL, 0), id);
    size_t wsize = 0;
    TOK(cudnnGetRNNWeightSpaceSize(h, r, &wsize), id);
    tcheck(wsize > 0, "RNN weight space", id);

    cudnnDestroyRNNDescriptor(r);
    cudnnDestroyReduceTensorDescriptor(rd);
    cudnnDestroyOpTensorDescriptor(op);
    cudnnDestroyLRNDescriptor(l);
    cudnnDestroyActivationDescriptor(a);
    cudnnDestroyPoolingDescriptor(p);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyConvolutionDescriptor(cv);
    cudnnDestroyFilterDescriptor(f);
    cudnnDestroyTensorDescriptor(t);
}

static void *desc_churn(void *p)
{
    int id = (int)(intptr_t)p;
    cudnnHandle_t h;
    TOK(cudnnCreate(&h), id);
    for (int it = 0; it < 60; it++)
        desc_round(h, id, it);
    /* dropout descriptors need a handle and fill their states: a few, also at once */
    for (int it = 0; it < 3; it++) {
        cudnnDropoutDescriptor_t d;
        size_t bytes = 0;
        TOK(cudnnCreateDropoutDescriptor(&d), id);
        TOK(cudnnDropoutGetStatesSize(h, &bytes), id);
        void *states = malloc(bytes ? bytes : 1);
        TOK(cudnnSetDropoutDescriptor(d, h, 0.25f, states, bytes, 1234u + (unsigned)it), id);
        TOK(cudnnDestroyDropoutDescriptor(d), id);
        free(states);
    }
    TOK(cudnnDestroy(h), id);
    return NULL;
}

/* ---- (e) the host CUDA runtime from several threads ---- */

static void *cudart_churn(void *p)
{
    int id = (int)(intptr_t)p;
    unsigned char host[256], back[256];
    for (int i = 0; i < 256; i++)
        host[i] = (unsigned char)(i * 7 + id);
    for (int it = 0; it < 40; it++) {
        unsigned flags = 0;
        enum cudaFuncCache cache;
        enum cudaSharedMemConfig shm;
        tcheck(cudaSetDeviceFlags(it & 1 ? cudaDeviceScheduleYield : cudaDeviceScheduleSpin) == cudaSuccess,
               "cudaSetDeviceFlags", id);
        tcheck(cudaGetDeviceFlags(&flags) == cudaSuccess && (flags & cudaDeviceMapHost), "cudaGetDeviceFlags", id);
        tcheck(cudaDeviceSetCacheConfig((enum cudaFuncCache)(it % 4)) == cudaSuccess, "cudaDeviceSetCacheConfig", id);
        tcheck(cudaDeviceGetCacheConfig(&cache) == cudaSuccess && (unsigned)cache < 4, "cudaDeviceGetCacheConfig", id);
        tcheck(cudaDeviceSetSharedMemConfig((enum cudaSharedMemConfig)(it % 3)) == cudaSuccess,
               "cudaDeviceSetSharedMemConfig", id);
        tcheck(cudaDeviceGetSharedMemConfig(&shm) == cudaSuccess && (unsigned)shm < 3, "cudaDeviceGetSharedMemConfig",
               id);
        void *d = NULL;
        cudaStream_t st = NULL;
        tcheck(cudaMalloc(&d, sizeof host) == cudaSuccess, "cudaMalloc", id);
        tcheck(cudaStreamCreate(&st) == cudaSuccess, "cudaStreamCreate", id);
        tcheck(cudaMemcpyAsync(d, host, sizeof host, cudaMemcpyHostToDevice, st) == cudaSuccess, "cudaMemcpyAsync", id);
        tcheck(cudaStreamSynchronize(st) == cudaSuccess, "cudaStreamSynchronize", id);
        memset(back, 0, sizeof back);
        tcheck(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess && !memcmp(back, host, sizeof host),
               "a round trip through device memory", id);
        tcheck(cudaStreamDestroy(st) == cudaSuccess, "cudaStreamDestroy", id);
        tcheck(cudaFree(d) == cudaSuccess, "cudaFree", id);
        /* a refused call sets this thread's last error only */
        tcheck(cudaSetDeviceFlags(0xffffffffu) == cudaErrorInvalidValue, "bad flags refused", id);
        tcheck(cudaGetLastError() == cudaErrorInvalidValue && cudaGetLastError() == cudaSuccess,
               "the last error is per thread", id);
    }
    return NULL;
}

/* ---- (f) cudnnSetCallback while other threads log ---- */

static _Atomic long callback_records;

static void count_records(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev;
    (void)dbg;
    (void)msg;
    callback_records += udata == &callback_records;
}

static void *callback_churn(void *p)
{
    int id = (int)(intptr_t)p;
    cudnnTensorDescriptor_t t;
    TOK(cudnnCreateTensorDescriptor(&t), id);
    for (int it = 0; it < 100; it++) {
        if (id == 0) {
            /* switch between the counting callback and the default one (the log file) */
            TOK(cudnnSetCallback(CUDNN_SEV_ERROR_EN | CUDNN_SEV_WARNING_EN, it & 1 ? NULL : &callback_records,
                                 it & 1 ? NULL : count_records), id);
            unsigned mask;
            void *ud;
            cudnnCallback_t fp;
            TOK(cudnnGetCallback(&mask, &ud, &fp), id);
        }
        tcheck(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 1, 1, 1) == CUDNN_STATUS_BAD_PARAM,
               "zero dimension refused", id);
    }
    TOK(cudnnDestroyTensorDescriptor(t), id);
    return NULL;
}

static void run_churn(void *(*fn)(void *))
{
    pthread_t t[NCHURN];
    for (int i = 0; i < NCHURN; i++)
        CHECK(pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < NCHURN; i++)
        pthread_join(t[i], NULL);
}

int main(void)
{
    /* Several pool workers even on a 1-core machine, and every log level on, to a file, so the
       pool and the log are shared by all the threads below. */
    setenv("HOSTDNN_NUM_THREADS", "3", 0);
    const char *tmp = getenv("TMPDIR");
    if (!tmp)
        tmp = getenv("TEMP");   /* Windows (make check-windows) */
    char logpath[512];
    snprintf(logpath, sizeof logpath, "%s/hd_concurrency_log_XXXXXX", tmp ? tmp : "/tmp");
    int fd = mkstemp(logpath);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    setenv("CUDNN_LOGDEST_DBG", logpath, 1);
    setenv("CUDNN_LOGERR_DBG", "1", 1);
    setenv("CUDNN_LOGWARN_DBG", "1", 1);
    setenv("CUDNN_LOGINFO_DBG", "1", 1);

    SECTION("reference");
    cudnnHandle_t h;
    cublasHandle_t b;
    CHECK_OK(cudnnCreate(&h));
    CHECK(cublasCreate(&b) == CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < NWORK; i++)
        workload(h, b, (uint32_t)i + 1u, &reference[i], -1);

    SECTION("a handle per thread");
    run_workers(NULL, NULL, NULL);

    SECTION("one handle, threads in turn");
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    run_workers(h, b, &lock);

    SECTION("handle create/destroy in threads");
    run_churn(handle_churn);

    SECTION("descriptors in threads");
    run_churn(desc_churn);

    SECTION("host CUDA runtime in threads");
    run_churn(cudart_churn);

    SECTION("logging callback switched in threads");
    run_churn(callback_churn);
    CHECK(callback_records > 0);

    /* The log got records from every thread, and the process is still sound after it all. */
    SECTION("after");
    FILE *lf = fopen(logpath, "r");
    CHECK(lf != NULL);
    long lines = 0;
    if (lf) {
        int ch;
        while ((ch = fgetc(lf)) != EOF)
            lines += ch == '\n';
        fclose(lf);
    }
    CHECK_MSG(lines > 1000, "log lines: %ld", lines);
    unlink(logpath);
    outputs again;
    workload(h, b, 1u, &again, -1);
    CHECK(outputs_same(&again, &reference[0]));
    outputs_free(&again);
    for (int i = 0; i < NWORK; i++)
        outputs_free(&reference[i]);
    cublasDestroy(b);
    CHECK_OK(cudnnDestroy(h));

    hd_t_passed += t_pass;
    hd_t_failed += t_fail;
    return hd_test_finish();
}
