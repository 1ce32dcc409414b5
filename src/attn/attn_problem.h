/*
 * attn/attn_problem.h -- the multi-head attention problem: the layouts of
 * cudnnSeqDataDescriptor_t and cudnnAttnDescriptor_t (set in adv_infer, read by the engine
 * and both adv libraries), and where the weights, the work space and the reserve space of
 * one attention descriptor live.
 */
#ifndef HD_ATTN_PROBLEM_H
#define HD_ATTN_PROBLEM_H

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

hd_attn_layout hd_attn_layout_of(const struct cudnnAttnStruct *a);

/* Strides (in elements) of each axis of packed sequence data, indexed by cudnnSeqDataAxis_t. */
void hd_attn_seq_strides(const struct cudnnSeqDataStruct *d, size_t s[CUDNN_SEQDATA_DIM_COUNT]);

/* ---- work space, in elements of the compute type (double for DOUBLE data, else float) ----
 * One layout serves the forward pass and both backward passes (cuDNN has one work-space
 * size for all three), for QT query and KT key time steps of one sequence group:
 *   wc    the weights converted to float (HALF data only)
 *   kin vin [KT][k|vSize]   the group's keys and values, packed
 *   kp vp   [KT][H*dk|dv]   their projections, every head side by side
 *   qin [QT][qSize], qp [QT][H*dq], s [QT][KT] (scores, then probabilities),
 *   pd [QT][KT] (probabilities after dropout), h [QT][H*dv] (heads), o [QT][out]
 *   backward: g [QT][out], dh [QT][H*dv], dp [QT][KT], dqp [QT][H*dq], dqin [QT][qSize],
 *   dkp [KT][H*dk], dvp [KT][H*dv], dkin [KT][kSize], dvin [KT][vSize], dw (weight-gradient
 *   accumulators, HALF data only) */
typedef struct {
    size_t wc, kin, vin, kp, vp, qin, qp, s, pd, h, o;
    size_t g, dh, dp, dqp, dqin, dkp, dvp, dkin, dvin, dw;
    size_t total;         /* elements */
    size_t real_size;     /* bytes per element */
} hd_attn_work;

hd_attn_work hd_attn_work_layout(const struct cudnnAttnStruct *a, const hd_attn_layout *L, int qo_len, int kv_len);

/* Work space of any pass, in bytes, for up to QO_LEN query and KV_LEN key time steps. */
size_t hd_attn_work_bytes(const struct cudnnAttnStruct *a, const hd_attn_layout *L, int qo_len, int kv_len);

/* Reserve space of a training forward call: the attention windows of the last forward /
 * backward-data call (the weight-gradient call does not receive them), as
 * int lo[qoMaxSeqLength], hi[qoMaxSeqLength], then (8-byte aligned) the record of the dropout
 * masks drawn (attn/attn_dropout.h). */
size_t hd_attn_reserve_bytes(const struct cudnnAttnStruct *a);
size_t hd_attn_reserve_drop_offset(const struct cudnnAttnStruct *a);

#endif /* HD_ATTN_PROBLEM_H */
