/*
 * fuzz_compute.c -- libFuzzer harness: small computations on buffers that end at a guard page.
 *
 * An input picks an operation (convolution forward, backward data, backward filter; pooling,
 * softmax, activation forward and backward; batch norm training, inference and backward;
 * op-tensor; reduce; transform, add, scale and set; LRN) and the shapes, layouts (packed NCHW
 * or NHWC, padded or arbitrary strides), scalars and options of a float32 problem of at most a
 * few thousand elements, sometimes with deliberately mismatched descriptors.  Every tensor is
 * exactly as large as its descriptor says (guard_alloc.h), so a read or write past it faults.
 * Outputs are filled with a pattern first: a call that fails must leave them as they were
 * (hostdnn's rule: no output is written on failure), and the harness aborts when one did not.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_input.h"
#include "guard_alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ELEMS 4096                 /* largest tensor the harness makes */
#define MAX_WORKSPACE (8u << 20)       /* a bigger workspace request is not tried */
#define NBUF 12
#define PATTERN 0x7f

/* Two handles: one thread, and two (the pool's task split and per-thread scratch).  Most
 * inputs take the first: a region on the pool costs a wake-up, which would dominate these
 * small problems and cut the executions many times over. */
static cudnnHandle_t handles[2], handle;

static int make_handles(void)
{
    setenv("HOSTDNN_NUM_THREADS", "1", 1);
    int ok = cudnnCreate(&handles[0]) == CUDNN_STATUS_SUCCESS;
    setenv("HOSTDNN_NUM_THREADS", "2", 1);
    ok = ok && cudnnCreate(&handles[1]) == CUDNN_STATUS_SUCCESS;
    unsetenv("HOSTDNN_NUM_THREADS");
    return ok;
}

static guard_slot slots[NBUF];

typedef struct {
    int used;
    cudnnTensorDescriptor_t t[8];
    int nt;
} arena;

static void *buf(arena *a, size_t bytes)
{
    if (a->used == NBUF)
        return NULL;
    return guard_alloc(&slots[a->used++], bytes);
}

static float *input(arena *a, fz_in *in, size_t n)
{
    float *p = buf(a, n * sizeof(float));
    if (!p)
        return NULL;
    uint32_t s = fz_u32(in) | 1u;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        p[i] = (float)(s % 4001) / 1000.0f - 2.0f;
    }
    if (n && (s & 0x300) == 0x300)
        p[s % n] = (s & 0x400) ? __builtin_nanf("") : __builtin_inff();
    return p;
}

static float *output(arena *a, size_t n)
{
    float *p = buf(a, n * sizeof(float));
    if (p)
        memset(p, PATTERN, n * sizeof(float));
    return p;
}

/* A failed call must not have touched its output. */
static void check_untouched(cudnnStatus_t st, const void *p, size_t n, const char *what)
{
    if (st == CUDNN_STATUS_SUCCESS || !p)
        return;
    const uint8_t *b = p;
    for (size_t i = 0; i < n * sizeof(float); i++)
        if (b[i] != PATTERN) {
            fprintf(stderr, "%s failed (%s) but wrote its output at byte %zu\n", what, cudnnGetErrorString(st), i);
            abort();
        }
}

typedef struct {
    int d[4];
    int s[4];
    size_t span;            /* elements the strides reach: the buffer's size */
} shape;

/* Strides for dims D by the layout byte: packed NCHW, packed NHWC, padded NCHW, or drawn. */
static int make_shape(shape *sh, fz_in *in)
{
    int *d = sh->d, *s = sh->s;
    switch (fz_u8(in) % 6) {
    case 0: case 1: case 2:
        s[3] = 1, s[2] = d[3], s[1] = d[2] * d[3], s[0] = d[1] * d[2] * d[3];
        break;
    case 3:
        s[1] = 1, s[3] = d[1], s[2] = d[3] * d[1], s[0] = d[2] * d[3] * d[1];
        break;
    case 4: {
        int pw = fz_u8(in) % 4, ph = fz_u8(in) % 3;
        s[3] = 1, s[2] = d[3] + pw, s[1] = (d[3] + pw) * (d[2] + ph), s[0] = s[1] * d[1] + (fz_u8(in) % 5);
        break;
    }
    default:
        for (int i = 0; i < 4; i++)
            s[i] = fz_u8(in) % 64;
    }
    size_t span = 1;
    for (int i = 0; i < 4; i++) {
        if (d[i] < 1 || d[i] > MAX_ELEMS || s[i] < 0)
            return 0;
        span += (size_t)(d[i] - 1) * (size_t)s[i];
    }
    sh->span = span;
    return span <= MAX_ELEMS;
}

