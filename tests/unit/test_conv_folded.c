/*
 * cudnnGetFoldedConvBackwardDataDescriptors: the stride-1 answer (identity transforms into
 * transformFormat, folded descriptors as those transforms produce, the convolution copied),
 * used end to end with cudnnTransformTensorEx / cudnnTransformFilter and
 * cudnnConvolutionBackwardData; strided problems NOT_SUPPORTED; bad input BAD_PARAM; every
 * refusal leaves the output descriptors as they were.
 */
#include <cudnn.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static cudnnHandle_t h;

typedef struct {
    cudnnFilterDescriptor_t w, fw;
    cudnnTensorDescriptor_t dy, dx, pdy, fdx;
    cudnnConvolutionDescriptor_t c, fc;
    cudnnTensorTransformDescriptor_t t[4];
} prob;

static void make(prob *p)
{
    CHECK_OK(cudnnCreateFilterDescriptor(&p->w));
    CHECK_OK(cudnnCreateFilterDescriptor(&p->fw));
    CHECK_OK(cudnnCreateTensorDescriptor(&p->dy));
    CHECK_OK(cudnnCreateTensorDescriptor(&p->dx));
    CHECK_OK(cudnnCreateTensorDescriptor(&p->pdy));
    CHECK_OK(cudnnCreateTensorDescriptor(&p->fdx));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&p->c));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&p->fc));
    for (int i = 0; i < 4; i++)
        CHECK_OK(cudnnCreateTensorTransformDescriptor(&p->t[i]));
}

static void destroy(prob *p)
{
    cudnnDestroyFilterDescriptor(p->w); cudnnDestroyFilterDescriptor(p->fw);
    cudnnDestroyTensorDescriptor(p->dy); cudnnDestroyTensorDescriptor(p->dx);
    cudnnDestroyTensorDescriptor(p->pdy); cudnnDestroyTensorDescriptor(p->fdx);
    cudnnDestroyConvolutionDescriptor(p->c); cudnnDestroyConvolutionDescriptor(p->fc);
    for (int i = 0; i < 4; i++)
        cudnnDestroyTensorTransformDescriptor(p->t[i]);
}

static cudnnStatus_t fold(prob *p, cudnnTensorFormat_t fmt)
{
    return cudnnGetFoldedConvBackwardDataDescriptors(h, p->w, p->dy, p->c, p->dx, fmt, p->fw, p->pdy, p->fc, p->fdx,
                                                     p->t[0], p->t[1], p->t[2], p->t[3]);
}

/* grad x (N,C,spatial), filter (K,C/groups,spatial), stride s, pad 1, dilation 1; diff from the forward dims. */
static void setup(prob *p, cudnnDataType_t dt, cudnnTensorFormat_t xfmt, int nb, const int *xd, const int *wd,
                  int stride, int groups)
{
    int pad[3] = { 1, 1, 1 }, str[3] = { stride, stride, stride }, dil[3] = { 1, 1, 1 }, yd[5];
    CHECK_OK(cudnnSetTensorNdDescriptorEx(p->dx, xfmt, dt, nb, xd));
    CHECK_OK(cudnnSetFilterNdDescriptor(p->w, dt, CUDNN_TENSOR_NCHW, nb, wd));
    CHECK_OK(cudnnSetConvolutionNdDescriptor(p->c, nb - 2, pad, str, dil, CUDNN_CROSS_CORRELATION,
                                             dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(p->c, groups));
    CHECK_OK(cudnnSetConvolutionMathType(p->c, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION));
    CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(p->c, p->dx, p->w, nb, yd));
    CHECK_OK(cudnnSetTensorNdDescriptorEx(p->dy, xfmt, dt, nb, yd));
}

