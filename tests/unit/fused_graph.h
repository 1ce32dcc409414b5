/*
 * Builders for the fused-graph tests (test_backend_fused*.c): tensors in NCHW or NHWC,
 * convolution, pointwise and matmul operations, graphs, plans of a given engine, and
 * execution through a variant pack -- all through the public cudnnBackend* calls.  Include
 * after harness.h and unit/backend_util.h.
 */
#ifndef HD_TEST_FUSED_GRAPH_H
#define HD_TEST_FUSED_GRAPH_H

#include <cudnn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OBJS 512

/* Every descriptor a test makes, destroyed together. */
static bd g_objs[MAX_OBJS];
static int g_nobjs;

static inline bd keep(bd d)
{
    if (g_nobjs < MAX_OBJS)
        g_objs[g_nobjs++] = d;
    return d;
}

static inline void release_all(void)
{
    for (int i = 0; i < g_nobjs; i++)
        cudnnBackendDestroyDescriptor(g_objs[i]);
    g_nobjs = 0;
}

/* A 4-d tensor (n, c, h, w) stored NCHW (nhwc = 0) or NHWC (nhwc = 1). */
static inline void strides4(const int64_t *d, int nhwc, int64_t *s)
{
    if (nhwc) {
        s[1] = 1, s[3] = d[1], s[2] = d[1] * d[3], s[0] = d[1] * d[3] * d[2];
    } else {
        s[3] = 1, s[2] = d[3], s[1] = d[2] * d[3], s[0] = d[1] * d[2] * d[3];
    }
}

static inline bd t4(int64_t uid, const int64_t *d, int nhwc, cudnnDataType_t dt, bool virt)
{
    int64_t s[4];
    strides4(d, nhwc, s);
    return keep(mk_tensor_full(uid, 4, d, s, dt, virt, 1));
}

/* Offset of (n, c, h, w) in a tensor of dims D stored as NHWC says. */
static inline size_t off4(const int64_t *d, int nhwc, int64_t n, int64_t c, int64_t h, int64_t w)
{
    int64_t s[4];
    strides4(d, nhwc, s);
    return (size_t)(n * s[0] + c * s[1] + h * s[2] + w * s[3]);
}

static inline bd conv_desc2(int64_t pad, int64_t stride, cudnnDataType_t comp)
{
    bd c;
    int64_t sd = 2, p[2] = {pad, pad}, s[2] = {stride, stride}, dl[2] = {1, 1};
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &c);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &sd);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, p);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, p);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, s);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dl);
    CHECK_OK(cudnnBackendFinalize(c));
    return keep(c);
}

/* A matmul operation C = A x B with float compute (its matmul descriptor kept too). */
static inline bd op_matmul(bd a, bd b, bd c)
{
    bd md, mm;
    cudnnDataType_t comp = CUDNN_DATA_FLOAT;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_MATMUL_DESCRIPTOR, &md);
    cudnnBackendSetAttribute(md, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
    CHECK_OK(cudnnBackendFinalize(md));
    keep(md);
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &mm);
    cudnnBackendSetAttribute(mm, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
    cudnnBackendSetAttribute(mm, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    cudnnBackendSetAttribute(mm, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
    cudnnBackendSetAttribute(mm, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &md);
    CHECK_OK(cudnnBackendFinalize(mm));
    return keep(mm);
}

/* A convolution operation of TYPE; x, w, y in the forward sense (dx, w, dy for backward data,
 * x, dw, dy for backward filter). */
static inline bd op_conv(cudnnBackendDescriptorType_t type, bd x, bd w, bd y, bd conv, double alpha, double beta)
{
    cudnnBackendAttributeName_t nx, nw, ny, nc, na, nb;
    if (type == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR) {
        nx = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, nw = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W;
        ny = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, nc = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC;
        na = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, nb = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA;
    } else if (type == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR) {
        nx = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, nw = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W;
        ny = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, nc = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC;
        na = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, nb = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA;
    } else {
        nx = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, nw = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW;
        ny = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, nc = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC;
        na = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, nb = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA;
    }
    bd op;
    cudnnBackendCreateDescriptor(type, &op);
    cudnnBackendSetAttribute(op, nx, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    cudnnBackendSetAttribute(op, nw, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
    cudnnBackendSetAttribute(op, ny, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    cudnnBackendSetAttribute(op, nc, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
    cudnnBackendSetAttribute(op, na, CUDNN_TYPE_DOUBLE, 1, &alpha);
    cudnnBackendSetAttribute(op, nb, CUDNN_TYPE_DOUBLE, 1, &beta);
    CHECK_OK(cudnnBackendFinalize(op));
    return keep(op);
}

/* Pointwise parameters; NAN leaves an attribute at its default. */
typedef struct {
    cudnnPointwiseMode_t mode;
    double lo, hi, slope, elu, softplus, swish;
    cudnnNanPropagation_t nan;
} pw_param;

static inline bd pw_desc(const pw_param *q)
{
    bd d;
    cudnnDataType_t prec = CUDNN_DATA_FLOAT;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &d);
    cudnnBackendSetAttribute(d, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &q->mode);
    cudnnBackendSetAttribute(d, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
    if (q->nan == CUDNN_PROPAGATE_NAN)
        cudnnBackendSetAttribute(d, CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION, 1, &q->nan);
    const struct { cudnnBackendAttributeName_t n; double v; } opt[] = {
        {CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, q->lo}, {CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, q->hi},
        {CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, q->slope}, {CUDNN_ATTR_POINTWISE_ELU_ALPHA, q->elu},
        {CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, q->softplus}, {CUDNN_ATTR_POINTWISE_SWISH_BETA, q->swish}};
    for (unsigned i = 0; i < sizeof opt / sizeof *opt; i++)
        if (!isnan(opt[i].v))
            cudnnBackendSetAttribute(d, opt[i].n, CUDNN_TYPE_DOUBLE, 1, &opt[i].v);
    CHECK_OK(cudnnBackendFinalize(d));
    return keep(d);
}

static inline pw_param pw_mode(cudnnPointwiseMode_t m)
{
    pw_param q = {m, NAN, NAN, NAN, NAN, NAN, NAN, CUDNN_NOT_PROPAGATE_NAN};
    return q;
}

/* A forward pointwise operation y = op(x, b) (b NULL for unary modes). */
static inline bd op_pw(const pw_param *q, bd x, bd b, bd y, double a1, double a2)
{
    bd op, d = pw_desc(q);
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    if (b)
        cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_DOUBLE, 1, &a1);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_DOUBLE, 1, &a2);
    CHECK_OK(cudnnBackendFinalize(op));
    return keep(op);
}

/* A backward pointwise operation dx = act'(x) dy. */
static inline bd op_pw_bwd(const pw_param *q, bd dy, bd x, bd dx)
{
    bd op, d = pw_desc(q);
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &dy);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &dx);
    CHECK_OK(cudnnBackendFinalize(op));
    return keep(op);
}

static inline bd mk_graph(cudnnHandle_t h, bd *ops, int n)
{
    bd g;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g);
    cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, ops);
    cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    CHECK_OK(cudnnBackendFinalize(g));
    return keep(g);
}

