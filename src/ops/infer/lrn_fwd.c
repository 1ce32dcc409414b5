/*
 * cudnnLRNCrossChannelForward and cudnnDivisiveNormalizationForward.
 *
 * LRN across channels (cuDNN divides lrnAlpha by the window width n):
 *   y = alpha * x / (k + (lrnAlpha / n) * sum_{j in window(c)} x_j^2)^lrnBeta + beta * y
 *
 * Divisive normalization (CUDNN_DIVNORM_PRECOMPUTED_MEANS), with t = x - means (means NULL
 * means zeros) and the window taken in every spatial dimension (lrnAlpha divided by
 * n^spatialDims):
 *   y = alpha * t / (k + (lrnAlpha / n^d) * sum_{q in window(p)} t_q^2)^lrnBeta + beta * y
 * temp and temp2 must be given (cuDNN's scratch tensors); the host computes in its own
 * scratch and does not touch them.
 *
 * Shapes: LRN takes 3..8-d x/y; divisive normalization 4-d or 5-d.  x and y must agree in
 * dims and type; strides that differ between x and y are NOT_SUPPORTED, as in cuDNN.
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
    hd_view x, y;
    const void *xp, *mp;
    void *yp;
    double alpha, beta;
    int64_t S;               /* spatial positions */
    double *scratch;
    size_t per_thread;
} lrn_ctx;

/* One task per (n, spatial position): a column of C channels. */
static void lrn_task(void *vctx, size_t t, int thread)
{
    const lrn_ctx *k = vctx;
    int C = k->x.dims[1];
    int64_t n = (int64_t)t / k->S, s = (int64_t)t % k->S;
    double *xs = k->scratch + (size_t)thread * k->per_thread, *sq = xs + C, *win = sq + C, *tmp = win + C;
    int64_t xsp = hd_view_sp_offset(&k->x, s), ysp = hd_view_sp_offset(&k->y, s);
    for (int c = 0; c < C; c++) {
        xs[c] = hd_ld(k->x.dtype, k->xp, hd_view_nc(&k->x, n, c) + xsp);
        sq[c] = xs[c] * xs[c];
    }
    hd_box_nd(sq, win, tmp, 1, &C, hd_lrn_behind(k->d->n), hd_lrn_ahead(k->d->n));
    double a = k->d->alpha / (double)k->d->n;
    for (int c = 0; c < C; c++) {
        double r = xs[c] * pow(k->d->k + a * win[c], -k->d->beta);
        hd_st_blend(k->y.dtype, k->yp, hd_view_nc(&k->y, n, c) + ysp, r, k->alpha, k->beta);
    }
}

static cudnnStatus_t check_pair(const char *fn, const tensor_t *x, const tensor_t *y, int min_dims, int max_dims)
{
    if (x->nbDims < min_dims || x->nbDims > max_dims)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "xDesc has %d dims; %d to %d are supported", x->nbDims, min_dims,
                       max_dims);
    if (!hd_same_dims(x, y))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "xDesc and yDesc dimensions differ");
    if (x->dtype != y->dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "xDesc is %s but yDesc is %s", hd_dtype_name(x->dtype),
                       hd_dtype_name(y->dtype));
    if (!hd_is_float_type(x->dtype) || x->vect_c > 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s data is not supported", hd_dtype_name(x->dtype));
    if (!hd_same_strides(x, y))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "x and y strides differ (cuDNN does not support this)");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnLRNCrossChannelForward)(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                   cudnnLRNMode_t lrnMode, const void *alpha,
                                                   const cudnnTensorDescriptor_t xDesc, const void *x,
                                                   const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(normDesc, HD_TAG_LRN);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(y);
    if (lrnMode != CUDNN_LRN_CROSS_CHANNEL_DIM1)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "lrnMode %d is not a cudnnLRNMode_t", (int)lrnMode);
    cudnnStatus_t st = check_pair(__func__, xDesc, yDesc, 3, CUDNN_DIM_MAX);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    lrn_ctx k;
    k.d = normDesc;
    hd_view_init(&k.x, xDesc);
    hd_view_init(&k.y, yDesc);
    k.xp = x;
    k.yp = y;
    k.mp = NULL;
    k.alpha = hd_scale_arg(alpha, xDesc->dtype);
    k.beta = hd_scale_arg(beta, xDesc->dtype);
    k.S = hd_view_spatial(&k.x);
    int nt = handle->num_threads;
    k.per_thread = 4 * (size_t)xDesc->dims[1];
    k.scratch = hd_handle_scratch(handle, k.per_thread * sizeof(double) * (size_t)nt);
    if (!k.scratch)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for scratch");
    hd_parallel_for((size_t)xDesc->dims[0] * (size_t)k.S, nt, lrn_task, &k);
    return CUDNN_STATUS_SUCCESS;
}