static void check_tensor(cudnnTensorDescriptor_t t, cudnnDataType_t dt, int nb, const int *dims, cudnnTensorFormat_t fmt)
{
    cudnnDataType_t gdt;
    int gnb = 0, gd[8], gs[8], want[8];
    CHECK_OK(cudnnGetTensorNdDescriptor(t, 8, &gdt, &gnb, gd, gs));
    CHECK_EQ_INT(gnb, nb);
    CHECK_EQ_INT(gdt, dt);
    /* packed strides of fmt */
    if (fmt == CUDNN_TENSOR_NCHW) {
        want[nb - 1] = 1;
        for (int i = nb - 2; i >= 0; i--) want[i] = want[i + 1] * dims[i + 1];
    } else {
        want[1] = 1;
        int s = dims[1];
        for (int i = nb - 1; i >= 2; i--) { want[i] = s; s *= dims[i]; }
        want[0] = s;
    }
    for (int i = 0; i < nb; i++) {
        CHECK_EQ_INT(gd[i], dims[i]);
        CHECK_EQ_INT(gs[i], want[i]);
    }
}

static void check_transform(cudnnTensorTransformDescriptor_t t, int nb, cudnnTensorFormat_t fmt,
                            cudnnFoldingDirection_t dir)
{
    cudnnTensorFormat_t f = (cudnnTensorFormat_t)-1;
    int32_t pb[8], pa[8];
    uint32_t fo[8];
    cudnnFoldingDirection_t d = (cudnnFoldingDirection_t)-1;
    memset(pb, 0x55, sizeof pb); memset(pa, 0x55, sizeof pa); memset(fo, 0x55, sizeof fo);
    CHECK_OK(cudnnGetTensorTransformDescriptor(t, (uint32_t)nb, &f, pb, pa, fo, &d));
    CHECK_EQ_INT(f, fmt);
    CHECK_EQ_INT(d, dir);
    for (int i = 0; i < nb; i++) { CHECK_EQ_INT(pb[i], 0); CHECK_EQ_INT(pa[i], 0); }
    for (int i = 0; i < nb - 2; i++) CHECK_EQ_INT(fo[i], 1);
}

static size_t count(int nb, const int *d)
{
    size_t n = 1;
    for (int i = 0; i < nb; i++) n *= (size_t)d[i];
    return n;
}

