/* Batch normalization and the 8.x normalization API: derived descriptors, inference, training
 * (batch statistics, running averages, saved mean / inverse std-dev), backward with and
 * without saved statistics, alpha/beta blending of data and parameter gradients, Ex and
 * Normalization* entry points, queries, determinism across threads and ISAs.  Bad input and
 * large-mean statistics are in test_batchnorm_edge.c. */
#define _DEFAULT_SOURCE
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "unit/bn_fixture.h"

static cudnnHandle_t H;

static void derive(void)
{
    SECTION("derive");
    cudnnTensorDescriptor_t x, d, d2;
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&d);
    cudnnCreateTensorDescriptor(&d2);
    cudnnDataType_t t;
    int nb, dims[8], st[8];
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 3, 4, 5));
    CHECK_OK(cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_SPATIAL));
    CHECK_OK(cudnnGetTensorNdDescriptor(d, 8, &t, &nb, dims, st));
    CHECK(t == CUDNN_DATA_FLOAT && nb == 4 && dims[0] == 1 && dims[1] == 3 && dims[2] == 1 && dims[3] == 1);
    CHECK_OK(cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_PER_ACTIVATION));
    CHECK_OK(cudnnGetTensorNdDescriptor(d, 8, &t, &nb, dims, st));
    CHECK(dims[1] == 3 && dims[2] == 4 && dims[3] == 5 && st[3] == 1 && st[1] == 20);
    int d5[5] = {2, 3, 4, 5, 6};
    CHECK_OK(cudnnSetTensorNdDescriptorEx(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 5, d5));
    CHECK_OK(cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_SPATIAL_PERSISTENT));
    CHECK_OK(cudnnGetTensorNdDescriptor(d, 8, &t, &nb, dims, st));
    CHECK(t == CUDNN_DATA_DOUBLE && nb == 5 && dims[1] == 3 && dims[4] == 1);
    CHECK_OK(cudnnSetTensorNdDescriptorEx(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_BFLOAT16, 5, d5));
    CHECK_OK(cudnnDeriveNormTensorDescriptor(d, d2, x, CUDNN_NORM_PER_ACTIVATION, 1));
    CHECK_OK(cudnnGetTensorNdDescriptor(d2, 8, &t, &nb, dims, st));
    CHECK(t == CUDNN_DATA_FLOAT && nb == 5 && dims[2] == 4 && dims[4] == 6);
    CHECK_OK(cudnnGetTensorNdDescriptor(d, 8, &t, &nb, dims, st));
    CHECK(t == CUDNN_DATA_FLOAT && dims[3] == 5);
    CHECK_STATUS(cudnnDeriveNormTensorDescriptor(d, d2, x, CUDNN_NORM_PER_CHANNEL, 2), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnDeriveNormTensorDescriptor(d, d2, x, CUDNN_NORM_PER_CHANNEL, 0), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnDeriveNormTensorDescriptor(d, d2, x, (cudnnNormMode_t)9, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDeriveBNTensorDescriptor(d, x, (cudnnBatchNormMode_t)99), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDeriveBNTensorDescriptor(NULL, x, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM);
    int d3[3] = {2, 3, 4};
    /* any rank derives (as cuDNN 9); the operations take 4-d and 5-d only */
    CHECK_OK(cudnnSetTensorNdDescriptorEx(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 3, d3));
    CHECK_OK(cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_PER_ACTIVATION));
    CHECK_OK(cudnnGetTensorNdDescriptor(d, 8, &t, &nb, dims, st));
    CHECK(nb == 3 && dims[0] == 1 && dims[1] == 3 && dims[2] == 4);
    cudnnDestroyTensorDescriptor(x);
    CHECK_STATUS(cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(d);
    cudnnDestroyTensorDescriptor(d2);
}

typedef struct {
    int nb, dims[5];
} bshape;

static const bshape bshapes[] = {
    {4, {2, 3, 4, 5}},
    {4, {1, 1, 3, 3}},        /* N = 1, C = 1 */
    {4, {5, 2, 1, 1}},        /* S = 1 */
    {5, {2, 3, 2, 3, 4}},
    {4, {3, 4, 7, 9}},        /* odd rows: vector tails */
    {0, {0}},
};

static const cudnnBatchNormMode_t bn_modes[3] = {CUDNN_BATCHNORM_PER_ACTIVATION, CUDNN_BATCHNORM_SPATIAL,
                                                 CUDNN_BATCHNORM_SPATIAL_PERSISTENT};

static void bn_matrix(void)
{
    for (int si = 0; bshapes[si].nb; si++) {
        const bshape *sh = &bshapes[si];
        int N = sh->dims[0], C = sh->dims[1], S = 1;
        for (int i = 2; i < sh->nb; i++)
            S *= sh->dims[i];
        long long M = (long long)N * C * S;
        double *x = malloc(sizeof(double) * M), *y = malloc(sizeof(double) * M), *want = malloc(sizeof(double) * M);
        double *y0 = malloc(sizeof(double) * M), *dy = malloc(sizeof(double) * M), *dx = malloc(sizeof(double) * M);
        double *dx0 = malloc(sizeof(double) * M), *dxw = malloc(sizeof(double) * M);
        int Fmax = C * S;
        double *sc = malloc(sizeof(double) * Fmax), *bi = malloc(sizeof(double) * Fmax), *mu = malloc(sizeof(double) * Fmax);
        double *var = malloc(sizeof(double) * Fmax), *inv = malloc(sizeof(double) * Fmax), *got = malloc(sizeof(double) * Fmax);
        double *rm0 = malloc(sizeof(double) * Fmax), *rv0 = malloc(sizeof(double) * Fmax);
        double *dsw = malloc(sizeof(double) * Fmax), *dbw = malloc(sizeof(double) * Fmax);
        double *ds0 = malloc(sizeof(double) * Fmax), *db0 = malloc(sizeof(double) * Fmax);
        for (int ti = 0; ti < 4; ti++) {
            cudnnDataType_t t = np_types[ti];
            double tol = np_tol(t);
            for (int layout = 0; layout < L_COUNT; layout++) {
                for (int mi = 0; mi < 3; mi++) {
                    int per_act = mi == 0;
                    int F = per_act ? C * S : C;
                    double Mf = per_act ? N : (double)N * S;
                    char sec[128];
                    snprintf(sec, sizeof sec, "bn shape %d type %d %s mode %d", si, (int)t, layout_names[layout], mi);
                    SECTION(sec);
                    tens X, Y, DY, DX, P, RM, RV, SM, SI, DS, DB, B;
                    tens_make(&X, t, sh->nb, sh->dims, layout);
                    tens_make(&Y, t, sh->nb, sh->dims, layout);
                    /* dy in another layout (generic paths), except for the 16-bit types (converted fast path) */
                    tens_make(&DY, t, sh->nb, sh->dims,
                              t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ? layout : (layout + 1) % L_COUNT);
                    tens_make(&DX, t, sh->nb, sh->dims, layout);
                    make_param(&P, &X, per_act, si & 1);
                    make_param(&B, &X, per_act, si & 1);
                    make_param(&RM, &X, per_act, si & 1);
                    make_param(&RV, &X, per_act, si & 1);
                    make_param(&SM, &X, per_act, si & 1);
                    make_param(&SI, &X, per_act, si & 1);
                    make_param(&DS, &X, per_act, si & 1);
                    make_param(&DB, &X, per_act, si & 1);
                    np_fill(x, M, t);
                    np_fill(y0, M, t);
                    np_fill(dy, M, t);
                    np_fill(dx0, M, t);
                    for (int f = 0; f < F; f++) {
                        sc[f] = 1.0 + np_rand() / 8;
                        bi[f] = np_rand() / 2;
                        rm0[f] = np_rand();
                        rv0[f] = 1.0 + fabs(np_rand());
                        ds0[f] = np_rand();
                        db0[f] = np_rand();
                    }
                    tens_put(&X, x);
                    tens_put(&DY, dy);
                    tens_put(&P, sc);
                    tens_put(&B, bi);
                    tens_put(&RM, rm0);
                    tens_put(&RV, rv0);
                    np_scalar a, b, a2, b2;
                    double eps = 1e-3;

                    /* inference with the running statistics as estimates */
                    CHECK_OK(cudnnBatchNormalizationForwardInference(H, bn_modes[mi], np_sc(&a, t, 1), np_sc(&b, t, 0), X.d,
                                                                     X.buf, Y.d, Y.buf, P.d, P.buf, B.buf, RM.buf, RV.buf, eps));
                    ref_bn_fwd(per_act, N, C, S, x, sc, bi, rm0, rv0, eps, want);
                    tens_get(&Y, y);
                    double e = np_err(y, want, M);
                    CHECK_MSG(e <= tol * 4, "inference err %g", e);

                    /* training: y (alpha/beta over known y), running and saved statistics */
                    tens_put(&Y, y0);
                    double factor = 0.25;
                    CHECK_OK(cudnnBatchNormalizationForwardTraining(H, bn_modes[mi], np_sc(&a, t, 0.5), np_sc(&b, t, -1), X.d,
                                                                    X.buf, Y.d, Y.buf, P.d, P.buf, B.buf, factor, RM.buf,
                                                                    RV.buf, eps, SM.buf, SI.buf));
                    ref_bn_stats(per_act, N, C, S, x, mu, var);
                    ref_bn_fwd(per_act, N, C, S, x, sc, bi, mu, var, eps, want);
                    for (long long i = 0; i < M; i++)
                        want[i] = 0.5 * want[i] - y0[i];
                    tens_get(&Y, y);
                    e = np_err(y, want, M);
                    CHECK_MSG(e <= tol * 8, "training y err %g", e);
                    tens_get(&SM, got);
                    CHECK_MSG(np_err(got, mu, F) <= 1e-6, "saved mean");
                    for (int f = 0; f < F; f++)
                        inv[f] = 1.0 / sqrt(var[f] + eps);
                    tens_get(&SI, got);
                    CHECK_MSG(np_err(got, inv, F) <= 1e-6, "saved inv std");
                    tens_get(&RM, got);
                    for (int f = 0; f < F; f++)
                        want[f] = (1 - factor) * rm0[f] + factor * mu[f];
                    CHECK_MSG(np_err(got, want, F) <= 1e-6, "running mean");
                    tens_get(&RV, got);
                    for (int f = 0; f < F; f++)
                        want[f] = (1 - factor) * rv0[f] + factor * var[f] * (Mf > 1 ? Mf / (Mf - 1) : 1.0);
                    CHECK_MSG(np_err(got, want, F) <= 1e-6, "running var");

                    /* backward from the saved statistics, beta 0 over NaN outputs */
                    CHECK_OK(cudnnBatchNormalizationBackward(H, bn_modes[mi], np_sc(&a, t, 1), np_sc(&b, t, 0),
                                                             np_sc(&a2, t, 1), np_sc(&b2, t, 0), X.d, X.buf, DY.d, DY.buf,
                                                             DX.d, DX.buf, P.d, P.buf, DS.buf, DB.buf, eps, SM.buf, SI.buf));
                    double *dsg = got;
                    ref_bn_bwd(per_act, N, C, S, x, dy, sc, mu, inv, dxw, dsw, dbw);
                    tens_get(&DX, dx);
                    e = np_err(dx, dxw, M);
                    CHECK_MSG(e <= tol * 40, "bwd dx err %g", e);
                    tens_get(&DS, dsg);
                    CHECK_MSG(np_err(dsg, dsw, F) <= 1e-4 * Mf, "dscale");
                    tens_get(&DB, dsg);
                    CHECK_MSG(np_err(dsg, dbw, F) <= 1e-4 * Mf, "dbias");

                    /* backward recomputing the statistics; alpha/beta on data and parameters */
                    tens_put(&DX, dx0);
                    tens_put(&DS, ds0);
                    tens_put(&DB, db0);
                    CHECK_OK(cudnnBatchNormalizationBackward(H, bn_modes[mi], np_sc(&a, t, 2), np_sc(&b, t, 0.5),
                                                             np_sc(&a2, t, -1), np_sc(&b2, t, 0.25), X.d, X.buf, DY.d,
                                                             DY.buf, DX.d, DX.buf, P.d, P.buf, DS.buf, DB.buf, eps, NULL,
                                                             NULL));
                    tens_get(&DX, dx);
                    for (long long i = 0; i < M; i++)
                        dxw[i] = 2 * dxw[i] + 0.5 * dx0[i];
                    e = np_err(dx, dxw, M);
                    CHECK_MSG(e <= tol * 80, "bwd recompute dx err %g", e);
                    tens_get(&DS, dsg);
                    for (int f = 0; f < F; f++)
                        dsw[f] = -dsw[f] + 0.25 * ds0[f];
                    CHECK_MSG(np_err(dsg, dsw, F) <= 1e-4 * Mf, "dscale blend");
                    tens_get(&DB, dsg);
                    for (int f = 0; f < F; f++)
                        dbw[f] = -dbw[f] + 0.25 * db0[f];
                    CHECK_MSG(np_err(dsg, dbw, F) <= 1e-4 * Mf, "dbias blend");

                    tens_free(&X); tens_free(&Y); tens_free(&DY); tens_free(&DX); tens_free(&P); tens_free(&B);
                    tens_free(&RM); tens_free(&RV); tens_free(&SM); tens_free(&SI); tens_free(&DS); tens_free(&DB);
                }
            }
        }
        free(x); free(y); free(want); free(y0); free(dy); free(dx); free(dx0); free(dxw);
        free(sc); free(bi); free(mu); free(var); free(inv); free(got); free(rm0); free(rv0);
        free(dsw); free(dbw); free(ds0); free(db0);
    }
}

static void ex_and_norm_api(void)
{
    SECTION("Ex and Normalization API equal the plain calls");
    for (int per_act = 0; per_act < 2; per_act++) {
        fixture f;
        fix_make(&f, CUDNN_DATA_FLOAT, per_act);
        cudnnBatchNormMode_t bm = per_act ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL;
        cudnnNormMode_t nm = per_act ? CUDNN_NORM_PER_ACTIVATION : CUDNN_NORM_PER_CHANNEL;
        float one = 1, zero = 0;
        size_t ws = 99, rs = 99;
        CHECK_OK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(H, bm, CUDNN_BATCHNORM_OPS_BN, f.X.d, NULL, f.Y.d,
                                                                          f.P.d, NULL, &ws));
        CHECK(ws == 0);
        CHECK_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(H, bm, CUDNN_BATCHNORM_OPS_BN, NULL, f.X.d, &rs));
        CHECK(rs == 0);
        CHECK_OK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(H, bm, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, NULL, f.X.d, &rs));
        CHECK(rs == 120 * sizeof(float));
        ws = 99;
        CHECK_OK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(H, bm, CUDNN_BATCHNORM_OPS_BN, f.X.d, f.Y.d, f.DY.d, NULL,
                                                                   f.DX.d, f.P.d, NULL, &ws));
        CHECK(ws == 0);
        ws = 99;
        CHECK_OK(cudnnGetNormalizationForwardTrainingWorkspaceSize(H, nm, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_PERSIST, f.X.d,
                                                                   NULL, f.Y.d, f.P.d, NULL, f.RM.d, &ws, 1));
        CHECK(ws == 0);
        ws = 99;
        CHECK_OK(cudnnGetNormalizationBackwardWorkspaceSize(H, nm, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, f.X.d, f.Y.d,
                                                            f.DY.d, NULL, f.DX.d, f.P.d, NULL, f.RM.d, &ws, 1));
        CHECK(ws == 0);
        CHECK_OK(cudnnGetNormalizationTrainingReserveSpaceSize(H, nm, CUDNN_NORM_OPS_NORM_ADD_ACTIVATION, CUDNN_NORM_ALGO_STANDARD,
                                                               NULL, f.X.d, &rs, 1));
        CHECK(rs == 120 * sizeof(float));
        CHECK_STATUS(cudnnGetNormalizationTrainingReserveSpaceSize(H, nm, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, NULL,
                                                                   f.X.d, &rs, 2), CUDNN_STATUS_NOT_SUPPORTED);
        CHECK_STATUS(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(H, bm, (cudnnBatchNormOps_t)7, NULL, f.X.d, &rs),
                     CUDNN_STATUS_BAD_PARAM);

        /* plain training into Y, SM, SI; Ex and Norm into Y2, then compare bitwise */
        CHECK_OK(cudnnBatchNormalizationForwardTraining(H, bm, &one, &zero, f.X.d, f.X.buf, f.Y.d, f.Y.buf, f.P.d, f.P.buf,
                                                        f.B.buf, 1.0, NULL, NULL, 1e-5, f.SM.buf, f.SI.buf));
        CHECK_OK(cudnnBatchNormalizationForwardTrainingEx(H, bm, CUDNN_BATCHNORM_OPS_BN, &one, &zero, f.X.d, f.X.buf, NULL,
                                                          NULL, f.Y2.d, f.Y2.buf, f.P.d, f.P.buf, f.B.buf, 1.0, NULL, NULL,
                                                          1e-5, NULL, NULL, NULL, NULL, 0, NULL, 0));
        CHECK(memcmp(f.Y.buf, f.Y2.buf, f.Y.bytes) == 0);
        memset(f.Y2.buf, 0xff, f.Y2.bytes);
        CHECK_OK(cudnnNormalizationForwardTraining(H, nm, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, &one, &zero, f.X.d,
                                                   f.X.buf, f.P.d, f.P.buf, f.B.buf, 1.0, f.RM.d, NULL, NULL, 1e-5, NULL,
                                                   NULL, NULL, NULL, NULL, f.Y2.d, f.Y2.buf, NULL, 0, NULL, 0, 1));
        CHECK(memcmp(f.Y.buf, f.Y2.buf, f.Y.bytes) == 0);
        /* inference through the Norm API equals the BN call */
        CHECK_OK(cudnnBatchNormalizationForwardInference(H, bm, &one, &zero, f.X.d, f.X.buf, f.Y.d, f.Y.buf, f.P.d, f.P.buf,
                                                         f.B.buf, f.RM.buf, f.RV.buf, 1e-5));
        CHECK_OK(cudnnNormalizationForwardInference(H, nm, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_PERSIST, &one, &zero, f.X.d,
                                                    f.X.buf, f.P.d, f.P.buf, f.B.buf, f.RM.d, f.RM.buf, f.RV.buf, NULL, NULL,
                                                    NULL, f.Y2.d, f.Y2.buf, 1e-5, 1));
        CHECK(memcmp(f.Y.buf, f.Y2.buf, f.Y.bytes) == 0);
        /* backward: plain vs Ex vs Norm */
        CHECK_OK(cudnnBatchNormalizationBackward(H, bm, &one, &zero, &one, &zero, f.X.d, f.X.buf, f.DY.d, f.DY.buf, f.DX.d,
                                                 f.DX.buf, f.P.d, f.P.buf, f.DS.buf, f.DB.buf, 1e-5, f.SM.buf, f.SI.buf));
        CHECK_OK(cudnnBatchNormalizationBackwardEx(H, bm, CUDNN_BATCHNORM_OPS_BN, &one, &zero, &one, &zero, f.X.d, f.X.buf,
                                                   NULL, NULL, f.DY.d, f.DY.buf, NULL, NULL, f.DX2.d, f.DX2.buf, f.P.d,
                                                   f.P.buf, f.B.buf, f.DS2.buf, f.DB2.buf, 1e-5, f.SM.buf, f.SI.buf, NULL,
                                                   NULL, 0, NULL, 0));
        CHECK(memcmp(f.DX.buf, f.DX2.buf, f.DX.bytes) == 0);
        CHECK(memcmp(f.DS.buf, f.DS2.buf, f.DS.bytes) == 0 && memcmp(f.DB.buf, f.DB2.buf, f.DB.bytes) == 0);
        memset(f.DX2.buf, 0xff, f.DX2.bytes);
        CHECK_OK(cudnnNormalizationBackward(H, nm, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, &one, &zero, &one, &zero,
                                            f.X.d, f.X.buf, NULL, NULL, f.DY.d, f.DY.buf, NULL, NULL, f.DX2.d, f.DX2.buf,
                                            f.P.d, f.P.buf, f.B.buf, f.DS2.buf, f.DB2.buf, 1e-5, f.SM.d, f.SM.buf, f.SI.buf,
                                            NULL, NULL, 0, NULL, 0, 1));
        CHECK(memcmp(f.DX.buf, f.DX2.buf, f.DX.bytes) == 0);
        /* factor 1: running buffers are written, not read (they hold NaN) */
        memset(f.RM.buf, 0xff, f.RM.bytes);
        memset(f.RV.buf, 0xff, f.RV.bytes);
        CHECK_OK(cudnnBatchNormalizationForwardTraining(H, bm, &one, &zero, f.X.d, f.X.buf, f.Y.d, f.Y.buf, f.P.d, f.P.buf,
                                                        f.B.buf, 1.0, f.RM.buf, f.RV.buf, 1e-5, NULL, NULL));
        double rm[60], sm[60];
        tens_get(&f.RM, rm);
        tens_get(&f.SM, sm);
        int F = per_act ? 60 : 3;
        CHECK(np_err(rm, sm, F) <= 1e-6);
        fix_free(&f);
    }
}

