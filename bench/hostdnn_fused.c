/*
 * hostdnn_fused -- the backend's fused graphs against the legacy calls they replace, timed
 * through the public cuDNN API:
 *   conv + bias + residual add + relu as one backend graph, as four legacy calls
 *   (cudnnConvolutionForward, cudnnAddTensor twice, cudnnActivationForward), and as
 *   cudnnConvolutionBiasActivationForward -- all three with the same legacy algorithm (the
 *   first of cudnnGetConvolutionForwardAlgorithm_v7; the backend engine of that algorithm);
 *   batched matmul + bias + gelu as one graph against the matmul alone (also timed interleaved,
 *   run for run, with the median of the per-pair ratios: steadier on a shared machine).
 *
 *   hostdnn_fused [N C K HW reps  B M K N]
 *   defaults: 4 64 64 28 9  8 256 256 256
 *
 * Prints the median of REPS runs, wall-clock and CPU time (on a busy machine the CPU time is
 * the steadier).  HOSTDNN_NUM_THREADS sets the thread count as usual.
 */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OK(x) do { cudnnStatus_t s_ = (x); if (s_ != CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudnnGetErrorString(s_)); exit(1); } } while (0)

typedef cudnnBackendDescriptor_t bd;

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void (*run_fn)(void *ctx);

/* Median wall and CPU milliseconds of REPS runs after one warm-up. */
static void timeit(const char *name, run_fn f, void *ctx, int reps, double *wall_ms)
{
    double w[99], c[99];
    f(ctx);
    for (int i = 0; i < reps; i++) {
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        f(ctx);
        w[i] = 1e3 * (now(CLOCK_MONOTONIC) - w0), c[i] = 1e3 * (now(CLOCK_PROCESS_CPUTIME_ID) - c0);
    }
    qsort(w, (size_t)reps, sizeof *w, cmp), qsort(c, (size_t)reps, sizeof *c, cmp);
    printf("  %-44s %9.3f ms wall %9.3f ms cpu\n", name, w[reps / 2], c[reps / 2]);
    if (wall_ms)
        *wall_ms = w[reps / 2];
}

/* F and G alternately, REPS times each after one warm-up of each, so that a burst of load on
 * the machine falls on both: prints the median wall time of each and the median of the
 * per-pair ratios g / f (wall and CPU). */
static void timeit_pair(const char *name, run_fn f, void *fc, run_fn g, void *gc, int reps)
{
    double wf[99], wg[99], rw[99], rc[99];
    f(fc), g(gc);
    for (int i = 0; i < reps; i++) {
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        f(fc);
        double w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
        g(gc);
        double w2 = now(CLOCK_MONOTONIC), c2 = now(CLOCK_PROCESS_CPUTIME_ID);
        wf[i] = 1e3 * (w1 - w0), wg[i] = 1e3 * (w2 - w1);
        rw[i] = (w2 - w1) / (w1 - w0), rc[i] = (c2 - c1) / (c1 - c0);
    }
    qsort(wf, (size_t)reps, sizeof *wf, cmp), qsort(wg, (size_t)reps, sizeof *wg, cmp);
    qsort(rw, (size_t)reps, sizeof *rw, cmp), qsort(rc, (size_t)reps, sizeof *rc, cmp);
    printf("  %-44s %9.3f / %.3f ms wall; ratio %.3f wall, %.3f cpu\n", name, wf[reps / 2], wg[reps / 2],
           rw[reps / 2], rc[reps / 2]);
}

static bd tensor(int64_t uid, int n, const int64_t *dims, bool virt)
{
    bd t;
    int64_t s[8], st = 1, align = 4;
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    for (int i = n - 1; i >= 0; i--)
        s[i] = st, st *= dims[i];
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
    OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, n, dims));
    OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, n, s));
    OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
    if (virt)
        OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt));
    OK(cudnnBackendFinalize(t));
    return t;
}

static bd pointwise(cudnnPointwiseMode_t mode, bd x, bd b, bd y, double a2)
{
    bd d, op;
    cudnnDataType_t prec = CUDNN_DATA_FLOAT;
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &d));
    OK(cudnnBackendSetAttribute(d, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
    OK(cudnnBackendSetAttribute(d, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec));
    OK(cudnnBackendFinalize(d));
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d));
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    if (b) {
        OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b));
        OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_DOUBLE, 1, &a2));
    }
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    OK(cudnnBackendFinalize(op));
    return op;
}

/* A plan of engine INDEX for the graph of OPS; its workspace in *ws. */
static bd plan_of(cudnnHandle_t h, bd *ops, int n, int64_t index, int64_t *ws)
{
    bd g, e, cfg, plan;
    int64_t cnt;
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    OK(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, ops));
    OK(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    OK(cudnnBackendFinalize(g));
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &e));
    OK(cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    OK(cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &index));
    OK(cudnnBackendFinalize(e));
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    OK(cudnnBackendSetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e));
    OK(cudnnBackendFinalize(cfg));
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    OK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    OK(cudnnBackendFinalize(plan));
    OK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &cnt, ws));
    cudnnBackendDestroyDescriptor(cfg), cudnnBackendDestroyDescriptor(e), cudnnBackendDestroyDescriptor(g);
    return plan;
}

