/*
 * core/desc_set.c -- see desc_set.h.
 *
 * Tensor validation follows the cuDNN 8.1 reference; where it is silent we follow what
 * NVIDIA's cuDNN 8 answers for the same call (tests/unit/test_oracle_desc.c and
 * test_oracle_random.c compare them; docs/descriptors.md lists the differences we keep):
 *   - every dim must be > 0 (BAD_PARAM), checked before any size;
 *   - nbDims 3..8 are accepted, fewer is BAD_PARAM (cuDNN 9 also takes 2), more than
 *     CUDNN_DIM_MAX is NOT_SUPPORTED;
 *   - "the total size exceeds 2 Giga-elements" (NOT_SUPPORTED) is measured as cuDNN 8 does:
 *     the span of the strides, 1 + sum (dim - 1) * stride, must fit in 31 bits;
 *   - packed tensors (a format instead of strides): cuDNN 8 computes the strides in 32-bit
 *     arithmetic, so a tensor whose stride wraps to 0 is BAD_PARAM and any other too large one
 *     NOT_SUPPORTED by the span; the same statuses here;
 *   - strides given explicitly must be >= 0: hostdnn's operations do not run on negative
 *     strides, so they are refused (BAD_PARAM) where cuDNN 8 stores them; a zero stride is
 *     only accepted on a dimension of size 1; more than 2^31-1 elements is NOT_SUPPORTED even
 *     when overlapping strides keep the span smaller (cuDNN 8 accepts those);
 *   - NCHW_VECT_C needs a vector type (INT8x4, UINT8x4, INT8x32) and C a multiple of its width.
 * Filters are checked as tensors, except that with NCHW_VECT_C a C that is not a multiple of
 * the vector width is accepted and rounded up to whole vectors, as cuDNN 9 does; a filter of
 * more than 2^31-1 elements is NOT_SUPPORTED (cuDNN 8 stores it; no convolution could use it).
 *
 * Convolution validation follows cuDNN (checked against cuDNN 9 by
 * tests/unit/test_oracle_conv_desc.c): negative padding, non-positive stride or dilation, an
 * unknown mode or compute type are BAD_PARAM; more spatial dimensions than CUDNN_DIM_MAX - 2
 * is NOT_SUPPORTED; arrayLength 0 is accepted (such a descriptor cannot be used).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/desc_set.h"
#include "core/tensor.h"

#include <limits.h>

typedef struct cudnnTensorStruct tensor_t;

static int valid_dtype(cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_DOUBLE: case CUDNN_DATA_HALF: case CUDNN_DATA_INT8:
    case CUDNN_DATA_INT32: case CUDNN_DATA_INT8x4: case CUDNN_DATA_UINT8: case CUDNN_DATA_UINT8x4:
    case CUDNN_DATA_INT8x32: case CUDNN_DATA_BFLOAT16:
        return 1;
    default:
        return 0;
    }
}

static int valid_format(cudnnTensorFormat_t f)
{
    return f == CUDNN_TENSOR_NCHW || f == CUDNN_TENSOR_NHWC || f == CUDNN_TENSOR_NCHW_VECT_C;
}

/* A rank above CUDNN_DIM_MAX (for a tensor cuDNN 8 answers it before the data type). */
static cudnnStatus_t check_rank_max(const char *fn, int nbDims)
{
    if (nbDims > CUDNN_DIM_MAX)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "nbDims %d exceeds CUDNN_DIM_MAX (%d)", nbDims, CUDNN_DIM_MAX);
    return CUDNN_STATUS_SUCCESS;
}

/* Checks of the rank and the dimensions shared by tensors and filters, after
 * check_rank_max (FILTER: 1 for a filter, which the messages name). */
static cudnnStatus_t check_dims(const char *fn, int filter, int nbDims, const int *dims)
{
    if (nbDims < 3)
        return filter ? hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "a filter needs at least 3 dimensions (got %d)", nbDims)
                      : hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "nbDims must be at least 3 (got %d)", nbDims);
    if (!dims)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is NULL", filter ? "filterDimA" : "dimA");
    for (int i = 0; i < nbDims; i++)
        if (dims[i] <= 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dimension %d is %d; dimensions must be positive", i, dims[i]);
    return CUDNN_STATUS_SUCCESS;
}

/* More than 2^31-1 elements (of checked, positive dimensions). */
static cudnnStatus_t check_count(const char *fn, int filter, int nbDims, const int *dims)
{
    int64_t elems = 1;
    for (int i = 0; i < nbDims; i++) {
        elems *= dims[i];
        if (elems > INT_MAX)
            return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "the %s has more than 2^31-1 elements",
                           filter ? "filter" : "tensor");
    }
    return CUDNN_STATUS_SUCCESS;
}

/* The span of a strided tensor in elements, 1 + sum (dim - 1) * |stride|: what cuDNN 8 calls
 * its total size. */
static int64_t span_of(int nbDims, const int *dims, const int64_t *strides)
{
    int64_t span = 1;
    for (int i = 0; i < nbDims; i++)
        span += (int64_t)(dims[i] - 1) * (strides[i] < 0 ? -strides[i] : strides[i]);
    return span;
}

