/* LRN descriptors, cross-channel LRN and divisive normalization, forward and backward,
 * against the float64 reference over types, layouts, window widths (odd and even), alpha/beta,
 * edge shapes; bad input. */
#define _DEFAULT_SOURCE
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "unit/np_util.h"

static cudnnHandle_t H;

static void descriptors(void)
{
    SECTION("lrn descriptor");
    cudnnLRNDescriptor_t d;
    CHECK_OK(cudnnCreateLRNDescriptor(&d));
    unsigned n;
    double a, b, k;
    CHECK_OK(cudnnGetLRNDescriptor(d, &n, &a, &b, &k));
    CHECK(n == 5 && a == 1e-4 && b == 0.75 && k == 2.0);
    CHECK_OK(cudnnSetLRNDescriptor(d, 16, 0.5, 0.01, 1e-5));
    CHECK_OK(cudnnGetLRNDescriptor(d, &n, &a, &b, &k));
    CHECK(n == 16 && a == 0.5 && b == 0.01 && k == 1e-5);
    CHECK_OK(cudnnSetLRNDescriptor(d, 1, -2.0, 3.0, 4.0));
    CHECK_STATUS(cudnnSetLRNDescriptor(d, 0, 1e-4, 0.75, 2.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetLRNDescriptor(d, 17, 1e-4, 0.75, 2.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetLRNDescriptor(d, 5, 1e-4, 0.009, 2.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetLRNDescriptor(d, 5, 1e-4, 0.75, 0.5e-5), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetLRNDescriptor(d, 5, NAN, 0.75, 2.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetLRNDescriptor(d, &n, &a, &b, &k));
    CHECK(n == 1 && a == -2.0 && b == 3.0 && k == 4.0);
    CHECK_STATUS(cudnnGetLRNDescriptor(d, NULL, &a, &b, &k), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateLRNDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    CHECK_STATUS(cudnnSetLRNDescriptor((cudnnLRNDescriptor_t)t, 5, 1e-4, 0.75, 2.0), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(t);
    CHECK_OK(cudnnDestroyLRNDescriptor(d));
    CHECK_STATUS(cudnnGetLRNDescriptor(d, &n, &a, &b, &k), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyLRNDescriptor(NULL));
}

typedef struct {
    int nb, dims[5];
    unsigned n;
} lshape;

static const lshape lshapes[] = {
    {4, {2, 7, 3, 4}, 5},
    {4, {1, 6, 2, 3}, 4},      /* even window: look behind 1, ahead 2 */
    {4, {2, 1, 3, 3}, 3},      /* C = 1 */
    {5, {1, 3, 2, 3, 2}, 16},  /* window wider than C */
    {3, {2, 5, 7}, 2},
    {0, {0}, 0},
};

static void lrn_matrix(void)
{
    for (int si = 0; lshapes[si].nb; si++) {
        const lshape *sh = &lshapes[si];
        int N = sh->dims[0], C = sh->dims[1], S = 1;
        for (int i = 2; i < sh->nb; i++)
            S *= sh->dims[i];
        long long M = (long long)N * C * S;
        double *x = malloc(sizeof(double) * M), *y = malloc(sizeof(double) * M), *w = malloc(sizeof(double) * M);
        double *y0 = malloc(sizeof(double) * M), *dy = malloc(sizeof(double) * M);
        cudnnLRNDescriptor_t d;
        cudnnCreateLRNDescriptor(&d);
        double la = 0.7, lb = 0.6, lk = 1.5;
        cudnnSetLRNDescriptor(d, sh->n, la, lb, lk);
        for (int ti = 0; ti < 4; ti++) {
            cudnnDataType_t t = np_types[ti];
            for (int layout = 0; layout < L_COUNT; layout++) {
                char sec[96];
                snprintf(sec, sizeof sec, "lrn shape %d type %d %s", si, (int)t, layout_names[layout]);
                SECTION(sec);
                tens X, Y, DY, DX;
                tens_make(&X, t, sh->nb, sh->dims, layout);
                tens_make(&Y, t, sh->nb, sh->dims, layout);
                tens_make(&DY, t, sh->nb, sh->dims, layout);
                tens_make(&DX, t, sh->nb, sh->dims, layout);
                np_fill(x, M, t);
                np_fill(y0, M, t);
                np_fill(dy, M, t);
                tens_put(&X, x);
                tens_put(&DY, dy);
                np_scalar a, b;
                CHECK_OK(cudnnLRNCrossChannelForward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, np_sc(&a, t, 1), X.d, X.buf,
                                                     np_sc(&b, t, 0), Y.d, Y.buf));
                ref_lrn_fwd(N, C, S, sh->n, la, lb, lk, x, w);
                tens_get(&Y, y);
                double e = np_err(y, w, M);
                CHECK_MSG(e <= np_tol(t) * 2, "fwd err %g", e);
                tens_put(&Y, y0);
                CHECK_OK(cudnnLRNCrossChannelForward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, np_sc(&a, t, -0.5), X.d, X.buf,
                                                     np_sc(&b, t, 2), Y.d, Y.buf));
                for (long long i = 0; i < M; i++)
                    w[i] = -0.5 * w[i] + 2 * y0[i];
                tens_get(&Y, y);
                e = np_err(y, w, M);
                CHECK_MSG(e <= np_tol(t) * 4, "fwd blend err %g", e);
                /* backward, beta 0 over NaN dx */
                CHECK_OK(cudnnLRNCrossChannelBackward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, np_sc(&a, t, 1), Y.d, Y.buf, DY.d,
                                                      DY.buf, X.d, X.buf, np_sc(&b, t, 0), DX.d, DX.buf));
                ref_lrn_bwd(N, C, S, sh->n, la, lb, lk, x, dy, w);
                tens_get(&DX, y);
                e = np_err(y, w, M);
                CHECK_MSG(e <= np_tol(t) * 8, "bwd err %g", e);
                tens_put(&DX, y0);
                CHECK_OK(cudnnLRNCrossChannelBackward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, np_sc(&a, t, 3), Y.d, Y.buf, DY.d,
                                                      DY.buf, X.d, X.buf, np_sc(&b, t, -1), DX.d, DX.buf));
                for (long long i = 0; i < M; i++)
                    w[i] = 3 * w[i] - y0[i];
                tens_get(&DX, y);
                e = np_err(y, w, M);
                CHECK_MSG(e <= np_tol(t) * 16, "bwd blend err %g", e);
                tens_free(&X); tens_free(&Y); tens_free(&DY); tens_free(&DX);
            }
        }
        cudnnDestroyLRNDescriptor(d);
        free(x); free(y); free(w); free(y0); free(dy);
    }
}

static void divnorm_matrix(void)
{
    static const lshape dshapes[] = {{4, {2, 2, 5, 6}, 3}, {4, {1, 1, 4, 4}, 2}, {5, {1, 2, 3, 4, 3}, 3}, {0, {0}, 0}};
    for (int si = 0; dshapes[si].nb; si++) {
        const lshape *sh = &dshapes[si];
        int N = sh->dims[0], C = sh->dims[1], nsp = sh->nb - 2;
        long long M = ref_count(sh->nb, sh->dims);
        double *x = malloc(sizeof(double) * M), *m = malloc(sizeof(double) * M), *y = malloc(sizeof(double) * M);
        double *w = malloc(sizeof(double) * M), *dy = malloc(sizeof(double) * M), *y0 = malloc(sizeof(double) * M);
        cudnnLRNDescriptor_t d;
        cudnnCreateLRNDescriptor(&d);
        double la = 1.3, lb = 0.8, lk = 1.1;
        cudnnSetLRNDescriptor(d, sh->n, la, lb, lk);
        for (int ti = 0; ti < 4; ti++) {
            cudnnDataType_t t = np_types[ti];
            for (int layout = 0; layout < L_COUNT; layout++) {
                for (int with_means = 0; with_means < 2; with_means++) {
                    char sec[96];
                    snprintf(sec, sizeof sec, "divnorm shape %d type %d %s means %d", si, (int)t, layout_names[layout],
                             with_means);
                    SECTION(sec);
                    tens X, Mn, Y, DY, DX, DM, T1, T2;
                    tens_make(&X, t, sh->nb, sh->dims, layout);
                    tens_make(&Mn, t, sh->nb, sh->dims, layout);
                    tens_make(&Y, t, sh->nb, sh->dims, layout);
                    tens_make(&DY, t, sh->nb, sh->dims, layout);
                    tens_make(&DX, t, sh->nb, sh->dims, layout);
                    tens_make(&DM, t, sh->nb, sh->dims, layout);
                    tens_make(&T1, t, sh->nb, sh->dims, layout);
                    tens_make(&T2, t, sh->nb, sh->dims, layout);
                    np_fill(x, M, t);
                    np_fill(m, M, t);
                    np_fill(dy, M, t);
                    np_fill(y0, M, t);
                    tens_put(&X, x);
                    tens_put(&Mn, m);
                    tens_put(&DY, dy);
                    const void *mp = with_means ? Mn.buf : NULL;
                    np_scalar a, b;
                    CHECK_OK(cudnnDivisiveNormalizationForward(H, d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, np_sc(&a, t, 1), X.d,
                                                               X.buf, mp, T1.buf, T2.buf, np_sc(&b, t, 0), Y.d, Y.buf));
                    ref_divnorm_fwd(N, C, nsp, sh->dims + 2, sh->n, la, lb, lk, x, with_means ? m : NULL, w);
                    tens_get(&Y, y);
                    double e = np_err(y, w, M);
                    CHECK_MSG(e <= np_tol(t) * 2, "fwd err %g", e);
                    tens_put(&Y, y0);
                    CHECK_OK(cudnnDivisiveNormalizationForward(H, d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, np_sc(&a, t, 2), X.d,
                                                               X.buf, mp, T1.buf, T2.buf, np_sc(&b, t, 0.5), Y.d, Y.buf));
                    for (long long i = 0; i < M; i++)
                        w[i] = 2 * w[i] + 0.5 * y0[i];
                    tens_get(&Y, y);
                    e = np_err(y, w, M);
                    CHECK_MSG(e <= np_tol(t) * 4, "fwd blend err %g", e);
                    CHECK_OK(cudnnDivisiveNormalizationBackward(H, d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, np_sc(&a, t, 1), X.d,
                                                                X.buf, mp, DY.buf, T1.buf, T2.buf, np_sc(&b, t, 0), DX.d,
                                                                DX.buf, DM.buf));
                    ref_divnorm_bwd(N, C, nsp, sh->dims + 2, sh->n, la, lb, lk, x, with_means ? m : NULL, dy, w);
                    tens_get(&DX, y);
                    e = np_err(y, w, M);
                    CHECK_MSG(e <= np_tol(t) * 8, "bwd dx err %g", e);
                    tens_get(&DM, y);
                    for (long long i = 0; i < M; i++)
                        w[i] = -w[i];
                    e = np_err(y, w, M);
                    CHECK_MSG(e <= np_tol(t) * 8, "bwd dmeans err %g", e);
                    /* dMeans may be NULL */
                    CHECK_OK(cudnnDivisiveNormalizationBackward(H, d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, np_sc(&a, t, 1), X.d,
                                                                X.buf, mp, DY.buf, T1.buf, T2.buf, np_sc(&b, t, 0), DX.d,
                                                                DX.buf, NULL));
                    tens_free(&X); tens_free(&Mn); tens_free(&Y); tens_free(&DY); tens_free(&DX); tens_free(&DM);
                    tens_free(&T1); tens_free(&T2);
                }
            }
        }
        cudnnDestroyLRNDescriptor(d);
        free(x); free(m); free(y); free(w); free(dy); free(y0);
    }
}

static void bad_input(void)
{
    SECTION("lrn bad input");
    int xd[4] = {2, 3, 4, 5}, x2[2] = {4, 5}, xo[4] = {2, 3, 4, 6};
    tens X, Y, Yn, Yo, Yh, X2;
    tens_make(&X, CUDNN_DATA_FLOAT, 4, xd, L_NCHW);
    tens_make(&Y, CUDNN_DATA_FLOAT, 4, xd, L_NCHW);
    tens_make(&Yn, CUDNN_DATA_FLOAT, 4, xd, L_NHWC);
    tens_make(&Yo, CUDNN_DATA_FLOAT, 4, xo, L_NCHW);
    tens_make(&Yh, CUDNN_DATA_HALF, 4, xd, L_NCHW);
    tens_make(&X2, CUDNN_DATA_FLOAT, 2, x2, L_NCHW);
    memset(Y.buf, 0x11, Y.bytes);
    unsigned char *snap = malloc(Y.bytes);
    memcpy(snap, Y.buf, Y.bytes);
    cudnnLRNDescriptor_t d;
    cudnnCreateLRNDescriptor(&d);
    float a = 1, b = 0;
    CHECK_STATUS(cudnnLRNCrossChannelForward(NULL, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, X.d, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnLRNCrossChannelForward(H, NULL, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, X.d, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnLRNCrossChannelForward(H, d, (cudnnLRNMode_t)3, &a, X.d, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnLRNCrossChannelForward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, X.d, NULL, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnLRNCrossChannelForward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, X.d, X.buf, NULL, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnLRNCrossChannelForward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, X.d, X.buf, &b, Yo.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnLRNCrossChannelForward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, X.d, X.buf, &b, Yh.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnLRNCrossChannelForward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, X2.d, X.buf, &b, X2.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnLRNCrossChannelForward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, X.d, X.buf, &b, Yn.d, Y.buf), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnLRNCrossChannelBackward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, Y.d, Y.buf, Yn.d, Y.buf, X.d, X.buf, &b, X.d, Y.buf),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnLRNCrossChannelBackward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, Y.d, Y.buf, Yo.d, Y.buf, X.d, X.buf, &b, X.d, Y.buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnLRNCrossChannelBackward(H, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, Y.d, Y.buf, Y.d, NULL, X.d, X.buf, &b, X.d, Y.buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDivisiveNormalizationForward(H, d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &a, X.d, X.buf, NULL, NULL, X.buf, &b, Y.d, Y.buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDivisiveNormalizationForward(H, d, (cudnnDivNormMode_t)1, &a, X.d, X.buf, NULL, X.buf, X.buf, &b, Y.d, Y.buf),
                 CUDNN_STATUS_BAD_PARAM);
    int d3[3] = {2, 3, 20};
    tens X3;
    tens_make(&X3, CUDNN_DATA_FLOAT, 3, d3, L_NCHW);
    CHECK_STATUS(cudnnDivisiveNormalizationForward(H, d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &a, X3.d, X.buf, NULL, X.buf, X.buf, &b, X3.d, Y.buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDivisiveNormalizationBackward(H, d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &a, X.d, X.buf, NULL, X.buf, X.buf, X.buf, &b, Yo.d,
                                                    Y.buf, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK(memcmp(snap, Y.buf, Y.bytes) == 0);
    cudnnDestroyLRNDescriptor(d);
    tens_free(&X); tens_free(&Y); tens_free(&Yn); tens_free(&Yo); tens_free(&Yh); tens_free(&X2); tens_free(&X3);
    free(snap);
}

int main(void)
{
    if (cudnnCreate(&H) != CUDNN_STATUS_SUCCESS)
        return 1;
    descriptors();
    lrn_matrix();
    divnorm_matrix();
    bad_input();
    cudnnDestroy(H);
    return hd_test_finish();
}