/* In place: y == x for the forward, dx == dy for the backward, bitwise equal to out of place
 * (same layouts, so the same paths run). */
static void in_place(void)
{
    for (int layout = 0; layout < 2; layout++) {
        SECTION(layout ? "in place NHWC" : "in place NCHW");
        for (int per_act = 0; per_act < 2; per_act++) {
            fixture f;
            int d[4] = {2, 3, 4, 5};
            fix_make(&f, CUDNN_DATA_FLOAT, per_act);
            tens X, Y, X2, G, DX;
            tens *ts[] = {&X, &Y, &X2, &G, &DX};
            for (int i = 0; i < 5; i++)
                tens_make(ts[i], CUDNN_DATA_FLOAT, 4, d, layout);
            double v[120], a[120], b[120];
            tens_get(&f.X, v);
            tens_put(&X, v);
            tens_put(&X2, v);
            tens_get(&f.DY, v);
            tens_put(&G, v);
            cudnnBatchNormMode_t m = per_act ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL;
            float one = 1, zero = 0;
            CHECK_OK(cudnnBatchNormalizationForwardTraining(H, m, &one, &zero, X.d, X.buf, Y.d, Y.buf, f.P.d, f.P.buf,
                                                            f.B.buf, 1.0, NULL, NULL, 1e-5, f.SM.buf, f.SI.buf));
            CHECK_OK(cudnnBatchNormalizationForwardTraining(H, m, &one, &zero, X2.d, X2.buf, X2.d, X2.buf, f.P.d, f.P.buf,
                                                            f.B.buf, 1.0, NULL, NULL, 1e-5, f.SM.buf, f.SI.buf));
            tens_get(&Y, a);
            tens_get(&X2, b);
            CHECK(np_err(a, b, 120) == 0);
            CHECK_OK(cudnnBatchNormalizationBackward(H, m, &one, &zero, &one, &zero, X.d, X.buf, G.d, G.buf, DX.d, DX.buf,
                                                     f.P.d, f.P.buf, f.DS.buf, f.DB.buf, 1e-5, f.SM.buf, f.SI.buf));
            CHECK_OK(cudnnBatchNormalizationBackward(H, m, &one, &zero, &one, &zero, X.d, X.buf, G.d, G.buf, G.d, G.buf,
                                                     f.P.d, f.P.buf, f.DS.buf, f.DB.buf, 1e-5, f.SM.buf, f.SI.buf));
            tens_get(&DX, a);
            tens_get(&G, b);
            CHECK(np_err(a, b, 120) == 0);
            for (int i = 0; i < 5; i++)
                tens_free(ts[i]);
            fix_free(&f);
        }
    }
}

