/*
 * Small helpers the fused ops share: placeholders against variant pointers, per-channel
 * descriptors, and element access for the floating-point storage types.
 */
#include "core/api.h"
#include "core/convert.h"
#include "cnn/train/fused_ops.h"

#include <stdint.h>

int hd_fused_placeholder(const hd_fused_plan *plan, int label)
{
    return plan->slot[label].present ? plan->slot[label].u.value : CUDNN_PTR_NULL;
}

cudnnStatus_t hd_fused_var_ptr(const hd_fused_plan *plan, const hd_fused_var_pack *v, int const_label, int ptr_label,
                               size_t elem_size, void **out)
{
    int ph = hd_fused_placeholder(plan, const_label);
    void *p = v->ptr[ptr_label];
    const char *name = hd_enum_name_cudnnFusedOpsVariantParamLabel_t(ptr_label);
    *out = NULL;
    if (ph == CUDNN_PTR_NULL)
        return CUDNN_STATUS_SUCCESS;     /* the plan does not use it; whatever is there is ignored */
    if (!p)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, "cudnnFusedOpsExecute", "%s is NULL but the plan's %s promised a pointer",
                       name, hd_fused_const_label_name(const_label));
    size_t align = ph == CUDNN_PTR_16B_ALIGNED ? 16 : elem_size;
    if (align > 1 && (uintptr_t)p % align != 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, "cudnnFusedOpsExecute", "%s (%p) is not %zu-byte aligned as %s promised",
                       name, p, align, hd_fused_const_label_name(const_label));
    *out = p;
    return CUDNN_STATUS_SUCCESS;
}

int hd_fused_channels(const struct cudnnTensorStruct *t)
{
    if (t->nbDims < 3 || t->dims[0] != 1 || t->vect_c != 1)
        return -1;
    for (int i = 2; i < t->nbDims; i++)
        if (t->dims[i] != 1)
            return -1;
    return t->dims[1];
}

int hd_fused_float_type(cudnnDataType_t type)
{
    return type == CUDNN_DATA_FLOAT || type == CUDNN_DATA_DOUBLE || type == CUDNN_DATA_HALF ||
           type == CUDNN_DATA_BFLOAT16;
}

double hd_fused_load(const void *p, cudnnDataType_t type, int64_t i)
{
    switch (type) {
    case CUDNN_DATA_DOUBLE: return ((const double *)p)[i];
    case CUDNN_DATA_HALF: return hd_f16_to_f32(((const uint16_t *)p)[i]);
    case CUDNN_DATA_BFLOAT16: return hd_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
    }
}

void hd_fused_store(void *p, cudnnDataType_t type, int64_t i, double v)
{
    switch (type) {
    case CUDNN_DATA_DOUBLE: ((double *)p)[i] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)p)[i] = hd_f32_to_f16((float)v); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)p)[i] = hd_f32_to_bf16((float)v); break;
    default: ((float *)p)[i] = (float)v; break;
    }
}
