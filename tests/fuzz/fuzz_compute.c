/*
 * fuzz_compute.c -- libFuzzer harness: small computations on buffers that end at a guard page.
 *
 * An input picks an operation (convolution forward, backward data, backward filter; pooling,
 * softmax, activation forward and backward; batch norm training, inference and backward;
 * op-tensor; reduce; transform, add, scale and set; LRN) and the shapes, layouts (packed NCHW
 * or NHWC, padded or arbitrary strides), scalars and options of a problem of at most a few
 * thousand elements (float32 for convolution and batch norm; FLOAT, DOUBLE or HALF for the
 * others), sometimes with deliberately mismatched descriptors.  Every tensor is
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

typedef struct {
    int d[4];
    int s[4];
    size_t span;            /* elements the strides reach: the buffer's size */
    cudnnDataType_t dt;
} shape;

static size_t elem_bytes(cudnnDataType_t dt) { return dt == CUDNN_DATA_DOUBLE ? 8 : dt == CUDNN_DATA_HALF ? 2 : 4; }

static size_t shape_bytes(const shape *sh) { return sh->span * elem_bytes(sh->dt); }

/* The data types of the memory-bound operations: FLOAT mostly, DOUBLE and HALF often. */
static cudnnDataType_t pick_dt(fz_in *in)
{
    uint8_t c = fz_u8(in) % 8;
    return c < 5 ? CUDNN_DATA_FLOAT : c < 7 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_HALF;
}

/* An input of SH's type: values in [-2, 2] (halves of 1/8 to 2), now and then a NaN or an
 * infinity. */
static void *tinput(arena *a, fz_in *in, const shape *sh)
{
    if (sh->dt == CUDNN_DATA_FLOAT)
        return input(a, in, sh->span);
    void *p = buf(a, shape_bytes(sh));
    if (!p)
        return NULL;
    uint32_t s = fz_u32(in) | 1u;
    for (size_t i = 0; i < sh->span; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        if (sh->dt == CUDNN_DATA_DOUBLE)
            ((double *)p)[i] = (double)(s % 4001) / 1000.0 - 2.0;
        else
            ((uint16_t *)p)[i] = (uint16_t)((s & 0x8000) | ((12u + s % 4) << 10) | (s >> 16 & 0x3ff));
    }
    if ((s & 0x300) == 0x300) {
        size_t i = s % sh->span;
        if (sh->dt == CUDNN_DATA_DOUBLE)
            ((double *)p)[i] = (s & 0x400) ? __builtin_nan("") : __builtin_inf();
        else
            ((uint16_t *)p)[i] = (s & 0x400) ? 0x7e00 : 0x7c00;
    }
    return p;
}

static void *toutput(arena *a, const shape *sh)
{
    void *p = buf(a, shape_bytes(sh));
    if (p)
        memset(p, PATTERN, shape_bytes(sh));
    return p;
}

/* Scaling factors: double for DOUBLE outputs, float otherwise (a float followed by padding, so
 * that reading it as a double, wrong as that is, stays inside the variable). */
typedef struct {
    double d;
    float f[2];
} scal;

static scal scal_of(float v)
{
    scal s = {v, {v, 0.0f}};
    return s;
}

static const void *sp(const scal *s, const shape *out) { return out->dt == CUDNN_DATA_DOUBLE ? (const void *)&s->d : (const void *)s->f; }

static void untouched(cudnnStatus_t st, const void *p, const shape *sh, const char *what);

/* A failed call must not have touched its output (N floats; untouched() for any type). */
static void check_bytes(cudnnStatus_t st, const void *p, size_t bytes, const char *what)
{
    if (st == CUDNN_STATUS_SUCCESS || !p)
        return;
    const uint8_t *b = p;
    for (size_t i = 0; i < bytes; i++)
        if (b[i] != PATTERN) {
            fprintf(stderr, "%s failed (%s) but wrote its output at byte %zu\n", what, cudnnGetErrorString(st), i);
            abort();
        }
}

static void check_untouched(cudnnStatus_t st, const void *p, size_t n, const char *what)
{
    check_bytes(st, p, n * sizeof(float), what);
}

static void untouched(cudnnStatus_t st, const void *p, const shape *sh, const char *what)
{
    check_bytes(st, p, shape_bytes(sh), what);
}


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
    if (cudnnSetTensor4dDescriptorEx(t, sh->dt, sh->d[0], sh->d[1], sh->d[2], sh->d[3], sh->s[0], sh->s[1],
                                     sh->s[2], sh->s[3]) != CUDNN_STATUS_SUCCESS)
        return NULL;
    return t;
}

