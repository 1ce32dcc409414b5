/*
 * The channel-contiguous (NHWC) paths of the memory-bound primitives give bitwise the same
 * results with 1, 2 and 3 threads: pooling forward (max under both NaN rules, both average
 * modes, 2-d and 3-d) and backward (2-d), softmax forward and backward (CHANNEL and INSTANCE), batch norm
 * training forward (outputs, running and saved statistics) and backward (dx, dscale, dbias),
 * and inference.  The tensors span several of batch norm's pixel chunks, so the fixed
 * chunking and merge order are what is tested.  (Accuracy against the float64 reference is
 * in test_pooling, test_ops_activation and test_batchnorm, which run every layout.)  With
 * streaming stores forced on every size (a child process: the threshold is read once per
 * process) the results keep the same bits: batch norm's column apply streams from the first
 * 64-byte line of each run, C = 48 wrapping inside the vectors.
 */
#define _DEFAULT_SOURCE         /* MAP_ANONYMOUS for the shared result page */
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#endif
#include <cudnn.h>
#include "harness.h"

#define N 3
#define C 48
#define H 17
#define W 19
#define E (N * C * H * W)

static float x[E], dy[E];

typedef struct {
    float y[4 * E], dx[E], st[8 * C];   /* y: pooling outputs, softmax INSTANCE, softmax CHANNEL */
} result;

static cudnnTensorDescriptor_t nhwc(int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t d;
    cudnnCreateTensorDescriptor(&d);
    cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, c, h, w);
    return d;
}

/* Every op once on handle h; results in r (pooling outputs share y, one after another). */
static void run_all(cudnnHandle_t h, result *r)
{
    const float one = 1, zero = 0, half = 0.5f;
    memset(r, 0, sizeof *r);
    cudnnTensorDescriptor_t xd = nhwc(N, C, H, W), yd = nhwc(N, C, 9, 10), bnd;
    cudnnPoolingDescriptor_t p;
    cudnnCreatePoolingDescriptor(&p);
    size_t off = 0, ny = (size_t)N * C * 9 * 10;
    for (int mode = 0; mode < 4; mode++) {         /* MAX, INCLUDE, EXCLUDE, MAX_DETERMINISTIC */
        cudnnSetPooling2dDescriptor(p, (cudnnPoolingMode_t)mode, mode == 3 ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                    3, 3, 1, 1, 2, 2);
        float *yo = r->y + off;
        for (size_t i = 0; i < ny; i++)
            yo[i] = 0.25f;
        CHECK_OK(cudnnPoolingForward(h, p, &one, xd, x, mode == 1 ? &half : &zero, yd, yo));
        /* backward from dy's first elements, accumulated over the modes (beta 1 after the first) */
        CHECK_OK(cudnnPoolingBackward(h, p, &half, yd, yo, yd, dy, xd, x, mode ? &one : &zero, xd, r->dx));
        off += ny;
    }
    /* 3-d: 5-d NDHWC tensors, window 2x3x2 */
    int xd5[5] = {N, C, 3, H, 4}, xs5[5] = {3 * H * 4 * C, 1, H * 4 * C, 4 * C, C};
    int yd5[5] = {N, C, 2, 8, 2}, ys5[5] = {2 * 8 * 2 * C, 1, 8 * 2 * C, 2 * C, C};
    int win[3] = {2, 3, 2}, pad[3] = {0, 1, 0}, str[3] = {1, 2, 2};
    cudnnTensorDescriptor_t x5, y5;
    cudnnCreateTensorDescriptor(&x5);
    cudnnCreateTensorDescriptor(&y5);
    cudnnSetTensorNdDescriptor(x5, CUDNN_DATA_FLOAT, 5, xd5, xs5);
    cudnnSetTensorNdDescriptor(y5, CUDNN_DATA_FLOAT, 5, yd5, ys5);
    cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 3, win, pad, str);
    CHECK_OK(cudnnPoolingForward(h, p, &one, x5, x, &zero, y5, r->y + off));
    cudnnDestroyTensorDescriptor(x5);
    cudnnDestroyTensorDescriptor(y5);
    cudnnDestroyPoolingDescriptor(p);
    /* softmax: CHANNEL forward into the tail of y, backward from it; INSTANCE forward after it */
    float *smc = r->y + 3 * E;
    CHECK_OK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, xd, x, &zero, xd, smc));
    float *smi = r->y + off + (size_t)N * C * 2 * 8 * 2;
    CHECK_OK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, xd, x, &zero, xd, smi));
    float *g = malloc(sizeof(float) * E);
    CHECK_OK(cudnnSoftmaxBackward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, xd, smc, xd, dy, &zero,
                                  xd, g));
    CHECK_OK(cudnnSoftmaxBackward(h, CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_MODE_INSTANCE, &one, xd, smi, xd, dy, &half, xd,
                                  g));
    for (int i = 0; i < E; i++)
        r->dx[i] += g[i];
    /* batch norm: training forward into g, backward into dx (beta 1: adds), inference into g */
    cudnnCreateTensorDescriptor(&bnd);
    cudnnDeriveBNTensorDescriptor(bnd, xd, CUDNN_BATCHNORM_SPATIAL);
    float *st = r->st, *scale = st, *bias = st + C, *rm = st + 2 * C, *rv = st + 3 * C, *sm = st + 4 * C,
          *si = st + 5 * C, *ds = st + 6 * C, *db = st + 7 * C;
    for (int c = 0; c < C; c++) {
        scale[c] = 1.0f + 0.01f * (float)c;
        bias[c] = 0.1f * (float)(c % 5);
        rm[c] = 0.0f;
        rv[c] = 1.0f;
    }
    CHECK_OK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x, xd, g, bnd, scale,
                                                    bias, 0.1, rm, rv, 1e-5, sm, si));
    for (int i = 0; i < E; i++)
        r->dx[i] += g[i];
    CHECK_OK(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &one, &one, &zero, xd, x, xd, dy, xd,
                                             r->dx, bnd, scale, ds, db, 1e-5, sm, si));
    CHECK_OK(cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x, xd, g, bnd, scale,
                                                     bias, rm, rv, 1e-5));
    for (int i = 0; i < E; i++)
        r->dx[i] += g[i];
    free(g);
    cudnnDestroyTensorDescriptor(bnd);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
}

