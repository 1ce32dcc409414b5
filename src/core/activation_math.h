/*
 * core/activation_math.h -- the activation functions and their derivatives,
 * shared by the forward (ops_infer) and backward (ops_train) code.
 *
 * NaN rule (cudnnNanPropagation_t): with CUDNN_NOT_PROPAGATE_NAN, RELU and CLIPPED_RELU map
 * a NaN input to 0 (as max(x, 0) does); with CUDNN_PROPAGATE_NAN they return the NaN.  The
 * smooth modes (SIGMOID, TANH, ELU) propagate NaN either way.
 */
#ifndef HD_CORE_ACTIVATION_MATH_H
#define HD_CORE_ACTIVATION_MATH_H

#include "core/api.h"

#include <math.h>

static inline double hd_act_f64(cudnnActivationMode_t mode, int propagate_nan, double coef, double x)
{
    switch (mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        return 1.0 / (1.0 + exp(-x));
    case CUDNN_ACTIVATION_RELU:
        if (x != x)
            return propagate_nan ? x : 0.0;
        return x > 0.0 ? x : 0.0;
    case CUDNN_ACTIVATION_TANH:
        return tanh(x);
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (x != x)
            return propagate_nan ? x : 0.0;
        return x > 0.0 ? (x < coef ? x : coef) : 0.0;
    case CUDNN_ACTIVATION_ELU:
        return x > 0.0 ? x : coef * expm1(x);
    default:
        return x;
    }
}

static inline float hd_act_f32(cudnnActivationMode_t mode, int propagate_nan, float coef, float x)
{
    switch (mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        return 1.0f / (1.0f + expf(-x));
    case CUDNN_ACTIVATION_RELU:
        if (x != x)
            return propagate_nan ? x : 0.0f;
        return x > 0.0f ? x : 0.0f;
    case CUDNN_ACTIVATION_TANH:
        return tanhf(x);
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (x != x)
            return propagate_nan ? x : 0.0f;
        return x > 0.0f ? (x < coef ? x : coef) : 0.0f;
    case CUDNN_ACTIVATION_ELU:
        return x > 0.0f ? x : coef * expm1f(x);
    default:
        return x;
    }
}

/* dL/dx given y = f(x), dy = dL/dy and x.  SIGMOID and TANH use y (as cuDNN does, so x may
 * be stale); RELU, CLIPPED_RELU and ELU use x. */
static inline double hd_act_grad_f64(cudnnActivationMode_t mode, int propagate_nan, double coef, double y,
                                     double dy, double x)
{
    switch (mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        return dy * y * (1.0 - y);
    case CUDNN_ACTIVATION_TANH:
        return dy * (1.0 - y * y);
    case CUDNN_ACTIVATION_RELU:
        if (x != x)
            return propagate_nan ? x : 0.0;
        return x > 0.0 ? dy : 0.0;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (x != x)
            return propagate_nan ? x : 0.0;
        return x > 0.0 && x < coef ? dy : 0.0;
    case CUDNN_ACTIVATION_ELU:
        return x > 0.0 ? dy : dy * coef * exp(x);
    default:
        return dy;
    }
}

#endif