/* A new shape: dims drawn, or (when the input says so) those of BASE with some set to 1. */
static int shape_new(shape *sh, fz_in *in, int maxc, const shape *base, int broadcast)
{
    sh->dt = base ? base->dt : CUDNN_DATA_FLOAT;
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
    ys.dt = CUDNN_DATA_FLOAT;
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
    xs.dt = ys.dt = pick_dt(in);
    cudnnPoolingDescriptor_t pd;
    if (cudnnCreatePoolingDescriptor(&pd) != CUDNN_STATUS_SUCCESS)
        return;
    scal alpha = scal_of(scalar(in)), beta = scal_of(scalar(in));
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
    void *x = tinput(a, in, &xs), *y = toutput(a, &ys);
    if (!yd || !x || !y)
        goto out;
    cudnnStatus_t st = cudnnPoolingForward(handle, pd, sp(&alpha, &ys), xd, x, sp(&beta, &ys), yd, y);
    untouched(st, y, &ys, "cudnnPoolingForward");
    if (st == CUDNN_STATUS_SUCCESS) {
        void *dy = tinput(a, in, &ys), *dx = toutput(a, &xs);
        if (!dy || !dx)
            goto out;
        st = cudnnPoolingBackward(handle, pd, sp(&alpha, &xs), yd, y, yd, dy, xd, x, sp(&beta, &xs), xd, dx);
        untouched(st, dx, &xs, "cudnnPoolingBackward");
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
    xs.dt = pick_dt(in);
    if (fz_u8(in) % 16 == 0) {
        if (!shape_new(&ys, in, 8, NULL, 0))
            return;
        ys.dt = fz_u8(in) & 1 ? xs.dt : pick_dt(in);
    } else if (!shape_new(&ys, in, 8, &xs, 0)) {
        return;
    }
    cudnnTensorDescriptor_t xd = desc(a, &xs), yd = desc(a, &ys);
    scal sa = scal_of(scalar(in)), sb = scal_of(scalar(in));
    const void *alpha = sp(&sa, &ys), *beta = sp(&sb, &ys), *alpha_b = sp(&sa, &xs), *beta_b = sp(&sb, &xs);
    void *x = tinput(a, in, &xs), *y = toutput(a, &ys), *dy = tinput(a, in, &ys), *dx = toutput(a, &xs);
    if (!xd || !yd || !x || !y || !dy || !dx)
        return;
    cudnnStatus_t st;
    if (which == 0) {
        int algo = fz_enum(in, 3), mode = fz_enum(in, 2);
        st = cudnnSoftmaxForward(handle, algo, mode, alpha, xd, x, beta, yd, y);
        untouched(st, y, &ys, "cudnnSoftmaxForward");
        st = cudnnSoftmaxBackward(handle, algo, mode, alpha_b, yd, y, yd, dy, beta_b, xd, dx);
        untouched(st, dx, &xs, "cudnnSoftmaxBackward");
    } else if (which == 1) {
        cudnnActivationDescriptor_t ad;
        if (cudnnCreateActivationDescriptor(&ad) != CUDNN_STATUS_SUCCESS)
            return;
        if (cudnnSetActivationDescriptor(ad, fz_enum(in, 7), fz_enum(in, 2), fz_double(in)) == CUDNN_STATUS_SUCCESS) {
            st = cudnnActivationForward(handle, ad, alpha, xd, x, beta, yd, y);
            untouched(st, y, &ys, "cudnnActivationForward");
            st = cudnnActivationBackward(handle, ad, alpha_b, yd, y, yd, dy, xd, x, beta_b, xd, dx);
            untouched(st, dx, &xs, "cudnnActivationBackward");
        }
        cudnnDestroyActivationDescriptor(ad);
    } else {
        cudnnLRNDescriptor_t ld;
        if (cudnnCreateLRNDescriptor(&ld) != CUDNN_STATUS_SUCCESS)
            return;
        if (cudnnSetLRNDescriptor(ld, 1 + fz_u8(in) % 16, 1e-4, 0.75, 1.0 + fz_u8(in) % 3) == CUDNN_STATUS_SUCCESS) {
            st = cudnnLRNCrossChannelForward(handle, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha, xd, x, beta, yd, y);
            untouched(st, y, &ys, "cudnnLRNCrossChannelForward");
            st = cudnnLRNCrossChannelBackward(handle, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha_b, yd, y, yd, dy, xd, x,
                                              beta_b, xd, dx);
            untouched(st, dx, &xs, "cudnnLRNCrossChannelBackward");
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
    bs.dt = CUDNN_DATA_FLOAT;
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
    if (!shape_new(&cs, in, 8, NULL, 0))
        return;
    cs.dt = pick_dt(in);
    if (!shape_new(&as, in, 8, &cs, fz_u8(in) % 8 == 0) || !shape_new(&bs, in, 8, &cs, 1))
        return;
    cudnnOpTensorDescriptor_t od;
    if (cudnnCreateOpTensorDescriptor(&od) != CUDNN_STATUS_SUCCESS)
        return;
    cudnnTensorDescriptor_t ad = desc(a, &as), bd = desc(a, &bs), cd = desc(a, &cs);
    scal a1 = scal_of(scalar(in)), a2 = scal_of(scalar(in)), beta = scal_of(scalar(in));
    void *A = tinput(a, in, &as), *B = tinput(a, in, &bs), *C = toutput(a, &cs);
    cudnnDataType_t comp = cs.dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    if (fz_u8(in) % 16 == 0)
        comp = fz_enum(in, FZ_NDTYPES);
    if (ad && bd && cd && A && B && C &&
        cudnnSetOpTensorDescriptor(od, fz_enum(in, 6), comp, fz_enum(in, 2)) == CUDNN_STATUS_SUCCESS) {
        cudnnStatus_t st = cudnnOpTensor(handle, od, sp(&a1, &cs), ad, A, sp(&a2, &cs), bd, B, sp(&beta, &cs), cd, C);
        untouched(st, C, &cs, "cudnnOpTensor");
    }
    cudnnDestroyOpTensorDescriptor(od);
}

static void reduce(arena *a, fz_in *in)
{
    shape as, cs;
    if (!shape_new(&as, in, 8, NULL, 0))
        return;
    as.dt = pick_dt(in);
    if (!shape_new(&cs, in, 8, &as, 1))
        return;
    cudnnReduceTensorDescriptor_t rd;
    if (cudnnCreateReduceTensorDescriptor(&rd) != CUDNN_STATUS_SUCCESS)
        return;
    cudnnTensorDescriptor_t ad = desc(a, &as), cd = desc(a, &cs);
    scal alpha = scal_of(scalar(in)), beta = scal_of(scalar(in));
    size_t ws = 0, is = 0;
    if (ad && cd &&
        cudnnSetReduceTensorDescriptor(rd, fz_enum(in, 9), as.dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT,
                                       fz_enum(in, 2), fz_enum(in, 2),
                                       CUDNN_32BIT_INDICES) == CUDNN_STATUS_SUCCESS &&
        cudnnGetReductionWorkspaceSize(handle, rd, ad, cd, &ws) == CUDNN_STATUS_SUCCESS &&
        cudnnGetReductionIndicesSize(handle, rd, ad, cd, &is) == CUDNN_STATUS_SUCCESS) {
        void *A = tinput(a, in, &as), *C = toutput(a, &cs);
        void *w = workspace(a, ws), *idx = workspace(a, is);
        if (A && C && w && idx) {
            cudnnStatus_t st = cudnnReduceTensor(handle, rd, is ? idx : NULL, is, w, ws, sp(&alpha, &cs), ad, A,
                                                 sp(&beta, &cs), cd, C);
            untouched(st, C, &cs, "cudnnReduceTensor");
        }
    }
    cudnnDestroyReduceTensorDescriptor(rd);
}

static void transform(arena *a, fz_in *in)
{
    shape xs, ys;
    int kind = fz_u8(in) % 4;
    if (!shape_new(&ys, in, 8, NULL, 0))
        return;
    ys.dt = pick_dt(in);
    if (!shape_new(&xs, in, 8, &ys, kind == 1))
        return;
    if (kind == 0)
        xs.dt = pick_dt(in);      /* a transform may also convert */
    cudnnTensorDescriptor_t xd = desc(a, &xs), yd = desc(a, &ys);
    scal sa = scal_of(scalar(in)), sb = scal_of(scalar(in));
    const void *alpha = sp(&sa, &ys), *beta = sp(&sb, &ys);
    void *x = tinput(a, in, &xs), *y = toutput(a, &ys);
    if (!xd || !yd || !x || !y)
        return;
    cudnnStatus_t st;
    switch (kind) {
    case 0:
        st = cudnnTransformTensor(handle, alpha, xd, x, beta, yd, y);
        untouched(st, y, &ys, "cudnnTransformTensor");
        break;
    case 1:
        st = cudnnAddTensor(handle, alpha, xd, x, beta, yd, y);
        untouched(st, y, &ys, "cudnnAddTensor");
        break;
    case 2:
        st = cudnnScaleTensor(handle, yd, y, alpha);
        untouched(st, y, &ys, "cudnnScaleTensor");
        break;
    default:
        st = cudnnSetTensor(handle, yd, y, alpha);
        untouched(st, y, &ys, "cudnnSetTensor");
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