static bd pack(int n, int64_t *uids, void **ptrs, void *ws)
{
    bd vp;
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp));
    OK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids));
    OK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs));
    OK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
    OK(cudnnBackendFinalize(vp));
    return vp;
}

typedef struct {
    cudnnHandle_t h;
    bd plan, vp;
    cudnnTensorDescriptor_t xd, yd, bdsc;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad;
    cudnnConvolutionFwdAlgo_t algo;
    float *x, *w, *b, *z, *y;
    void *ws;
    size_t wss;
} ctx_t;

static void run_backend(void *p)
{
    ctx_t *c = p;
    OK(cudnnBackendExecute(c->h, c->plan, c->vp));
}

static void run_legacy(void *p)
{
    ctx_t *c = p;
    float one = 1, zero = 0, a2 = 0.7f;
    OK(cudnnConvolutionForward(c->h, &one, c->xd, c->x, c->wd, c->w, c->cd, c->algo, c->ws, c->wss, &zero, c->yd, c->y));
    OK(cudnnAddTensor(c->h, &one, c->bdsc, c->b, &one, c->yd, c->y));
    OK(cudnnAddTensor(c->h, &a2, c->yd, c->z, &one, c->yd, c->y));
    OK(cudnnActivationForward(c->h, c->ad, &one, c->yd, c->y, &zero, c->yd, c->y));
}

static void run_cbaf(void *p)
{
    ctx_t *c = p;
    float one = 1, a2 = 0.7f;
    OK(cudnnConvolutionBiasActivationForward(c->h, &one, c->xd, c->x, c->wd, c->w, c->cd, c->algo, c->ws, c->wss, &a2, c->yd,
                                             c->z, c->bdsc, c->b, c->ad, c->yd, c->y));
}

static float *buffer(size_t n)
{
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
    return p;
}

