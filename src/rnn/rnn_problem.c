/* The RNN problem: sequence addressing, the overflow guard, and the problems of the legacy
 * calls (rnn_problem.h). */
#include <stdlib.h>
#include <string.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
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
    double res = L * D * tb * (3.0 * G * H + 2.0 * H + P) + 3.0 * L * tb * D * P;   /* outputs + dropout areas */
    double wk = res + tb * (IN + G * H + 2.0 * (IN + D * P) + P) + (double)B * (G * H + 4.0 * H + 2.0 * P);
    double m = wts > wk ? wts : wk;
    return m * 8.0;
}

cudnnStatus_t hd_rnn_legacy_view(const char *fn, const struct cudnnRNNStruct *r, int input_size, cudnnDataType_t dtype,
                                 struct cudnnRNNStruct *out)
{
    if (r->input_size > 0 && r->input_size != input_size)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "xDesc has %d features, the RNN descriptor inputSize %d",
                       input_size, r->input_size);
    if (r->input_size > 0 && r->dtype != dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "xDesc has type %s, the RNN descriptor %s", hd_dtype_name(dtype),
                       hd_dtype_name(r->dtype));
    if (dtype != CUDNN_DATA_FLOAT && dtype != CUDNN_DATA_DOUBLE && dtype != CUDNN_DATA_HALF)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "RNN data must be FLOAT, DOUBLE or HALF (got %s)", hd_dtype_name(dtype));
    if (r->input_mode == CUDNN_SKIP_INPUT && input_size != r->hidden_size)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_SKIP_INPUT needs %d input features (got %d)", r->hidden_size,
                       input_size);
    *out = *r;
    out->input_size = input_size;
    out->dtype = dtype;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_rnn_legacy_data(const char *fn, const char *name, int seq_length, const cudnnTensorDescriptor_t *desc,
                                 int vec, struct cudnnRNNDataStruct *out, int **lens)
{
    *lens = NULL;
    if (seq_length <= 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "seqLength must be positive (got %d)", seq_length);
    if (!desc)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is NULL", name);
    int prev = 0, width = vec;
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    for (int t = 0; t < seq_length; t++) {
        const struct cudnnTensorStruct *d = desc[t];
        cudnnStatus_t st = hd_check_obj(d, HD_TAG_TENSOR, name, fn);
        if (st != CUDNN_STATUS_SUCCESS)
            return st;
        if (d->nbDims < 2 || d->nbDims > 3 || (d->nbDims == 3 && d->dims[2] != 1))
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s[%d] must be a {batch, vectorSize, 1} tensor", name, t);
        if (d->strides[1] != 1 || d->strides[0] != d->dims[1])
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s[%d] must be fully packed", name, t);
        if (t == 0) {
            dt = d->dtype;
            if (width < 0)
                width = d->dims[1];
        } else if (d->dims[0] > prev) {
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s[%d] has batch %d, more than the step before (%d)", name, t,
                           d->dims[0], prev);
        }
        if (d->dims[1] != width || d->dtype != dt)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s[%d] must have %d features of type %s like %s[0]", name, t,
                           width, hd_dtype_name(dt), name);
        prev = d->dims[0];
    }
    int B = ((const struct cudnnTensorStruct *)desc[0])->dims[0];
    int *l = malloc((size_t)B * sizeof *l);
    if (!l)
        return hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "out of host memory");
    for (int b = 0; b < B; b++) {
        int n = 0;
        while (n < seq_length && ((const struct cudnnTensorStruct *)desc[n])->dims[0] > b)
            n++;
        l[b] = n;
    }
    memset(out, 0, sizeof *out);
    out->obj.tag = HD_TAG_RNN_DATA;
    out->is_set = 1;
    out->dtype = dt;
    out->layout = CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED;
    out->max_seq = seq_length;
    out->batch = B;
    out->vec = width;
    out->seq_len = l;
    *lens = l;
    return CUDNN_STATUS_SUCCESS;
}
