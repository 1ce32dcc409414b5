/*
 * Misuse that once crashed or answered SUCCESS with a wrong result, each now a documented
 * status with the outputs untouched:
 *   - a tensor transform with a fold factor of 0 (a division by zero) or fold factors whose
 *     product overflows an int (a wrapped size);
 *   - a pooling descriptor whose padding makes the output size overflow an int;
 *   - cudnnGetCTCLossWorkspaceSize without labels;
 *   - a never-set activation descriptor given to the fused batch-normalization, the 8.x
 *     normalization calls and cudnnConvolutionBiasActivationForward (its zeros would read as
 *     SIGMOID).
 * Found by the fuzzers (tests/fuzz, docs/reliability.md):
 *   - an RNN descriptor with INT_MAX layers: the weight-space size and weight lookups walked
 *     every layer (billions of steps: a hang in an unoptimised build), now closed forms; and
 *     bidirectional, its pseudo-layer count overflowed an int in cudnnGetRNNWeightParams
 *     (UBSan: signed overflow);
 *   - a 1x1 convolution forward on one channel (the depthwise solver) formed a pointer from
 *     the NULL dy of a forward call (UBSan: offset applied to a null pointer);
 *   - a dilated filter larger than an input padded by nearly INT_MAX: the refusal's message
 *     doubled the padding in an int (UBSan: signed overflow).
 * Found by the misuse harness (test_misuse_all.c), checked against cuDNN 8.5:
 *   - cudnnGetFilterNdDescriptor answered SUCCESS for nbDimsRequested 0, negative or above
 *     CUDNN_DIM_MAX (cuDNN: BAD_PARAM, NOT_SUPPORTED above CUDNN_DIM_MAX, nothing written);
 *   - cudnnGetTensorTransformDescriptor answered SUCCESS for nbDimsRequested 0 to 2 (cuDNN:
 *     BAD_PARAM below 3, whatever the descriptor's own count).
 * The RNN, attention and algorithm-descriptor cases are in test_rnn_legacy.c,
 * test_attn_backward.c and test_algo_desc.c.
 */
#include <cudnn.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static cudnnHandle_t h;

static cudnnTensorDescriptor_t tensor4(int n, int c, int hh, int w)
{
    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hh, w));
    return t;
}

static void transform_folds(void)
{
    SECTION("transform: fold factors 0 or overflowing");
    cudnnTensorDescriptor_t x = tensor4(2, 4, 8, 8), dst, y = tensor4(2, 4, 8, 8);
    CHECK_OK(cudnnCreateTensorDescriptor(&dst));
    CHECK_OK(cudnnSetTensor4dDescriptor(dst, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1));
    cudnnTensorTransformDescriptor_t d;
    CHECK_OK(cudnnCreateTensorTransformDescriptor(&d));
    const int32_t pad[4] = {0, 0, 0, 0};
    const uint32_t folds[][2] = {{0, 0}, {0, 1}, {1, 0}, {UINT_MAX, UINT_MAX}, {46341, 46341}, {65536, 65536}};
    float xs[2 * 4 * 8 * 8], ys[2 * 4 * 8 * 8], keep[2 * 4 * 8 * 8];
    for (int i = 0; i < 2 * 4 * 8 * 8; i++)
        xs[i] = (float)i, ys[i] = keep[i] = -1.0f;
    const float one = 1.0f, zero = 0.0f;
    for (unsigned f = 0; f < sizeof folds / sizeof folds[0]; f++)
        for (int dir = 0; dir < 2; dir++) {
            const uint32_t fold[2] = {folds[f][0], folds[f][1]};
            cudnnFoldingDirection_t fd = dir ? CUDNN_TRANSFORM_UNFOLD : CUDNN_TRANSFORM_FOLD;
            CHECK_OK(cudnnSetTensorTransformDescriptor(d, 4, CUDNN_TENSOR_NCHW, pad, pad, fold, fd));
            size_t bytes = 12345;
            CHECK_STATUS(cudnnInitTransformDest(d, x, dst, &bytes), CUDNN_STATUS_BAD_PARAM);
            CHECK_EQ_INT((int)bytes, 12345);
            int n = 0, c = 0, hh = 0, w = 0, ns, cs, hs, ws;
            cudnnDataType_t dt;
            CHECK_OK(cudnnGetTensor4dDescriptor(dst, &dt, &n, &c, &hh, &w, &ns, &cs, &hs, &ws));
            CHECK(n == 1 && c == 1 && hh == 1 && w == 1);
            CHECK_STATUS(cudnnTransformTensorEx(h, d, &one, x, xs, &zero, y, ys), CUDNN_STATUS_BAD_PARAM);
            CHECK(memcmp(ys, keep, sizeof ys) == 0);
        }
    CHECK_OK(cudnnDestroyTensorTransformDescriptor(d));
    CHECK_OK(cudnnDestroyTensorDescriptor(x));
    CHECK_OK(cudnnDestroyTensorDescriptor(y));
    CHECK_OK(cudnnDestroyTensorDescriptor(dst));
}

