/*
 * attn/attn_engine.h -- the multi-head attention engine: forward, backward data and backward
 * weights of one attention problem (attn_problem.h).
 *
 *   out = sum_i W_O,i h_i + b_O  (or the concatenated h_i without an output projection)
 *   h_i = sum_j softmax_j(smScaler * <W_Q,i q + b_Q,i, W_K,i k_j + b_K,i>) (W_V,i v_j + b_V,i)
 *
 * over the keys j of the window [lo[t], hi[t]) cut to the key sequence's length.  Every
 * product is a GEMM on the packed micro-kernels (kernels/gemm): per group of sequences
 * sharing keys, the projections of all heads at once, then per head the scores and the
 * weighted values; the softmax and the dropout masks run on the score rows in between.
 * Computed in double for DOUBLE data and in float for FLOAT and HALF (HALF is converted
 * once on the way in and out).  In training (a reserve space), the probabilities and the
 * output are dropped out as the attention descriptor's dropout descriptors say
 * (attn_dropout.h).  Results are bitwise identical for any thread count.  The API layer
 * validates every descriptor, pointer and buffer size first; the engine only computes.
 */
#ifndef HD_ATTN_ENGINE_H
#define HD_ATTN_ENGINE_H

#include "attn/attn_problem.h"

typedef struct {
    const struct cudnnAttnStruct *a;
    int curr_idx;                         /* < 0: every query step; else only that one */
    const int *lo, *hi;                   /* attention windows per query step */
    const struct cudnnSeqDataStruct *qd, *kd, *vd, *od;
    const void *q, *residuals, *k, *v, *w; /* residuals may be NULL */
    void *out;
    void *work;                           /* hd_attn_work_bytes for kd's time steps */
    void *reserve;                        /* NULL (inference), or gets the windows */
    int nthreads;
} hd_attn_fwd_args;

typedef struct {
    const struct cudnnAttnStruct *a;
    const int *lo, *hi;                   /* backward data: the caller's windows (saved to
                                           * reserve); backward weights: ignored, the reserve's */
    const struct cudnnSeqDataStruct *qd, *kd, *vd, *od;   /* od: dout */
    const void *q, *k, *v, *dout, *w;
    void *dq, *dk, *dv;                   /* backward data outputs */
    void *dw;                             /* backward weights: added into, in the data type */
    void *reserve;
    void *work;                           /* hd_attn_work_bytes for the call's time steps */
    int nthreads;
} hd_attn_bwd_args;

cudnnStatus_t hd_attn_forward(const hd_attn_fwd_args *args);
cudnnStatus_t hd_attn_forward_f32(const hd_attn_fwd_args *args);   /* FLOAT, HALF */
cudnnStatus_t hd_attn_forward_f64(const hd_attn_fwd_args *args);   /* DOUBLE */

/* The residual connection is not part of dq (backward data does not know whether the
 * forward pass used one).  FN names the API call for the log. */
cudnnStatus_t hd_attn_backward_data(const char *fn, const hd_attn_bwd_args *args);
cudnnStatus_t hd_attn_backward_weights(const char *fn, const hd_attn_bwd_args *args);

/* Both backward passes in one kernel: WANT_DATA writes dq/dk/dv, WANT_WEIGHTS adds into dw. */
cudnnStatus_t hd_attn_backward_f32(const hd_attn_bwd_args *args, int want_data, int want_weights);
cudnnStatus_t hd_attn_backward_f64(const hd_attn_bwd_args *args, int want_data, int want_weights);

/* Record the windows of QT query steps in the reserve space (zeros beyond QT). */
void hd_attn_save_windows(const struct cudnnAttnStruct *a, int qt, const int *lo, const int *hi, void *reserve);

#endif /* HD_ATTN_ENGINE_H */
