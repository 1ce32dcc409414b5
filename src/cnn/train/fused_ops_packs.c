/*
 * Fused-ops constant and variant parameter packs.
 *
 * Constant pack: descriptor labels copy the caller's descriptor by value on Set (the caller
 * may destroy or change theirs afterwards) and copy it back into a caller-created
 * descriptor on Get; NULL clears a descriptor label (Get then reports isNULL = 1 and leaves
 * the caller's descriptor alone).  BN-mode and placeholder labels take a pointer to the
 * enum value.  Variant pack: pointer labels store the pointer itself (NULL allowed), Get
 * writes it through a void **; scalar labels copy the pointed-to host value both ways.
 * Labels that do not belong to the pack's op are BAD_PARAM (fused_ops_labels.c).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/desc_set.h"
#include "cnn/train/fused_ops.h"

#include <string.h>

typedef struct cudnnFusedOpsConstParamStruct const_pack;
typedef struct cudnnFusedOpsVariantParamStruct var_pack;

/* Copy the body of a descriptor (everything after the object header). */
#define COPY_BODY(dst, src) memcpy((char *)(dst) + sizeof(hd_object), (const char *)(src) + sizeof(hd_object), \
                                   sizeof *(dst) - sizeof(hd_object))

cudnnStatus_t HD_IMPL(cudnnCreateFusedOpsConstParamPack)(cudnnFusedOpsConstParamPack_t *constPack, cudnnFusedOps_t ops)
{
    HD_CHECK_PTR(constPack);
    if (!hd_fused_op_valid((int)ops))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "ops %d is not a cudnnFusedOps_t", (int)ops);
    const_pack *p = hd_object_new(sizeof *p, HD_TAG_FUSED_CONST);
    if (!p)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    p->op = ops;
    *constPack = p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyFusedOpsConstParamPack)(cudnnFusedOpsConstParamPack_t constPack)
{
    if (!constPack)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(constPack, HD_TAG_FUSED_CONST);
    hd_object_free(constPack);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_const_label(const char *fn, const const_pack *p, cudnnFusedOpsConstParamLabel_t label)
{
    if ((int)label < 0 || (int)label >= HD_FUSED_CONST_LABELS)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "paramLabel %d is not a cudnnFusedOpsConstParamLabel_t", (int)label);
    if (!hd_fused_op_takes_const((int)p->op, (int)label))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s does not take %s", hd_enum_name_cudnnFusedOps_t((int)p->op),
                       hd_fused_const_label_name((int)label));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetFusedOpsConstParamPackAttribute)(cudnnFusedOpsConstParamPack_t constPack,
                                                               cudnnFusedOpsConstParamLabel_t paramLabel,
                                                               const void *param)
{
    const char *fn = "cudnnSetFusedOpsConstParamPackAttribute";
    HD_CHECK_DESC(constPack, HD_TAG_FUSED_CONST);
    cudnnStatus_t st = check_const_label(fn, constPack, paramLabel);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    hd_fused_const_slot *slot = &constPack->slot[paramLabel], next;
    memset(&next, 0, sizeof next);
    hd_fused_kind kind = hd_fused_const_kind((int)paramLabel);
    const char *what = hd_fused_const_label_name((int)paramLabel);
    if (!param) {
        if (kind == HD_FUSED_BN_MODE || kind == HD_FUSED_PLACEHOLDER)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "%s needs a pointer to its value, not NULL", what);
        *slot = next;   /* NULL descriptor: the label is cleared */
        return CUDNN_STATUS_SUCCESS;
    }
    switch (kind) {
    case HD_FUSED_TENSOR:
        st = hd_check_obj(param, HD_TAG_TENSOR, what, fn);
        if (st == CUDNN_STATUS_SUCCESS && ((const struct cudnnTensorStruct *)param)->nbDims == 0)
            st = HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the tensor descriptor for %s was never set", what);
        if (st == CUDNN_STATUS_SUCCESS)
            COPY_BODY(&next.u.tensor, param);
        break;
    case HD_FUSED_FILTER:
        st = hd_check_obj(param, HD_TAG_FILTER, what, fn);
        if (st == CUDNN_STATUS_SUCCESS && ((const struct cudnnFilterStruct *)param)->nbDims == 0)
            st = HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the filter descriptor for %s was never set", what);
        if (st == CUDNN_STATUS_SUCCESS)
            COPY_BODY(&next.u.filter, param);
        break;
    case HD_FUSED_CONV:
        st = hd_check_obj(param, HD_TAG_CONV, what, fn);
        if (st == CUDNN_STATUS_SUCCESS && ((const struct cudnnConvolutionStruct *)param)->nbSpatial == 0)
            st = HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the convolution descriptor for %s was never set", what);
        if (st == CUDNN_STATUS_SUCCESS)
            COPY_BODY(&next.u.conv, param);
        break;
    case HD_FUSED_ACTIVATION: {
        st = hd_activation_get(param, &next.u.act.mode, &next.u.act.nan_opt, &next.u.act.coef, what, fn);
        break;
    }
    case HD_FUSED_BN_MODE: {
        int v;
        memcpy(&v, param, sizeof v);
        if (v != CUDNN_BATCHNORM_PER_ACTIVATION && v != CUDNN_BATCHNORM_SPATIAL && v != CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
            st = HD_FAIL(CUDNN_STATUS_BAD_PARAM, "%d is not a cudnnBatchNormMode_t", v);
        next.u.value = v;
        break;
    }
    case HD_FUSED_PLACEHOLDER: {
        int v;
        memcpy(&v, param, sizeof v);
        if (v != CUDNN_PTR_NULL && v != CUDNN_PTR_ELEM_ALIGNED && v != CUDNN_PTR_16B_ALIGNED)
            st = HD_FAIL(CUDNN_STATUS_BAD_PARAM, "%d is not a cudnnFusedOpsPointerPlaceHolder_t (for %s)", v, what);
        next.u.value = v;
        break;
    }
    }
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    next.present = 1;
    *slot = next;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetFusedOpsConstParamPackAttribute)(const cudnnFusedOpsConstParamPack_t constPack,
                                                               cudnnFusedOpsConstParamLabel_t paramLabel, void *param,
                                                               int *isNULL)
{
    const char *fn = "cudnnGetFusedOpsConstParamPackAttribute";
    HD_CHECK_DESC(constPack, HD_TAG_FUSED_CONST);
    cudnnStatus_t st = check_const_label(fn, constPack, paramLabel);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    HD_CHECK_PTR(param);
    HD_CHECK_PTR(isNULL);
    const hd_fused_const_slot *slot = &constPack->slot[paramLabel];
    const char *what = hd_fused_const_label_name((int)paramLabel);
    hd_fused_kind kind = hd_fused_const_kind((int)paramLabel);
    /* Check the destination's kind first, so a wrong one fails whether or not the label is set. */
    uint32_t want = kind == HD_FUSED_TENSOR ? HD_TAG_TENSOR : kind == HD_FUSED_FILTER ? HD_TAG_FILTER
                  : kind == HD_FUSED_CONV ? HD_TAG_CONV : kind == HD_FUSED_ACTIVATION ? HD_TAG_ACTIVATION : 0;
    if (want && (st = hd_check_obj(param, want, what, fn)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (kind == HD_FUSED_BN_MODE || kind == HD_FUSED_PLACEHOLDER) {
        /* Never set reads as 0 (PER_ACTIVATION / CUDNN_PTR_NULL), not NULL, as in cuDNN. */
        int v = slot->present ? slot->u.value : 0;
        memcpy(param, &v, sizeof v);
        *isNULL = 0;
        return CUDNN_STATUS_SUCCESS;
    }
    if (!slot->present) {
        *isNULL = 1;
        return CUDNN_STATUS_SUCCESS;
    }
    switch (kind) {
    case HD_FUSED_TENSOR: COPY_BODY((struct cudnnTensorStruct *)param, &slot->u.tensor); break;
    case HD_FUSED_FILTER: COPY_BODY((struct cudnnFilterStruct *)param, &slot->u.filter); break;
    case HD_FUSED_CONV: COPY_BODY((struct cudnnConvolutionStruct *)param, &slot->u.conv); break;
    case HD_FUSED_ACTIVATION: {
        st = hd_activation_set(param, slot->u.act.mode, slot->u.act.nan_opt, slot->u.act.coef, fn);
        if (st != CUDNN_STATUS_SUCCESS)
            return HD_FAIL(st, "could not write the activation descriptor for %s", what);
        break;
    }
    default: break;
    }
    *isNULL = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnCreateFusedOpsVariantParamPack)(cudnnFusedOpsVariantParamPack_t *varPack, cudnnFusedOps_t ops)
{
    HD_CHECK_PTR(varPack);
    if (!hd_fused_op_valid((int)ops))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "ops %d is not a cudnnFusedOps_t", (int)ops);
    var_pack *p = hd_object_new(sizeof *p, HD_TAG_FUSED_VARIANT);
    if (!p)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    p->op = ops;
    *varPack = p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyFusedOpsVariantParamPack)(cudnnFusedOpsVariantParamPack_t varPack)
{
    if (!varPack)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(varPack, HD_TAG_FUSED_VARIANT);
    hd_object_free(varPack);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_variant_label(const char *fn, const var_pack *p, cudnnFusedOpsVariantParamLabel_t label)
{
    int l = (int)label;
    int known = (l >= 0 && l < HD_FUSED_VARIANT_PTRS) ||
                (l >= CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES && l <= CUDNN_SCALAR_DOUBLE_BN_EPSILON);
    if (!known)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "paramLabel %d is not a cudnnFusedOpsVariantParamLabel_t", l);
    if (!hd_fused_op_takes_variant((int)p->op, l))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s does not take %s", hd_enum_name_cudnnFusedOps_t((int)p->op),
                       hd_enum_name_cudnnFusedOpsVariantParamLabel_t(l));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetFusedOpsVariantParamPackAttribute)(cudnnFusedOpsVariantParamPack_t varPack,
                                                                 cudnnFusedOpsVariantParamLabel_t paramLabel, void *ptr)
{
    HD_CHECK_DESC(varPack, HD_TAG_FUSED_VARIANT);
    cudnnStatus_t st = check_variant_label("cudnnSetFusedOpsVariantParamPackAttribute", varPack, paramLabel);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int l = (int)paramLabel;
    if (l < HD_FUSED_VARIANT_PTRS) {
        varPack->ptr[l] = ptr;
        return CUDNN_STATUS_SUCCESS;
    }
    if (!ptr)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "%s needs a pointer to a host value, not NULL",
                       hd_enum_name_cudnnFusedOpsVariantParamLabel_t(l));
    switch (l) {
    case CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES: memcpy(&varPack->workspace_bytes, ptr, sizeof(size_t)); break;
    case CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT: memcpy(&varPack->bn_accumulation_count, ptr, sizeof(int64_t)); break;
    case CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR: memcpy(&varPack->bn_exp_avg_factor, ptr, sizeof(double)); break;
    default: memcpy(&varPack->bn_epsilon, ptr, sizeof(double)); break;
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetFusedOpsVariantParamPackAttribute)(const cudnnFusedOpsVariantParamPack_t varPack,
                                                                 cudnnFusedOpsVariantParamLabel_t paramLabel, void *ptr)
{
    HD_CHECK_DESC(varPack, HD_TAG_FUSED_VARIANT);
    cudnnStatus_t st = check_variant_label("cudnnGetFusedOpsVariantParamPackAttribute", varPack, paramLabel);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    HD_CHECK_PTR(ptr);
    int l = (int)paramLabel;
    if (l < HD_FUSED_VARIANT_PTRS) {
        memcpy(ptr, &varPack->ptr[l], sizeof(void *));
        return CUDNN_STATUS_SUCCESS;
    }
    switch (l) {
    case CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES: memcpy(ptr, &varPack->workspace_bytes, sizeof(size_t)); break;
    case CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT: memcpy(ptr, &varPack->bn_accumulation_count, sizeof(int64_t)); break;
    case CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR: memcpy(ptr, &varPack->bn_exp_avg_factor, sizeof(double)); break;
    default: memcpy(ptr, &varPack->bn_epsilon, sizeof(double)); break;
    }
    return CUDNN_STATUS_SUCCESS;
}
