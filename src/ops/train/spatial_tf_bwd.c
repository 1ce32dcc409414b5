/*
 * Spatial transformer backward: grid generator (dtheta from dgrid) and bilinear sampler
 * (dx and dgrid from dy); conventions as in ops/infer/spatial_tf.c.
 *
 * dtheta is overwritten (cuDNN has no blending there).  Sampler backward blends
 * dx = alpha * dL/dx + beta * dx and dgrid = alphaDgrid * dL/dgrid + betaDgrid * dgrid.
 * dL/dx scatters into four input pixels per output pixel; to stay deterministic it is
 * accumulated per (image, channel) plane in a double buffer in output order, then blended.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/spatial_tf_desc.h"
#include "core/tensor.h"
#include "ops/common.h"

#include <math.h>
#include <stdlib.h>

typedef struct cudnnSpatialTransformerStruct st_t;

typedef struct {
    const st_t *d;
    const void *dgrid;
    void *dtheta;
} gb_ctx;

static void gb_task(void *vctx, size_t n, int thread)
{
    (void)thread;
    const gb_ctx *c = vctx;
    int H = c->d->dims[2], W = c->d->dims[3];
    cudnnDataType_t dt = c->d->dtype;
    double acc[6] = { 0, 0, 0, 0, 0, 0 };
    for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w++) {
            double xt = hd_st_coord(w, W), yt = hd_st_coord(h, H);
            int64_t o = (((int64_t)n * H + h) * W + w) * 2;
            double gx = hd_ld1(dt, c->dgrid, o), gy = hd_ld1(dt, c->dgrid, o + 1);
            acc[0] += gx * xt;
            acc[1] += gx * yt;
            acc[2] += gx;
            acc[3] += gy * xt;
            acc[4] += gy * yt;
            acc[5] += gy;
        }
    hd_store_f64(dt, c->dtheta, (int64_t)n * 6, 1, 6, acc);
}

cudnnStatus_t HD_IMPL(cudnnSpatialTfGridGeneratorBackward)(cudnnHandle_t handle,
                                                           const cudnnSpatialTransformerDescriptor_t stDesc,
                                                           const void *dgrid, void *dtheta)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(stDesc, HD_TAG_SPATIAL_TF);
    if (stDesc->nbDims == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "stDesc was never set");
    HD_CHECK_PTR(dgrid);
    HD_CHECK_PTR(dtheta);
    gb_ctx c = { stDesc, dgrid, dtheta };
    hd_parallel_for((size_t)stDesc->dims[0], handle->num_threads, gb_task, &c);
    return CUDNN_STATUS_SUCCESS;
}

typedef struct {
    const st_t *d;
    const struct cudnnTensorStruct *xd, *dxd, *dyd;
    const void *x, *dy, *grid;
    void *dx, *dgrid;
    double alpha, beta, alpha_g, beta_g;
    double *planes;        /* Hi * Wi doubles per thread */
} sb_ctx;

/* Corner weights of one output point. */
typedef struct {
    int64_t x0, y0;
    double ax, ay, sx, sy;     /* fractions; d(ix)/d(gx) and d(iy)/d(gy) */
    int ok[4];                 /* (y0,x0) (y0,x1) (y1,x0) (y1,x1) inside the input */
} corner_t;

