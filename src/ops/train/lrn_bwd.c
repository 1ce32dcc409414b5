/*
 * cudnnLRNCrossChannelBackward and cudnnDivisiveNormalizationBackward: the exact gradients
 * of the forward formulas in ops/infer/lrn_fwd.c.  With s_i = k + a * sum_{j in W(i)} t_j^2
 * (a = lrnAlpha / n, or / n^d for divisive normalization) and y_i = t_i * s_i^-beta:
 *
 *   dt_j = dy_j * s_j^-beta - 2 * beta * a * t_j * sum_{i : j in W(i)} dy_i * t_i * s_i^(-beta-1)
 *
 * (the inner sum runs over the mirrored window [j - lookAhead, j + lookBehind]).  The
 * forward output y is not read: s is recomputed from x.  Divisive normalization writes
 * dx = alpha * dt + beta * dx and, when dMeans is not NULL, dMeans = alpha * (-dt) + beta * dMeans.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "core/elem.h"
#include "ops/infer/lrn.h"

#include <math.h>

typedef struct cudnnTensorStruct tensor_t;

typedef struct {
    const struct cudnnLRNStruct *d;
    hd_view x, dy, dx;
    const void *xp, *mp, *dyp;
    void *dxp, *dmp;
    double alpha, beta;
    int64_t S;
    double *scratch;
    size_t per_thread;
} bwd_ctx;

/* t[P], dy[P] in; dt[P] out; the other four arrays are scratch.  DIMS: the window grid. */
static void grad(const struct cudnnLRNStruct *d, double a, int nd, const int *dims, int64_t P, const double *t,
                 const double *g, double *dt, double *w1, double *w2, double *tmp)
{
    int lb = hd_lrn_behind(d->n), la = hd_lrn_ahead(d->n);
    for (int64_t i = 0; i < P; i++)
        w1[i] = t[i] * t[i];
    hd_box_nd(w1, w2, tmp, nd, dims, lb, la);                 /* w2 = window sums */
    for (int64_t i = 0; i < P; i++) {
        double s = d->k + a * w2[i];
        dt[i] = g[i] * pow(s, -d->beta);
        w1[i] = g[i] * t[i] * pow(s, -d->beta - 1.0);
    }
    hd_box_nd(w1, w2, tmp, nd, dims, la, lb);                 /* mirrored window */
    for (int64_t i = 0; i < P; i++)
        dt[i] -= 2.0 * d->beta * a * t[i] * w2[i];
}

static void lrn_task(void *vctx, size_t tk, int thread)
{
    const bwd_ctx *k = vctx;
    int C = k->x.dims[1];
    int64_t n = (int64_t)tk / k->S, s = (int64_t)tk % k->S;
    double *t = k->scratch + (size_t)thread * k->per_thread, *g = t + C, *dt = g + C, *w1 = dt + C, *w2 = w1 + C,
           *tmp = w2 + C;
    int64_t xsp = hd_view_sp_offset(&k->x, s), dysp = hd_view_sp_offset(&k->dy, s), dxsp = hd_view_sp_offset(&k->dx, s);
    for (int c = 0; c < C; c++) {
        t[c] = hd_ld(k->x.dtype, k->xp, hd_view_nc(&k->x, n, c) + xsp);
        g[c] = hd_ld(k->dy.dtype, k->dyp, hd_view_nc(&k->dy, n, c) + dysp);
    }
    grad(k->d, k->d->alpha / (double)k->d->n, 1, &C, C, t, g, dt, w1, w2, tmp);
    for (int c = 0; c < C; c++)
        hd_st_blend(k->dx.dtype, k->dxp, hd_view_nc(&k->dx, n, c) + dxsp, dt[c], k->alpha, k->beta);
}

cudnnStatus_t HD_IMPL(cudnnLRNCrossChannelBackward)(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                    cudnnLRNMode_t lrnMode, const void *alpha,
                                                    const cudnnTensorDescriptor_t yDesc, const void *y,
                                                    const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                    const cudnnTensorDescriptor_t xDesc, const void *x,
                                                    const void *beta, const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(normDesc, HD_TAG_LRN);
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
    if (lrnMode != CUDNN_LRN_CROSS_CHANNEL_DIM1)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "lrnMode %d is not a cudnnLRNMode_t", (int)lrnMode);
    if (xDesc->nbDims < 3)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc has %d dims; at least 3 are needed", xDesc->nbDims);
    if (!hd_same_dims(xDesc, yDesc) || !hd_same_dims(xDesc, dyDesc) || !hd_same_dims(xDesc, dxDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "x, y, dy and dx dimensions differ");
    if (xDesc->dtype != yDesc->dtype || xDesc->dtype != dyDesc->dtype || xDesc->dtype != dxDesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "x, y, dy and dx data types differ");
    if (!hd_is_float_type(xDesc->dtype) || xDesc->vect_c > 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "%s data is not supported", hd_dtype_name(xDesc->dtype));
    if (!hd_same_strides(xDesc, yDesc) || !hd_same_strides(xDesc, dyDesc) || !hd_same_strides(xDesc, dxDesc))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "the strides of x, y, dy and dx differ (cuDNN does not support this)");
    bwd_ctx k;
    k.d = normDesc;
    hd_view_init(&k.x, xDesc);
    hd_view_init(&k.dy, dyDesc);
    hd_view_init(&k.dx, dxDesc);
    k.xp = x;
    k.mp = NULL;
    k.dyp = dy;
    k.dxp = dx;
    k.dmp = NULL;
    k.alpha = hd_scale_arg(alpha, xDesc->dtype);
    k.beta = hd_scale_arg(beta, xDesc->dtype);
    k.S = hd_view_spatial(&k.x);
    int nt = handle->num_threads;
    k.per_thread = 6 * (size_t)xDesc->dims[1];
    k.scratch = hd_handle_scratch(handle, k.per_thread * sizeof(double) * (size_t)nt);
    if (!k.scratch)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for scratch");
    hd_parallel_for((size_t)xDesc->dims[0] * (size_t)k.S, nt, lrn_task, &k);
    return CUDNN_STATUS_SUCCESS;
}

