/*
 * adv/rnn_check.h -- argument checks shared by the RNN entry points of both adv libraries
 * (header-only: both libraries compile them).  Each logs its reason through hd_fail
 * under the caller's function name.
 */
#ifndef HD_ADV_RNN_CHECK_H
#define HD_ADV_RNN_CHECK_H

#include <string.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "rnn/rnn_plan.h"
#include "rnn/rnn_problem.h"

/* RNN descriptor: live, set, and with a known input size (v8-set or filled from xDesc). */
static inline cudnnStatus_t hd_rnn_check_desc(const char *fn, const struct cudnnRNNStruct *r)
{
    cudnnStatus_t st = hd_check_obj(r, HD_TAG_RNN, "rnnDesc", fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (!r->is_set)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "rnnDesc was never set");
    if (r->input_mode == CUDNN_SKIP_INPUT && r->input_size > 0 && r->input_size != r->hidden_size)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_SKIP_INPUT needs inputSize == hiddenSize (%d vs %d)",
                       r->input_size, r->hidden_size);
    return CUDNN_STATUS_SUCCESS;
}

/* Compute types: FLOAT, DOUBLE, and HALF (computed in float on converted copies). */
static inline cudnnStatus_t hd_rnn_check_compute(const char *fn, const struct cudnnRNNStruct *r)
{
    if (r->dtype != CUDNN_DATA_FLOAT && r->dtype != CUDNN_DATA_DOUBLE && r->dtype != CUDNN_DATA_HALF)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "RNN data type %s is not FLOAT, DOUBLE or HALF", hd_dtype_name(r->dtype));
    return CUDNN_STATUS_SUCCESS;
}

/* hDesc / cDesc: a fully packed 3-d tensor {numLayers*dirs, batch, width} of the RNN's type. */
static inline cudnnStatus_t hd_rnn_check_state(const char *fn, const struct cudnnTensorStruct *t, const char *name,
                                               const struct cudnnRNNStruct *r, int batch, int width)
{
    cudnnStatus_t st = hd_check_obj(t, HD_TAG_TENSOR, name, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (t->nbDims == 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s was never set", name);
    /* long long: numLayers*dirs and batch*width can pass INT_MAX */
    long long want0 = (long long)r->num_layers * hd_rnn_dirs(r);
    if (t->nbDims != 3 || t->dims[0] != want0 || t->dims[1] != batch || t->dims[2] != width)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s must be {%lld, %d, %d} (numLayers*dirs, batch, %s)", name,
                       want0, batch, width, width == r->proj_size ? "projSize" : "hiddenSize");
    if (t->strides[2] != 1 || t->strides[1] != width || t->strides[0] != (long long)batch * width)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s must be fully packed", name);
    if (t->dtype != r->dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s has type %s, the RNN %s", name, hd_dtype_name(t->dtype),
                       hd_dtype_name(r->dtype));
    return CUDNN_STATUS_SUCCESS;
}

/* An RNN data descriptor that is live, set and of the RNN's type. */
static inline cudnnStatus_t hd_rnn_check_data(const char *fn, const struct cudnnRNNDataStruct *d, const char *name,
                                              const struct cudnnRNNStruct *r, int vec)
{
    cudnnStatus_t st = hd_check_obj(d, HD_TAG_RNN_DATA, name, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (!d->is_set)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s was never set", name);
    if (d->dtype != r->dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s has type %s, the RNN %s", name, hd_dtype_name(d->dtype),
                       hd_dtype_name(r->dtype));
    if (vec >= 0 && d->vec != vec)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s vectorSize is %d, expected %d", name, d->vec, vec);
    return CUDNN_STATUS_SUCCESS;
}

/* x and y descriptors describe the same batch of sequences. */
static inline cudnnStatus_t hd_rnn_check_same_seqs(const char *fn, const struct cudnnRNNDataStruct *x,
                                                   const struct cudnnRNNDataStruct *y)
{
    if (x->layout != y->layout || x->max_seq != y->max_seq || x->batch != y->batch ||
        memcmp(x->seq_len, y->seq_len, (size_t)x->batch * sizeof *x->seq_len) != 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "xDesc and yDesc must have the same layout, maxSeqLength, "
                       "batchSize and seqLengthArray");
    return CUDNN_STATUS_SUCCESS;
}

/* devSeqLengths must repeat xDesc's seqLengthArray (host memory here, so it is checked). */
static inline cudnnStatus_t hd_rnn_check_dev_lens(const char *fn, const int32_t *dev, const struct cudnnRNNDataStruct *x)
{
    if (!dev)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "devSeqLengths is NULL");
    for (int b = 0; b < x->batch; b++)
        if (dev[b] != x->seq_len[b])
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "devSeqLengths[%d] = %d differs from xDesc's %d", b, dev[b],
                           x->seq_len[b]);
    return CUDNN_STATUS_SUCCESS;
}

#endif
