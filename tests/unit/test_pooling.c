/* Pooling: descriptors, output sizes, forward and backward against the float64 reference over
 * modes, types, layouts, alpha/beta and edge shapes; NaN options; tie-breaking; bad input;
 * thread and ISA determinism. */
#define _DEFAULT_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "unit/np_util.h"

static cudnnHandle_t H;

static void descriptors(void)
{
    SECTION("pooling descriptor");
    cudnnPoolingDescriptor_t p;
    CHECK_OK(cudnnCreatePoolingDescriptor(&p));
    CHECK_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_PROPAGATE_NAN, 3, 2, 1, 0, 2, 1));
    cudnnPoolingMode_t m;
    cudnnNanPropagation_t nan;
    int wh, ww, ph, pw, sh, sw;
    CHECK_OK(cudnnGetPooling2dDescriptor(p, &m, &nan, &wh, &ww, &ph, &pw, &sh, &sw));
    CHECK(m == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING && nan == CUDNN_PROPAGATE_NAN);
    CHECK(wh == 3 && ww == 2 && ph == 1 && pw == 0 && sh == 2 && sw == 1);
    int win[3] = {2, 3, 4}, pad[3] = {0, 1, 2}, st[3] = {1, 2, 3};
    CHECK_OK(cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_MAX_DETERMINISTIC, CUDNN_NOT_PROPAGATE_NAN, 3, win, pad, st));
    int nb = 0, w2[3] = {-1, -1, -1}, p2[3] = {-1, -1, -1}, s2[3] = {-1, -1, -1};
    CHECK_OK(cudnnGetPoolingNdDescriptor(p, 3, &m, &nan, &nb, w2, p2, s2));
    CHECK(nb == 3 && m == CUDNN_POOLING_MAX_DETERMINISTIC && w2[2] == 4 && p2[2] == 2 && s2[2] == 3);
    int w1[3] = {-1, -1, -1};
    CHECK_OK(cudnnGetPoolingNdDescriptor(p, 1, &m, &nan, &nb, w1, p2, s2));
    CHECK(nb == 3 && w1[0] == 2 && w1[1] == -1);
    /* a 3-d descriptor read as 2-d gives its first two dimensions (as cuDNN 9) */
    CHECK_OK(cudnnGetPooling2dDescriptor(p, &m, &nan, &wh, &ww, &ph, &pw, &sh, &sw));
    CHECK(wh == 2 && ww == 3 && ph == 0 && pw == 1 && sh == 1 && sw == 2);
    CHECK_STATUS(cudnnGetPoolingNdDescriptor(p, 7, &m, &nan, &nb, w2, p2, s2), CUDNN_STATUS_NOT_SUPPORTED);

    SECTION("pooling descriptor bad input");
    CHECK_STATUS(cudnnCreatePoolingDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 0, 2, 0, 0, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 0, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 1, -1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetPooling2dDescriptor(p, (cudnnPoolingMode_t)99, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, (cudnnNanPropagation_t)99, 2, 2, 0, 0, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 0, win, pad, st), CUDNN_STATUS_BAD_PARAM);
    int big[7] = {1, 1, 1, 1, 1, 1, 1};
    CHECK_STATUS(cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 7, big, big, big), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, NULL, pad, st), CUDNN_STATUS_BAD_PARAM);
    /* the failed sets left the 3-d description in place */
    CHECK_OK(cudnnGetPoolingNdDescriptor(p, 3, &m, &nan, &nb, w2, p2, s2));
    CHECK(nb == 3 && w2[0] == 2);
    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_STATUS(cudnnSetPooling2dDescriptor((cudnnPoolingDescriptor_t)t, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 1, 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetPooling2dDescriptor(NULL, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyPoolingDescriptor(p));
    CHECK_STATUS(cudnnGetPooling2dDescriptor(p, &m, &nan, &wh, &ww, &ph, &pw, &sh, &sw), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyPoolingDescriptor(NULL));
    cudnnPoolingDescriptor_t fresh;
    CHECK_OK(cudnnCreatePoolingDescriptor(&fresh));
    CHECK_STATUS(cudnnGetPoolingNdDescriptor(fresh, 2, &m, &nan, &nb, w2, p2, s2), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyPoolingDescriptor(fresh));
    CHECK_OK(cudnnDestroyTensorDescriptor(t));
}

static void output_dims(void)
{
    SECTION("output dims");
    cudnnPoolingDescriptor_t p;
    cudnnTensorDescriptor_t x;
    CHECK_OK(cudnnCreatePoolingDescriptor(&p));
    CHECK_OK(cudnnCreateTensorDescriptor(&x));
    CHECK_OK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 7, 8));
    int n, c, h, w;
    CHECK_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 2, 1, 0, 2, 3));
    CHECK_OK(cudnnGetPooling2dForwardOutputDim(p, x, &n, &c, &h, &w));
    CHECK(n == 2 && c == 3 && h == 1 + (7 + 2 - 3) / 2 && w == 1 + (8 - 2) / 3);
    /* window larger than the input but not than the padded input */
    CHECK_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 9, 9, 1, 1, 1, 1));
    CHECK_OK(cudnnGetPooling2dForwardOutputDim(p, x, &n, &c, &h, &w));
    CHECK(h == 1 && w == 2);
    CHECK_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 3, -1, 0, 1, 2));
    CHECK_OK(cudnnGetPooling2dForwardOutputDim(p, x, &n, &c, &h, &w));
    CHECK(h == 4 && w == 3);
    CHECK_OK(cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 10, 2, 1, 0, 1, 1));
    h = -7;
    CHECK_STATUS(cudnnGetPooling2dForwardOutputDim(p, x, &n, &c, &h, &w), CUDNN_STATUS_BAD_PARAM);
    CHECK(h == -7);
    int dims[5] = {1, 2, 5, 6, 7}, out[5];
    cudnnTensorDescriptor_t x5;
    CHECK_OK(cudnnCreateTensorDescriptor(&x5));
    CHECK_OK(cudnnSetTensorNdDescriptorEx(x5, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 5, dims));
    int win[3] = {2, 3, 4}, pad[3] = {0, 1, 2}, st[3] = {1, 2, 3};
    CHECK_OK(cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, win, pad, st));
    CHECK_OK(cudnnGetPoolingNdForwardOutputDim(p, x5, 5, out));
    CHECK(out[0] == 1 && out[1] == 2 && out[2] == 4 && out[3] == 1 + (6 + 2 - 3) / 2 && out[4] == 1 + (7 + 4 - 4) / 3);
    CHECK_STATUS(cudnnGetPoolingNdForwardOutputDim(p, x5, 4, out), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetPoolingNdForwardOutputDim(p, x, 4, out), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetPooling2dForwardOutputDim(p, x5, &n, &c, &h, &w), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetPoolingNdForwardOutputDim(p, x5, 5, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t unset;
    CHECK_OK(cudnnCreateTensorDescriptor(&unset));
    CHECK_STATUS(cudnnGetPoolingNdForwardOutputDim(p, unset, 5, out), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyTensorDescriptor(unset));
    CHECK_OK(cudnnDestroyTensorDescriptor(x5));
    CHECK_OK(cudnnDestroyTensorDescriptor(x));
    CHECK_OK(cudnnDestroyPoolingDescriptor(p));
}

typedef struct {
    int nsp, N, C, in[3], win[3], pad[3], stride[3];
    int extra;   /* outputs beyond the formula (ceil-style sizes) */
} shape;

static const shape shapes[] = {
    {2, 2, 3, {7, 8}, {3, 3}, {1, 1}, {2, 2}, 0},
    {2, 1, 1, {5, 5}, {2, 2}, {0, 0}, {2, 2}, 0},
    {2, 3, 5, {6, 9}, {2, 3}, {1, 0}, {1, 1}, 0},      /* horizontal stride 1: row kernel */
    {2, 1, 2, {3, 2}, {5, 4}, {1, 1}, {1, 1}, 0},      /* window larger than the input */
    {2, 2, 17, {4, 5}, {3, 2}, {1, 1}, {1, 2}, 0},     /* odd C (vector tails on NHWC) */
    {2, 1, 2, {5, 7}, {3, 3}, {1, 1}, {2, 2}, 1},      /* larger output than the formula */
    {2, 1, 1, {4, 4}, {2, 2}, {2, 2}, {1, 1}, 0},      /* pad == window: empty windows */
    {2, 2, 3, {6, 7}, {2, 3}, {-1, 0}, {1, 2}, 0},     /* negative padding crops */
    {1, 2, 3, {9}, {3}, {1}, {2}, 0},                  /* 1-d pooling of a 3-d tensor */
    {3, 2, 2, {4, 5, 6}, {2, 3, 2}, {1, 0, 1}, {2, 1, 3}, 0},
    {2, 3, 5, {7, 6}, {7, 6}, {0, 0}, {1, 1}, 0},      /* global pooling (one output per plane) */
    {1 + 0, 0, 0, {0}, {0}, {0}, {0}, 0},
};

static void out_of(const shape *s, int *out)
{
    for (int d = 0; d < s->nsp; d++)
        out[d] = 1 + (s->in[d] + 2 * s->pad[d] - s->win[d]) / s->stride[d] + s->extra;
}

static cudnnPoolingDescriptor_t make_pool(const shape *s, int mode, int prop)
{
    cudnnPoolingDescriptor_t p;
    cudnnCreatePoolingDescriptor(&p);
    cudnnSetPoolingNdDescriptor(p, (cudnnPoolingMode_t)mode, prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN, s->nsp,
                                s->win, s->pad, s->stride);
    return p;
}

static void forward_backward(void)
{
    for (int si = 0; shapes[si].N; si++) {
        const shape *s = &shapes[si];
        int nb = s->nsp + 2, out[3], xd[5], yd[5];
        out_of(s, out);
        xd[0] = yd[0] = s->N;
        xd[1] = yd[1] = s->C;
        for (int d = 0; d < s->nsp; d++) {
            xd[d + 2] = s->in[d];
            yd[d + 2] = out[d];
        }
        long long nx = ref_count(nb, xd), ny = ref_count(nb, yd);
        double *x = malloc(sizeof(double) * nx), *y0 = malloc(sizeof(double) * ny), *want = malloc(sizeof(double) * ny);
        double *got = malloc(sizeof(double) * ny), *dy = malloc(sizeof(double) * ny), *dxw = malloc(sizeof(double) * nx);
        double *dx0 = malloc(sizeof(double) * nx), *dxg = malloc(sizeof(double) * nx);
        for (int ti = 0; ti < 4; ti++) {
            cudnnDataType_t t = np_types[ti];
            for (int layout = 0; layout < L_COUNT; layout++) {
                for (int mode = 0; mode < 4; mode++) {
                    char sec[128];
                    snprintf(sec, sizeof sec, "pool shape %d type %d %s mode %d", si, (int)t, layout_names[layout], mode);
                    SECTION(sec);
                    np_fill(x, nx, t);
                    np_fill(y0, ny, t);
                    np_fill(dy, ny, t);
                    np_fill(dx0, nx, t);
                    cudnnPoolingDescriptor_t p = make_pool(s, mode, 0);
                    tens X, Y, DY, DX;
                    tens_make(&X, t, nb, xd, layout);
                    tens_make(&Y, t, nb, yd, layout);
                    tens_make(&DY, t, nb, yd, layout);
                    tens_make(&DX, t, nb, xd, layout);
                    tens_put(&X, x);
                    tens_put(&DY, dy);
                    ref_pool_fwd(mode, 0, s->nsp, s->win, s->pad, s->stride, s->N, s->C, s->in, out, x, want);
                    np_scalar a, b;
                    /* alpha 1, beta 0: y starts as NaN and must not be read */
                    CHECK_OK(cudnnPoolingForward(H, p, np_sc(&a, t, 1.0), X.d, X.buf, np_sc(&b, t, 0.0), Y.d, Y.buf));
                    tens_get(&Y, got);
                    for (long long i = 0; i < ny; i++)
                        want[i] = ref_round(t, want[i]);
                    double e = np_err(got, want, ny);
                    CHECK_MSG(e <= np_tol(t), "beta 0: err %g", e);
                    /* alpha 0.5, beta 0.25 over known y */
                    tens_put(&Y, y0);
                    CHECK_OK(cudnnPoolingForward(H, p, np_sc(&a, t, 0.5), X.d, X.buf, np_sc(&b, t, 0.25), Y.d, Y.buf));
                    tens_get(&Y, got);
                    ref_pool_fwd(mode, 0, s->nsp, s->win, s->pad, s->stride, s->N, s->C, s->in, out, x, want);
                    for (long long i = 0; i < ny; i++)
                        want[i] = 0.5 * want[i] + 0.25 * y0[i];
                    e = np_err(got, want, ny);
                    CHECK_MSG(e <= np_tol(t) * 2, "alpha/beta: err %g", e);
                    /* backward, beta 0 then alpha/beta */
                    Y.buf = Y.buf;  /* y is not read by the backward, but must be given */
                    ref_pool_bwd(mode, 0, s->nsp, s->win, s->pad, s->stride, s->N, s->C, s->in, out, x, dy, dxw);
                    CHECK_OK(cudnnPoolingBackward(H, p, np_sc(&a, t, 1.0), Y.d, Y.buf, DY.d, DY.buf, X.d, X.buf,
                                                  np_sc(&b, t, 0.0), DX.d, DX.buf));
                    tens_get(&DX, dxg);
                    e = np_err(dxg, dxw, nx);
                    CHECK_MSG(e <= np_tol(t) * 4, "bwd beta 0: err %g", e);
                    tens_put(&DX, dx0);
                    CHECK_OK(cudnnPoolingBackward(H, p, np_sc(&a, t, -2.0), Y.d, Y.buf, DY.d, DY.buf, X.d, X.buf,
                                                  np_sc(&b, t, 0.5), DX.d, DX.buf));
                    tens_get(&DX, dxg);
                    for (long long i = 0; i < nx; i++)
                        dxw[i] = -2.0 * dxw[i] + 0.5 * dx0[i];
                    e = np_err(dxg, dxw, nx);
                    CHECK_MSG(e <= np_tol(t) * 4, "bwd alpha/beta: err %g", e);
                    tens_free(&X);
                    tens_free(&Y);
                    tens_free(&DY);
                    tens_free(&DX);
                    cudnnDestroyPoolingDescriptor(p);
                }
            }
        }
        free(x); free(y0); free(want); free(got); free(dy); free(dxw); free(dx0); free(dxg);
    }
}

static void int8_forward(void)
{
    SECTION("int8 pooling");
    const shape *s = &shapes[0];
    int out[2], xd[4], yd[4];
    out_of(s, out);
    xd[0] = yd[0] = s->N;
    xd[1] = yd[1] = 8;
    xd[2] = s->in[0]; xd[3] = s->in[1]; yd[2] = out[0]; yd[3] = out[1];
    long long nx = ref_count(4, xd), ny = ref_count(4, yd);
    double *x = malloc(sizeof(double) * nx), *want = malloc(sizeof(double) * ny), *got = malloc(sizeof(double) * ny);
    np_fill(x, nx, CUDNN_DATA_INT8);
    for (int mode = 0; mode < 3; mode++) {
        cudnnPoolingDescriptor_t p = make_pool(s, mode, 0);
        ref_pool_fwd(mode, 0, 2, s->win, s->pad, s->stride, s->N, 8, s->in, out, x, want);
        for (long long i = 0; i < ny; i++)
            want[i] = ref_round(CUDNN_DATA_INT8, want[i] * 1.5);
        for (int variant = 0; variant < 2; variant++) {
            tens X, Y;
            if (variant == 0) {
                tens_make(&X, CUDNN_DATA_INT8, 4, xd, L_NHWC);
                tens_make(&Y, CUDNN_DATA_INT8, 4, yd, L_NHWC);
            } else {
                tens_make_vect(&X, CUDNN_DATA_INT8x4, 4, xd);
                tens_make_vect(&Y, CUDNN_DATA_INT8x4, 4, yd);
            }
            tens_put(&X, x);
            float a = 1.5f, b = 0.0f;
            CHECK_OK(cudnnPoolingForward(H, p, &a, X.d, X.buf, &b, Y.d, Y.buf));
            tens_get(&Y, got);
            CHECK_MSG(np_err(got, want, ny) == 0.0, "int8 mode %d variant %d", mode, variant);
            tens_free(&X);
            tens_free(&Y);
        }
        cudnnDestroyPoolingDescriptor(p);
    }
    /* INT8x32 with C = 32 */
    {
        int xv[4] = {1, 32, 3, 3}, yv[4] = {1, 32, 2, 2};
        int win[2] = {2, 2}, pad[2] = {0, 0}, st[2] = {1, 1}, in[2] = {3, 3}, o2[2] = {2, 2};
        double *x32 = malloc(sizeof(double) * 288), *w32 = malloc(sizeof(double) * 128), *g32 = malloc(sizeof(double) * 128);
        np_fill(x32, 288, CUDNN_DATA_INT8);
        ref_pool_fwd(0, 0, 2, win, pad, st, 1, 32, in, o2, x32, w32);
        tens X, Y;
        tens_make_vect(&X, CUDNN_DATA_INT8x32, 32, xv);
        tens_make_vect(&Y, CUDNN_DATA_INT8x32, 32, yv);
        tens_put(&X, x32);
        cudnnPoolingDescriptor_t p;
        cudnnCreatePoolingDescriptor(&p);
        cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 1, 1);
        float a = 1.0f, b = 0.0f;
        CHECK_OK(cudnnPoolingForward(H, p, &a, X.d, X.buf, &b, Y.d, Y.buf));
        tens_get(&Y, g32);
        CHECK(np_err(g32, w32, 128) == 0.0);
        /* int8 backward is not a cuDNN feature */
        CHECK_STATUS(cudnnPoolingBackward(H, p, &a, Y.d, Y.buf, Y.d, Y.buf, X.d, X.buf, &b, X.d, X.buf),
                     CUDNN_STATUS_NOT_SUPPORTED);
        cudnnDestroyPoolingDescriptor(p);
        tens_free(&X);
        tens_free(&Y);
        free(x32); free(w32); free(g32);
    }
    free(x); free(want); free(got);
}

