/*
 * core/elem.h -- typed element access for the generic (any type, any stride) paths of
 * pooling, LRN and the normalization engine.  Header-only.
 *
 * A view is a validated tensor descriptor seen as scalars: element (i0, i1, ...) lives at
 * scalar offset  sum(i_k * stride_k)  -- except for NCHW_VECT_C, where channel c sits in
 * vector c / vect at lane c % vect, and the descriptor's strides count whole vectors.
 * Values travel as double: FLOAT, HALF and BFLOAT16 results are rounded once on store.
 */
#ifndef HD_CORE_ELEM_H
#define HD_CORE_ELEM_H

#include "core/api.h"
#include "core/convert.h"
#include "core/desc.h"

#include <math.h>
#include <stdint.h>

typedef struct {
    cudnnDataType_t dtype;
    int nb;                      /* number of dimensions */
    int dims[CUDNN_DIM_MAX];     /* dims[1] counts scalar channels, also for VECT_C */
    int64_t strides[CUDNN_DIM_MAX];
    int vect;                    /* 1, or the VECT_C width */
} hd_view;

static inline void hd_view_init(hd_view *v, const struct cudnnTensorStruct *t)
{
    v->dtype = t->dtype;
    v->nb = t->nbDims;
    v->vect = t->vect_c > 1 ? t->vect_c : 1;
    for (int i = 0; i < CUDNN_DIM_MAX; i++) {
        v->dims[i] = i < t->nbDims ? t->dims[i] : 1;
        v->strides[i] = i < t->nbDims ? t->strides[i] : 0;
    }
}

/* Scalar offset of element (n, c) plus a spatial offset SP already in strides units. */
static inline int64_t hd_view_nc(const hd_view *v, int64_t n, int64_t c)
{
    if (v->vect == 1)
        return n * v->strides[0] + c * v->strides[1];
    return (n * v->strides[0] + (c / v->vect) * v->strides[1]) * v->vect + c % v->vect;
}

/* Scalar offset of spatial position S (row-major flat index over dims[2..nb)). */
static inline int64_t hd_view_sp_offset(const hd_view *v, int64_t s)
{
    int64_t off = 0;
    for (int d = v->nb - 1; d >= 2; d--) {
        off += (s % v->dims[d]) * v->strides[d];
        s /= v->dims[d];
    }
    return off * v->vect;
}

/* Product of the spatial dims. */
static inline int64_t hd_view_spatial(const hd_view *v)
{
    int64_t s = 1;
    for (int d = 2; d < v->nb; d++)
        s *= v->dims[d];
    return s;
}

/* Multiplier applied to spatial strides (vector width for VECT_C). */
static inline int64_t hd_view_sp_scale(const hd_view *v) { return v->vect; }

static inline double hd_ld(cudnnDataType_t t, const void *p, int64_t i)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: return ((const float *)p)[i];
    case CUDNN_DATA_DOUBLE: return ((const double *)p)[i];
    case CUDNN_DATA_HALF: return hd_f16_to_f32(((const uint16_t *)p)[i]);
    case CUDNN_DATA_BFLOAT16: return hd_bf16_to_f32(((const uint16_t *)p)[i]);
    case CUDNN_DATA_INT8: case CUDNN_DATA_INT8x4: case CUDNN_DATA_INT8x32:
        return ((const int8_t *)p)[i];
    case CUDNN_DATA_UINT8: case CUDNN_DATA_UINT8x4: return ((const uint8_t *)p)[i];
    case CUDNN_DATA_INT32: return ((const int32_t *)p)[i];
    default: return 0.0;
    }
}

/* Round to nearest even and saturate, as integer outputs of cuDNN do. */
static inline double hd_sat_round(double v, double lo, double hi)
{
    if (v != v)
        return 0.0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

static inline void hd_st(cudnnDataType_t t, void *p, int64_t i, double v)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: ((float *)p)[i] = (float)v; break;
    case CUDNN_DATA_DOUBLE: ((double *)p)[i] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)p)[i] = hd_f32_to_f16((float)v); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)p)[i] = hd_f32_to_bf16((float)v); break;
    case CUDNN_DATA_INT8: case CUDNN_DATA_INT8x4: case CUDNN_DATA_INT8x32:
        ((int8_t *)p)[i] = (int8_t)hd_sat_round(v, -128, 127); break;
    case CUDNN_DATA_UINT8: case CUDNN_DATA_UINT8x4:
        ((uint8_t *)p)[i] = (uint8_t)hd_sat_round(v, 0, 255); break;
    case CUDNN_DATA_INT32: ((int32_t *)p)[i] = (int32_t)hd_sat_round(v, -2147483648.0, 2147483647.0); break;
    default: break;
    }
}

/* out = alpha * v + beta * out; beta == 0 never reads out (it may hold NaN). */
static inline void hd_st_blend(cudnnDataType_t t, void *p, int64_t i, double v, double alpha, double beta)
{
    double r = alpha * v;
    if (beta != 0.0)
        r += beta * hd_ld(t, p, i);
    hd_st(t, p, i, r);
}

/* alpha/beta: double for DOUBLE data, float otherwise. */
static inline double hd_scale_arg(const void *p, cudnnDataType_t t)
{
    return t == CUDNN_DATA_DOUBLE ? *(const double *)p : (double)*(const float *)p;
}

/* True when both descriptors have the same dims (all of them). */
static inline int hd_same_dims(const struct cudnnTensorStruct *a, const struct cudnnTensorStruct *b)
{
    if (a->nbDims != b->nbDims)
        return 0;
    for (int i = 0; i < a->nbDims; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

static inline int hd_same_strides(const struct cudnnTensorStruct *a, const struct cudnnTensorStruct *b)
{
    for (int i = 0; i < a->nbDims; i++)
        if (a->dims[i] > 1 && a->strides[i] != b->strides[i])
            return 0;
    return 1;
}

/* Data types the float-like compute paths take. */
static inline int hd_is_float_type(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

#endif