static void fused_activation(void)
{
    SECTION("fused activation");
    cudnnActivationDescriptor_t act;
    cudnnStatus_t st = cudnnCreateActivationDescriptor(&act);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    if (st == CUDNN_STATUS_NOT_SUPPORTED) {
        SKIP("fused activation: activation descriptors are not implemented in this build");
        if (act)
            cudnnDestroyActivationDescriptor(act);
        /* the fused ops refuse cleanly without one */
        fixture f;
        fix_make(&f, CUDNN_DATA_FLOAT, 0);
        float one = 1, zero = 0;
        float res[120];
        memcpy(f.Y2.buf, f.Y.buf, f.Y.bytes);
        CHECK_STATUS(cudnnBatchNormalizationForwardTrainingEx(H, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION,
                                                              &one, &zero, f.X.d, f.X.buf, NULL, NULL, f.Y.d, f.Y.buf, f.P.d,
                                                              f.P.buf, f.B.buf, 1.0, NULL, NULL, 1e-5, NULL, NULL, NULL,
                                                              NULL, 0, res, sizeof res),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK(memcmp(f.Y2.buf, f.Y.buf, f.Y.bytes) == 0);
        fix_free(&f);
        return;
    }
    CHECK_OK(st);
    /* y = relu(bn(x) + z) against a host composition of the plain call */
    fixture f;
    fix_make(&f, CUDNN_DATA_FLOAT, 0);
    float one = 1, zero = 0;
    static float res[120];
    double z[120], y[120], y2[120], dy[120], dz[120], dx[120], dx2[120];
    np_fill(z, 120, CUDNN_DATA_FLOAT);
    tens Z, DZ;
    int d[4] = {2, 3, 4, 5};
    tens_make(&Z, CUDNN_DATA_FLOAT, 4, d, L_NHWC);
    tens_make(&DZ, CUDNN_DATA_FLOAT, 4, d, L_NCHW);
    tens_put(&Z, z);
    CHECK_OK(cudnnBatchNormalizationForwardTraining(H, CUDNN_BATCHNORM_SPATIAL, &one, &zero, f.X.d, f.X.buf, f.Y.d, f.Y.buf,
                                                    f.P.d, f.P.buf, f.B.buf, 1.0, NULL, NULL, 1e-5, f.SM.buf, f.SI.buf));
    CHECK_OK(cudnnBatchNormalizationForwardTrainingEx(H, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, &one,
                                                      &zero, f.X.d, f.X.buf, Z.d, Z.buf, f.Y2.d, f.Y2.buf, f.P.d, f.P.buf,
                                                      f.B.buf, 1.0, NULL, NULL, 1e-5, NULL, NULL, act, NULL, 0, res,
                                                      sizeof res));
    tens_get(&f.Y, y);
    tens_get(&f.Y2, y2);
    double want[120];
    for (int i = 0; i < 120; i++)
        want[i] = y[i] + z[i] > 0 ? y[i] + z[i] : 0;
    CHECK(np_err(y2, want, 120) <= 1e-5);
    /* backward: g = dy * (pre-activation > 0), dz = g, then plain BN backward on g */
    tens_get(&f.DY, dy);
    CHECK_OK(cudnnBatchNormalizationBackwardEx(H, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, &one, &zero,
                                               &one, &zero, f.X.d, f.X.buf, f.Y2.d, f.Y2.buf, f.DY.d, f.DY.buf, DZ.d, DZ.buf,
                                               f.DX.d, f.DX.buf, f.P.d, f.P.buf, f.B.buf, f.DS.buf, f.DB.buf, 1e-5, f.SM.buf,
                                               f.SI.buf, act, NULL, 0, res, sizeof res));
    double g[120];
    for (int i = 0; i < 120; i++)
        g[i] = want[i] > 0 ? dy[i] : 0;
    tens_get(&DZ, dz);
    CHECK(np_err(dz, g, 120) == 0);
    tens_put(&f.DY, g);
    CHECK_OK(cudnnBatchNormalizationBackward(H, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, f.X.d, f.X.buf, f.DY.d,
                                             f.DY.buf, f.DX2.d, f.DX2.buf, f.P.d, f.P.buf, f.DS2.buf, f.DB2.buf, 1e-5, f.SM.buf,
                                             f.SI.buf));
    tens_get(&f.DX, dx);
    tens_get(&f.DX2, dx2);
    CHECK(np_err(dx, dx2, 120) <= 1e-5);
    /* too small a reserve space */
    CHECK_STATUS(cudnnBatchNormalizationBackwardEx(H, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero,
                                                   &one, &zero, f.X.d, f.X.buf, f.Y2.d, f.Y2.buf, f.DY.d, f.DY.buf, NULL, NULL,
                                                   f.DX.d, f.DX.buf, f.P.d, f.P.buf, f.B.buf, f.DS.buf, f.DB.buf, 1e-5,
                                                   f.SM.buf, f.SI.buf, act, NULL, 0, res, 16),
                 CUDNN_STATUS_BAD_PARAM);
    /* inference through the 8.x API with a clipped ReLU, against the plain call clamped here */
    CHECK_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_NOT_PROPAGATE_NAN, 1.5));
    CHECK_STATUS(cudnnNormalizationForwardInference(H, CUDNN_NORM_PER_ACTIVATION, CUDNN_NORM_OPS_NORM_ACTIVATION,
                                                    CUDNN_NORM_ALGO_STANDARD, &one, &zero, f.X.d, f.X.buf, f.P.d, f.P.buf,
                                                    f.B.buf, f.RM.d, f.RM.buf, f.RV.buf, NULL, NULL, act, f.Y2.d, f.Y2.buf,
                                                    1e-5, 1), CUDNN_STATUS_BAD_PARAM);   /* spatial params, per-act mode */
    fixture pa;
    fix_make(&pa, CUDNN_DATA_FLOAT, 1);
    CHECK_OK(cudnnBatchNormalizationForwardInference(H, CUDNN_BATCHNORM_PER_ACTIVATION, &one, &zero, pa.X.d, pa.X.buf, pa.Y.d,
                                                     pa.Y.buf, pa.P.d, pa.P.buf, pa.B.buf, pa.RM.buf, pa.RV.buf, 1e-5));
    CHECK_OK(cudnnNormalizationForwardInference(H, CUDNN_NORM_PER_ACTIVATION, CUDNN_NORM_OPS_NORM_ACTIVATION,
                                                CUDNN_NORM_ALGO_STANDARD, &one, &zero, pa.X.d, pa.X.buf, pa.P.d, pa.P.buf,
                                                pa.B.buf, pa.RM.d, pa.RM.buf, pa.RV.buf, NULL, NULL, act, pa.Y2.d, pa.Y2.buf,
                                                1e-5, 1));
    tens_get(&pa.Y, y);
    tens_get(&pa.Y2, y2);
    for (int i = 0; i < 120; i++)
        want[i] = y[i] < 0 ? 0 : y[i] > 1.5 ? 1.5 : y[i];
    CHECK(np_err(y2, want, 120) <= 1e-6);
    fix_free(&pa);

    /* every activation mode: y = act(bn(x)) and dx from g = dy * act'(bn(x)), against the plain calls */
    static const cudnnActivationMode_t modes[5] = {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU,
                                                   CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_TANH, CUDNN_ACTIVATION_ELU};
    for (int mi = 0; mi < 5; mi++) {
        double coef = mi == 4 ? 0.7 : 1.5;
        CHECK_OK(cudnnSetActivationDescriptor(act, modes[mi], CUDNN_NOT_PROPAGATE_NAN, coef));
        fixture g2;
        fix_make(&g2, CUDNN_DATA_FLOAT, 0);
        CHECK_OK(cudnnBatchNormalizationForwardTraining(H, CUDNN_BATCHNORM_SPATIAL, &one, &zero, g2.X.d, g2.X.buf, g2.Y.d,
                                                        g2.Y.buf, g2.P.d, g2.P.buf, g2.B.buf, 1.0, NULL, NULL, 1e-5, g2.SM.buf,
                                                        g2.SI.buf));
        CHECK_OK(cudnnNormalizationForwardTraining(H, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM_ACTIVATION,
                                                   CUDNN_NORM_ALGO_STANDARD, &one, &zero, g2.X.d, g2.X.buf, g2.P.d, g2.P.buf,
                                                   g2.B.buf, 1.0, g2.RM.d, NULL, NULL, 1e-5, NULL, NULL, act, NULL, NULL,
                                                   g2.Y2.d, g2.Y2.buf, NULL, 0, res, sizeof res, 1));
        double pre[120], post[120], gdy[120], gw[120];
        tens_get(&g2.Y, pre);
        tens_get(&g2.Y2, post);
        tens_get(&g2.DY, gdy);
        for (int i = 0; i < 120; i++) {
            double v = pre[i], r, d;
            switch (mi) {
            case 0: r = v > 0 ? v : 0; d = v > 0; break;
            case 1: r = v < 0 ? 0 : v > coef ? coef : v; d = v > 0 && v < coef; break;
            case 2: r = 1 / (1 + exp(-v)); d = r * (1 - r); break;
            case 3: r = tanh(v); d = 1 - r * r; break;
            default: r = v > 0 ? v : coef * (exp(v) - 1); d = v > 0 ? 1 : coef * exp(v); break;
            }
            want[i] = r;
            gw[i] = gdy[i] * d;
        }
        CHECK_MSG(np_err(post, want, 120) <= 1e-5, "activation %d forward", mi);
        CHECK_OK(cudnnNormalizationBackward(H, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM_ACTIVATION, CUDNN_NORM_ALGO_STANDARD,
                                            &one, &zero, &one, &zero, g2.X.d, g2.X.buf, g2.Y2.d, g2.Y2.buf, g2.DY.d, g2.DY.buf,
                                            NULL, NULL, g2.DX.d, g2.DX.buf, g2.P.d, g2.P.buf, g2.B.buf, g2.DS.buf, g2.DB.buf,
                                            1e-5, g2.SM.d, g2.SM.buf, g2.SI.buf, act, NULL, 0, res, sizeof res, 1));
        tens_put(&g2.DY, gw);
        CHECK_OK(cudnnBatchNormalizationBackward(H, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, g2.X.d, g2.X.buf,
                                                 g2.DY.d, g2.DY.buf, g2.DX2.d, g2.DX2.buf, g2.P.d, g2.P.buf, g2.DS2.buf,
                                                 g2.DB2.buf, 1e-5, g2.SM.buf, g2.SI.buf));
        tens_get(&g2.DX, dx);
        tens_get(&g2.DX2, dx2);
        CHECK_MSG(np_err(dx, dx2, 120) <= 1e-4, "activation %d backward", mi);
        fix_free(&g2);
    }
    tens_free(&Z);
    tens_free(&DZ);
    fix_free(&f);
    cudnnDestroyActivationDescriptor(act);
}