/* The packed strides as cuDNN 8 computes them, in 32-bit arithmetic (each wraps modulo
 * 2^32), in the order hd_packed_strides uses. */
static void packed_strides32(cudnnTensorFormat_t fmt, int nbDims, const int *dims, int vect, int64_t *out)
{
    uint32_t s = 1, c = (uint32_t)(dims[1] / vect);
    if (fmt == CUDNN_TENSOR_NHWC) {
        out[1] = 1;
        s = c;
        for (int i = nbDims - 1; i >= 2; i--) {
            out[i] = (int32_t)s;
            s *= (uint32_t)dims[i];
        }
        out[0] = (int32_t)s;
        return;
    }
    for (int i = nbDims - 1; i >= 0; i--) {
        out[i] = (int32_t)s;
        s *= i == 1 ? c : (uint32_t)dims[i];
    }
}

static cudnnStatus_t check_tensor_dims(const char *fn, cudnnDataType_t dt, int nbDims, const int *dims)
{
    cudnnStatus_t st = check_rank_max(fn, nbDims);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (!valid_dtype(dt))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dataType %d is not valid for a tensor", (int)dt);
    return check_dims(fn, 0, nbDims, dims);
}

/* Store a validated description; the caller has checked everything. */
static void store(tensor_t *t, cudnnDataType_t dt, cudnnTensorFormat_t fmt, int vect_c, int nbDims, const int *dims,
                  const int *strides, int packed)
{
    t->dtype = dt;
    t->format = fmt;
    t->vect_c = vect_c;
    t->nbDims = nbDims;
    for (int i = 0; i < CUDNN_DIM_MAX; i++) {
        t->dims[i] = i < nbDims ? dims[i] : 0;
        t->strides[i] = i < nbDims ? strides[i] : 0;
    }
    t->packed = packed;
}

cudnnStatus_t hd_tensor_set_format(tensor_t *t, cudnnTensorFormat_t fmt, cudnnDataType_t dt, int nbDims,
                                   const int *dims, const char *fn)
{
    if (!valid_format(fmt))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "format %d is not a cudnnTensorFormat_t", (int)fmt);
    cudnnStatus_t st = check_tensor_dims(fn, dt, nbDims, dims);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int vect = 1;
    if (fmt == CUDNN_TENSOR_NCHW_VECT_C) {
        vect = hd_dtype_vect(dt);
        if (vect == 1)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn,
                           "CUDNN_TENSOR_NCHW_VECT_C needs a vector data type (INT8x4, UINT8x4, INT8x32), not %s",
                           hd_dtype_name(dt));
        if (dims[1] % vect != 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "C (%d) must be a multiple of the vector width %d", dims[1], vect);
    }
    int64_t s32[CUDNN_DIM_MAX];
    packed_strides32(fmt, nbDims, dims, vect, s32);
    for (int i = 0; i < nbDims; i++)
        if (s32[i] == 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the packed stride of dimension %d overflows 32 bits", i);
    if (span_of(nbDims, dims, s32) > INT_MAX)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "the tensor spans more than 2^31-1 elements");
    int strides[CUDNN_DIM_MAX];
    if (hd_packed_strides(fmt, nbDims, dims, vect, strides) != 0)   /* unreachable after the span */
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "a stride exceeds 2^31-1");
    store(t, dt, fmt, vect, nbDims, dims, strides, 1);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_tensor_set_strided(tensor_t *t, cudnnDataType_t dt, int nbDims, const int *dims, const int *strides,
                                    const char *fn)
{
    cudnnStatus_t st = check_tensor_dims(fn, dt, nbDims, dims);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (!strides)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "strideA is NULL");
    int64_t s64[CUDNN_DIM_MAX];
    for (int i = 0; i < nbDims; i++) {
        if (strides[i] < 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "stride %d is negative (%d): hostdnn does not run on negative strides",
                           i, strides[i]);
        if (strides[i] == 0 && dims[i] > 1)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "stride %d is 0 but dimension %d has size %d", i, i, dims[i]);
        s64[i] = strides[i];
    }
    if (span_of(nbDims, dims, s64) > INT_MAX)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "the strides span more than 2^31-1 elements");
    st = check_count(fn, 0, nbDims, dims);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int packed[CUDNN_DIM_MAX];
    int is_packed = hd_packed_strides(CUDNN_TENSOR_NCHW, nbDims, dims, 1, packed) == 0;
    for (int i = 0; i < nbDims && is_packed; i++)
        is_packed = dims[i] == 1 || packed[i] == strides[i];
    store(t, dt, CUDNN_TENSOR_NCHW, 1, nbDims, dims, strides, is_packed);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_filter_set(struct cudnnFilterStruct *f, cudnnDataType_t dt, cudnnTensorFormat_t fmt, int nbDims,
                            const int *dims, const char *fn)
{
    if (!valid_dtype(dt) || dt == CUDNN_DATA_INT32)   /* cuDNN 8 has no INT32 filters */
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dataType %d is not valid for a filter", (int)dt);
    if (!valid_format(fmt))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "format %d is not a cudnnTensorFormat_t", (int)fmt);
    /* a filter's type and format are answered before its rank (cuDNN 8) */
    cudnnStatus_t st = check_rank_max(fn, nbDims);
    if (st == CUDNN_STATUS_SUCCESS)
        st = check_dims(fn, 1, nbDims, dims);
    if (st == CUDNN_STATUS_SUCCESS)
        st = check_count(fn, 1, nbDims, dims);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int vect = 1;
    if (fmt == CUDNN_TENSOR_NCHW_VECT_C) {
        vect = hd_dtype_vect(dt);
        if (vect == 1)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_TENSOR_NCHW_VECT_C needs a vector data type, not %s",
                           hd_dtype_name(dt));
    }
    f->dtype = dt;
    f->format = fmt;
    f->vect_c = vect;
    f->nbDims = nbDims;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        f->dims[i] = i < nbDims ? dims[i] : 0;
    return CUDNN_STATUS_SUCCESS;
}

