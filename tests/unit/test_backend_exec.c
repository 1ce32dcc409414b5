/*
 * Backend API execution: engine heuristics, execution plans and cudnnBackendExecute of
 * single convolution graphs (forward against a float64 reference, backward data and
 * backward filter plans).  Descriptor creation, round trips and Finalize validation are in
 * test_backend.c.
 */
#include <cudnn.h>
#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "harness.h"
#include "unit/backend_util.h"

/* Build the forward convolution operation x(1,4,5,5) * w(6,2,3,3), 2 groups, pad 1 -> y(1,6,5,5). */
static bd conv_fwd_op(bd *x, bd *w, bd *y, bd *c, double alpha, double beta, int64_t y_h)
{
    int64_t xd[4] = {1, 4, 5, 5}, wd[4] = {6, 2, 3, 3}, yd[4] = {1, 6, y_h, 5};
    *x = mk_tensor(101, 4, xd);
    *w = mk_tensor(102, 4, wd);
    *y = mk_tensor(103, 4, yd);
    *c = mk_conv(1, 1, 1, CUDNN_CROSS_CORRELATION);
    bd op;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, x);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, w);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, y);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, c);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_DOUBLE, 1, &alpha);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_DOUBLE, 1, &beta);
    return op;
}

static void free_all(bd *d, int n)
{
    for (int i = 0; i < n; i++)
        if (d[i])
            cudnnBackendDestroyDescriptor(d[i]);
}

/* Naive reference for the forward case above. */
static void ref_conv(const float *x, const float *w, double alpha, double beta, float *y)
{
    for (int k = 0; k < 6; k++) {
        int g = k / 3;
        for (int oh = 0; oh < 5; oh++)
            for (int ow = 0; ow < 5; ow++) {
                double s = 0;
                for (int c = 0; c < 2; c++)
                    for (int r = 0; r < 3; r++)
                        for (int q = 0; q < 3; q++) {
                            int ih = oh + r - 1, iw = ow + q - 1;
                            if (ih < 0 || iw < 0 || ih >= 5 || iw >= 5)
                                continue;
                            s += (double)x[((g * 2 + c) * 5 + ih) * 5 + iw] * w[((k * 2 + c) * 3 + r) * 3 + q];
                        }
                float *out = &y[(k * 5 + oh) * 5 + ow];
                *out = (float)(alpha * s + (beta != 0 ? beta * *out : 0));
            }
    }
}

/* Plan and run a finalized single-operation graph; the variant pack maps uids 101..103 to P. */
static cudnnStatus_t run_single(cudnnHandle_t h, bd op, void *const p[3])
{
    bd g, e, cfg, plan, vp;
    int64_t idx = 0, ws = 0, cnt, uids[3] = {101, 102, 103};
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g);
    cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
    cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    cudnnStatus_t st = cudnnBackendFinalize(g);
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &e);
    cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
    cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendFinalize(e);
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg);
    cudnnBackendSetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendFinalize(cfg);
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
    cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendFinalize(plan);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &cnt, &ws);
    void *w = malloc((size_t)ws + 1);
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
    cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, p);
    cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &w);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendFinalize(vp);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnBackendExecute(h, plan, vp);
    free(w);
    bd all[] = {g, e, cfg, plan, vp};
    free_all(all, 5);
    return st;
}

/* Backward data and backward filter of the grouped case above, against naive references
 * (run only when the legacy convolution API is in the build). */
