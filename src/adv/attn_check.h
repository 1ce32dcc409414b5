/*
 * adv/attn_check.h -- argument checks shared by the attention entry points of both adv
 * libraries (header-only: both libraries compile them).
 */
#ifndef HD_ADV_ATTN_CHECK_H
#define HD_ADV_ATTN_CHECK_H

#include <string.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "attn/attn_problem.h"

#define HD_ATRY(expr) do { cudnnStatus_t st_ = (expr); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

/* The weight buffer and the work space every pass needs (the forward pass's work space, which
 * cudnnGetMultiHeadAttnBuffers reports, also for the backward passes, as cuDNN requires):
 * too small or NULL is BAD_PARAM.  KV_LEN: the keys' time steps of this call. */
static inline cudnnStatus_t hd_attn_check_spaces(const char *fn, const struct cudnnAttnStruct *a,
                                                 const hd_attn_layout *L, int kv_len, size_t wsize, const void *w,
                                                 size_t work_size, const void *work)
{
    size_t need = L->total * hd_dtype_size(a->dtype);
    if (wsize < need || (need && !w))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "weights: %zu bytes given, %zu needed", wsize, need);
    need = hd_attn_work_bytes(a, L, kv_len);
    if (work_size < need || !work)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "workSpace: %zu bytes given, %zu needed", work_size, need);
    return CUDNN_STATUS_SUCCESS;
}

static inline cudnnStatus_t hd_attn_check(const char *fn, const struct cudnnAttnStruct *a)
{
    HD_ATRY(hd_check_obj(a, HD_TAG_ATTN, "attnDesc", fn));
    if (!a->is_set)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "attnDesc was never set");
    double H = a->n_heads, w = H * ((double)a->q_size * a->q_proj + (double)a->k_size * a->k_proj +
                                    (double)a->v_size * a->v_proj + (double)a->o_proj * (a->v_proj ? a->v_proj : a->v_size));
    double ws = H * (double)a->kv_max_seq * ((double)a->k_proj + a->k_size + a->v_proj + a->v_size);
    if ((w > ws ? w : ws) * 8.0 > 1e15)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the sizes of this attention descriptor overflow any buffer");
    return CUDNN_STATUS_SUCCESS;
}

static inline cudnnStatus_t hd_attn_check_seq(const char *fn, const struct cudnnSeqDataStruct *d, const char *name,
                               const struct cudnnAttnStruct *a, int vec)
{
    HD_ATRY(hd_check_obj(d, HD_TAG_SEQ_DATA, name, fn));
    if (!d->is_set)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s was never set", name);
    if (d->dtype != a->dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s has type %s, the attention descriptor %s", name,
                       hd_dtype_name(d->dtype), hd_dtype_name(a->dtype));
    if (d->dims[CUDNN_SEQDATA_VECT_DIM] != vec)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s vector size is %d, expected %d", name,
                       d->dims[CUDNN_SEQDATA_VECT_DIM], vec);
    return CUDNN_STATUS_SUCCESS;
}

static inline cudnnStatus_t hd_attn_same_lens(const char *fn, const int *dev, const struct cudnnSeqDataStruct *d, const char *name)
{
    if (!dev)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is NULL", name);
    for (size_t i = 0; i < d->nlens; i++)
        if (dev[i] != d->seq_len[i])
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s[%zu] = %d differs from the descriptor's %d", name, i, dev[i],
                           d->seq_len[i]);
    return CUDNN_STATUS_SUCCESS;
}

#endif
