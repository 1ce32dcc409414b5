/*
 * train_cnn.c -- train a small convolutional network with cuDNN calls, the way cuDNN users
 * write it: descriptors, cudnnConvolutionForward, cudnnAddTensor for the bias,
 * cudnnActivationForward, cudnnPoolingForward, cudnnSoftmaxForward, and the backward calls.
 *
 * The data are procedurally drawn 16x16 images of four shapes (horizontal bar, vertical bar,
 * hollow square, diagonal cross) at random positions with noise, so nothing is downloaded.
 *
 * Network: conv 3x3 (1->8) + bias + ReLU + maxpool 2x2 -> conv 3x3 (8->16) + bias + ReLU +
 * maxpool 2x2 -> fully connected 256->4 (cublasSgemm) + bias -> softmax.  Buffers come from
 * cudaMalloc and data moves with cudaMemcpy, exactly as with NVIDIA's libraries (with
 * hostdnn's host CUDA runtime both are plain host memory operations).
 */
#define _POSIX_C_SOURCE 200809L
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(call) do { cudnnStatus_t s_ = (call); if (s_ != CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d %s failed: %s\n", __FILE__, __LINE__, #call, cudnnGetErrorString(s_)); exit(1); } } while (0)

enum { IMG = 16, CLASSES = 4, BATCH = 32, TRAIN = 2048, TEST = 512 };
static int EPOCHS = 6;

static unsigned rng_state = 12345u;
static float frand(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 16777216.0f;
}

/* Draw one image of class `cls` into img[IMG*IMG]. */
static void draw(float *img, int cls)
{
    for (int i = 0; i < IMG * IMG; i++)
        img[i] = 0.15f * frand();
    int size = 6 + (int)(frand() * 5);            /* 6..10 pixels */
    int x0 = (int)(frand() * (IMG - size)), y0 = (int)(frand() * (IMG - size));
    for (int a = 0; a < size; a++) {
        int mid = size / 2;
        switch (cls) {
        case 0: img[(y0 + mid) * IMG + x0 + a] = 1.0f; break;                    /* horizontal bar */
        case 1: img[(y0 + a) * IMG + x0 + mid] = 1.0f; break;                    /* vertical bar */
        case 2:                                                                  /* hollow square */
            img[y0 * IMG + x0 + a] = img[(y0 + size - 1) * IMG + x0 + a] = 1.0f;
            img[(y0 + a) * IMG + x0] = img[(y0 + a) * IMG + x0 + size - 1] = 1.0f;
            break;
        default:                                                                 /* diagonal cross */
            img[(y0 + a) * IMG + x0 + a] = img[(y0 + a) * IMG + x0 + size - 1 - a] = 1.0f;
            break;
        }
    }
}

typedef struct {
    cudnnFilterDescriptor_t wDesc;
    cudnnTensorDescriptor_t bDesc, wAsTensor, yDesc;
    cudnnConvolutionDescriptor_t conv;
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t bwdData;
    cudnnConvolutionBwdFilterAlgo_t bwdFilter;
    int cin, cout, k, pad, hout;
    float *w, *b, *dw, *db, *y;
} conv_layer;

static cudnnHandle_t h;
static size_t ws_size;
static void *ws;

#define CKCUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CKBLAS(call) do { cublasStatus_t b_ = (call); if (b_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d %s failed: %d\n", __FILE__, __LINE__, #call, (int)b_); exit(1); } } while (0)

/* A zeroed device buffer of n floats. */
static float *alloc_floats(size_t n)
{
    void *p = NULL;
    CKCUDA(cudaMalloc(&p, n * sizeof(float)));
    CKCUDA(cudaMemset(p, 0, n * sizeof(float)));
    return p;
}

static float *host_floats(size_t n)
{
    float *p = calloc(n, sizeof(float));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static void conv_init(conv_layer *L, cudnnTensorDescriptor_t xDesc, int cin, int cout, int k, int pad)
{
    L->cin = cin, L->cout = cout, L->k = k, L->pad = pad;
    CK(cudnnCreateFilterDescriptor(&L->wDesc));
    CK(cudnnSetFilter4dDescriptor(L->wDesc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, cout, cin, k, k));
    CK(cudnnCreateTensorDescriptor(&L->wAsTensor));   /* for the SGD update with cudnnAddTensor */
    CK(cudnnSetTensor4dDescriptor(L->wAsTensor, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, cout, cin, k, k));
    CK(cudnnCreateTensorDescriptor(&L->bDesc));
    CK(cudnnSetTensor4dDescriptor(L->bDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, cout, 1, 1));
    CK(cudnnCreateConvolutionDescriptor(&L->conv));
    CK(cudnnSetConvolution2dDescriptor(L->conv, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    int n, c, hh, ww;
    CK(cudnnGetConvolution2dForwardOutputDim(L->conv, xDesc, L->wDesc, &n, &c, &hh, &ww));
    L->hout = hh;
    CK(cudnnCreateTensorDescriptor(&L->yDesc));
    CK(cudnnSetTensor4dDescriptor(L->yDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hh, ww));

    /* Let the library pick, as most programs do. */
    int got;
    cudnnConvolutionFwdAlgoPerf_t fp[8];
    CK(cudnnGetConvolutionForwardAlgorithm_v7(h, xDesc, L->wDesc, L->conv, L->yDesc, 8, &got, fp));
    L->fwd = fp[0].algo;
    cudnnConvolutionBwdDataAlgoPerf_t dp[8];
    CK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, L->wDesc, L->yDesc, L->conv, xDesc, 8, &got, dp));
    L->bwdData = dp[0].algo;
    cudnnConvolutionBwdFilterAlgoPerf_t bp[8];
    CK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xDesc, L->yDesc, L->conv, L->wDesc, 8, &got, bp));
    L->bwdFilter = bp[0].algo;
    size_t s;
    CK(cudnnGetConvolutionForwardWorkspaceSize(h, xDesc, L->wDesc, L->conv, L->yDesc, L->fwd, &s));
    if (s > ws_size) ws_size = s;
    CK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, L->wDesc, L->yDesc, L->conv, xDesc, L->bwdData, &s));
    if (s > ws_size) ws_size = s;
    CK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xDesc, L->yDesc, L->conv, L->wDesc, L->bwdFilter, &s));
    if (s > ws_size) ws_size = s;

    size_t nw = (size_t)cout * cin * k * k;
    L->w = alloc_floats(nw), L->dw = alloc_floats(nw);
    L->b = alloc_floats(cout), L->db = alloc_floats(cout);
    L->y = alloc_floats((size_t)n * c * hh * ww);
    float scale = sqrtf(2.0f / (float)(cin * k * k));   /* He initialisation */
    float *hw = host_floats(nw);
    for (size_t i = 0; i < nw; i++)
        hw[i] = (frand() * 2 - 1) * scale * 1.7f;
    CKCUDA(cudaMemcpy(L->w, hw, nw * sizeof(float), cudaMemcpyHostToDevice));
    free(hw);
}

