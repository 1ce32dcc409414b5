/*
 * Building a convolution problem from the descriptors (conv/conv_problem.h).
 */
#include "conv/conv_problem.h"

#include <limits.h>
#include <stdio.h>

cudnnStatus_t hd_conv_output_dims(const struct cudnnConvolutionStruct *c, const struct cudnnTensorStruct *x,
                                  const struct cudnnFilterStruct *w, int *out, const char *fn)
{
    if (c->nbSpatial == 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the convolution descriptor was never set");
    if (x->nbDims != w->nbDims)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the input has %d dimensions but the filter %d", x->nbDims,
                       w->nbDims);
    if (x->nbDims != c->nbSpatial + 2)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the input has %d dimensions; the convolution expects %d",
                       x->nbDims, c->nbSpatial + 2);
    if (x->dims[1] != (int64_t)w->dims[1] * c->group_count)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn,
                       "input channels %d differ from filter channels %d times groupCount %d", x->dims[1],
                       w->dims[1], c->group_count);
    out[0] = x->dims[0];
    out[1] = w->dims[0];
    for (int i = 0; i < c->nbSpatial; i++) {
        int64_t span = (int64_t)(w->dims[i + 2] - 1) * c->dilation[i] + 1;
        int64_t room = (int64_t)x->dims[i + 2] + 2 * (int64_t)c->pad[i] - span;
        if (room < 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn,
                           "dimension %d: the dilated filter (%lld) is larger than the padded input (%lld)", i + 2,
                           (long long)span, (long long)x->dims[i + 2] + 2 * (long long)c->pad[i]);
        if (room / c->stride[i] + 1 > INT_MAX)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "output dimension %d would exceed INT_MAX", i + 2);
        out[i + 2] = (int)(room / c->stride[i] + 1);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* INT8_CONFIG (y INT8) and INT8_EXT_CONFIG (y FLOAT): INT32 compute, NHWC-ordered x, y and
 * filter, channels multiples of 4 -- cuDNN's conditions for these configurations. */
static cudnnStatus_t check_int8(const struct cudnnTensorStruct *x, const struct cudnnFilterStruct *w,
                                const struct cudnnConvolutionStruct *c, const struct cudnnTensorStruct *y,
                                const char *fn)
{
    if (y->dtype != CUDNN_DATA_INT8 && y->dtype != CUDNN_DATA_FLOAT)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "INT8 input needs an INT8 or FLOAT output, not %s",
                       hd_dtype_name(y->dtype));
    if (c->compute_type != CUDNN_DATA_INT32)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "INT8 convolution needs INT32 compute, not %s",
                       hd_dtype_name(c->compute_type));
    if (x->vect_c != 1 || y->vect_c != 1 || w->vect_c != 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "vectorised INT8x4/INT8x32 layouts are not implemented");
    if (w->format != CUDNN_TENSOR_NHWC || x->strides[1] != 1 || (y->dtype == CUDNN_DATA_INT8 && y->strides[1] != 1))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "INT8 convolution needs NHWC input, output and filter");
    if (x->dims[1] % 4 || w->dims[0] % 4)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "INT8 convolution needs channel counts that are multiples of 4");
    return CUDNN_STATUS_SUCCESS;
}

/* INT8x4_CONFIG / INT8x4_EXT_CONFIG (y INT8x4 or FLOAT) and INT8x32_CONFIG (y INT8x32):
 * NCHW_VECT_C input and filter, INT32 compute.  hostdnn also needs groupCount 1 here. */
static cudnnStatus_t check_int8_vect(const struct cudnnTensorStruct *x, const struct cudnnFilterStruct *w,
                                     const struct cudnnConvolutionStruct *c, const struct cudnnTensorStruct *y,
                                     const char *fn)
{
    cudnnDataType_t dt = x->dtype;
    if (w->dtype != dt)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "input is %s but the filter is %s", hd_dtype_name(dt),
                       hd_dtype_name(w->dtype));
    if (!(y->dtype == dt || (dt == CUDNN_DATA_INT8x4 && y->dtype == CUDNN_DATA_FLOAT)))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s input cannot produce %s output", hd_dtype_name(dt),
                       hd_dtype_name(y->dtype));
    if (c->compute_type != CUDNN_DATA_INT32)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s convolution needs INT32 compute", hd_dtype_name(dt));
    if (x->vect_c == 1 || w->vect_c == 1 || (y->dtype == dt && y->vect_c == 1))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s needs the CUDNN_TENSOR_NCHW_VECT_C layout", hd_dtype_name(dt));
    if (c->group_count != 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "grouped %s convolution is not implemented", hd_dtype_name(dt));
    return CUDNN_STATUS_SUCCESS;
}

