/*
 * Spatial transformer: descriptor, grid generator and bilinear sampler (forward).
 *
 * Only 2-d (nbDims 4: N, C, H, W of the output) bilinear sampling exists in cuDNN 8.1.
 * Grid generator: theta is N x 2 x 3; grid is N x H x W x 2 with
 *     grid[n][h][w] = theta[n] * (x_w, y_h, 1),  x_w, y_h in [-1, 1] across W and H.
 * Sampler: y[n][c][h][w] = alpha * x(n, c, at (gx, gy)) + beta * y, where (gx, gy) =
 * grid[n][h][w] maps -1..1 onto the first..last input pixel (ix = (gx + 1) (W_in - 1) / 2)
 * and points outside the input read as zero.  theta, grid, x and y all use the
 * descriptor's data type (FLOAT, DOUBLE, HALF; cuDNN refuses BFLOAT16 here); math is in double.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/spatial_tf_desc.h"
#include "core/tensor.h"
#include "ops/common.h"

#include <math.h>

typedef struct cudnnSpatialTransformerStruct st_t;

cudnnStatus_t HD_IMPL(cudnnCreateSpatialTransformerDescriptor)(cudnnSpatialTransformerDescriptor_t *stDesc)
{
    HD_CHECK_PTR(stDesc);
    st_t *d = hd_object_new(sizeof *d, HD_TAG_SPATIAL_TF);
    if (!d)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *stDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroySpatialTransformerDescriptor)(cudnnSpatialTransformerDescriptor_t stDesc)
{
    if (!stDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(stDesc, HD_TAG_SPATIAL_TF);
    hd_object_free(stDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetSpatialTransformerNdDescriptor)(cudnnSpatialTransformerDescriptor_t stDesc,
                                                              cudnnSamplerType_t samplerType, cudnnDataType_t dataType,
                                                              const int nbDims, const int dimA[])
{
    HD_CHECK_DESC(stDesc, HD_TAG_SPATIAL_TF);
    if (samplerType != CUDNN_SAMPLER_BILINEAR)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "samplerType %d is not CUDNN_SAMPLER_BILINEAR", (int)samplerType);
    if (dataType != CUDNN_DATA_FLOAT && dataType != CUDNN_DATA_DOUBLE && dataType != CUDNN_DATA_HALF)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dataType %d must be FLOAT, DOUBLE or HALF", (int)dataType);
    if (nbDims != 4)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "nbDims is %d; only 4 (2-d transforms) is supported", nbDims);
    HD_CHECK_PTR(dimA);
    int64_t total = 1;
    for (int i = 0; i < 4; i++) {
        if (dimA[i] <= 0)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dimA[%d] is %d; dims must be positive", i, dimA[i]);
        total *= dimA[i];
        if (total > 0x7fffffff)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the output has more than 2^31-1 elements");
    }
    for (int i = 0; i < 4; i++)
        stDesc->dims[i] = dimA[i];
    stDesc->sampler = samplerType;
    stDesc->dtype = dataType;
    stDesc->nbDims = 4;
    return CUDNN_STATUS_SUCCESS;
}

typedef struct {
    const st_t *d;
    const void *theta;
    void *grid;
} gg_ctx;

static void gg_task(void *vctx, size_t n, int thread)
{
    (void)thread;
    const gg_ctx *c = vctx;
    int H = c->d->dims[2], W = c->d->dims[3];
    cudnnDataType_t dt = c->d->dtype;
    double th[6];
    hd_load_f64(dt, c->theta, (int64_t)n * 6, 1, 6, th);
    for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w++) {
            double xt = hd_st_coord(w, W), yt = hd_st_coord(h, H);
            int64_t o = (((int64_t)n * H + h) * W + w) * 2;
            hd_st1(dt, c->grid, o, th[0] * xt + th[1] * yt + th[2]);
            hd_st1(dt, c->grid, o + 1, th[3] * xt + th[4] * yt + th[5]);
        }
}

cudnnStatus_t HD_IMPL(cudnnSpatialTfGridGeneratorForward)(cudnnHandle_t handle,
                                                          const cudnnSpatialTransformerDescriptor_t stDesc,
                                                          const void *theta, void *grid)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(stDesc, HD_TAG_SPATIAL_TF);
    if (stDesc->nbDims == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "stDesc was never set");
    HD_CHECK_PTR(theta);
    HD_CHECK_PTR(grid);
    gg_ctx c = { stDesc, theta, grid };
    hd_parallel_for((size_t)stDesc->dims[0], handle->num_threads, gg_task, &c);
    return CUDNN_STATUS_SUCCESS;
}

typedef struct {
    const st_t *d;
    const struct cudnnTensorStruct *xd, *yd;
    const void *x, *grid;
    void *y;
    double alpha, beta;
} sf_ctx;

/* one task: image n, output row h, all channels */
static void sf_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const sf_ctx *c = vctx;
    int H = c->d->dims[2], W = c->d->dims[3], C = c->d->dims[1];
    int n = (int)(task / (size_t)H), h = (int)(task % (size_t)H);
    int Hi = c->xd->dims[2], Wi = c->xd->dims[3];
    const int *xs = c->xd->strides, *ys = c->yd->strides;
    cudnnDataType_t dt = c->d->dtype;
    for (int w = 0; w < W; w++) {
        int64_t go = (((int64_t)n * H + h) * W + w) * 2;
        double ix = (hd_ld1(dt, c->grid, go) + 1.0) * (Wi - 1) / 2.0;
        double iy = (hd_ld1(dt, c->grid, go + 1) + 1.0) * (Hi - 1) / 2.0;
        if (!(ix > -2.0 && ix < Wi + 1.0 && iy > -2.0 && iy < Hi + 1.0))
            ix = iy = -10.0;              /* far outside (or NaN): every corner reads zero */
        double fx = floor(ix), fy = floor(iy);
        int64_t x0 = (int64_t)fx, y0 = (int64_t)fy;
        double ax = ix - fx, ay = iy - fy;
        int ok_x0 = fx >= 0 && fx < Wi, ok_x1 = fx + 1 >= 0 && fx + 1 < Wi;
        int ok_y0 = fy >= 0 && fy < Hi, ok_y1 = fy + 1 >= 0 && fy + 1 < Hi;
        for (int ch = 0; ch < C; ch++) {
            int64_t base = (int64_t)n * xs[0] + (int64_t)ch * xs[1];
            double v = 0;
            if (ok_y0 && ok_x0)
                v += (1 - ay) * (1 - ax) * hd_ld1(dt, c->x, base + y0 * xs[2] + x0 * xs[3]);
            if (ok_y0 && ok_x1)
                v += (1 - ay) * ax * hd_ld1(dt, c->x, base + y0 * xs[2] + (x0 + 1) * xs[3]);
            if (ok_y1 && ok_x0)
                v += ay * (1 - ax) * hd_ld1(dt, c->x, base + (y0 + 1) * xs[2] + x0 * xs[3]);
            if (ok_y1 && ok_x1)
                v += ay * ax * hd_ld1(dt, c->x, base + (y0 + 1) * xs[2] + (x0 + 1) * xs[3]);
            int64_t yo = (int64_t)n * ys[0] + (int64_t)ch * ys[1] + (int64_t)h * ys[2] + (int64_t)w * ys[3];
            double r = c->alpha * v;
            if (c->beta != 0)
                r += c->beta * hd_ld1(dt, c->y, yo);
            hd_st1(dt, c->y, yo, r);
        }
    }
}

