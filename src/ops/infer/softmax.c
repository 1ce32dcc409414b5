/*
 * cudnnSoftmaxForward: y = alpha * softmax(x) + beta * y over each group of the mode
 * (INSTANCE: all of C x spatial per image; CHANNEL: C per image and spatial position).
 *
 *   FAST      exp(x) / sum exp(x)            (no max subtraction, may overflow like cuDNN's)
 *   ACCURATE  exp(x - max) / sum exp(x - max)
 *   LOG       x - max - log(sum exp(x - max))
 *
 * Computed in double and rounded to the output type; sums run in element order, so results
 * are deterministic.  float groups that are contiguous in x and y (INSTANCE on packed
 * NCHW, CHANNEL on NHWC or on N x C) use the vector kernels of src/kernels/softmax.  x and y have equal dims and type (FLOAT, DOUBLE, HALF, BFLOAT16), any
 * strides; y may be x (same strides).  CHANNEL mode on float data whose spatial positions
 * are contiguous (NCHW) uses column kernels that run across positions; on packed NHWC the
 * groups of a task go to the rows kernel in one call (short groups stay in registers), or,
 * with beta 0 and up to HD_SM_GRP16_MAX channels, to the kernel that transposes 16 groups at a
 * time into channel rows and gives each the column kernel's arithmetic (the NCHW results).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "kernels/softmax/softmax-ukernels.h"
#include "core/softmax_groups.h"
#include "ops/common.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    cudnnSoftmaxAlgorithm_t algo;
    cudnnDataType_t dt;
    hd_sm_view vx, vy;
    const void *x;
    void *y;
    double alpha, beta;
    int64_t groups_per_task, ngroups, len;
    double *buf;             /* len doubles per thread */
    hd_f32_softmax_fn row;   /* float groups contiguous in x and y: vector kernel, else NULL */
    hd_f32_softmax_rows_fn rows;  /* with row, groups packed one after another (NHWC): many per call */
    hd_f32_softmax_grp16_fn grp16;   /* with rows, beta 0 and short groups: 16 groups per step */
    hd_f32_softmax_cols_fn cols;  /* CHANNEL mode, float, spatial positions contiguous: column kernel */
    int64_t colblk;          /* positions per column task */
    hd_f32_softmax_cols_stream_fn cols_stream;   /* with work: the streaming-store column kernel */
    float *work;             /* NULL, or C x colblk floats per thread for cols_stream */
} sm_ctx;

/* True when the spatial positions of V are contiguous (offset p for position p). */
static int spatial_packed(const hd_sm_view *v)
{
    for (int64_t p = 0; p < v->s; p++)
        if (v->sp[p] != p)
            return 0;
    return 1;
}

/* CHANNEL mode on NCHW-like float data: one task = one image, colblk positions. */
static void sm_cols_task(void *vctx, size_t task, int thread)
{
    const sm_ctx *c = vctx;
    int64_t blocks = (c->vx.s + c->colblk - 1) / c->colblk;
    int64_t n = (int64_t)task / blocks, p0 = ((int64_t)task % blocks) * c->colblk;
    int64_t cols = c->vx.s - p0 < c->colblk ? c->vx.s - p0 : c->colblk;
    if (c->work) {
        c->cols_stream((size_t)c->len, (size_t)cols, (const float *)c->x + n * c->vx.sn + p0, (size_t)c->vx.sc,
                       (float *)c->y + n * c->vy.sn + p0, (size_t)c->vy.sc, (float)c->alpha,
                       c->work + (size_t)thread * (size_t)(c->len * c->colblk));
        return;
    }
    c->cols((size_t)c->len, (size_t)cols, (const float *)c->x + n * c->vx.sn + p0, (size_t)c->vx.sc,
            (float *)c->y + n * c->vy.sn + p0, (size_t)c->vy.sc, (float)c->alpha, (float)c->beta,
            c->algo == CUDNN_SOFTMAX_LOG);
}

/* Positions per column task: as many as keep C x positions floats of x near 128 KiB (the
 * kernels keep the block of x and y in L2 between their passes), a multiple of 16, at least
 * 16 and at most HD_SM_MAX_COLS.  Columns are independent, so this never changes results. */
static int64_t cols_block(int64_t C)
{
    int64_t w = (32768 / (C > 0 ? C : 1)) & ~(int64_t)15;
    return w < 16 ? 16 : w > HD_SM_MAX_COLS ? HD_SM_MAX_COLS : w;
}

