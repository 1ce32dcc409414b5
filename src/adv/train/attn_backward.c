/*
 * Multi-head attention backward passes: the checks, then the attention engine
 * (attn/attn_engine.h).  The residual connection is not part of dqueries (backward data does
 * not know whether the forward pass used one): add dout to dqueries yourself when it did.
 */
#include <string.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "core/handle.h"
#include "adv/attn_check.h"
#include "attn/attn_engine.h"

/* The checks both calls share; VEC sizes as in the forward pass. */
static cudnnStatus_t check_common(const char *fn, const struct cudnnAttnStruct *a, const hd_attn_layout *L,
                                  const struct cudnnSeqDataStruct *qd, const struct cudnnSeqDataStruct *kd,
                                  const struct cudnnSeqDataStruct *vd, const struct cudnnSeqDataStruct *od,
                                  size_t wsize, const void *w, size_t work_size, const void *work, size_t rsize,
                                  const void *res)
{
    HD_ATRY(hd_attn_check_seq(fn, qd, "qDesc", a, a->q_size));
    HD_ATRY(hd_attn_check_seq(fn, kd, "kDesc", a, a->k_size));
    HD_ATRY(hd_attn_check_seq(fn, vd, "vDesc", a, a->v_size));
    HD_ATRY(hd_attn_check_seq(fn, od, "doDesc", a, L->dout));
    const int *q = qd->dims, *k = kd->dims, *v = vd->dims, *o = od->dims;
    const int one = (a->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) != 0;
    if (q[CUDNN_SEQDATA_TIME_DIM] > a->qo_max_seq || q[CUDNN_SEQDATA_BATCH_DIM] > a->max_batch ||
        q[CUDNN_SEQDATA_BEAM_DIM] > a->max_beam || k[CUDNN_SEQDATA_TIME_DIM] > a->kv_max_seq)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the sequence data exceed the attention descriptor's maximum sizes");
    if (k[CUDNN_SEQDATA_BATCH_DIM] != q[CUDNN_SEQDATA_BATCH_DIM] ||
        k[CUDNN_SEQDATA_BEAM_DIM] != (one ? q[CUDNN_SEQDATA_BEAM_DIM] : 1))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "keys must have the queries' batch and a matching beam");
    for (int i = 0; i < CUDNN_SEQDATA_VECT_DIM; i++)
        if (v[i] != k[i] || o[i] != q[i])
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "values must match keys, and dout queries, in time/batch/beam");
    if (memcmp(vd->seq_len, kd->seq_len, kd->nlens * sizeof(int)) != 0 ||
        memcmp(od->seq_len, qd->seq_len, qd->nlens * sizeof(int)) != 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "sequence lengths of values/dout must match keys/queries");
    HD_ATRY(hd_attn_check_spaces(fn, a, L, q, k, q[CUDNN_SEQDATA_TIME_DIM], wsize, w, work_size, work));
    if (!res || rsize < hd_attn_reserve_bytes(a))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "reserveSpace: %zu bytes given, %zu needed", rsize,
                       hd_attn_reserve_bytes(a));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnMultiHeadAttnBackwardData)(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
    const int loWinIdx[], const int hiWinIdx[], const int devSeqLengthsDQDO[], const int devSeqLengthsDKDV[],
    const cudnnSeqDataDescriptor_t doDesc, const void *dout, const cudnnSeqDataDescriptor_t dqDesc, void *dqueries,
    const void *queries, const cudnnSeqDataDescriptor_t dkDesc, void *dkeys, const void *keys,
    const cudnnSeqDataDescriptor_t dvDesc, void *dvalues, const void *values, size_t weightSizeInBytes,
    const void *weights, size_t workSpaceSizeInBytes, void *workSpace, size_t reserveSpaceSizeInBytes,
    void *reserveSpace)
{
    HD_CHECK_HANDLE(handle);
    HD_ATRY(hd_attn_check(__func__, attnDesc));
    hd_attn_layout L = hd_attn_layout_of(attnDesc);
    HD_ATRY(check_common(__func__, attnDesc, &L, dqDesc, dkDesc, dvDesc, doDesc, weightSizeInBytes, weights,
                         workSpaceSizeInBytes, workSpace, reserveSpaceSizeInBytes, reserveSpace));
    HD_ATRY(hd_attn_same_lens(__func__, devSeqLengthsDQDO, dqDesc, "devSeqLengthsDQDO"));
    HD_ATRY(hd_attn_same_lens(__func__, devSeqLengthsDKDV, dkDesc, "devSeqLengthsDKDV"));
    HD_CHECK_PTR(loWinIdx);
    HD_CHECK_PTR(hiWinIdx);
    if (!dout || !dqueries || !queries || !dkeys || !keys || !dvalues || !values)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dout, queries, keys, values and their gradients must not be NULL");
    hd_attn_bwd_args args = { attnDesc, loWinIdx, hiWinIdx, dqDesc, dkDesc, dvDesc, doDesc, queries, keys, values, dout,
                              weights, dqueries, dkeys, dvalues, NULL, reserveSpace, workSpace, handle->num_threads };
    return hd_attn_backward_data(__func__, &args);
}

cudnnStatus_t HD_IMPL(cudnnMultiHeadAttnBackwardWeights)(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
    cudnnWgradMode_t addGrad, const cudnnSeqDataDescriptor_t qDesc, const void *queries,
    const cudnnSeqDataDescriptor_t kDesc, const void *keys, const cudnnSeqDataDescriptor_t vDesc, const void *values,
    const cudnnSeqDataDescriptor_t doDesc, const void *dout, size_t weightSizeInBytes, const void *weights,
    void *dweights, size_t workSpaceSizeInBytes, void *workSpace, size_t reserveSpaceSizeInBytes, void *reserveSpace)
{
    HD_CHECK_HANDLE(handle);
    HD_ATRY(hd_attn_check(__func__, attnDesc));
    if ((unsigned)addGrad > (unsigned)CUDNN_WGRAD_MODE_SET)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "addGrad %d is not a cudnnWgradMode_t", (int)addGrad);
    hd_attn_layout L = hd_attn_layout_of(attnDesc);
    HD_ATRY(check_common(__func__, attnDesc, &L, qDesc, kDesc, vDesc, doDesc, weightSizeInBytes, weights,
                         workSpaceSizeInBytes, workSpace, reserveSpaceSizeInBytes, reserveSpace));
    if (!dout || !queries || !keys || !values || (L.total && !dweights))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dout, queries, keys, values and dweights must not be NULL");
    if (addGrad != CUDNN_WGRAD_MODE_ADD)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "only CUDNN_WGRAD_MODE_ADD is supported, as in cuDNN 8.1");
    hd_attn_bwd_args args = { attnDesc, NULL, NULL, qDesc, kDesc, vDesc, doDesc, queries, keys, values, dout, weights,
                              NULL, NULL, NULL, dweights, reserveSpace, workSpace, handle->num_threads };
    return hd_attn_backward_weights(__func__, &args);
}
