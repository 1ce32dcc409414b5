/*
 * Activation descriptor and cudnnActivationForward: y = alpha * f(x) + beta * y.
 *
 * Modes SIGMOID, RELU, TANH, CLIPPED_RELU (coef = ceiling) and ELU (coef = alpha).
 * IDENTITY is accepted by the descriptor (it is meant for cudnnConvolutionBiasActivation-
 * Forward) but refused here with BAD_PARAM, as cuDNN 8.1 documents.  FLOAT, DOUBLE, HALF
 * and BFLOAT16; x and y of equal dims and type, any strides; in-place when x == y with the
 * same strides.
 */
#include "core/api.h"
#include "core/activation_desc.h"
#include "core/check.h"
#include "core/desc_set.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "core/activation_math.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "ops/common.h"

#include <stdint.h>
#include <string.h>

typedef struct cudnnActivationStruct act_t;

cudnnStatus_t HD_IMPL(cudnnCreateActivationDescriptor)(cudnnActivationDescriptor_t *activationDesc)
{
    HD_CHECK_PTR(activationDesc);
    act_t *a = hd_object_new(sizeof *a, HD_TAG_ACTIVATION);
    if (!a)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *activationDesc = a;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyActivationDescriptor)(cudnnActivationDescriptor_t activationDesc)
{
    if (!activationDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(activationDesc, HD_TAG_ACTIVATION);
    hd_object_free(activationDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetActivationDescriptor)(cudnnActivationDescriptor_t activationDesc,
                                                    cudnnActivationMode_t mode, cudnnNanPropagation_t reluNanOpt,
                                                    double coef)
{
    HD_CHECK_DESC(activationDesc, HD_TAG_ACTIVATION);
    return hd_activation_set(activationDesc, mode, reluNanOpt, coef, "cudnnSetActivationDescriptor");
}

cudnnStatus_t HD_IMPL(cudnnGetActivationDescriptor)(const cudnnActivationDescriptor_t activationDesc,
                                                    cudnnActivationMode_t *mode, cudnnNanPropagation_t *reluNanOpt,
                                                    double *coef)
{
    HD_CHECK_DESC(activationDesc, HD_TAG_ACTIVATION);
    HD_CHECK_PTR(mode);
    HD_CHECK_PTR(reluNanOpt);
    HD_CHECK_PTR(coef);
    /* a descriptor never set reads as zeros (SIGMOID, NOT_PROPAGATE_NAN, 0), as cuDNN answers */
    *mode = activationDesc->mode;
    *reluNanOpt = activationDesc->nan_opt;
    *coef = activationDesc->coef;
    return CUDNN_STATUS_SUCCESS;
}

typedef struct {
    const act_t *act;
    cudnnDataType_t xt, yt;
    const void *x;
    void *y;
    double alpha, beta;
    const hd_eltwise_table *k;
    hd_f32_relu_fn relu;     /* k->relu, or k->relu_stream for outputs larger than the cache */
} fwd_ctx;

/* operand 0 = y, operand 1 = x */
static void fwd_piece(void *vctx, const hd_rows *r, const int64_t *off, int64_t n)
{
    const fwd_ctx *c = vctx;
    int64_t sy = r->strides[0][r->nd - 1], sx = r->strides[1][r->nd - 1];
    int prop = c->act->nan_opt == CUDNN_PROPAGATE_NAN;
    if (c->xt == CUDNN_DATA_FLOAT && sy == 1 && sx == 1) {
        const float *x = (const float *)c->x + off[1];
        float *y = (float *)c->y + off[0];
        float alpha = (float)c->alpha, beta = (float)c->beta;
        if (c->act->mode == CUDNN_ACTIVATION_RELU && !prop) {
            c->relu((size_t)n, x, y, alpha, beta);
            return;
        }
        if (c->act->mode == CUDNN_ACTIVATION_SIGMOID || c->act->mode == CUDNN_ACTIVATION_TANH) {
            (c->act->mode == CUDNN_ACTIVATION_SIGMOID ? c->k->sigmoid : c->k->tanh)((size_t)n, x, y, alpha, beta);
            return;
        }
        float coef = (float)c->act->coef;
        if (c->act->mode == CUDNN_ACTIVATION_CLIPPED_RELU && !prop && coef > 0.0f) {
            c->k->clip((size_t)n, x, y, alpha, beta, coef);      /* hd_act_f32's rule for coef > 0 */
            return;
        }
        for (int64_t i = 0; i < n; i++) {
            float v = alpha * hd_act_f32(c->act->mode, prop, coef, x[i]);
            y[i] = beta != 0.0f ? v + beta * y[i] : v;
        }
        return;
    }
    double v[HD_ROWS_PIECE];
    hd_load_f64(c->xt, c->x, off[1], sx, n, v);
    for (int64_t i = 0; i < n; i++)
        v[i] = hd_act_f64(c->act->mode, prop, c->act->coef, v[i]);
    hd_blend_f64(c->yt, c->y, off[0], sy, n, v, c->alpha, c->beta);
}

cudnnStatus_t HD_IMPL(cudnnActivationForward)(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                              const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                              const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(activationDesc, HD_TAG_ACTIVATION);
    if (!activationDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "activationDesc was never set");
    if (activationDesc->mode == CUDNN_ACTIVATION_IDENTITY)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM,
                       "CUDNN_ACTIVATION_IDENTITY only works with cudnnConvolutionBiasActivationForward");
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

    fwd_ctx c = { activationDesc, xDesc->dtype, yDesc->dtype, x, y, hd_scale_value(alpha, xDesc->dtype),
                  hd_scale_value(beta, xDesc->dtype), hd_eltwise_kernels(handle->isa), NULL };
    int64_t dims[CUDNN_DIM_MAX], sy[CUDNN_DIM_MAX], sx[CUDNN_DIM_MAX];
    hd_tensor_dims64(yDesc, dims, sy);
    hd_tensor_dims64(xDesc, dims, sx);
    const int64_t *strides[2] = { sy, sx };
    hd_rows r;
    hd_rows_init(&r, yDesc->nbDims, dims, 2, strides);
    /* x read and y written: streaming stores once that outgrows the cache (same results) */
    double touched = 2.0 * (double)r.rows * (double)r.len * sizeof(float);
    c.relu = c.beta == 0.0 && touched >= (double)hd_eltwise_stream_min_bytes() ? c.k->relu_stream : c.k->relu;
    hd_rows_run(&r, handle->num_threads, fwd_piece, &c);
    return CUDNN_STATUS_SUCCESS;
}
