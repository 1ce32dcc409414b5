/*
 * rnn/rnn_engine.h -- the RNN engine: forward, backward data and backward weights of one
 * problem (rnn_problem.h) with the buffers laid out as rnn_plan.h says.
 *
 * The kernels (rnn_fwd.inc, rnn_bwd.inc) are compiled once per compute type (f32, f64).
 * hd_rnn_forward and friends pick the kernel by the descriptor's data type and run HALF data
 * in float on converted copies.  The API layer validates every argument and buffer size
 * first; the engine only computes (and fails only when out of host memory).
 */
#ifndef HD_RNN_ENGINE_H
#define HD_RNN_ENGINE_H

#include "rnn/rnn_plan.h"
#include "rnn/rnn_problem.h"

typedef struct {
    int nthreads;
    const struct cudnnRNNStruct *r;       /* input_size and dtype filled in */
    const struct cudnnRNNDataStruct *xd;  /* x / dx layout */
    const struct cudnnRNNDataStruct *yd;  /* y / dy layout */
    const void *x;
    void *y;
    const void *hx, *cx;                  /* may be NULL (zeros) */
    void *hy, *cy;                        /* may be NULL (not written) */
    const void *w;
    void *work;
    void *reserve;                        /* NULL: inference (scratch lives in work) */
    float dropout;                        /* inter-layer drop probability (training only) */
    void *dropout_states;                 /* the dropout states buffer (struct hd_dropout_state,
                                             checked by the caller); NULL or dropout 0: none */
} hd_rnn_fwd_args;

typedef struct {
    int nthreads;
    const struct cudnnRNNStruct *r;
    const struct cudnnRNNDataStruct *xd, *yd;
    const void *dy;
    void *dx;
    const void *hx, *cx;
    const void *dhy, *dcy;                /* may be NULL (zeros) */
    void *dhx, *dcx;                      /* may be NULL */
    const void *w;
    void *work;
    void *reserve;
} hd_rnn_bwd_data_args;

typedef struct {
    int nthreads;
    const struct cudnnRNNStruct *r;
    const struct cudnnRNNDataStruct *xd;
    const void *x;
    const void *hx;
    void *dw;                             /* accumulated into */
    void *work;
    const void *reserve;
} hd_rnn_bwd_w_args;

/* By data type; FN names the API call for the log.  R must be a complete view of type
 * FLOAT, DOUBLE or HALF, the buffers as large as hd_rnn_plan_bytes says (for HALF the work
 * and reserve spaces hold floats). */
cudnnStatus_t hd_rnn_forward(const char *fn, const hd_rnn_fwd_args *a);
cudnnStatus_t hd_rnn_backward_data(const char *fn, const hd_rnn_bwd_data_args *a);
cudnnStatus_t hd_rnn_backward_weights(const char *fn, const hd_rnn_bwd_w_args *a);

/* The kernels of one compute type: R's dtype is FLOAT (f32) or DOUBLE (f64). */
cudnnStatus_t hd_rnn_forward_f32(const hd_rnn_fwd_args *a);
cudnnStatus_t hd_rnn_forward_f64(const hd_rnn_fwd_args *a);
cudnnStatus_t hd_rnn_backward_data_f32(const hd_rnn_bwd_data_args *a);
cudnnStatus_t hd_rnn_backward_data_f64(const hd_rnn_bwd_data_args *a);
cudnnStatus_t hd_rnn_backward_weights_f32(const hd_rnn_bwd_w_args *a);
cudnnStatus_t hd_rnn_backward_weights_f64(const hd_rnn_bwd_w_args *a);

#endif /* HD_RNN_ENGINE_H */
