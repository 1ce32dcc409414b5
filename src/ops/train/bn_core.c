/*
 * Batch-normalization training passes (see bn_core.h).
 *
 * Forward:  mean, biased var over the feature's values (M of them);
 *           y = alpha * act(scale * (x - mean) * inv + bias (+ z)) + beta * y, inv = 1/sqrt(var + eps);
 *           running mean = (1 - f) * running + f * mean;
 *           running var  = (1 - f) * running + f * var * M / (M - 1)   (var when M == 1);
 *           saved mean = mean, saved inverse std-dev = inv.
 *           With f == 1 the running buffers are not read (they may hold NaN).
 * Backward: g = dy * act'(v) (from the reserve space of the fused forward);
 *           dBias = sum g, dScale = sum g * (x - mean) * inv  (blended with alpha/betaParamDiff);
 *           dx = scale * inv * (g - dBias / M - (x - mean) * inv * dScale / M)
 *           (blended with alpha/betaDataDiff); dz = g for NORM_ADD_ACTIVATION.
 *           mean and inv come from savedMean/savedInvVariance, or are recomputed from x with
 *           epsilon when both are NULL.
 */
#include "ops/train/bn_core.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/memory.h"
#include "core/tensor.h"
#include "norm/bn_engine.h"

#include <math.h>

typedef struct cudnnTensorStruct tensor_t;

size_t hd_bn_reserve_bytes(const tensor_t *xDesc, int with_act)
{
    return with_act ? (size_t)hd_tensor_elems(xDesc) * sizeof(float) : 0;
}