static void corners(const sb_ctx *c, int n, int h, int w, corner_t *k)
{
    int H = c->d->dims[2], W = c->d->dims[3];
    int Hi = c->xd->dims[2], Wi = c->xd->dims[3];
    int64_t go = (((int64_t)n * H + h) * W + w) * 2;
    double ix = (hd_ld1(c->d->dtype, c->grid, go) + 1.0) * (Wi - 1) / 2.0;
    double iy = (hd_ld1(c->d->dtype, c->grid, go + 1) + 1.0) * (Hi - 1) / 2.0;
    if (!(ix > -2.0 && ix < Wi + 1.0 && iy > -2.0 && iy < Hi + 1.0))
        ix = iy = -10.0;                  /* far outside (or NaN): every corner reads zero */
    double fx = floor(ix), fy = floor(iy);
    k->x0 = (int64_t)fx;
    k->y0 = (int64_t)fy;
    k->ax = ix - fx;
    k->ay = iy - fy;
    k->sx = (Wi - 1) / 2.0;
    k->sy = (Hi - 1) / 2.0;
    int vx0 = fx >= 0 && fx < Wi, vx1 = fx + 1 >= 0 && fx + 1 < Wi;
    int vy0 = fy >= 0 && fy < Hi, vy1 = fy + 1 >= 0 && fy + 1 < Hi;
    k->ok[0] = vy0 && vx0;
    k->ok[1] = vy0 && vx1;
    k->ok[2] = vy1 && vx0;
    k->ok[3] = vy1 && vx1;
}

/* dx for one (n, c) plane */
static void dx_task(void *vctx, size_t task, int thread)
{
    const sb_ctx *c = vctx;
    int C = c->d->dims[1], H = c->d->dims[2], W = c->d->dims[3];
    int n = (int)(task / (size_t)C), ch = (int)(task % (size_t)C);
    int Hi = c->xd->dims[2], Wi = c->xd->dims[3];
    double *acc = c->planes + (size_t)thread * (size_t)Hi * (size_t)Wi;
    for (int64_t i = 0; i < (int64_t)Hi * Wi; i++)
        acc[i] = 0;
    const int *ds = c->dyd->strides;
    for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w++) {
            corner_t k;
            corners(c, n, h, w, &k);
            double g = hd_ld1(c->d->dtype, c->dy, (int64_t)n * ds[0] + (int64_t)ch * ds[1] + (int64_t)h * ds[2] +
                                                      (int64_t)w * ds[3]);
            if (k.ok[0]) acc[k.y0 * Wi + k.x0] += g * (1 - k.ay) * (1 - k.ax);
            if (k.ok[1]) acc[k.y0 * Wi + k.x0 + 1] += g * (1 - k.ay) * k.ax;
            if (k.ok[2]) acc[(k.y0 + 1) * Wi + k.x0] += g * k.ay * (1 - k.ax);
            if (k.ok[3]) acc[(k.y0 + 1) * Wi + k.x0 + 1] += g * k.ay * k.ax;
        }
    const int *xs = c->dxd->strides;
    for (int hi = 0; hi < Hi; hi++) {
        int64_t o = (int64_t)n * xs[0] + (int64_t)ch * xs[1] + (int64_t)hi * xs[2];
        hd_blend_f64(c->d->dtype, c->dx, o, xs[3], Wi, acc + (int64_t)hi * Wi, c->alpha, c->beta);
    }
}

/* dgrid for one (n, h) row */
static void dgrid_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const sb_ctx *c = vctx;
    int C = c->d->dims[1], H = c->d->dims[2], W = c->d->dims[3];
    int n = (int)(task / (size_t)H), h = (int)(task % (size_t)H);
    const int *xs = c->xd->strides, *ds = c->dyd->strides;
    cudnnDataType_t dt = c->d->dtype;
    for (int w = 0; w < W; w++) {
        corner_t k;
        corners(c, n, h, w, &k);
        double gix = 0, giy = 0;
        for (int ch = 0; ch < C; ch++) {
            int64_t base = (int64_t)n * xs[0] + (int64_t)ch * xs[1];
            double v00 = k.ok[0] ? hd_ld1(dt, c->x, base + k.y0 * xs[2] + k.x0 * xs[3]) : 0;
            double v01 = k.ok[1] ? hd_ld1(dt, c->x, base + k.y0 * xs[2] + (k.x0 + 1) * xs[3]) : 0;
            double v10 = k.ok[2] ? hd_ld1(dt, c->x, base + (k.y0 + 1) * xs[2] + k.x0 * xs[3]) : 0;
            double v11 = k.ok[3] ? hd_ld1(dt, c->x, base + (k.y0 + 1) * xs[2] + (k.x0 + 1) * xs[3]) : 0;
            double g = hd_ld1(dt, c->dy, (int64_t)n * ds[0] + (int64_t)ch * ds[1] + (int64_t)h * ds[2] +
                                             (int64_t)w * ds[3]);
            gix += g * ((v01 - v00) * (1 - k.ay) + (v11 - v10) * k.ay);
            giy += g * ((v10 - v00) * (1 - k.ax) + (v11 - v01) * k.ax);
        }
        double v[2] = { gix * k.sx, giy * k.sy };
        int64_t go = (((int64_t)n * H + h) * W + w) * 2;
        hd_blend_f64(dt, c->dgrid, go, 1, 2, v, c->alpha_g, c->beta_g);
    }
}

