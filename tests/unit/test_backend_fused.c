/*
 * Fused backend graphs headed by a forward convolution, against a float64 reference:
 *   - conv -> bias add -> residual add -> relu (runs inside the solver's store) on every
 *     engine that takes it, NCHW and NHWC, and bit-identical to
 *     cudnnConvolutionBiasActivationForward with the same algorithm;
 *   - conv -> per-channel scale -> bias -> residual add (alpha1/alpha2) -> each activation
 *     of cuDNN 8.1 (one pass over the output), NCHW and NHWC;
 *   - an intermediate the user asked for (non-virtual) is written too;
 *   - results identical on 1 and 2 threads; the heuristics list every applicable engine;
 *   - a virtual output with BETA != 0 is refused.
 */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "ref/conv_ref.h"
#include "unit/backend_util.h"
#include "unit/fused_graph.h"

enum { N = 2, C = 8, H = 7, W = 7, K = 16 };
static const int64_t XD[4] = {N, C, H, W}, WD[4] = {K, C, 3, 3}, YD[4] = {N, K, H, W}, BD[4] = {1, K, 1, 1};
#define XE (N * C * H * W)
#define WE (K * C * 9)
#define YE (N * K * H * W)

/* Activations in double, from their definitions (cuDNN 8.1's backend pointwise modes). */
static double ref_act(const pw_param *q, double x)
{
    switch (q->mode) {
    case CUDNN_POINTWISE_RELU_FWD: {
        double lo = isnan(q->lo) ? 0 : q->lo, hi = isnan(q->hi) ? INFINITY : q->hi, sl = isnan(q->slope) ? 0 : q->slope;
        return x < lo ? lo + sl * (x - lo) : x > hi ? hi : x;
    }
    case CUDNN_POINTWISE_TANH_FWD: return tanh(x);
    case CUDNN_POINTWISE_SIGMOID_FWD: return 1 / (1 + exp(-x));
    case CUDNN_POINTWISE_ELU_FWD: return x > 0 ? x : q->elu * (exp(x) - 1);
    case CUDNN_POINTWISE_GELU_FWD: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    case CUDNN_POINTWISE_SOFTPLUS_FWD: return log(1 + exp(q->softplus * x)) / q->softplus;
    case CUDNN_POINTWISE_SWISH_FWD: return x / (1 + exp(-q->swish * x));
    default: return NAN;
    }
}

typedef struct {
    float x[XE], w[WE], bias[K], scale[K], z[YE], y[YE], y1[YE];
    double conv[YE];                /* float64 convolution, logical NCHW */
} data_t;

static data_t D;

/* The float64 convolution of the stored x and w (layout NHWC or NCHW). */
static void reference_conv(int nhwc)
{
    static double xd[XE], wd[WE];
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int h = 0; h < H; h++)
                for (int w = 0; w < W; w++)
                    xd[((n * C + c) * H + h) * W + w] = D.x[off4(XD, nhwc, n, c, h, w)];
    for (int k = 0; k < K; k++)
        for (int c = 0; c < C; c++)
            for (int r = 0; r < 9; r++)
                wd[(k * C + c) * 9 + r] = D.w[off4(WD, nhwc, k, c, r / 3, r % 3)];
    conv_ref_shape s = {N, C, K, 1, {1, H, W}, {1, 3, 3}, {0}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, 0};
    conv_ref_out_dims(&s);
    conv_ref_fwd(&s, xd, wd, D.conv);
}

/* Worst |got - want| / (1 + |want|) over the output, with WANT(n, k, h, w). */
typedef double (*want_fn)(const pw_param *q, int nhwc, int n, int k, int h, int w);

static double worst(const float *got, const pw_param *q, int nhwc, want_fn want)
{
    double e = 0;
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int h = 0; h < H; h++)
                for (int w = 0; w < W; w++) {
                    double r = want(q, nhwc, n, k, h, w), g = got[off4(YD, nhwc, n, k, h, w)];
                    double d = fabs(g - r) / (1 + fabs(r));
                    if (!(d <= e))
                        e = isnan(d) ? INFINITY : d;
                }
    return e;
}

