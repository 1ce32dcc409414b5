/*
 * API logging shows only the calls the user made.  With CUDNN_LOGINFO_DBG=1 and a logging
 * callback, a backend convolution graph (forward and backward filter, which runs in another
 * sub-library), the fused ops built around a convolution (CONV_BNSTATS and WGRAD, with an
 * activation descriptor), a folded convolution (stride 1 and stride 2) and the legacy RNN
 * Find calls (which time the computation, size its workspace and fill algorithm descriptors
 * and check an inter-layer dropout descriptor) must log exactly
 * the cuDNN functions this program calls, in the order it calls them: internal code reaches
 * descriptors, the convolution engine and its sibling libraries through hd_ functions, never
 * through the exported, logging cudnn* entry points.
 *
 * Every call of this program goes through CALL(), which notes the function's name; the
 * callback notes the name of every info record.  The two lists must be equal.
 */
#define _DEFAULT_SOURCE /* setenv */
#include <cudnn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

#define MAX_CALLS 512
#define NAME_LEN 64

static char made[MAX_CALLS][NAME_LEN], logged[MAX_CALLS][NAME_LEN];
static int nmade, nlogged, recording;

static void note(char (*list)[NAME_LEN], int *n, const char *name, size_t len)
{
    if (*n >= MAX_CALLS)
        return;
    if (len >= NAME_LEN)
        len = NAME_LEN - 1;
    memcpy(list[*n], name, len);
    list[*n][len] = 0;
    (*n)++;
}

/* Call records begin "I! CuDNN (v8100) function NAME() called:" and list the arguments; info
 * messages (a solver's note, say) have the same first line but give a "Reason:" instead. */
static void on_log(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)udata;
    (void)dbg;
    if (sev != CUDNN_SEV_INFO || !recording || strstr(msg, "; Reason: "))
        return;
    const char *p = strstr(msg, "function ");
    const char *e = p ? strstr(p, "() called") : NULL;
    if (!p || !e)
        note(logged, &nlogged, "(unparsed record)", 17);
    else
        note(logged, &nlogged, p + 9, (size_t)(e - (p + 9)));
}

/* Call F(...) and note that this program called F. */
#define CALL(f, ...) (note(made, &nmade, #f, strlen(#f)), f(__VA_ARGS__))

static void start(void)
{
    nmade = nlogged = 0;
    recording = 1;
}

/* The records since start() are exactly the calls since start(). */
static void compare(const char *what)
{
    recording = 0;
    CHECK_MSG(nmade > 0 && nmade < MAX_CALLS, "%s: %d calls noted", what, nmade);
    int n = nmade < nlogged ? nmade : nlogged;
    int first = -1;
    for (int i = 0; i < n && first < 0; i++)
        if (strcmp(made[i], logged[i]) != 0)
            first = i;
    if (first < 0 && nmade != nlogged)
        first = n;
    CHECK_MSG(first < 0, "%s: %d calls made, %d logged; first difference at %d: made %s, logged %s", what, nmade,
              nlogged, first, first >= 0 && first < nmade ? made[first] : "(none)",
              first >= 0 && first < nlogged ? logged[first] : "(none)");
}

static cudnnHandle_t h;

/* ---- the backend API: one convolution per graph ---- */

typedef cudnnBackendDescriptor_t bd;