static void dims_from(shape *sh, fz_in *in, int maxc)
{
    sh->d[0] = 1 + fz_u8(in) % 3;
    sh->d[1] = 1 + fz_u8(in) % maxc;
    sh->d[2] = 1 + fz_u8(in) % 9;
    sh->d[3] = 1 + fz_u8(in) % 9;
}

static cudnnTensorDescriptor_t desc(arena *a, const shape *sh)
{
    cudnnTensorDescriptor_t t;
    if (a->nt == 8 || cudnnCreateTensorDescriptor(&t) != CUDNN_STATUS_SUCCESS)
        return NULL;
    a->t[a->nt++] = t;
    if (cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, sh->d[0], sh->d[1], sh->d[2], sh->d[3], sh->s[0], sh->s[1],
                                     sh->s[2], sh->s[3]) != CUDNN_STATUS_SUCCESS)
        return NULL;
    return t;
}

/* A new shape: dims drawn, or (when the input says so) those of BASE with some set to 1. */
static int shape_new(shape *sh, fz_in *in, int maxc, const shape *base, int broadcast)
{
    if (base) {
        for (int i = 0; i < 4; i++)
            sh->d[i] = broadcast && (fz_u8(in) & 1) ? 1 : base->d[i];
    } else {
        dims_from(sh, in, maxc);
    }
    return make_shape(sh, in);
}

static const float scalars[] = {1.0f, 0.0f, 0.5f, -1.0f, 2.0f};

static float scalar(fz_in *in) { return scalars[fz_u8(in) % 5]; }

static void *workspace(arena *a, size_t bytes)
{
    return bytes <= MAX_WORKSPACE ? buf(a, bytes ? bytes : 1) : NULL;
}

