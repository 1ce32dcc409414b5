/*
 * Backend graphs beyond the forward convolution, against float64 references:
 *   - engine 0 of backward data and backward filter reports no workspace and runs without;
 *   - backward data -> relu backward (drelu), and backward filter -> scale, NCHW and NHWC;
 *   - batched matmul with a broadcast operand -> bias -> gelu, in float and in half;
 *   - a pointwise chain without a head (sigmoid -> mul -> tanh backward);
 *   - refusals that name the node (two convolutions, branches, MAX with NaN propagation),
 *     and a bad variant pack (no workspace, a missing pointer) that leaves outputs untouched.
 */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "ref/conv_ref.h"
#include "unit/backend_util.h"
#include "unit/fused_graph.h"

enum { N = 2, C = 6, H = 6, W = 5, K = 10 };
static const int64_t XD[4] = {N, C, H, W}, WD[4] = {K, C, 3, 3}, YD[4] = {N, K, H, W}, SD[4] = {1, 1, 1, 1};
#define XE (N * C * H * W)
#define WE (K * C * 9)
#define YE (N * K * H * W)

static float gx[XE], gw[WE], gdy[YE], gact[XE], gout[XE], gdw[WE], gscale[1] = {0.75f};
static double xd[XE], wd[WE], dyd[YE], ref[XE > WE ? XE : WE];

static const conv_ref_shape SHAPE = {N, C, K, 1, {1, H, W}, {1, 3, 3}, {1, H, W}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, 0};

/* Logical (packed NCHW) doubles of the stored tensors. */
static void unpack(int nhwc)
{
    for (int n = 0; n < N; n++)
        for (int h = 0; h < H; h++)
            for (int w = 0; w < W; w++) {
                for (int c = 0; c < C; c++)
                    xd[((n * C + c) * H + h) * W + w] = gx[off4(XD, nhwc, n, c, h, w)];
                for (int k = 0; k < K; k++)
                    dyd[((n * K + k) * H + h) * W + w] = gdy[off4(YD, nhwc, n, k, h, w)];
            }
    for (int k = 0; k < K; k++)
        for (int c = 0; c < C; c++)
            for (int r = 0; r < 9; r++)
                wd[(k * C + c) * 9 + r] = gw[off4(WD, nhwc, k, c, r / 3, r % 3)];
}

/* Engine 0 of both backward directions: workspace 0, and it runs with none. */
static void test_engine0_no_workspace(cudnnHandle_t h)
{
    for (int dir = 0; dir < 2; dir++) {
        cudnnBackendDescriptorType_t t = dir ? CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR
                                             : CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR;
        bd x = t4(1, XD, 0, CUDNN_DATA_FLOAT, false), w = t4(2, WD, 0, CUDNN_DATA_FLOAT, false),
           y = t4(3, YD, 0, CUDNN_DATA_FLOAT, false);
        bd op = op_conv(t, x, w, y, conv_desc2(1, 1, CUDNN_DATA_FLOAT), 1, 0);
        bd g = mk_graph(h, &op, 1);
        int64_t ws;
        cudnnStatus_t st;
        bd plan = mk_plan(h, g, 0, &ws, &st);
        CHECK(plan != NULL);
        CHECK_EQ_INT(ws, 0);
        if (plan) {
            int64_t uids[3] = {1, 2, 3};
            void *ptrs[3] = {dir ? gx : gout, dir ? gdw : gw, gdy};
            CHECK_OK(run_plan(h, plan, 3, uids, ptrs, NULL));
            unpack(0);
            if (dir)
                conv_ref_bwd_filter(&SHAPE, xd, dyd, ref);
            else
                conv_ref_bwd_data(&SHAPE, dyd, wd, ref);
            const float *got = dir ? gdw : gout;
            double e = 0;
            for (int i = 0; i < (dir ? WE : XE); i++)
                e = fmax(e, fabs(got[i] - ref[i]) / (1 + fabs(ref[i])));
            CHECK_MSG(e < 1e-5, "direction %d engine 0: error %g", dir, e);
        }
        release_all();
    }
}

