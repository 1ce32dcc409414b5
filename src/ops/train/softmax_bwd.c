/*
 * cudnnSoftmaxBackward: dx = alpha * g + beta * dx over each group of the mode, with y the
 * forward output:
 *   FAST, ACCURATE  g = y * (dy - sum(y * dy))
 *   LOG             g = dy - exp(y) * sum(dy)
 * Computed in double, sums in element order.  y, dy and dx have equal dims and type; dx may
 * be dy (same strides).  FLOAT ACCURATE / FAST with every group packed one after another in all
 * three tensors (CHANNEL on NHWC, INSTANCE on packed NCHW or NHWC) runs the float rows kernel
 * of src/kernels/softmax instead: several groups per call, the dot product in double; CHANNEL
 * on NCHW-like tensors (positions contiguous) walks blocks of positions channel row by channel
 * row with the same arithmetic (smb_cols_task).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "core/softmax_groups.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "kernels/softmax/softmax-ukernels.h"
#include "ops/common.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    cudnnSoftmaxAlgorithm_t algo;
    cudnnDataType_t dt;
    hd_sm_view vy, vdy, vdx;
    const void *y, *dy;
    void *dx;
    double alpha, beta;
    int64_t groups_per_task, ngroups, len;
    double *buf;             /* 2 * len doubles per thread */
    hd_f32_softmax_bwd_rows_fn rows;   /* packed float groups: the rows kernel, else NULL */
    hd_f32_softmax_bwd_cols_fn cols;   /* CHANNEL, positions contiguous: the column kernel */
    hd_f32_softmax_bwd_cols_stream_fn cols_stream;   /* with cols, beta 0, dx past the cache */
} smb_ctx;

/* How the groups lie: 1 when group g is the block at offset g * len with its elements in
 * order, 2 for INSTANCE on packed NHWC (the image's block with channels innermost: the same
 * set of elements, and the backward formula, like the forward one, does not depend on their
 * order), 0 otherwise.  The rows kernel needs y, dy and dx to agree. */
static int groups_packed(const hd_sm_view *v)
{
    if (v->n > 1 && v->sn != v->s * v->c)     /* images back to back */
        return 0;
    int inorder = v->channel ? v->sc == 1 : v->sc == v->s, nhwc = !v->channel && v->sc == 1;
    for (int64_t p = 0; p < v->s; p++) {
        inorder &= v->sp[p] == (v->channel ? p * v->c : p);
        nhwc &= v->sp[p] == p * v->c;
    }
    return inorder ? 1 : nhwc ? 2 : 0;
}

/* CHANNEL mode, FLOAT ACCURATE / FAST, spatial positions contiguous in y, dy and dx (NCHW):
 * one task per image and block of SMB_COLS positions for the column kernel of
 * src/kernels/softmax: the sums y . dy of the block's columns are accumulated channel row by
 * channel row in double (rows stream), rounded to float once, then a second walk writes dx --
 * the same arithmetic as the rows kernel, and the same bits on every ISA. */
#define SMB_COLS 512

static int spatial_packed(const hd_sm_view *v)
{
    for (int64_t p = 0; p < v->s; p++)
        if (v->sp[p] != p)
            return 0;
    return 1;
}

static void smb_cols_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const smb_ctx *c = vctx;
    int64_t blocks = (c->vy.s + SMB_COLS - 1) / SMB_COLS;
    int64_t n = (int64_t)task / blocks, p0 = ((int64_t)task % blocks) * SMB_COLS;
    int64_t w = c->vy.s - p0 < SMB_COLS ? c->vy.s - p0 : SMB_COLS;
    const float *y = (const float *)c->y + n * c->vy.sn + p0, *dy = (const float *)c->dy + n * c->vdy.sn + p0;
    float *dx = (float *)c->dx + n * c->vdx.sn + p0;
    if (c->cols_stream)
        c->cols_stream((size_t)c->len, (size_t)w, y, (size_t)c->vy.sc, dy, (size_t)c->vdy.sc, dx, (size_t)c->vdx.sc,
                       (float)c->alpha);
    else
        c->cols((size_t)c->len, (size_t)w, y, (size_t)c->vy.sc, dy, (size_t)c->vdy.sc, dx, (size_t)c->vdx.sc,
                (float)c->alpha, (float)c->beta);
}

static void smb_task(void *vctx, size_t task, int thread)
{
    const smb_ctx *c = vctx;
    double *vy = c->buf + (size_t)thread * 2 * (size_t)c->len, *vd = vy + c->len;
    int64_t g0 = (int64_t)task * c->groups_per_task, g1 = g0 + c->groups_per_task;
    if (g1 > c->ngroups)
        g1 = c->ngroups;
    if (c->rows) {
        c->rows((size_t)c->len, (size_t)(g1 - g0), (const float *)c->y + g0 * c->len,
                (const float *)c->dy + g0 * c->len, (float *)c->dx + g0 * c->len, (float)c->alpha, (float)c->beta);
        return;
    }
    for (int64_t g = g0; g < g1; g++) {
        int64_t oy = hd_sm_group_off(&c->vy, g), od = hd_sm_group_off(&c->vdy, g), ox = hd_sm_group_off(&c->vdx, g);
        double sum = 0;
        if (c->vy.channel) {     /* one stride along the group: convert it in one call */
            hd_load_f64(c->dt, c->y, oy, c->vy.sc, c->len, vy);
            hd_load_f64(c->dt, c->dy, od, c->vdy.sc, c->len, vd);
        } else {
            for (int64_t j = 0; j < c->len; j++) {
                vy[j] = hd_ld1(c->dt, c->y, oy + hd_sm_elem_off(&c->vy, j));
                vd[j] = hd_ld1(c->dt, c->dy, od + hd_sm_elem_off(&c->vdy, j));
            }
        }
        for (int64_t j = 0; j < c->len; j++)
            sum += c->algo == CUDNN_SOFTMAX_LOG ? vd[j] : vy[j] * vd[j];
        if (c->vdx.channel) {
            for (int64_t j = 0; j < c->len; j++)
                vy[j] = c->algo == CUDNN_SOFTMAX_LOG ? vd[j] - exp(vy[j]) * sum : vy[j] * (vd[j] - sum);
            hd_blend_f64(c->dt, c->dx, ox, c->vdx.sc, c->len, vy, c->alpha, c->beta);
            continue;
        }
        for (int64_t j = 0; j < c->len; j++) {
            double gr = c->algo == CUDNN_SOFTMAX_LOG ? vd[j] - exp(vy[j]) * sum : vy[j] * (vd[j] - sum);
            int64_t o = ox + hd_sm_elem_off(&c->vdx, j);
            double r = c->alpha * gr;
            if (c->beta != 0)
                r += c->beta * hd_ld1(c->dt, c->dx, o);
            hd_st1(c->dt, c->dx, o, r);
        }
    }
}