/* Training + backward on a tensor with several reduction chunks per channel; returns the
 * concatenated float outputs. */
#define DN 300
#define DC 3
#define DS 100
#define DOUT (2 * DN * DC * DS + 4 * DC)
static void run_big_t(cudnnHandle_t h, int layout, cudnnDataType_t t, float *out)
{
    int d[4] = {DN, DC, 10, 10};
    tens X, Y, DY, DX, P, B, SM, SI, dS, dB;
    tens_make(&X, t, 4, d, layout);
    tens_make(&Y, t, 4, d, layout);
    tens_make(&DY, t, 4, d, layout);
    tens_make(&DX, t, 4, d, layout);
    tens *ps[] = {&P, &B, &SM, &SI, &dS, &dB};
    for (int i = 0; i < 6; i++)
        make_param(ps[i], &X, 0, 0);
    long long M = (long long)DN * DC * DS;
    double *v = malloc(sizeof(double) * M);
    np_seed = 7;
    for (long long i = 0; i < M; i++)
        v[i] = t == CUDNN_DATA_FLOAT ? np_rand() * 1.37 + 100.0   /* a large mean: the variance must not cancel */
                                     : np_rand() + 4.0;
    tens_put(&X, v);
    np_fill(v, M, CUDNN_DATA_FLOAT);
    tens_put(&DY, v);
    double pv[DC] = {1.5, -0.5, 2};
    tens_put(&P, pv);
    tens_put(&B, pv);
    float one = 1, zero = 0;
    cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, X.d, X.buf, Y.d, Y.buf, P.d, P.buf, B.buf,
                                           1.0, NULL, NULL, 1e-5, SM.buf, SI.buf);
    cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, X.d, X.buf, DY.d, DY.buf, DX.d,
                                    DX.buf, P.d, P.buf, dS.buf, dB.buf, 1e-5, NULL, NULL);
    double *g = malloc(sizeof(double) * M);
    tens_get(&Y, g);
    for (long long i = 0; i < M; i++)
        out[i] = (float)g[i];
    tens_get(&DX, g);
    for (long long i = 0; i < M; i++)
        out[M + i] = (float)g[i];
    tens *pp[] = {&SM, &SI, &dS, &dB};
    for (int k = 0; k < 4; k++) {
        tens_get(pp[k], g);
        for (int c = 0; c < DC; c++)
            out[2 * M + k * DC + c] = (float)g[c];
    }
    free(v); free(g);
    tens_free(&X); tens_free(&Y); tens_free(&DY); tens_free(&DX);
    for (int i = 0; i < 6; i++)
        tens_free(ps[i]);
}