static bd tensor(int64_t uid, const int64_t dims[4])
{
    bd t;
    int64_t strides[4], s = 1, align = 4;
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    for (int i = 3; i >= 0; i--) {
        strides[i] = s;
        s *= dims[i];
    }
    CHECK_OK(CALL(cudnnBackendCreateDescriptor, CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    CHECK_OK(CALL(cudnnBackendSetAttribute, t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
    CHECK_OK(CALL(cudnnBackendSetAttribute, t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
    CHECK_OK(CALL(cudnnBackendSetAttribute, t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
    CHECK_OK(CALL(cudnnBackendSetAttribute, t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    CHECK_OK(CALL(cudnnBackendSetAttribute, t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
    CHECK_OK(CALL(cudnnBackendFinalize, t));
    return t;
}

static bd convolution(void)
{
    bd c;
    int64_t sd = 2, p[2] = {1, 1}, s[2] = {1, 1}, d[2] = {1, 1};
    cudnnDataType_t ct = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    CHECK_OK(CALL(cudnnBackendCreateDescriptor, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &c));
    CHECK_OK(CALL(cudnnBackendSetAttribute, c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &sd));
    CHECK_OK(CALL(cudnnBackendSetAttribute, c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct));
    CHECK_OK(CALL(cudnnBackendSetAttribute, c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
    CHECK_OK(CALL(cudnnBackendSetAttribute, c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, p));
    CHECK_OK(CALL(cudnnBackendSetAttribute, c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, p));
    CHECK_OK(CALL(cudnnBackendSetAttribute, c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, s));
    CHECK_OK(CALL(cudnnBackendSetAttribute, c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, d));
    CHECK_OK(CALL(cudnnBackendFinalize, c));
    return c;
}

/* Build, plan and execute one graph: forward (FILTER_GRAD 0) or backward filter. */
static void backend_graph(int filter_grad)
{
    int64_t xd[4] = {2, 4, 6, 6}, wd[4] = {3, 4, 3, 3}, yd[4] = {2, 3, 6, 6};
    bd x = tensor(101, xd), w = tensor(102, wd), y = tensor(103, yd), c = convolution(), op, g, e, cfg, plan, vp;
    double alpha = 1, beta = 0;
    cudnnBackendDescriptorType_t type = filter_grad ? CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR
                                                    : CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR;
    cudnnBackendAttributeName_t ax = filter_grad ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X
                                                 : CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                                aw = filter_grad ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW
                                                 : CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                                ay = filter_grad ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY
                                                 : CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                                ac = filter_grad ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC
                                                 : CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                aa = filter_grad ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA
                                                 : CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                                ab = filter_grad ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA
                                                 : CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA;
    CHECK_OK(CALL(cudnnBackendCreateDescriptor, type, &op));
    CHECK_OK(CALL(cudnnBackendSetAttribute, op, ax, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    CHECK_OK(CALL(cudnnBackendSetAttribute, op, aw, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w));
    CHECK_OK(CALL(cudnnBackendSetAttribute, op, ay, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    CHECK_OK(CALL(cudnnBackendSetAttribute, op, ac, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c));
    CHECK_OK(CALL(cudnnBackendSetAttribute, op, aa, CUDNN_TYPE_DOUBLE, 1, &alpha));
    CHECK_OK(CALL(cudnnBackendSetAttribute, op, ab, CUDNN_TYPE_DOUBLE, 1, &beta));
    CHECK_OK(CALL(cudnnBackendFinalize, op));

    int64_t idx = 0, ws = -1, cnt = 0, uids[3] = {101, 102, 103};
    CHECK_OK(CALL(cudnnBackendCreateDescriptor, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    CHECK_OK(CALL(cudnnBackendSetAttribute, g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
    CHECK_OK(CALL(cudnnBackendSetAttribute, g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    CHECK_OK(CALL(cudnnBackendFinalize, g));
    CHECK_OK(CALL(cudnnBackendCreateDescriptor, CUDNN_BACKEND_ENGINE_DESCRIPTOR, &e));
    CHECK_OK(CALL(cudnnBackendSetAttribute, e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    CHECK_OK(CALL(cudnnBackendSetAttribute, e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx));
    CHECK_OK(CALL(cudnnBackendFinalize, e));
    CHECK_OK(CALL(cudnnBackendCreateDescriptor, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    CHECK_OK(CALL(cudnnBackendSetAttribute, cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e));
    CHECK_OK(CALL(cudnnBackendFinalize, cfg));
    CHECK_OK(CALL(cudnnBackendCreateDescriptor, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    CHECK_OK(CALL(cudnnBackendSetAttribute, plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    CHECK_OK(CALL(cudnnBackendSetAttribute, plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                  CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    CHECK_OK(CALL(cudnnBackendFinalize, plan));
    CHECK_OK(CALL(cudnnBackendGetAttribute, plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &cnt,
                  &ws));
    CHECK(ws >= 0);
    float *xb = calloc(2 * 4 * 36, sizeof(float)), *wb = calloc(3 * 4 * 9, sizeof(float));
    float *yb = calloc(2 * 3 * 36, sizeof(float));
    void *wsp = malloc(ws > 0 ? (size_t)ws : 1), *ptrs[3] = {xb, wb, yb};
    CHECK_OK(CALL(cudnnBackendCreateDescriptor, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp));
    CHECK_OK(CALL(cudnnBackendSetAttribute, vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
    CHECK_OK(CALL(cudnnBackendSetAttribute, vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs));
    CHECK_OK(CALL(cudnnBackendSetAttribute, vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &wsp));
    CHECK_OK(CALL(cudnnBackendFinalize, vp));
    CHECK_OK(CALL(cudnnBackendExecute, h, plan, vp));
    bd all[] = {vp, plan, cfg, e, g, op, c, y, w, x};
    for (int i = 0; i < 10; i++)
        CHECK_OK(CALL(cudnnBackendDestroyDescriptor, all[i]));
    free(wsp);
    free(xb);
    free(wb);
    free(yb);
}

/* BYTES rounded up to whole 64-byte blocks, 64-byte aligned (the fused ops' placeholders say
 * 16-byte aligned). */
static void *buf(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
}

/* ---- fused ops: scale/bias/ReLU + convolution (+ statistics), and its weight gradient ---- */

static void fused(int wgrad)
{
    const int N = 2, C = 4, H = 6, W = 6, K = 3;
    cudnnFusedOps_t opk = wgrad ? CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD : CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    cudnnTensorDescriptor_t xd, yd, eqd, statd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad, back;
    CHECK_OK(CALL(cudnnCreateTensorDescriptor, &xd));
    CHECK_OK(CALL(cudnnCreateTensorDescriptor, &yd));
    CHECK_OK(CALL(cudnnCreateTensorDescriptor, &eqd));
    CHECK_OK(CALL(cudnnCreateTensorDescriptor, &statd));
    CHECK_OK(CALL(cudnnCreateFilterDescriptor, &wd));
    CHECK_OK(CALL(cudnnCreateConvolutionDescriptor, &cd));
    CHECK_OK(CALL(cudnnCreateActivationDescriptor, &ad));
    CHECK_OK(CALL(cudnnCreateActivationDescriptor, &back));
    CHECK_OK(CALL(cudnnSetTensor4dDescriptor, xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, C, H, W));
    CHECK_OK(CALL(cudnnSetTensor4dDescriptor, yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, K, H, W));
    CHECK_OK(CALL(cudnnSetTensor4dDescriptor, eqd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 1, C, 1, 1));
    CHECK_OK(CALL(cudnnSetTensor4dDescriptor, statd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 1, K, 1, 1));
    CHECK_OK(CALL(cudnnSetFilter4dDescriptor, wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, K, C, 3, 3));
    CHECK_OK(CALL(cudnnSetConvolution2dDescriptor, cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_OK(CALL(cudnnSetActivationDescriptor, ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));

    cudnnFusedOpsConstParamPack_t p;
    cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
    cudnnFusedOpsPointerPlaceHolder_t al = CUDNN_PTR_16B_ALIGNED, none = CUDNN_PTR_NULL;
    CHECK_OK(CALL(cudnnCreateFusedOpsConstParamPack, &p, opk));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_XDESC, xd));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_XDATA_PLACEHOLDER, &al));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_BN_MODE, &mode));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqd));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, &al));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, &al));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_ACTIVATION_DESC, ad));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_CONV_DESC, cd));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, wgrad ? CUDNN_PARAM_DWDESC : CUDNN_PARAM_WDESC, wd));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p,
                  wgrad ? CUDNN_PARAM_DWDATA_PLACEHOLDER : CUDNN_PARAM_WDATA_PLACEHOLDER, &al));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, wgrad ? CUDNN_PARAM_DYDESC : CUDNN_PARAM_YDESC, yd));
    CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p,
                  wgrad ? CUDNN_PARAM_DYDATA_PLACEHOLDER : CUDNN_PARAM_YDATA_PLACEHOLDER, &al));
    if (!wgrad) {
        CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_YSTATS_DESC, statd));
        CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_YSUM_PLACEHOLDER, &al));
        CHECK_OK(CALL(cudnnSetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_YSQSUM_PLACEHOLDER, &none));
    }
    int is_null = -1;
    CHECK_OK(CALL(cudnnGetFusedOpsConstParamPackAttribute, p, CUDNN_PARAM_ACTIVATION_DESC, back, &is_null));
    CHECK(is_null == 0);

    cudnnFusedOpsPlan_t plan;
    size_t wsb = 0;
    CHECK_OK(CALL(cudnnCreateFusedOpsPlan, &plan, opk));
    CHECK_OK(CALL(cudnnMakeFusedOpsPlan, h, plan, p, &wsb));

    float *x = buf(sizeof(float) * (size_t)(N * C * H * W)), *w = buf(sizeof(float) * (size_t)(K * C * 9));
    float *y = buf(sizeof(float) * (size_t)(N * K * H * W));
    float *sc = buf(64), *bi = buf(64), *sum = buf(64);
    void *ws = buf(wsb);
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = (float)(i % 7) - 3;
    for (int i = 0; i < K * C * 9; i++)
        w[i] = (float)(i % 5) - 2;
    for (int i = 0; i < N * K * H * W; i++)
        y[i] = (float)(i % 3) - 1;
    for (int i = 0; i < 16; i++)
        sc[i] = 1, bi[i] = 0, sum[i] = 0;
    cudnnFusedOpsVariantParamPack_t v;
    CHECK_OK(CALL(cudnnCreateFusedOpsVariantParamPack, &v, opk));
    CHECK_OK(CALL(cudnnSetFusedOpsVariantParamPackAttribute, v, CUDNN_PTR_XDATA, x));
    CHECK_OK(CALL(cudnnSetFusedOpsVariantParamPackAttribute, v, CUDNN_PTR_BN_EQSCALE, sc));
    CHECK_OK(CALL(cudnnSetFusedOpsVariantParamPackAttribute, v, CUDNN_PTR_BN_EQBIAS, bi));
    CHECK_OK(CALL(cudnnSetFusedOpsVariantParamPackAttribute, v, wgrad ? CUDNN_PTR_DWDATA : CUDNN_PTR_WDATA, w));
    CHECK_OK(CALL(cudnnSetFusedOpsVariantParamPackAttribute, v, wgrad ? CUDNN_PTR_DYDATA : CUDNN_PTR_YDATA, y));
    if (!wgrad)
        CHECK_OK(CALL(cudnnSetFusedOpsVariantParamPackAttribute, v, CUDNN_PTR_YSUM, sum));
    CHECK_OK(CALL(cudnnSetFusedOpsVariantParamPackAttribute, v, CUDNN_PTR_WORKSPACE, ws));
    CHECK_OK(CALL(cudnnSetFusedOpsVariantParamPackAttribute, v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &wsb));
    CHECK_OK(CALL(cudnnFusedOpsExecute, h, plan, v));

    CHECK_OK(CALL(cudnnDestroyFusedOpsVariantParamPack, v));
    CHECK_OK(CALL(cudnnDestroyFusedOpsPlan, plan));
    CHECK_OK(CALL(cudnnDestroyFusedOpsConstParamPack, p));
    CHECK_OK(CALL(cudnnDestroyActivationDescriptor, back));
    CHECK_OK(CALL(cudnnDestroyActivationDescriptor, ad));
    CHECK_OK(CALL(cudnnDestroyConvolutionDescriptor, cd));
    CHECK_OK(CALL(cudnnDestroyFilterDescriptor, wd));
    CHECK_OK(CALL(cudnnDestroyTensorDescriptor, statd));
    CHECK_OK(CALL(cudnnDestroyTensorDescriptor, eqd));
    CHECK_OK(CALL(cudnnDestroyTensorDescriptor, yd));
    CHECK_OK(CALL(cudnnDestroyTensorDescriptor, xd));
    free(x);
    free(w);
    free(y);
    free(sc);
    free(bi);
    free(sum);
    free(ws);
}

/* ---- the folded convolution: stride 1 (identity transforms) or 2 (space-to-depth) ---- */

static void folded(int stride)
{
    cudnnFilterDescriptor_t w, fw;
    cudnnTensorDescriptor_t dy, dx, pdy, fdx;
    cudnnConvolutionDescriptor_t c, fc;
    cudnnTensorTransformDescriptor_t t[4];
    CHECK_OK(CALL(cudnnCreateFilterDescriptor, &w));
    CHECK_OK(CALL(cudnnCreateFilterDescriptor, &fw));
    CHECK_OK(CALL(cudnnCreateTensorDescriptor, &dy));
    CHECK_OK(CALL(cudnnCreateTensorDescriptor, &dx));
    CHECK_OK(CALL(cudnnCreateTensorDescriptor, &pdy));
    CHECK_OK(CALL(cudnnCreateTensorDescriptor, &fdx));
    CHECK_OK(CALL(cudnnCreateConvolutionDescriptor, &c));
    CHECK_OK(CALL(cudnnCreateConvolutionDescriptor, &fc));
    for (int i = 0; i < 4; i++)
        CHECK_OK(CALL(cudnnCreateTensorTransformDescriptor, &t[i]));
    int H = 8, out = (H + 2 - 3) / stride + 1;
    CHECK_OK(CALL(cudnnSetFilter4dDescriptor, w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 3, 3, 3));
    CHECK_OK(CALL(cudnnSetTensor4dDescriptor, dx, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, H, H));
    CHECK_OK(CALL(cudnnSetTensor4dDescriptor, dy, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 4, out, out));
    CHECK_OK(CALL(cudnnSetConvolution2dDescriptor, c, 1, 1, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION,
                  CUDNN_DATA_FLOAT));
    CHECK_OK(CALL(cudnnGetFoldedConvBackwardDataDescriptors, h, w, dy, c, dx, CUDNN_TENSOR_NHWC, fw, pdy, fc, fdx,
                  t[0], t[1], t[2], t[3]));
    for (int i = 0; i < 4; i++)
        CHECK_OK(CALL(cudnnDestroyTensorTransformDescriptor, t[i]));
    CHECK_OK(CALL(cudnnDestroyConvolutionDescriptor, fc));
    CHECK_OK(CALL(cudnnDestroyConvolutionDescriptor, c));
    CHECK_OK(CALL(cudnnDestroyTensorDescriptor, fdx));
    CHECK_OK(CALL(cudnnDestroyTensorDescriptor, pdy));
    CHECK_OK(CALL(cudnnDestroyTensorDescriptor, dx));
    CHECK_OK(CALL(cudnnDestroyTensorDescriptor, dy));
    CHECK_OK(CALL(cudnnDestroyFilterDescriptor, fw));
    CHECK_OK(CALL(cudnnDestroyFilterDescriptor, w));
}

/* ---- the legacy RNN Find calls: a 2-layer LSTM with a dropout descriptor of probability 0 ---- */

static cudnnTensorDescriptor_t tensor3(int a, int b, int c)
{
    cudnnTensorDescriptor_t t;
    int d[3] = {a, b, c}, st[3] = {b * c, c, 1};
    CHECK_OK(CALL(cudnnCreateTensorDescriptor, &t));
    CHECK_OK(CALL(cudnnSetTensorNdDescriptor, t, CUDNN_DATA_FLOAT, 3, d, st));
    return t;
}

static void rnn_find(void)
{
    enum { T = 3, B = 2, IN = 4, HID = 5, L = 2 };
    cudnnDropoutDescriptor_t drop;
    cudnnRNNDescriptor_t r;
    size_t ssize = 0, psize = 0, ws_size = 0, rs_size = 0;
    CHECK_OK(CALL(cudnnCreateDropoutDescriptor, &drop));
    CHECK_OK(CALL(cudnnDropoutGetStatesSize, h, &ssize));
    void *states = buf(ssize);
    CHECK_OK(CALL(cudnnSetDropoutDescriptor, drop, h, 0.0f, states, ssize, 1234ull));
    CHECK_OK(CALL(cudnnCreateRNNDescriptor, &r));
    CHECK_OK(CALL(cudnnSetRNNDescriptor_v6, h, r, HID, L, drop, CUDNN_LINEAR_INPUT, CUDNN_UNIDIRECTIONAL, CUDNN_LSTM,
                  CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_FLOAT));
    cudnnTensorDescriptor_t xs[T], ys[T], st = tensor3(L, B, HID);
    for (int t = 0; t < T; t++) {
        xs[t] = tensor3(B, IN, 1);
        ys[t] = tensor3(B, HID, 1);
    }
    CHECK_OK(CALL(cudnnGetRNNParamsSize, h, r, xs[0], &psize, CUDNN_DATA_FLOAT));
    CHECK_OK(CALL(cudnnGetRNNWorkspaceSize, h, r, T, xs, &ws_size));
    CHECK_OK(CALL(cudnnGetRNNTrainingReserveSize, h, r, T, xs, &rs_size));
    cudnnFilterDescriptor_t wd;
    int wdims[3] = {(int)(psize / sizeof(float)), 1, 1};
    CHECK_OK(CALL(cudnnCreateFilterDescriptor, &wd));
    CHECK_OK(CALL(cudnnSetFilterNdDescriptor, wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, wdims));
    size_t nx = (size_t)T * B * IN, ny = (size_t)T * B * HID, nh = (size_t)L * B * HID;
    float *w = buf(psize), *dw = buf(psize), *x = buf(nx * 4), *y = buf(ny * 4), *dy = buf(ny * 4), *dx = buf(nx * 4);
    float *hx = buf(nh * 4), *cx = buf(nh * 4), *hy = buf(nh * 4), *cy = buf(nh * 4), *dhx = buf(nh * 4);
    float *dcx = buf(nh * 4), *dhy = buf(nh * 4), *dcy = buf(nh * 4);
    void *ws = buf(ws_size), *rs = buf(rs_size);
    for (size_t i = 0; i < psize / 4; i++)
        w[i] = (float)((i * 7) % 13) * 0.02f - 0.1f, dw[i] = 0.0f;
    for (size_t i = 0; i < nx; i++)
        x[i] = (float)((i * 5) % 11) * 0.1f - 0.5f;
    for (size_t i = 0; i < ny; i++)
        dy[i] = (float)((i * 3) % 7) * 0.1f - 0.3f;
    for (size_t i = 0; i < nh; i++)
        hx[i] = cx[i] = dhy[i] = dcy[i] = 0.1f;
    cudnnAlgorithmPerformance_t perf;
    int got = 0;
    CHECK_OK(CALL(cudnnCreateAlgorithmPerformance, &perf, 1));
    /* each Find hands the caller a new algorithm descriptor in perf: take it and destroy it */
    cudnnAlgorithmDescriptor_t ad = NULL;
    cudnnStatus_t status;
    float ms = 0;
    size_t mem = 0;
#define TAKE()                                                                   \
    do {                                                                         \
        CHECK_OK(CALL(cudnnGetAlgorithmPerformance, perf, &ad, &status, &ms, &mem)); \
        CHECK_MSG(mem == ws_size, "Find reports %zu workspace bytes, cudnnGetRNNWorkspaceSize %zu", mem, ws_size); \
        CHECK_OK(CALL(cudnnDestroyAlgorithmDescriptor, ad));                     \
    } while (0)
    CHECK_OK(CALL(cudnnFindRNNForwardInferenceAlgorithmEx, h, r, T, xs, x, st, hx, st, cx, wd, w, ys, y, st, hy, st,
                  cy, 0.0f, 1, &got, &perf, ws, ws_size));
    TAKE();
    CHECK_OK(CALL(cudnnFindRNNForwardTrainingAlgorithmEx, h, r, T, xs, x, st, hx, st, cx, wd, w, ys, y, st, hy, st,
                  cy, 0.0f, 1, &got, &perf, ws, ws_size, rs, rs_size));
    TAKE();
    CHECK_OK(CALL(cudnnFindRNNBackwardDataAlgorithmEx, h, r, T, ys, y, ys, dy, st, dhy, st, dcy, wd, w, st, hx, st,
                  cx, xs, dx, st, dhx, st, dcx, 0.0f, 1, &got, &perf, ws, ws_size, rs, rs_size));
    TAKE();
    CHECK_OK(CALL(cudnnFindRNNBackwardWeightsAlgorithmEx, h, r, T, xs, x, st, hx, ys, y, 0.0f, 1, &got, &perf, ws,
                  ws_size, wd, dw, rs, rs_size));
    TAKE();
#undef TAKE
    CHECK_OK(CALL(cudnnDestroyAlgorithmPerformance, &perf, 1));
    CHECK_OK(CALL(cudnnDestroyFilterDescriptor, wd));
    for (int t = 0; t < T; t++) {
        CHECK_OK(CALL(cudnnDestroyTensorDescriptor, xs[t]));
        CHECK_OK(CALL(cudnnDestroyTensorDescriptor, ys[t]));
    }
    CHECK_OK(CALL(cudnnDestroyTensorDescriptor, st));
    CHECK_OK(CALL(cudnnDestroyRNNDescriptor, r));
    CHECK_OK(CALL(cudnnDestroyDropoutDescriptor, drop));
    void *bufs[] = {w, dw, x, y, dy, dx, hx, cx, hy, cy, dhx, dcx, dhy, dcy, ws, rs, states};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
}

int main(void)
{
    /* Before the first cuDNN call: the logging environment is read once. */
    setenv("CUDNN_LOGINFO_DBG", "1", 1);
    setenv("CUDNN_LOGDEST_DBG", "/dev/null", 1);   /* the records before the callback */
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS) {
        printf("0 passed, 1 failed\n");
        return 1;
    }
    CHECK_OK(cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, on_log));

    SECTION("backend forward");
    start();
    backend_graph(0);
    compare("backend forward convolution");
    SECTION("backend backward filter");
    start();
    backend_graph(1);
    compare("backend backward-filter convolution");
    SECTION("fused conv + statistics");
    start();
    fused(0);
    compare("fused CONV_BNSTATS");
    SECTION("fused wgrad");
    start();
    fused(1);
    compare("fused WGRAD");
    SECTION("folded stride 1");
    start();
    folded(1);
    compare("folded convolution, stride 1");
    SECTION("folded stride 2");
    start();
    folded(2);
    compare("folded convolution, stride 2");
    SECTION("legacy RNN find");
    start();
    rnn_find();
    compare("legacy RNN Find (LSTM, 2 layers, dropout descriptor)");

    cudnnSetCallback(0, NULL, NULL);
    cudnnDestroy(h);
    return hd_test_finish();
}
