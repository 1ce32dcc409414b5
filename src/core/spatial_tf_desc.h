/*
 * core/spatial_tf_desc.h -- the spatial transformer descriptor, read by ops_infer (grid
 * generator and sampler forward) and ops_train (their backward passes).  Append-only.
 */
#ifndef HD_CORE_SPATIAL_TF_DESC_H
#define HD_CORE_SPATIAL_TF_DESC_H

#include "core/object.h"

struct cudnnSpatialTransformerStruct {
    hd_object obj;
    int nbDims;                      /* 0 = never set; else 4 (N, C, H, W of the output) */
    int dims[4];
    cudnnSamplerType_t sampler;
    cudnnDataType_t dtype;           /* of theta, grid and the sampled tensors */
};

/* Normalised output coordinate of index I among N points: -1 .. 1 (0 when N == 1). */
static inline double hd_st_coord(int i, int n)
{
    return n > 1 ? -1.0 + 2.0 * (double)i / (double)(n - 1) : 0.0;
}

#endif
