/* Fused-ops parameter packs and plans: label tables per op, round trips, bad input. */
#include <cudnn.h>
#include <stdint.h>
#include "harness.h"

/* Which labels each op takes (what cuDNN 9 accepts; see docs/fused-ops.md). */
static const int const_ok[7][40] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 18, -1},
    {0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 14, 15, -1},
    {2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1},
    {2, 3, 4, 5, 19, 20, 21, 24, 25, -1},
    {0, 1, 3, 4, 6, 7, 8, 9, 12, 13, 26, 27, 28, 29, 30, -1},
    {0, 1, 2, 3, 4, 5, 6, 12, 13, 26, 27, 28, 29, 30, 31, 32, -1},
    {0, 1, 2, 6, 14, 15, 19, 20, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 38, -1},
};
static const int var_ok[7][32] = {
    {0, 1, 2, 3, 5, 7, 8, 9, 100, -1},
    {0, 1, 2, 4, 6, 9, 100, -1},
    {1, 2, 7, 8, 9, 10, 11, 12, 13, 14, 15, 100, 101, 102, 103, -1},
    {1, 2, 9, 10, 11, 14, 15, 100, 103, -1},
    {0, 1, 3, 5, 9, 16, 17, 18, 100, -1},
    {0, 1, 2, 5, 9, 16, 17, 18, 19, 100, -1},
    {0, 6, 9, 10, 11, 12, 13, 19, 20, 21, 22, 23, 100, 103, -1},
};

static int listed(const int *l, int v)
{
    for (; *l >= 0; l++)
        if (*l == v)
            return 1;
    return 0;
}

static int is_tensor_label(int l)
{
    static const int t[] = {0, 3, 12, 14, 16, 19, 26, 28, 31, 33, 35, -1};
    return listed(t, l);
}

static cudnnTensorDescriptor_t tdesc;
static cudnnFilterDescriptor_t fdesc;
static cudnnConvolutionDescriptor_t cdesc;      /* NULL when the convolution developer's code is absent */
static cudnnActivationDescriptor_t adesc;       /* likewise */

/* A valid argument for constant label L, or NULL when we have no such descriptor here. */
static const void *const_arg(int l, const int *value)
{
    if (is_tensor_label(l))
        return tdesc;
    if (l == CUDNN_PARAM_WDESC || l == CUDNN_PARAM_DWDESC)
        return fdesc;
    if (l == CUDNN_PARAM_CONV_DESC)
        return cdesc;
    if (l == CUDNN_PARAM_ACTIVATION_DESC)
        return adesc;
    return value;
}

static void label_tables(void)
{
    SECTION("label tables");
    int value = 1, agree = 0, tried = 0;
    for (int op = 0; op < 7; op++) {
        cudnnFusedOpsConstParamPack_t p;
        CHECK_OK(cudnnCreateFusedOpsConstParamPack(&p, (cudnnFusedOps_t)op));
        for (int l = 0; l < 39; l++) {
            const void *arg = const_arg(l, &value);
            if (!arg)
                continue;
            cudnnStatus_t st = cudnnSetFusedOpsConstParamPackAttribute(p, (cudnnFusedOpsConstParamLabel_t)l, arg);
            cudnnStatus_t want = listed(const_ok[op], l) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
            tried++;
            agree += st == want;
            if (st != want)
                fprintf(stderr, "op %d const label %d: %s\n", op, l, cudnnGetErrorString(st));
        }
        CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, (cudnnFusedOpsConstParamLabel_t)39, &value),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, (cudnnFusedOpsConstParamLabel_t)-1, &value),
                     CUDNN_STATUS_BAD_PARAM);
        CHECK_OK(cudnnDestroyFusedOpsConstParamPack(p));

        cudnnFusedOpsVariantParamPack_t v;
        CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&v, (cudnnFusedOps_t)op));
        for (int l = 0; l < 110; l++) {
            size_t scalar = 8;
            void *arg = l >= 100 ? (void *)&scalar : (void *)&value;
            cudnnStatus_t st = cudnnSetFusedOpsVariantParamPackAttribute(v, (cudnnFusedOpsVariantParamLabel_t)l, arg);
            cudnnStatus_t want = listed(var_ok[op], l) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
            tried++;
            agree += st == want;
            if (st != want)
                fprintf(stderr, "op %d variant label %d: %s\n", op, l, cudnnGetErrorString(st));
        }
        CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(v));
    }
    CHECK_EQ_INT(agree, tried);
    cudnnFusedOpsConstParamPack_t p;
    CHECK_STATUS(cudnnCreateFusedOpsConstParamPack(&p, (cudnnFusedOps_t)7), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateFusedOpsConstParamPack(&p, (cudnnFusedOps_t)-1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateFusedOpsConstParamPack(NULL, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD), CUDNN_STATUS_BAD_PARAM);
    cudnnFusedOpsVariantParamPack_t v;
    CHECK_STATUS(cudnnCreateFusedOpsVariantParamPack(&v, (cudnnFusedOps_t)99), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateFusedOpsVariantParamPack(NULL, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD), CUDNN_STATUS_BAD_PARAM);
}

