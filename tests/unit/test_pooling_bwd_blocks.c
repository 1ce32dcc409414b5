/*
 * cudnnPoolingBackward, FLOAT 2-d, where the work is split into blocks of input rows (batch 1,
 * few channels, so the planes or images alone would not keep the threads busy): the result
 * must be bitwise the rule written out here (each dx the double sum of its contributions in
 * output order, then (float)(alpha * sum + beta * dx)) with 1, 2 and 3 threads, in NCHW,
 * NCHW with padded rows and NHWC.  Windows overlap or not, with padding and strides 1..3,
 * max under both NaN rules (data full of ties and some NaNs), both average modes, windows that
 * tile the input and global averages, negative padding too; alpha 1 with beta 0 as well as
 * other scales, and gradients that include -0.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cudnn.h>
#include "harness.h"

typedef struct {
    int n, c, h, w, mode, prop, wh, ww, ph, pw, sh, sw;
} pcase;

static const pcase cases[] = {
    {1, 1, 29, 31, CUDNN_POOLING_MAX, 0, 3, 3, 1, 1, 2, 2},
    {1, 3, 30, 33, CUDNN_POOLING_MAX, 1, 3, 3, 1, 1, 2, 2},
    {1, 2, 20, 37, CUDNN_POOLING_MAX_DETERMINISTIC, 0, 2, 3, 0, 1, 1, 3},
    {1, 5, 12, 9, CUDNN_POOLING_MAX, 1, 5, 5, 2, 2, 1, 1},
    {1, 2, 3, 4, CUDNN_POOLING_MAX, 0, 4, 5, 1, 1, 1, 2},
    {2, 2, 17, 40, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, 0, 3, 3, 1, 1, 1, 1},
    {1, 3, 21, 19, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, 0, 3, 3, 1, 1, 2, 2},
    {1, 2, 16, 16, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, 0, 2, 2, 0, 0, 2, 2},
    {1, 4, 7, 7, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, 0, 7, 7, 0, 0, 1, 1},
    {1, 2, 10, 12, CUDNN_POOLING_MAX, 1, 3, 3, -1, -1, 2, 2},           /* negative padding */
    {1, 3, 11, 12, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, 0, 3, 2, -1, 1, 2, 1},
    {1, 64, 9, 17, CUDNN_POOLING_MAX, 0, 3, 3, 1, 1, 2, 2},   /* NHWC rows of 4 KiB: streamed */
    /* 3x3 stride 2 in one pass (NHWC, alpha 1, beta 0): padding 0 on odd sizes, channel tails */
    {4, 20, 11, 13, CUDNN_POOLING_MAX, 1, 3, 3, 0, 0, 2, 2},   /* whole images per unit */
    {1, 33, 10, 12, CUDNN_POOLING_MAX, 0, 3, 3, 1, 1, 2, 2},
    {1, 18, 13, 9, CUDNN_POOLING_MAX, 0, 3, 3, 0, 1, 2, 2},
    /* the same along NCHW rows, 16 outputs per vector: a last block full, and three blocks */
    {1, 2, 9, 64, CUDNN_POOLING_MAX, 1, 3, 3, 1, 1, 2, 2},
    {2, 3, 7, 71, CUDNN_POOLING_MAX, 0, 3, 3, 0, 0, 2, 2},
    /* windows that tile the input (alpha 1, beta 0: float shares, broadcast) */
    {2, 3, 16, 18, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, 0, 2, 2, 0, 0, 2, 2},
    {1, 2, 9, 12, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, 0, 3, 3, 0, 0, 3, 3},
    {1, 3, 6, 70, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, 0, 1, 2, 0, 0, 1, 2},
    {1, 64, 4, 34, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, 0, 2, 2, 0, 0, 2, 2},  /* NHWC rows streamed */
    {1, 20, 6, 10, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, 0, 2, 1, 0, 0, 2, 1},
    /* global average, runs of 49 and of 9 */
    {2, 21, 7, 7, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, 0, 7, 7, 0, 0, 1, 1},
    {3, 17, 3, 3, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, 0, 3, 3, 0, 0, 3, 3},
};

static unsigned seed = 11;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((int)(seed >> 16 & 1023) - 512) / 37.0f;
}

