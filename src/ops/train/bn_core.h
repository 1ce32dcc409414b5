/*
 * ops/train/bn_core.h -- the training forward and backward passes shared by the
 * cudnnBatchNormalization* and cudnnNormalization* entry points.  The entry points check
 * the handle, descriptors' liveness and enumerants, and map their arguments here.
 */
#ifndef HD_OPS_TRAIN_BN_CORE_H
#define HD_OPS_TRAIN_BN_CORE_H

#include "core/api.h"

typedef struct {
    int per_act;
    int with_act, with_z;                 /* fused ops */
    cudnnActivationDescriptor_t actDesc;
    const void *alpha, *beta;
    const struct cudnnTensorStruct *xDesc, *zDesc, *yDesc, *sbDesc, *mvDesc;
    const void *x, *z, *scale, *bias;
    void *y;
    double factor, epsilon;
    void *runMean, *runVar, *saveMean, *saveInv;
    void *reserve;
    size_t reserveBytes;
} hd_bn_fwd_args;

typedef struct {
    int per_act;
    int with_act, with_z;
    cudnnActivationDescriptor_t actDesc;
    const void *alphaD, *betaD, *alphaP, *betaP;
    const struct cudnnTensorStruct *xDesc, *dyDesc, *dzDesc, *dxDesc, *sbDesc, *mvDesc;
    const void *x, *dy, *scale;
    void *dz, *dx, *dScale, *dBias;
    double epsilon;
    const void *savedMean, *savedInv;
    const void *reserve;
    size_t reserveBytes;
} hd_bn_bwd_args;

cudnnStatus_t hd_bn_forward_training(const char *fn, cudnnHandle_t handle, const hd_bn_fwd_args *a);
cudnnStatus_t hd_bn_backward(const char *fn, cudnnHandle_t handle, const hd_bn_bwd_args *a);

/* Reserve space the fused forward writes for the backward: one float per element of x when
 * an activation is fused, else 0. */
size_t hd_bn_reserve_bytes(const struct cudnnTensorStruct *xDesc, int with_act);

#endif
