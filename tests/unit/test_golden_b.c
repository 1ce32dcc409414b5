/* Golden vectors from PyTorch (tests/golden/make_golden_b.py): batch-normalization running
 * statistics and saved inverse std-dev, LRN's alpha/n convention, average pooling with and
 * without padding, max pooling; in DOUBLE (tight) and FLOAT. */
#define _DEFAULT_SOURCE
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "unit/np_util.h"
#include "golden/golden_b.h"

static cudnnHandle_t H;

static double tol_of(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? 1e-12 : 2e-6; }

static void bn(cudnnDataType_t t)
{
    SECTION(t == CUDNN_DATA_DOUBLE ? "golden bn double" : "golden bn float");
    int d[4] = {GB_BN_N, GB_BN_C, GB_BN_H, GB_BN_W}, pd[4] = {1, GB_BN_C, 1, 1};
    tens X, Y, S, B, RM, RV, SM, SI;
    tens_make(&X, t, 4, d, L_NHWC);
    tens_make(&Y, t, 4, d, L_NCHW);
    tens *ps[] = {&S, &B, &RM, &RV, &SM, &SI};
    for (int i = 0; i < 6; i++)
        tens_make(ps[i], t, 4, pd, L_NCHW);
    tens_put(&X, gb_bn_x);
    tens_put(&S, gb_bn_scale);
    tens_put(&B, gb_bn_bias);
    tens_put(&RM, gb_bn_rm0);
    tens_put(&RV, gb_bn_rv0);
    np_scalar a, b;
    CHECK_OK(cudnnBatchNormalizationForwardTraining(H, CUDNN_BATCHNORM_SPATIAL, np_sc(&a, t, 1), np_sc(&b, t, 0), X.d, X.buf,
                                                    Y.d, Y.buf, S.d, S.buf, B.buf, GB_BN_FACTOR, RM.buf, RV.buf, GB_BN_EPS,
                                                    SM.buf, SI.buf));
    double y[GB_BN_N * GB_BN_C * GB_BN_H * GB_BN_W], p[GB_BN_C];
    tens_get(&Y, y);
    CHECK_MSG(np_err(y, gb_bn_y, GB_BN_N * GB_BN_C * GB_BN_H * GB_BN_W) <= tol_of(t) * 10, "y");
    tens_get(&RM, p);
    CHECK_MSG(np_err(p, gb_bn_rm, GB_BN_C) <= tol_of(t), "running mean");
    tens_get(&RV, p);
    CHECK_MSG(np_err(p, gb_bn_rv, GB_BN_C) <= tol_of(t), "running variance (unbiased)");
    tens_get(&SM, p);
    CHECK_MSG(np_err(p, gb_bn_save_mean, GB_BN_C) <= tol_of(t), "saved mean");
    tens_get(&SI, p);
    CHECK_MSG(np_err(p, gb_bn_save_invstd, GB_BN_C) <= tol_of(t), "saved inverse std-dev");
    tens_free(&X);
    tens_free(&Y);
    for (int i = 0; i < 6; i++)
        tens_free(ps[i]);
}

static void lrn(cudnnDataType_t t, unsigned n, double la, double lb, double lk, const double *want)
{
    SECTION("golden lrn");
    int d[4] = {GB_LRN_N, GB_LRN_C, GB_LRN_H, GB_LRN_W};
    tens X, Y;
    tens_make(&X, t, 4, d, L_NCHW);
    tens_make(&Y, t, 4, d, L_NCHW);
    tens_put(&X, gb_lrn_x);
    cudnnLRNDescriptor_t desc;
    cudnnCreateLRNDescriptor(&desc);
    CHECK_OK(cudnnSetLRNDescriptor(desc, n, la, lb, lk));
    np_scalar a, b;
    CHECK_OK(cudnnLRNCrossChannelForward(H, desc, CUDNN_LRN_CROSS_CHANNEL_DIM1, np_sc(&a, t, 1), X.d, X.buf, np_sc(&b, t, 0),
                                         Y.d, Y.buf));
    double y[GB_LRN_N * GB_LRN_C * GB_LRN_H * GB_LRN_W];
    tens_get(&Y, y);
    CHECK_MSG(np_err(y, want, GB_LRN_N * GB_LRN_C * GB_LRN_H * GB_LRN_W) <= tol_of(t) * 4, "lrn n=%u", n);
    cudnnDestroyLRNDescriptor(desc);
    tens_free(&X);
    tens_free(&Y);
}

static void pool(cudnnDataType_t t, cudnnPoolingMode_t mode, const double *want)
{
    SECTION("golden pooling");
    int d[4] = {GB_POOL_N, GB_POOL_C, GB_POOL_H, GB_POOL_W}, od[4];
    tens X, Y;
    tens_make(&X, t, 4, d, L_NCHW);
    tens_put(&X, gb_pool_x);
    cudnnPoolingDescriptor_t p;
    cudnnCreatePoolingDescriptor(&p);
    CHECK_OK(cudnnSetPooling2dDescriptor(p, mode, CUDNN_NOT_PROPAGATE_NAN, GB_POOL_WIN, GB_POOL_WIN, GB_POOL_PAD, GB_POOL_PAD,
                                         GB_POOL_STRIDE, GB_POOL_STRIDE));
    CHECK_OK(cudnnGetPooling2dForwardOutputDim(p, X.d, &od[0], &od[1], &od[2], &od[3]));
    CHECK(od[2] == GB_POOL_OH && od[3] == GB_POOL_OW);
    tens_make(&Y, t, 4, od, L_NCHW);
    np_scalar a, b;
    CHECK_OK(cudnnPoolingForward(H, p, np_sc(&a, t, 1), X.d, X.buf, np_sc(&b, t, 0), Y.d, Y.buf));
    double y[GB_POOL_N * GB_POOL_C * GB_POOL_OH * GB_POOL_OW];
    tens_get(&Y, y);
    CHECK_MSG(np_err(y, want, GB_POOL_N * GB_POOL_C * GB_POOL_OH * GB_POOL_OW) <= tol_of(t), "pool mode %d", (int)mode);
    cudnnDestroyPoolingDescriptor(p);
    tens_free(&X);
    tens_free(&Y);
}

int main(void)
{
    if (cudnnCreate(&H) != CUDNN_STATUS_SUCCESS)
        return 1;
    cudnnDataType_t types[2] = {CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT};
    for (int i = 0; i < 2; i++) {
        bn(types[i]);
        lrn(types[i], GB_LRN0_PARAMS, gb_lrn0_y);
        lrn(types[i], GB_LRN1_PARAMS, gb_lrn1_y);
        pool(types[i], CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, gb_pool_avg_incl);
        pool(types[i], CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, gb_pool_avg_excl);
        pool(types[i], CUDNN_POOLING_MAX, gb_pool_max);
        pool(types[i], CUDNN_POOLING_MAX_DETERMINISTIC, gb_pool_max);
    }
    cudnnDestroy(H);
    return hd_test_finish();
}
