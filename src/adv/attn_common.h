/*
 * adv/attn_common.h -- sequence-data and multi-head attention descriptors, shared by
 * libcudnn_adv_infer (descriptors, forward) and libcudnn_adv_train (backward).
 */
#ifndef HD_ADV_ATTN_COMMON_H
#define HD_ADV_ATTN_COMMON_H

#include <stddef.h>

#include "core/api.h"
#include "core/object.h"

struct cudnnSeqDataStruct {
    hd_object obj;
    int is_set;
    cudnnDataType_t dtype;
    int dims[CUDNN_SEQDATA_DIM_COUNT];           /* indexed by cudnnSeqDataAxis_t */
    cudnnSeqDataAxis_t axes[CUDNN_SEQDATA_DIM_COUNT]; /* outermost first */
    size_t nlens;                                /* batch * beam */
    int *seq_len;                                /* owned */
    int has_fill;
    double fill;
};

struct cudnnAttnStruct {
    hd_object obj;
    int is_set;
    unsigned mode;
    int n_heads;
    double sm_scaler;
    cudnnDataType_t dtype, comp_prec;
    cudnnMathType_t math_type;
    cudnnDropoutDescriptor_t attn_dropout, post_dropout;
    int q_size, k_size, v_size;
    int q_proj, k_proj, v_proj, o_proj;
    int qo_max_seq, kv_max_seq, max_batch, max_beam;
};

#endif