/* Divisive normalization: one task per (n, c) plane. */
static void divnorm_task(void *vctx, size_t t, int thread)
{
    const lrn_ctx *k = vctx;
    int C = k->x.dims[1], nsp = k->x.nb - 2;
    int64_t n = (int64_t)t / C, c = (int64_t)t % C, P = k->S;
    double *tv = k->scratch + (size_t)thread * k->per_thread, *sq = tv + P, *win = sq + P, *tmp = win + P;
    int64_t xo = hd_view_nc(&k->x, n, c), yo = hd_view_nc(&k->y, n, c);
    for (int64_t s = 0; s < P; s++) {
        int64_t off = xo + hd_view_sp_offset(&k->x, s);
        double v = hd_ld(k->x.dtype, k->xp, off);
        if (k->mp)
            v -= hd_ld(k->x.dtype, k->mp, off);
        tv[s] = v;
        sq[s] = v * v;
    }
    hd_box_nd(sq, win, tmp, nsp, k->x.dims + 2, hd_lrn_behind(k->d->n), hd_lrn_ahead(k->d->n));
    double a = k->d->alpha / pow((double)k->d->n, nsp);
    for (int64_t s = 0; s < P; s++) {
        double r = tv[s] * pow(k->d->k + a * win[s], -k->d->beta);
        hd_st_blend(k->y.dtype, k->yp, yo + hd_view_sp_offset(&k->y, s), r, k->alpha, k->beta);
    }
}

cudnnStatus_t HD_IMPL(cudnnDivisiveNormalizationForward)(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                         cudnnDivNormMode_t mode, const void *alpha,
                                                         const cudnnTensorDescriptor_t xDesc, const void *x,
                                                         const void *means, void *temp, void *temp2, const void *beta,
                                                         const cudnnTensorDescriptor_t yDesc, void *y)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(normDesc, HD_TAG_LRN);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(y);
    HD_CHECK_PTR(temp);
    HD_CHECK_PTR(temp2);
    if (mode != CUDNN_DIVNORM_PRECOMPUTED_MEANS)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnDivNormMode_t", (int)mode);
    cudnnStatus_t st = check_pair(__func__, xDesc, yDesc, 4, 5);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    lrn_ctx k;
    k.d = normDesc;
    hd_view_init(&k.x, xDesc);
    hd_view_init(&k.y, yDesc);
    k.xp = x;
    k.mp = means;
    k.yp = y;
    k.alpha = hd_scale_arg(alpha, xDesc->dtype);
    k.beta = hd_scale_arg(beta, xDesc->dtype);
    k.S = hd_view_spatial(&k.x);
    int nt = handle->num_threads;
    size_t bytes;
    k.per_thread = 4 * (size_t)k.S;
    if (hd_mul_size(k.per_thread * sizeof(double), (size_t)nt, &bytes) != 0)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "scratch size overflows");
    k.scratch = hd_handle_scratch(handle, bytes);
    if (!k.scratch)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for scratch");
    hd_parallel_for((size_t)xDesc->dims[0] * (size_t)xDesc->dims[1], nt, divnorm_task, &k);
    return CUDNN_STATUS_SUCCESS;
}
