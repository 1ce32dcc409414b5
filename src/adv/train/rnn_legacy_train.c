/* The legacy (cuDNN 7-style) training calls, translated onto the v8 kernels (adv/rnn_legacy.h). */
#include <stdlib.h>

#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "adv/rnn_legacy.h"

cudnnStatus_t HD_IMPL(cudnnRNNForwardTraining)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int seqLength, const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
    const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnTensorDescriptor_t *yDesc, void *y, const cudnnTensorDescriptor_t hyDesc, void *hy,
    const cudnnTensorDescriptor_t cyDesc, void *cy, void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes)
{
    return hd_rnn_legacy_forward(__func__, handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w, yDesc,
                                 y, hyDesc, hy, cyDesc, cy, workSpace, workSpaceSizeInBytes, reserveSpace,
                                 reserveSpaceSizeInBytes, 1);
}

cudnnStatus_t HD_IMPL(cudnnRNNForwardTrainingEx)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const cudnnRNNDataDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc, const void *hx,
    const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnFilterDescriptor_t wDesc, const void *w,
    const cudnnRNNDataDescriptor_t yDesc, void *y, const cudnnTensorDescriptor_t hyDesc, void *hy,
    const cudnnTensorDescriptor_t cyDesc, void *cy, const cudnnRNNDataDescriptor_t kDesc, const void *keys,
    const cudnnRNNDataDescriptor_t cDesc, void *cAttn, const cudnnRNNDataDescriptor_t iDesc, void *iAttn,
    const cudnnRNNDataDescriptor_t qDesc, void *queries, void *workSpace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    cudnnStatus_t st;
    if ((st = hd_rnn_no_attn(__func__, kDesc, cDesc, iDesc, qDesc)) ||
        (st = hd_rnn_no_attn(__func__, keys, cAttn, iAttn, queries)))
        return st;
    return hd_rnn_legacy_forward_ex(__func__, handle, rnnDesc, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w, yDesc, y,
                                    hyDesc, hy, cyDesc, cy, workSpace, workSpaceSizeInBytes, reserveSpace,
                                    reserveSpaceSizeInBytes, 1);
}

/* Shared tail of both backward-data forms once the data descriptors are known. */
static cudnnStatus_t bwd_data_common(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *r,
    const struct cudnnRNNDataStruct *dxd, void *dx, const struct cudnnRNNDataStruct *dyd, const void *y,
    const void *dy, const struct cudnnTensorStruct *dhyDesc, const void *dhy, const struct cudnnTensorStruct *dcyDesc, const void *dcy,
    const struct cudnnFilterStruct *wDesc, const void *w, const struct cudnnTensorStruct *hxDesc, const void *hx,
    const struct cudnnTensorStruct *cxDesc, const void *cx, const struct cudnnTensorStruct *dhxDesc, void *dhx,
    const struct cudnnTensorStruct *dcxDesc, void *dcx, void *ws, size_t wss, void *rs, size_t rss)
{
    cudnnStatus_t st;
    size_t wbytes = 0;
    int B = dxd->batch, P = r->proj_size, H = r->hidden_size;
    if ((st = hd_rnn_opt_state(fn, hxDesc, "hxDesc", r, B, P, hx)) ||
        (st = hd_rnn_opt_state(fn, dhyDesc, "dhyDesc", r, B, P, dhy)) ||
        (st = hd_rnn_opt_state(fn, dhxDesc, "dhxDesc", r, B, P, dhx)))
        return st;
    if (r->cell == CUDNN_LSTM &&
        ((st = hd_rnn_opt_state(fn, cxDesc, "cxDesc", r, B, H, cx)) ||
         (st = hd_rnn_opt_state(fn, dcyDesc, "dcyDesc", r, B, H, dcy)) ||
         (st = hd_rnn_opt_state(fn, dcxDesc, "dcxDesc", r, B, H, dcx))))
        return st;
    if ((st = hd_rnn_legacy_filter(fn, "wDesc", wDesc, r, &wbytes)) || (st = hd_rnn_check_legacy_work(fn, r, dxd, wss)))
        return st;
    return hd_rnn_run_backward_data(fn, handle, r, dxd, dx, dyd, y, dy, hx, dhy, dhx, cx, dcy, dcx, wbytes, w, wss, ws,
                                    rss, rs);
}