cudnnStatus_t HD_IMPL(cudnnSpatialTfSamplerForward)(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                                                    const void *alpha, const cudnnTensorDescriptor_t xDesc,
                                                    const void *x, const void *grid, const void *beta,
                                                    cudnnTensorDescriptor_t yDesc, void *y)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(stDesc, HD_TAG_SPATIAL_TF);
    if (stDesc->nbDims == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "stDesc was never set");
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(grid);
    HD_CHECK_PTR(y);
    if (xDesc->nbDims != 4 || yDesc->nbDims != 4)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "only 4-d tensors are supported");
    for (int i = 0; i < 4; i++)
        if (yDesc->dims[i] != stDesc->dims[i])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "yDesc dim %d is %d but stDesc says %d", i, yDesc->dims[i],
                           stDesc->dims[i]);
    if (xDesc->dims[0] != yDesc->dims[0] || xDesc->dims[1] != yDesc->dims[1])
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "x and y must have the same N and C");
    if (xDesc->dtype != stDesc->dtype || yDesc->dtype != stDesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "x and y must have the descriptor's data type %s",
                       hd_dtype_name(stDesc->dtype));
    if (hd_tensors_overlap(xDesc, x, yDesc, y))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "x and y overlap");
    sf_ctx c = { stDesc, xDesc, yDesc, x, grid, y, hd_scale_value(alpha, stDesc->dtype),
                 hd_scale_value(beta, stDesc->dtype) };
    hd_parallel_for((size_t)stDesc->dims[0] * (size_t)stDesc->dims[2], handle->num_threads, sf_task, &c);
    return CUDNN_STATUS_SUCCESS;
}
