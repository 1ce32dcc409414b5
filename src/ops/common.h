/*
 * ops/common.h -- argument checks shared by the forward (ops_infer) and backward
 * (ops_train) operations of this area.
 */
#ifndef HD_OPS_COMMON_H
#define HD_OPS_COMMON_H

#include "core/api.h"
#include "core/desc.h"
#include "core/rows.h"

/* FLOAT, DOUBLE, HALF, BFLOAT16: the types every floating-point operation takes. */
static inline int hd_is_fp_type(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

/* Output OUT may be the very same buffer as input IN only with the same strides; any other
 * overlap would read already-written elements.  Logs and returns BAD_PARAM on violation. */
static inline cudnnStatus_t hd_check_alias(const char *fn, const char *in_name, const struct cudnnTensorStruct *in,
                                           const void *pin, const char *out_name,
                                           const struct cudnnTensorStruct *out, const void *pout)
{
    if (!hd_tensors_overlap(in, pin, out, pout))
        return CUDNN_STATUS_SUCCESS;
    if (pin == pout && in->dtype == out->dtype && in->nbDims == out->nbDims) {
        int same = 1;
        for (int i = 0; i < in->nbDims; i++)
            same &= in->strides[i] == out->strides[i] || in->dims[i] == 1;
        if (same)
            return CUDNN_STATUS_SUCCESS;
    }
    return hd_fail(CUDNN_STATUS_BAD_PARAM, fn,
                   "%s and %s overlap but are not the same buffer with the same strides (in-place needs identical layouts)",
                   in_name, out_name);
}

/* The scalar types a tensor operation reads, as text for messages. */
static inline cudnnStatus_t hd_check_fp_type(const char *fn, const char *name, cudnnDataType_t t)
{
    if (hd_is_fp_type(t))
        return CUDNN_STATUS_SUCCESS;
    return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s has data type %s; this operation takes FLOAT, DOUBLE, HALF or BFLOAT16",
                   name, hd_dtype_name(t));
}

#define HD_TRY(expr) do { cudnnStatus_t st_ = (expr); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

#endif
