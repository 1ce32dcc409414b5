/*
 * attn/attn_elem.h -- element access by data type for the attention kernels, which compute
 * in double whatever the storage type.  Private to src/attn.
 */
#ifndef HD_ATTN_ELEM_H
#define HD_ATTN_ELEM_H

#include <stddef.h>
#include <stdint.h>

#include "core/api.h"
#include "core/convert.h"

static inline double hd_attn_ld(const void *p, cudnnDataType_t dt, size_t i)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: return ((const double *)p)[i];
    case CUDNN_DATA_HALF: return hd_f16_to_f32(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
    }
}

static inline void hd_attn_st(void *p, cudnnDataType_t dt, size_t i, double v)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: ((double *)p)[i] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)p)[i] = hd_f32_to_f16((float)v); break;
    default: ((float *)p)[i] = (float)v; break;
    }
}

#endif /* HD_ATTN_ELEM_H */
