/*
 * cudnnPoolingBackward: the gradient of cudnnPoolingForward with respect to x.
 *
 * Max modes: each output's gradient goes to one input position of its window: the first
 * maximum in row-major window order (strictly greater replaces; with CUDNN_PROPAGATE_NAN the
 * first NaN wins; with CUDNN_NOT_PROPAGATE_NAN NaNs are never chosen).  The position is found
 * again from x, so y is not read.  Average modes spread dy / divisor over the window's real
 * input positions (the divisor is the one forward used).
 *
 * Determinism: one task per (n, c) plane accumulates into a private double plane in output
 * order, then writes dx once (FLOAT 2-d NHWC: one task per image, a ring of window rows with
 * the same order); CUDNN_POOLING_MAX and MAX_DETERMINISTIC are therefore both deterministic
 * and bitwise independent of the thread count.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "core/elem.h"
#include "kernels/pool/pool-ukernels.h"
#include "ops/infer/pooling.h"

#include <math.h>
#include <string.h>

typedef struct cudnnPoolingStruct pool_t;
typedef struct cudnnTensorStruct tensor_t;

typedef struct {
    const pool_t *p;
    hd_view dy, x, dx;
    const void *dyp, *xp;
    void *dxp;
    double alpha, beta;
    int nsp;
    int64_t plane;           /* input positions per (n, c) */
    double *scratch;
    size_t nhwc_per_thread;  /* doubles of scratch per thread on the NHWC path */
    hd_f32_pool_argmax_fn argmax;    /* ... and its argmax and flush kernels */
    hd_f32_pool_flush_fn flush;
} bwd_ctx;

static int is_max(cudnnPoolingMode_t m) { return m == CUDNN_POOLING_MAX || m == CUDNN_POOLING_MAX_DETERMINISTIC; }

static void bwd_task(void *vctx, size_t t, int thread)
{
    const bwd_ctx *k = vctx;
    const pool_t *p = k->p;
    int C = k->x.dims[1], nsp = k->nsp;
    int n = (int)(t / (size_t)C), c = (int)(t % (size_t)C);
    double *acc = k->scratch + (size_t)thread * (size_t)k->plane;
    memset(acc, 0, sizeof(double) * (size_t)k->plane);
    int64_t xo = hd_view_nc(&k->x, n, c), dyo = hd_view_nc(&k->dy, n, c);
    int64_t pstride[HD_POOL_MAX_SPATIAL];           /* packed strides of the private plane */
    int64_t s = 1;
    for (int d = nsp - 1; d >= 0; d--) {
        pstride[d] = s;
        s *= k->x.dims[d + 2];
    }
    int prop = p->nan_opt == CUDNN_PROPAGATE_NAN;
    int o[HD_POOL_MAX_SPATIAL] = {0};
    int64_t total = 1;
    for (int d = 0; d < nsp; d++)
        total *= k->dy.dims[d + 2];
    for (int64_t e = 0; e < total; e++) {
        hd_pool_span sp[HD_POOL_MAX_SPATIAL];
        int64_t cnt = 1, incl = 1, dyoff = dyo;
        for (int d = 0; d < nsp; d++) {
            sp[d] = hd_pool_span_of(o[d], k->x.dims[d + 2], p->window[d], p->pad[d], p->stride[d]);
            cnt *= sp[d].hi - sp[d].lo;
            incl *= sp[d].incl;
            dyoff += (int64_t)o[d] * k->dy.strides[d + 2];
        }
        double g = hd_ld(k->dy.dtype, k->dyp, dyoff);
        if (cnt > 0) {
            int i[HD_POOL_MAX_SPATIAL];
            for (int d = 0; d < nsp; d++)
                i[d] = sp[d].lo;
            double m = -INFINITY;
            int64_t best = -1;
            double share = 0.0;
            if (!is_max(p->mode))
                share = g / (double)(p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? incl : cnt);
            for (int64_t w = 0; w < cnt; w++) {
                int64_t pi = 0;
                for (int d = 0; d < nsp; d++)
                    pi += (int64_t)i[d] * pstride[d];
                if (is_max(p->mode)) {
                    if (m == m) {       /* once NaN was chosen (propagate), it stays */
                        int64_t xoff = xo;
                        for (int d = 0; d < nsp; d++)
                            xoff += (int64_t)i[d] * k->x.strides[d + 2];
                        double v = hd_ld(k->x.dtype, k->xp, xoff);
                        if ((prop && v != v) || v > m) {
                            m = v;
                            best = pi;
                        }
                    }
                } else {
                    acc[pi] += share;
                }
                for (int d = nsp - 1; d >= 0; d--) {
                    if (++i[d] < sp[d].hi)
                        break;
                    i[d] = sp[d].lo;
                }
            }
            if (is_max(p->mode) && best >= 0)
                acc[best] += g;
        }
        for (int d = nsp - 1; d >= 0; d--) {
            if (++o[d] < k->dy.dims[d + 2])
                break;
            o[d] = 0;
        }
    }
    /* write dx = alpha * acc + beta * dx over the plane */
    int i[HD_POOL_MAX_SPATIAL] = {0};
    int64_t dxo = hd_view_nc(&k->dx, n, c);
    for (int64_t pi = 0; pi < k->plane; pi++) {
        int64_t off = dxo;
        for (int d = 0; d < nsp; d++)
            off += (int64_t)i[d] * k->dx.strides[d + 2];
        hd_st_blend(k->dx.dtype, k->dxp, off, acc[pi], k->alpha, k->beta);
        for (int d = nsp - 1; d >= 0; d--) {
            if (++i[d] < k->x.dims[d + 2])
                break;
            i[d] = 0;
        }
    }
}

