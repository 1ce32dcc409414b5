/*
 * rnn/rnn_plan.h -- where everything lives: the weight space, the reserve space and the work
 * space of one RNN problem.  The size queries of adv_infer and the kernels read the same
 * functions, so a size reported to the caller and the layout a kernel uses cannot disagree.
 *
 * Weight space (see docs/rnn.md): pseudo-layers in order (layer * dirs + dir); inside one,
 * first every matrix in linLayerID order, then every bias vector in linLayerID order.
 * A matrix of linLayerID i < G (G = gates) multiplies the layer input ("W"), G <= i < 2G
 * multiplies the recurrent state ("R"), and for LSTM with projSize < hiddenSize id 2G is
 * the projection matrix.  Matrices are row-major [rows = hiddenSize][cols = input width].
 */
#ifndef HD_RNN_PLAN_H
#define HD_RNN_PLAN_H

#include <stddef.h>
#include <string.h>

#include "rnn/rnn_problem.h"

/* Where one linLayerID of one pseudo-layer lives, in elements from the weight-space start.
 * Absent pieces have rows == 0 (and offset (size_t)-1). */
typedef struct {
    size_t m_off; int m_rows, m_cols;
    size_t b_off; int b_rows;
} hd_rnn_piece;

/* Elements of one pseudo-layer of LAYER. */
size_t hd_rnn_pl_elems(const struct cudnnRNNStruct *r, int input_size, int layer);

/* Total elements of the weight space; callers check sizes with hd_rnn_size_estimate first. */
size_t hd_rnn_weight_elems(const struct cudnnRNNStruct *r, int input_size);

/* Bytes of the weight space of a complete view R (elements of R's data type). */
size_t hd_rnn_weight_bytes(const struct cudnnRNNStruct *r);

/* Locate linLayerID ID of pseudo-layer PL (0 <= id < 2G, or 2G for a projection). */
hd_rnn_piece hd_rnn_locate(const struct cudnnRNNStruct *r, int input_size, int pl, int id);

/* ---- reserve space (training forward -> backward data -> backward weights) ----
 * In elements of the compute type.  Per pseudo-layer, for every (time, batch) slot of the
 * padded T x B grid (padding slots hold zeros):
 *   gates  [T][B][G*H]  post-activation gate values (LSTM i,f,g,o; GRU r,z,n)
 *   cell   [T][B][H]    LSTM: c_t (after clipping); GRU: R_n h + b_Rn (needed by dr)
 *   hid    [T][B][H]    h_t before the projection
 *   dpx    [T][B][G*H]  backward data: gradient w.r.t. W x + b_W
 *   dph    [T][B][G*H]  backward data: gradient w.r.t. R h + b_R
 *   dproj  [T][B][P]    backward data: gradient w.r.t. the projected state (LSTM + projection)
 * then, per layer, that layer's output [T][B][dirs*P] (the next layer's input);
 * then, in training with numLayers > 1 and a dropout descriptor, the inter-layer dropout of
 * every layer l < numLayers - 1 (cuDNN drops the output of each layer but the last):
 *   drop_mask[l] [T][B][dirs*P]  0 (dropped) or 1/(1-p) (kept): backward data multiplies the
 *                                gradient reaching layer l's output by it
 *   drop_in[l]   [T][B][dirs*P]  layer l's output times drop_mask[l]: the input layer l+1 and
 *                                backward weights multiply with (out[l] stays undropped: it is
 *                                also the recurrent state)
 *   drop_flag    one element: 1 when the forward pass applied dropout (probability > 0), so the
 *                backward passes follow what the forward pass did, 0 otherwise. */
typedef struct {
    size_t pl_stride;                        /* elements per pseudo-layer block */
    size_t gates, cell, hid, dpx, dph, dproj; /* offsets inside a pseudo-layer block */
    size_t out_base;                         /* start of the per-layer outputs */
    size_t out_stride;                       /* elements per layer output */
    int has_drop;                            /* the dropout areas below exist */
    size_t drop_mask, drop_in, drop_stride;  /* drop_mask + l * drop_stride, drop_in likewise */
    size_t drop_flag;
    size_t total;
} hd_rnn_reserve;

/* GRADS == 0 (inference) leaves out dpx/dph/dproj and the dropout areas: the inference forward
 * pass keeps its scratch copy of this layout in the work space and never needs them. */
hd_rnn_reserve hd_rnn_reserve_layout_ex(const struct cudnnRNNStruct *r, int T, int B, int grads);
hd_rnn_reserve hd_rnn_reserve_layout(const struct cudnnRNNStruct *r, int T, int B);

/* Zero the padding slots (t >= len[b]) of a [T][B][WIDTH] area of ES-byte elements.  The
 * passes write every valid slot of the areas they produce, so only padding needs clearing
 * (the products over all T x B rows then see zeros there), not the whole area. */
static inline void hd_rnn_zero_padding(void *base, size_t es, size_t width, int T, int B, const int *len)
{
    for (int b = 0; b < B; b++)
        for (int t = len[b] > 0 ? len[b] : 0; t < T; t++)
            memset((char *)base + ((size_t)t * (size_t)B + (size_t)b) * width * es, 0, width * es);
}

/* Every sequence runs all T steps. */
static inline int hd_rnn_all_full(const int *len, int T, int B)
{
    for (int b = 0; b < B; b++)
        if (len[b] != T)
            return 0;
    return 1;
}

/* The user's sequence data of LAYOUT already is the padded T x B grid the passes work on (row
 * t * B + b, no padding rows): every sequence of full length, sequence-major (packed is then
 * the same), so it can be read or written in place. */
static inline int hd_rnn_is_grid(cudnnRNNDataLayout_t layout, const int *len, int T, int B)
{
    return layout != CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED && hd_rnn_all_full(len, T, B);
}

/* ---- work space, in elements of the compute type ----
 * Forward:  [reserve-shaped scratch (inference only)] xin[T*B*IN] pre[T*B*G*H] rec[B*G*H]
 *           hprev[B*P] cprev[B*H] hnew[B*H] hproj[B*P]
 * Backward: din[T*B*W] dout[T*B*W] (W = max(IN, dirs*P)) hseq[T*B*P] dh[B*P] dc[B*H]
 *           dhn[B*H] drec[B*G*H] tmp[B*H]
 * One size covers both, as cuDNN's single workspace query does. */
typedef struct {
    size_t xin, pre, rec, hprev, cprev, hnew, hproj, fwd_end;
    size_t dir_stride;    /* direction d of the forward pass uses pre .. hproj + d * dir_stride */
    size_t din, dout, hseq, dh, dc, dhn, drec, tmp, bwd_end;
    size_t bwd_dir_stride;    /* direction d of backward data uses dh .. tmp + d * bwd_dir_stride */
    size_t total;
} hd_rnn_work;

hd_rnn_work hd_rnn_work_layout(const struct cudnnRNNStruct *r, int input_size, int T, int B, int inference);

/* ---- buffer sizes of one call on T x B data of a complete view R ----
 * What the size queries report and what the compute calls require, from the layouts above:
 * the weight space (in the data type), the work space (for inference with the activations'
 * scratch) and the reserve space (0 for inference), in bytes. */
typedef struct {
    size_t weight, work, reserve;
} hd_rnn_bytes;

hd_rnn_bytes hd_rnn_plan_bytes(const struct cudnnRNNStruct *r, int T, int B, int inference);

#endif /* HD_RNN_PLAN_H */