static void conv(arena *a, fz_in *in, int dir)
{
    shape xs, ys;
    if (!shape_new(&xs, in, 8, NULL, 0))
        return;
    int groups = 1 + fz_u8(in) % 3, k = groups * (1 + fz_u8(in) % 4), r = 1 + fz_u8(in) % 4, q = 1 + fz_u8(in) % 4;
    if (xs.d[1] % groups)
        groups = 1;
    cudnnFilterDescriptor_t fd;
    cudnnConvolutionDescriptor_t cd;
    if (cudnnCreateFilterDescriptor(&fd) != CUDNN_STATUS_SUCCESS)
        return;
    if (cudnnCreateConvolutionDescriptor(&cd) != CUDNN_STATUS_SUCCESS) {
        cudnnDestroyFilterDescriptor(fd);
        return;
    }
    int nhwc_filter = fz_u8(in) % 4 == 0;
    float one = scalar(in), beta = scalar(in);
    size_t wn = (size_t)k * (size_t)(xs.d[1] / groups) * (size_t)r * (size_t)q;
    cudnnTensorDescriptor_t xd = desc(a, &xs);
    if (cudnnSetFilter4dDescriptor(fd, CUDNN_DATA_FLOAT, nhwc_filter ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, k,
                                   xs.d[1] / groups, r, q) != CUDNN_STATUS_SUCCESS ||
        cudnnSetConvolution2dDescriptor(cd, fz_u8(in) % 3, fz_u8(in) % 3, 1 + fz_u8(in) % 3, 1 + fz_u8(in) % 3,
                                        1 + fz_u8(in) % 2, 1 + fz_u8(in) % 2, fz_enum(in, 2),
                                        CUDNN_DATA_FLOAT) != CUDNN_STATUS_SUCCESS ||
        cudnnSetConvolutionGroupCount(cd, groups) != CUDNN_STATUS_SUCCESS || !xd)
        goto out;
    cudnnSetConvolutionMathType(cd, fz_enum(in, 3));
    int on, oc, oh, ow;
    if (cudnnGetConvolution2dForwardOutputDim(cd, xd, fd, &on, &oc, &oh, &ow) != CUDNN_STATUS_SUCCESS)
        goto out;
    ys.d[0] = on, ys.d[1] = oc, ys.d[2] = oh, ys.d[3] = ow;
    if (fz_u8(in) % 16 == 0)
        ys.d[fz_u8(in) % 4] += 1;          /* a mismatched output: must be refused, nothing written */
    if (!make_shape(&ys, in))
        goto out;
    cudnnTensorDescriptor_t yd = desc(a, &ys);
    if (!yd)
        goto out;
    size_t ws = 0;
    cudnnStatus_t st;
    int algo;
    if (dir == 0) {
        algo = fz_enum(in, 8);
        if (cudnnGetConvolutionForwardWorkspaceSize(handle, xd, fd, cd, yd, algo, &ws) != CUDNN_STATUS_SUCCESS)
            ws = fz_u8(in) * 64u;
        float *x = input(a, in, xs.span), *w = input(a, in, wn), *y = output(a, ys.span);
        void *wsp = workspace(a, ws);
        if (!x || !w || !y || !wsp)
            goto out;
        st = cudnnConvolutionForward(handle, &one, xd, x, fd, w, cd, algo, wsp, ws, &beta, yd, y);
        check_untouched(st, y, ys.span, "cudnnConvolutionForward");
    } else if (dir == 1) {
        algo = fz_enum(in, 6);
        if (cudnnGetConvolutionBackwardDataWorkspaceSize(handle, fd, yd, cd, xd, algo, &ws) != CUDNN_STATUS_SUCCESS)
            ws = fz_u8(in) * 64u;
        float *dy = input(a, in, ys.span), *w = input(a, in, wn), *dx = output(a, xs.span);
        void *wsp = workspace(a, ws);
        if (!dy || !w || !dx || !wsp)
            goto out;
        st = cudnnConvolutionBackwardData(handle, &one, fd, w, yd, dy, cd, algo, wsp, ws, &beta, xd, dx);
        check_untouched(st, dx, xs.span, "cudnnConvolutionBackwardData");
    } else {
        algo = fz_enum(in, 7);
        if (cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, xd, yd, cd, fd, algo, &ws) != CUDNN_STATUS_SUCCESS)
            ws = fz_u8(in) * 64u;
        float *x = input(a, in, xs.span), *dy = input(a, in, ys.span), *dw = output(a, wn);
        void *wsp = workspace(a, ws);
        if (!x || !dy || !dw || !wsp)
            goto out;
        st = cudnnConvolutionBackwardFilter(handle, &one, xd, x, yd, dy, cd, algo, wsp, ws, &beta, fd, dw);
        check_untouched(st, dw, wn, "cudnnConvolutionBackwardFilter");
    }
out:
    cudnnDestroyFilterDescriptor(fd);
    cudnnDestroyConvolutionDescriptor(cd);
}

static void pooling(arena *a, fz_in *in)
{
    shape xs, ys;
    if (!shape_new(&xs, in, 6, NULL, 0))
        return;
    cudnnPoolingDescriptor_t pd;
    if (cudnnCreatePoolingDescriptor(&pd) != CUDNN_STATUS_SUCCESS)
        return;
    float alpha = scalar(in), beta = scalar(in);
    cudnnTensorDescriptor_t xd = desc(a, &xs);
    int n, c, h, w;
    if (!xd || cudnnSetPooling2dDescriptor(pd, fz_enum(in, 4), fz_enum(in, 2), 1 + fz_u8(in) % 4, 1 + fz_u8(in) % 4,
                                           fz_u8(in) % 3, fz_u8(in) % 3, 1 + fz_u8(in) % 3,
                                           1 + fz_u8(in) % 3) != CUDNN_STATUS_SUCCESS ||
        cudnnGetPooling2dForwardOutputDim(pd, xd, &n, &c, &h, &w) != CUDNN_STATUS_SUCCESS)
        goto out;
    ys.d[0] = n, ys.d[1] = c, ys.d[2] = h, ys.d[3] = w;
    if (fz_u8(in) % 16 == 0)
        ys.d[fz_u8(in) % 4] += 1;
    if (!make_shape(&ys, in))
        goto out;
    cudnnTensorDescriptor_t yd = desc(a, &ys);
    float *x = input(a, in, xs.span), *y = output(a, ys.span);
    if (!yd || !x || !y)
        goto out;
    cudnnStatus_t st = cudnnPoolingForward(handle, pd, &alpha, xd, x, &beta, yd, y);
    check_untouched(st, y, ys.span, "cudnnPoolingForward");
    if (st == CUDNN_STATUS_SUCCESS) {
        float *dy = input(a, in, ys.span), *dx = output(a, xs.span);
        if (!dy || !dx)
            goto out;
        st = cudnnPoolingBackward(handle, pd, &alpha, yd, y, yd, dy, xd, x, &beta, xd, dx);
        check_untouched(st, dx, xs.span, "cudnnPoolingBackward");
    }
out:
    cudnnDestroyPoolingDescriptor(pd);
}