int main(int argc, char **argv)
{
    const float one = 1, zero = 0;
    if (argc > 1)
        EPOCHS = atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;   /* train_cnn [epochs] */
    CK(cudnnCreate(&h));
    printf("hostdnn %zu: training a 3-layer CNN on %d procedurally drawn 16x16 shapes\n", cudnnGetVersion(), TRAIN);

    float *h_train = host_floats((size_t)TRAIN * IMG * IMG), *h_test = host_floats((size_t)TEST * IMG * IMG);
    int *train_y = malloc(TRAIN * sizeof(int)), *test_y = malloc(TEST * sizeof(int));
    for (int i = 0; i < TRAIN; i++)
        draw(h_train + (size_t)i * IMG * IMG, train_y[i] = i % CLASSES);
    for (int i = 0; i < TEST; i++)
        draw(h_test + (size_t)i * IMG * IMG, test_y[i] = (i * 7 + 3) % CLASSES);
    /* the whole data set goes to the device once */
    float *train_x = alloc_floats((size_t)TRAIN * IMG * IMG), *test_x = alloc_floats((size_t)TEST * IMG * IMG);
    CKCUDA(cudaMemcpy(train_x, h_train, (size_t)TRAIN * IMG * IMG * sizeof(float), cudaMemcpyHostToDevice));
    CKCUDA(cudaMemcpy(test_x, h_test, (size_t)TEST * IMG * IMG * sizeof(float), cudaMemcpyHostToDevice));
    cublasHandle_t blas;
    CKBLAS(cublasCreate(&blas));

    cudnnTensorDescriptor_t xDesc, p1Desc, p2Desc;
    CK(cudnnCreateTensorDescriptor(&xDesc));
    CK(cudnnSetTensor4dDescriptor(xDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, BATCH, 1, IMG, IMG));
    cudnnActivationDescriptor_t relu;
    CK(cudnnCreateActivationDescriptor(&relu));
    CK(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
    cudnnPoolingDescriptor_t pool;
    CK(cudnnCreatePoolingDescriptor(&pool));
    CK(cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));

    conv_layer c1, c2, fc;
    conv_init(&c1, xDesc, 1, 8, 3, 1);
    int n, c, hh, ww;
    CK(cudnnGetPooling2dForwardOutputDim(pool, c1.yDesc, &n, &c, &hh, &ww));
    CK(cudnnCreateTensorDescriptor(&p1Desc));
    CK(cudnnSetTensor4dDescriptor(p1Desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hh, ww));
    float *p1 = alloc_floats((size_t)n * c * hh * ww), *dp1 = alloc_floats((size_t)n * c * hh * ww);
    conv_init(&c2, p1Desc, 8, 16, 3, 1);
    CK(cudnnGetPooling2dForwardOutputDim(pool, c2.yDesc, &n, &c, &hh, &ww));
    CK(cudnnCreateTensorDescriptor(&p2Desc));
    CK(cudnnSetTensor4dDescriptor(p2Desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hh, ww));
    float *p2 = alloc_floats((size_t)n * c * hh * ww), *dp2 = alloc_floats((size_t)n * c * hh * ww);
    conv_init(&fc, p2Desc, 16, CLASSES, 4, 0);       /* 4x4 input -> 1x1 output: fully connected */
    float *prob = alloc_floats((size_t)BATCH * CLASSES), *dlogit = alloc_floats((size_t)BATCH * CLASSES);
    float *h_prob = host_floats((size_t)BATCH * CLASSES), *h_dlogit = host_floats((size_t)BATCH * CLASSES);
    const int F = 16 * 4 * 4;   /* features into the fully connected layer */
    float *dy1 = alloc_floats((size_t)BATCH * 8 * IMG * IMG), *dy2 = alloc_floats((size_t)BATCH * 16 * 8 * 8);
    if (ws_size)
        CKCUDA(cudaMalloc(&ws, ws_size));

    const float lr = 0.05f;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long images = 0;
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
        double loss_sum = 0;
        int correct = 0, steps = TRAIN / BATCH;
        for (int step = 0; step < steps; step++) {
            float *x = train_x + (size_t)step * BATCH * IMG * IMG;
            const int *labels = train_y + step * BATCH;
            /* forward */
            CK(cudnnConvolutionForward(h, &one, xDesc, x, c1.wDesc, c1.w, c1.conv, c1.fwd, ws, ws_size, &zero, c1.yDesc, c1.y));
            CK(cudnnAddTensor(h, &one, c1.bDesc, c1.b, &one, c1.yDesc, c1.y));
            CK(cudnnActivationForward(h, relu, &one, c1.yDesc, c1.y, &zero, c1.yDesc, c1.y));
            CK(cudnnPoolingForward(h, pool, &one, c1.yDesc, c1.y, &zero, p1Desc, p1));
            CK(cudnnConvolutionForward(h, &one, p1Desc, p1, c2.wDesc, c2.w, c2.conv, c2.fwd, ws, ws_size, &zero, c2.yDesc, c2.y));
            CK(cudnnAddTensor(h, &one, c2.bDesc, c2.b, &one, c2.yDesc, c2.y));
            CK(cudnnActivationForward(h, relu, &one, c2.yDesc, c2.y, &zero, c2.yDesc, c2.y));
            CK(cudnnPoolingForward(h, pool, &one, c2.yDesc, c2.y, &zero, p2Desc, p2));
            /* fully connected: logits[B x 4] = p2[B x F] W^T, in cuBLAS's column-major terms */
            CKBLAS(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, CLASSES, BATCH, F, &one, fc.w, F, p2, F, &zero, fc.y,
                               CLASSES));
            CK(cudnnAddTensor(h, &one, fc.bDesc, fc.b, &one, fc.yDesc, fc.y));
            CK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, fc.yDesc, fc.y, &zero,
                                   fc.yDesc, prob));
            /* cross-entropy loss, on the host; its gradient with respect to the logits is p - onehot */
            CKCUDA(cudaMemcpy(h_prob, prob, (size_t)BATCH * CLASSES * sizeof(float), cudaMemcpyDeviceToHost));
            for (int i = 0; i < BATCH; i++) {
                int best = 0;
                for (int k = 0; k < CLASSES; k++) {
                    float p = h_prob[i * CLASSES + k];
                    h_dlogit[i * CLASSES + k] = (p - (k == labels[i] ? 1.0f : 0.0f)) / BATCH;
                    if (p > h_prob[i * CLASSES + best])
                        best = k;
                }
                loss_sum -= log(fmax(h_prob[i * CLASSES + labels[i]], 1e-12));
                correct += best == labels[i];
            }
            CKCUDA(cudaMemcpy(dlogit, h_dlogit, (size_t)BATCH * CLASSES * sizeof(float), cudaMemcpyHostToDevice));
            /* backward: dW = dlogit^T p2 and dp2 = dlogit W (cuBLAS), db = column sums (cuDNN) */
            CK(cudnnConvolutionBackwardBias(h, &one, fc.yDesc, dlogit, &zero, fc.bDesc, fc.db));
            CKBLAS(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, F, CLASSES, BATCH, &one, p2, F, dlogit, CLASSES, &zero,
                               fc.dw, F));
            CKBLAS(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, F, BATCH, CLASSES, &one, fc.w, F, dlogit, CLASSES, &zero,
                               dp2, F));
            CK(cudnnPoolingBackward(h, pool, &one, p2Desc, p2, p2Desc, dp2, c2.yDesc, c2.y, &zero, c2.yDesc, dy2));
            CK(cudnnActivationBackward(h, relu, &one, c2.yDesc, c2.y, c2.yDesc, dy2, c2.yDesc, c2.y, &zero, c2.yDesc, dy2));
            CK(cudnnConvolutionBackwardBias(h, &one, c2.yDesc, dy2, &zero, c2.bDesc, c2.db));
            CK(cudnnConvolutionBackwardFilter(h, &one, p1Desc, p1, c2.yDesc, dy2, c2.conv, c2.bwdFilter, ws, ws_size,
                                              &zero, c2.wDesc, c2.dw));
            CK(cudnnConvolutionBackwardData(h, &one, c2.wDesc, c2.w, c2.yDesc, dy2, c2.conv, c2.bwdData, ws, ws_size,
                                            &zero, p1Desc, dp1));
            CK(cudnnPoolingBackward(h, pool, &one, p1Desc, p1, p1Desc, dp1, c1.yDesc, c1.y, &zero, c1.yDesc, dy1));
            CK(cudnnActivationBackward(h, relu, &one, c1.yDesc, c1.y, c1.yDesc, dy1, c1.yDesc, c1.y, &zero, c1.yDesc, dy1));
            CK(cudnnConvolutionBackwardBias(h, &one, c1.yDesc, dy1, &zero, c1.bDesc, c1.db));
            CK(cudnnConvolutionBackwardFilter(h, &one, xDesc, x, c1.yDesc, dy1, c1.conv, c1.bwdFilter, ws, ws_size, &zero,
                                              c1.wDesc, c1.dw));
            /* SGD: w += -lr * dw */
            const float mlr = -lr;
            conv_layer *layers[3] = {&c1, &c2, &fc};
            for (int l = 0; l < 3; l++) {
                CK(cudnnAddTensor(h, &mlr, layers[l]->wAsTensor, layers[l]->dw, &one, layers[l]->wAsTensor, layers[l]->w));
                CK(cudnnAddTensor(h, &mlr, layers[l]->bDesc, layers[l]->db, &one, layers[l]->bDesc, layers[l]->b));
            }
            images += BATCH;
            if (step % 4 == 3 || step == steps - 1) {
                int done = (step + 1) * 30 / steps;
                printf("\repoch %d/%d [%.*s%*s] loss %.4f  train acc %5.1f%%", epoch + 1, EPOCHS, done,
                       "##############################", 30 - done, "", loss_sum / ((step + 1) * BATCH),
                       100.0 * correct / ((step + 1) * BATCH));
                fflush(stdout);
            }
        }
        printf("\n");
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

    /* held-out accuracy (forward only) */
    int correct = 0;
    for (int b0 = 0; b0 + BATCH <= TEST; b0 += BATCH) {
        float *x = test_x + (size_t)b0 * IMG * IMG;
        CK(cudnnConvolutionForward(h, &one, xDesc, x, c1.wDesc, c1.w, c1.conv, c1.fwd, ws, ws_size, &zero, c1.yDesc, c1.y));
        CK(cudnnAddTensor(h, &one, c1.bDesc, c1.b, &one, c1.yDesc, c1.y));
        CK(cudnnActivationForward(h, relu, &one, c1.yDesc, c1.y, &zero, c1.yDesc, c1.y));
        CK(cudnnPoolingForward(h, pool, &one, c1.yDesc, c1.y, &zero, p1Desc, p1));
        CK(cudnnConvolutionForward(h, &one, p1Desc, p1, c2.wDesc, c2.w, c2.conv, c2.fwd, ws, ws_size, &zero, c2.yDesc, c2.y));
        CK(cudnnAddTensor(h, &one, c2.bDesc, c2.b, &one, c2.yDesc, c2.y));
        CK(cudnnActivationForward(h, relu, &one, c2.yDesc, c2.y, &zero, c2.yDesc, c2.y));
        CK(cudnnPoolingForward(h, pool, &one, c2.yDesc, c2.y, &zero, p2Desc, p2));
        CKBLAS(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, CLASSES, BATCH, F, &one, fc.w, F, p2, F, &zero, fc.y,
                           CLASSES));
        CK(cudnnAddTensor(h, &one, fc.bDesc, fc.b, &one, fc.yDesc, fc.y));
        CKCUDA(cudaMemcpy(h_prob, fc.y, (size_t)BATCH * CLASSES * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < BATCH; i++) {
            int best = 0;
            for (int k = 1; k < CLASSES; k++)
                if (h_prob[i * CLASSES + k] > h_prob[i * CLASSES + best])
                    best = k;
            correct += best == test_y[b0 + i];
        }
    }
    printf("held-out accuracy: %.1f%% on %d images\n", 100.0 * correct / TEST, TEST);
    printf("training speed: %.0f images/s (%.2f s)\n", images / secs, secs);
    CKBLAS(cublasDestroy(blas));
    CK(cudnnDestroy(h));
    return 0;
}