static inline int64_t engine_count(bd g)
{
    int64_t n = -1, cnt;
    cudnnBackendGetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &cnt, &n);
    return n;
}

/* The plan of engine INDEX, or NULL with *st set (engine or plan refused). */
static inline bd mk_plan(cudnnHandle_t h, bd g, int64_t index, int64_t *ws, cudnnStatus_t *st)
{
    bd e, cfg, plan;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &e);
    keep(e);
    cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
    cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &index);
    if ((*st = cudnnBackendFinalize(e)) != CUDNN_STATUS_SUCCESS)
        return NULL;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg);
    keep(cfg);
    cudnnBackendSetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e);
    if ((*st = cudnnBackendFinalize(cfg)) != CUDNN_STATUS_SUCCESS)
        return NULL;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
    keep(plan);
    cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
    if ((*st = cudnnBackendFinalize(plan)) != CUDNN_STATUS_SUCCESS)
        return NULL;
    int64_t cnt;
    *ws = -1;
    cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &cnt, ws);
    return plan;
}

/* Run PLAN with N (uid, pointer) pairs and a workspace of WS bytes (NULL when 0 and !force). */
static inline cudnnStatus_t run_plan(cudnnHandle_t h, bd plan, int n, const int64_t *uids, void *const *ptrs, void *ws)
{
    bd vp;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
    cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids);
    cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs);
    cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
    cudnnStatus_t st = cudnnBackendFinalize(vp);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendExecute(h, plan, vp);
    cudnnBackendDestroyDescriptor(vp);
    return st;
}

/* The engine indices the heuristics return for G (up to MAX); the count. */
static inline int heur_engines(bd g, int64_t *out, int max)
{
    bd heur;
    cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_INSTANT;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur);
    cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
    cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    CHECK_OK(cudnnBackendFinalize(heur));
    int64_t cnt = 0;
    cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &cnt, NULL);
    int n = (int)(cnt < max ? cnt : max);
    bd cfgs[16];
    for (int i = 0; i < n; i++)
        cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]);
    cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, &cnt, cfgs);
    for (int i = 0; i < n; i++) {
        bd e;
        cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &e);
        cudnnBackendGetAttribute(cfgs[i], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cnt, &e);
        cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &cnt, &out[i]);
        cudnnBackendDestroyDescriptor(e);
        cudnnBackendDestroyDescriptor(cfgs[i]);
    }
    cudnnBackendDestroyDescriptor(heur);
    return n;
}

/* Deterministic pseudo-random values in [-1, 1). */
static inline void fill(float *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

static inline void fill_nan(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;
}

#endif