static double conv_at(int n, int k, int h, int w) { return D.conv[((n * K + k) * H + h) * W + w]; }

static double want_bias_add_relu(const pw_param *q, int nhwc, int n, int k, int h, int w)
{
    (void)q;
    double v = conv_at(n, k, h, w) + D.bias[k] + 0.7 * D.z[off4(YD, nhwc, n, k, h, w)];
    return v > 0 ? v : 0;
}

static double want_scale_chain(const pw_param *q, int nhwc, int n, int k, int h, int w)
{
    double v = conv_at(n, k, h, w) * D.scale[k] + D.bias[k];
    v = 1.5 * v + 0.5 * D.z[off4(YD, nhwc, n, k, h, w)];
    return ref_act(q, v);
}

static double want_bias_only(const pw_param *q, int nhwc, int n, int k, int h, int w)
{
    (void)q, (void)nhwc;
    return conv_at(n, k, h, w) + D.bias[k];
}

/* conv -> bias -> add z (alpha2 0.7) -> relu, uids 1..5; returns the graph. */
static bd graph_bias_add_relu(cudnnHandle_t h, int nhwc)
{
    bd x = t4(1, XD, nhwc, CUDNN_DATA_FLOAT, false), w = t4(2, WD, nhwc, CUDNN_DATA_FLOAT, false);
    bd b = t4(3, BD, nhwc, CUDNN_DATA_FLOAT, false), z = t4(4, YD, nhwc, CUDNN_DATA_FLOAT, false);
    bd y = t4(5, YD, nhwc, CUDNN_DATA_FLOAT, false);
    bd v1 = t4(11, YD, nhwc, CUDNN_DATA_FLOAT, true), v2 = t4(12, YD, nhwc, CUDNN_DATA_FLOAT, true),
       v3 = t4(13, YD, nhwc, CUDNN_DATA_FLOAT, true);
    pw_param add = pw_mode(CUDNN_POINTWISE_ADD), relu = pw_mode(CUDNN_POINTWISE_RELU_FWD);
    bd ops[4] = {op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, x, w, v1, conv_desc2(1, 1, CUDNN_DATA_FLOAT), 1, 0),
                 op_pw(&add, v1, b, v2, 1, 1), op_pw(&add, v2, z, v3, 1, 0.7), op_pw(&relu, v3, NULL, y, 1, 1)};
    return mk_graph(h, ops, 4);
}

static cudnnStatus_t run5(cudnnHandle_t h, bd plan, int64_t ws)
{
    int64_t uids[5] = {1, 2, 3, 4, 5};
    void *ptrs[5] = {D.x, D.w, D.bias, D.z, D.y};
    void *buf = ws > 0 ? malloc((size_t)ws) : NULL;
    cudnnStatus_t st = run_plan(h, plan, 5, uids, ptrs, buf);
    free(buf);
    return st;
}