static void nan_and_ties(void)
{
    SECTION("NaN propagation and ties");
    int xd[4] = {1, 2, 2, 4}, yd[4] = {1, 2, 1, 2};
    for (int prop = 0; prop < 2; prop++) {
        for (int layout = 0; layout < 2; layout++) {
            tens X, Y, DX;
            tens_make(&X, CUDNN_DATA_FLOAT, 4, xd, layout);
            tens_make(&Y, CUDNN_DATA_FLOAT, 4, yd, layout);
            tens_make(&DX, CUDNN_DATA_FLOAT, 4, xd, layout);
            double x[16] = {1, NAN, 3, 3, 2, 0, 3, 1, /* c1: */ NAN, NAN, 5, 5, NAN, NAN, 5, 5}, got[4], dx[16];
            tens_put(&X, x);
            cudnnPoolingDescriptor_t p;
            cudnnCreatePoolingDescriptor(&p);
            cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);
            float a = 1.0f, b = 0.0f;
            CHECK_OK(cudnnPoolingForward(H, p, &a, X.d, X.buf, &b, Y.d, Y.buf));
            tens_get(&Y, got);
            if (prop)
                CHECK(isnan(got[0]) && got[1] == 3 && isnan(got[2]) && got[3] == 5);
            else
                CHECK(got[0] == 2 && got[1] == 3 && isinf(got[2]) && got[2] < 0 && got[3] == 5);
            /* backward: ties go to the first maximum in row-major window order */
            double dyv[4] = {10, 20, 30, 40};
            tens DY;
            tens_make(&DY, CUDNN_DATA_FLOAT, 4, yd, layout);
            tens_put(&DY, dyv);
            CHECK_OK(cudnnPoolingBackward(H, p, &a, Y.d, Y.buf, DY.d, DY.buf, X.d, X.buf, &b, DX.d, DX.buf));
            tens_get(&DX, dx);
            CHECK(dx[2] == 20 && dx[3] == 0 && dx[6] == 0);       /* 3 at (0,2) first */
            CHECK(dx[10] == 40 && dx[11] == 0 && dx[14] == 0);    /* 5 at (0,2) of c1 */
            if (prop)
                CHECK(dx[1] == 10 && dx[4] == 0 && dx[8] == 30);  /* the first NaN */
            else
                CHECK(dx[4] == 10 && dx[1] == 0 && dx[8] == 0 && dx[9] == 0);
            cudnnDestroyPoolingDescriptor(p);
            tens_free(&X); tens_free(&Y); tens_free(&DX); tens_free(&DY);
        }
    }
}

