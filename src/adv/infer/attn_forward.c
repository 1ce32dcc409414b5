/*
 * Multi-head attention: buffer sizes, weight lookup and the checks of the forward pass, which
 * the attention engine computes (attn/attn_engine.h).
 */
#include <stdint.h>
#include <string.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "core/handle.h"
#include "adv/attn_check.h"
#include "attn/attn_engine.h"

#define TRY(expr) do { cudnnStatus_t st_ = (expr); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

cudnnStatus_t HD_IMPL(cudnnGetMultiHeadAttnBuffers)(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
    size_t *weightSizeInBytes, size_t *workSpaceSizeInBytes, size_t *reserveSpaceSizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_attn_check(__func__, attnDesc));
    HD_CHECK_PTR(weightSizeInBytes);
    HD_CHECK_PTR(workSpaceSizeInBytes);
    hd_attn_layout L = hd_attn_layout_of(attnDesc);
    *weightSizeInBytes = L.total * hd_dtype_size(attnDesc->dtype);
    *workSpaceSizeInBytes = hd_attn_work_bytes_max(attnDesc, &L);
    /* Training keeps only the attention windows and the dropout draws for the backward
     * calls, which recompute the rest. */
    if (reserveSpaceSizeInBytes)
        *reserveSpaceSizeInBytes = hd_attn_reserve_bytes(attnDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetMultiHeadAttnWeights)(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
    cudnnMultiHeadAttnWeightKind_t wKind, size_t weightSizeInBytes, const void *weights, cudnnTensorDescriptor_t wDesc,
    void **wAddr)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_attn_check(__func__, attnDesc));
    if ((unsigned)wKind >= CUDNN_ATTN_WKIND_COUNT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "wKind %d is not a cudnnMultiHeadAttnWeightKind_t", (int)wKind);
    HD_CHECK_PTR(weights);
    HD_CHECK_PTR(wAddr);
    HD_CHECK_DESC(wDesc, HD_TAG_TENSOR);
    hd_attn_layout L = hd_attn_layout_of(attnDesc);
    size_t es = hd_dtype_size(attnDesc->dtype);
    if (weightSizeInBytes < L.total * es)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "weightSizeInBytes %zu is below the %zu bytes needed", weightSizeInBytes,
                       L.total * es);
    int k = (int)wKind, rows = L.rows[k], cols = L.cols[k], heads = L.heads[k];
    if ((long long)heads * rows * cols > 2147483647LL)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "the %d x %d x %d weights do not fit a descriptor's int strides",
                       heads, rows, cols);
    struct cudnnTensorStruct *t = wDesc;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        t->dims[i] = t->strides[i] = 0;
    t->dtype = attnDesc->dtype;
    t->format = CUDNN_TENSOR_NCHW;
    t->vect_c = 1;
    t->packed = 1;
    if (heads == 0) {   /* disabled projection or bias: no such weights */
        t->nbDims = 0;
        *wAddr = NULL;
        return CUDNN_STATUS_SUCCESS;
    }
    t->nbDims = 3;
    t->dims[0] = heads; t->dims[1] = rows; t->dims[2] = cols;
    t->strides[0] = rows * cols; t->strides[1] = cols; t->strides[2] = 1;
    *wAddr = (char *)(uintptr_t)weights + L.off[k] * es;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnMultiHeadAttnForward)(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
    int currIdx, const int loWinIdx[], const int hiWinIdx[], const int devSeqLengthsQO[], const int devSeqLengthsKV[],
    const cudnnSeqDataDescriptor_t qDesc, const void *queries, const void *residuals,
    const cudnnSeqDataDescriptor_t kDesc, const void *keys, const cudnnSeqDataDescriptor_t vDesc, const void *values,
    const cudnnSeqDataDescriptor_t oDesc, void *out, size_t weightSizeInBytes, const void *weights,
    size_t workSpaceSizeInBytes, void *workSpace, size_t reserveSpaceSizeInBytes, void *reserveSpace)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_attn_check(__func__, attnDesc));
    const struct cudnnAttnStruct *a = attnDesc;
    hd_attn_layout L = hd_attn_layout_of(a);
    TRY(hd_attn_check_seq(__func__, qDesc, "qDesc", a, a->q_size));
    TRY(hd_attn_check_seq(__func__, kDesc, "kDesc", a, a->k_size));
    TRY(hd_attn_check_seq(__func__, vDesc, "vDesc", a, a->v_size));
    TRY(hd_attn_check_seq(__func__, oDesc, "oDesc", a, L.dout));
    const int *qd = qDesc->dims, *kd = kDesc->dims, *vd = vDesc->dims, *od = oDesc->dims;
    const int one_to_one = (a->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) != 0;
    if (qd[CUDNN_SEQDATA_TIME_DIM] > a->qo_max_seq || qd[CUDNN_SEQDATA_BATCH_DIM] > a->max_batch ||
        qd[CUDNN_SEQDATA_BEAM_DIM] > a->max_beam || kd[CUDNN_SEQDATA_TIME_DIM] > a->kv_max_seq)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "qDesc/kDesc exceed the attention descriptor's maximum sizes");
    if (kd[CUDNN_SEQDATA_BATCH_DIM] != qd[CUDNN_SEQDATA_BATCH_DIM] ||
        kd[CUDNN_SEQDATA_BEAM_DIM] != (one_to_one ? qd[CUDNN_SEQDATA_BEAM_DIM] : 1))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "kDesc must have qDesc's batch and %s", one_to_one ?
                       "beam (CUDNN_ATTN_QUERYMAP_ONE_TO_ONE)" : "a beam of 1 (CUDNN_ATTN_QUERYMAP_ALL_TO_ONE)");
    for (int i = 0; i < CUDNN_SEQDATA_VECT_DIM; i++) {
        if (vd[i] != kd[i])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "vDesc must have kDesc's time, batch and beam sizes");
        if (od[i] != qd[i])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "oDesc must have qDesc's time, batch and beam sizes");
    }
    if (memcmp(vDesc->seq_len, kDesc->seq_len, kDesc->nlens * sizeof(int)) != 0 ||
        memcmp(oDesc->seq_len, qDesc->seq_len, qDesc->nlens * sizeof(int)) != 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "vDesc/oDesc sequence lengths must match kDesc/qDesc");
    TRY(hd_attn_same_lens(__func__, devSeqLengthsQO, qDesc, "devSeqLengthsQO"));
    TRY(hd_attn_same_lens(__func__, devSeqLengthsKV, kDesc, "devSeqLengthsKV"));
    HD_CHECK_PTR(loWinIdx);
    HD_CHECK_PTR(hiWinIdx);
    const int QT = qd[CUDNN_SEQDATA_TIME_DIM];
    if (currIdx >= QT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "currIdx %d is beyond the %d query time steps", currIdx, QT);
    if (!queries || !keys || !values || !out)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "queries, keys, values and out must not be NULL");
    if (residuals && L.dout != a->q_size)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "residuals need the output size (%d) to equal qSize (%d)", L.dout, a->q_size);
    HD_ATRY(hd_attn_check_spaces(__func__, a, &L, qd, kd, currIdx < 0 ? QT : 1, weightSizeInBytes, weights,
                                 workSpaceSizeInBytes, workSpace));

    if (reserveSpace && reserveSpaceSizeInBytes < hd_attn_reserve_bytes(a))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reserveSpace: %zu bytes given, %zu needed", reserveSpaceSizeInBytes,
                       hd_attn_reserve_bytes(a));
    if (reserveSpace)
        TRY(hd_attn_check_dropout(__func__, a));
    hd_attn_fwd_args args = { a, currIdx, loWinIdx, hiWinIdx, qDesc, kDesc, vDesc, oDesc, queries, residuals, keys,
                              values, weights, out, workSpace, reserveSpace, handle->num_threads };
    return hd_attn_forward(&args);
}
