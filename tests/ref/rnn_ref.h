/*
 * tests/ref/rnn_ref.h -- float64 reference for RNN forward, written from the cuDNN cell
 * equations with plain loops, one sequence and one step at a time (independent of src/).
 */
#ifndef HD_TEST_RNN_REF_H
#define HD_TEST_RNN_REF_H

enum { RREF_RELU = 0, RREF_TANH = 1, RREF_LSTM = 2, RREF_GRU = 3 };

typedef struct {
    int cell;           /* RREF_* (same values as cudnnRNNMode_t) */
    int dirs;           /* 1 or 2 */
    int layers;
    int in, hid, proj;  /* proj == hid: no projection */
    int skip_input;     /* layer 0 adds x to every gate instead of W x */
    int clip;           /* LSTM cell clipping to [lclip, rclip] */
    double lclip, rclip;
    /* Weights per pseudo-layer (layer*dirs + dir) and linLayerID, row-major; NULL = absent
     * (an absent bias is zero, an absent input matrix means skip input). */
    double *mat[16][9];
    double *bias[16][8];
} rnn_ref_cfg;

/* x[b][t][in], y[b][t][dirs*proj] (only t < len[b] written), hx/hy[pl][b][proj],
 * cx/cy[pl][b][hid]; hx/cx NULL mean zeros. */
void rnn_ref_forward(const rnn_ref_cfg *c, int T, int B, const int *len, const double *x, const double *hx,
                     const double *cx, double *y, double *hy, double *cy);

#endif