int main(void)
{
    unsigned s = 5;
    for (int i = 0; i < E; i++) {
        s = s * 1103515245u + 12345u;
        x[i] = (float)((int)(s >> 16 & 1023) - 400) / 97.0f;
        s = s * 1103515245u + 12345u;
        dy[i] = (float)((int)(s >> 16 & 1023) - 512) / 211.0f;
    }
    result *r = malloc(3 * sizeof *r);
    const char *th[3] = {"1", "2", "3"};
    for (int t = 0; t < 3; t++) {
        SECTION(th[t]);
        setenv("HOSTDNN_NUM_THREADS", th[t], 1);
        cudnnHandle_t h;
        CHECK_OK(cudnnCreate(&h));
        run_all(h, &r[t]);
        cudnnDestroy(h);
    }
    unsetenv("HOSTDNN_NUM_THREADS");
    SECTION("bitwise across thread counts");
    for (int t = 1; t < 3; t++) {
        CHECK_MSG(memcmp(r[0].y, r[t].y, sizeof r[0].y) == 0, "pooling / softmax INSTANCE: 1 vs %s threads", th[t]);
        CHECK_MSG(memcmp(r[0].dx, r[t].dx, sizeof r[0].dx) == 0, "softmax / batch norm: 1 vs %s threads", th[t]);
        CHECK_MSG(memcmp(r[0].st, r[t].st, sizeof r[0].st) == 0, "batch norm statistics: 1 vs %s threads", th[t]);
    }
    SECTION("streaming stores forced, 2 threads");
#ifdef _WIN32
    /* the streaming threshold is read once per process: the check needs a forked child */
    SKIP("streaming stores forced: no fork() on Windows (run on Linux)");
#else
    result *sr = mmap(NULL, sizeof *sr, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sr != MAP_FAILED);
    if (sr != MAP_FAILED) {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("HOSTDNN_STREAM_MIN_BYTES", "0", 1);
            setenv("HOSTDNN_NUM_THREADS", "2", 1);
            cudnnHandle_t h;
            if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
                _exit(1);
            run_all(h, sr);
            cudnnDestroy(h);
            _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        CHECK_MSG(memcmp(r[0].y, sr->y, sizeof sr->y) == 0, "pooling / softmax: streaming vs plain stores");
        CHECK_MSG(memcmp(r[0].dx, sr->dx, sizeof sr->dx) == 0, "batch norm / softmax: streaming vs plain stores");
        CHECK_MSG(memcmp(r[0].st, sr->st, sizeof sr->st) == 0, "batch norm statistics: streaming vs plain stores");
        munmap(sr, sizeof *sr);
    }
#endif
    free(r);
    return hd_test_finish();
}