cudnnStatus_t HD_IMPL(cudnnRNNBackwardData)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int seqLength, const cudnnTensorDescriptor_t *yDesc, const void *y, const cudnnTensorDescriptor_t *dyDesc,
    const void *dy, const cudnnTensorDescriptor_t dhyDesc, const void *dhy, const cudnnTensorDescriptor_t dcyDesc,
    const void *dcy, const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t hxDesc,
    const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnTensorDescriptor_t *dxDesc,
    void *dx, const cudnnTensorDescriptor_t dhxDesc, void *dhx, const cudnnTensorDescriptor_t dcxDesc, void *dcx,
    void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    cudnnStatus_t st = hd_handle_check(handle, __func__);
    if (st != CUDNN_STATUS_SUCCESS || (st = hd_rnn_check_desc(__func__, rnnDesc)) != CUDNN_STATUS_SUCCESS)
        return st;
    struct cudnnRNNDataStruct xd, yd, dyd;
    struct cudnnRNNStruct r;
    int *xl = NULL, *yl = NULL, *dyl = NULL;
    HD_LTRY(hd_rnn_legacy_data(__func__, "dxDesc", seqLength, dxDesc, -1, &xd, &xl));
    HD_LTRY(hd_rnn_legacy_view(__func__, rnnDesc, xd.vec, xd.dtype, &r));
    HD_LTRY(hd_rnn_legacy_data(__func__, "yDesc", seqLength, yDesc, hd_rnn_dirs(&r) * r.proj_size, &yd, &yl));
    HD_LTRY(hd_rnn_legacy_data(__func__, "dyDesc", seqLength, dyDesc, hd_rnn_dirs(&r) * r.proj_size, &dyd, &dyl));
    HD_LTRY(hd_rnn_check_data(__func__, &dyd, "dyDesc", &r, -1));
    HD_LTRY(hd_rnn_same_lens(__func__, &xd, &yd, "dxDesc", "yDesc"));
    HD_LTRY(hd_rnn_same_lens(__func__, &xd, &dyd, "dxDesc", "dyDesc"));
    HD_LTRY(bwd_data_common(__func__, handle, &r, &xd, dx, &dyd, y, dy, dhyDesc, dhy, dcyDesc, dcy, wDesc, w, hxDesc, hx,
                            cxDesc, cx, dhxDesc, dhx, dcxDesc, dcx, workSpace, workSpaceSizeInBytes, reserveSpace,
                            reserveSpaceSizeInBytes));
done:
    free(xl); free(yl); free(dyl);
    return st;
}

cudnnStatus_t HD_IMPL(cudnnRNNBackwardDataEx)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const cudnnRNNDataDescriptor_t yDesc, const void *y, const cudnnRNNDataDescriptor_t dyDesc, const void *dy,
    const cudnnRNNDataDescriptor_t dcDesc, const void *dcAttn, const cudnnTensorDescriptor_t dhyDesc, const void *dhy,
    const cudnnTensorDescriptor_t dcyDesc, const void *dcy, const cudnnFilterDescriptor_t wDesc, const void *w,
    const cudnnTensorDescriptor_t hxDesc, const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx,
    const cudnnRNNDataDescriptor_t dxDesc, void *dx, const cudnnTensorDescriptor_t dhxDesc, void *dhx,
    const cudnnTensorDescriptor_t dcxDesc, void *dcx, const cudnnRNNDataDescriptor_t dkDesc, void *dkeys,
    void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    cudnnStatus_t st = hd_handle_check(handle, __func__);
    if (st != CUDNN_STATUS_SUCCESS || (st = hd_rnn_check_desc(__func__, rnnDesc)) != CUDNN_STATUS_SUCCESS)
        return st;
    if ((st = hd_rnn_no_attn(__func__, dcDesc, dcAttn, dkDesc, dkeys)))
        return st;
    if ((st = hd_check_obj(dxDesc, HD_TAG_RNN_DATA, "dxDesc", __func__)))
        return st;
    if (!dxDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dxDesc was never set");
    struct cudnnRNNStruct r;
    int DP;
    if ((st = hd_rnn_legacy_view(__func__, rnnDesc, dxDesc->vec, dxDesc->dtype, &r)))
        return st;
    DP = hd_rnn_dirs(&r) * r.proj_size;
    if ((st = hd_rnn_check_data(__func__, yDesc, "yDesc", &r, DP)) ||
        (st = hd_rnn_check_data(__func__, dyDesc, "dyDesc", &r, DP)) ||
        (st = hd_rnn_check_same_seqs(__func__, dxDesc, yDesc)) ||
        (st = hd_rnn_check_same_seqs(__func__, dxDesc, dyDesc)))
        return st;
    return bwd_data_common(__func__, handle, &r, dxDesc, dx, dyDesc, y, dy, dhyDesc, dhy, dcyDesc, dcy, wDesc, w, hxDesc,
                           hx, cxDesc, cx, dhxDesc, dhx, dcxDesc, dcx, workSpace, workSpaceSizeInBytes, reserveSpace,
                           reserveSpaceSizeInBytes);
}