static void run_big(cudnnHandle_t h, int layout, float *out) { run_big_t(h, layout, CUDNN_DATA_FLOAT, out); }

static void determinism(void)
{
    SECTION("bn threads");
    static float o1[DOUT], o2[DOUT], o3[DOUT];
    for (int layout = 0; layout < 2; layout++) {
        cudnnHandle_t h1, h3, h4;
        setenv("HOSTDNN_NUM_THREADS", "1", 1);
        cudnnCreate(&h1);
        setenv("HOSTDNN_NUM_THREADS", "3", 1);
        cudnnCreate(&h3);
        setenv("HOSTDNN_NUM_THREADS", "4", 1);
        cudnnCreate(&h4);
        run_big(h1, layout, o1);
        run_big(h3, layout, o2);
        run_big(h4, layout, o3);
        CHECK_MSG(memcmp(o1, o2, sizeof o1) == 0, "1 vs 3 threads, layout %d", layout);
        CHECK_MSG(memcmp(o1, o3, sizeof o1) == 0, "1 vs 4 threads, layout %d", layout);
        /* the statistics are right despite the large mean */
        CHECK(fabs(o1[2 * DN * DC * DS] - 100.0) < 0.1);
        cudnnDestroy(h1);
        cudnnDestroy(h3);
        cudnnDestroy(h4);
    }
}