/* dgrad -> relu backward with x = gact: out = dx * (gact > 0). */
static void test_dgrad_drelu(cudnnHandle_t h, int nhwc)
{
    bd dx = t4(10, XD, nhwc, CUDNN_DATA_FLOAT, true), w = t4(2, WD, nhwc, CUDNN_DATA_FLOAT, false),
       dy = t4(3, YD, nhwc, CUDNN_DATA_FLOAT, false), act = t4(4, XD, nhwc, CUDNN_DATA_FLOAT, false),
       out = t4(5, XD, nhwc, CUDNN_DATA_FLOAT, false);
    pw_param drelu = pw_mode(CUDNN_POINTWISE_RELU_BWD);
    bd ops[2] = {op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, dx, w, dy,
                         conv_desc2(1, 1, CUDNN_DATA_FLOAT), 1, 0),
                 op_pw_bwd(&drelu, dx, act, out)};
    bd g = mk_graph(h, ops, 2);
    unpack(nhwc);
    conv_ref_bwd_data(&SHAPE, dyd, wd, ref);
    int64_t count = engine_count(g);
    CHECK_EQ_INT(count, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT + 1);
    int ran = 0;
    for (int64_t e = 0; e < count; e++) {
        int64_t ws;
        cudnnStatus_t st;
        bd plan = mk_plan(h, g, e, &ws, &st);
        if (!plan)
            continue;
        int64_t uids[4] = {2, 3, 4, 5};
        void *ptrs[4] = {gw, gdy, gact, gout};
        void *buf = ws > 0 ? malloc((size_t)ws) : NULL;
        fill_nan(gout, XE);
        CHECK_OK(run_plan(h, plan, 4, uids, ptrs, buf));
        free(buf);
        double err = 0;
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++)
                for (int hh = 0; hh < H; hh++)
                    for (int ww = 0; ww < W; ww++) {
                        size_t o = off4(XD, nhwc, n, c, hh, ww);
                        double r = gact[o] > 0 ? ref[((n * C + c) * H + hh) * W + ww] : 0;
                        double d = fabs(gout[o] - r) / (1 + fabs(r));
                        err = d <= err ? err : isnan(d) ? INFINITY : d;
                    }
        CHECK_MSG(err < 1e-5, "dgrad+drelu %s engine %lld: error %g", nhwc ? "NHWC" : "NCHW", (long long)e, err);
        ran++;
    }
    CHECK(ran >= 2);
    release_all();
}

/* wgrad -> multiply by a broadcast scalar tensor. */
static void test_wgrad_scale(cudnnHandle_t h, int nhwc)
{
    bd x = t4(1, XD, nhwc, CUDNN_DATA_FLOAT, false), dwv = t4(10, WD, nhwc, CUDNN_DATA_FLOAT, true),
       dy = t4(3, YD, nhwc, CUDNN_DATA_FLOAT, false), s = t4(4, SD, nhwc, CUDNN_DATA_FLOAT, false),
       out = t4(5, WD, nhwc, CUDNN_DATA_FLOAT, false);
    pw_param mul = pw_mode(CUDNN_POINTWISE_MUL);
    bd ops[2] = {op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, x, dwv, dy,
                         conv_desc2(1, 1, CUDNN_DATA_FLOAT), 1, 0),
                 op_pw(&mul, dwv, s, out, 1, 1)};
    bd g = mk_graph(h, ops, 2);
    unpack(nhwc);
    conv_ref_bwd_filter(&SHAPE, xd, dyd, ref);
    int64_t idx[16];
    int n = heur_engines(g, idx, 16);
    CHECK(n >= 2);
    for (int i = 0; i < n; i++) {
        int64_t ws;
        cudnnStatus_t st;
        bd plan = mk_plan(h, g, idx[i], &ws, &st);
        CHECK(plan != NULL);
        if (!plan)
            continue;
        int64_t uids[4] = {1, 3, 4, 5};
        void *ptrs[4] = {gx, gdy, gscale, gdw};
        void *buf = ws > 0 ? malloc((size_t)ws) : NULL;
        fill_nan(gdw, WE);
        CHECK_OK(run_plan(h, plan, 4, uids, ptrs, buf));
        free(buf);
        double err = 0;
        for (int k = 0; k < K; k++)
            for (int c = 0; c < C; c++)
                for (int r = 0; r < 9; r++) {
                    double want = 0.75 * ref[(k * C + c) * 9 + r], got = gdw[off4(WD, nhwc, k, c, r / 3, r % 3)];
                    double d = fabs(got - want) / (1 + fabs(want));
                    err = d <= err ? err : isnan(d) ? INFINITY : d;
                }
        CHECK_MSG(err < 1e-5, "wgrad*scale %s engine %lld: error %g", nhwc ? "NHWC" : "NCHW", (long long)idx[i], err);
    }
    release_all();
}

