/* core/tensor.c -- see tensor.h. */
#include "core/api.h"
#include "core/check.h"
#include "core/tensor.h"

#include <limits.h>

int64_t hd_tensor_elems(const struct cudnnTensorStruct *t)
{
    if (t->nbDims == 0)
        return 0;
    int64_t n = 1;
    for (int i = 0; i < t->nbDims; i++)
        n *= i == 1 ? t->dims[i] / t->vect_c : t->dims[i];
    return n;
}

size_t hd_tensor_span_bytes(const struct cudnnTensorStruct *t)
{
    if (t->nbDims == 0)
        return 0;
    int64_t last = 0;
    for (int i = 0; i < t->nbDims; i++) {
        int64_t d = i == 1 ? t->dims[i] / t->vect_c : t->dims[i];
        last += (d - 1) * (int64_t)t->strides[i];
    }
    return (size_t)(last + 1) * hd_dtype_size(t->dtype);
}

int hd_packed_strides(cudnnTensorFormat_t format, int nbDims, const int *dims, int vect_c, int *strides)
{
    int64_t s = 1;
    int64_t c = dims[1] / vect_c;
    if (format == CUDNN_TENSOR_NHWC) {
        /* channels innermost, then the spatial dims from last to first, then N */
        strides[1] = 1;
        s = c;
        for (int i = nbDims - 1; i >= 2; i--) {
            if (s > INT_MAX)
                return -1;
            strides[i] = (int)s;
            s *= dims[i];
        }
        if (s > INT_MAX)
            return -1;
        strides[0] = (int)s;
        return 0;
    }
    for (int i = nbDims - 1; i >= 0; i--) {
        if (s > INT_MAX)
            return -1;
        strides[i] = (int)s;
        s *= i == 1 ? c : dims[i];
    }
    return 0;
}

size_t hd_filter_bytes(const struct cudnnFilterStruct *f)
{
    if (f->nbDims == 0)
        return 0;
    size_t n = 1;
    for (int i = 0; i < f->nbDims; i++) {
        size_t d = (size_t)f->dims[i];
        if (i == 1 && f->vect_c > 1)
            d = (d + (size_t)f->vect_c - 1) / (size_t)f->vect_c;
        n *= d;
    }
    return n * hd_dtype_size(f->dtype);
}

cudnnStatus_t hd_check_tensor(const void *d, const char *argname, const char *fn)
{
    cudnnStatus_t st = hd_check_obj(d, HD_TAG_TENSOR, argname, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (((const struct cudnnTensorStruct *)d)->nbDims == 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s was never set", argname);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_check_filter(const void *d, const char *argname, const char *fn)
{
    cudnnStatus_t st = hd_check_obj(d, HD_TAG_FILTER, argname, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (((const struct cudnnFilterStruct *)d)->nbDims == 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s was never set", argname);
    return CUDNN_STATUS_SUCCESS;
}