/* Stride 1: descriptors, then the folded path computes the same dx as the direct call. */
static void stride1(cudnnDataType_t dt, cudnnTensorFormat_t xfmt, cudnnTensorFormat_t fmt, int nb, int groups)
{
    prob p;
    make(&p);
    int xd[5] = { 2, 4, 5, 6, 3 }, wd[5] = { 6, 4 / groups, 3, 3, 3 };
    if (nb == 4) { xd[3] = 7; }
    setup(&p, dt, xfmt, nb, xd, wd, 1, groups);
    CHECK_OK(fold(&p, fmt));

    int yd[5];
    CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(p.c, p.dx, p.w, nb, yd));
    check_tensor(p.pdy, dt, nb, yd, fmt);
    check_tensor(p.fdx, dt, nb, xd, fmt);
    cudnnDataType_t fdt;
    cudnnTensorFormat_t ffmt;
    int fnb = 0, fd[5];
    CHECK_OK(cudnnGetFilterNdDescriptor(p.fw, 5, &fdt, &ffmt, &fnb, fd));
    CHECK(fdt == dt && ffmt == fmt && fnb == nb);
    for (int i = 0; i < nb; i++) CHECK_EQ_INT(fd[i], wd[i]);
    int n = 0, pd[3], sd[3], dd[3];
    cudnnConvolutionMode_t mode;
    cudnnDataType_t ct;
    CHECK_OK(cudnnGetConvolutionNdDescriptor(p.fc, 3, &n, pd, sd, dd, &mode, &ct));
    CHECK_EQ_INT(n, nb - 2);
    for (int i = 0; i < n; i++) CHECK(pd[i] == 1 && sd[i] == 1 && dd[i] == 1);
    CHECK_EQ_INT(mode, CUDNN_CROSS_CORRELATION);
    int g = 0;
    CHECK_OK(cudnnGetConvolutionGroupCount(p.fc, &g));
    CHECK_EQ_INT(g, groups);
    cudnnMathType_t mt;
    CHECK_OK(cudnnGetConvolutionMathType(p.fc, &mt));
    CHECK_EQ_INT(mt, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
    check_transform(p.t[0], nb, fmt, CUDNN_TRANSFORM_FOLD);
    check_transform(p.t[1], nb, fmt, CUDNN_TRANSFORM_FOLD);
    check_transform(p.t[2], nb, fmt, CUDNN_TRANSFORM_FOLD);
    check_transform(p.t[3], nb, fmt, CUDNN_TRANSFORM_UNFOLD);

    if (dt == CUDNN_DATA_FLOAT) {
        /* end to end: fold w and dy, backward data on the folded problem, unfold dx */
        size_t nw = count(nb, wd), ny = count(nb, yd), nx = count(nb, xd);
        float *w = malloc(nw * 4), *dy = malloc(ny * 4), *dx = malloc(nx * 4), *ref = malloc(nx * 4);
        float *fw = malloc(nw * 4), *fdy = malloc(ny * 4), *fdx = malloc(nx * 4);
        unsigned s = 3;
        for (size_t i = 0; i < nw; i++) w[i] = (float)((s = s * 1103515245u + 12345u) >> 20 & 15) / 8 - 1;
        for (size_t i = 0; i < ny; i++) dy[i] = (float)((s = s * 1103515245u + 12345u) >> 20 & 15) / 8 - 1;
        const float one = 1, zero = 0;
        size_t wsz = 0, fwsz = 0;
        CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.w, p.dy, p.c, p.dx, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                                                              &wsz));
        CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.fw, p.pdy, p.fc, p.fdx,
                                                              CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, &fwsz));
        void *ws = malloc((wsz > fwsz ? wsz : fwsz) + 1);
        CHECK_OK(cudnnConvolutionBackwardData(h, &one, p.w, w, p.dy, dy, p.c, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, ws,
                                              wsz, &zero, p.dx, ref));
        CHECK_OK(cudnnTransformFilter(h, p.t[0], &one, p.w, w, &zero, p.fw, fw));
        CHECK_OK(cudnnTransformTensorEx(h, p.t[1], &one, p.dy, dy, &zero, p.pdy, fdy));
        CHECK_OK(cudnnConvolutionBackwardData(h, &one, p.fw, fw, p.pdy, fdy, p.fc, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                                              ws, fwsz, &zero, p.fdx, fdx));
        CHECK_OK(cudnnTransformTensorEx(h, p.t[3], &one, p.fdx, fdx, &zero, p.dx, dx));
        double err = 0;
        for (size_t i = 0; i < nx; i++) { double e = dx[i] - ref[i]; if (e < 0) e = -e; if (e > err) err = e; }
        CHECK_MSG(err < 1e-4, "folded path dx differs from the direct one by %g", err);
        free(w); free(dy); free(dx); free(ref); free(fw); free(fdy); free(fdx); free(ws);
    }
    destroy(&p);
}

/* Strided 2-d problems: space-to-depth folding; the folded pipeline (fold w, backward data on
 * the folded problem, unfold dx) must give the direct backward data's dx. */