/* C[b] = A[b] x B[0] (B broadcast over 3 batches), + bias[n], gelu; float or half I/O. */
static void test_matmul(cudnnHandle_t h, cudnnDataType_t dt)
{
    enum { BT = 3, M = 5, KK = 7, NN = 6 };
    int64_t ad[3] = {BT, M, KK}, bdm[3] = {1, KK, NN}, cd[3] = {BT, M, NN}, zd[3] = {1, 1, NN};
    bd a = keep(mk_tensor_full(1, 3, ad, NULL, dt, false, 1)), b = keep(mk_tensor_full(2, 3, bdm, NULL, dt, false, 1));
    bd c = keep(mk_tensor_full(10, 3, cd, NULL, dt, true, 1)), z = keep(mk_tensor_full(3, 3, zd, NULL, dt, false, 1));
    bd v = keep(mk_tensor_full(11, 3, cd, NULL, dt, true, 1)), y = keep(mk_tensor_full(4, 3, cd, NULL, dt, false, 1));
    bd mm = op_matmul(a, b, c);
    pw_param add = pw_mode(CUDNN_POINTWISE_ADD), gelu = pw_mode(CUDNN_POINTWISE_GELU_FWD);
    bd ops[3] = {mm, op_pw(&add, c, z, v, 1, 1), op_pw(&gelu, v, NULL, y, 1, 1)};
    bd g = mk_graph(h, ops, 3);
    CHECK_EQ_INT(engine_count(g), 1);
    float af[BT * M * KK], bf[KK * NN], zf[NN], yf[BT * M * NN];
    fill(af, BT * M * KK, 7), fill(bf, KK * NN, 8), fill(zf, NN, 9);
    __half ah[BT * M * KK], bh[KK * NN], zh[NN], yh[BT * M * NN];
    for (int i = 0; i < BT * M * KK; i++)
        ah[i] = __float2half(af[i]), af[i] = __half2float(ah[i]);
    for (int i = 0; i < KK * NN; i++)
        bh[i] = __float2half(bf[i]), bf[i] = __half2float(bh[i]);
    for (int i = 0; i < NN; i++)
        zh[i] = __float2half(zf[i]), zf[i] = __half2float(zh[i]);
    int half = dt == CUDNN_DATA_HALF;
    int64_t ws;
    cudnnStatus_t st;
    bd plan = mk_plan(h, g, 0, &ws, &st);
    CHECK(plan != NULL && ws > 0);   /* the virtual C lives in the workspace */
    if (plan) {
        int64_t uids[4] = {1, 2, 3, 4};
        void *ptrs[4] = {half ? (void *)ah : af, half ? (void *)bh : bf, half ? (void *)zh : zf, half ? (void *)yh : yf};
        void *buf = malloc((size_t)ws);
        CHECK_OK(run_plan(h, plan, 4, uids, ptrs, buf));
        free(buf);
        double err = 0;
        for (int q = 0; q < BT; q++)
            for (int i = 0; i < M; i++)
                for (int j = 0; j < NN; j++) {
                    double s = zf[j];
                    for (int k = 0; k < KK; k++)
                        s += (double)af[(q * M + i) * KK + k] * bf[k * NN + j];
                    double want = 0.5 * s * (1 + erf(s / sqrt(2.0)));
                    int o = (q * M + i) * NN + j;
                    double got = half ? __half2float(yh[o]) : yf[o];
                    err = fmax(err, fabs(got - want) / (1 + fabs(want)));
                }
        CHECK_MSG(err < (half ? 2e-3 : 1e-5), "matmul+bias+gelu %s: error %g", half ? "half" : "float", err);
    }
    release_all();
}

