/* Batch normalization on edge input: bad arguments (documented status, outputs untouched)
 * and statistics of data with a large mean and a small variance (no cancellation).  The
 * main batch-normalization checks are in test_batchnorm.c. */
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "unit/bn_fixture.h"

static cudnnHandle_t H;

static void bad_input(void)
{
    SECTION("bn bad input");
    fixture f;
    fix_make(&f, CUDNN_DATA_FLOAT, 0);
    memset(f.Y.buf, 0x33, f.Y.bytes);
    memcpy(f.Y2.buf, f.Y.buf, f.Y.bytes);
    float one = 1, zero = 0;
    cudnnBatchNormMode_t m = CUDNN_BATCHNORM_SPATIAL;
#define TRAIN(h, mode, x, y, p, eps, rm, rv, sm, si) \
    cudnnBatchNormalizationForwardTraining(h, mode, &one, &zero, x, f.X.buf, y, f.Y.buf, p, f.P.buf, f.B.buf, 0.5, rm, rv, eps, sm, si)
    CHECK_STATUS(TRAIN(NULL, m, f.X.d, f.Y.d, f.P.d, 1e-5, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(TRAIN(H, (cudnnBatchNormMode_t)99, f.X.d, f.Y.d, f.P.d, 1e-5, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(TRAIN(H, m, f.X.d, f.Y.d, f.P.d, -1.0, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(TRAIN(H, m, f.X.d, f.Y.d, f.P.d, 1e-5, f.RM.buf, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(TRAIN(H, m, f.X.d, f.Y.d, f.P.d, 1e-5, NULL, NULL, NULL, f.SI.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationForwardTraining(H, m, &one, &zero, f.X.d, f.X.buf, f.Y.d, f.Y.buf, f.P.d, f.P.buf,
                                                        f.B.buf, NAN, f.RM.buf, f.RV.buf, 1e-5, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    /* per-activation parameters with spatial mode */
    tens PA;
    make_param(&PA, &f.X, 1, 0);
    CHECK_STATUS(TRAIN(H, m, f.X.d, f.Y.d, PA.d, 1e-5, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    /* half parameters */
    tens PH;
    int pd[4] = {1, 3, 1, 1};
    tens_make(&PH, CUDNN_DATA_HALF, 4, pd, L_NCHW);
    CHECK_STATUS(TRAIN(H, m, f.X.d, f.Y.d, PH.d, 1e-5, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    /* y of other dims, other type; 3-d x; unset and destroyed descriptors */
    tens Yb, Yh, X3;
    int yd[4] = {2, 3, 4, 6}, d3[3] = {2, 3, 20};
    tens_make(&Yb, CUDNN_DATA_FLOAT, 4, yd, L_NCHW);
    tens_make(&Yh, CUDNN_DATA_HALF, 4, f.X.dims, L_NCHW);
    tens_make(&X3, CUDNN_DATA_FLOAT, 3, d3, L_NCHW);
    CHECK_STATUS(TRAIN(H, m, f.X.d, Yb.d, f.P.d, 1e-5, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(TRAIN(H, m, f.X.d, Yh.d, f.P.d, 1e-5, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(TRAIN(H, m, X3.d, X3.d, f.P.d, 1e-5, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t unset;
    cudnnCreateTensorDescriptor(&unset);
    CHECK_STATUS(TRAIN(H, m, f.X.d, f.Y.d, unset, 1e-5, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(TRAIN(H, m, f.X.d, f.Y.d, (cudnnTensorDescriptor_t)H, 1e-5, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK(memcmp(f.Y.buf, f.Y2.buf, f.Y.bytes) == 0);
    CHECK_STATUS(cudnnBatchNormalizationForwardInference(H, m, &one, &zero, f.X.d, f.X.buf, f.Y.d, f.Y.buf, f.P.d, f.P.buf,
                                                         f.B.buf, NULL, f.RV.buf, 1e-5), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationForwardInference(H, m, &one, &zero, f.X.d, f.X.buf, f.Y.d, f.Y.buf, f.P.d, f.P.buf,
                                                         f.B.buf, f.RM.buf, f.RV.buf, -0.5), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationBackward(H, m, &one, &zero, &one, &zero, f.X.d, f.X.buf, f.DY.d, f.DY.buf, f.DX.d,
                                                 f.DX.buf, f.P.d, f.P.buf, f.DS.buf, NULL, 1e-5, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationBackward(H, m, &one, &zero, &one, &zero, f.X.d, f.X.buf, f.DY.d, f.DY.buf, f.DX.d,
                                                 f.DX.buf, f.P.d, f.P.buf, f.DS.buf, f.DB.buf, 1e-5, f.SM.buf, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBatchNormalizationBackward(H, m, &one, &zero, &one, &zero, f.X.d, f.X.buf, f.DY.d, f.DY.buf, Yb.d,
                                                 f.DX.buf, f.P.d, f.P.buf, f.DS.buf, f.DB.buf, 1e-5, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnNormalizationForwardTraining(H, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, (cudnnNormAlgo_t)5, &one,
                                                   &zero, f.X.d, f.X.buf, f.P.d, f.P.buf, f.B.buf, 1.0, f.RM.d, NULL, NULL,
                                                   1e-5, NULL, NULL, NULL, NULL, NULL, f.Y.d, f.Y.buf, NULL, 0, NULL, 0, 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnNormalizationForwardTraining(H, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD,
                                                   &one, &zero, f.X.d, f.X.buf, f.P.d, f.P.buf, f.B.buf, 1.0, f.RM.d, NULL,
                                                   NULL, 1e-5, NULL, NULL, NULL, NULL, NULL, f.Y.d, f.Y.buf, NULL, 0, NULL, 0,
                                                   3), CUDNN_STATUS_NOT_SUPPORTED);
    /* ADD without z */
    CHECK_STATUS(cudnnNormalizationForwardInference(H, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM_ADD_ACTIVATION,
                                                    CUDNN_NORM_ALGO_STANDARD, &one, &zero, f.X.d, f.X.buf, f.P.d, f.P.buf,
                                                    f.B.buf, f.RM.d, f.RM.buf, f.RV.buf, NULL, NULL, NULL, f.Y.d, f.Y.buf,
                                                    1e-5, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK(memcmp(f.Y.buf, f.Y2.buf, f.Y.bytes) == 0);
    /* int8 data is not normalized */
    tens Xi;
    tens_make(&Xi, CUDNN_DATA_INT8, 4, f.X.dims, L_NCHW);
    CHECK_STATUS(cudnnBatchNormalizationForwardInference(H, m, &one, &zero, Xi.d, Xi.buf, Xi.d, Xi.buf, f.P.d, f.P.buf,
                                                         f.B.buf, f.RM.buf, f.RV.buf, 1e-5), CUDNN_STATUS_NOT_SUPPORTED);
#undef TRAIN
    cudnnDestroyTensorDescriptor(unset);
    tens_free(&PA); tens_free(&PH); tens_free(&Yb); tens_free(&Yh); tens_free(&X3); tens_free(&Xi);
    fix_free(&f);
}

/* One-pass statistics (shifted sums) against the float64 reference on data whose mean is
 * large next to its spread, where sum-of-squares formulas cancel: mean 1e4 with standard
 * deviation 0.05 (float spacing there is 1e-3), in NCHW (row kernels) and NHWC (column
 * kernels), with shapes giving several chunks per channel, vector tails, N = 1 and C = 1;
 * then the same data with the channel's first element made an outlier (the shift is far
 * from the data: the exact two-pass fallback), and a channel whose samples drift. */
static void large_mean(void)
{
    SECTION("bn statistics: large mean, small variance");
    static const int shapes[][4] = {{300, 3, 10, 10}, {4, 2, 37, 5}, {1, 1, 9, 13}, {64, 1, 1, 300}};
    for (int si = 0; si < 4; si++)
        for (int layout = 0; layout < 2; layout++)
            for (int kind = 0; kind < 3; kind++) {
                const int *d = shapes[si];
                int N = d[0], C = d[1], S = d[2] * d[3];
                tens X, Y, P, B, RM, RV, SM, SI;
                tens_make(&X, CUDNN_DATA_FLOAT, 4, d, layout ? L_NHWC : L_NCHW);
                tens_make(&Y, CUDNN_DATA_FLOAT, 4, d, layout ? L_NHWC : L_NCHW);
                tens *ps[] = {&P, &B, &RM, &RV, &SM, &SI};
                for (int i = 0; i < 6; i++)
                    make_param(ps[i], &X, 0, 0);
                long long M = (long long)N * C * S;
                double *v = malloc(sizeof(double) * M), *e = malloc(sizeof(double) * M), *g = malloc(sizeof(double) * M);
                np_seed = (uint32_t)(11 + si + 5 * kind);
                for (long long i = 0; i < M; i++) {
                    long long c = (i / S) % C, n = i / ((long long)S * C);
                    v[i] = 1e4 * (1 + (double)c) + 0.05 * np_rand() / 4.0;
                    if (kind == 2)
                        v[i] += 0.02 * (double)n;    /* drift across the batch */
                }
                if (kind == 1)
                    for (int c = 0; c < C; c++)
                        v[(long long)c * S] += 500.0;   /* the first element of each channel (n = 0, s = 0) */
                tens_put(&X, v);
                tens_get(&X, v);                 /* the float values actually stored */
                double pv[3] = {1.5, -0.5, 2};
                double *pc = malloc(sizeof(double) * C), *bc = malloc(sizeof(double) * C);
                for (int c = 0; c < C; c++)
                    pc[c] = pv[c % 3], bc[c] = pv[(c + 1) % 3];
                tens_put(&P, pc);
                tens_put(&B, bc);
                double *z = calloc((size_t)C, sizeof(double)), *o = malloc(sizeof(double) * C);
                for (int c = 0; c < C; c++)
                    o[c] = 1;
                tens_put(&RM, z);
                tens_put(&RV, o);
                float one = 1, zero = 0;
                double eps = 1e-9;
                CHECK_OK(cudnnBatchNormalizationForwardTraining(H, CUDNN_BATCHNORM_SPATIAL, &one, &zero, X.d, X.buf, Y.d,
                                                                Y.buf, P.d, P.buf, B.buf, 1.0, RM.buf, RV.buf, eps,
                                                                SM.buf, SI.buf));
                /* NCHW order for the reference */
                double *xr = malloc(sizeof(double) * M), *mean = malloc(sizeof(double) * C),
                       *var = malloc(sizeof(double) * C);
                for (long long i = 0; i < M; i++)
                    xr[i] = v[i];
                ref_bn_stats(0, N, C, S, xr, mean, var);
                ref_bn_fwd(0, N, C, S, xr, pc, bc, mean, var, eps, e);
                double rm[64], rv[64], sm[64], sinv[64];
                tens_get(&RM, rm);
                tens_get(&RV, rv);
                tens_get(&SM, sm);
                tens_get(&SI, sinv);
                double wm = 0, wv = 0, wi = 0, wy = 0;
                for (int c = 0; c < C; c++) {
                    double unb = var[c] * (double)(N * S) / (double)(N * S - 1);
                    wm = fmax(wm, fabs(rm[c] - mean[c]) / fabs(mean[c]));
                    wm = fmax(wm, fabs(sm[c] - mean[c]) / fabs(mean[c]));
                    wv = fmax(wv, fabs(rv[c] - unb) / unb);
                    wi = fmax(wi, fabs(sinv[c] - 1 / sqrt(var[c] + eps)) * sqrt(var[c] + eps));
                }
                tens_get(&Y, g);
                for (long long i = 0; i < M; i++)
                    wy = fmax(wy, fabs(g[i] - e[i]) / (1 + fabs(e[i])));
                /* float outputs: one rounding (6e-8) plus a little; a cancelling formula would be off by
                 * 1e-2 or more here */
                CHECK_MSG(wm <= 1e-7 && wv <= 1e-6 && wi <= 1e-6 && wy <= 1e-5,
                          "shape %d layout %d kind %d: mean %g var %g inv %g y %g", si, layout, kind, wm, wv, wi, wy);
                /* backward from the saved statistics: dx = p dy + q (x - mean) + r must not cancel either */
                tens DY, DX, DS, DB;
                tens_make(&DY, CUDNN_DATA_FLOAT, 4, d, layout ? L_NHWC : L_NCHW);
                tens_make(&DX, CUDNN_DATA_FLOAT, 4, d, layout ? L_NHWC : L_NCHW);
                make_param(&DS, &X, 0, 0);
                make_param(&DB, &X, 0, 0);
                np_fill(e, M, CUDNN_DATA_FLOAT);
                tens_put(&DY, e);
                tens_get(&DY, e);
                CHECK_OK(cudnnBatchNormalizationBackward(H, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, X.d, X.buf,
                                                         DY.d, DY.buf, DX.d, DX.buf, P.d, P.buf, DS.buf, DB.buf, eps,
                                                         SM.buf, SI.buf));
                double *dxr = malloc(sizeof(double) * M), ds[64], db[64], dsr[64], dbr[64];
                ref_bn_bwd(0, N, C, S, xr, e, pc, sm, sinv, dxr, dsr, dbr);   /* from the saved (float) statistics */
                tens_get(&DX, g);
                tens_get(&DS, ds);
                tens_get(&DB, db);
                double wdx = 0, wdx_scale = 0, wds = 0;
                for (long long i = 0; i < M; i++)
                    wdx_scale = fmax(wdx_scale, fabs(dxr[i]));
                for (long long i = 0; i < M; i++)
                    wdx = fmax(wdx, fabs(g[i] - dxr[i]) / wdx_scale);
                for (int c = 0; c < C; c++)
                    wds = fmax(wds, fmax(fabs(ds[c] - dsr[c]) / (1 + fabs(dsr[c])), fabs(db[c] - dbr[c]) / (1 + fabs(dbr[c]))));
                CHECK_MSG(wdx <= 1e-5 && wds <= 1e-5, "backward shape %d layout %d kind %d: dx %g dscale/dbias %g", si,
                          layout, kind, wdx, wds);
                /* without saved statistics: NCHW FLOAT computes them with the sums in one pass over x and
                 * dy (kind 1 cancels there and takes the separate passes) */
                CHECK_OK(cudnnBatchNormalizationBackward(H, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, X.d, X.buf,
                                                         DY.d, DY.buf, DX.d, DX.buf, P.d, P.buf, DS.buf, DB.buf, eps,
                                                         NULL, NULL));
                double inv2[64];
                for (int c = 0; c < C; c++)
                    inv2[c] = 1 / sqrt(var[c] + eps);
                ref_bn_bwd(0, N, C, S, xr, e, pc, mean, inv2, dxr, dsr, dbr);
                tens_get(&DX, g);
                tens_get(&DS, ds);
                tens_get(&DB, db);
                wdx = wdx_scale = wds = 0;
                for (long long i = 0; i < M; i++)
                    wdx_scale = fmax(wdx_scale, fabs(dxr[i]));
                for (long long i = 0; i < M; i++)
                    wdx = fmax(wdx, fabs(g[i] - dxr[i]) / wdx_scale);
                for (int c = 0; c < C; c++)
                    wds = fmax(wds, fmax(fabs(ds[c] - dsr[c]) / (1 + fabs(dsr[c])), fabs(db[c] - dbr[c]) / (1 + fabs(dbr[c]))));
                CHECK_MSG(wdx <= 1e-5 && wds <= 1e-5, "backward (no saved stats) shape %d layout %d kind %d: dx %g ds/db %g",
                          si, layout, kind, wdx, wds);
                free(dxr);
                tens_free(&DY); tens_free(&DX); tens_free(&DS); tens_free(&DB);
                free(v); free(e); free(g); free(xr); free(mean); free(var); free(pc); free(bc); free(z); free(o);
                tens_free(&X); tens_free(&Y);
                for (int i = 0; i < 6; i++)
                    tens_free(ps[i]);
            }
}

int main(void)
{
    if (cudnnCreate(&H) != CUDNN_STATUS_SUCCESS)
        return 1;
    bad_input();
    large_mean();
    cudnnDestroy(H);
    return hd_test_finish();
}
