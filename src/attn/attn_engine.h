/*
 * attn/attn_engine.h -- the multi-head attention engine: forward, backward data and backward
 * weights of one attention problem (attn_problem.h).
 *
 *   out = sum_i W_O,i h_i + b_O  (or the concatenated h_i without an output projection)
 *   h_i = sum_j softmax_j(smScaler * <W_Q,i q + b_Q,i, W_K,i k_j + b_K,i>) (W_V,i v_j + b_V,i)
 *
 * over the keys j of the window [lo[t], hi[t]) cut to the key sequence's length.  Computed in
 * double whatever the data type; results are converted once on the way out.  The API layer
 * validates every descriptor, pointer and buffer size first; the engine only computes (and
 * fails only when out of host memory).
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
} hd_attn_bwd_args;

cudnnStatus_t hd_attn_forward(const hd_attn_fwd_args *args);

/* The residual connection is not part of dq (backward data does not know whether the
 * forward pass used one).  FN names the API call for the log. */
cudnnStatus_t hd_attn_backward_data(const char *fn, const hd_attn_bwd_args *args);
cudnnStatus_t hd_attn_backward_weights(const char *fn, const hd_attn_bwd_args *args);

/* Record the windows of QT query steps in the reserve space (zeros beyond QT). */
void hd_attn_save_windows(const struct cudnnAttnStruct *a, int qt, const int *lo, const int *hi, void *reserve);

#endif /* HD_ATTN_ENGINE_H */