/* CHANNEL mode with group g at offset g * C (packed NHWC and the like). */
static int groups_packed(const hd_sm_view *v)
{
    if (!v->channel || v->sc != 1)
        return 0;
    for (int64_t p = 0; p < v->s; p++)
        if (v->sp[p] != p * v->c)
            return 0;
    return v->n == 1 || v->sn == v->s * v->c;
}

/* INSTANCE mode on packed NHWC: each image fills one block of C*S floats, channels innermost.
 * Softmax over a set does not depend on the order of its elements, so the row kernel runs on
 * the block as it lies (when x and y agree on it). */
static int instance_nhwc(const hd_sm_view *v)
{
    if (v->channel || v->sc != 1)
        return 0;
    for (int64_t p = 0; p < v->s; p++)
        if (v->sp[p] != p * v->c)
            return 0;
    return 1;
}

/* True when element j of every group sits at offset j from the group's start.  Checked on the
 * view's strides (a CHANNEL group: j * sc; an INSTANCE group: spatial position j % s of
 * channel j / s) rather than element by element: INSTANCE groups hold C * H * W values, and a
 * division per value cost as much as the softmax itself. */
static int contiguous(const hd_sm_view *v)
{
    if (v->channel)
        return v->c == 1 || v->sc == 1;
    for (int64_t p = 0; p < v->s; p++)
        if (v->sp[p] != p)
            return 0;
    return v->c == 1 || v->sc == v->s;
}

static void sm_task(void *vctx, size_t task, int thread)
{
    const sm_ctx *c = vctx;
    double *v = c->buf + (size_t)thread * (size_t)c->len;
    int64_t g0 = (int64_t)task * c->groups_per_task, g1 = g0 + c->groups_per_task;
    if (g1 > c->ngroups)
        g1 = c->ngroups;
    if (c->grp16) {
        c->grp16((size_t)c->len, (size_t)(g1 - g0), (const float *)c->x + g0 * c->len, (float *)c->y + g0 * c->len,
                 (float)c->alpha, c->algo == CUDNN_SOFTMAX_LOG);
        return;
    }
    if (c->rows) {
        c->rows((size_t)c->len, (size_t)(g1 - g0), (const float *)c->x + g0 * c->len, (size_t)c->len,
                (float *)c->y + g0 * c->len, (size_t)c->len, (float)c->alpha, (float)c->beta,
                c->algo == CUDNN_SOFTMAX_LOG);
        return;
    }
    for (int64_t g = g0; g < g1; g++) {
        int64_t ox = hd_sm_group_off(&c->vx, g), oy = hd_sm_group_off(&c->vy, g);
        if (c->row) {
            c->row((size_t)c->len, (const float *)c->x + ox, (float *)c->y + oy, (float)c->alpha, (float)c->beta,
                   c->algo == CUDNN_SOFTMAX_LOG);
            continue;
        }
        double mx = -INFINITY;
        if (c->vx.channel)       /* one stride along the group: convert it in one call */
            hd_load_f64(c->dt, c->x, ox, c->vx.sc, c->len, v);
        else
            for (int64_t j = 0; j < c->len; j++)
                v[j] = hd_ld1(c->dt, c->x, ox + hd_sm_elem_off(&c->vx, j));
        for (int64_t j = 0; j < c->len; j++)
            if (v[j] > mx)
                mx = v[j];
        if (c->algo == CUDNN_SOFTMAX_FAST)
            mx = 0;
        double sum = 0;
        for (int64_t j = 0; j < c->len; j++)
            sum += exp(v[j] - mx);
        if (c->algo == CUDNN_SOFTMAX_LOG) {
            double ls = log(sum);
            for (int64_t j = 0; j < c->len; j++)
                v[j] = v[j] - mx - ls;
        } else {
            for (int64_t j = 0; j < c->len; j++)
                v[j] = exp(v[j] - mx) / sum;
        }
        if (c->vy.channel) {
            hd_blend_f64(c->dt, c->y, oy, c->vy.sc, c->len, v, c->alpha, c->beta);
            continue;
        }
        for (int64_t j = 0; j < c->len; j++) {
            int64_t o = oy + hd_sm_elem_off(&c->vy, j);
            double r = c->alpha * v[j];
            if (c->beta != 0)
                r += c->beta * hd_ld1(c->dt, c->y, o);
            hd_st1(c->dt, c->y, o, r);
        }
    }
}