static void strided(cudnnTensorFormat_t xfmt, cudnnTensorFormat_t fmt, int u, int v, int R, int S, int ph, int pw,
                    cudnnConvolutionMode_t mode)
{
    SECTION("strided folding");
    prob p;
    make(&p);
    int xd[4] = { 2, 3, 11, 10 }, wd[4] = { 5, 3, R, S }, yd[4];
    int pad[2] = { ph, pw }, str[2] = { u, v }, dil[2] = { 1, 1 };
    CHECK_OK(cudnnSetTensorNdDescriptorEx(p.dx, xfmt, CUDNN_DATA_FLOAT, 4, xd));
    CHECK_OK(cudnnSetFilterNdDescriptor(p.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, wd));
    CHECK_OK(cudnnSetConvolutionNdDescriptor(p.c, 2, pad, str, dil, mode, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(p.c, p.dx, p.w, 4, yd));
    CHECK_OK(cudnnSetTensorNdDescriptorEx(p.dy, xfmt, CUDNN_DATA_FLOAT, 4, yd));
    CHECK_OK(fold(&p, fmt));
    size_t bw, bfw, by, bpy, bx, bfx;
    CHECK_OK(cudnnGetFilterSizeInBytes(p.w, &bw));
    CHECK_OK(cudnnGetFilterSizeInBytes(p.fw, &bfw));
    CHECK_OK(cudnnGetTensorSizeInBytes(p.dy, &by));
    CHECK_OK(cudnnGetTensorSizeInBytes(p.pdy, &bpy));
    CHECK_OK(cudnnGetTensorSizeInBytes(p.dx, &bx));
    CHECK_OK(cudnnGetTensorSizeInBytes(p.fdx, &bfx));
    float *w = malloc(bw), *fw = malloc(bfw), *dy = malloc(by), *fdy = malloc(bpy), *dx = malloc(bx), *ref = malloc(bx);
    float *fdx = malloc(bfx);
    unsigned s = 7;
    for (size_t i = 0; i < bw / 4; i++) w[i] = (float)((s = s * 1103515245u + 12345u) >> 20 & 15) / 8 - 1;
    for (size_t i = 0; i < by / 4; i++) dy[i] = (float)((s = s * 1103515245u + 12345u) >> 20 & 15) / 8 - 1;
    for (size_t i = 0; i < bx / 4; i++) dx[i] = NAN;   /* beta 0: never read */
    const float one = 1, zero = 0;
    size_t wsz = 0, fwsz = 0;
    CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.w, p.dy, p.c, p.dx, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
                                                          &wsz));
    CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.fw, p.pdy, p.fc, p.fdx, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
                                                          &fwsz));
    void *ws = malloc((wsz > fwsz ? wsz : fwsz) + 1);
    CHECK_OK(cudnnConvolutionBackwardData(h, &one, p.w, w, p.dy, dy, p.c, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, ws, wsz,
                                          &zero, p.dx, ref));
    CHECK_OK(cudnnTransformFilter(h, p.t[0], &one, p.w, w, &zero, p.fw, fw));
    CHECK_OK(cudnnTransformTensorEx(h, p.t[1], &one, p.dy, dy, &zero, p.pdy, fdy));
    CHECK_OK(cudnnConvolutionBackwardData(h, &one, p.fw, fw, p.pdy, fdy, p.fc, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, ws,
                                          fwsz, &zero, p.fdx, fdx));
    CHECK_OK(cudnnTransformTensorEx(h, p.t[3], &one, p.fdx, fdx, &zero, p.dx, dx));
    double err = 0;
    for (size_t i = 0; i < bx / 4; i++) {
        double e = fabs((double)dx[i] - ref[i]);
        if (!(e <= err)) err = e;   /* NaN counts as an error */
    }
    CHECK_MSG(err < 1e-4, "stride %dx%d filter %dx%d pad %d,%d: folded dx differs from the direct one by %g", u, v, R, S,
              ph, pw, err);
    /* folding dx and unfolding it again gives dx back */
    CHECK_OK(cudnnTransformTensorEx(h, p.t[2], &one, p.dx, ref, &zero, p.fdx, fdx));
    CHECK_OK(cudnnTransformTensorEx(h, p.t[3], &one, p.fdx, fdx, &zero, p.dx, dx));
    CHECK(memcmp(dx, ref, bx) == 0);
    free(w), free(fw), free(dy), free(fdy), free(dx), free(ref), free(fdx), free(ws);
    destroy(&p);
}

/* The outputs as a failed call must leave them: all set to recognisable values first. */
static void mark_outputs(prob *p)
{
    int d4[4] = { 1, 1, 1, 1 }, s4[4] = { 1, 1, 1, 1 };
    CHECK_OK(cudnnSetTensorNdDescriptor(p->pdy, CUDNN_DATA_INT8, 4, d4, s4));
    CHECK_OK(cudnnSetTensorNdDescriptor(p->fdx, CUDNN_DATA_INT8, 4, d4, s4));
    CHECK_OK(cudnnSetFilterNdDescriptor(p->fw, CUDNN_DATA_INT8, CUDNN_TENSOR_NCHW, 4, d4));
    CHECK_OK(cudnnSetConvolution2dDescriptor(p->fc, 3, 3, 3, 3, 3, 3, CUDNN_CONVOLUTION, CUDNN_DATA_INT32));
    int32_t pad[4] = { 0, 0, 0, 0 };
    uint32_t fo[2] = { 1, 1 };
    for (int i = 0; i < 4; i++)
        CHECK_OK(cudnnSetTensorTransformDescriptor(p->t[i], 4, CUDNN_TENSOR_NHWC, pad, pad, fo, CUDNN_TRANSFORM_UNFOLD));
}