/* One window along one dimension: [lo, hi) of real inputs, and its length in the padded input. */
static void span(int o, int in, int win, int pad, int str, int *lo, int *hi, int *incl)
{
    int s = o * str - pad, e = s + win, pe = e < in + pad ? e : in + pad;
    *incl = pe > s ? pe - s : 0;
    *lo = s < 0 ? 0 : s > in ? in : s;
    *hi = e > in ? in : e < 0 ? 0 : e;
    if (*hi < *lo)
        *hi = *lo;
}

/* The rule on packed NCHW arrays. */
static void reference(const pcase *k, int oh_n, int ow_n, const float *x, const float *dy, double alpha, double beta,
                      float *dx)
{
    int hw = k->h * k->w;
    double *acc = calloc((size_t)hw, sizeof(double));
    int maxm = k->mode == CUDNN_POOLING_MAX || k->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
    for (int nc = 0; nc < k->n * k->c; nc++) {
        const float *xp = x + (size_t)nc * hw;
        memset(acc, 0, sizeof(double) * (size_t)hw);
        for (int oh = 0; oh < oh_n; oh++)
            for (int ow = 0; ow < ow_n; ow++) {
                int hl, hh, hi_, wl, wh, wi;
                span(oh, k->h, k->wh, k->ph, k->sh, &hl, &hh, &hi_);
                span(ow, k->w, k->ww, k->pw, k->sw, &wl, &wh, &wi);
                int cnt = (hh - hl) * (wh - wl);
                if (cnt == 0)
                    continue;
                double g = dy[((size_t)nc * oh_n + oh) * ow_n + ow];
                if (maxm) {
                    float m = -INFINITY;
                    int best = -1;
                    for (int ih = hl; ih < hh; ih++)
                        for (int iw = wl; iw < wh; iw++) {
                            float v = xp[ih * k->w + iw];
                            if (m == m && ((k->prop && v != v) || v > m)) {
                                m = v;
                                best = ih * k->w + iw;
                            }
                        }
                    if (best >= 0)
                        acc[best] += g;
                } else {
                    int div = k->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? hi_ * wi : cnt;
                    for (int ih = hl; ih < hh; ih++)
                        for (int iw = wl; iw < wh; iw++)
                            acc[ih * k->w + iw] += g / (double)div;
                }
            }
        for (int i = 0; i < hw; i++) {
            double r = alpha * acc[i];
            if (beta != 0.0)
                r += beta * (double)dx[(size_t)nc * hw + i];
            dx[(size_t)nc * hw + i] = (float)r;
        }
    }
    free(acc);
}

/* Tensor of packed-NCHW logical size in layout 0 NCHW, 1 NCHW with 3 spare floats per row,
 * 2 NHWC; idx maps a packed NCHW index to its offset. */
static cudnnTensorDescriptor_t desc(int layout, int n, int c, int h, int w, size_t *count)
{
    cudnnTensorDescriptor_t d;
    cudnnCreateTensorDescriptor(&d);
    int rw = layout == 1 ? w + 3 : w;
    if (layout == 2)
        cudnnSetTensor4dDescriptorEx(d, CUDNN_DATA_FLOAT, n, c, h, w, h * w * c, 1, w * c, c);
    else
        cudnnSetTensor4dDescriptorEx(d, CUDNN_DATA_FLOAT, n, c, h, w, c * h * rw, h * rw, rw, 1);
    *count = (size_t)n * c * h * rw;
    return d;
}

static size_t offset(int layout, int c_n, int h_n, int w_n, size_t i)
{
    size_t w = i % w_n, h = i / w_n % h_n, c = i / ((size_t)w_n * h_n) % c_n, n = i / ((size_t)w_n * h_n * c_n);
    if (layout == 2)
        return ((n * h_n + h) * w_n + w) * c_n + c;
    size_t rw = layout == 1 ? (size_t)w_n + 3 : (size_t)w_n;
    return ((n * c_n + c) * h_n + h) * rw + w;
}