/* x -> sigmoid -> * b -> tanh backward (dy = that, x = act): no head. */
static void test_pointwise_only(cudnnHandle_t h)
{
    bd x = t4(1, XD, 0, CUDNN_DATA_FLOAT, false), b = t4(2, XD, 0, CUDNN_DATA_FLOAT, false),
       act = t4(3, XD, 0, CUDNN_DATA_FLOAT, false), y = t4(4, XD, 0, CUDNN_DATA_FLOAT, false);
    bd v1 = t4(11, XD, 0, CUDNN_DATA_FLOAT, true), v2 = t4(12, XD, 0, CUDNN_DATA_FLOAT, true);
    pw_param sig = pw_mode(CUDNN_POINTWISE_SIGMOID_FWD), mul = pw_mode(CUDNN_POINTWISE_MUL),
             tb = pw_mode(CUDNN_POINTWISE_TANH_BWD);
    bd ops[3] = {op_pw_bwd(&tb, v2, act, y), op_pw(&sig, x, NULL, v1, 1, 1), op_pw(&mul, v1, b, v2, 1, 1)};
    bd g = mk_graph(h, ops, 3);
    int64_t ws;
    cudnnStatus_t st;
    bd plan = mk_plan(h, g, 0, &ws, &st);
    CHECK(plan != NULL);
    CHECK_EQ_INT(ws, 0);
    if (plan) {
        int64_t uids[4] = {1, 2, 3, 4};
        void *ptrs[4] = {gx, gact, gout, gdw};   /* b = gact, act = gout; y into gdw (large enough) */
        fill(gout, XE, 21);
        CHECK_OK(run_plan(h, plan, 4, uids, ptrs, NULL));
        double err = 0;
        for (int i = 0; i < XE; i++) {
            double t = tanh((double)gout[i]);
            double want = (1 / (1 + exp(-(double)gx[i]))) * gact[i] * (1 - t * t);
            err = fmax(err, fabs(gdw[i] - want));
        }
        CHECK_MSG(err < 1e-6, "pointwise chain: error %g", err);
    }
    release_all();
}

/* RELU_FWD: NaN gives the lower clip unless PROPAGATE_NAN is asked for. */
static void test_relu_nan(cudnnHandle_t h)
{
    for (int prop = 0; prop < 2; prop++) {
        bd x = t4(1, XD, 0, CUDNN_DATA_FLOAT, false), y = t4(2, XD, 0, CUDNN_DATA_FLOAT, false);
        pw_param relu = pw_mode(CUDNN_POINTWISE_RELU_FWD);
        relu.nan = prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
        bd op = op_pw(&relu, x, NULL, y, 1, 1);
        bd g = mk_graph(h, &op, 1);
        int64_t ws;
        cudnnStatus_t st;
        bd plan = mk_plan(h, g, 0, &ws, &st);
        CHECK(plan != NULL);
        if (plan) {
            static float in[XE], out[XE];
            fill(in, XE, 31);
            in[3] = NAN, in[100] = NAN;
            int64_t uids[2] = {1, 2};
            void *ptrs[2] = {in, out};
            CHECK_OK(run_plan(h, plan, 2, uids, ptrs, NULL));
            CHECK(prop ? isnan(out[3]) && isnan(out[100]) : out[3] == 0 && out[100] == 0);
            CHECK(out[5] == (in[5] > 0 ? in[5] : 0));
        }
        release_all();
    }
}

