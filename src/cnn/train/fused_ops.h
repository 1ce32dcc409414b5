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

/* What cudnnMakeFusedOpsPlan worked out, and what cudnnFusedOpsExecute needs. */
typedef struct {
    size_t workspace;                    /* total bytes Execute uses (what Make reported) */
    /* ops 0 and 1 (scale/bias/activation + convolution) */
    size_t xt_offset, xt_bytes;          /* transformed x in the workspace; 0 bytes: x used as is */
    size_t conv_offset, conv_bytes;      /* the convolution's own workspace */
    int algo;                            /* forward (op 0) or backward-filter (op 1) algorithm */
    int scale, bias, relu;               /* which parts of the x transform are on */
    int stats;                           /* op 0: bit 0 ySum, bit 1 ySqSum */
    /* Descriptors built from the constant pack, owned by the plan (never passed to
     * hd_object_free): the convolution engine reads them as it reads a user's. */
    struct cudnnTensorStruct x, y;       /* op 1: y = dy */
    struct cudnnFilterStruct w;          /* op 1: w = dw */
    struct cudnnConvolutionStruct conv;
} hd_fused_made;

struct cudnnFusedOpsPlanStruct {
    hd_object obj;
    cudnnFusedOps_t op;
    int made;                            /* cudnnMakeFusedOpsPlan succeeded */
    hd_fused_const_slot slot[HD_FUSED_CONST_LABELS];   /* the constant pack as Make saw it */
    hd_fused_made m;
};

typedef struct cudnnFusedOpsConstParamStruct hd_fused_const_pack;
typedef struct cudnnFusedOpsVariantParamStruct hd_fused_var_pack;
typedef struct cudnnFusedOpsPlanStruct hd_fused_plan;

/* Per-op halves of Make and Execute (fused_ops_conv.c, fused_ops_bn_finalize.c).  Make
 * fills *m from the plan's slots (already copied from the constant pack); on failure the
 * caller releases whatever *m holds. */
cudnnStatus_t hd_fused_make_conv(hd_fused_plan *plan, hd_fused_made *m);
cudnnStatus_t hd_fused_exec_conv(cudnnHandle_t handle, const hd_fused_plan *plan, const hd_fused_var_pack *v);
cudnnStatus_t hd_fused_make_bn_finalize(hd_fused_plan *plan, hd_fused_made *m);
cudnnStatus_t hd_fused_exec_bn_finalize(const hd_fused_plan *plan, const hd_fused_var_pack *v);
void hd_fused_made_release(hd_fused_made *m);

/* Helpers shared by the ops (fused_ops_util.c). */
/* Placeholder of constant label L (CUDNN_PTR_NULL when never set). */
int hd_fused_placeholder(const hd_fused_plan *plan, int label);
/* The variant pointer for PTR_LABEL, checked against the placeholder of CONST_LABEL
 * (non-NULL and aligned as promised); *out = NULL when the placeholder is CUDNN_PTR_NULL. */
cudnnStatus_t hd_fused_var_ptr(const hd_fused_plan *plan, const hd_fused_var_pack *v, int const_label, int ptr_label,
                               size_t elem_size, void **out);
/* A per-channel descriptor: 1 x C x 1 ... 1.  Returns its C, or -1. */
int hd_fused_channels(const struct cudnnTensorStruct *t);
/* Load / store element I (an element offset) of an array of TYPE. */
double hd_fused_load(const void *p, cudnnDataType_t type, int64_t i);
void hd_fused_store(void *p, cudnnDataType_t type, int64_t i, double v);
int hd_fused_float_type(cudnnDataType_t type);   /* FLOAT, DOUBLE, HALF or BFLOAT16 */

#endif
