/*
 * kernels/rnn/rnn-ukernels.h -- float32 RNN cell micro-kernels: the element-wise part of one
 * time step for one batch row of H hidden units, after the matrix products.
 *
 * Inputs are the two pre-activation halves the RNN engine keeps apart (px = W x + b_W for
 * every gate, pq = R h + b_R), gates in cuDNN's order.  Outputs as the reserve space stores
 * them (rnn/rnn_plan.h): the post-activation gates, the cell value (LSTM: c_t; GRU:
 * R_n h + b_Rn) and h_t.  No clipping: the engine keeps its generic loop for clipped cells.
 *
 * Accuracy: the scalar table calls expf/tanhf (the reference).  The AVX2 table evaluates
 * exp(x) as 2^n * p(r), r = x - n ln 2 (|r| <= ln2/2, ln 2 split in two parts), p the Taylor
 * polynomial of degree 7 (truncation below 5e-9 relative), arguments clamped to [-87.3, 88.3]
 * and NaN passed through: within 2 ulp of exp; sigmoid(x) = 1 / (1 + exp(-x)) within 3 ulp;
 * tanh(x) = sign(x) (1 - 2 / (exp(2|x|) + 1)), absolute error below 3e-7 (relative error
 * grows only where tanh is within 3e-7 of 0).  tests/unit/test_kernel_rnn_cell.c checks these
 * bounds against double references and the AVX2 rows against the scalar ones.
 * Every element of a row gets the same arithmetic (the tail uses masked loads), so results
 * do not depend on H's remainder or on where a row starts; the tables are chosen by ISA, so
 * results are the same for any thread count.
 */
#ifndef HD_KERNELS_RNN_RNN_UKERNELS_H
#define HD_KERNELS_RNN_RNN_UKERNELS_H

#include <stddef.h>

/* The forward rows take N units whose gates lie LD elements apart in px, pq and gates (LD = H
 * for a whole row; a slice of units j0 .. j0+N-1 of a row passes px + j0, ..., N and LD = H,
 * with the same bits as the whole row gives there).
 * BX and BQ, laid out as px and pq (gate g's units LD apart) or NULL, are biases the rows add
 * first: px + bx and pq + bq, each rounded to float, are what the formulas below call px and
 * pq -- the bits of adding them in a pass of their own before the row, without the pass (and
 * without a NULL bias's + 0, which would turn a -0 into +0).
 * LSTM: i, f, o = sigmoid, g = tanh of px + pq (gates i f g o);
 * c = f * cprev + i * g; h = o * tanh(c).  Writes gates[g*LD + j] (j < N), c[N], h[N].
 * C may be CPREV (the update in place): each unit reads its cprev before writing its c. */
typedef void (*hd_f32_lstm_fwd_fn)(size_t N, size_t LD, const float *px, const float *bx, const float *pq,
                                   const float *bq, const float *cprev, float *gates, float *c, float *h);
/* GRU: r, z = sigmoid(px + pq); n = tanh(px_n + r * pq_n); h = (1 - z) * n + z * hprev.
 * Writes gates[g*LD + j] (r z n), qn[N] = pq_n, h[N]. */
typedef void (*hd_f32_gru_fwd_fn)(size_t N, size_t LD, const float *px, const float *bx, const float *pq,
                                  const float *bq, const float *hprev, float *gates, float *qn, float *h);
/* y = tanh(x), n elements (the LSTM backward pass's tanh(c) when clipped). */
typedef void (*hd_f32_tanh_fn)(size_t n, const float *x, float *y);
/* The backward rows take N units too, their gates LD apart in gates, gx and gh (as above).
 * LSTM backward (no clipping), from the forward pass's gates (i f g o), c_t and c_{t-1}
 * (CPREV NULL: zeros), the gradient dh reaching h_t and dc reaching c_t (updated in place to
 * the gradient reaching c_{t-1}): dcc = dc + dh o (1 - tanh(c)^2), then the gradients of the
 * four pre-activations into gx and, the same values, gh. */
typedef void (*hd_f32_lstm_bwd_fn)(size_t N, size_t LD, const float *gates, const float *c, const float *cprev,
                                   const float *dh, float *dc, float *gx, float *gh);
/* GRU backward, from gates (r z n), qn = R_n h + b_Rn, h_{t-1} (HPREV NULL: zeros) and dh:
 * gx (input side), gh (recurrent side: the n gate's times r) and dz[N] = dh z, the direct
 * path from h_{t-1} to h_t. */
typedef void (*hd_f32_gru_bwd_fn)(size_t N, size_t LD, const float *gates, const float *qn, const float *hprev,
                                  const float *dh, float *gx, float *gh, float *dz);

/* acc[j] += x[r*LD + j] for r = 0 .. ROWS-1 in that order, j < N: each column's sum takes the
 * rows one by one, so vector rows give the bits of a scalar loop (the bias gradients: column
 * sums of the pre-activation gradients over every time step and batch row). */
typedef void (*hd_f32_colsum_fn)(size_t rows, size_t n, const float *x, size_t ld, float *acc);
/* y[i] = a[i] + b[i], i < N; B NULL: y[i] = a[i] + 0.0f (the add still done: -0 becomes +0, as
 * a scalar a + 0 does).  Y may be A or B. */
typedef void (*hd_f32_add_fn)(size_t n, const float *a, const float *b, float *y);

typedef struct {
    const char *lstm_name;      /* <dtype>-<op>-<tile>-<isa>, e.g. "f32-lstm-8-avx2" */
    const char *gru_name;
    hd_f32_lstm_fwd_fn lstm_fwd;
    hd_f32_gru_fwd_fn gru_fwd;
    hd_f32_tanh_fn tanh;
    hd_f32_lstm_bwd_fn lstm_bwd;
    hd_f32_gru_bwd_fn gru_bwd;
    hd_f32_colsum_fn colsum;
    hd_f32_add_fn add;
} hd_rnn_cell_table;

extern const hd_rnn_cell_table hd_f32_rnn_cell_ukernels__scalar;
extern const hd_rnn_cell_table hd_f32_rnn_cell_ukernels__avx2;
extern const hd_rnn_cell_table hd_f32_rnn_cell_ukernels__avx512;   /* the AVX2 rows' bits, 16 lanes */

/* The table for ISA (an hd_isa_t), never above what the CPU allows (HOSTDNN_MAX_ISA). */
const hd_rnn_cell_table *hd_rnn_cell_kernels(int isa);

#endif