cudnnStatus_t HD_IMPL(cudnnSpatialTfSamplerBackward)(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                                                     const void *alpha, const cudnnTensorDescriptor_t xDesc,
                                                     const void *x, const void *beta,
                                                     const cudnnTensorDescriptor_t dxDesc, void *dx,
                                                     const void *alphaDgrid, const cudnnTensorDescriptor_t dyDesc,
                                                     const void *dy, const void *grid, const void *betaDgrid,
                                                     void *dgrid)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(stDesc, HD_TAG_SPATIAL_TF);
    if (stDesc->nbDims == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "stDesc was never set");
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(dxDesc);
    HD_CHECK_TENSOR(dyDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(alphaDgrid);
    HD_CHECK_PTR(betaDgrid);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(dx);
    HD_CHECK_PTR(dy);
    HD_CHECK_PTR(grid);
    HD_CHECK_PTR(dgrid);
    if (xDesc->nbDims != 4 || dxDesc->nbDims != 4 || dyDesc->nbDims != 4)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "only 4-d tensors are supported");
    if (!hd_same_dims(xDesc, dxDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc and dxDesc have different dimensions");
    for (int i = 0; i < 4; i++)
        if (dyDesc->dims[i] != stDesc->dims[i])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dyDesc dim %d is %d but stDesc says %d", i, dyDesc->dims[i],
                           stDesc->dims[i]);
    if (xDesc->dims[0] != dyDesc->dims[0] || xDesc->dims[1] != dyDesc->dims[1])
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "x and dy must have the same N and C");
    cudnnDataType_t dt = stDesc->dtype;
    if (xDesc->dtype != dt || dxDesc->dtype != dt || dyDesc->dtype != dt)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "x, dx and dy must have the descriptor's data type %s", hd_dtype_name(dt));
    if (hd_tensors_overlap(dxDesc, dx, xDesc, x) || hd_tensors_overlap(dxDesc, dx, dyDesc, dy))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dx overlaps x or dy");
    int nthreads = handle->num_threads < 1 ? 1 : handle->num_threads;
    size_t plane = (size_t)xDesc->dims[2] * (size_t)xDesc->dims[3];
    sb_ctx c = { stDesc, xDesc, dxDesc, dyDesc, x, dy, grid, dx, dgrid, hd_scale_value(alpha, dt),
                 hd_scale_value(beta, dt), hd_scale_value(alphaDgrid, dt), hd_scale_value(betaDgrid, dt), NULL };
    c.planes = malloc((size_t)nthreads * plane * sizeof(double));
    if (!c.planes)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    /* dgrid first: it reads x, which dx never aliases */
    hd_parallel_for((size_t)stDesc->dims[0] * (size_t)stDesc->dims[2], nthreads, dgrid_task, &c);
    hd_parallel_for((size_t)stDesc->dims[0] * (size_t)stDesc->dims[1], nthreads, dx_task, &c);
    free(c.planes);
    return CUDNN_STATUS_SUCCESS;
}