/* Softmax, activation and LRN: an input and an output of one shape (or a mismatched one). */
static void pointwise(arena *a, fz_in *in, int which)
{
    shape xs, ys;
    if (!shape_new(&xs, in, 8, NULL, 0))
        return;
    if (fz_u8(in) % 16 == 0) {
        if (!shape_new(&ys, in, 8, NULL, 0))
            return;
    } else if (!shape_new(&ys, in, 8, &xs, 0)) {
        return;
    }
    cudnnTensorDescriptor_t xd = desc(a, &xs), yd = desc(a, &ys);
    float alpha = scalar(in), beta = scalar(in);
    float *x = input(a, in, xs.span), *y = output(a, ys.span), *dy = input(a, in, ys.span), *dx = output(a, xs.span);
    if (!xd || !yd || !x || !y || !dy || !dx)
        return;
    cudnnStatus_t st;
    if (which == 0) {
        int algo = fz_enum(in, 3), mode = fz_enum(in, 2);
        st = cudnnSoftmaxForward(handle, algo, mode, &alpha, xd, x, &beta, yd, y);
        check_untouched(st, y, ys.span, "cudnnSoftmaxForward");
        st = cudnnSoftmaxBackward(handle, algo, mode, &alpha, yd, y, yd, dy, &beta, xd, dx);
        check_untouched(st, dx, xs.span, "cudnnSoftmaxBackward");
    } else if (which == 1) {
        cudnnActivationDescriptor_t ad;
        if (cudnnCreateActivationDescriptor(&ad) != CUDNN_STATUS_SUCCESS)
            return;
        if (cudnnSetActivationDescriptor(ad, fz_enum(in, 7), fz_enum(in, 2), fz_double(in)) == CUDNN_STATUS_SUCCESS) {
            st = cudnnActivationForward(handle, ad, &alpha, xd, x, &beta, yd, y);
            check_untouched(st, y, ys.span, "cudnnActivationForward");
            st = cudnnActivationBackward(handle, ad, &alpha, yd, y, yd, dy, xd, x, &beta, xd, dx);
            check_untouched(st, dx, xs.span, "cudnnActivationBackward");
        }
        cudnnDestroyActivationDescriptor(ad);
    } else {
        cudnnLRNDescriptor_t ld;
        if (cudnnCreateLRNDescriptor(&ld) != CUDNN_STATUS_SUCCESS)
            return;
        if (cudnnSetLRNDescriptor(ld, 1 + fz_u8(in) % 16, 1e-4, 0.75, 1.0 + fz_u8(in) % 3) == CUDNN_STATUS_SUCCESS) {
            st = cudnnLRNCrossChannelForward(handle, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &alpha, xd, x, &beta, yd, y);
            check_untouched(st, y, ys.span, "cudnnLRNCrossChannelForward");
            st = cudnnLRNCrossChannelBackward(handle, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &alpha, yd, y, yd, dy, xd, x,
                                              &beta, xd, dx);
            check_untouched(st, dx, xs.span, "cudnnLRNCrossChannelBackward");
        }
        cudnnDestroyLRNDescriptor(ld);
    }
}