static void one_case(const pcase *k, int layout, cudnnHandle_t *hs)
{
    int oh_n = 1 + (k->h + 2 * k->ph - k->wh) / k->sh, ow_n = 1 + (k->w + 2 * k->pw - k->ww) / k->sw;
    size_t nx = (size_t)k->n * k->c * k->h * k->w, ny = (size_t)k->n * k->c * oh_n * ow_n, cx, cy;
    cudnnTensorDescriptor_t xd = desc(layout, k->n, k->c, k->h, k->w, &cx);
    cudnnTensorDescriptor_t yd = desc(layout, k->n, k->c, oh_n, ow_n, &cy);
    float *x = malloc(nx * 4), *dy = malloc(ny * 4), *dx0 = malloc(nx * 4), *want = malloc(nx * 4);
    float *tx = malloc(cx * 4), *tdy = malloc(cy * 4), *ty = malloc(cy * 4), *tdx = malloc(cx * 4);
    for (size_t i = 0; i < nx; i++) {
        x[i] = (float)((int)(rnd() * 37.0f) % 5);        /* few values: many ties */
        if (k->prop && i % 53 == 7)
            x[i] = NAN;
        dx0[i] = rnd();
    }
    for (size_t i = 0; i < ny; i++)
        dy[i] = i % 29 == 3 ? -0.0f : rnd();
    for (size_t i = 0; i < cx; i++)
        tx[i] = NAN;
    for (size_t i = 0; i < cy; i++)
        tdy[i] = ty[i] = NAN;
    for (size_t i = 0; i < nx; i++)
        tx[offset(layout, k->c, k->h, k->w, i)] = x[i];
    for (size_t i = 0; i < ny; i++)
        tdy[offset(layout, k->c, oh_n, ow_n, i)] = dy[i];
    cudnnPoolingDescriptor_t p;
    cudnnCreatePoolingDescriptor(&p);
    cudnnSetPooling2dDescriptor(p, (cudnnPoolingMode_t)k->mode, k->prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                k->wh, k->ww, k->ph, k->pw, k->sh, k->sw);
    static const float alphas[3] = {1.5f, -2.0f, 1.0f}, betas[3] = {0.0f, 0.5f, 0.0f};
    for (int ab = 0; ab < 3; ab++) {
        memcpy(want, dx0, nx * 4);
        reference(k, oh_n, ow_n, x, dy, alphas[ab], betas[ab], want);
        for (int t = 0; t < 3; t++) {
            for (size_t i = 0; i < cx; i++)
                tdx[i] = -7.0f;                              /* the padding of rows must stay */
            for (size_t i = 0; i < nx; i++)
                tdx[offset(layout, k->c, k->h, k->w, i)] = dx0[i];
            CHECK_OK(cudnnPoolingBackward(hs[t], p, &alphas[ab], yd, ty, yd, tdy, xd, tx, &betas[ab], xd, tdx));
            int bad = 0;
            for (size_t i = 0; i < nx; i++) {
                float g = tdx[offset(layout, k->c, k->h, k->w, i)];
                if (memcmp(&g, &want[i], 4) != 0)
                    bad++;
            }
            if (layout == 1)
                for (size_t i = 0; i < cx; i++)
                    if (i % (size_t)(k->w + 3) >= (size_t)k->w && tdx[i] != -7.0f)
                        bad++;
            CHECK_MSG(bad == 0, "%d threads, alpha %g beta %g: %d values differ from the rule", t + 1,
                      alphas[ab], betas[ab], bad);
        }
    }
    cudnnDestroyPoolingDescriptor(p);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    free(x); free(dy); free(dx0); free(want); free(tx); free(tdy); free(ty); free(tdx);
}

int main(void)
{
    cudnnHandle_t hs[3];
    for (int t = 0; t < 3; t++) {
        char v[4];
        v[0] = (char)('1' + t);
        v[1] = 0;
        setenv("HOSTDNN_NUM_THREADS", v, 1);
        cudnnCreate(&hs[t]);
    }
    static const char *names[3] = {"NCHW", "NCHW padded rows", "NHWC"};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (int layout = 0; layout < 3; layout++) {
            char sec[96];
            snprintf(sec, sizeof sec, "case %zu %s", ci, names[layout]);
            SECTION(sec);
            one_case(&cases[ci], layout, hs);
        }
    for (int t = 0; t < 3; t++)
        cudnnDestroy(hs[t]);
    return hd_test_finish();
}
