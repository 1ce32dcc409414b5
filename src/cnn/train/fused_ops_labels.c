/*
 * The label tables of the fused ops: what each constant label holds, and which constant
 * and variant labels each op takes.  The op tables were read off cuDNN 9's answers
 * (every label tried on every op); cuDNN 8.1 documents the same sets.
 */
#include "core/api.h"
#include "cnn/train/fused_ops.h"

/* Each list ends with -1.  Variant scalar labels keep their enum values (100..103). */
static const int const_labels[HD_FUSED_NUM_OPS][HD_FUSED_CONST_LABELS + 1] = {
    /* SCALE_BIAS_ACTIVATION_CONV_BNSTATS */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 18, -1},
    /* SCALE_BIAS_ACTIVATION_WGRAD */
    {0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 14, 15, -1},
    /* BN_FINALIZE_STATISTICS_TRAINING */
    {2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1},
    /* BN_FINALIZE_STATISTICS_INFERENCE */
    {2, 3, 4, 5, 19, 20, 21, 24, 25, -1},
    /* CONV_SCALE_BIAS_ADD_ACTIVATION */
    {0, 1, 3, 4, 6, 7, 8, 9, 12, 13, 26, 27, 28, 29, 30, -1},
    /* SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK */
    {0, 1, 2, 3, 4, 5, 6, 12, 13, 26, 27, 28, 29, 30, 31, 32, -1},
    /* DACTIVATION_FORK_DBATCHNORM */
    {0, 1, 2, 6, 14, 15, 19, 20, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 38, -1},
};

static const int variant_labels[HD_FUSED_NUM_OPS][HD_FUSED_VARIANT_PTRS + HD_FUSED_VARIANT_SCALARS + 1] = {
    {0, 1, 2, 3, 5, 7, 8, 9, 100, -1},
    {0, 1, 2, 4, 6, 9, 100, -1},
    {1, 2, 7, 8, 9, 10, 11, 12, 13, 14, 15, 100, 101, 102, 103, -1},
    {1, 2, 9, 10, 11, 14, 15, 100, 103, -1},
    {0, 1, 3, 5, 9, 16, 17, 18, 100, -1},
    {0, 1, 2, 5, 9, 16, 17, 18, 19, 100, -1},
    {0, 6, 9, 10, 11, 12, 13, 19, 20, 21, 22, 23, 100, 103, -1},
};

int hd_fused_op_valid(int op) { return op >= 0 && op < HD_FUSED_NUM_OPS; }

static int in_list(const int *list, int label)
{
    for (; *list >= 0; list++)
        if (*list == label)
            return 1;
    return 0;
}

int hd_fused_op_takes_const(int op, int label)
{
    return hd_fused_op_valid(op) && label >= 0 && label < HD_FUSED_CONST_LABELS && in_list(const_labels[op], label);
}

int hd_fused_op_takes_variant(int op, int label)
{
    return hd_fused_op_valid(op) && label >= 0 && in_list(variant_labels[op], label);
}

hd_fused_kind hd_fused_const_kind(int label)
{
    switch (label) {
    case CUDNN_PARAM_BN_MODE: return HD_FUSED_BN_MODE;
    case CUDNN_PARAM_ACTIVATION_DESC: return HD_FUSED_ACTIVATION;
    case CUDNN_PARAM_CONV_DESC: return HD_FUSED_CONV;
    case CUDNN_PARAM_WDESC: case CUDNN_PARAM_DWDESC: return HD_FUSED_FILTER;
    case CUDNN_PARAM_XDESC: case CUDNN_PARAM_BN_EQSCALEBIAS_DESC: case CUDNN_PARAM_YDESC: case CUDNN_PARAM_DYDESC:
    case CUDNN_PARAM_YSTATS_DESC: case CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC: case CUDNN_PARAM_ZDESC:
    case CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC: case CUDNN_PARAM_ACTIVATION_BITMASK_DESC: case CUDNN_PARAM_DXDESC:
    case CUDNN_PARAM_DZDESC:
        return HD_FUSED_TENSOR;
    default:
        return HD_FUSED_PLACEHOLDER;
    }
}

const char *hd_fused_const_label_name(int label) { return hd_enum_name_cudnnFusedOpsConstParamLabel_t(label); }
