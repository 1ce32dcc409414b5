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
 * order, then writes dx once (FLOAT 2-d: pooling_bwd_f32.c, blocks of rows with the same
 * sums in the same order); CUDNN_POOLING_MAX and MAX_DETERMINISTIC are therefore both
 * deterministic and bitwise independent of the thread count.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "core/elem.h"
#include "ops/infer/pooling.h"
#include "ops/train/pooling_bwd.h"

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
    if (k.nsp == 2 && xDesc->dtype == CUDNN_DATA_FLOAT) {
        int done;
        cudnnStatus_t st = hd_pool_bwd_f32_2d(handle, p, &k.dy, &k.x, &k.dx, dy, x, dx, k.alpha, k.beta, &done);
        if (done)
            return st;
    }
    if (hd_mul_size((size_t)k.plane * sizeof(double), (size_t)nt, &bytes) != 0)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "scratch size overflows");
    k.scratch = hd_handle_scratch(handle, bytes);
    if (!k.scratch)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for %zu bytes of scratch", bytes);
    hd_parallel_for((size_t)xDesc->dims[0] * (size_t)xDesc->dims[1], nt,
                    bwd_task, &k);
    return CUDNN_STATUS_SUCCESS;
}