/* FLOAT 2-d planes: the same rules as bwd_task with direct pointer arithmetic. */
static void bwd2d_f32_task(void *vctx, size_t t, int thread)
{
    const bwd_ctx *k = vctx;
    const pool_t *p = k->p;
    int C = k->x.dims[1], H = k->x.dims[2], W = k->x.dims[3], OH = k->dy.dims[2], OW = k->dy.dims[3];
    int n = (int)(t / (size_t)C), c = (int)(t % (size_t)C);
    double *acc = k->scratch + (size_t)thread * (size_t)k->plane;
    memset(acc, 0, sizeof(double) * (size_t)k->plane);
    const float *x = (const float *)k->xp + hd_view_nc(&k->x, n, c);
    const float *dy = (const float *)k->dyp + hd_view_nc(&k->dy, n, c);
    int64_t xh = k->x.strides[2], xw = k->x.strides[3], dyh = k->dy.strides[2], dyw = k->dy.strides[3];
    int prop = p->nan_opt == CUDNN_PROPAGATE_NAN, maxm = is_max(p->mode);
    for (int oh = 0; oh < OH; oh++) {
        hd_pool_span sh = hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0]);
        for (int ow = 0; ow < OW; ow++) {
            hd_pool_span sw = hd_pool_span_of(ow, W, p->window[1], p->pad[1], p->stride[1]);
            int64_t cnt = (int64_t)(sh.hi - sh.lo) * (sw.hi - sw.lo);
            if (cnt == 0)
                continue;
            double g = dy[oh * dyh + ow * dyw];
            if (maxm) {
                float m = -INFINITY;
                int64_t best = -1;
                for (int ih = sh.lo; ih < sh.hi && m == m; ih++)
                    for (int iw = sw.lo; iw < sw.hi; iw++) {
                        float v = x[ih * xh + iw * xw];
                        if ((prop && v != v) || v > m) {
                            m = v;
                            best = (int64_t)ih * W + iw;
                            if (v != v)
                                break;
                        }
                    }
                if (best >= 0)
                    acc[best] += g;
            } else {
                double share = g / (double)(p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                ? (int64_t)sh.incl * sw.incl : cnt);
                for (int ih = sh.lo; ih < sh.hi; ih++)
                    for (int iw = sw.lo; iw < sw.hi; iw++)
                        acc[(int64_t)ih * W + iw] += share;
            }
        }
    }
    float *dx = (float *)k->dxp + hd_view_nc(&k->dx, n, c);
    int64_t dxh = k->dx.strides[2], dxw = k->dx.strides[3];
    for (int ih = 0; ih < H; ih++)
        for (int iw = 0; iw < W; iw++) {
            double r = k->alpha * acc[(int64_t)ih * W + iw];
            if (k->beta != 0.0)
                r += k->beta * (double)dx[ih * dxh + iw * dxw];
            dx[ih * dxh + iw * dxw] = (float)r;
        }
}

/* FLOAT 2-d with channels contiguous in x, dy and dx (NHWC): one task per image.  Outputs are
 * taken in the plane path's order (oh, then ow), each adding to the rows of its window in a
 * ring of KH rows of W x C doubles, channels innermost; a row is written to dx as soon as no
 * later output can reach it (window starts never move up).  So every dx value is the same
 * sum, in the same order, as the plane path gives it, and x, dy and dx are each walked once
 * in memory order.  The max modes find each output's argmax per channel over its window with
 * the argmax kernel (pool-ukernels.h), whose rule is the plane path's (first strict maximum;
 * with PROPAGATE the first NaN, then stop). */