static void batchnorm(arena *a, fz_in *in)
{
    shape xs, bs;
    if (!shape_new(&xs, in, 8, NULL, 0))
        return;
    int mode = fz_enum(in, 3);
    /* the per-channel (or per-activation) tensor: packed, as cudnnDeriveBNTensorDescriptor makes */
    bs.d[0] = 1, bs.d[1] = xs.d[1];
    bs.d[2] = mode == CUDNN_BATCHNORM_PER_ACTIVATION ? xs.d[2] : 1;
    bs.d[3] = mode == CUDNN_BATCHNORM_PER_ACTIVATION ? xs.d[3] : 1;
    if (fz_u8(in) % 16 == 0)
        bs.d[1] += 1;
    bs.s[3] = 1, bs.s[2] = bs.d[3], bs.s[1] = bs.d[2] * bs.d[3], bs.s[0] = bs.d[1] * bs.s[1];
    bs.span = (size_t)bs.d[1] * (size_t)bs.s[1];
    cudnnTensorDescriptor_t xd = desc(a, &xs), bd = desc(a, &bs);
    float alpha = scalar(in), beta = scalar(in);
    double eps = fz_u8(in) % 8 ? 1e-5 : fz_double(in);
    float *x = input(a, in, xs.span), *y = output(a, xs.span), *scale = input(a, in, bs.span);
    float *bias = input(a, in, bs.span), *mean = output(a, bs.span), *var = output(a, bs.span);
    if (!xd || !bd || !x || !y || !scale || !bias || !mean || !var)
        return;
    cudnnStatus_t st;
    if (fz_u8(in) & 1) {
        /* inference with the (positive) variances the training pass would have kept */
        for (size_t i = 0; i < bs.span; i++)
            mean[i] = scale[i], var[i] = 1.0f + bias[i] * bias[i];
        st = cudnnBatchNormalizationForwardInference(handle, mode, &alpha, &beta, xd, x, xd, y, bd, scale, bias, mean,
                                                     var, eps);
        check_untouched(st, y, xs.span, "cudnnBatchNormalizationForwardInference");
        return;
    }
    float *rm = output(a, bs.span), *rv = output(a, bs.span);
    if (!rm || !rv)
        return;
    memset(rm, 0, bs.span * sizeof(float));
    for (size_t i = 0; i < bs.span; i++)
        rv[i] = 1.0f;
    st = cudnnBatchNormalizationForwardTraining(handle, mode, &alpha, &beta, xd, x, xd, y, bd, scale, bias, 0.1, rm, rv,
                                                eps, mean, var);
    check_untouched(st, y, xs.span, "cudnnBatchNormalizationForwardTraining");
    if (st != CUDNN_STATUS_SUCCESS)
        return;
    float *dy = input(a, in, xs.span), *dx = output(a, xs.span);
    float *ds = output(a, bs.span), *db = output(a, bs.span);
    if (!dy || !dx || !ds || !db)
        return;
    st = cudnnBatchNormalizationBackward(handle, mode, &alpha, &beta, &alpha, &beta, xd, x, xd, dy, xd, dx, bd, scale,
                                         ds, db, eps, fz_u8(in) & 1 ? mean : NULL, fz_u8(in) & 1 ? var : NULL);
    check_untouched(st, dx, xs.span, "cudnnBatchNormalizationBackward");
}

static void op_tensor(arena *a, fz_in *in)
{
    shape cs, as, bs;
    if (!shape_new(&cs, in, 8, NULL, 0) || !shape_new(&as, in, 8, &cs, fz_u8(in) % 8 == 0) ||
        !shape_new(&bs, in, 8, &cs, 1))
        return;
    cudnnOpTensorDescriptor_t od;
    if (cudnnCreateOpTensorDescriptor(&od) != CUDNN_STATUS_SUCCESS)
        return;
    cudnnTensorDescriptor_t ad = desc(a, &as), bd = desc(a, &bs), cd = desc(a, &cs);
    float a1 = scalar(in), a2 = scalar(in), beta = scalar(in);
    float *A = input(a, in, as.span), *B = input(a, in, bs.span), *C = output(a, cs.span);
    if (ad && bd && cd && A && B && C &&
        cudnnSetOpTensorDescriptor(od, fz_enum(in, 6), CUDNN_DATA_FLOAT, fz_enum(in, 2)) == CUDNN_STATUS_SUCCESS) {
        cudnnStatus_t st = cudnnOpTensor(handle, od, &a1, ad, A, &a2, bd, B, &beta, cd, C);
        check_untouched(st, C, cs.span, "cudnnOpTensor");
    }
    cudnnDestroyOpTensorDescriptor(od);
}

