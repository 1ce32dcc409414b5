/*
 * adv/rnn_exec.h -- the RNN compute kernels' interface.  rnn_fwd.inc / rnn_bwd.inc are
 * compiled once per compute type (f32, f64) by small .c files in each library that needs
 * them; entry points validate, these only compute.
 */
#ifndef HD_ADV_RNN_EXEC_H
#define HD_ADV_RNN_EXEC_H

#include "adv/rnn_common.h"

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

cudnnStatus_t hd_rnn_forward_f32(const hd_rnn_fwd_args *a);
cudnnStatus_t hd_rnn_forward_f64(const hd_rnn_fwd_args *a);
cudnnStatus_t hd_rnn_backward_data_f32(const hd_rnn_bwd_data_args *a);
cudnnStatus_t hd_rnn_backward_data_f64(const hd_rnn_bwd_data_args *a);
cudnnStatus_t hd_rnn_backward_weights_f32(const hd_rnn_bwd_w_args *a);
cudnnStatus_t hd_rnn_backward_weights_f64(const hd_rnn_bwd_w_args *a);

#endif