static void const_round_trips(void)
{
    SECTION("constant pack round trips");
    const cudnnFusedOps_t op = CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    cudnnFusedOpsConstParamPack_t p;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&p, op));
    cudnnTensorDescriptor_t x, out;
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&out);
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 8, 5, 7));
    int isNull = -1;

    /* Never set: descriptor labels read as NULL, value labels as 0. */
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, out, &isNull));
    CHECK_EQ_INT(isNull, 1);
    int v = -3;
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isNull));
    CHECK(v == CUDNN_PTR_NULL && isNull == 0);

    /* Copied by value: changing the caller's descriptor later does not change the pack. */
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, x));
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, out, &isNull));
    cudnnDataType_t dt;
    int n, c, h, w, ns, cs, hs, ws;
    CHECK_OK(cudnnGetTensor4dDescriptor(out, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(isNull == 0 && dt == CUDNN_DATA_HALF && n == 2 && c == 8 && h == 5 && w == 7 && cs == 1 && ws == 8);
    /* NULL clears it. */
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, NULL));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, out, &isNull));
    CHECK_EQ_INT(isNull, 1);

    /* Filter descriptor. */
    cudnnFilterDescriptor_t wd, wout;
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateFilterDescriptor(&wout);
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 16, 8, 3, 3));
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_WDESC, wd));
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_WDESC, wout, &isNull));
    cudnnTensorFormat_t fmt;
    int k, fc, fh, fw;
    CHECK_OK(cudnnGetFilter4dDescriptor(wout, &dt, &fmt, &k, &fc, &fh, &fw));
    CHECK(isNull == 0 && k == 16 && fc == 8 && fh == 3 && fw == 3);
    /* A tensor label refuses a filter, and the other way round; unset descriptors too. */
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_XDESC, wd), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_WDESC, x), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_YDESC, wout),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t unset;
    cudnnCreateTensorDescriptor(&unset);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_YDESC, unset), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_WDESC, out, &isNull), CUDNN_STATUS_BAD_PARAM);

    /* Enum labels. */
    int mode = CUDNN_BATCHNORM_SPATIAL, ph = CUDNN_PTR_16B_ALIGNED;
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_BN_MODE, &mode));
    CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_YSUM_PLACEHOLDER, &ph));
    v = -1;
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_BN_MODE, &v, &isNull));
    CHECK(v == CUDNN_BATCHNORM_SPATIAL && isNull == 0);
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_YSUM_PLACEHOLDER, &v, &isNull));
    CHECK(v == CUDNN_PTR_16B_ALIGNED);
    int bad = 99, neg = -1;
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_BN_MODE, &bad), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_YSUM_PLACEHOLDER, &bad), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_YSUM_PLACEHOLDER, &neg), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_YSUM_PLACEHOLDER, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_YSUM_PLACEHOLDER, &v, &isNull));
    CHECK(v == CUDNN_PTR_16B_ALIGNED);   /* unchanged by the refused calls */

    /* Bad calls to Get. */
    CHECK_STATUS(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_BN_MODE, NULL, &isNull), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_BN_MODE, &v, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_DYDESC, out, &isNull), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsConstParamPackAttribute(NULL, CUDNN_PARAM_BN_MODE, &v, &isNull), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsConstParamPackAttribute(p, (cudnnFusedOpsConstParamLabel_t)99, &v, &isNull),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(NULL, CUDNN_PARAM_BN_MODE, &mode), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute((cudnnFusedOpsConstParamPack_t)(void *)x, CUDNN_PARAM_BN_MODE,
                                                         &mode), CUDNN_STATUS_BAD_PARAM);

    /* Activation and convolution descriptors, when those libraries are present. */
    if (adesc) {
        CHECK_OK(cudnnSetActivationDescriptor(adesc, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_PROPAGATE_NAN, 6.0));
        CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_ACTIVATION_DESC, adesc));
        cudnnActivationDescriptor_t a2;
        CHECK_OK(cudnnCreateActivationDescriptor(&a2));
        CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_ACTIVATION_DESC, a2, &isNull));
        cudnnActivationMode_t am;
        cudnnNanPropagation_t an;
        double coef;
        CHECK_OK(cudnnGetActivationDescriptor(a2, &am, &an, &coef));
        CHECK(am == CUDNN_ACTIVATION_CLIPPED_RELU && an == CUDNN_PROPAGATE_NAN && coef == 6.0);
        cudnnDestroyActivationDescriptor(a2);
    }
    if (cdesc) {
        CHECK_OK(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_CONV_DESC, cdesc));
        cudnnConvolutionDescriptor_t c2;
        CHECK_OK(cudnnCreateConvolutionDescriptor(&c2));
        CHECK_OK(cudnnGetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_CONV_DESC, c2, &isNull));
        int pa, pb, sa, sb, da, db;
        cudnnConvolutionMode_t cm;
        cudnnDataType_t ct;
        CHECK_OK(cudnnGetConvolution2dDescriptor(c2, &pa, &pb, &sa, &sb, &da, &db, &cm, &ct));
        CHECK(pa == 1 && pb == 2 && sa == 1 && sb == 1);
        cudnnDestroyConvolutionDescriptor(c2);
    }

    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(p));
    CHECK_STATUS(cudnnSetFusedOpsConstParamPackAttribute(p, CUDNN_PARAM_BN_MODE, &mode), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyFusedOpsConstParamPack(p), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyFusedOpsConstParamPack(NULL));
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(out);
    cudnnDestroyTensorDescriptor(unset);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyFilterDescriptor(wout);
}

