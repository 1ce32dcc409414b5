/* cudnnRNNBackwardData_v8 and cudnnRNNBackwardWeights_v8. */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "adv/rnn_run.h"

#define TRY(expr) do { cudnnStatus_t st_ = (expr); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

/* What both v8 backward calls check first. */
static cudnnStatus_t check_v8(const char *fn, const struct cudnnRNNStruct *r, const int32_t *dev,
                              const struct cudnnRNNDataStruct *xd, const struct cudnnRNNDataStruct *yd,
                              const struct cudnnTensorStruct *hd, const struct cudnnTensorStruct *cd, int need_c)
{
    TRY(hd_rnn_check_desc(fn, r));
    if (r->input_size <= 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "rnnDesc has no inputSize: set it with cudnnSetRNNDescriptor_v8");
    TRY(hd_rnn_check_data(fn, xd, "xDesc", r, r->input_size));
    TRY(hd_rnn_check_data(fn, yd, "yDesc", r, hd_rnn_dirs(r) * r->proj_size));
    TRY(hd_rnn_check_same_seqs(fn, xd, yd));
    TRY(hd_rnn_check_dev_lens(fn, dev, xd));
    TRY(hd_rnn_check_state(fn, hd, "hDesc", r, xd->batch, r->proj_size));
    if (need_c && r->cell == CUDNN_LSTM)
        TRY(hd_rnn_check_state(fn, cd, "cDesc", r, xd->batch, r->hidden_size));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnRNNBackwardData_v8)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
    const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t yDesc, const void *y, const void *dy,
    cudnnRNNDataDescriptor_t xDesc, void *dx, cudnnTensorDescriptor_t hDesc, const void *hx, const void *dhy,
    void *dhx, cudnnTensorDescriptor_t cDesc, const void *cx, const void *dcy, void *dcx, size_t weightSpaceSize,
    const void *weightSpace, size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize, void *reserveSpace)
{
    HD_CHECK_HANDLE(handle);
    TRY(check_v8(__func__, rnnDesc, devSeqLengths, xDesc, yDesc, hDesc, cDesc, 1));
    return hd_rnn_run_backward_data(__func__, handle, rnnDesc, xDesc, dx, yDesc, y, dy, hx, dhy, dhx, cx, dcy, dcx,
                                    weightSpaceSize, weightSpace, workSpaceSize, workSpace, reserveSpaceSize,
                                    reserveSpace);
}

cudnnStatus_t HD_IMPL(cudnnRNNBackwardWeights_v8)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
    cudnnWgradMode_t addGrad, const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void *x,
    cudnnTensorDescriptor_t hDesc, const void *hx, cudnnRNNDataDescriptor_t yDesc, const void *y,
    size_t weightSpaceSize, void *dweightSpace, size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
    void *reserveSpace)
{
    HD_CHECK_HANDLE(handle);
    if ((unsigned)addGrad > (unsigned)CUDNN_WGRAD_MODE_SET)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "addGrad %d is not a cudnnWgradMode_t", (int)addGrad);
    TRY(check_v8(__func__, rnnDesc, devSeqLengths, xDesc, yDesc, hDesc, NULL, 0));
    if (addGrad != CUDNN_WGRAD_MODE_ADD)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "cuDNN 8.1 supports only CUDNN_WGRAD_MODE_ADD");
    return hd_rnn_run_backward_weights(__func__, handle, rnnDesc, xDesc, x, hx, y, weightSpaceSize, dweightSpace,
                                       workSpaceSize, workSpace, reserveSpaceSize, reserveSpace);
}
