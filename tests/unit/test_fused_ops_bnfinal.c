/*
 * cudnnMakeFusedOpsPlan / cudnnFusedOpsExecute for the BN finalize ops (2: training, 3:
 * inference) against their formulas, with eqScale/eqBias in HALF and in FLOAT, and ops 4-6,
 * which hostdnn does not implement (NOT_SUPPORTED, workspace size untouched).  The
 * convolution ops are in test_fused_ops_exec.c.
 */
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "harness.h"
#include "unit/fused_ops_util.h"

static cudnnHandle_t h;

/* ---- ops 2 / 3: BN finalize ---- */

static void bn_finalize(int train, cudnnDataType_t eqtype)
{
    enum { C = 5 };
    const int64_t count = 24;
    const double eps = 1e-3, f = 0.25;
    float ysum[C], ysq[C], scale[C], bias[C], rmean[C], rvar[C], smean[C], sinv[C];
    uint16_t eqh[2][C];
    float eqf[2][C];
    for (int c = 0; c < C; c++) {
        double mean = 0.25 * c - 0.5, var = 0.5 + 0.125 * c;
        ysum[c] = (float)(mean * count);
        ysq[c] = (float)((var + mean * mean) * count);
        scale[c] = (float)(1.0 + 0.5 * c);
        bias[c] = (float)(0.25 - 0.125 * c);
        rmean[c] = (float)(0.1 * c);
        rvar[c] = (float)(1.0 + 0.2 * c);
        smean[c] = sinv[c] = NAN;
    }
    float rmean0[C], rvar0[C];
    memcpy(rmean0, rmean, sizeof rmean);
    memcpy(rvar0, rvar, sizeof rvar);
    void *eqs = eqtype == CUDNN_DATA_HALF ? (void *)eqh[0] : (void *)eqf[0];
    void *eqb = eqtype == CUDNN_DATA_HALF ? (void *)eqh[1] : (void *)eqf[1];

    cudnnFusedOps_t op = train ? CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING : CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE;
    cudnnTensorDescriptor_t mv, eqd;
    cudnnCreateTensorDescriptor(&mv);
    cudnnCreateTensorDescriptor(&eqd);
    cudnnSetTensor4dDescriptor(mv, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 1, C, 1, 1);
    cudnnSetTensor4dDescriptor(eqd, CUDNN_TENSOR_NHWC, eqtype, 1, C, 1, 1);
    cudnnFusedOpsConstParamPack_t p;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&p, op));
    cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
    set_c(p, CUDNN_PARAM_BN_MODE, &mode);
    set_c(p, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, mv);
    set_c(p, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqd);
    set_ph(p, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    set_ph(p, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    set_ph(p, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    set_ph(p, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    set_ph(p, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    set_ph(p, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    if (train) {
        set_c(p, CUDNN_PARAM_YSTATS_DESC, mv);
        set_ph(p, CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
        set_ph(p, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
        set_ph(p, CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
        set_ph(p, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    }
    cudnnFusedOpsPlan_t plan;
    CHECK_OK(cudnnCreateFusedOpsPlan(&plan, op));
    size_t ws = 99;
    CHECK_OK(cudnnMakeFusedOpsPlan(h, plan, p, &ws));
    CHECK_EQ_INT(ws, 0);

    cudnnFusedOpsVariantParamPack_t v;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&v, op));
    set_v(v, CUDNN_PTR_BN_SCALE, scale);
    set_v(v, CUDNN_PTR_BN_BIAS, bias);
    set_v(v, CUDNN_PTR_BN_RUNNING_MEAN, rmean);
    set_v(v, CUDNN_PTR_BN_RUNNING_VAR, rvar);
    set_v(v, CUDNN_PTR_BN_EQSCALE, eqs);
    set_v(v, CUDNN_PTR_BN_EQBIAS, eqb);
    double e = eps;
    set_v(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &e);
    if (train) {
        int64_t n = count;
        double ff = f;
        set_v(v, CUDNN_PTR_YSUM, ysum);
        set_v(v, CUDNN_PTR_YSQSUM, ysq);
        set_v(v, CUDNN_PTR_BN_SAVED_MEAN, smean);
        set_v(v, CUDNN_PTR_BN_SAVED_INVSTD, sinv);
        set_v(v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &n);
        set_v(v, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &ff);
        /* A zero count is refused before anything is written. */
        int64_t zero = 0;
        set_v(v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &zero);
        CHECK_STATUS(cudnnFusedOpsExecute(h, plan, v), CUDNN_STATUS_BAD_PARAM);
        CHECK(isnan(smean[0]) && rmean[1] == rmean0[1]);
        set_v(v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &n);
    }
    double neg = -1;
    set_v(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &neg);
    CHECK_STATUS(cudnnFusedOpsExecute(h, plan, v), CUDNN_STATUS_BAD_PARAM);
    CHECK(rmean[1] == rmean0[1]);
    set_v(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &e);
    set_v(v, CUDNN_PTR_BN_SCALE, NULL);
    CHECK_STATUS(cudnnFusedOpsExecute(h, plan, v), CUDNN_STATUS_BAD_PARAM);
    set_v(v, CUDNN_PTR_BN_SCALE, (char *)scale + 1);   /* not element aligned */
    CHECK_STATUS(cudnnFusedOpsExecute(h, plan, v), CUDNN_STATUS_BAD_PARAM);
    CHECK(rmean[1] == rmean0[1]);
    set_v(v, CUDNN_PTR_BN_SCALE, scale);
    CHECK_OK(cudnnFusedOpsExecute(h, plan, v));

    double tol = eqtype == CUDNN_DATA_HALF ? 2e-3 : 1e-6;
    for (int c = 0; c < C; c++) {
        double mean, var, inv;
        if (train) {
            mean = (double)ysum[c] / count;
            var = (double)ysq[c] / count - mean * mean;
        } else {
            mean = rmean0[c];
            var = rvar0[c];
        }
        inv = 1 / sqrt(var + eps);
        double es = scale[c] * inv, eb = bias[c] - mean * es;
        double gs = eqtype == CUDNN_DATA_HALF ? from_half(eqh[0][c]) : eqf[0][c];
        double gb = eqtype == CUDNN_DATA_HALF ? from_half(eqh[1][c]) : eqf[1][c];
        CHECK_NEAR(gs, es, tol * (1 + fabs(es)));
        CHECK_NEAR(gb, eb, tol * (1 + fabs(eb)));
        if (train) {
            CHECK_NEAR(smean[c], mean, 1e-6);
            CHECK_NEAR(sinv[c], inv, 1e-5);
            CHECK_NEAR(rmean[c], (1 - f) * rmean0[c] + f * mean, 1e-6);
            CHECK_NEAR(rvar[c], (1 - f) * rvar0[c] + f * var * count / (count - 1), 1e-5);
        } else {
            CHECK(rmean[c] == rmean0[c] && rvar[c] == rvar0[c]);
        }
    }
    cudnnDestroyFusedOpsVariantParamPack(v);

    /* Bad packs. */
    size_t keep = 555;
    set_c(p, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, NULL);
    CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, p, &keep), CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 1, C, 1, 1);
    set_c(p, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, t);     /* must be FLOAT */
    CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, p, &keep), CUDNN_STATUS_BAD_PARAM);
    set_c(p, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, mv);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, eqtype, 1, C + 1, 1, 1);
    set_c(p, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, t);           /* channel count differs */
    CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, p, &keep), CUDNN_STATUS_BAD_PARAM);
    set_c(p, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqd);
    set_ph(p, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_NULL);
    CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, p, &keep), CUDNN_STATUS_BAD_PARAM);   /* mean without var */
    set_ph(p, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    cudnnBatchNormMode_t pa = CUDNN_BATCHNORM_PER_ACTIVATION;
    set_c(p, CUDNN_PARAM_BN_MODE, &pa);
    CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, p, &keep), CUDNN_STATUS_NOT_SUPPORTED);
    set_c(p, CUDNN_PARAM_BN_MODE, &mode);
    if (train) {
        set_c(p, CUDNN_PARAM_YSTATS_DESC, NULL);
        CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, p, &keep), CUDNN_STATUS_BAD_PARAM);
        set_c(p, CUDNN_PARAM_YSTATS_DESC, mv);
        set_ph(p, CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_NULL);
        CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, p, &keep), CUDNN_STATUS_BAD_PARAM);
    }
    CHECK_EQ_INT(keep, 555);
    cudnnDestroyTensorDescriptor(t);
    cudnnDestroyFusedOpsConstParamPack(p);
    CHECK_OK(cudnnDestroyFusedOpsPlan(plan));
    cudnnDestroyTensorDescriptor(mv);
    cudnnDestroyTensorDescriptor(eqd);
}