static void test_bias_add_relu(cudnnHandle_t h, int nhwc)
{
    reference_conv(nhwc);
    bd g = graph_bias_add_relu(h, nhwc);
    int64_t count = engine_count(g);
    CHECK_EQ_INT(count, CUDNN_CONVOLUTION_FWD_ALGO_COUNT + 1);
    int ran = 0;
    for (int64_t e = 0; e < count; e++) {
        int64_t ws;
        cudnnStatus_t st;
        bd plan = mk_plan(h, g, e, &ws, &st);
        if (!plan) {
            CHECK_MSG(st == CUDNN_STATUS_NOT_SUPPORTED, "engine %lld: %d", (long long)e, (int)st);
            continue;
        }
        fill_nan(D.y, YE);
        CHECK_OK(run5(h, plan, ws));
        double err = worst(D.y, NULL, nhwc, want_bias_add_relu);
        CHECK_MSG(err < 1e-5, "bias+add+relu %s engine %lld: error %g", nhwc ? "NHWC" : "NCHW", (long long)e, err);
        ran++;
    }
    CHECK_MSG(ran >= 3, "only %d engines ran", ran);
    /* Every config the heuristics give runs, engine 0 among them. */
    int64_t idx[16];
    int n = heur_engines(g, idx, 16), has0 = 0;
    CHECK(n >= 2);
    for (int i = 0; i < n; i++) {
        has0 |= idx[i] == 0;
        int64_t ws;
        cudnnStatus_t st;
        bd plan = mk_plan(h, g, idx[i], &ws, &st);
        CHECK_MSG(plan != NULL, "heuristic config %d (engine %lld) does not build", i, (long long)idx[i]);
    }
    CHECK(has0);
    release_all();
}

/* The fused engine and cudnnConvolutionBiasActivationForward give the same bits. */
static void test_same_as_legacy(cudnnHandle_t h)
{
    reference_conv(0);
    bd g = graph_bias_add_relu(h, 0);
    int64_t ws;
    cudnnStatus_t st;
    bd plan = mk_plan(h, g, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &ws, &st);
    CHECK(plan != NULL);
    if (!plan)
        return;
    CHECK_OK(run5(h, plan, ws));
    static float legacy[YE];
    cudnnTensorDescriptor_t xd, yd, bdsc;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad;
    cudnnCreateTensorDescriptor(&xd), cudnnCreateTensorDescriptor(&yd), cudnnCreateTensorDescriptor(&bdsc);
    cudnnCreateFilterDescriptor(&wd), cudnnCreateConvolutionDescriptor(&cd), cudnnCreateActivationDescriptor(&ad);
    cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W);
    cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W);
    cudnnSetTensor4dDescriptor(bdsc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, K, 1, 1);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, 3, 3);
    cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0);
    size_t lws = 0;
    cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &lws);
    void *buf = lws ? malloc(lws) : NULL;
    float one = 1, a2 = 0.7f;
    CHECK_OK(cudnnConvolutionBiasActivationForward(h, &one, xd, D.x, wd, D.w, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                                   buf, lws, &a2, yd, D.z, bdsc, D.bias, ad, yd, legacy));
    free(buf);
    CHECK(memcmp(legacy, D.y, sizeof legacy) == 0);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd), cudnnDestroyTensorDescriptor(bdsc);
    cudnnDestroyFilterDescriptor(wd), cudnnDestroyConvolutionDescriptor(cd), cudnnDestroyActivationDescriptor(ad);
    release_all();
}

/* conv -> scale -> bias -> add z (1.5, 0.5) -> ACT, all virtual in between. */
static bd graph_scale_chain(cudnnHandle_t h, int nhwc, const pw_param *act)
{
    bd x = t4(1, XD, nhwc, CUDNN_DATA_FLOAT, false), w = t4(2, WD, nhwc, CUDNN_DATA_FLOAT, false);
    bd b = t4(3, BD, nhwc, CUDNN_DATA_FLOAT, false), z = t4(4, YD, nhwc, CUDNN_DATA_FLOAT, false);
    bd y = t4(5, YD, nhwc, CUDNN_DATA_FLOAT, false), s = t4(6, BD, nhwc, CUDNN_DATA_FLOAT, false);
    bd v[4];
    for (int i = 0; i < 4; i++)
        v[i] = t4(11 + i, YD, nhwc, CUDNN_DATA_FLOAT, true);
    pw_param add = pw_mode(CUDNN_POINTWISE_ADD), mul = pw_mode(CUDNN_POINTWISE_MUL);
    /* Listed out of order on purpose: the graph is a chain whatever the order of its nodes. */
    bd ops[5] = {op_pw(act, v[3], NULL, y, 1, 1), op_pw(&mul, v[0], s, v[1], 1, 1),
                 op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, x, w, v[0], conv_desc2(1, 1, CUDNN_DATA_FLOAT), 1, 0),
                 op_pw(&add, b, v[1], v[2], 1, 1), op_pw(&add, v[2], z, v[3], 1.5, 0.5)};
    return mk_graph(h, ops, 5);
}