static cudnnStatus_t check_eps(const char *fn, double eps)
{
    if (!(eps >= CUDNN_BN_MIN_EPSILON))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "epsilon %g is below CUDNN_BN_MIN_EPSILON (%g)", eps,
                       CUDNN_BN_MIN_EPSILON);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_bn_forward_training(const char *fn, cudnnHandle_t handle, const hd_bn_fwd_args *a)
{
    cudnnStatus_t st;
    if (!a->alpha || !a->beta || !a->x || !a->y || !a->scale || !a->bias)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "one of alpha, beta, x, y, scale, bias is NULL");
    if ((a->runMean == NULL) != (a->runVar == NULL))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "resultRunningMean and resultRunningVariance must both be NULL or both be set");
    if ((a->saveMean == NULL) != (a->saveInv == NULL))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "resultSaveMean and resultSaveInvVariance must both be NULL or both be set");
    if ((st = hd_bn_check_x(fn, a->xDesc, "xDesc")) != CUDNN_STATUS_SUCCESS ||
        (st = hd_bn_check_like_x(fn, a->xDesc, a->yDesc, "yDesc")) != CUDNN_STATUS_SUCCESS ||
        (st = hd_bn_check_param(fn, a->xDesc, a->sbDesc, a->per_act, "scale/bias descriptor")) != CUDNN_STATUS_SUCCESS ||
        (st = hd_bn_check_param(fn, a->xDesc, a->mvDesc, a->per_act, "mean/variance descriptor")) != CUDNN_STATUS_SUCCESS ||
        (st = check_eps(fn, a->epsilon)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (a->runMean && !isfinite(a->factor))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "exponentialAverageFactor %g is not finite", a->factor);
    if (a->with_z) {
        if ((st = hd_check_tensor(a->zDesc, "zDesc", fn)) != CUDNN_STATUS_SUCCESS ||
            (st = hd_bn_check_like_x(fn, a->xDesc, a->zDesc, "zDesc")) != CUDNN_STATUS_SUCCESS)
            return st;
        if (!a->z)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "zData is NULL");
    }
    hd_bn_problem pb;
    hd_bn_problem_init(&pb, a->xDesc, a->per_act, handle->num_threads, handle->isa);
    if (a->with_act) {
        if ((st = hd_bn_act_read(fn, a->actDesc, &pb.act)) != CUDNN_STATUS_SUCCESS)
            return st;
        size_t need = hd_bn_reserve_bytes(a->xDesc, 1);
        if (!a->reserve || a->reserveBytes < need)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "reserveSpace holds %zu bytes; %zu are needed", a->reserve ? a->reserveBytes : 0,
                           need);
        pb.reserve = a->reserve;
    }
    hd_view_init(&pb.x, a->xDesc);
    hd_view_init(&pb.y, a->yDesc);
    pb.xp = a->x;
    pb.yp = a->y;
    if (a->with_z) {
        hd_view_init(&pb.z, a->zDesc);
        pb.zp = a->z;
    }
    size_t F = (size_t)pb.F, bytes = hd_bn_scratch_bytes(&pb) + F * 6 * sizeof(double);
    double *w = hd_handle_scratch(handle, bytes);
    if (!w)
        return hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "no memory for %zu bytes of scratch", bytes);
    double *mean = w, *var = w + F, *ka = w + 2 * F, *kb = w + 3 * F, *inv = w + 4 * F, *tmp = w + 5 * F;
    void *scr = w + 6 * F;
    hd_bn_stats(&pb, mean, var, scr);
    hd_bn_param_load(&pb, a->sbDesc, a->scale, ka);
    hd_bn_param_load(&pb, a->sbDesc, a->bias, kb);
    for (size_t f = 0; f < F; f++) {
        inv[f] = 1.0 / sqrt(var[f] + a->epsilon);
        ka[f] *= inv[f];              /* y = ka * (x - mean) + bias */
    }
    hd_bn_apply(&pb, mean, ka, kb, hd_scale_arg(a->alpha, a->xDesc->dtype), hd_scale_arg(a->beta, a->xDesc->dtype), scr);
    if (a->runMean) {
        double M = a->per_act ? (double)pb.N : (double)pb.N * pb.S;
        double unbias = M > 1.0 ? M / (M - 1.0) : 1.0;
        for (size_t f = 0; f < F; f++)
            tmp[f] = var[f] * unbias;
        hd_bn_param_store(&pb, a->mvDesc, a->runMean, mean, a->factor, 1.0 - a->factor);
        hd_bn_param_store(&pb, a->mvDesc, a->runVar, tmp, a->factor, 1.0 - a->factor);
    }
    if (a->saveMean) {
        hd_bn_param_store(&pb, a->mvDesc, a->saveMean, mean, 1.0, 0.0);
        hd_bn_param_store(&pb, a->mvDesc, a->saveInv, inv, 1.0, 0.0);
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_bn_backward(const char *fn, cudnnHandle_t handle, const hd_bn_bwd_args *a)
{
    cudnnStatus_t st;
    if (!a->alphaD || !a->betaD || !a->alphaP || !a->betaP || !a->x || !a->dy || !a->dx || !a->scale || !a->dScale ||
        !a->dBias)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "a scaling, data or parameter pointer is NULL");
    if ((a->savedMean == NULL) != (a->savedInv == NULL))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "savedMean and savedInvVariance must both be NULL or both be set");
    if ((st = hd_bn_check_x(fn, a->xDesc, "xDesc")) != CUDNN_STATUS_SUCCESS ||
        (st = hd_bn_check_like_x(fn, a->xDesc, a->dyDesc, "dyDesc")) != CUDNN_STATUS_SUCCESS ||
        (st = hd_bn_check_like_x(fn, a->xDesc, a->dxDesc, "dxDesc")) != CUDNN_STATUS_SUCCESS ||
        (st = hd_bn_check_param(fn, a->xDesc, a->sbDesc, a->per_act, "scale/bias descriptor")) != CUDNN_STATUS_SUCCESS ||
        (st = hd_bn_check_param(fn, a->xDesc, a->mvDesc, a->per_act, "mean/variance descriptor")) != CUDNN_STATUS_SUCCESS ||
        (st = check_eps(fn, a->epsilon)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (a->with_z) {
        if ((st = hd_check_tensor(a->dzDesc, "dzDesc", fn)) != CUDNN_STATUS_SUCCESS ||
            (st = hd_bn_check_like_x(fn, a->xDesc, a->dzDesc, "dzDesc")) != CUDNN_STATUS_SUCCESS)
            return st;
        if (!a->dz)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dzData is NULL");
    }
    hd_bn_problem pb;
    hd_bn_problem_init(&pb, a->xDesc, a->per_act, handle->num_threads, handle->isa);
    if (a->with_act) {
        if ((st = hd_bn_act_read(fn, a->actDesc, &pb.act)) != CUDNN_STATUS_SUCCESS)
            return st;
        size_t need = hd_bn_reserve_bytes(a->xDesc, 1);
        if (!a->reserve || a->reserveBytes < need)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "reserveSpace holds %zu bytes; %zu are needed",
                           a->reserve ? a->reserveBytes : 0, need);
        pb.reserve = (float *)a->reserve;   /* read only in the backward pass */
    }
    hd_view_init(&pb.x, a->xDesc);
    hd_view_init(&pb.dy, a->dyDesc);
    hd_view_init(&pb.dx, a->dxDesc);
    pb.xp = a->x;
    pb.dyp = a->dy;
    pb.dxp = a->dx;
    if (a->with_z) {
        hd_view_init(&pb.dz, a->dzDesc);
        pb.dzp = a->dz;
    }
    size_t F = (size_t)pb.F, bytes = hd_bn_scratch_bytes(&pb) + F * 7 * sizeof(double);
    double *w = hd_handle_scratch(handle, bytes);
    if (!w)
        return hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "no memory for %zu bytes of scratch", bytes);
    double *mean = w, *inv = w + F, *sc = w + 2 * F, *sdy = w + 3 * F, *sdyx = w + 4 * F, *q = w + 5 * F, *r = w + 6 * F;
    void *scr = w + 7 * F;
    /* two passes over x and dy: the statistics (unless saved) with the sums, then dx */
    int have_sums = 0;
    if (a->savedMean) {
        hd_bn_param_load(&pb, a->mvDesc, a->savedMean, mean);
        hd_bn_param_load(&pb, a->mvDesc, a->savedInv, inv);
    } else {
        have_sums = hd_bn_stats_bwd_sums(&pb, mean, inv, sdy, sdyx, scr);
        if (!have_sums)
            hd_bn_stats(&pb, mean, inv, scr);
        for (size_t f = 0; f < F; f++)
            inv[f] = 1.0 / sqrt(inv[f] + a->epsilon);
    }
    hd_bn_param_load(&pb, a->sbDesc, a->scale, sc);
    if (!have_sums)
        hd_bn_bwd_sums(&pb, mean, sdy, sdyx, scr);
    double M = a->per_act ? (double)pb.N : (double)pb.N * pb.S;
    /* dx = p*g + q*(x - mean) + r with p = scale*inv, q = -scale*inv^3*sdyx/M, r = -p*sdy/M;
     * p overwrites sc once q and r are known. */
    for (size_t f = 0; f < F; f++) {
        double p = sc[f] * inv[f];
        q[f] = -p * inv[f] * inv[f] * sdyx[f] / M;
        r[f] = -p * sdy[f] / M;
        sc[f] = p;
        sdyx[f] *= inv[f];            /* dScale */
    }
    hd_bn_bwd_apply(&pb, mean, sc, q, r, hd_scale_arg(a->alphaD, a->xDesc->dtype), hd_scale_arg(a->betaD, a->xDesc->dtype),
                    scr);
    double ap = hd_scale_arg(a->alphaP, a->xDesc->dtype), bp = hd_scale_arg(a->betaP, a->xDesc->dtype);
    hd_bn_param_store(&pb, a->sbDesc, a->dScale, sdyx, ap, bp);
    hd_bn_param_store(&pb, a->sbDesc, a->dBias, sdy, ap, bp);
    return CUDNN_STATUS_SUCCESS;
}