cudnnStatus_t HD_IMPL(cudnnSoftmaxForward)(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                                           const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                           const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    HD_CHECK_HANDLE(handle);
    if ((int)algo < (int)CUDNN_SOFTMAX_FAST || (int)algo > (int)CUDNN_SOFTMAX_LOG)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnSoftmaxAlgorithm_t", (int)algo);
    if (mode != CUDNN_SOFTMAX_MODE_INSTANCE && mode != CUDNN_SOFTMAX_MODE_CHANNEL)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnSoftmaxMode_t", (int)mode);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(y);
    if (!hd_same_dims(xDesc, yDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc and yDesc have different dimensions");
    if (xDesc->dtype != yDesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc is %s but yDesc is %s", hd_dtype_name(xDesc->dtype),
                       hd_dtype_name(yDesc->dtype));
    HD_TRY(hd_check_fp_type(__func__, "xDesc", xDesc->dtype));
    HD_TRY(hd_check_alias(__func__, "x", xDesc, x, "y", yDesc, y));

    sm_ctx c;
    c.algo = algo;
    c.dt = xDesc->dtype;
    c.x = x;
    c.y = y;
    c.alpha = hd_scale_value(alpha, c.dt);
    c.beta = hd_scale_value(beta, c.dt);
    int channel = mode == CUDNN_SOFTMAX_MODE_CHANNEL;
    if (hd_sm_view_init(&c.vx, xDesc, channel) != 0)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    if (hd_sm_view_init(&c.vy, yDesc, channel) != 0) {
        hd_sm_view_free(&c.vx);
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    }
    c.row = NULL;
    c.rows = NULL;
    c.grp16 = NULL;
    c.cols = NULL;
    c.ngroups = hd_sm_groups(&c.vx);
    c.len = hd_sm_len(&c.vx);
    if (c.dt == CUDNN_DATA_FLOAT && algo != CUDNN_SOFTMAX_FAST) {
        if ((contiguous(&c.vx) && contiguous(&c.vy)) || (instance_nhwc(&c.vx) && instance_nhwc(&c.vy))) {
            c.row = hd_f32_softmax_kernel(handle->isa);
            if (groups_packed(&c.vx) && groups_packed(&c.vy))
                c.rows = hd_f32_softmax_rows_kernel(handle->isa);
            if (c.rows && channel && c.beta == 0.0 && c.len <= HD_SM_GRP16_MAX)
                c.grp16 = hd_f32_softmax_grp16_kernel(handle->isa);
        }
        else if (channel && c.vx.sc >= 0 && spatial_packed(&c.vx) && spatial_packed(&c.vy))
            c.cols = hd_f32_softmax_cols_kernel(handle->isa);
    }
    if (c.cols) {
        c.colblk = cols_block(c.len);
        size_t ntasks = (size_t)(c.vx.n * ((c.vx.s + c.colblk - 1) / c.colblk));
        int nthreads = handle->num_threads < 1 ? 1 : handle->num_threads;
        /* ACCURATE into a y larger than the cache: keep exp(x - max) in a per-thread block and
         * stream y out (same values); without the memory, the plain kernel */
        c.work = NULL;
        c.cols_stream = hd_f32_softmax_cols_stream_kernel(handle->isa);
        double touched = 2.0 * (double)c.vx.n * (double)c.len * (double)c.vx.s * sizeof(float);
        if (c.cols_stream && algo == CUDNN_SOFTMAX_ACCURATE && c.beta == 0.0 &&
            touched >= (double)hd_eltwise_stream_min_bytes())
            c.work = malloc((size_t)nthreads * (size_t)(c.len * c.colblk) * sizeof(float));
        hd_parallel_for(ntasks, nthreads, sm_cols_task, &c);
        free(c.work);
        hd_sm_view_free(&c.vx);
        hd_sm_view_free(&c.vy);
        return CUDNN_STATUS_SUCCESS;
    }
    c.groups_per_task = 1 + 16384 / c.len;
    size_t ntasks = (size_t)((c.ngroups + c.groups_per_task - 1) / c.groups_per_task);
    int nthreads = handle->num_threads < 1 ? 1 : handle->num_threads;
    if ((size_t)nthreads > ntasks)
        nthreads = (int)ntasks;
    c.buf = malloc((size_t)nthreads * (size_t)c.len * sizeof(double));
    if (!c.buf) {
        hd_sm_view_free(&c.vx);
        hd_sm_view_free(&c.vy);
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    }
    hd_parallel_for(ntasks, nthreads, sm_task, &c);
    free(c.buf);
    hd_sm_view_free(&c.vx);
    hd_sm_view_free(&c.vy);
    return CUDNN_STATUS_SUCCESS;
}