int main(int argc, char **argv)
{
    int a[9] = {4, 64, 64, 28, 9, 8, 256, 256, 256};
    for (int i = 0; i < 9 && i + 1 < argc; i++)
        a[i] = atoi(argv[i + 1]);
    int N = a[0], C = a[1], K = a[2], HW = a[3], reps = a[4] < 1 || a[4] > 99 ? 9 : a[4];
    ctx_t c;
    memset(&c, 0, sizeof c);
    OK(cudnnCreate(&c.h));
    printf("conv 3x3 pad 1: N %d C %d K %d %dx%d, + bias + 0.7 z + relu\n", N, C, K, HW, HW);
    cudnnCreateTensorDescriptor(&c.xd), cudnnCreateTensorDescriptor(&c.yd), cudnnCreateTensorDescriptor(&c.bdsc);
    cudnnCreateFilterDescriptor(&c.wd), cudnnCreateConvolutionDescriptor(&c.cd), cudnnCreateActivationDescriptor(&c.ad);
    OK(cudnnSetTensor4dDescriptor(c.xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, HW, HW));
    OK(cudnnSetTensor4dDescriptor(c.yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, HW, HW));
    OK(cudnnSetTensor4dDescriptor(c.bdsc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, K, 1, 1));
    OK(cudnnSetFilter4dDescriptor(c.wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, 3, 3));
    OK(cudnnSetConvolution2dDescriptor(c.cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    OK(cudnnSetActivationDescriptor(c.ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0));
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int got;
    OK(cudnnGetConvolutionForwardAlgorithm_v7(c.h, c.xd, c.wd, c.cd, c.yd, 8, &got, perf));
    c.algo = perf[0].algo;
    OK(cudnnGetConvolutionForwardWorkspaceSize(c.h, c.xd, c.wd, c.cd, c.yd, c.algo, &c.wss));
    size_t xs = (size_t)N * C * HW * HW, ys = (size_t)N * K * HW * HW, ws = (size_t)K * C * 9;
    c.x = buffer(xs), c.w = buffer(ws), c.b = buffer((size_t)K), c.z = buffer(ys), c.y = buffer(ys);
    int64_t xd[4] = {N, C, HW, HW}, wd[4] = {K, C, 3, 3}, yd[4] = {N, K, HW, HW}, bdim[4] = {1, K, 1, 1};
    bd tx = tensor(1, 4, xd, false), tw = tensor(2, 4, wd, false), tb = tensor(3, 4, bdim, false), tz = tensor(4, 4, yd, false),
       ty = tensor(5, 4, yd, false), v1 = tensor(11, 4, yd, true), v2 = tensor(12, 4, yd, true), v3 = tensor(13, 4, yd, true);
    bd conv, op;
    int64_t sd = 2, pad[2] = {1, 1}, one[2] = {1, 1};
    cudnnDataType_t ct = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    double alpha = 1, beta = 0;
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &conv));
    OK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &sd));
    OK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct));
    OK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
    OK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
    OK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
    OK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, one));
    OK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, one));
    OK(cudnnBackendFinalize(conv));
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op));
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tx));
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tw));
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v1));
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv));
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_DOUBLE, 1, &alpha));
    OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_DOUBLE, 1, &beta));
    OK(cudnnBackendFinalize(op));
    bd ops[4] = {op, pointwise(CUDNN_POINTWISE_ADD, v1, tb, v2, 1), pointwise(CUDNN_POINTWISE_ADD, v2, tz, v3, 0.7),
                 pointwise(CUDNN_POINTWISE_RELU_FWD, v3, NULL, ty, 1)};
    /* The backend engine of the same legacy algorithm: k for 1..7, 8 for algorithm 0. */
    int64_t engine = c.algo == 0 ? CUDNN_CONVOLUTION_FWD_ALGO_COUNT : c.algo, bws;
    c.plan = plan_of(c.h, ops, 4, engine, &bws);
    void *bbuf = bws ? malloc((size_t)bws) : NULL;
    int64_t uids[5] = {1, 2, 3, 4, 5};
    void *ptrs[5] = {c.x, c.w, c.b, c.z, c.y};
    c.vp = pack(5, uids, ptrs, bbuf);
    c.ws = c.wss ? malloc(c.wss) : NULL;
    printf("  legacy algorithm %d (backend engine %lld)\n", (int)c.algo, (long long)engine);
    double tb_, tl, tc;
    timeit("backend graph conv+bias+add+relu", run_backend, &c, reps, &tb_);
    timeit("legacy Forward + AddTensor x2 + Activation", run_legacy, &c, reps, &tl);
    timeit("cudnnConvolutionBiasActivationForward", run_cbaf, &c, reps, &tc);
    printf("  backend / separate calls %.3f, backend / ConvolutionBiasActivation %.3f\n", tb_ / tl, tb_ / tc);
    cudnnBackendDestroyDescriptor(c.vp), cudnnBackendDestroyDescriptor(c.plan);
    free(bbuf), free(c.ws);

    /* matmul (+ bias + gelu) */
    int64_t B = a[5], M = a[6], KK = a[7], NN = a[8];
    printf("matmul: batch %lld, %lld x %lld x %lld\n", (long long)B, (long long)M, (long long)KK, (long long)NN);
    int64_t ad_[3] = {B, M, KK}, bd_[3] = {B, KK, NN}, cd_[3] = {B, M, NN}, zd_[3] = {1, 1, NN};
    bd ta = tensor(21, 3, ad_, false), tbm = tensor(22, 3, bd_, false), tc_v = tensor(30, 3, cd_, true),
       tc_r = tensor(23, 3, cd_, false), tzb = tensor(24, 3, zd_, false), tv = tensor(31, 3, cd_, true),
       to = tensor(25, 3, cd_, false);
    float *A = buffer((size_t)(B * M * KK)), *Bm = buffer((size_t)(B * KK * NN)), *Cm = buffer((size_t)(B * M * NN)),
          *Z = buffer((size_t)NN);
    bd md, mm[2];
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_MATMUL_DESCRIPTOR, &md));
    OK(cudnnBackendSetAttribute(md, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct));
    OK(cudnnBackendFinalize(md));
    for (int k = 0; k < 2; k++) {
        bd out = k ? tc_v : tc_r;
        OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &mm[k]));
        OK(cudnnBackendSetAttribute(mm[k], CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ta));
        OK(cudnnBackendSetAttribute(mm[k], CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tbm));
        OK(cudnnBackendSetAttribute(mm[k], CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &out));
        OK(cudnnBackendSetAttribute(mm[k], CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &md));
        OK(cudnnBackendFinalize(mm[k]));
    }
    int64_t w0, w1;
    bd plain = plan_of(c.h, &mm[0], 1, 0, &w0);
    bd fops[3] = {mm[1], pointwise(CUDNN_POINTWISE_ADD, tc_v, tzb, tv, 1), pointwise(CUDNN_POINTWISE_GELU_FWD, tv, NULL, to, 1)};
    bd fused = plan_of(c.h, fops, 3, 0, &w1);
    void *mb0 = w0 ? malloc((size_t)w0) : NULL, *mb1 = w1 ? malloc((size_t)w1) : NULL;
    int64_t u0[3] = {21, 22, 23}, u1[4] = {21, 22, 24, 25};
    void *p0[3] = {A, Bm, Cm}, *p1[4] = {A, Bm, Z, Cm};
    ctx_t m0 = c, m1 = c;
    m0.plan = plain, m0.vp = pack(3, u0, p0, mb0);
    m1.plan = fused, m1.vp = pack(4, u1, p1, mb1);
    double t0, t1;
    timeit("backend matmul", run_backend, &m0, reps, &t0);
    timeit("backend matmul + bias + gelu", run_backend, &m1, reps, &t1);
    printf("  fused / plain %.3f\n", t1 / t0);
    timeit_pair("interleaved: matmul / + bias + gelu", run_backend, &m0, run_backend, &m1, reps);
    cudnnDestroy(c.h);
    return 0;
}