cudnnStatus_t HD_IMPL(cudnnSoftmaxBackward)(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                                            const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                                            const cudnnTensorDescriptor_t dyDesc, const void *dy, const void *beta,
                                            const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    HD_CHECK_HANDLE(handle);
    if ((int)algo < (int)CUDNN_SOFTMAX_FAST || (int)algo > (int)CUDNN_SOFTMAX_LOG)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnSoftmaxAlgorithm_t", (int)algo);
    if (mode != CUDNN_SOFTMAX_MODE_INSTANCE && mode != CUDNN_SOFTMAX_MODE_CHANNEL)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnSoftmaxMode_t", (int)mode);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_TENSOR(dyDesc);
    HD_CHECK_TENSOR(dxDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(y);
    HD_CHECK_PTR(dy);
    HD_CHECK_PTR(dx);
    if (!hd_same_dims(yDesc, dyDesc) || !hd_same_dims(yDesc, dxDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "yDesc, dyDesc and dxDesc must have the same dimensions");
    if (dyDesc->dtype != yDesc->dtype || dxDesc->dtype != yDesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "y, dy and dx must have the same data type");
    HD_TRY(hd_check_fp_type(__func__, "yDesc", yDesc->dtype));
    HD_TRY(hd_check_alias(__func__, "dy", dyDesc, dy, "dx", dxDesc, dx));
    if (hd_tensors_overlap(yDesc, y, dxDesc, dx))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "y and dx overlap");

    smb_ctx c;
    c.algo = algo;
    c.dt = yDesc->dtype;
    c.y = y;
    c.dy = dy;
    c.dx = dx;
    c.alpha = hd_scale_value(alpha, c.dt);
    c.beta = hd_scale_value(beta, c.dt);
    int channel = mode == CUDNN_SOFTMAX_MODE_CHANNEL;
    c.vy.sp = c.vdy.sp = c.vdx.sp = NULL;
    c.buf = NULL;
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    if (hd_sm_view_init(&c.vy, yDesc, channel) || hd_sm_view_init(&c.vdy, dyDesc, channel) ||
        hd_sm_view_init(&c.vdx, dxDesc, channel)) {
        st = HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
        goto done;
    }
    c.ngroups = hd_sm_groups(&c.vy);
    c.len = hd_sm_len(&c.vy);
    c.groups_per_task = 1 + 16384 / c.len;
    c.rows = NULL;
    int lay = groups_packed(&c.vy);
    if (c.dt == CUDNN_DATA_FLOAT && algo != CUDNN_SOFTMAX_LOG && lay && groups_packed(&c.vdy) == lay &&
        groups_packed(&c.vdx) == lay)
        c.rows = hd_f32_softmax_bwd_rows_kernel(handle->isa);
    size_t ntasks = (size_t)((c.ngroups + c.groups_per_task - 1) / c.groups_per_task);
    int nthreads = handle->num_threads < 1 ? 1 : handle->num_threads;
    if ((size_t)nthreads > ntasks)
        nthreads = (int)ntasks;
    if (!c.rows && c.dt == CUDNN_DATA_FLOAT && algo != CUDNN_SOFTMAX_LOG && channel && spatial_packed(&c.vy) &&
        spatial_packed(&c.vdy) && spatial_packed(&c.vdx) && c.vy.sc >= 0 && c.vdy.sc >= 0 && c.vdx.sc >= 0) {
        int64_t blocks = (c.vy.s + SMB_COLS - 1) / SMB_COLS;
        c.cols = hd_f32_softmax_bwd_cols_kernel(handle->isa);
        /* dx only written (beta 0) and far larger than the cache: streaming stores */
        double touched = 3.0 * (double)c.vy.n * (double)c.len * (double)c.vy.s * sizeof(float);
        c.cols_stream = c.beta == 0.0 && touched >= (double)hd_eltwise_stream_min_bytes()
                            ? hd_f32_softmax_bwd_cols_stream_kernel(handle->isa) : NULL;
        hd_parallel_for((size_t)(c.vy.n * blocks), handle->num_threads < 1 ? 1 : handle->num_threads, smb_cols_task,
                        &c);
        goto done;
    }
    c.buf = malloc((size_t)nthreads * 2 * (size_t)c.len * sizeof(double));
    if (!c.buf) {
        st = HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
        goto done;
    }
    hd_parallel_for(ntasks, nthreads, smb_task, &c);
done:
    free(c.buf);
    hd_sm_view_free(&c.vy);
    hd_sm_view_free(&c.vdy);
    hd_sm_view_free(&c.vdx);
    return st;
}