static int outputs_marked(prob *p)
{
    cudnnDataType_t dt;
    int nb = 0, d[4], s[4], ok = 1;
    ok &= cudnnGetTensorNdDescriptor(p->pdy, 4, &dt, &nb, d, s) == CUDNN_STATUS_SUCCESS && dt == CUDNN_DATA_INT8 && d[1] == 1;
    ok &= cudnnGetTensorNdDescriptor(p->fdx, 4, &dt, &nb, d, s) == CUDNN_STATUS_SUCCESS && dt == CUDNN_DATA_INT8 && d[1] == 1;
    cudnnTensorFormat_t f;
    ok &= cudnnGetFilterNdDescriptor(p->fw, 4, &dt, &f, &nb, d) == CUDNN_STATUS_SUCCESS && dt == CUDNN_DATA_INT8;
    int ph, pw, u, v, dh, dw;
    cudnnConvolutionMode_t m;
    ok &= cudnnGetConvolution2dDescriptor(p->fc, &ph, &pw, &u, &v, &dh, &dw, &m, &dt) == CUDNN_STATUS_SUCCESS &&
          u == 3 && m == CUDNN_CONVOLUTION;
    for (int i = 0; i < 4; i++) {
        int32_t pb[4], pa[4];
        uint32_t fo[2];
        cudnnFoldingDirection_t dir;
        ok &= cudnnGetTensorTransformDescriptor(p->t[i], 4, &f, pb, pa, fo, &dir) == CUDNN_STATUS_SUCCESS &&
              f == CUDNN_TENSOR_NHWC && dir == CUDNN_TRANSFORM_UNFOLD;
    }
    return ok;
}

