/*
 * cudnnActivationBackward: dx = alpha * f'(x) * dy + beta * dx.
 *
 * SIGMOID and TANH take the derivative from y; RELU, CLIPPED_RELU and ELU from x.  All four
 * tensors must have the same dims and type (strides free); dx may be dy (same strides).
 * FLOAT rows contiguous in all four run the elementwise kernel in float (bwd_f32), else the
 * values go through double.
 */
#include "core/api.h"
#include "core/activation_desc.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "core/activation_math.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "ops/common.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    const struct cudnnActivationStruct *act;
    cudnnDataType_t dt;
    const void *y, *dy, *x;
    void *dx;
    double alpha, beta;
    const hd_eltwise_table *k;
} bwd_ctx;

/* The smallest float not below coef: for a float x, x < coef exactly when x < this, so the
 * float comparison gives the same answer as the double one in hd_act_grad_f64. */
static float float_bound(double coef)
{
    float f = (float)coef;
    return (double)f < coef ? nextafterf(f, INFINITY) : f;
}

/* FLOAT rows contiguous in all four tensors: the elementwise backward kernel (reads only the
 * tensor the mode needs: y for SIGMOID and TANH, x for the RELUs).  Returns 0 when the mode
 * is not one it has. */
static int bwd_f32(const bwd_ctx *c, const int64_t *off, int64_t n)
{
    int prop = c->act->nan_opt == CUDNN_PROPAGATE_NAN, mode;
    /* CLIP compares in float against the smallest float not below coef (float_bound): the
     * same answer as the double path's x < coef */
    float coef = float_bound(c->act->coef);
    switch (c->act->mode) {
    case CUDNN_ACTIVATION_SIGMOID: mode = HD_ELT_BWD_SIGMOID; break;
    case CUDNN_ACTIVATION_TANH: mode = HD_ELT_BWD_TANH; break;
    case CUDNN_ACTIVATION_RELU: mode = HD_ELT_BWD_RELU; break;
    case CUDNN_ACTIVATION_CLIPPED_RELU: mode = HD_ELT_BWD_CLIP; break;
    default: return 0;
    }
    if (prop && (mode == HD_ELT_BWD_RELU || mode == HD_ELT_BWD_CLIP))
        return 0;                 /* a NaN x passes through: the double path's rule */
    if (c->beta != 0.0)
        return 0;                 /* the double path blends in double: its bits on every layout */
    c->k->act_bwd((size_t)n, mode, (const float *)c->y + off[1], (const float *)c->dy + off[2],
                  (const float *)c->x + off[3], (float *)c->dx + off[0], (float)c->alpha, (float)c->beta, coef);
    return 1;
}

/* operands: 0 = dx, 1 = y, 2 = dy, 3 = x */
static void bwd_piece(void *vctx, const hd_rows *r, const int64_t *off, int64_t n)
{
    const bwd_ctx *c = vctx;
    int last = r->nd - 1;
    if (c->dt == CUDNN_DATA_FLOAT && r->strides[0][last] == 1 && r->strides[1][last] == 1 &&
        r->strides[2][last] == 1 && r->strides[3][last] == 1 && bwd_f32(c, off, n))
        return;
    double y[HD_ROWS_PIECE], dy[HD_ROWS_PIECE], x[HD_ROWS_PIECE];
    hd_load_f64(c->dt, c->y, off[1], r->strides[1][last], n, y);
    hd_load_f64(c->dt, c->dy, off[2], r->strides[2][last], n, dy);
    hd_load_f64(c->dt, c->x, off[3], r->strides[3][last], n, x);
    int prop = c->act->nan_opt == CUDNN_PROPAGATE_NAN;
    for (int64_t i = 0; i < n; i++)
        y[i] = hd_act_grad_f64(c->act->mode, prop, c->act->coef, y[i], dy[i], x[i]);
    hd_blend_f64(c->dt, c->dx, off[0], r->strides[0][last], n, y, c->alpha, c->beta);
}

cudnnStatus_t HD_IMPL(cudnnActivationBackward)(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                               const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                                               const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                               const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                               const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(activationDesc, HD_TAG_ACTIVATION);
    if (!activationDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "activationDesc was never set");
    if (activationDesc->mode == CUDNN_ACTIVATION_IDENTITY)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM,
                       "CUDNN_ACTIVATION_IDENTITY only works with cudnnConvolutionBiasActivationForward");
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
    if (!hd_same_dims(yDesc, dyDesc) || !hd_same_dims(yDesc, xDesc) || !hd_same_dims(yDesc, dxDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "y, dy, x and dx descriptors must have the same dimensions");
    cudnnDataType_t dt = yDesc->dtype;
    if (dyDesc->dtype != dt || xDesc->dtype != dt || dxDesc->dtype != dt)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "y, dy, x and dx must have the same data type");
    HD_TRY(hd_check_fp_type(__func__, "yDesc", dt));
    HD_TRY(hd_check_alias(__func__, "dy", dyDesc, dy, "dx", dxDesc, dx));
    HD_TRY(hd_check_alias(__func__, "y", yDesc, y, "dx", dxDesc, dx));
    HD_TRY(hd_check_alias(__func__, "x", xDesc, x, "dx", dxDesc, dx));

    bwd_ctx c = { activationDesc, dt, y, dy, x, dx, hd_scale_value(alpha, dt), hd_scale_value(beta, dt),
                  hd_eltwise_kernels(handle->isa) };
    int64_t dims[CUDNN_DIM_MAX], s0[CUDNN_DIM_MAX], s1[CUDNN_DIM_MAX], s2[CUDNN_DIM_MAX], s3[CUDNN_DIM_MAX];
    hd_tensor_dims64(dxDesc, dims, s0);
    hd_tensor_dims64(yDesc, dims, s1);
    hd_tensor_dims64(dyDesc, dims, s2);
    hd_tensor_dims64(xDesc, dims, s3);
    const int64_t *strides[4] = { s0, s1, s2, s3 };
    hd_rows r;
    hd_rows_init(&r, dxDesc->nbDims, dims, 4, strides);
    hd_rows_run(&r, handle->num_threads, bwd_piece, &c);
    return CUDNN_STATUS_SUCCESS;
}
