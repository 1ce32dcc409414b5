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
#include "core/dropout_draw.h"
#include "core/parallel.h"
#include "attn/attn_problem.h"

#define HD_ATRY(expr) do { cudnnStatus_t st_ = (expr); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

/* The weight buffer and the work space every pass needs (the size cudnnGetMultiHeadAttnBuffers
 * reports covers all three passes, as cuDNN requires): too small or NULL is BAD_PARAM.  The
 * sizes are the call's: batch and beams from QDIM and KDIM, QT query rows (1 for a
 * single-step call) and KDIM's key steps. */
static inline cudnnStatus_t hd_attn_check_spaces(const char *fn, const struct cudnnAttnStruct *a,
                                                 const hd_attn_layout *L, const int qdim[CUDNN_SEQDATA_DIM_COUNT],
                                                 const int kdim[CUDNN_SEQDATA_DIM_COUNT], int qt, size_t wsize,
                                                 const void *w, size_t work_size, const void *work)
{
    size_t need = L->total * hd_dtype_size(a->dtype);
    if (wsize < need || (need && !w))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "weights: %zu bytes given, %zu needed", wsize, need);
    need = hd_attn_work_bytes(a, L, qdim[CUDNN_SEQDATA_BATCH_DIM], qdim[CUDNN_SEQDATA_BEAM_DIM],
                              kdim[CUDNN_SEQDATA_BEAM_DIM], qt, kdim[CUDNN_SEQDATA_TIME_DIM]);
    if (work_size < need || !work)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "workSpace: %zu bytes given, %zu needed", work_size, need);
    return CUDNN_STATUS_SUCCESS;
}

static inline cudnnStatus_t hd_attn_check(const char *fn, const struct cudnnAttnStruct *a)
{
    HD_ATRY(hd_check_obj(a, HD_TAG_ATTN, "attnDesc", fn));
    if (!a->is_set)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "attnDesc was never set");
    /* every buffer size in doubles first: the work-space layout (attn_problem.c) multiplies
     * these sizes in size_t */
    double H = a->n_heads, dq = a->q_proj ? a->q_proj : a->q_size, dk = a->k_proj ? a->k_proj : a->k_size;
    double dv = a->v_proj ? a->v_proj : a->v_size, dout = a->o_proj ? a->o_proj : H * dv;
    double w = H * ((double)a->q_size * a->q_proj + (double)a->k_size * a->k_proj + (double)a->v_size * a->v_proj +
                    (double)a->o_proj * dv);
    double rows = (double)a->max_batch * a->max_beam * ((double)a->qo_max_seq + a->kv_max_seq);
    double io = (double)a->q_size + a->k_size + a->v_size;
    double ws = rows * (3 * io + 3 * H * (dq + dk + dv) + 3 * dout + 2 * H * dv) + 2 * w + 2 * dout * H * dv +
                3.0 * HD_SCRATCH_SLOTS * a->qo_max_seq * a->kv_max_seq;
    if ((w > ws ? w : ws) * 8.0 > 1e15)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the sizes of this attention descriptor overflow any buffer");
    return CUDNN_STATUS_SUCCESS;
}

/* A training forward call draws its dropout masks from the dropout descriptors' states
 * buffers: a descriptor with a probability above 0 needs an initialised one. */
static inline cudnnStatus_t hd_attn_check_dropout(const char *fn, const struct cudnnAttnStruct *a)
{
    const struct cudnnDropoutStruct *d[2] = { a->attn_dropout, a->post_dropout };
    static const char *const name[2] = { "attnDropoutDesc", "postDropoutDesc" };
    for (int i = 0; i < 2; i++) {
        if (!d[i] || !(d[i]->dropout > 0.0f))
            continue;
        HD_ATRY(hd_check_obj(d[i], HD_TAG_DROPOUT, name[i], fn));
        if (!d[i]->is_set || !hd_dropout_states_ok(d[i]->states))
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s (dropout %g) has no initialised states buffer", name[i],
                           (double)d[i]->dropout);
    }
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