/* Each ISA cap in a fresh child.  Row kernels (NCHW) sum in a different order per ISA: close;
 * column kernels (NHWC) sum each channel in row order: bitwise equal. */
static void isa_children(void)
{
    SECTION("bn ISA caps");
    const char *caps[3] = {"scalar", "avx2", "avx512"};
    size_t bytes = sizeof(float) * 3 * 6 * DOUT;
    float *sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        CHECK(0);
        return;
    }
    for (int i = 0; i < 3; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("HOSTDNN_MAX_ISA", caps[i], 1);
            cudnnHandle_t h;
            cudnnCreate(&h);
            run_big(h, L_NCHW, sh + (size_t)(2 * i) * DOUT);
            run_big(h, L_NHWC, sh + (size_t)(2 * i + 1) * DOUT);
            run_big_t(h, L_NCHW, CUDNN_DATA_HALF, sh + (size_t)(6 + 2 * i) * DOUT);
            run_big_t(h, L_NCHW, CUDNN_DATA_BFLOAT16, sh + (size_t)(6 + 2 * i + 1) * DOUT);
            run_big_t(h, L_NHWC, CUDNN_DATA_HALF, sh + (size_t)(12 + 2 * i) * DOUT);
            run_big_t(h, L_NHWC, CUDNN_DATA_BFLOAT16, sh + (size_t)(12 + 2 * i + 1) * DOUT);
            cudnnDestroy(h);
            _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    for (int i = 1; i < 3; i++) {
        double e = 0;
        for (int k = 0; k < DOUT; k++) {
            double a = sh[(size_t)(2 * i) * DOUT + k], b = sh[k];
            double d = fabs(a - b) / (fabs(b) > 1 ? fabs(b) : 1);
            if (!(d <= e))
                e = d;
        }
        CHECK_MSG(e <= 1e-4, "%s vs scalar (NCHW): %g", caps[i], e);
        CHECK_MSG(memcmp(sh + (size_t)(2 * i + 1) * DOUT, sh + DOUT, sizeof(float) * DOUT) == 0, "%s vs scalar (NHWC)",
                  caps[i]);
        /* 16-bit storage through the conversion kernels: within one rounding of the type */
        for (int k16 = 0; k16 < 2; k16++) {
            const float *a = sh + (size_t)(6 + 2 * i + k16) * DOUT, *b = sh + (size_t)(6 + k16) * DOUT;
            double worst = 0;
            for (int k = 0; k < DOUT; k++) {
                double dd = fabs((double)a[k] - b[k]) / (fabs(b[k]) > 1 ? fabs(b[k]) : 1);
                if (!(dd <= worst))
                    worst = dd;
            }
            CHECK_MSG(worst <= (k16 ? 1.6e-2 : 2e-3), "%s vs scalar (%s): %g", caps[i], k16 ? "bf16" : "half", worst);
        }
        /* channel-contiguous 16-bit: column kernels and exact conversions, bitwise */
        CHECK_MSG(memcmp(sh + (size_t)(12 + 2 * i) * DOUT, sh + (size_t)12 * DOUT, sizeof(float) * 2 * DOUT) == 0,
                  "%s vs scalar (NHWC half/bf16)", caps[i]);
    }
    /* streaming stores forced for every size (the threshold is read once per process, so in a
     * fresh child): bitwise the plain stores of the same ISA, NCHW rows (forward y, backward dx) */
    float *nt = mmap(NULL, sizeof(float) * 2 * DOUT, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (nt == MAP_FAILED) {
        CHECK(0);
        munmap(sh, bytes);
        return;
    }
    for (int i = 1; i < 3; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("HOSTDNN_MAX_ISA", caps[i], 1);
            setenv("HOSTDNN_STREAM_MIN_BYTES", "0", 1);
            cudnnHandle_t h;
            cudnnCreate(&h);
            run_big(h, L_NCHW, nt + (size_t)(i - 1) * DOUT);
            cudnnDestroy(h);
            _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        CHECK_MSG(memcmp(nt + (size_t)(i - 1) * DOUT, sh + (size_t)(2 * i) * DOUT, sizeof(float) * DOUT) == 0,
                  "%s streaming stores vs plain (NCHW)", caps[i]);
    }
    munmap(nt, sizeof(float) * 2 * DOUT);
    munmap(sh, bytes);
}

int main(void)
{
    isa_children();
    if (cudnnCreate(&H) != CUDNN_STATUS_SUCCESS)
        return 1;
    derive();
    bn_matrix();
    ex_and_norm_api();
    in_place();
    fused_activation();
    determinism();
    cudnnDestroy(H);
    return hd_test_finish();
}