/* The legacy weight-gradient calls add into dw, as cuDNN's do. */
cudnnStatus_t HD_IMPL(cudnnRNNBackwardWeights)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int seqLength, const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
    const void *hx, const cudnnTensorDescriptor_t *yDesc, const void *y, const void *workSpace,
    size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw, const void *reserveSpace,
    size_t reserveSpaceSizeInBytes)
{
    cudnnStatus_t st = hd_handle_check(handle, __func__);
    if (st != CUDNN_STATUS_SUCCESS || (st = hd_rnn_check_desc(__func__, rnnDesc)) != CUDNN_STATUS_SUCCESS)
        return st;
    struct cudnnRNNDataStruct xd, yd;
    struct cudnnRNNStruct r;
    int *xl = NULL, *yl = NULL;
    size_t wbytes = 0;
    HD_LTRY(hd_rnn_legacy_data(__func__, "xDesc", seqLength, xDesc, -1, &xd, &xl));
    HD_LTRY(hd_rnn_legacy_view(__func__, rnnDesc, xd.vec, xd.dtype, &r));
    HD_LTRY(hd_rnn_legacy_data(__func__, "yDesc", seqLength, yDesc, hd_rnn_dirs(&r) * r.proj_size, &yd, &yl));
    HD_LTRY(hd_rnn_same_lens(__func__, &xd, &yd, "xDesc", "yDesc"));
    HD_LTRY(hd_rnn_opt_state(__func__, hxDesc, "hxDesc", &r, xd.batch, r.proj_size, hx));
    HD_LTRY(hd_rnn_legacy_filter(__func__, "dwDesc", dwDesc, &r, &wbytes));
    HD_LTRY(hd_rnn_check_legacy_work(__func__, &r, &xd, workSpaceSizeInBytes));
    /* the kernels only read the work and reserve spaces here, whatever the const-ness */
    HD_LTRY(hd_rnn_run_backward_weights(__func__, handle, &r, &xd, x, hx, y, wbytes, dw, workSpaceSizeInBytes,
                                        (void *)(uintptr_t)workSpace, reserveSpaceSizeInBytes, reserveSpace));
done:
    free(xl); free(yl);
    return st;
}

cudnnStatus_t HD_IMPL(cudnnRNNBackwardWeightsEx)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const cudnnRNNDataDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc, const void *hx,
    const cudnnRNNDataDescriptor_t yDesc, const void *y, void *workSpace, size_t workSpaceSizeInBytes,
    const cudnnFilterDescriptor_t dwDesc, void *dw, void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    cudnnStatus_t st = hd_handle_check(handle, __func__);
    if (st != CUDNN_STATUS_SUCCESS || (st = hd_rnn_check_desc(__func__, rnnDesc)) != CUDNN_STATUS_SUCCESS)
        return st;
    if ((st = hd_check_obj(xDesc, HD_TAG_RNN_DATA, "xDesc", __func__)))
        return st;
    if (!xDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc was never set");
    struct cudnnRNNStruct r;
    size_t wbytes = 0;
    if ((st = hd_rnn_legacy_view(__func__, rnnDesc, xDesc->vec, xDesc->dtype, &r)) ||
        (st = hd_rnn_check_data(__func__, yDesc, "yDesc", &r, hd_rnn_dirs(&r) * r.proj_size)) ||
        (st = hd_rnn_check_same_seqs(__func__, xDesc, yDesc)) ||
        (st = hd_rnn_opt_state(__func__, hxDesc, "hxDesc", &r, xDesc->batch, r.proj_size, hx)) ||
        (st = hd_rnn_legacy_filter(__func__, "dwDesc", dwDesc, &r, &wbytes)) ||
        (st = hd_rnn_check_legacy_work(__func__, &r, xDesc, workSpaceSizeInBytes)))
        return st;
    return hd_rnn_run_backward_weights(__func__, handle, &r, xDesc, x, hx, y, wbytes, dw, workSpaceSizeInBytes, workSpace,
                                       reserveSpaceSizeInBytes, reserveSpace);
}