/* GELU forward and backward (dy = 1) over [-9, 9] against erf in double: within the
 * 2e-7 (1 + |x|) docs/backend.md states. */
static void test_gelu_accuracy(cudnnHandle_t h)
{
    static float in[XE], ones[XE], out[XE];
    for (int i = 0; i < XE; i++)
        in[i] = -9.0f + 18.0f * (float)i / (XE - 1), ones[i] = 1;
    for (int bwd = 0; bwd < 2; bwd++) {
        bd x = t4(1, XD, 0, CUDNN_DATA_FLOAT, false), y = t4(2, XD, 0, CUDNN_DATA_FLOAT, false),
           dy = t4(3, XD, 0, CUDNN_DATA_FLOAT, false);
        pw_param q = pw_mode(bwd ? CUDNN_POINTWISE_GELU_BWD : CUDNN_POINTWISE_GELU_FWD);
        bd op = bwd ? op_pw_bwd(&q, dy, x, y) : op_pw(&q, x, NULL, y, 1, 1);
        bd g = mk_graph(h, &op, 1);
        int64_t ws;
        cudnnStatus_t st;
        bd plan = mk_plan(h, g, 0, &ws, &st);
        CHECK(plan != NULL);
        if (plan) {
            int64_t uids[3] = {1, 2, 3};
            void *ptrs[3] = {in, out, ones};
            CHECK_OK(run_plan(h, plan, 3, uids, ptrs, NULL));
            double err = 0;
            for (int i = 0; i < XE; i++) {
                double v = in[i], cdf = 0.5 * (1 + erf(v / sqrt(2.0))), pdf = exp(-0.5 * v * v) / sqrt(2 * 3.14159265358979323846);
                double want = bwd ? cdf + v * pdf : v * cdf;
                err = fmax(err, fabs(out[i] - want) / (1 + fabs(v)));
            }
            CHECK_MSG(err < 2e-7, "GELU %s: error %g", bwd ? "backward" : "forward", err);
        }
        release_all();
    }
}

/* Graphs no engine runs: the heuristics return nothing, engine 0 is NOT_SUPPORTED. */
static void expect_refused(cudnnHandle_t h, bd *ops, int n, const char *what)
{
    bd g = mk_graph(h, ops, n);
    int64_t ws, idx[16];
    cudnnStatus_t st;
    CHECK_MSG(engine_count(g) == 0, "%s: engine count %lld", what, (long long)engine_count(g));
    CHECK_MSG(heur_engines(g, idx, 16) == 0, "%s: heuristics gave configs", what);
    CHECK_MSG(mk_plan(h, g, 0, &ws, &st) == NULL && st == CUDNN_STATUS_NOT_SUPPORTED, "%s: engine 0 status %d", what,
              (int)st);
}

static void test_refusals(cudnnHandle_t h)
{
    bd x = t4(1, XD, 0, CUDNN_DATA_FLOAT, false), w = t4(2, WD, 0, CUDNN_DATA_FLOAT, false),
       y = t4(3, YD, 0, CUDNN_DATA_FLOAT, false), y2 = t4(4, YD, 0, CUDNN_DATA_FLOAT, false),
       y3 = t4(5, YD, 0, CUDNN_DATA_FLOAT, false), v = t4(10, YD, 0, CUDNN_DATA_FLOAT, true);
    bd cd = conv_desc2(1, 1, CUDNN_DATA_FLOAT);
    pw_param relu = pw_mode(CUDNN_POINTWISE_RELU_FWD), mx = pw_mode(CUDNN_POINTWISE_MAX);
    mx.nan = CUDNN_PROPAGATE_NAN;
    bd two[2] = {op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, x, w, y, cd, 1, 0),
                 op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, x, w, y2, cd, 1, 0)};
    expect_refused(h, two, 2, "two convolutions");
    bd conv_v = op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, x, w, v, cd, 1, 0);
    bd branch[3] = {conv_v, op_pw(&relu, v, NULL, y2, 1, 1), op_pw(&relu, v, NULL, y3, 1, 1)};
    expect_refused(h, branch, 3, "a branch");
    bd nanmax[2] = {conv_v, op_pw(&mx, v, y, y2, 1, 1)};
    expect_refused(h, nanmax, 2, "MAX propagating NaN");
    bd dangling[1] = {op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, x, w, v, cd, 1, 0)};
    expect_refused(h, dangling, 1, "a virtual final output");
    release_all();
}

