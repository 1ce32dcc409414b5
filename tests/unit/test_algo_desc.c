/* Algorithm descriptors, performance objects, save/restore: round trips and bad input. */
#include <cudnn.h>
#include <stdint.h>
#include <stdlib.h>
#include "harness.h"

static cudnnAlgorithm_t fwd_algo(int v)
{
    cudnnAlgorithm_t a;
    memset(&a, 0, sizeof a);
    a.algo.convFwdAlgo = (cudnnConvolutionFwdAlgo_t)v;
    return a;
}

static void descriptor(void)
{
    SECTION("algorithm descriptor");
    cudnnAlgorithmDescriptor_t a, b;
    cudnnAlgorithm_t got = fwd_algo(77);
    CHECK_STATUS(cudnnCreateAlgorithmDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&a));
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&b));
    /* Never set: reading or copying it is refused, output untouched. */
    CHECK_STATUS(cudnnGetAlgorithmDescriptor(a, &got), CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT(got.algo.convFwdAlgo, 77);
    CHECK_STATUS(cudnnCopyAlgorithmDescriptor(a, b), CUDNN_STATUS_BAD_PARAM);

    CHECK_OK(cudnnSetAlgorithmDescriptor(a, fwd_algo(CUDNN_CONVOLUTION_FWD_ALGO_FFT)));
    CHECK_OK(cudnnGetAlgorithmDescriptor(a, &got));
    CHECK_EQ_INT(got.algo.convFwdAlgo, CUDNN_CONVOLUTION_FWD_ALGO_FFT);
    /* Other union members travel the same way. */
    cudnnAlgorithm_t r;
    memset(&r, 0, sizeof r);
    r.algo.RNNAlgo = CUDNN_RNN_ALGO_PERSIST_DYNAMIC;
    CHECK_OK(cudnnSetAlgorithmDescriptor(b, r));
    CHECK_OK(cudnnGetAlgorithmDescriptor(b, &got));
    CHECK_EQ_INT(got.algo.RNNAlgo, CUDNN_RNN_ALGO_PERSIST_DYNAMIC);
    CHECK_OK(cudnnCopyAlgorithmDescriptor(a, b));
    CHECK_OK(cudnnGetAlgorithmDescriptor(b, &got));
    CHECK_EQ_INT(got.algo.convFwdAlgo, CUDNN_CONVOLUTION_FWD_ALGO_FFT);

    CHECK_STATUS(cudnnGetAlgorithmDescriptor(a, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetAlgorithmDescriptor(NULL, &got), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetAlgorithmDescriptor(NULL, r), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCopyAlgorithmDescriptor(NULL, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCopyAlgorithmDescriptor(a, NULL), CUDNN_STATUS_BAD_PARAM);

    /* Wrong kind of descriptor. */
    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_STATUS(cudnnSetAlgorithmDescriptor((cudnnAlgorithmDescriptor_t)(void *)t, r), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyAlgorithmDescriptor((cudnnAlgorithmDescriptor_t)(void *)t), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyTensorDescriptor(t));

    CHECK_OK(cudnnDestroyAlgorithmDescriptor(b));
    /* Destroyed descriptor. */
    CHECK_STATUS(cudnnGetAlgorithmDescriptor(b, &got), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyAlgorithmDescriptor(b), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(NULL));
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(a));
}

static void performance(void)
{
    SECTION("algorithm performance");
    cudnnAlgorithmPerformance_t p[3] = {NULL, NULL, NULL};
    CHECK_STATUS(cudnnCreateAlgorithmPerformance(NULL, 3), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateAlgorithmPerformance(p, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateAlgorithmPerformance(p, -2), CUDNN_STATUS_BAD_PARAM);
    CHECK(p[0] == NULL);
    CHECK_OK(cudnnCreateAlgorithmPerformance(p, 3));
    CHECK(p[0] && p[1] && p[2] && p[0] != p[1] && p[1] != p[2]);

    cudnnAlgorithmDescriptor_t a;
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&a));
    CHECK_OK(cudnnSetAlgorithmDescriptor(a, fwd_algo(CUDNN_CONVOLUTION_FWD_ALGO_GEMM)));
    for (int i = 0; i < 3; i++)
        CHECK_OK(cudnnSetAlgorithmPerformance(p[i], a, i == 2 ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_SUCCESS,
                                              1.5f * (float)i, (size_t)1 << (40 + i)));
    cudnnAlgorithmDescriptor_t ga = NULL;
    cudnnStatus_t gs = CUDNN_STATUS_SUCCESS;
    float gt = 0;
    size_t gm = 0;
    CHECK_OK(cudnnGetAlgorithmPerformance(p[2], &ga, &gs, &gt, &gm));
    CHECK(ga == a && gs == CUDNN_STATUS_NOT_SUPPORTED && gt == 3.0f && gm == (size_t)1 << 42);
    CHECK_OK(cudnnGetAlgorithmPerformance(p[1], &ga, &gs, &gt, &gm));
    CHECK(gs == CUDNN_STATUS_SUCCESS && gt == 1.5f && gm == (size_t)1 << 41);

    /* Bad input leaves the object as it was. */
    CHECK_STATUS(cudnnSetAlgorithmPerformance(p[1], a, (cudnnStatus_t)99, 9.0f, 9), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetAlgorithmPerformance(p[1], a, (cudnnStatus_t)-1, 9.0f, 9), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetAlgorithmPerformance(p[1], NULL, CUDNN_STATUS_SUCCESS, 9.0f, 9), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetAlgorithmPerformance(NULL, a, CUDNN_STATUS_SUCCESS, 9.0f, 9), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetAlgorithmPerformance((cudnnAlgorithmPerformance_t)(void *)a, a, CUDNN_STATUS_SUCCESS, 9.0f, 9),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetAlgorithmPerformance(p[1], &ga, &gs, &gt, &gm));
    CHECK(gt == 1.5f && gm == (size_t)1 << 41);
    CHECK_STATUS(cudnnGetAlgorithmPerformance(p[1], NULL, &gs, &gt, &gm), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetAlgorithmPerformance(p[1], &ga, &gs, NULL, &gm), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetAlgorithmPerformance(NULL, &ga, &gs, &gt, &gm), CUDNN_STATUS_BAD_PARAM);

    /* Destroy: a bad entry destroys nothing. */
    cudnnAlgorithmPerformance_t mixed[2] = {p[0], (cudnnAlgorithmPerformance_t)(void *)a};
    CHECK_STATUS(cudnnDestroyAlgorithmPerformance(mixed, 2), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetAlgorithmPerformance(p[0], &ga, &gs, &gt, &gm));
    CHECK_STATUS(cudnnDestroyAlgorithmPerformance(p, -1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyAlgorithmPerformance(NULL, 2), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyAlgorithmPerformance(NULL, 0));
    CHECK_OK(cudnnDestroyAlgorithmPerformance(p, 3));
    CHECK_STATUS(cudnnGetAlgorithmPerformance(p[0], &ga, &gs, &gt, &gm), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyAlgorithmPerformance(p, 1), CUDNN_STATUS_BAD_PARAM);

    /* Many at once (more than any fixed buffer). */
    enum { MANY = 300 };
    cudnnAlgorithmPerformance_t *many = calloc(MANY, sizeof *many);
    CHECK_OK(cudnnCreateAlgorithmPerformance(many, MANY));
    int distinct = 1;
    for (int i = 1; i < MANY; i++)
        distinct &= many[i] != NULL && many[i] != many[i - 1];
    CHECK(distinct);
    CHECK_OK(cudnnDestroyAlgorithmPerformance(many, MANY));
    free(many);
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(a));
}