static void backward_plans(cudnnHandle_t h)
{
    SECTION("backward plans");
    cudnnConvolutionDescriptor_t probe;
    if (cudnnCreateConvolutionDescriptor(&probe) != CUDNN_STATUS_SUCCESS) {
        SKIP("backward plans: the legacy convolution API is absent in this build");
        return;
    }
    cudnnDestroyConvolutionDescriptor(probe);
    int64_t xd[4] = {1, 4, 5, 5}, wd[4] = {6, 2, 3, 3}, yd[4] = {1, 6, 5, 5};
    bd x = mk_tensor(101, 4, xd), w = mk_tensor(102, 4, wd), y = mk_tensor(103, 4, yd);
    bd c = mk_conv(1, 1, 1, CUDNN_CROSS_CORRELATION);
    static float xb[100], wb[108], yb[150], ref[108];
    unsigned s = 9;
    for (int i = 0; i < 100; i++)
        xb[i] = (float)((s = s * 1103515245u + 12345u) >> 16 & 255) / 128.0f - 1;
    for (int i = 0; i < 108; i++)
        wb[i] = (float)((s = s * 1103515245u + 12345u) >> 16 & 255) / 128.0f - 1;
    for (int i = 0; i < 150; i++)
        yb[i] = (float)((s = s * 1103515245u + 12345u) >> 16 & 255) / 128.0f - 1;
    double alpha = 1.5, beta = 0;
    for (int kind = 0; kind < 2; kind++) {
        bd op;
        int data = kind == 0;
        cudnnBackendCreateDescriptor(data ? CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR
                                          : CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, &op);
        cudnnBackendSetAttribute(op, data ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX : CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
        cudnnBackendSetAttribute(op, data ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W : CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
        cudnnBackendSetAttribute(op, data ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY : CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
        cudnnBackendSetAttribute(op, data ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC
                                          : CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
        cudnnBackendSetAttribute(op, data ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA : CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
                                 CUDNN_TYPE_DOUBLE, 1, &alpha);
        cudnnBackendSetAttribute(op, data ? CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA : CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
                                 CUDNN_TYPE_DOUBLE, 1, &beta);
        CHECK_OK(cudnnBackendFinalize(op));
        /* Naive reference: dx (100 values) or dw (108 values); outputs start as NaN (beta = 0). */
        int nout = data ? 100 : 108;
        for (int i = 0; i < nout; i++)
            ref[i] = 0;
        for (int k = 0; k < 6; k++)
            for (int ci = 0; ci < 2; ci++)
                for (int r = 0; r < 3; r++)
                    for (int q = 0; q < 3; q++)
                        for (int oh = 0; oh < 5; oh++)
                            for (int ow = 0; ow < 5; ow++) {
                                int ih = oh + r - 1, iw = ow + q - 1, cin = (k / 3) * 2 + ci;
                                if (ih < 0 || iw < 0 || ih >= 5 || iw >= 5)
                                    continue;
                                float dyv = yb[(k * 5 + oh) * 5 + ow];
                                if (data)
                                    ref[(cin * 5 + ih) * 5 + iw] += wb[((k * 2 + ci) * 3 + r) * 3 + q] * dyv;
                                else
                                    ref[((k * 2 + ci) * 3 + r) * 3 + q] += xb[(cin * 5 + ih) * 5 + iw] * dyv;
                            }
        float *out = data ? xb : wb, keep[108];
        memcpy(keep, out, sizeof(float) * (size_t)nout);
        for (int i = 0; i < nout; i++)
            out[i] = NAN;
        void *ptrs[3] = {xb, wb, yb};
        CHECK_OK(run_single(h, op, ptrs));
        double worst = 0;
        for (int i = 0; i < nout; i++) {
            double d = isnan(out[i]) ? 1e9 : fabs(out[i] - alpha * ref[i]);
            worst = d > worst ? d : worst;
        }
        CHECK_MSG(worst < 1e-4, "%s: worst difference %g", data ? "backward data" : "backward filter", worst);
        memcpy(out, keep, sizeof(float) * (size_t)nout);
        cudnnBackendDestroyDescriptor(op);
    }
    bd all[] = {x, w, y, c};
    free_all(all, 4);
}

static void graph_engine_plan(cudnnHandle_t h)
{
    SECTION("graph, engine, heuristics, plan, execute");
    bd x, w, y, c, op = conv_fwd_op(&x, &w, &y, &c, 1.0, 0.0, 5);
    CHECK_OK(cudnnBackendFinalize(op));
    /* Get a referenced descriptor back into a caller-created one. */
    bd xcopy;
    int64_t cnt, v = 0;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &xcopy);
    CHECK_OK(cudnnBackendGetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &cnt, &xcopy));
    CHECK_OK(cudnnBackendGetAttribute(xcopy, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &cnt, &v));
    CHECK_EQ_INT(v, 101);
    bd wrong_kind;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &wrong_kind);
    CHECK_STATUS(cudnnBackendGetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                          &cnt, &wrong_kind), CUDNN_STATUS_BAD_PARAM);
    double a = 0;
    CHECK_OK(cudnnBackendGetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_DOUBLE, 1, &cnt, &a));
    CHECK(a == 1.0);
    /* The user's descriptors may go away: the operation holds copies. */
    cudnnBackendDestroyDescriptor(x);
    x = NULL;

    /* Wrong output shape, duplicate unique ids. */
    bd x2, w2, y2, c2, bad = conv_fwd_op(&x2, &w2, &y2, &c2, 1.0, 0.0, 4);
    CHECK_STATUS(cudnnBackendFinalize(bad), CUDNN_STATUS_BAD_PARAM);
    cudnnBackendDestroyDescriptor(bad);
    bd dup;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &dup);
    double one = 1, zero = 0;
    int64_t wdims[4] = {6, 2, 3, 3};
    bd w_as_x = mk_tensor(101, 4, wdims);   /* same unique id as x2 */
    cudnnBackendSetAttribute(dup, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x2);
    cudnnBackendSetAttribute(dup, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w_as_x);
    cudnnBackendSetAttribute(dup, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    cudnnBackendSetAttribute(dup, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
    cudnnBackendSetAttribute(dup, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_DOUBLE, 1, &one);
    CHECK_STATUS(cudnnBackendFinalize(dup), CUDNN_STATUS_BAD_PARAM);   /* no beta */
    cudnnBackendSetAttribute(dup, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_DOUBLE, 1, &zero);
    CHECK_STATUS(cudnnBackendFinalize(dup), CUDNN_STATUS_BAD_PARAM);   /* x2 and w share uid 101 */
    cudnnBackendSetAttribute(dup, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
    CHECK_OK(cudnnBackendFinalize(dup));
    cudnnBackendDestroyDescriptor(dup);
    cudnnBackendDestroyDescriptor(w_as_x);

    /* Graph. */
    bd g;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    CHECK_STATUS(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c),
                 CUDNN_STATUS_BAD_PARAM);   /* not an operation */
    CHECK_STATUS(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &c),
                 CUDNN_STATUS_BAD_PARAM);   /* not a handle */
    CHECK_OK(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
    CHECK_STATUS(cudnnBackendFinalize(g), CUDNN_STATUS_BAD_PARAM);      /* no handle */
    CHECK_OK(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    int64_t count = 0;
    CHECK_STATUS(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &count),
                 CUDNN_STATUS_BAD_PARAM);   /* computed */
    CHECK_OK(cudnnBackendFinalize(g));
    CHECK_OK(cudnnBackendGetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &cnt, &count));
    CHECK_EQ_INT(count, CUDNN_CONVOLUTION_FWD_ALGO_COUNT + 1);   /* engine 0, legacy algorithms 1..7, algorithm 0 */
    cudnnHandle_t gh = NULL;
    CHECK_OK(cudnnBackendGetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &cnt, &gh));
    CHECK(gh == h);

    /* Heuristics. */
    bd heur;
    cudnnBackendHeurMode_t hm = CUDNN_HEUR_MODE_INSTANT;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    CHECK_OK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    CHECK_OK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm));
    CHECK_OK(cudnnBackendFinalize(heur));
    CHECK_OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &cnt, NULL));
    CHECK(cnt >= 2 && cnt <= count);   /* every applicable config, engine 0 among them */
    bd cfg;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    CHECK_OK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cnt, &cfg));
    CHECK_EQ_INT(cnt, 1);
    bd eng;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng));
    CHECK_OK(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cnt, &eng));
    CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &cnt, &v));
    CHECK(v >= 0 && v < count);
    CHECK_OK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &cnt, NULL));
    CHECK_EQ_INT(cnt, 0);

    /* An engine built by hand: index 9 does not exist, -1 is invalid. */
    bd e2;
    int64_t idx = CUDNN_CONVOLUTION_FWD_ALGO_COUNT + 1;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &e2));
    cudnnBackendSetAttribute(e2, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
    cudnnBackendSetAttribute(e2, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx);
    CHECK_STATUS(cudnnBackendFinalize(e2), CUDNN_STATUS_NOT_SUPPORTED);
    idx = -1;
    cudnnBackendSetAttribute(e2, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx);
    CHECK_STATUS(cudnnBackendFinalize(e2), CUDNN_STATUS_BAD_PARAM);
    idx = 0;
    cudnnBackendSetAttribute(e2, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx);
    CHECK_OK(cudnnBackendFinalize(e2));
    /* Knob choices cannot apply to our engine. */
    bd cfg2, knob;
    cudnnBackendKnobType_t kt = CUDNN_KNOB_TYPE_SPLIT_K;
    int64_t kv = 2;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &knob);
    cudnnBackendSetAttribute(knob, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &kt);
    cudnnBackendSetAttribute(knob, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &kv);
    cudnnBackendFinalize(knob);
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg2));
    cudnnBackendSetAttribute(cfg2, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e2);
    CHECK_OK(cudnnBackendSetAttribute(cfg2, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &knob));
    CHECK_STATUS(cudnnBackendFinalize(cfg2), CUDNN_STATUS_NOT_SUPPORTED);

    /* Execution plan: runs when the legacy convolution API is in this build. */
    bd plan;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    CHECK_STATUS(cudnnBackendFinalize(plan), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    CHECK_OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    cudnnConvolutionDescriptor_t probe;
    int have_conv = cudnnCreateConvolutionDescriptor(&probe) == CUDNN_STATUS_SUCCESS;
    if (have_conv)
        cudnnDestroyConvolutionDescriptor(probe);
    cudnnStatus_t st = cudnnBackendFinalize(plan);
    CHECK_STATUS(st, have_conv ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED);
    if (!have_conv)
        SKIP("plan execution: the legacy convolution API is absent in this build");
    if (st == CUDNN_STATUS_SUCCESS) {
        int64_t ws = -1;
        CHECK_OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &cnt, &ws));
        CHECK(ws >= 0);
        static float xb[100], wb[108], yb[150], yr[150];
        unsigned s = 1;
        for (int i = 0; i < 100; i++)
            xb[i] = (float)((s = s * 1103515245u + 12345u) >> 16 & 255) / 128.0f - 1;
        for (int i = 0; i < 108; i++)
            wb[i] = (float)((s = s * 1103515245u + 12345u) >> 16 & 255) / 128.0f - 1;
        for (int i = 0; i < 150; i++)
            yb[i] = NAN;   /* beta = 0: never read */
        void *wsp = malloc((size_t)ws + 1);
        void *ptrs[3] = {xb, wb, yb};
        int64_t uids[3] = {101, 102, 103};
        bd vp;
        CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp));
        cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
        cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
        cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &wsp);
        CHECK_OK(cudnnBackendFinalize(vp));
        CHECK_OK(cudnnBackendExecute(h, plan, vp));
        ref_conv(xb, wb, 1.0, 0.0, yr);
        double worst = 0;
        for (int i = 0; i < 150; i++)
            worst = fabs(yb[i] - yr[i]) > worst || isnan(yb[i]) ? (isnan(yb[i]) ? 1e9 : fabs(yb[i] - yr[i])) : worst;
        CHECK_MSG(worst < 1e-4, "worst difference %g", worst);
        /* Missing unique id. */
        bd vp2;
        int64_t uids2[3] = {101, 102, 999};
        cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp2);
        cudnnBackendSetAttribute(vp2, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids2);
        cudnnBackendSetAttribute(vp2, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
        cudnnBackendFinalize(vp2);
        CHECK_STATUS(cudnnBackendExecute(h, plan, vp2), CUDNN_STATUS_BAD_PARAM);
        cudnnBackendDestroyDescriptor(vp2);
        cudnnBackendDestroyDescriptor(vp);
        free(wsp);
    }

    /* Execute: bad arguments. */
    bd vpe;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vpe);
    CHECK_STATUS(cudnnBackendExecute(h, plan, vpe), CUDNN_STATUS_BAD_PARAM);   /* pack not finalized */
    CHECK_OK(cudnnBackendFinalize(vpe));
    CHECK_STATUS(cudnnBackendExecute(h, vpe, vpe), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendExecute(h, plan, plan), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendExecute(NULL, plan, vpe), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendExecute(h, NULL, vpe), CUDNN_STATUS_BAD_PARAM);
    /* Variant pack with mismatched counts and duplicate ids. */
    bd vpb;
    int64_t ids[2] = {5, 5};
    void *ps[2] = {NULL, NULL};
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vpb);
    cudnnBackendSetAttribute(vpb, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 2, ids);
    cudnnBackendSetAttribute(vpb, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 1, ps);
    CHECK_STATUS(cudnnBackendFinalize(vpb), CUDNN_STATUS_BAD_PARAM);
    cudnnBackendSetAttribute(vpb, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 2, ps);
    CHECK_STATUS(cudnnBackendFinalize(vpb), CUDNN_STATUS_BAD_PARAM);

    /* A pointwise graph (a chain without head) has one engine. */
    int64_t td[4] = {1, 2, 3, 3};
    bd px = mk_tensor(1, 4, td), py = mk_tensor(2, 4, td), pw, pop, pg, ph;
    cudnnPointwiseMode_t pm = CUDNN_POINTWISE_RELU_FWD;
    cudnnDataType_t ct = CUDNN_DATA_FLOAT;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw);
    cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &pm);
    cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &ct);
    CHECK_OK(cudnnBackendFinalize(pw));
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &pop);
    cudnnBackendSetAttribute(pop, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
    cudnnBackendSetAttribute(pop, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &px);
    CHECK_STATUS(cudnnBackendFinalize(pop), CUDNN_STATUS_BAD_PARAM);   /* no y */
    cudnnBackendSetAttribute(pop, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &py);
    CHECK_OK(cudnnBackendFinalize(pop));
    double a1 = 0;
    CHECK_OK(cudnnBackendGetAttribute(pop, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_DOUBLE, 1, &cnt, &a1));
    CHECK(a1 == 1.0);
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &pg);
    cudnnBackendSetAttribute(pg, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pop);
    cudnnBackendSetAttribute(pg, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    CHECK_OK(cudnnBackendFinalize(pg));
    CHECK_OK(cudnnBackendGetAttribute(pg, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &cnt, &count));
    CHECK_EQ_INT(count, 1);
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &ph);
    cudnnBackendSetAttribute(ph, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pg);
    cudnnBackendSetAttribute(ph, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm);
    CHECK_OK(cudnnBackendFinalize(ph));
    CHECK_OK(cudnnBackendGetAttribute(ph, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &cnt, NULL));
    CHECK_EQ_INT(cnt, 1);
    bd pe;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &pe);
    cudnnBackendSetAttribute(pe, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pg);
    cudnnBackendSetAttribute(pe, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx);
    CHECK_OK(cudnnBackendFinalize(pe));

    /* Two operations: a unique id must name the same tensor everywhere. */
    for (int k = 0; k < 2; k++) {
        int64_t yd[4] = {1, 6, 5, k ? 4 : 5};
        bd ty = mk_tensor(103, 4, yd), tz = mk_tensor(104, 4, yd), op2, g2;
        cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op2);
        cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
        cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ty);
        cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tz);
        CHECK_OK(cudnnBackendFinalize(op2));
        bd ops[2] = {op, op2};
        cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g2);
        cudnnBackendSetAttribute(g2, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, ops);
        cudnnBackendSetAttribute(g2, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
        CHECK_STATUS(cudnnBackendFinalize(g2), k ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_SUCCESS);
        if (!k) {
            CHECK_OK(cudnnBackendGetAttribute(g2, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &cnt,
                                              &count));
            CHECK_EQ_INT(count, CUDNN_CONVOLUTION_FWD_ALGO_COUNT + 1);   /* convolution then relu: fused engines */
            bd two[2];
            cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &two[0]);
            cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &two[1]);
            /* Each element goes into a caller descriptor of its own type. */
            CHECK_OK(cudnnBackendGetAttribute(g2, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, &cnt, two));
            CHECK_EQ_INT(cnt, 2);
            cudnnBackendDestroyDescriptor(two[0]);
            cudnnBackendDestroyDescriptor(two[1]);
        }
        cudnnBackendDestroyDescriptor(g2);
        cudnnBackendDestroyDescriptor(op2);
        cudnnBackendDestroyDescriptor(ty);
        cudnnBackendDestroyDescriptor(tz);
    }

    /* Info descriptors are filled by the library only. */
    bd ki;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, &ki));
    CHECK_STATUS(cudnnBackendFinalize(ki), CUDNN_STATUS_NOT_SUPPORTED);

    bd all[] = {x, w, y, c, op, x2, w2, y2, c2, xcopy, wrong_kind, g, heur, cfg, eng, e2, cfg2, knob, plan, vpe, vpb,
                px, py, pw, pop, pg, ph, pe, ki};
    free_all(all, (int)(sizeof all / sizeof *all));
}

int main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    graph_engine_plan(h);
    backward_plans(h);
    cudnnDestroy(h);
    return hd_test_finish();
}
