/*
 * core/activation_desc.h -- the activation descriptor, read by ops_infer (forward),
 * ops_train (backward) and cnn_infer (convolution + bias + activation).  Append-only.
 */
#ifndef HD_CORE_ACTIVATION_DESC_H
#define HD_CORE_ACTIVATION_DESC_H

#include "core/object.h"

struct cudnnActivationStruct {
    hd_object obj;
    int is_set;                       /* 0 until cudnnSetActivationDescriptor succeeded */
    cudnnActivationMode_t mode;
    cudnnNanPropagation_t nan_opt;
    double coef;                      /* CLIPPED_RELU: the ceiling; ELU: alpha; else unused */
};

#endif