static void save_restore(void)
{
    SECTION("save and restore");
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    cudnnAlgorithmDescriptor_t a, b;
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&a));
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&b));
    size_t sz = 0;
    CHECK_OK(cudnnGetAlgorithmSpaceSize(h, a, &sz));
    CHECK(sz > 0 && sz <= 256);
    CHECK_STATUS(cudnnGetAlgorithmSpaceSize(NULL, a, &sz), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetAlgorithmSpaceSize(h, NULL, &sz), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetAlgorithmSpaceSize(h, a, NULL), CUDNN_STATUS_BAD_PARAM);

    unsigned char buf[256], save[256];
    memset(buf, 0xAB, sizeof buf);
    CHECK_STATUS(cudnnSaveAlgorithm(h, a, buf, sz), CUDNN_STATUS_BAD_PARAM);   /* never set */
    CHECK_OK(cudnnSetAlgorithmDescriptor(a, fwd_algo(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED)));
    CHECK_STATUS(cudnnSaveAlgorithm(h, a, buf, sz - 1), CUDNN_STATUS_BAD_PARAM);
    CHECK(buf[0] == 0xAB);
    CHECK_STATUS(cudnnSaveAlgorithm(h, a, NULL, sz), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSaveAlgorithm(NULL, a, buf, sz), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSaveAlgorithm(h, a, buf, sz));
    CHECK(buf[sz] == 0xAB);   /* writes only sz bytes */
    memcpy(save, buf, sizeof buf);

    cudnnAlgorithm_t got;
    CHECK_OK(cudnnRestoreAlgorithm(h, buf, sz, b));
    CHECK_OK(cudnnGetAlgorithmDescriptor(b, &got));
    CHECK_EQ_INT(got.algo.convFwdAlgo, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
    /* A bigger buffer is fine. */
    CHECK_OK(cudnnRestoreAlgorithm(h, buf, sizeof buf, b));

    /* Garbage is refused and the descriptor stays as it was. */
    CHECK_OK(cudnnSetAlgorithmDescriptor(b, fwd_algo(CUDNN_CONVOLUTION_FWD_ALGO_DIRECT)));
    CHECK_STATUS(cudnnRestoreAlgorithm(h, buf, sz - 1, b), CUDNN_STATUS_BAD_PARAM);
    int refused = 0;
    for (size_t i = 0; i < sz; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(buf, save, sz);
            buf[i] ^= (unsigned char)(1u << bit);
            refused += cudnnRestoreAlgorithm(h, buf, sz, b) == CUDNN_STATUS_BAD_PARAM;
        }
    CHECK_EQ_INT(refused, (int)sz * 8);
    memset(buf, 0, sizeof buf);
    CHECK_STATUS(cudnnRestoreAlgorithm(h, buf, sz, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetAlgorithmDescriptor(b, &got));
    CHECK_EQ_INT(got.algo.convFwdAlgo, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT);
    CHECK_STATUS(cudnnRestoreAlgorithm(h, NULL, sz, b), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRestoreAlgorithm(h, save, sz, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRestoreAlgorithm(NULL, save, sz, b), CUDNN_STATUS_BAD_PARAM);

    /* Restoring into a never-set descriptor works; negative values survive. */
    cudnnAlgorithmDescriptor_t c;
    CHECK_OK(cudnnCreateAlgorithmDescriptor(&c));
    CHECK_OK(cudnnSetAlgorithmDescriptor(a, fwd_algo(-5)));
    CHECK_OK(cudnnSaveAlgorithm(h, a, buf, sz));
    CHECK_OK(cudnnRestoreAlgorithm(h, buf, sz, c));
    CHECK_OK(cudnnGetAlgorithmDescriptor(c, &got));
    CHECK_EQ_INT((int)got.algo.convFwdAlgo, -5);

    CHECK_OK(cudnnDestroyAlgorithmDescriptor(c));
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(a));
    CHECK_OK(cudnnDestroyAlgorithmDescriptor(b));
    CHECK_STATUS(cudnnSaveAlgorithm(h, a, buf, sz), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroy(h));
}

int main(void)
{
    descriptor();
    performance();
    save_restore();
    return hd_test_finish();
}
