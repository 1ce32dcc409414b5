/*
 * tests/unit/wino_tens.h -- the strided FLOAT tensors of the Winograd solver tests
 * (test_conv_winograd4.c, test_conv_wino4_bwdf.c): NCHW, NHWC or NCHW with a gap after every
 * row, channel and image, loaded from a packed logical double array; a problem of their case
 * tables with its descriptors; a handle with a given thread count.
 */
#ifndef HD_TEST_WINO_TENS_H
#define HD_TEST_WINO_TENS_H

#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/conv_ref.h"

enum { L_NCHW, L_NHWC, L_PADDED, L_COUNT };

/* A 2-d 3x3 problem of the tests' case tables. */
typedef struct {
    const char *name;
    int N, C, K, G, H, W, ph, pw;
} wcase;

/* A strided FLOAT tensor: logical dims (n, c, h, w), element strides, span in elements. */
typedef struct {
    int dims[4], strides[4];
    long span;
    float *mem;
} tens;

static void tens_init(tens *t, const int *dims, int layout)
{
    memcpy(t->dims, dims, sizeof t->dims);
    int *s = t->strides;
    if (layout == L_NHWC) {
        s[1] = 1, s[3] = dims[1], s[2] = dims[1] * dims[3], s[0] = dims[1] * dims[3] * dims[2];
    } else {
        int pad = layout == L_PADDED;
        s[3] = 1, s[2] = dims[3] + pad, s[1] = s[2] * dims[2] + pad, s[0] = s[1] * dims[1] + pad;
    }
    t->span = 1;
    for (int i = 0; i < 4; i++)
        t->span += (long)(dims[i] - 1) * s[i];
    t->mem = malloc((size_t)t->span * sizeof(float));
}

static long tens_off(const tens *t, long li)
{
    long off = 0;
    for (int i = 3; i >= 0; i--) {
        off += (li % t->dims[i]) * t->strides[i];
        li /= t->dims[i];
    }
    return off;
}

static long tens_elems(const tens *t) { return (long)t->dims[0] * t->dims[1] * t->dims[2] * t->dims[3]; }

static void tens_load(tens *t, const double *l, float fill)
{
    for (long i = 0; i < t->span; i++)
        t->mem[i] = fill;
    for (long i = 0; i < tens_elems(t); i++)
        t->mem[tens_off(t, i)] = (float)l[i];
}

/* ---- one problem: descriptors and tensors (filter KCRS, or KRSC with NHWC) ---- */

typedef struct {
    conv_ref_shape rs;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    tens x, w, y;
} prob;

static void prob_make(prob *P, const wcase *c, int layout, int flip, int str)
{
    memset(P, 0, sizeof *P);
    conv_ref_shape *s = &P->rs;
    s->N = c->N, s->C = c->C, s->K = c->K, s->G = c->G, s->flip = flip;
    s->in[0] = 1, s->in[1] = c->H, s->in[2] = c->W;
    s->flt[0] = 1, s->flt[1] = 3, s->flt[2] = 3;
    s->pad[1] = c->ph, s->pad[2] = c->pw;
    s->str[0] = 1, s->str[1] = str, s->str[2] = str;
    s->dil[0] = s->dil[1] = s->dil[2] = 1;
    conv_ref_out_dims(s);
    int xdims[4] = {c->N, c->C, c->H, c->W}, ydims[4] = {c->N, c->K, s->out[1], s->out[2]};
    int wdims[4] = {c->K, c->C / c->G, 3, 3};
    tens_init(&P->x, xdims, layout);
    tens_init(&P->y, ydims, layout);
    tens_init(&P->w, wdims, layout == L_NHWC ? L_NHWC : L_NCHW);
    cudnnCreateTensorDescriptor(&P->xd);
    cudnnCreateTensorDescriptor(&P->yd);
    cudnnCreateFilterDescriptor(&P->wd);
    cudnnCreateConvolutionDescriptor(&P->cd);
    cudnnSetTensorNdDescriptor(P->xd, CUDNN_DATA_FLOAT, 4, xdims, P->x.strides);
    cudnnSetTensorNdDescriptor(P->yd, CUDNN_DATA_FLOAT, 4, ydims, P->y.strides);
    cudnnSetFilterNdDescriptor(P->wd, CUDNN_DATA_FLOAT, layout == L_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, 4,
                               wdims);
    cudnnSetConvolution2dDescriptor(P->cd, c->ph, c->pw, str, str, 1, 1, flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    cudnnSetConvolutionGroupCount(P->cd, c->G);
}

static void prob_free(prob *P)
{
    free(P->x.mem), free(P->w.mem), free(P->y.mem);
    cudnnDestroyTensorDescriptor(P->xd);
    cudnnDestroyTensorDescriptor(P->yd);
    cudnnDestroyFilterDescriptor(P->wd);
    cudnnDestroyConvolutionDescriptor(P->cd);
}

/* A handle whose thread count is NT (HOSTDNN_NUM_THREADS is read at creation). */
static cudnnHandle_t handle_with_threads(int nt)
{
    char v[16];
    snprintf(v, sizeof v, "%d", nt);
    setenv("HOSTDNN_NUM_THREADS", v, 1);
    cudnnHandle_t h = NULL;
    cudnnCreate(&h);
    unsetenv("HOSTDNN_NUM_THREADS");
    return h;
}

#endif