static void bwd_nhwc_f32_task(void *vctx, size_t t, int thread)
{
    const bwd_ctx *k = vctx;
    const pool_t *p = k->p;
    int C = k->x.dims[1], H = k->x.dims[2], W = k->x.dims[3], OH = k->dy.dims[2], OW = k->dy.dims[3];
    int kh = p->window[0] < H ? p->window[0] : H;
    int64_t n = (int64_t)t, rowlen = (int64_t)W * C;
    int kw = p->window[1] < W ? p->window[1] : W;
    double *ring = k->scratch + (size_t)thread * k->nhwc_per_thread;
    /* after the ring: the window's tap pointers and ring offsets, the argmax per channel */
    const float **taps = (const float **)(void *)(ring + (size_t)kh * (size_t)rowlen);
    int64_t *at = (int64_t *)(void *)(taps + (size_t)kh * (size_t)kw);
    int32_t *arg = (int32_t *)(void *)(at + (size_t)kh * (size_t)kw);
    memset(ring, 0, sizeof(double) * (size_t)kh * (size_t)rowlen);
    const float *x = (const float *)k->xp + n * k->x.strides[0];
    const float *dy = (const float *)k->dyp + n * k->dy.strides[0];
    float *dx = (float *)k->dxp + n * k->dx.strides[0];
    int64_t xh = k->x.strides[2], xw = k->x.strides[3], dyh = k->dy.strides[2], dyw = k->dy.strides[3];
    int64_t dxh = k->dx.strides[2], dxw = k->dx.strides[3];
    int prop = p->nan_opt == CUDNN_PROPAGATE_NAN, maxm = is_max(p->mode);
    int incl = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    int done = 0;            /* input rows below this one are written */
    for (int oh = 0; oh <= OH; oh++) {
        hd_pool_span sh = oh < OH ? hd_pool_span_of(oh, H, p->window[0], p->pad[0], p->stride[0])
                                  : (hd_pool_span){H, H, 0};
        for (; done < sh.lo || (oh == OH && done < H); done++) {      /* final rows out */
            double *a = ring + (size_t)(done % kh) * (size_t)rowlen;
            float *d = dx + done * dxh;
            if (dxw == C) {                            /* packed row: one call */
                k->flush(d, a, (size_t)rowlen, k->alpha, k->beta);
            } else {
                for (int iw = 0; iw < W; iw++)
                    k->flush(d + iw * dxw, a + (int64_t)iw * C, (size_t)C, k->alpha, k->beta);
            }
        }
        if (oh == OH)
            break;
        for (int ow = 0; ow < OW; ow++) {
            hd_pool_span sw = hd_pool_span_of(ow, W, p->window[1], p->pad[1], p->stride[1]);
            int64_t cnt = (int64_t)(sh.hi - sh.lo) * (sw.hi - sw.lo);
            if (cnt == 0)
                continue;
            const float *g = dy + oh * dyh + ow * dyw;
            if (!maxm) {
                double div = (double)(incl ? (int64_t)sh.incl * sw.incl : cnt);
                for (int ih = sh.lo; ih < sh.hi; ih++) {
                    double *a = ring + (size_t)(ih % kh) * (size_t)rowlen;
                    for (int iw = sw.lo; iw < sw.hi; iw++)
                        for (int c = 0; c < C; c++)
                            a[(int64_t)iw * C + c] += (double)g[c] / div;
                }
                continue;
            }
            int nt = 0;
            for (int ih = sh.lo; ih < sh.hi; ih++)
                for (int iw = sw.lo; iw < sw.hi; iw++, nt++) {
                    taps[nt] = x + ih * xh + iw * xw;
                    at[nt] = (int64_t)(ih % kh) * rowlen + (int64_t)iw * C;
                }
            k->argmax(taps, nt, (size_t)C, prop, arg);
            for (int c = 0; c < C; c++)
                if (arg[c] >= 0)
                    ring[at[arg[c]] + c] += (double)g[c];
        }
    }
}

