/*
 * norm/bn_check.c -- the batch-normalization engine's arguments: the fused activation, the
 * checks shared by every BN / normalization entry point, and the per-feature parameter
 * tensors (scale, bias, mean, variance) as doubles.
 */
#include "norm/bn_engine.h"
#include "core/desc_set.h"
#include "core/tensor.h"

#include <math.h>
#include <string.h>

/* ---------- activation ---------- */

double hd_bn_act_apply(const hd_bn_act *a, double v, double *deriv)
{
    double r = v, d = 1.0;
    if (a->on) {
        switch (a->mode) {
        case CUDNN_ACTIVATION_RELU:
            r = v > 0.0 ? v : (v != v && a->propagate_nan) ? v : 0.0;
            d = v > 0.0 ? 1.0 : 0.0;
            break;
        case CUDNN_ACTIVATION_CLIPPED_RELU:
            r = v != v ? (a->propagate_nan ? v : 0.0) : v <= 0.0 ? 0.0 : v >= a->coef ? a->coef : v;
            d = v > 0.0 && v < a->coef ? 1.0 : 0.0;
            break;
        case CUDNN_ACTIVATION_SIGMOID:
            r = 1.0 / (1.0 + exp(-v));
            d = r * (1.0 - r);
            break;
        case CUDNN_ACTIVATION_TANH:
            r = tanh(v);
            d = 1.0 - r * r;
            break;
        case CUDNN_ACTIVATION_ELU:
            r = v > 0.0 ? v : a->coef * expm1(v);
            d = v > 0.0 ? 1.0 : a->coef * exp(v);
            break;
        default:   /* IDENTITY */
            break;
        }
    }
    if (deriv)
        *deriv = d;
    return r;
}

cudnnStatus_t hd_bn_act_read(const char *fn, cudnnActivationDescriptor_t d, hd_bn_act *out)
{
    if (!d)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "activationDesc is NULL but the ops need an activation");
    if (!hd_object_is(d, HD_TAG_ACTIVATION))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "activationDesc is a %s, not an activation descriptor",
                       hd_object_kind(d));
    cudnnActivationMode_t mode;
    cudnnNanPropagation_t nan;
    double coef;
    cudnnStatus_t st = hd_activation_get(d, &mode, &nan, &coef, "activationDesc", fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    switch (mode) {
    case CUDNN_ACTIVATION_RELU: case CUDNN_ACTIVATION_CLIPPED_RELU: case CUDNN_ACTIVATION_SIGMOID:
    case CUDNN_ACTIVATION_TANH: case CUDNN_ACTIVATION_ELU: case CUDNN_ACTIVATION_IDENTITY:
        break;
    default:
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "activation mode %d is not supported in a fused normalization",
                       (int)mode);
    }
    out->on = 1;
    out->mode = mode;
    out->propagate_nan = nan == CUDNN_PROPAGATE_NAN;
    out->coef = coef;
    return CUDNN_STATUS_SUCCESS;
}

/* ---------- checks ---------- */

cudnnDataType_t hd_bn_param_type(cudnnDataType_t t)
{
    return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

cudnnStatus_t hd_bn_check_x(const char *fn, const struct cudnnTensorStruct *x, const char *name)
{
    if (x->nbDims != 4 && x->nbDims != 5)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s has %d dims; only 4-d and 5-d tensors are supported", name,
                       x->nbDims);
    if (!hd_is_float_type(x->dtype) || x->vect_c > 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s: %s data is not supported by normalization", name,
                       hd_dtype_name(x->dtype));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_bn_check_like_x(const char *fn, const struct cudnnTensorStruct *x, const struct cudnnTensorStruct *t,
                                 const char *name)
{
    if (!hd_same_dims(x, t))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s dimensions differ from xDesc", name);
    if (t->dtype != x->dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is %s but xDesc is %s", name, hd_dtype_name(t->dtype),
                       hd_dtype_name(x->dtype));
    if (t->vect_c > 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s: vectorized layouts are not supported", name);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_bn_check_param(const char *fn, const struct cudnnTensorStruct *x, const struct cudnnTensorStruct *p,
                                int per_act, const char *name)
{
    if (p->nbDims != x->nbDims)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s has %d dims; xDesc has %d", name, p->nbDims, x->nbDims);
    for (int i = 0; i < x->nbDims; i++) {
        int want = i == 0 ? 1 : i == 1 ? x->dims[1] : per_act ? x->dims[i] : 1;
        if (p->dims[i] != want)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s dimension %d is %d; this mode needs %d", name, i,
                           p->dims[i], want);
    }
    if (p->dtype != hd_bn_param_type(x->dtype))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is %s; %s data needs %s parameters", name,
                       hd_dtype_name(p->dtype), hd_dtype_name(x->dtype),
                       hd_dtype_name(hd_bn_param_type(x->dtype)));
    return CUDNN_STATUS_SUCCESS;
}

/* ---------- parameters ---------- */

static int64_t param_off(const hd_bn_problem *pb, const struct cudnnTensorStruct *d, size_t f)
{
    if (!pb->per_act)
        return (int64_t)f * d->strides[1];
    int c = (int)(f / (size_t)pb->S), s = (int)(f % (size_t)pb->S);
    int64_t off = (int64_t)c * d->strides[1];
    for (int i = d->nbDims - 1; i >= 2; i--) {
        off += (int64_t)(s % d->dims[i]) * d->strides[i];
        s /= d->dims[i];
    }
    return off;
}

void hd_bn_param_load(const hd_bn_problem *pb, const struct cudnnTensorStruct *d, const void *p, double *out)
{
    for (size_t f = 0; f < (size_t)pb->F; f++)
        out[f] = hd_ld(d->dtype, p, param_off(pb, d, f));
}

void hd_bn_param_store(const hd_bn_problem *pb, const struct cudnnTensorStruct *d, void *p, const double *v,
                       double alpha, double beta)
{
    for (size_t f = 0; f < (size_t)pb->F; f++)
        hd_st_blend(d->dtype, p, param_off(pb, d, f), v[f], alpha, beta);
}