static void bn_ops(void)
{
    SECTION("op 2 BN_FINALIZE_STATISTICS_TRAINING");
    bn_finalize(1, CUDNN_DATA_HALF);
    bn_finalize(1, CUDNN_DATA_FLOAT);
    SECTION("op 3 BN_FINALIZE_STATISTICS_INFERENCE");
    bn_finalize(0, CUDNN_DATA_HALF);
    bn_finalize(0, CUDNN_DATA_FLOAT);
}


static void unimplemented(void)
{
    SECTION("ops 4-6 NOT_SUPPORTED");
    for (int op = 4; op < 7; op++) {
        cudnnFusedOpsConstParamPack_t p;
        cudnnFusedOpsVariantParamPack_t v;
        cudnnFusedOpsPlan_t plan;
        CHECK_OK(cudnnCreateFusedOpsConstParamPack(&p, (cudnnFusedOps_t)op));
        CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&v, (cudnnFusedOps_t)op));
        CHECK_OK(cudnnCreateFusedOpsPlan(&plan, (cudnnFusedOps_t)op));
        size_t ws = 3;
        CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, p, &ws), CUDNN_STATUS_NOT_SUPPORTED);
        CHECK_EQ_INT(ws, 3);
        CHECK_STATUS(cudnnFusedOpsExecute(h, plan, v), CUDNN_STATUS_NOT_SUPPORTED);
        cudnnDestroyFusedOpsPlan(plan);
        cudnnDestroyFusedOpsVariantParamPack(v);
        cudnnDestroyFusedOpsConstParamPack(p);
    }
}


int main(void)
{
    CHECK_OK(cudnnCreate(&h));
    bn_ops();
    unimplemented();
    cudnnDestroy(h);
    return hd_test_finish();
}