static void refusals(void)
{
    prob p;
    make(&p);
    int xd[4] = { 2, 4, 9, 8 }, wd[4] = { 6, 4, 3, 3 };
    mark_outputs(&p);

    SECTION("strided with groups, dilation or a flipped 3x3 filter: NOT_SUPPORTED");
    int wdg[4] = { 6, 2, 3, 3 };
    setup(&p, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, xd, wdg, 2, 2);
    CHECK_STATUS(fold(&p, CUDNN_TENSOR_NCHW), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(fold(&p, CUDNN_TENSOR_NHWC), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(outputs_marked(&p));
    setup(&p, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, xd, wd, 1, 1);
    int pad[2] = { 1, 1 }, str[2] = { 1, 2 }, dil[2] = { 2, 1 }, yd[4];
    CHECK_OK(cudnnSetConvolutionNdDescriptor(p.c, 2, pad, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(p.c, p.dx, p.w, 4, yd));
    CHECK_OK(cudnnSetTensorNdDescriptorEx(p.dy, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, yd));
    CHECK_STATUS(fold(&p, CUDNN_TENSOR_NCHW), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(outputs_marked(&p));
    dil[0] = 1;
    CHECK_OK(cudnnSetConvolutionNdDescriptor(p.c, 2, pad, str, dil, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnGetConvolutionNdForwardOutputDim(p.c, p.dx, p.w, 4, yd));
    CHECK_OK(cudnnSetTensorNdDescriptorEx(p.dy, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, yd));
    CHECK_STATUS(fold(&p, CUDNN_TENSOR_NCHW), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(outputs_marked(&p));

    SECTION("bad input: BAD_PARAM, outputs untouched");
    setup(&p, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, xd, wd, 1, 1);
    cudnnTensorDescriptor_t unset;
    cudnnFilterDescriptor_t wrong_w;
    CHECK_OK(cudnnCreateTensorDescriptor(&unset));
    CHECK_OK(cudnnCreateFilterDescriptor(&wrong_w));
    int wd2[4] = { 6, 3, 3, 3 };
    CHECK_OK(cudnnSetFilterNdDescriptor(wrong_w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, wd2));
    const cudnnTensorFormat_t F = CUDNN_TENSOR_NCHW;
#define FOLD(hh, w, dy, c, dx, fmt, fw, pdy, fc, fdx, t0, t1, t2, t3) \
    cudnnGetFoldedConvBackwardDataDescriptors(hh, w, dy, c, dx, fmt, fw, pdy, fc, fdx, t0, t1, t2, t3)
    CHECK_STATUS(FOLD(NULL, p.w, p.dy, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, NULL, p.dy, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, NULL, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, NULL, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, NULL, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, F, NULL, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, F, p.fw, NULL, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, F, p.fw, p.pdy, NULL, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, F, p.fw, p.pdy, p.fc, NULL, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, NULL, p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], NULL),
                 CUDNN_STATUS_BAD_PARAM);
    /* wrong kinds, unset, mismatched shapes / types, bad format, aliased outputs */
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1],
                      (cudnnTensorTransformDescriptor_t)(void *)p.dy, p.t[3]), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, (cudnnFilterDescriptor_t)(void *)p.dx, p.dy, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0],
                      p.t[1], p.t[2], p.t[3]), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, unset, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, wrong_w, p.dy, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);   /* filter C 3 vs grad C 4 */
    CHECK_STATUS(FOLD(h, p.w, p.dx, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);   /* diff is not the forward output */
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, (cudnnTensorFormat_t)99, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1],
                      p.t[2], p.t[3]), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[1], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, F, p.fw, p.dy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FOLD(h, p.w, p.dy, p.c, p.dx, F, p.fw, p.pdy, p.c, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(unset);
    CHECK_STATUS(FOLD(h, p.w, unset, p.c, p.dx, F, p.fw, p.pdy, p.fc, p.fdx, p.t[0], p.t[1], p.t[2], p.t[3]),
                 CUDNN_STATUS_BAD_PARAM);   /* destroyed */
    CHECK_OK(cudnnSetTensorNdDescriptorEx(p.dy, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 4, xd));
    CHECK_STATUS(fold(&p, F), CUDNN_STATUS_BAD_PARAM);   /* type mismatch */
    int d3[3] = { 2, 4, 9 }, w3[3] = { 6, 4, 3 };
    CHECK_OK(cudnnSetTensorNdDescriptorEx(p.dx, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 3, d3));
    CHECK_OK(cudnnSetTensorNdDescriptorEx(p.dy, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 3, d3));
    CHECK_OK(cudnnSetFilterNdDescriptor(p.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, w3));
    CHECK_STATUS(fold(&p, F), CUDNN_STATUS_BAD_PARAM);   /* 3-d */
    CHECK(outputs_marked(&p));
    cudnnDestroyFilterDescriptor(wrong_w);
    destroy(&p);
}

int main(void)
{
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 1;
    strided(CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NCHW, 2, 2, 3, 3, 1, 1, CUDNN_CROSS_CORRELATION);
    strided(CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC, 2, 3, 4, 5, 1, 2, CUDNN_CROSS_CORRELATION);
    strided(CUDNN_TENSOR_NHWC, CUDNN_TENSOR_NCHW, 3, 1, 3, 2, 0, 1, CUDNN_CROSS_CORRELATION);
    strided(CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NCHW, 2, 2, 1, 1, 0, 0, CUDNN_CONVOLUTION);
    strided(CUDNN_TENSOR_NHWC, CUDNN_TENSOR_NHWC, 2, 2, 2, 2, 0, 0, CUDNN_CROSS_CORRELATION);
    SECTION("stride 1");
    stride1(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NCHW, 4, 1);
    stride1(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC, 4, 2);
    stride1(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, CUDNN_TENSOR_NCHW, 4, 1);
    stride1(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NCHW, 5, 1);
    stride1(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, CUDNN_TENSOR_NHWC, 5, 2);
    stride1(CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC, 4, 1);
    stride1(CUDNN_DATA_HALF, CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NCHW, 4, 1);
    refusals();
    cudnnDestroy(h);
    return hd_test_finish();
}
