/*
 * ops/infer/pooling.h -- the pooling descriptor, shared by ops_infer (forward) and ops_train
 * (backward).  Append fields only.
 */
#ifndef HD_OPS_POOLING_H
#define HD_OPS_POOLING_H

#include "core/api.h"
#include "core/object.h"

#define HD_POOL_MAX_SPATIAL (CUDNN_DIM_MAX - 2)

struct cudnnPoolingStruct {
    hd_object obj;
    cudnnPoolingMode_t mode;
    cudnnNanPropagation_t nan_opt;
    int nbSpatial;                      /* 0 = never set */
    int window[HD_POOL_MAX_SPATIAL];
    int pad[HD_POOL_MAX_SPATIAL];
    int stride[HD_POOL_MAX_SPATIAL];
};

/* One window along one spatial dimension: [lo, hi) of valid input positions, and the
 * divisor contribution for AVERAGE_COUNT_INCLUDE_PADDING (the window clipped to the padded
 * input [-pad, in + pad), which is the whole window for the output sizes of the formula). */
typedef struct {
    int lo, hi;
    int incl;
} hd_pool_span;

static inline hd_pool_span hd_pool_span_of(int o, int in, int window, int pad, int stride)
{
    hd_pool_span s;
    long long start = (long long)o * stride - pad;
    long long end = start + window;
    long long pend = end < (long long)in + pad ? end : (long long)in + pad;
    s.incl = (int)(pend > start ? pend - start : 0);
    s.lo = (int)(start < 0 ? 0 : start > in ? in : start);
    s.hi = (int)(end > in ? in : end < 0 ? 0 : end);
    if (s.hi < s.lo)
        s.hi = s.lo;
    return s;
}

#endif