static void pooling_overflow(void)
{
    SECTION("pooling: output size overflowing an int");
    cudnnTensorDescriptor_t x = tensor4(2, 4, 8, 8);
    cudnnPoolingDescriptor_t p;
    CHECK_OK(cudnnCreatePoolingDescriptor(&p));
    CHECK_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1 << 30, 1, 1, 1));
    int n = 7, c = 7, hh = 7, w = 7;
    CHECK_STATUS(cudnnGetPooling2dForwardOutputDim(p, x, &n, &c, &hh, &w), CUDNN_STATUS_BAD_PARAM);
    CHECK(n == 7 && c == 7 && hh == 7 && w == 7);
    int dims[4] = {7, 7, 7, 7};
    CHECK_STATUS(cudnnGetPoolingNdForwardOutputDim(p, x, 4, dims), CUDNN_STATUS_BAD_PARAM);
    CHECK(dims[0] == 7 && dims[1] == 7 && dims[2] == 7 && dims[3] == 7);
    /* the largest padding whose output still fits: answered */
    CHECK_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1 << 29, 1, 1, 1));
    CHECK_OK(cudnnGetPooling2dForwardOutputDim(p, x, &n, &c, &hh, &w));
    CHECK_EQ_INT(hh, 8 + 2 * (1 << 29) - 3 + 1);
    CHECK_OK(cudnnDestroyPoolingDescriptor(p));
    CHECK_OK(cudnnDestroyTensorDescriptor(x));
}

static void ctc_labels(void)
{
    SECTION("CTC loss workspace query without labels");
    cudnnTensorDescriptor_t probs, grads;
    int dims[3] = {6, 2, 5}, strides[3] = {10, 5, 1};
    CHECK_OK(cudnnCreateTensorDescriptor(&probs));
    CHECK_OK(cudnnCreateTensorDescriptor(&grads));
    CHECK_OK(cudnnSetTensorNdDescriptor(probs, CUDNN_DATA_FLOAT, 3, dims, strides));
    CHECK_OK(cudnnSetTensorNdDescriptor(grads, CUDNN_DATA_FLOAT, 3, dims, strides));
    cudnnCTCLossDescriptor_t ctc;
    CHECK_OK(cudnnCreateCTCLossDescriptor(&ctc));
    CHECK_OK(cudnnSetCTCLossDescriptor(ctc, CUDNN_DATA_FLOAT));
    int labels[4] = {1, 2, 3, 4}, label_lengths[2] = {2, 2}, input_lengths[2] = {6, 6};
    size_t size = 77;
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(h, probs, grads, NULL, label_lengths, input_lengths,
                                              CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, ctc, &size),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT((int)size, 77);
    CHECK_OK(cudnnGetCTCLossWorkspaceSize(h, probs, grads, labels, label_lengths, input_lengths,
                                          CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, ctc, &size));
    CHECK_OK(cudnnDestroyCTCLossDescriptor(ctc));
    CHECK_OK(cudnnDestroyTensorDescriptor(probs));
    CHECK_OK(cudnnDestroyTensorDescriptor(grads));
}