static void divnorm_task(void *vctx, size_t tk, int thread)
{
    const bwd_ctx *k = vctx;
    int C = k->x.dims[1], nsp = k->x.nb - 2;
    int64_t n = (int64_t)tk / C, c = (int64_t)tk % C, P = k->S;
    double *t = k->scratch + (size_t)thread * k->per_thread, *g = t + P, *dt = g + P, *w1 = dt + P, *w2 = w1 + P,
           *tmp = w2 + P;
    int64_t xo = hd_view_nc(&k->x, n, c), dxo = hd_view_nc(&k->dx, n, c);
    for (int64_t s = 0; s < P; s++) {
        int64_t off = xo + hd_view_sp_offset(&k->x, s);
        t[s] = hd_ld(k->x.dtype, k->xp, off) - (k->mp ? hd_ld(k->x.dtype, k->mp, off) : 0.0);
        g[s] = hd_ld(k->x.dtype, k->dyp, off);
    }
    grad(k->d, k->d->alpha / pow((double)k->d->n, nsp), nsp, k->x.dims + 2, P, t, g, dt, w1, w2, tmp);
    for (int64_t s = 0; s < P; s++) {
        int64_t off = dxo + hd_view_sp_offset(&k->dx, s);
        hd_st_blend(k->dx.dtype, k->dxp, off, dt[s], k->alpha, k->beta);
        if (k->dmp)
            hd_st_blend(k->dx.dtype, k->dmp, off, -dt[s], k->alpha, k->beta);
    }
}

cudnnStatus_t HD_IMPL(cudnnDivisiveNormalizationBackward)(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                          cudnnDivNormMode_t mode, const void *alpha,
                                                          const cudnnTensorDescriptor_t xDesc, const void *x,
                                                          const void *means, const void *dy, void *temp, void *temp2,
                                                          const void *beta, const cudnnTensorDescriptor_t dXdMeansDesc,
                                                          void *dx, void *dMeans)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(normDesc, HD_TAG_LRN);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(dXdMeansDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(dy);
    HD_CHECK_PTR(dx);
    HD_CHECK_PTR(temp);
    HD_CHECK_PTR(temp2);
    if (mode != CUDNN_DIVNORM_PRECOMPUTED_MEANS)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnDivNormMode_t", (int)mode);
    if (xDesc->nbDims != 4 && xDesc->nbDims != 5)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc has %d dims; only 4-d and 5-d are supported", xDesc->nbDims);
    if (!hd_same_dims(xDesc, dXdMeansDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc and dXdMeansDesc dimensions differ");
    if (xDesc->dtype != dXdMeansDesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc and dXdMeansDesc data types differ");
    if (!hd_is_float_type(xDesc->dtype) || xDesc->vect_c > 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "%s data is not supported", hd_dtype_name(xDesc->dtype));
    if (!hd_same_strides(xDesc, dXdMeansDesc))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "x and dx strides differ (cuDNN does not support this)");
    bwd_ctx k;
    k.d = normDesc;
    hd_view_init(&k.x, xDesc);
    hd_view_init(&k.dy, xDesc);
    hd_view_init(&k.dx, dXdMeansDesc);
    k.xp = x;
    k.mp = means;
    k.dyp = dy;
    k.dxp = dx;
    k.dmp = dMeans;
    k.alpha = hd_scale_arg(alpha, xDesc->dtype);
    k.beta = hd_scale_arg(beta, xDesc->dtype);
    k.S = hd_view_spatial(&k.x);
    int nt = handle->num_threads;
    size_t bytes;
    k.per_thread = 6 * (size_t)k.S;
    if (hd_mul_size(k.per_thread * sizeof(double), (size_t)nt, &bytes) != 0)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "scratch size overflows");
    k.scratch = hd_handle_scratch(handle, bytes);
    if (!k.scratch)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for scratch");
    hd_parallel_for((size_t)xDesc->dims[0] * (size_t)xDesc->dims[1], nt, divnorm_task, &k);
    return CUDNN_STATUS_SUCCESS;
}
