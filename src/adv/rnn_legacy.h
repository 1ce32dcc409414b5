/*
 * adv/rnn_legacy.h -- the cuDNN 7-style RNN calls (per-step tensor descriptor arrays, or
 * RNN data descriptors with a filter for the weights) translated onto the v8 kernels.
 * Header-only: ForwardInference* live in adv_infer, the training calls in adv_train.
 *
 * hx/cx/hy/cy (and their gradients) are optional; a state descriptor is checked only when
 * its buffer is given.  The RNN descriptor may come from the v6 setter: input size and data
 * type then come from xDesc (hd_rnn_legacy_view).
 */
#ifndef HD_ADV_RNN_LEGACY_H
#define HD_ADV_RNN_LEGACY_H

#include <stdlib.h>

#include "adv/rnn_run.h"

static inline cudnnStatus_t hd_rnn_opt_state(const char *fn, const struct cudnnTensorStruct *t, const char *name,
                                             const struct cudnnRNNStruct *r, int batch, int width, const void *p)
{
    return p ? hd_rnn_check_state(fn, t, name, r, batch, width) : CUDNN_STATUS_SUCCESS;
}

/* The weights' filter descriptor: live, set, of the data type, holding the whole weight space. */
static inline cudnnStatus_t hd_rnn_legacy_filter(const char *fn, const char *name, const struct cudnnFilterStruct *f,
                                                 const struct cudnnRNNStruct *r, size_t *bytes)
{
    cudnnStatus_t st = hd_check_obj(f, HD_TAG_FILTER, name, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (f->nbDims == 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s was never set", name);
    if (f->dtype != r->dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s has type %s, the data %s", name, hd_dtype_name(f->dtype),
                       hd_dtype_name(r->dtype));
    size_t n = 1;
    for (int i = 0; i < f->nbDims; i++)
        n *= (size_t)f->dims[i];
    *bytes = n * hd_dtype_size(f->dtype);
    return CUDNN_STATUS_SUCCESS;
}

static inline cudnnStatus_t hd_rnn_same_lens(const char *fn, const struct cudnnRNNDataStruct *a,
                                             const struct cudnnRNNDataStruct *b, const char *an, const char *bn)
{
    if (a->batch != b->batch || a->max_seq != b->max_seq ||
        memcmp(a->seq_len, b->seq_len, (size_t)a->batch * sizeof *a->seq_len) != 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s and %s describe different batches per step", an, bn);
    return CUDNN_STATUS_SUCCESS;
}

#define HD_LTRY(expr) do { st = (expr); if (st != CUDNN_STATUS_SUCCESS) goto done; } while (0)

/* cudnnRNNForwardInference / cudnnRNNForwardTraining */
static inline cudnnStatus_t hd_rnn_legacy_forward(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *rd,
    int seq_length, const cudnnTensorDescriptor_t *xDesc, const void *x, const struct cudnnTensorStruct *hxDesc,
    const void *hx, const struct cudnnTensorStruct *cxDesc, const void *cx, const struct cudnnFilterStruct *wDesc,
    const void *w, const cudnnTensorDescriptor_t *yDesc, void *y, const struct cudnnTensorStruct *hyDesc, void *hy,
    const struct cudnnTensorStruct *cyDesc, void *cy, void *ws, size_t wss, void *rs, size_t rss, int training)
{
    cudnnStatus_t st = hd_handle_check(handle, fn);
    if (st != CUDNN_STATUS_SUCCESS || (st = hd_rnn_check_desc(fn, rd)) != CUDNN_STATUS_SUCCESS)
        return st;
    struct cudnnRNNDataStruct xd, yd;
    struct cudnnRNNStruct r;
    int *xl = NULL, *yl = NULL;
    size_t wbytes = 0;
    HD_LTRY(hd_rnn_legacy_data(fn, "xDesc", seq_length, xDesc, -1, &xd, &xl));
    HD_LTRY(hd_rnn_legacy_view(fn, rd, xd.vec, xd.dtype, &r));
    HD_LTRY(hd_rnn_legacy_data(fn, "yDesc", seq_length, yDesc, hd_rnn_dirs(&r) * r.proj_size, &yd, &yl));
    HD_LTRY(hd_rnn_check_data(fn, &yd, "yDesc", &r, -1));
    HD_LTRY(hd_rnn_same_lens(fn, &xd, &yd, "xDesc", "yDesc"));
    HD_LTRY(hd_rnn_opt_state(fn, hxDesc, "hxDesc", &r, xd.batch, r.proj_size, hx));
    HD_LTRY(hd_rnn_opt_state(fn, hyDesc, "hyDesc", &r, xd.batch, r.proj_size, hy));
    if (r.cell == CUDNN_LSTM) {
        HD_LTRY(hd_rnn_opt_state(fn, cxDesc, "cxDesc", &r, xd.batch, r.hidden_size, cx));
        HD_LTRY(hd_rnn_opt_state(fn, cyDesc, "cyDesc", &r, xd.batch, r.hidden_size, cy));
    }
    HD_LTRY(hd_rnn_legacy_filter(fn, "wDesc", wDesc, &r, &wbytes));
    HD_LTRY(hd_rnn_check_legacy_work(fn, &r, &xd, wss));
    HD_LTRY(hd_rnn_run_forward(fn, handle, &r, training, &xd, x, &yd, y, hx, hy, r.cell == CUDNN_LSTM ? cx : NULL,
                               r.cell == CUDNN_LSTM ? cy : NULL, wbytes, w, wss, ws, rss, rs));
done:
    free(xl);
    free(yl);
    return st;
}

/* The Ex forms' attention arguments are reserved in cuDNN 8.1: they must be NULL. */
static inline cudnnStatus_t hd_rnn_no_attn(const char *fn, const void *a, const void *b, const void *c, const void *d)
{
    if (a || b || c || d)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "the attention arguments (kDesc, cDesc, iDesc, qDesc ...) "
                       "are reserved and must be NULL");
    return CUDNN_STATUS_SUCCESS;
}

/* cudnnRNNForwardInferenceEx / cudnnRNNForwardTrainingEx */
static inline cudnnStatus_t hd_rnn_legacy_forward_ex(const char *fn, cudnnHandle_t handle,
    const struct cudnnRNNStruct *rd, const struct cudnnRNNDataStruct *xDesc, const void *x,
    const struct cudnnTensorStruct *hxDesc, const void *hx, const struct cudnnTensorStruct *cxDesc, const void *cx,
    const struct cudnnFilterStruct *wDesc, const void *w, const struct cudnnRNNDataStruct *yDesc, void *y,
    const struct cudnnTensorStruct *hyDesc, void *hy, const struct cudnnTensorStruct *cyDesc, void *cy, void *ws,
    size_t wss, void *rs, size_t rss, int training)
{
    cudnnStatus_t st = hd_handle_check(handle, fn);
    if (st != CUDNN_STATUS_SUCCESS || (st = hd_rnn_check_desc(fn, rd)) != CUDNN_STATUS_SUCCESS)
        return st;
    if ((st = hd_check_obj(xDesc, HD_TAG_RNN_DATA, "xDesc", fn)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (!xDesc->is_set)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "xDesc was never set");
    struct cudnnRNNStruct r;
    size_t wbytes = 0;
    if ((st = hd_rnn_legacy_view(fn, rd, xDesc->vec, xDesc->dtype, &r)) ||
        (st = hd_rnn_check_data(fn, yDesc, "yDesc", &r, hd_rnn_dirs(&r) * r.proj_size)) ||
        (st = hd_rnn_check_same_seqs(fn, xDesc, yDesc)) ||
        (st = hd_rnn_opt_state(fn, hxDesc, "hxDesc", &r, xDesc->batch, r.proj_size, hx)) ||
        (st = hd_rnn_opt_state(fn, hyDesc, "hyDesc", &r, xDesc->batch, r.proj_size, hy)))
        return st;
    if (r.cell == CUDNN_LSTM &&
        ((st = hd_rnn_opt_state(fn, cxDesc, "cxDesc", &r, xDesc->batch, r.hidden_size, cx)) ||
         (st = hd_rnn_opt_state(fn, cyDesc, "cyDesc", &r, xDesc->batch, r.hidden_size, cy))))
        return st;
    if ((st = hd_rnn_legacy_filter(fn, "wDesc", wDesc, &r, &wbytes)) ||
        (st = hd_rnn_check_legacy_work(fn, &r, xDesc, wss)))
        return st;
    return hd_rnn_run_forward(fn, handle, &r, training, xDesc, x, yDesc, y, hx, hy, r.cell == CUDNN_LSTM ? cx : NULL,
                              r.cell == CUDNN_LSTM ? cy : NULL, wbytes, w, wss, ws, rss, rs);
}

#endif