static void bad_input(void)
{
    SECTION("pooling bad input");
    int xd[4] = {2, 3, 6, 6}, yd[4] = {2, 3, 3, 3}, yd2[4] = {2, 4, 3, 3};
    tens X, Y, Y2, Xh;
    tens_make(&X, CUDNN_DATA_FLOAT, 4, xd, L_NCHW);
    tens_make(&Y, CUDNN_DATA_FLOAT, 4, yd, L_NCHW);
    tens_make(&Y2, CUDNN_DATA_FLOAT, 4, yd2, L_NCHW);
    tens_make(&Xh, CUDNN_DATA_HALF, 4, xd, L_NCHW);
    memset(Y.buf, 0x5a, Y.bytes);
    unsigned char *snap = malloc(Y.bytes);
    memcpy(snap, Y.buf, Y.bytes);
    cudnnPoolingDescriptor_t p, unset;
    cudnnCreatePoolingDescriptor(&p);
    cudnnCreatePoolingDescriptor(&unset);
    cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);
    float a = 1, b = 0;
    CHECK_STATUS(cudnnPoolingForward(NULL, p, &a, X.d, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnPoolingForward(H, NULL, &a, X.d, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnPoolingForward(H, unset, &a, X.d, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnPoolingForward(H, p, NULL, X.d, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnPoolingForward(H, p, &a, X.d, NULL, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnPoolingForward(H, p, &a, X.d, X.buf, &b, Y2.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnPoolingForward(H, p, &a, Xh.d, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnPoolingForward(H, p, &a, (cudnnTensorDescriptor_t)p, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    int win3[3] = {2, 2, 2};
    cudnnSetPoolingNdDescriptor(unset, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, win3, win3, win3);
    CHECK_STATUS(cudnnPoolingForward(H, unset, &a, X.d, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    /* window larger than the padded input */
    cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 9, 2, 1, 0, 2, 2);
    CHECK_STATUS(cudnnPoolingForward(H, p, &a, X.d, X.buf, &b, Y.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);
    /* int32 data is not a pooling type */
    tens Xi, Yi;
    tens_make(&Xi, CUDNN_DATA_INT32, 4, xd, L_NCHW);
    tens_make(&Yi, CUDNN_DATA_INT32, 4, yd, L_NCHW);
    CHECK_STATUS(cudnnPoolingForward(H, p, &a, Xi.d, Xi.buf, &b, Yi.d, Yi.buf), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK(memcmp(snap, Y.buf, Y.bytes) == 0);
    /* backward: mismatched y/dy strides, x/dx dims */
    tens Yn, Xs;
    tens_make(&Yn, CUDNN_DATA_FLOAT, 4, yd, L_NHWC);
    int xs[4] = {2, 3, 6, 5};
    tens_make(&Xs, CUDNN_DATA_FLOAT, 4, xs, L_NCHW);
    memcpy(snap, X.buf, Y.bytes);
    CHECK_STATUS(cudnnPoolingBackward(H, p, &a, Y.d, Y.buf, Yn.d, Y.buf, X.d, X.buf, &b, X.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnPoolingBackward(H, p, &a, Y.d, Y.buf, Y.d, Y.buf, X.d, X.buf, &b, Xs.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnPoolingBackward(H, p, &a, Y.d, Y.buf, Y.d, NULL, X.d, X.buf, &b, X.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnPoolingBackward(H, p, &a, Y.d, Y.buf, Y.d, Y.buf, Xh.d, X.buf, &b, X.d, Y.buf), CUDNN_STATUS_BAD_PARAM);
    tens_free(&X); tens_free(&Y); tens_free(&Y2); tens_free(&Xh); tens_free(&Xi); tens_free(&Yi); tens_free(&Yn); tens_free(&Xs);
    cudnnDestroyPoolingDescriptor(p);
    cudnnDestroyPoolingDescriptor(unset);
    free(snap);
}

/* Quarter values with NaNs (distinct payloads), infinities and signed zeros. */
static float row_val(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    unsigned r = (*s >> 16) & 31;
    if (r == 0) {
        uint32_t bits = 0x7fc00000u | (*s & 0xffff);
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    if (r == 1) return -0.0f;
    if (r == 2) return 0.0f;
    if (r == 3) return -INFINITY;
    return (float)((int)(*s >> 20 & 63) - 32) / 4;
}

static const int row_wins[][2] = {{2, 2}, {3, 3}, {1, 4}, {5, 3}, {4, 7}};
#define ROW_NWIN 5

/* One FLOAT NCHW max pooling of an N x C x H x W tensor; 0 if the window does not fit. */
static int row_case(cudnnHandle_t h, int mode, int N, int C, int H, int W, int wi, int pad, int st, int prop,
                    float alpha, float beta, unsigned seed, float *yout, int *ny_out, double *want)
{
    int kh = row_wins[wi][0], kw = row_wins[wi][1];
    if (H + 2 * pad < kh || W + 2 * pad < kw)
        return 0;
    int in[2] = {H, W}, win[2] = {kh, kw}, pd[2] = {pad, pad}, sd[2] = {st, st};
    int out[2] = {1 + (H + 2 * pad - kh) / st, 1 + (W + 2 * pad - kw) / st};
    int xd[4] = {N, C, H, W}, yd[4] = {N, C, out[0], out[1]};
    int nx = N * C * H * W, ny = N * C * out[0] * out[1];
    float *x = malloc(sizeof(float) * (size_t)nx), *y = yout;
    unsigned s = seed;
    for (int i = 0; i < nx; i++) {
        x[i] = row_val(&s);
        if (mode != CUDNN_POOLING_MAX && !isfinite(x[i]))
            x[i] = 1.25f;      /* sums of NaNs: which payload survives is not pinned down */
    }
    for (int i = 0; i < ny; i++)
        y[i] = beta == 0.0f ? NAN : (float)(i % 9) - 4.0f;
    cudnnTensorDescriptor_t X, Y;
    cudnnCreateTensorDescriptor(&X);
    cudnnCreateTensorDescriptor(&Y);
    cudnnSetTensor4dDescriptor(X, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, xd[0], xd[1], xd[2], xd[3]);
    cudnnSetTensor4dDescriptor(Y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, yd[0], yd[1], yd[2], yd[3]);
    cudnnPoolingDescriptor_t p;
    cudnnCreatePoolingDescriptor(&p);
    cudnnSetPoolingNdDescriptor(p, (cudnnPoolingMode_t)mode, prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN, 2, win,
                                pd, sd);
    if (want) {
        double *xv = malloc(sizeof(double) * (size_t)nx);
        for (int i = 0; i < nx; i++)
            xv[i] = x[i];
        ref_pool_fwd(mode, prop, 2, win, pd, sd, N, C, in, out, xv, want);
        for (int i = 0; i < ny; i++)
            want[i] = (float)(alpha * want[i] + (beta == 0.0f ? 0.0 : beta * (double)y[i]));
        free(xv);
    }
    int ok = cudnnPoolingForward(h, p, &alpha, X, x, &beta, Y, y) == CUDNN_STATUS_SUCCESS;
    cudnnDestroyPoolingDescriptor(p);
    cudnnDestroyTensorDescriptor(X);
    cudnnDestroyTensorDescriptor(Y);
    free(x);
    *ny_out = ny;
    return ok ? 1 : -1;
}

/* The NCHW row kernel over widths 1..40, heights 1..9, windows 2x2, 3x3, 1x4, 5x3, 4x7,
 * padding 0..2, strides 1..3, N*C 1..6, beta 0 over NaN and alpha/beta: max with both NaN
 * rules exact against the float64 reference (max is exact), the two average modes within
 * float rounding of it. */
static void row_sweep(void)
{
    SECTION("NCHW row kernel sweep");
    static float y[6 * 30 * 40];
    static double want[6 * 30 * 40];
    int bad = 0, runs = 0, failed = 0;
    for (int W = 1; W <= 40; W++)
        for (int wi = 0; wi < ROW_NWIN; wi++)
            for (int pad = 0; pad <= 2; pad++)
                for (int st = 1; st <= 3; st++)
                    for (int prop = 0; prop <= 3; prop++) {
                        /* prop 0, 1: MAX with either NaN rule; 2, 3: the average modes */
                        int mode = prop < 2 ? CUDNN_POOLING_MAX : prop == 2 ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                                            : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
                        int N = 1 + W % 2, C = 1 + (W + wi) % 3, ih = 1 + (W * 7 + pad) % 9, ny = 0;
                        float alpha = (W + st) % 4 == 0 ? 2.0f : 1.0f, beta = (W + st) % 4 == 0 ? 0.5f : 0.0f;
                        int r = row_case(H, mode, N, C, ih, W, wi, pad, st, prop & 1, alpha, beta, (unsigned)(W * 131 + wi),
                                         y, &ny, want);
                        if (r == 0)
                            continue;
                        runs++;
                        failed += r < 0;
                        double tol = mode == CUDNN_POOLING_MAX ? 0.0 : 1e-6;
                        for (int i = 0; i < ny; i++)
                            if (!(isnan(want[i]) ? isnan(y[i])
                                                 : !isnan(y[i]) && ((double)y[i] == want[i] ||
                                                                    fabs((double)y[i] - want[i]) <= tol * (1 + fabs(want[i]))))) {
                                bad++;
                                break;
                            }
                    }
    CHECK_MSG(failed == 0 && bad == 0, "%d of %d row-kernel cases wrong, %d failed", bad, runs, failed);
}

/* Several row-kernel cases one after another into OUT (ROWS_TOTAL floats), for the thread
 * and ISA comparisons: strides 1..3, every window, max with both NaN rules (NaN payloads and
 * zeros in the data), both average modes. */
#define ROW_Y (5 * 3 * 42 * 39)      /* outputs of the largest case */
#define ROWS_TOTAL (4 * 3 * ROW_NWIN * ROW_Y)
static void run_rows(cudnnHandle_t h, float *out)
{
    size_t at = 0;
    static float y[ROW_Y];
    for (int prop = 0; prop <= 3; prop++)
        for (int st = 1; st <= 3; st++)
            for (int wi = 0; wi < ROW_NWIN; wi++) {
                int ny = 0, mode = prop < 2 ? CUDNN_POOLING_MAX : prop == 2 ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                                          : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
                memset(y, 0, sizeof y);
                if (row_case(h, mode, 5, 3, 39, 37, wi, 1, st, prop & 1, 1.0f, 0.0f, (unsigned)(wi + 10 * st), y, &ny,
                             NULL) <= 0)
                    ny = 0;
                memcpy(out + at, y, sizeof y);
                at += sizeof y / sizeof y[0];
            }
}

/* Max pooling forward and backward with given threads; results bitwise. */
static void run_max(cudnnHandle_t h, int layout, float *yout, float *dxout)
{
    int xd[4] = {3, 37, 29, 31}, yd[4] = {3, 37, 15, 31};
    tens X, Y, DX, DY;
    tens_make(&X, CUDNN_DATA_FLOAT, 4, xd, layout);
    tens_make(&Y, CUDNN_DATA_FLOAT, 4, yd, layout);
    tens_make(&DY, CUDNN_DATA_FLOAT, 4, yd, layout);
    tens_make(&DX, CUDNN_DATA_FLOAT, 4, xd, layout);
    long long nx = tens_count(&X), ny = tens_count(&Y);
    double *v = malloc(sizeof(double) * nx);
    np_seed = 99;
    for (long long i = 0; i < nx; i++)
        v[i] = np_rand() + (i % 97 == 0 ? NAN : 0.0);
    tens_put(&X, v);
    np_fill(v, ny, CUDNN_DATA_FLOAT);
    tens_put(&DY, v);
    cudnnPoolingDescriptor_t p;
    cudnnCreatePoolingDescriptor(&p);
    cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 3, 3, 1, 1, 2, 1);
    float a = 1, b = 0;
    cudnnPoolingForward(h, p, &a, X.d, X.buf, &b, Y.d, Y.buf);
    cudnnPoolingBackward(h, p, &a, Y.d, Y.buf, DY.d, DY.buf, X.d, X.buf, &b, DX.d, DX.buf);
    double *g = malloc(sizeof(double) * nx);
    tens_get(&Y, g);
    for (long long i = 0; i < ny; i++)
        yout[i] = (float)g[i];
    tens_get(&DX, g);
    for (long long i = 0; i < nx; i++)
        dxout[i] = (float)g[i];
    free(g); free(v);
    cudnnDestroyPoolingDescriptor(p);
    tens_free(&X); tens_free(&Y); tens_free(&DX); tens_free(&DY);
}

#define NY (3 * 37 * 15 * 31)
#define NX (3 * 37 * 29 * 31)

static void determinism(void)
{
    SECTION("threads");
    static float y1[NY], y2[NY], d1[NX], d2[NX], r1[ROWS_TOTAL], r3[ROWS_TOTAL];
    for (int layout = 0; layout < 2; layout++) {
        cudnnHandle_t h1, h4;
        setenv("HOSTDNN_NUM_THREADS", "1", 1);
        cudnnCreate(&h1);
        setenv("HOSTDNN_NUM_THREADS", "4", 1);
        cudnnCreate(&h4);
        run_max(h1, layout, y1, d1);
        run_max(h4, layout, y2, d2);
        CHECK(memcmp(y1, y2, sizeof y1) == 0);
        CHECK(memcmp(d1, d2, sizeof d1) == 0);
        if (layout == 0) {          /* the row kernel's cases, 1 vs 4 threads, then 3 */
            run_rows(h1, r1);
            run_rows(h4, r3);
            CHECK(memcmp(r1, r3, sizeof r1) == 0);
            cudnnHandle_t h3;
            setenv("HOSTDNN_NUM_THREADS", "3", 1);
            cudnnCreate(&h3);
            run_rows(h3, r3);
            CHECK(memcmp(r1, r3, sizeof r1) == 0);
            cudnnDestroy(h3);
        }
        cudnnDestroy(h1);
        cudnnDestroy(h4);
    }
}

/* Each ISA cap in a fresh child (the cap is read once per process); bitwise equal results. */
static void isa_children(void)
{
    SECTION("ISA caps");
    const char *caps[3] = {"scalar", "avx2", "avx512"};
    size_t rows_at = (size_t)3 * 2 * (NY + NX);     /* then ROWS_TOTAL floats per cap */
    size_t bytes = sizeof(float) * (rows_at + 3 * (size_t)ROWS_TOTAL);
    float *shared = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        CHECK(0);
        return;
    }
    for (int i = 0; i < 3; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("HOSTDNN_MAX_ISA", caps[i], 1);
            cudnnHandle_t h;
            cudnnCreate(&h);
            for (int layout = 0; layout < 2; layout++) {
                float *base = shared + ((size_t)i * 2 + layout) * (NY + NX);
                run_max(h, layout, base, base + NY);
            }
            run_rows(h, shared + rows_at + (size_t)i * ROWS_TOTAL);
            cudnnDestroy(h);
            _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    for (int i = 1; i < 3; i++)
        for (int layout = 0; layout < 2; layout++)
            CHECK_MSG(memcmp(shared + ((size_t)i * 2 + layout) * (NY + NX), shared + (size_t)layout * (NY + NX),
                             sizeof(float) * (NY + NX)) == 0, "%s vs scalar, layout %d", caps[i], layout);
    for (int i = 1; i < 3; i++)
        CHECK_MSG(memcmp(shared + rows_at + (size_t)i * ROWS_TOTAL, shared + rows_at, sizeof(float) * ROWS_TOTAL) == 0,
                  "row kernel cases: %s vs scalar", caps[i]);
    munmap(shared, bytes);
}

int main(void)
{
    isa_children();            /* before this process loads anything */
    if (cudnnCreate(&H) != CUDNN_STATUS_SUCCESS)
        return 1;
    descriptors();
    output_dims();
    forward_backward();
    int8_forward();
    nan_and_ties();
    row_sweep();
    bad_input();
    determinism();
    cudnnDestroy(H);
    return hd_test_finish();
}