cudnnStatus_t HD_IMPL(cudnnPoolingBackward)(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
                                            const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                                            const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                            const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                            const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(poolingDesc, HD_TAG_POOLING);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_TENSOR(dyDesc);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(dxDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(y);
    HD_CHECK_PTR(dy);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(dx);
    const pool_t *p = poolingDesc;
    if (p->nbSpatial == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "poolingDesc was never set");
    if (xDesc->nbDims != p->nbSpatial + 2 || yDesc->nbDims != xDesc->nbDims)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc (%d dims) and yDesc (%d dims) must have %d dims for this %d-d pooling",
                       xDesc->nbDims, yDesc->nbDims, p->nbSpatial + 2, p->nbSpatial);
    if (!hd_same_dims(yDesc, dyDesc) || !hd_same_strides(yDesc, dyDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "yDesc and dyDesc differ in dimensions or strides");
    if (!hd_same_dims(xDesc, dxDesc) || !hd_same_strides(xDesc, dxDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc and dxDesc differ in dimensions or strides");
    if (xDesc->dtype != yDesc->dtype || xDesc->dtype != dyDesc->dtype || xDesc->dtype != dxDesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the four tensors must have one data type");
    if (xDesc->dims[0] != yDesc->dims[0] || xDesc->dims[1] != yDesc->dims[1])
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "n, c of x (%d, %d) and y (%d, %d) differ", xDesc->dims[0],
                       xDesc->dims[1], yDesc->dims[0], yDesc->dims[1]);
    if (!hd_is_float_type(xDesc->dtype) || xDesc->vect_c > 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "pooling backward does not take %s data",
                       hd_dtype_name(xDesc->dtype));
    for (int d = 0; d < p->nbSpatial; d++)
        if ((long long)xDesc->dims[d + 2] + 2LL * p->pad[d] < p->window[d])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "window %d (%d) is larger than the padded input (%d + 2*%d)", d,
                           p->window[d], xDesc->dims[d + 2], p->pad[d]);

    bwd_ctx k;
    k.p = p;
    hd_view_init(&k.dy, dyDesc);
    hd_view_init(&k.x, xDesc);
    hd_view_init(&k.dx, dxDesc);
    k.dyp = dy;
    k.xp = x;
    k.dxp = dx;
    k.alpha = hd_scale_arg(alpha, xDesc->dtype);
    k.beta = hd_scale_arg(beta, xDesc->dtype);
    k.nsp = p->nbSpatial;
    k.plane = 1;
    for (int d = 0; d < k.nsp; d++)
        k.plane *= xDesc->dims[d + 2];
    int nt = handle->num_threads;
    size_t bytes;
    if (k.nsp == 2 && xDesc->dtype == CUDNN_DATA_FLOAT && k.x.strides[1] == 1 && k.dy.strides[1] == 1 &&
        xDesc->dims[1] > 1) {
        /* the ring of window rows, the window's taps and offsets (8 bytes each), the argmax of
         * each channel (4 bytes each, rounded up to doubles) */
        size_t kh = (size_t)(p->window[0] < xDesc->dims[2] ? p->window[0] : xDesc->dims[2]);
        size_t kw = (size_t)(p->window[1] < xDesc->dims[3] ? p->window[1] : xDesc->dims[3]);
        k.nhwc_per_thread = kh * (size_t)xDesc->dims[3] * (size_t)xDesc->dims[1] + 2 * kh * kw +
                            ((size_t)xDesc->dims[1] + 1) / 2 + 8;
        k.argmax = hd_f32_pool_argmax_select(handle->isa);
        k.flush = hd_f32_pool_flush_select(handle->isa);
        if (hd_mul_size(k.nhwc_per_thread * sizeof(double), (size_t)nt, &bytes) != 0)
            return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "scratch size overflows");
        k.scratch = hd_handle_scratch(handle, bytes);
        if (!k.scratch)
            return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for %zu bytes of scratch", bytes);
        hd_parallel_for((size_t)xDesc->dims[0], nt, bwd_nhwc_f32_task, &k);
        return CUDNN_STATUS_SUCCESS;
    }
    if (hd_mul_size((size_t)k.plane * sizeof(double), (size_t)nt, &bytes) != 0)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "scratch size overflows");
    k.scratch = hd_handle_scratch(handle, bytes);
    if (!k.scratch)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for %zu bytes of scratch", bytes);
    hd_parallel_for((size_t)xDesc->dims[0] * (size_t)xDesc->dims[1], nt,
                    k.nsp == 2 && xDesc->dtype == CUDNN_DATA_FLOAT ? bwd2d_f32_task : bwd_task, &k);
    return CUDNN_STATUS_SUCCESS;
}