static void unset_activation(void)
{
    SECTION("normalization with a never-set activation descriptor");
    enum { N = 2, C = 4, H = 3, W = 3, NX = N * C * H * W };
    cudnnTensorDescriptor_t x = tensor4(N, C, H, W), prm = tensor4(1, C, 1, 1);
    cudnnActivationDescriptor_t unset, relu;
    CHECK_OK(cudnnCreateActivationDescriptor(&unset));
    CHECK_OK(cudnnCreateActivationDescriptor(&relu));
    CHECK_OK(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    float xs[NX], ys[NX], keep[NX], scale[C], bias[C], rm[C], rv[C], sm[C], si[C];
    for (int i = 0; i < NX; i++)
        xs[i] = (float)(i % 7) - 3.0f, ys[i] = keep[i] = 42.0f;
    for (int c = 0; c < C; c++)
        scale[c] = 1.0f, bias[c] = 0.5f, rm[c] = 0.0f, rv[c] = 1.0f;
    const float one = 1.0f, zero = 0.0f;
    const cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
    size_t wsb = 0, rsb = 0;
    CHECK_OK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, CUDNN_BATCHNORM_SPATIAL, ops, x, NULL, x, prm,
                                                                      relu, &wsb));
    CHECK_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, CUDNN_BATCHNORM_SPATIAL, ops, relu, x, &rsb));
    void *ws = malloc(wsb + 64), *rs = malloc(rsb + 64);
    CHECK_STATUS(cudnnBatchNormalizationForwardTrainingEx(h, CUDNN_BATCHNORM_SPATIAL, ops, &one, &zero, x, xs, NULL,
                                                          NULL, x, ys, prm, scale, bias, 0.1, rm, rv, 1e-5, sm, si,
                                                          unset, ws, wsb, rs, rsb),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(memcmp(ys, keep, sizeof ys) == 0);
    CHECK_OK(cudnnBatchNormalizationForwardTrainingEx(h, CUDNN_BATCHNORM_SPATIAL, ops, &one, &zero, x, xs, NULL, NULL,
                                                      x, ys, prm, scale, bias, 0.1, rm, rv, 1e-5, sm, si, relu, ws,
                                                      wsb, rs, rsb));
    memcpy(ys, keep, sizeof ys);
    CHECK_STATUS(cudnnNormalizationForwardInference(h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM_ACTIVATION,
                                                    CUDNN_NORM_ALGO_STANDARD, &one, &zero, x, xs, prm, scale, bias,
                                                    prm, rm, rv, NULL, NULL, unset, x, ys, 1e-5, 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(memcmp(ys, keep, sizeof ys) == 0);
    CHECK_OK(cudnnNormalizationForwardInference(h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM_ACTIVATION,
                                                CUDNN_NORM_ALGO_STANDARD, &one, &zero, x, xs, prm, scale, bias, prm,
                                                rm, rv, NULL, NULL, relu, x, ys, 1e-5, 1));
    free(ws);
    free(rs);

    /* the same rule in cudnnConvolutionBiasActivationForward (one reader of activations) */
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnTensorDescriptor_t yd = tensor4(N, C, H, W);
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, C, C, 1, 1));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cd));
    CHECK_OK(cudnnSetConvolution2dDescriptor(cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    float wv[C * C], bv[C];
    for (int i = 0; i < C * C; i++)
        wv[i] = i % (C + 1) == 0 ? 1.0f : 0.0f;
    for (int c = 0; c < C; c++)
        bv[c] = 0.25f;
    memcpy(ys, keep, sizeof ys);
    const cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t cws = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, x, wd, cd, yd, algo, &cws));
    void *cw = malloc(cws + 64);
    CHECK_STATUS(cudnnConvolutionBiasActivationForward(h, &one, x, xs, wd, wv, cd, algo, cw, cws, &zero, yd, ys, prm,
                                                       bv, unset, yd, ys),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(memcmp(ys, keep, sizeof ys) == 0);
    CHECK_OK(cudnnConvolutionBiasActivationForward(h, &one, x, xs, wd, wv, cd, algo, cw, cws, &zero, yd, ys, prm, bv,
                                                   relu, yd, ys));
    free(cw);
    CHECK_OK(cudnnDestroyConvolutionDescriptor(cd));
    CHECK_OK(cudnnDestroyFilterDescriptor(wd));
    CHECK_OK(cudnnDestroyTensorDescriptor(yd));
    CHECK_OK(cudnnDestroyActivationDescriptor(unset));
    CHECK_OK(cudnnDestroyActivationDescriptor(relu));
    CHECK_OK(cudnnDestroyTensorDescriptor(x));
    CHECK_OK(cudnnDestroyTensorDescriptor(prm));
}