static void run_scale_chain(cudnnHandle_t h, bd g, int64_t engine, float *out)
{
    int64_t ws;
    cudnnStatus_t st;
    bd plan = mk_plan(h, g, engine, &ws, &st);
    CHECK_MSG(plan != NULL, "engine %lld: status %d", (long long)engine, (int)st);
    if (!plan)
        return;
    int64_t uids[6] = {1, 2, 3, 4, 5, 6};
    void *ptrs[6] = {D.x, D.w, D.bias, D.z, out, D.scale};
    void *buf = ws > 0 ? malloc((size_t)ws) : NULL;
    fill_nan(out, YE);
    CHECK_OK(run_plan(h, plan, 6, uids, ptrs, buf));
    free(buf);
}

static void test_scale_chain(cudnnHandle_t h, int nhwc)
{
    reference_conv(nhwc);
    pw_param acts[7];
    acts[0] = pw_mode(CUDNN_POINTWISE_RELU_FWD), acts[0].lo = 0.1, acts[0].hi = 1.5, acts[0].slope = 0.05;
    acts[1] = pw_mode(CUDNN_POINTWISE_TANH_FWD);
    acts[2] = pw_mode(CUDNN_POINTWISE_SIGMOID_FWD);
    acts[3] = pw_mode(CUDNN_POINTWISE_ELU_FWD), acts[3].elu = 0.8;
    acts[4] = pw_mode(CUDNN_POINTWISE_GELU_FWD);
    acts[5] = pw_mode(CUDNN_POINTWISE_SOFTPLUS_FWD), acts[5].softplus = 1.5;
    acts[6] = pw_mode(CUDNN_POINTWISE_SWISH_FWD), acts[6].swish = 1.2;
    for (int a = 0; a < 7; a++) {
        pw_param q = acts[a];
        if (isnan(q.elu)) q.elu = 1;
        if (isnan(q.softplus)) q.softplus = 1;
        if (isnan(q.swish)) q.swish = 1;
        bd g = graph_scale_chain(h, nhwc, &acts[a]);
        int64_t idx[16];
        int n = heur_engines(g, idx, 16);
        CHECK(n >= 2);
        int64_t tries[2] = {0, n > 0 ? idx[0] : 0};
        for (int t = 0; t < 2; t++) {
            run_scale_chain(h, g, tries[t], D.y);
            double err = worst(D.y, &q, nhwc, want_scale_chain);
            CHECK_MSG(err < 2e-5, "%s mode %d engine %lld: error %g", nhwc ? "NHWC" : "NCHW", (int)q.mode,
                      (long long)tries[t], err);
        }
        release_all();
    }
}

