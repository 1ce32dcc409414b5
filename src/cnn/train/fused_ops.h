/*
 * cnn/train/fused_ops.h -- fused-ops parameter packs and plans (see docs/fused-ops.md).
 *
 * Which labels each fused op takes is the table in fused_ops_labels.c (the same table
 * cuDNN 9 enforces: a label that does not belong to the pack's op is BAD_PARAM).
 */
#ifndef HD_CNN_FUSED_OPS_H
#define HD_CNN_FUSED_OPS_H

#include "core/desc.h"

#define HD_FUSED_NUM_OPS 7
#define HD_FUSED_CONST_LABELS 39        /* CUDNN_PARAM_XDESC .. CUDNN_PARAM_BN_DBIAS_PLACEHOLDER */
#define HD_FUSED_VARIANT_PTRS 24        /* CUDNN_PTR_XDATA .. CUDNN_PTR_BN_DBIAS */
#define HD_FUSED_VARIANT_SCALARS 4      /* CUDNN_SCALAR_* (100 .. 103) */

/* What a constant-pack label holds. */
typedef enum {
    HD_FUSED_TENSOR,        /* cudnnTensorDescriptor_t, copied by value */
    HD_FUSED_FILTER,        /* cudnnFilterDescriptor_t, copied by value */
    HD_FUSED_CONV,          /* cudnnConvolutionDescriptor_t, copied by value */
    HD_FUSED_ACTIVATION,    /* cudnnActivationDescriptor_t, copied through the public API */
    HD_FUSED_BN_MODE,       /* cudnnBatchNormMode_t value */
    HD_FUSED_PLACEHOLDER,   /* cudnnFusedOpsPointerPlaceHolder_t value */
} hd_fused_kind;

hd_fused_kind hd_fused_const_kind(int label);
const char *hd_fused_const_label_name(int label);
int hd_fused_op_valid(int op);
/* Does OP take this constant / variant label?  (Variant labels as in the enum: 0..23, 100..103.) */
int hd_fused_op_takes_const(int op, int label);
int hd_fused_op_takes_variant(int op, int label);

typedef struct {
    int present;                         /* 0: NULL / never set (isNULL) */
    union {
        struct cudnnTensorStruct tensor;
        struct cudnnFilterStruct filter;
        struct cudnnConvolutionStruct conv;
        struct {
            cudnnActivationMode_t mode;
            cudnnNanPropagation_t nan_opt;
            double coef;
        } act;
        int value;                       /* BN mode or placeholder */
    } u;
} hd_fused_const_slot;

struct cudnnFusedOpsConstParamStruct {
    hd_object obj;
    cudnnFusedOps_t op;
    hd_fused_const_slot slot[HD_FUSED_CONST_LABELS];
};

struct cudnnFusedOpsVariantParamStruct {
    hd_object obj;
    cudnnFusedOps_t op;
    void *ptr[HD_FUSED_VARIANT_PTRS];
    size_t workspace_bytes;              /* CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES */
    int64_t bn_accumulation_count;       /* CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT */
    double bn_exp_avg_factor;            /* CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR */
    double bn_epsilon;                   /* CUDNN_SCALAR_DOUBLE_BN_EPSILON */
};

struct cudnnFusedOpsPlanStruct {
    hd_object obj;
    cudnnFusedOps_t op;
};

#endif