void hd_conv_desc_defaults(struct cudnnConvolutionStruct *c)
{
    c->nbSpatial = 0;
    for (int i = 0; i < HD_CONV_MAX_SPATIAL; i++) {
        c->pad[i] = 0;
        c->stride[i] = 0;
        c->dilation[i] = 0;
    }
    c->mode = CUDNN_CONVOLUTION;
    c->compute_type = CUDNN_DATA_FLOAT;
    c->group_count = 1;
    c->math_type = CUDNN_DEFAULT_MATH;
    c->reorder_type = CUDNN_DEFAULT_REORDER;
}

/* Compute types a convolution descriptor accepts (the accumulation types of cuDNN's
 * configurations; INT32 is the int8 configurations' accumulator).  BFLOAT16 data computes
 * in FLOAT; cuDNN refuses BFLOAT16 as a compute type too. */
static int valid_compute_type(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_INT32;
}

cudnnStatus_t hd_conv_desc_set(struct cudnnConvolutionStruct *c, int n, const int *pad, const int *stride,
                               const int *dil, cudnnConvolutionMode_t mode, cudnnDataType_t ct, const char *fn)
{
    /* the enums first: cuDNN 8 answers BAD_PARAM for them before looking at arrayLength */
    if (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "mode %d is not a cudnnConvolutionMode_t", (int)mode);
    if (!valid_compute_type(ct))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "computeType %d is not a convolution compute type", (int)ct);
    if (n > HD_CONV_MAX_SPATIAL)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "arrayLength %d exceeds CUDNN_DIM_MAX - 2 (%d)", n,
                       HD_CONV_MAX_SPATIAL);
    if (n < 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "arrayLength is negative (%d)", n);
    if (n > 0 && (!pad || !stride || !dil))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "padA, filterStrideA or dilationA is NULL");
    for (int i = 0; i < n; i++) {
        if (pad[i] < 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "padding %d of dimension %d is negative", pad[i], i);
        if (stride[i] <= 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "stride %d of dimension %d is not positive", stride[i], i);
        if (dil[i] <= 0)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dilation %d of dimension %d is not positive", dil[i], i);
    }
    c->nbSpatial = n;
    for (int i = 0; i < HD_CONV_MAX_SPATIAL; i++) {
        c->pad[i] = i < n ? pad[i] : 0;
        c->stride[i] = i < n ? stride[i] : 0;
        c->dilation[i] = i < n ? dil[i] : 0;
    }
    c->mode = mode;
    c->compute_type = ct;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_activation_set(struct cudnnActivationStruct *a, cudnnActivationMode_t mode,
                                cudnnNanPropagation_t nan_opt, double coef, const char *fn)
{
    if ((int)mode < (int)CUDNN_ACTIVATION_SIGMOID || (int)mode > (int)CUDNN_ACTIVATION_IDENTITY)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "mode %d is not an activation mode of cuDNN 8.1", (int)mode);
    if (nan_opt != CUDNN_NOT_PROPAGATE_NAN && nan_opt != CUDNN_PROPAGATE_NAN)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "reluNanOpt %d is not a cudnnNanPropagation_t", (int)nan_opt);
    a->mode = mode;
    a->nan_opt = nan_opt;
    a->coef = coef;
    a->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_activation_get(const void *d, cudnnActivationMode_t *mode, cudnnNanPropagation_t *nan_opt,
                                double *coef, const char *argname, const char *fn)
{
    cudnnStatus_t st = hd_check_obj(d, HD_TAG_ACTIVATION, argname, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    const struct cudnnActivationStruct *a = d;
    if (!a->is_set)   /* its zeros would read as SIGMOID: an activation to run must be chosen */
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s was never set (cudnnSetActivationDescriptor)", argname);
    *mode = a->mode;
    *nan_opt = a->nan_opt;
    *coef = a->coef;
    return CUDNN_STATUS_SUCCESS;
}