static void reduce(arena *a, fz_in *in)
{
    shape as, cs;
    if (!shape_new(&as, in, 8, NULL, 0) || !shape_new(&cs, in, 8, &as, 1))
        return;
    cudnnReduceTensorDescriptor_t rd;
    if (cudnnCreateReduceTensorDescriptor(&rd) != CUDNN_STATUS_SUCCESS)
        return;
    cudnnTensorDescriptor_t ad = desc(a, &as), cd = desc(a, &cs);
    float alpha = scalar(in), beta = scalar(in);
    size_t ws = 0, is = 0;
    if (ad && cd &&
        cudnnSetReduceTensorDescriptor(rd, fz_enum(in, 9), CUDNN_DATA_FLOAT, fz_enum(in, 2), fz_enum(in, 2),
                                       CUDNN_32BIT_INDICES) == CUDNN_STATUS_SUCCESS &&
        cudnnGetReductionWorkspaceSize(handle, rd, ad, cd, &ws) == CUDNN_STATUS_SUCCESS &&
        cudnnGetReductionIndicesSize(handle, rd, ad, cd, &is) == CUDNN_STATUS_SUCCESS) {
        float *A = input(a, in, as.span), *C = output(a, cs.span);
        void *w = workspace(a, ws), *idx = workspace(a, is);
        if (A && C && w && idx) {
            cudnnStatus_t st = cudnnReduceTensor(handle, rd, is ? idx : NULL, is, w, ws, &alpha, ad, A, &beta, cd, C);
            check_untouched(st, C, cs.span, "cudnnReduceTensor");
        }
    }
    cudnnDestroyReduceTensorDescriptor(rd);
}

static void transform(arena *a, fz_in *in)
{
    shape xs, ys;
    int kind = fz_u8(in) % 4;
    if (!shape_new(&ys, in, 8, NULL, 0) || !shape_new(&xs, in, 8, &ys, kind == 1))
        return;
    cudnnTensorDescriptor_t xd = desc(a, &xs), yd = desc(a, &ys);
    float alpha = scalar(in), beta = scalar(in);
    float *x = input(a, in, xs.span), *y = output(a, ys.span);
    if (!xd || !yd || !x || !y)
        return;
    cudnnStatus_t st;
    switch (kind) {
    case 0:
        st = cudnnTransformTensor(handle, &alpha, xd, x, &beta, yd, y);
        check_untouched(st, y, ys.span, "cudnnTransformTensor");
        break;
    case 1:
        st = cudnnAddTensor(handle, &alpha, xd, x, &beta, yd, y);
        check_untouched(st, y, ys.span, "cudnnAddTensor");
        break;
    case 2:
        st = cudnnScaleTensor(handle, yd, y, &alpha);
        check_untouched(st, y, ys.span, "cudnnScaleTensor");
        break;
    default:
        st = cudnnSetTensor(handle, yd, y, &alpha);
        check_untouched(st, y, ys.span, "cudnnSetTensor");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready = -1;
    if (ready < 0)
        ready = make_handles();
    if (!ready)
        return 0;
    fz_in in = {data, size};
    arena a;
    memset(&a, 0, sizeof a);
    uint8_t op = fz_u8(&in);
    handle = handles[(op & 0xf0) == 0xf0];
    switch (op % 11) {
    case 0: case 1: case 2: conv(&a, &in, op % 11); break;
    case 3: pooling(&a, &in); break;
    case 4: pointwise(&a, &in, 0); break;
    case 5: pointwise(&a, &in, 1); break;
    case 6: pointwise(&a, &in, 2); break;
    case 7: batchnorm(&a, &in); break;
    case 8: op_tensor(&a, &in); break;
    case 9: reduce(&a, &in); break;
    default: transform(&a, &in); break;
    }
    for (int i = 0; i < a.nt; i++)
        cudnnDestroyTensorDescriptor(a.t[i]);
    return 0;
}
