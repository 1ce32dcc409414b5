/*
 * attn/attn_problem.h -- the multi-head attention problem: the layouts of
 * cudnnSeqDataDescriptor_t and cudnnAttnDescriptor_t (set in adv_infer, read by the engine
 * and both adv libraries), and where the weights, the work space and the reserve space of
 * one attention descriptor live.
 */
#ifndef HD_ATTN_PROBLEM_H
#define HD_ATTN_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "core/api.h"
#include "core/object.h"
#include "attn/attn_dropout.h"

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
 * size for all three).  NQ rows are the query steps (batch x beam x time), NK the key steps:
 *   wc   the weights converted to float (HALF data only); wo  W_O regrouped as
 *        [out][heads * dv], so the output projection and its gradients are single GEMMs
 *   qin [NQ][qSize] kin vin [NK][k|vSize]   inputs, packed (padding rows zero)
 *   qp [NQ][H*dq] kp vp [NK][H*dk|dv]       their projections, every head side by side
 *   hc [NQ][H*dv]  the heads' outputs;  o [NQ][out]  the output
 *   backward: g [NQ][out], dh [NQ][H*dv], dqin, dkin, dvin (as qin, kin, vin), dwo
 *   [out][H*dv], dw (weight-gradient accumulators, HALF only); the gradients of the projected
 *   Q, K, V live in the reserve space (backward weights reuses them)
 *   slot: HD_SCRATCH_SLOTS areas of 3 x [QT][KT] (scores / probabilities, probabilities after
 *   dropout, their gradient), one per thread of the per-head stage */
typedef struct {
    size_t wc, wo, qin, kin, vin, qp, kp, vp, hc, o;
    size_t g, dh, dqin, dkin, dvin, dwo, dw;
    size_t slot, slot_stride;
    size_t total;         /* elements */
    size_t real_size;     /* bytes per element */
} hd_attn_work;

/* The layout for B batch entries, QB query beams and KB key beams of QT query rows and KT
 * key steps (QT is 1 for a single-step inference call). */
hd_attn_work hd_attn_work_layout(const struct cudnnAttnStruct *a, const hd_attn_layout *L, int B, int QB, int KB,
                                 int QT, int KT);

/* Work space in bytes of any pass for those sizes; cudnnGetMultiHeadAttnBuffers reports it
 * for the descriptor's maximum sizes. */
size_t hd_attn_work_bytes(const struct cudnnAttnStruct *a, const hd_attn_layout *L, int B, int QB, int KB, int QT,
                          int KT);
size_t hd_attn_work_bytes_max(const struct cudnnAttnStruct *a, const hd_attn_layout *L);

/* ---- reserve space (training) ----
 * A forward call with a reserve space keeps what the backward calls would otherwise
 * recompute, and backward data keeps the projections' gradients for backward weights (which
 * cuDNN calls after it); a record says what is there, for which sizes:
 *   win   int lo[qoMaxSeqLength], hi[qoMaxSeqLength]: the windows of the last forward /
 *         backward-data call (backward weights does not receive them)
 *   rec   hd_attn_rec
 *   qp kp vp hc   the forward's projections and heads' outputs (those that exist: qp only
 *                 with a Q projection, hc only with an output projection)
 *   dqp dkp dvp   backward data's gradients of the projected Q, K, V
 * in elements of the compute type, for the descriptor's maximum sizes. */
#define HD_ATTN_REC_MAGIC 0x68644152u   /* "hdAR" */
#define HD_ATTN_REC_FWD 1u              /* qp, kp, vp, hc hold a forward pass's values */
#define HD_ATTN_REC_DGRAD 2u            /* dqp, dkp, dvp hold backward data's values */

typedef struct {
    uint32_t magic;
    uint32_t flags;
    int32_t dims[5];                    /* B, QB, KB, QT, KT the cached values are for */
    int32_t pad_;
    hd_attn_drop attn, post;            /* the forward call's dropout draws */
} hd_attn_rec;

typedef struct {
    size_t win, rec, qp, kp, vp, hc, dqp, dkp, dvp;   /* byte offsets */
    size_t total;                                      /* bytes */
} hd_attn_reserve;

hd_attn_reserve hd_attn_reserve_layout(const struct cudnnAttnStruct *a, const hd_attn_layout *L);
size_t hd_attn_reserve_bytes(const struct cudnnAttnStruct *a);

#endif /* HD_ATTN_PROBLEM_H */