/* A bad variant pack fails before anything is written. */
static void test_bad_variant_pack(cudnnHandle_t h)
{
    bd x = t4(1, XD, 0, CUDNN_DATA_FLOAT, false), w = t4(2, WD, 0, CUDNN_DATA_FLOAT, false),
       y = t4(3, YD, 0, CUDNN_DATA_FLOAT, false), v = t4(10, YD, 0, CUDNN_DATA_FLOAT, true);
    pw_param tanh_f = pw_mode(CUDNN_POINTWISE_TANH_FWD);
    bd ops[2] = {op_conv(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, x, w, v, conv_desc2(1, 1, CUDNN_DATA_FLOAT), 1, 0),
                 op_pw(&tanh_f, v, NULL, y, 1, 1)};
    bd g = mk_graph(h, ops, 2);
    int64_t ws;
    cudnnStatus_t st;
    bd plan = mk_plan(h, g, 0, &ws, &st);
    CHECK(plan != NULL && ws > 0);   /* the virtual tensor needs room */
    static float out[YE];
    if (plan) {
        int64_t uids[3] = {1, 2, 3};
        void *ptrs[3] = {gx, gw, out};
        fill_nan(out, YE);
        CHECK_STATUS(run_plan(h, plan, 3, uids, ptrs, NULL), CUDNN_STATUS_BAD_PARAM);
        void *buf = malloc((size_t)ws);
        CHECK_STATUS(run_plan(h, plan, 2, uids, ptrs, buf), CUDNN_STATUS_BAD_PARAM);   /* no y */
        int64_t wrong[3] = {1, 2, 7};
        CHECK_STATUS(run_plan(h, plan, 3, wrong, ptrs, buf), CUDNN_STATUS_BAD_PARAM);
        int touched = 0;
        for (int i = 0; i < YE; i++)
            touched += !isnan(out[i]);
        CHECK_EQ_INT(touched, 0);
        CHECK_OK(run_plan(h, plan, 3, uids, ptrs, buf));
        free(buf);
        CHECK(!isnan(out[0]) && fabsf(out[0]) <= 1);
    }
    release_all();
}

int main(void)
{
    fill(gx, XE, 11), fill(gw, WE, 12), fill(gdy, YE, 13), fill(gact, XE, 14);
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    SECTION("engine 0 of the backward directions needs no workspace"), test_engine0_no_workspace(h);
    SECTION("dgrad + drelu, NCHW"), test_dgrad_drelu(h, 0);
    SECTION("dgrad + drelu, NHWC"), test_dgrad_drelu(h, 1);
    SECTION("wgrad + scale, NCHW"), test_wgrad_scale(h, 0);
    SECTION("wgrad + scale, NHWC"), test_wgrad_scale(h, 1);
    SECTION("matmul + bias + gelu, float"), test_matmul(h, CUDNN_DATA_FLOAT);
    SECTION("matmul + bias + gelu, half"), test_matmul(h, CUDNN_DATA_HALF);
    SECTION("pointwise chain without a head"), test_pointwise_only(h);
    SECTION("relu and NaN"), test_relu_nan(h);
    SECTION("gelu accuracy"), test_gelu_accuracy(h);
    SECTION("refused graphs"), test_refusals(h);
    SECTION("bad variant packs"), test_bad_variant_pack(h);
    cudnnDestroy(h);
    return hd_test_finish();
}