/* conv -> bias (written: uid 7, not virtual) -> relu -> y. */
static void test_stored_intermediate(cudnnHandle_t h)
{
    reference_conv(1);
    bd x = t4(1, XD, 1, CUDNN_DATA_FLOAT, false), w = t4(2, WD, 1, CUDNN_DATA_FLOAT, false);
    bd b = t4(3, BD, 1, CUDNN_DATA_FLOAT, false), y = t4(5, YD, 1, CUDNN_DATA_FLOAT, false);
    bd y1 = t4(7, YD, 1, CUDNN_DATA_FLOAT, false), v = t4(11, YD, 1, CUDNN_DATA_FLOAT, true);
    pw_param add = pw_mode(CUDNN_POINTWISE_ADD), relu = pw_mode(CUDNN_POINTWISE_RELU_FWD);
    bd ops[3] = {op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, x, w, v, conv_desc2(1, 1, CUDNN_DATA_FLOAT), 1, 0),
                 op_pw(&add, v, b, y1, 1, 1), op_pw(&relu, y1, NULL, y, 1, 1)};
    bd g = mk_graph(h, ops, 3);
    int64_t ws;
    cudnnStatus_t st;
    bd plan = mk_plan(h, g, 0, &ws, &st);
    CHECK(plan != NULL);
    if (plan) {
        int64_t uids[5] = {1, 2, 3, 5, 7};
        void *ptrs[5] = {D.x, D.w, D.bias, D.y, D.y1};
        void *buf = ws > 0 ? malloc((size_t)ws) : NULL;
        fill_nan(D.y, YE), fill_nan(D.y1, YE);
        CHECK_OK(run_plan(h, plan, 5, uids, ptrs, buf));
        free(buf);
        CHECK(worst(D.y1, NULL, 1, want_bias_only) < 1e-5);
        int bad = 0;
        for (int i = 0; i < YE; i++)
            bad += D.y[i] != (D.y1[i] > 0 ? D.y1[i] : 0);
        CHECK_EQ_INT(bad, 0);
    }
    release_all();
}

/* The one-pass chain gives the same bits on 1 and 2 threads. */
static void test_threads(void)
{
    static float one[YE], two[YE];
    pw_param gelu = pw_mode(CUDNN_POINTWISE_GELU_FWD);
    const char *counts[2] = {"1", "2"};
    for (int t = 0; t < 2; t++) {
        setenv("HOSTDNN_NUM_THREADS", counts[t], 1);
        cudnnHandle_t h;
        CHECK_OK(cudnnCreate(&h));
        bd g = graph_scale_chain(h, 1, &gelu);
        run_scale_chain(h, g, 0, t ? two : one);
        release_all();
        cudnnDestroy(h);
    }
    unsetenv("HOSTDNN_NUM_THREADS");
    CHECK(memcmp(one, two, sizeof one) == 0);
}

/* BETA != 0 needs the output's old values: a virtual output has none. */
static void test_virtual_beta(cudnnHandle_t h)
{
    bd x = t4(1, XD, 0, CUDNN_DATA_FLOAT, false), w = t4(2, WD, 0, CUDNN_DATA_FLOAT, false);
    bd y = t4(5, YD, 0, CUDNN_DATA_FLOAT, false), v = t4(11, YD, 0, CUDNN_DATA_FLOAT, true);
    pw_param relu = pw_mode(CUDNN_POINTWISE_RELU_FWD);
    bd ops[2] = {op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, x, w, v, conv_desc2(1, 1, CUDNN_DATA_FLOAT), 1, 0.5),
                 op_pw(&relu, v, NULL, y, 1, 1)};
    bd g = mk_graph(h, ops, 2);
    int64_t ws, idx[16];
    cudnnStatus_t st;
    CHECK(mk_plan(h, g, 0, &ws, &st) == NULL && st == CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_EQ_INT(heur_engines(g, idx, 16), 0);
    release_all();
}

int main(void)
{
    fill(D.x, XE, 1), fill(D.w, WE, 2), fill(D.bias, K, 3), fill(D.z, YE, 4), fill(D.scale, K, 5);
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    SECTION("conv + bias + add + relu, NCHW"), test_bias_add_relu(h, 0);
    SECTION("conv + bias + add + relu, NHWC"), test_bias_add_relu(h, 1);
    SECTION("same bits as cudnnConvolutionBiasActivationForward"), test_same_as_legacy(h);
    SECTION("conv + scale + bias + add + activations, NCHW"), test_scale_chain(h, 0);
    SECTION("conv + scale + bias + add + activations, NHWC"), test_scale_chain(h, 1);
    SECTION("a stored intermediate"), test_stored_intermediate(h);
    SECTION("virtual output with beta"), test_virtual_beta(h);
    cudnnDestroy(h);
    SECTION("1 and 2 threads"), test_threads();
    return hd_test_finish();
}
