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

/* ---- weight buffer layout (see docs/rnn.md, "Multi-head attention") ----
 * Q, K, V, O matrices per head, row-major [nHeads][rows][cols], then the biases (only with
 * CUDNN_ATTN_ENABLE_PROJ_BIASES): Q, K, V per head [nHeads][rows], O once [oSize].
 * A projection size of 0 means "no projection": that matrix and its bias do not exist. */
typedef struct {
    int dq, dk, dv, dout;       /* widths after the Q/K/V projections, and of the output */
    size_t off[CUDNN_ATTN_WKIND_COUNT];
    int rows[CUDNN_ATTN_WKIND_COUNT], cols[CUDNN_ATTN_WKIND_COUNT], heads[CUDNN_ATTN_WKIND_COUNT];
    size_t total;               /* elements */
} hd_attn_layout;

static inline hd_attn_layout hd_attn_layout_of(const struct cudnnAttnStruct *a)
{
    hd_attn_layout L;
    int H = a->n_heads, bias = (a->mode & CUDNN_ATTN_ENABLE_PROJ_BIASES) != 0;
    L.dq = a->q_proj ? a->q_proj : a->q_size;
    L.dk = a->k_proj ? a->k_proj : a->k_size;
    L.dv = a->v_proj ? a->v_proj : a->v_size;
    L.dout = a->o_proj ? a->o_proj : H * L.dv;
    int proj[4] = { a->q_proj, a->k_proj, a->v_proj, a->o_proj };
    int in[4] = { a->q_size, a->k_size, a->v_size, L.dv };
    size_t n = 0;
    for (int k = 0; k < 4; k++) {
        L.rows[k] = proj[k]; L.cols[k] = proj[k] ? in[k] : 0; L.heads[k] = proj[k] ? H : 0;
        L.off[k] = n;
        n += (size_t)L.heads[k] * (size_t)L.rows[k] * (size_t)L.cols[k];
    }
    for (int k = 0; k < 4; k++) {
        int has = bias && proj[k];
        L.rows[4 + k] = has ? proj[k] : 0; L.cols[4 + k] = has ? 1 : 0;
        L.heads[4 + k] = has ? (k == 3 ? 1 : H) : 0;
        L.off[4 + k] = n;
        n += (size_t)L.heads[4 + k] * (size_t)L.rows[4 + k];
    }
    L.total = n;
    return L;
}

#endif
