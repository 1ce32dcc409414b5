/* cudnnRNNForward (v8) and the legacy inference entry points built on the same kernel. */
#include <stdlib.h>

#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "adv/rnn_legacy.h"

#define TRY(expr) do { cudnnStatus_t st_ = (expr); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

cudnnStatus_t HD_IMPL(cudnnRNNForward)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
    const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void *x, cudnnRNNDataDescriptor_t yDesc,
    void *y, cudnnTensorDescriptor_t hDesc, const void *hx, void *hy, cudnnTensorDescriptor_t cDesc, const void *cx,
    void *cy, size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize, void *workSpace,
    size_t reserveSpaceSize, void *reserveSpace)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_rnn_check_desc(__func__, rnnDesc));
    const struct cudnnRNNStruct *r = rnnDesc;
    if (r->input_size <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "rnnDesc has no inputSize: set it with cudnnSetRNNDescriptor_v8");
    if ((unsigned)fwdMode > (unsigned)CUDNN_FWD_MODE_TRAINING)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "fwdMode %d is not a cudnnForwardMode_t", (int)fwdMode);
    TRY(hd_rnn_check_data(__func__, xDesc, "xDesc", r, r->input_size));
    TRY(hd_rnn_check_data(__func__, yDesc, "yDesc", r, hd_rnn_dirs(r) * r->proj_size));
    TRY(hd_rnn_check_same_seqs(__func__, xDesc, yDesc));
    TRY(hd_rnn_check_dev_lens(__func__, devSeqLengths, xDesc));
    TRY(hd_rnn_check_state(__func__, hDesc, "hDesc", r, xDesc->batch, r->proj_size));
    if (r->cell == CUDNN_LSTM)
        TRY(hd_rnn_check_state(__func__, cDesc, "cDesc", r, xDesc->batch, r->hidden_size));
    return hd_rnn_run_forward(__func__, handle, r, fwdMode == CUDNN_FWD_MODE_TRAINING, xDesc, x, yDesc, y, hx, hy,
                              r->cell == CUDNN_LSTM ? cx : NULL, r->cell == CUDNN_LSTM ? cy : NULL, weightSpaceSize,
                              weightSpace, workSpaceSize, workSpace, reserveSpaceSize, reserveSpace);
}

cudnnStatus_t HD_IMPL(cudnnRNNForwardInference)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int seqLength, const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
    const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnTensorDescriptor_t *yDesc, void *y, const cudnnTensorDescriptor_t hyDesc, void *hy,
    const cudnnTensorDescriptor_t cyDesc, void *cy, void *workSpace, size_t workSpaceSizeInBytes)
{
    return hd_rnn_legacy_forward(__func__, handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w, yDesc,
                                 y, hyDesc, hy, cyDesc, cy, workSpace, workSpaceSizeInBytes, NULL, 0, 0);
}

cudnnStatus_t HD_IMPL(cudnnRNNForwardInferenceEx)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const cudnnRNNDataDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc, const void *hx,
    const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnFilterDescriptor_t wDesc, const void *w,
    const cudnnRNNDataDescriptor_t yDesc, void *y, const cudnnTensorDescriptor_t hyDesc, void *hy,
    const cudnnTensorDescriptor_t cyDesc, void *cy, const cudnnRNNDataDescriptor_t kDesc, const void *keys,
    const cudnnRNNDataDescriptor_t cDesc, void *cAttn, const cudnnRNNDataDescriptor_t iDesc, void *iAttn,
    const cudnnRNNDataDescriptor_t qDesc, void *queries, void *workSpace, size_t workSpaceSizeInBytes)
{
    TRY(hd_rnn_no_attn(__func__, kDesc, cDesc, iDesc, qDesc));
    TRY(hd_rnn_no_attn(__func__, keys, cAttn, iAttn, queries));
    return hd_rnn_legacy_forward_ex(__func__, handle, rnnDesc, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w, yDesc, y,
                                    hyDesc, hy, cyDesc, cy, workSpace, workSpaceSizeInBytes, NULL, 0, 0);
}
