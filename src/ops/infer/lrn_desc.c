/*
 * LRN descriptors.  Defaults at creation: n = 5, alpha = 1e-4, beta = 0.75, k = 2.0.
 * Set checks CUDNN_LRN_MIN_N <= n <= CUDNN_LRN_MAX_N, k >= CUDNN_LRN_MIN_K,
 * beta >= CUDNN_LRN_MIN_BETA (and a finite alpha) -> else BAD_PARAM.
 */
#include "core/api.h"
#include "core/check.h"
#include "ops/infer/lrn.h"

#include <math.h>

cudnnStatus_t HD_IMPL(cudnnCreateLRNDescriptor)(cudnnLRNDescriptor_t *normDesc)
{
    HD_CHECK_PTR(normDesc);
    struct cudnnLRNStruct *d = hd_object_new(sizeof *d, HD_TAG_LRN);
    if (!d)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    d->n = 5;
    d->alpha = 1e-4;
    d->beta = 0.75;
    d->k = 2.0;
    *normDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyLRNDescriptor)(cudnnLRNDescriptor_t lrnDesc)
{
    if (!lrnDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(lrnDesc, HD_TAG_LRN);
    hd_object_free(lrnDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetLRNDescriptor)(cudnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha,
                                             double lrnBeta, double lrnK)
{
    HD_CHECK_DESC(normDesc, HD_TAG_LRN);
    if (lrnN < CUDNN_LRN_MIN_N || lrnN > CUDNN_LRN_MAX_N)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "lrnN %u is outside [CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N] = [%d, %d]", lrnN,
                       CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N);
    if (!(lrnK >= CUDNN_LRN_MIN_K) || isinf(lrnK))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "lrnK %g is below CUDNN_LRN_MIN_K (%g)", lrnK, CUDNN_LRN_MIN_K);
    if (!(lrnBeta >= CUDNN_LRN_MIN_BETA) || isinf(lrnBeta))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "lrnBeta %g is below CUDNN_LRN_MIN_BETA (%g)", lrnBeta,
                       CUDNN_LRN_MIN_BETA);
    if (!isfinite(lrnAlpha))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "lrnAlpha %g is not finite", lrnAlpha);
    normDesc->n = lrnN;
    normDesc->alpha = lrnAlpha;
    normDesc->beta = lrnBeta;
    normDesc->k = lrnK;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetLRNDescriptor)(cudnnLRNDescriptor_t normDesc, unsigned *lrnN, double *lrnAlpha,
                                             double *lrnBeta, double *lrnK)
{
    HD_CHECK_DESC(normDesc, HD_TAG_LRN);
    if (!lrnN || !lrnAlpha || !lrnBeta || !lrnK)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    *lrnN = normDesc->n;
    *lrnAlpha = normDesc->alpha;
    *lrnBeta = normDesc->beta;
    *lrnK = normDesc->k;
    return CUDNN_STATUS_SUCCESS;
}