/* The float configurations of cuDNN's convolution tables: data type -> allowed compute. */
static cudnnStatus_t check_types(const struct cudnnTensorStruct *x, const struct cudnnFilterStruct *w,
                                 const struct cudnnConvolutionStruct *c, const struct cudnnTensorStruct *y,
                                 const char *fn)
{
    cudnnDataType_t dt = x->dtype;
    if (w->dtype != dt)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "input is %s but the filter is %s", hd_dtype_name(dt),
                       hd_dtype_name(w->dtype));
    switch (dt) {
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_DOUBLE: case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16:
        break;
    case CUDNN_DATA_INT8:
        return check_int8(x, w, c, y, fn);
    case CUDNN_DATA_INT8x4: case CUDNN_DATA_INT8x32:
        return check_int8_vect(x, w, c, y, fn);
    default:
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s convolution is not implemented (float types only)",
                       hd_dtype_name(dt));
    }
    if (y->dtype != dt)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "output is %s but the input is %s", hd_dtype_name(y->dtype),
                       hd_dtype_name(dt));
    cudnnDataType_t ct = c->compute_type;
    int ok = (dt == CUDNN_DATA_FLOAT && ct == CUDNN_DATA_FLOAT) || (dt == CUDNN_DATA_DOUBLE && ct == CUDNN_DATA_DOUBLE) ||
             (dt == CUDNN_DATA_HALF && (ct == CUDNN_DATA_HALF || ct == CUDNN_DATA_FLOAT)) ||
             (dt == CUDNN_DATA_BFLOAT16 && ct == CUDNN_DATA_FLOAT);
    if (!ok)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s data with %s compute is not a cuDNN configuration",
                       hd_dtype_name(dt), hd_dtype_name(ct));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_conv_problem_init(hd_conv_problem *p, const struct cudnnTensorStruct *x,
                                   const struct cudnnFilterStruct *w, const struct cudnnConvolutionStruct *c,
                                   const struct cudnnTensorStruct *y, const char *fn)
{
    int od[CUDNN_DIM_MAX];
    cudnnStatus_t st = hd_conv_output_dims(c, x, w, od, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (w->dims[0] % c->group_count != 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "filter outputs %d are not a multiple of groupCount %d",
                       w->dims[0], c->group_count);
    if (y->nbDims != x->nbDims)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the output has %d dimensions, the input %d", y->nbDims,
                       x->nbDims);
    for (int i = 0; i < x->nbDims; i++)
        if (y->dims[i] != od[i])
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "output dimension %d is %d; the convolution gives %d", i,
                           y->dims[i], od[i]);
    st = check_types(x, w, c, y, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int vect = x->dtype == CUDNN_DATA_INT8x4 || x->dtype == CUDNN_DATA_INT8x32;
    if (!vect && (x->vect_c != 1 || y->vect_c != 1 || w->vect_c != 1))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "NCHW_VECT_C layouts need a vector data type");
    if (c->nbSpatial != 2 && c->nbSpatial != 3)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "%d-d convolution is not supported (2-d and 3-d only)",
                       c->nbSpatial);

    int ns = c->nbSpatial, off = 3 - ns;      /* 2-d fills D with 1 */
    p->nsp = ns;
    p->N = x->dims[0];
    p->C = x->dims[1];
    p->K = w->dims[0];
    p->G = c->group_count;
    p->Cg = w->dims[1];
    p->Kg = p->K / p->G;
    /* vectorised tensors: strides count vectors; scale them to scalars */
    p->xv = x->vect_c, p->yv = y->vect_c, p->wv = w->vect_c;
    p->xs[0] = (int64_t)x->strides[0] * p->xv, p->xs[1] = (int64_t)x->strides[1] * p->xv;
    p->ys[0] = (int64_t)y->strides[0] * p->yv, p->ys[1] = (int64_t)y->strides[1] * p->yv;
    for (int i = 0; i < 3; i++) {
        p->in[i] = p->flt[i] = p->out[i] = 1;
        p->pad[i] = 0, p->str[i] = p->dil[i] = 1;
        p->xs[2 + i] = p->ys[2 + i] = 0;
    }
    for (int i = 0; i < ns; i++) {
        p->in[off + i] = x->dims[2 + i];
        p->flt[off + i] = w->dims[2 + i];
        p->out[off + i] = od[2 + i];
        p->pad[off + i] = c->pad[i];
        p->str[off + i] = c->stride[i];
        p->dil[off + i] = c->dilation[i];
        p->xs[2 + off + i] = (int64_t)x->strides[2 + i] * p->xv;
        p->ys[2 + off + i] = (int64_t)y->strides[2 + i] * p->yv;
    }
    p->TRS = p->flt[0] * p->flt[1] * p->flt[2];
    p->CRS = p->Cg * p->TRS;
    p->P = p->out[0] * p->out[1] * p->out[2];
    p->Q = p->in[0] * p->in[1] * p->in[2];
    /* filter strides in logical (k, c, t, r, s) order */
    int64_t R = p->flt[1], S = p->flt[2];
    if (p->wv > 1) {                               /* K, C/v, spatial, v */
        int64_t v = p->wv, cvec = (p->Cg + v - 1) / v;
        p->wst[4] = v;
        p->wst[3] = S * v;
        p->wst[2] = R * S * v;
        p->wst[1] = p->TRS * v;
        p->wst[0] = cvec * p->TRS * v;
    } else if (w->format == CUDNN_TENSOR_NHWC) {   /* K, spatial, C */
        p->wst[1] = 1;
        p->wst[4] = p->Cg;
        p->wst[3] = S * p->Cg;
        p->wst[2] = R * S * p->Cg;
        p->wst[0] = p->CRS;
    } else {                                       /* K, C, spatial */
        p->wst[4] = 1;
        p->wst[3] = S;
        p->wst[2] = R * S;
        p->wst[1] = p->TRS;
        p->wst[0] = p->CRS;
    }
    p->xdt = x->dtype, p->wdt = w->dtype, p->ydt = y->dtype;
    p->cdt = c->compute_type;
    p->wfmt = w->format;
    p->math = c->math_type;
    p->flip = c->mode == CUDNN_CONVOLUTION;
    if (vect) {                                    /* scalars of the vectors are int8 */
        p->xdt = p->wdt = CUDNN_DATA_INT8;
        if (p->yv > 1)
            p->ydt = CUDNN_DATA_INT8;
    }
    p->int8 = x->dtype == CUDNN_DATA_INT8 || vect;
    p->dbl = x->dtype == CUDNN_DATA_DOUBLE || p->int8;
    p->scale_dbl = x->dtype == CUDNN_DATA_DOUBLE;
    p->isa = hd_cpu_isa();
    return CUDNN_STATUS_SUCCESS;
}