static void variant_round_trips(void)
{
    SECTION("variant pack round trips");
    cudnnFusedOpsVariantParamPack_t v;
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&v, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING));
    void *got = (void *)1;
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_YSUM, &got));
    CHECK(got == NULL);
    float buf[4];
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_YSUM, buf));
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_YSUM, &got));
    CHECK(got == buf);
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_YSUM, NULL));
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_YSUM, &got));
    CHECK(got == NULL);

    /* Scalars are copied by value. */
    size_t wsz = 4096, wsz_out = 0;
    int64_t cnt = 1234567890123LL, cnt_out = 0;
    double f = 0.9, f_out = 0, eps = 1e-5, eps_out = 0;
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &wsz));
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &cnt));
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &f));
    CHECK_OK(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps));
    wsz = 1;
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &wsz_out));
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &cnt_out));
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &f_out));
    CHECK_OK(cudnnGetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps_out));
    CHECK(wsz_out == 4096 && cnt_out == 1234567890123LL && f_out == 0.9 && eps_out == 1e-5);

    CHECK_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_YSUM, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_XDATA, &got), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, (cudnnFusedOpsVariantParamLabel_t)99, buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, (cudnnFusedOpsVariantParamLabel_t)104, buf),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(NULL, CUDNN_PTR_YSUM, buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(v));
    CHECK_STATUS(cudnnGetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_YSUM, &got), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyFusedOpsVariantParamPack(v), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyFusedOpsVariantParamPack(NULL));
}

static void plans(void)
{
    SECTION("plans");
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    cudnnFusedOpsPlan_t plan;
    CHECK_STATUS(cudnnCreateFusedOpsPlan(NULL, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateFusedOpsPlan(&plan, (cudnnFusedOps_t)99), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateFusedOpsPlan(&plan, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    cudnnFusedOpsConstParamPack_t same, other;
    cudnnFusedOpsVariantParamPack_t vsame, vother;
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&same, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    CHECK_OK(cudnnCreateFusedOpsConstParamPack(&other, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING));
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&vsame, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    CHECK_OK(cudnnCreateFusedOpsVariantParamPack(&vother, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING));
    size_t ws = 77;
    CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, other, &ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, same, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnMakeFusedOpsPlan(NULL, plan, same, &ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, (cudnnFusedOpsConstParamPack_t)(void *)vsame, &ws), CUDNN_STATUS_BAD_PARAM);
    /* An empty pack lacks the required labels (test_fused_ops_exec.c covers real plans). */
    CHECK_STATUS(cudnnMakeFusedOpsPlan(h, plan, same, &ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT(ws, 77);
    CHECK_STATUS(cudnnFusedOpsExecute(h, plan, vother), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFusedOpsExecute(h, plan, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFusedOpsExecute(h, NULL, vsame), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnFusedOpsExecute(h, plan, vsame), CUDNN_STATUS_BAD_PARAM);   /* never made */
    CHECK_OK(cudnnDestroyFusedOpsPlan(plan));
    CHECK_STATUS(cudnnDestroyFusedOpsPlan(plan), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyFusedOpsPlan(NULL));
    cudnnDestroyFusedOpsConstParamPack(same);
    cudnnDestroyFusedOpsConstParamPack(other);
    cudnnDestroyFusedOpsVariantParamPack(vsame);
    cudnnDestroyFusedOpsVariantParamPack(vother);
    cudnnDestroy(h);
}

int main(void)
{
    cudnnCreateTensorDescriptor(&tdesc);
    cudnnSetTensor4dDescriptor(tdesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 3, 4);
    cudnnCreateFilterDescriptor(&fdesc);
    cudnnSetFilter4dDescriptor(fdesc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 2, 3, 3);
    /* Descriptors owned by other developers: used when their code is in this build. */
    if (cudnnCreateConvolutionDescriptor(&cdesc) != CUDNN_STATUS_SUCCESS ||
        cudnnSetConvolution2dDescriptor(cdesc, 1, 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT) !=
            CUDNN_STATUS_SUCCESS)
        cdesc = NULL;
    if (cudnnCreateActivationDescriptor(&adesc) != CUDNN_STATUS_SUCCESS ||
        cudnnSetActivationDescriptor(adesc, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0) != CUDNN_STATUS_SUCCESS)
        adesc = NULL;
    label_tables();
    const_round_trips();
    variant_round_trips();
    plans();
    cudnnDestroyTensorDescriptor(tdesc);
    cudnnDestroyFilterDescriptor(fdesc);
    if (cdesc)
        cudnnDestroyConvolutionDescriptor(cdesc);
    if (adesc)
        cudnnDestroyActivationDescriptor(adesc);
    return hd_test_finish();
}
