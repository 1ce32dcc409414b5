/*
 * tests/unit/np_util.h -- tensors for the pooling / LRN / normalization tests: a descriptor
 * plus a host buffer in one of several layouts, filled from and read into logical packed
 * NCHW-order doubles (through tests/ref helpers).
 */
#ifndef HD_TESTS_NP_UTIL_H
#define HD_TESTS_NP_UTIL_H

#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ref/normpool_ref.h"

enum { L_NCHW, L_NHWC, L_PADDED, L_PERMUTED, L_COUNT };
static const char *const layout_names[] = {"NCHW", "NHWC", "padded", "permuted"};

typedef struct {
    cudnnTensorDescriptor_t d;
    cudnnDataType_t t;
    int nb, dims[8], strides[8], vect;
    void *buf;
    size_t bytes;
} tens;

static inline void np_strides(int layout, int nb, const int *dims, int *st)
{
    long long s = 1;
    switch (layout) {
    case L_NHWC:
        st[1] = 1;
        s = dims[1];
        for (int d = nb - 1; d >= 2; d--) {
            st[d] = (int)s;
            s *= dims[d];
        }
        st[0] = (int)s;
        break;
    case L_PADDED:                    /* NCHW order, innermost stride 2, every dim padded */
        s = 2;
        for (int d = nb - 1; d >= 0; d--) {
            st[d] = (int)s;
            s = s * dims[d] + 3;
        }
        break;
    case L_PERMUTED:                  /* N innermost, then C, spatial outermost */
        st[0] = 1;
        s = dims[0];
        st[1] = (int)s;
        s *= dims[1];
        for (int d = nb - 1; d >= 2; d--) {
            st[d] = (int)s;
            s *= dims[d];
        }
        break;
    default:
        for (int d = nb - 1; d >= 0; d--) {
            st[d] = (int)s;
            s *= dims[d];
        }
    }
}

/* A tensor of type T; its buffer is filled with the byte 0xff (NaN for float types). */
static inline int tens_make(tens *T, cudnnDataType_t t, int nb, const int *dims, int layout)
{
    memset(T, 0, sizeof *T);
    T->t = t;
    T->nb = nb;
    T->vect = 1;
    memcpy(T->dims, dims, sizeof(int) * (size_t)nb);
    np_strides(layout, nb, dims, T->strides);
    if (cudnnCreateTensorDescriptor(&T->d) != CUDNN_STATUS_SUCCESS)
        return -1;
    if (cudnnSetTensorNdDescriptor(T->d, t, nb, dims, T->strides) != CUDNN_STATUS_SUCCESS)
        return -1;
    long long last = 0;
    for (int d = 0; d < nb; d++)
        last += (long long)(dims[d] - 1) * T->strides[d];
    T->bytes = (size_t)(last + 1) * ref_type_size(t);
    T->buf = malloc(T->bytes);
    memset(T->buf, 0xff, T->bytes);
    return 0;
}

/* INT8x4 / INT8x32 in NCHW_VECT_C. */
static inline int tens_make_vect(tens *T, cudnnDataType_t t, int vect, const int *dims4)
{
    memset(T, 0, sizeof *T);
    T->t = t;
    T->nb = 4;
    T->vect = vect;
    memcpy(T->dims, dims4, sizeof(int) * 4);
    if (cudnnCreateTensorDescriptor(&T->d) != CUDNN_STATUS_SUCCESS)
        return -1;
    if (cudnnSetTensor4dDescriptor(T->d, CUDNN_TENSOR_NCHW_VECT_C, t, dims4[0], dims4[1], dims4[2], dims4[3]) !=
        CUDNN_STATUS_SUCCESS)
        return -1;
    T->strides[3] = 1;
    T->strides[2] = dims4[3];
    T->strides[1] = dims4[2] * dims4[3];
    T->strides[0] = dims4[1] / vect * T->strides[1];
    T->bytes = (size_t)dims4[0] * dims4[1] * dims4[2] * dims4[3];
    T->buf = malloc(T->bytes);
    memset(T->buf, 0x7f, T->bytes);
    return 0;
}

static inline void tens_free(tens *T)
{
    cudnnDestroyTensorDescriptor(T->d);
    free(T->buf);
}

static inline long long tens_count(const tens *T) { return ref_count(T->nb, T->dims); }
static inline void tens_put(tens *T, const double *v) { ref_scatter(T->t, T->buf, T->nb, T->dims, T->strides, T->vect, v); }
static inline void tens_get(const tens *T, double *v) { ref_gather(T->t, T->buf, T->nb, T->dims, T->strides, T->vect, v); }

/* Values exactly representable in every type: small multiples of 1/4 (integers for int8). */
static uint32_t np_seed = 12345;
static inline double np_rand(void)
{
    np_seed = np_seed * 1664525u + 1013904223u;
    return (double)((int)((np_seed >> 16) % 33) - 16) / 4.0;
}
static inline void np_fill(double *v, long long n, cudnnDataType_t t)
{
    for (long long i = 0; i < n; i++)
        v[i] = t == CUDNN_DATA_INT8 || t == CUDNN_DATA_INT8x4 || t == CUDNN_DATA_INT8x32 ? nearbyint(np_rand() * 4) : np_rand();
}

static inline double np_tol(cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_DOUBLE: return 1e-10;
    case CUDNN_DATA_FLOAT: return 2e-5;
    case CUDNN_DATA_HALF: return 3e-3;
    case CUDNN_DATA_BFLOAT16: return 2e-2;
    default: return 0.51;
    }
}

/* Largest |got - want| / max(1, |want|) over N values; NaN where one is NaN and not the other. */
static inline double np_err(const double *got, const double *want, long long n)
{
    double e = 0.0;
    for (long long i = 0; i < n; i++) {
        if (isnan(got[i]) || isnan(want[i])) {
            if (isnan(got[i]) != isnan(want[i]))
                return NAN;
            continue;
        }
        if (isinf(want[i]) || isinf(got[i])) {
            if (got[i] != want[i])
                return INFINITY;
            continue;
        }
        double d = fabs(got[i] - want[i]) / (fabs(want[i]) > 1.0 ? fabs(want[i]) : 1.0);
        if (d > e)
            e = d;
    }
    return e;
}

static const cudnnDataType_t np_types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};

/* alpha/beta as the API wants them for data type T. */
typedef struct {
    double d;
    float f;
} np_scalar;
static inline const void *np_sc(np_scalar *s, cudnnDataType_t t, double v)
{
    s->d = v;
    s->f = (float)v;
    return t == CUDNN_DATA_DOUBLE ? (const void *)&s->d : (const void *)&s->f;
}

#endif
