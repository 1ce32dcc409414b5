/*
 * ops/train/pooling_bwd.h -- the FLOAT 2-d paths of cudnnPoolingBackward (pooling_bwd_f32.c),
 * called after pooling_bwd.c has checked the call: dy, x and dx are FLOAT 4-d views, dx with
 * x's dimensions and strides.  *done = 0 (and nothing written) where this path does not
 * apply (row-contiguous layouts with negative horizontal padding, or rows too long for its
 * int32 offsets): the generic path takes the call then.
 */
#ifndef HD_OPS_TRAIN_POOLING_BWD_H
#define HD_OPS_TRAIN_POOLING_BWD_H

#include "core/api.h"
#include "core/elem.h"

struct cudnnPoolingStruct;

cudnnStatus_t hd_pool_bwd_f32_2d(cudnnHandle_t handle, const struct cudnnPoolingStruct *p, const hd_view *dy,
                                 const hd_view *x, const hd_view *dx, const float *dyp, const float *xp, float *dxp,
                                 double alpha, double beta, int *done);

/* MAX 3x3 stride 2, padding 0 or 1, channel-contiguous or along contiguous rows (NCHW), alpha 1
 * and beta 0, AVX-512 (pooling_bwd_f32_max3s2.c): 1 with *status set where it took the call, 0 (nothing written)
 * where it does not apply.  Called by hd_pool_bwd_f32_2d. */
int hd_pool_bwd_f32_max3s2(cudnnHandle_t handle, const struct cudnnPoolingStruct *p, const hd_view *dy,
                           const hd_view *x, const hd_view *dx, const float *dyp, const float *xp, float *dxp,
                           double alpha, double beta, cudnnStatus_t *status);

#endif