void hd_conv_problem_key(const hd_conv_problem *p, char *buf, size_t size)
{
    snprintf(buf, size,
             "g%lldn%lldc%lldk%lld_i%lldx%lldx%lld_f%lldx%lldx%lld_p%lld.%lld.%lld_u%lld.%lld.%lld_d%lld.%lld.%lld"
             "_xs%lld.%lld.%lld.%lld.%lld_ys%lld.%lld.%lld.%lld.%lld_w%d_t%d.%d_m%d",
             (long long)p->G, (long long)p->N, (long long)p->C, (long long)p->K, (long long)p->in[0],
             (long long)p->in[1], (long long)p->in[2], (long long)p->flt[0], (long long)p->flt[1],
             (long long)p->flt[2], (long long)p->pad[0], (long long)p->pad[1], (long long)p->pad[2],
             (long long)p->str[0], (long long)p->str[1], (long long)p->str[2], (long long)p->dil[0],
             (long long)p->dil[1], (long long)p->dil[2], (long long)p->xs[0], (long long)p->xs[1],
             (long long)p->xs[2], (long long)p->xs[3], (long long)p->xs[4], (long long)p->ys[0],
             (long long)p->ys[1], (long long)p->ys[2], (long long)p->ys[3], (long long)p->ys[4], (int)p->wfmt,
             (int)p->xdt, (int)p->cdt, (int)p->flip);
}