static void rnn_many_layers(void)
{
    SECTION("RNN: INT_MAX layers answer at once");
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    CHECK_OK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, CUDNN_RNN_RELU, CUDNN_RNN_NO_BIAS,
                                      CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                      CUDNN_DEFAULT_MATH, 1, 1, 1, INT_MAX, NULL, 0));
    /* each layer: a 1x1 input matrix and a 1x1 recurrent one */
    size_t bytes = 0;
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, r, &bytes));
    CHECK(bytes == (size_t)INT_MAX * 2 * sizeof(float));
    /* the last layer's recurrent matrix; the space is never read, so any base will do */
    const char *base = (const char *)(uintptr_t)4096;
    cudnnTensorDescriptor_t m, b;
    CHECK_OK(cudnnCreateTensorDescriptor(&m));
    CHECK_OK(cudnnCreateTensorDescriptor(&b));
    void *maddr = NULL, *baddr = NULL;
    CHECK_OK(cudnnGetRNNWeightParams(h, r, INT_MAX - 1, bytes, base, 1, m, &maddr, b, &baddr));
    CHECK(maddr == base + ((size_t)(INT_MAX - 1) * 2 + 1) * sizeof(float));
    CHECK(baddr == NULL);

    /* bidirectional: 2 * INT_MAX pseudo-layers, the last ones reachable */
    CHECK_OK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, CUDNN_RNN_RELU, CUDNN_RNN_NO_BIAS,
                                      CUDNN_BIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                      CUDNN_DEFAULT_MATH, 1, 1, 1, INT_MAX, NULL, 0));
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, r, &bytes));
    /* layer 0: 1x1 input and recurrent matrices per direction; later layers: 1x2 input */
    CHECK(bytes == ((size_t)2 * 2 + ((size_t)INT_MAX - 1) * 2 * 3) * sizeof(float));
    CHECK_OK(cudnnGetRNNWeightParams(h, r, INT_MAX, bytes, base, 0, m, &maddr, b, &baddr));
    CHECK(maddr == base + ((size_t)2 * 2 + ((size_t)INT_MAX - 2) * 3) * sizeof(float));
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, -1, bytes, base, 0, m, &maddr, b, &baddr), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(m);
    cudnnDestroyTensorDescriptor(b);
    cudnnDestroyRNNDescriptor(r);
}

static void conv_one_channel(void)
{
    SECTION("convolution: 1x1 forward on one channel");
    cudnnTensorDescriptor_t x = tensor4(1, 1, 1, 1), y;
    CHECK_OK(cudnnCreateTensorDescriptor(&y));
    CHECK_OK(cudnnSetTensor4dDescriptorEx(y, CUDNN_DATA_FLOAT, 1, 1, 1, 1, 7, 3, 3, 1));
    cudnnFilterDescriptor_t w;
    CHECK_OK(cudnnCreateFilterDescriptor(&w));
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 1, 1));
    cudnnConvolutionDescriptor_t c;
    CHECK_OK(cudnnCreateConvolutionDescriptor(&c));
    CHECK_OK(cudnnSetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT));
    size_t ws_size = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, x, w, c, y, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws_size));
    void *ws = malloc(ws_size ? ws_size : 1);
    float xv = 3.0f, wv = -2.0f, yv = 0.0f, one = 1.0f, zero = 0.0f;
    CHECK_OK(cudnnConvolutionForward(h, &one, x, &xv, w, &wv, c, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ws, ws_size,
                                     &zero, y, &yv));
    CHECK(yv == -6.0f);
    free(ws);
    cudnnDestroyConvolutionDescriptor(c);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
}

