/* The RNN problem: sequence addressing and the overflow guard (rnn_problem.h). */
#include "rnn/rnn_problem.h"

void hd_rnn_packed_starts(const struct cudnnRNNDataStruct *d, size_t *packed_start)
{
    size_t acc = 0;
    for (int t = 0; t < d->max_seq; t++) {
        packed_start[t] = acc;
        for (int b = 0; b < d->batch; b++)
            acc += d->seq_len[b] > t;
    }
    packed_start[d->max_seq] = acc;
}

size_t hd_rnn_data_rows(const struct cudnnRNNDataStruct *d)
{
    if (d->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
        return (size_t)d->max_seq * (size_t)d->batch;
    size_t n = 0;
    for (int b = 0; b < d->batch; b++)
        n += (size_t)d->seq_len[b];
    return n;
}

double hd_rnn_size_estimate(const struct cudnnRNNStruct *r, int input_size, int T, int B)
{
    double G = hd_rnn_gates(r->cell), H = r->hidden_size, P = r->proj_size, L = r->num_layers;
    double D = hd_rnn_dirs(r), IN = input_size > 0 ? input_size : 1;
    double wts = L * D * (G * H * (IN + D * P + P + 2.0) + P * H);
    double tb = (double)T * (double)B;
    double res = L * D * tb * (3.0 * G * H + 2.0 * H + P) + L * tb * D * P;
    double wk = res + tb * (IN + G * H + 2.0 * (IN + D * P) + P) + (double)B * (G * H + 4.0 * H + 2.0 * P);
    double m = wts > wk ? wts : wk;
    return m * 8.0;
}