static void conv_huge_padding(void)
{
    SECTION("convolution: huge padding and dilation refused");
    cudnnTensorDescriptor_t x = tensor4(1, 1, 1, 1);
    cudnnFilterDescriptor_t w;
    CHECK_OK(cudnnCreateFilterDescriptor(&w));
    CHECK_OK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 3, 1));
    cudnnConvolutionDescriptor_t c;
    CHECK_OK(cudnnCreateConvolutionDescriptor(&c));
    CHECK_OK(cudnnSetConvolution2dDescriptor(c, INT_MAX - 1, 0, 1, 1, INT_MAX, 1, CUDNN_CROSS_CORRELATION,
                                             CUDNN_DATA_FLOAT));
    int n = -7, k = -7, oh = -7, ow = -7;
    CHECK_STATUS(cudnnGetConvolution2dForwardOutputDim(c, x, w, &n, &k, &oh, &ow), CUDNN_STATUS_BAD_PARAM);
    CHECK(n == -7 && k == -7 && oh == -7 && ow == -7);
    cudnnDestroyConvolutionDescriptor(c);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(x);
}

static void getter_counts(void)
{
    SECTION("getters: nbDimsRequested outside cuDNN's range");
    cudnnFilterDescriptor_t f;
    CHECK_OK(cudnnCreateFilterDescriptor(&f));
    const int fd[4] = {4, 4, 3, 3};
    CHECK_OK(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, fd));
    const int req[] = {0, -1, INT_MIN, CUDNN_DIM_MAX + 1, INT_MAX};
    for (unsigned i = 0; i < sizeof req / sizeof req[0]; i++) {
        cudnnDataType_t dt = (cudnnDataType_t)77;
        cudnnTensorFormat_t fmt = (cudnnTensorFormat_t)77;
        int nb = -7, dims[CUDNN_DIM_MAX] = {-7, -7, -7, -7, -7, -7, -7, -7};
        CHECK_STATUS(cudnnGetFilterNdDescriptor(f, req[i], &dt, &fmt, &nb, dims),
                     req[i] > CUDNN_DIM_MAX ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_BAD_PARAM);
        CHECK(dt == (cudnnDataType_t)77 && fmt == (cudnnTensorFormat_t)77 && nb == -7 && dims[0] == -7);
    }
    int nb = 0, dims[CUDNN_DIM_MAX];
    cudnnDataType_t dt;
    cudnnTensorFormat_t fmt;
    CHECK_OK(cudnnGetFilterNdDescriptor(f, 1, &dt, &fmt, &nb, dims));
    CHECK(nb == 4 && dims[0] == 4);
    CHECK_OK(cudnnDestroyFilterDescriptor(f));

    cudnnTensorTransformDescriptor_t t;
    CHECK_OK(cudnnCreateTensorTransformDescriptor(&t));
    const int32_t pad[4] = {0, 0, 0, 0};
    const uint32_t fold[2] = {1, 1};
    CHECK_OK(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NCHW, pad, pad, fold, CUDNN_TRANSFORM_FOLD));
    for (uint32_t r = 0; r <= CUDNN_DIM_MAX + 1; r++) {
        cudnnTensorFormat_t tf = (cudnnTensorFormat_t)77;
        cudnnFoldingDirection_t dir = (cudnnFoldingDirection_t)77;
        int32_t pb[CUDNN_DIM_MAX + 1], pa[CUDNN_DIM_MAX + 1];
        uint32_t fo[CUDNN_DIM_MAX + 1];
        pb[0] = -7;
        int ok = r >= 3 && r <= CUDNN_DIM_MAX;
        CHECK_STATUS(cudnnGetTensorTransformDescriptor(t, r, &tf, pb, pa, fo, &dir),
                     ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM);
        if (!ok)
            CHECK(tf == (cudnnTensorFormat_t)77 && dir == (cudnnFoldingDirection_t)77 && pb[0] == -7);
    }
    CHECK_OK(cudnnDestroyTensorTransformDescriptor(t));
}

int main(void)
{
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS) {
        printf("0 passed, 1 failed\n");
        return 1;
    }
    transform_folds();
    pooling_overflow();
    ctc_labels();
    unset_activation();
    rnn_many_layers();
    conv_one_channel();
    conv_huge_padding();
    getter_counts();
    cudnnDestroy(h);
    return hd_test_finish();
}
