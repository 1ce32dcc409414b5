/*
 * cudnnGetFoldedConvBackwardDataDescriptors: the descriptors for computing a strided
 * backward-data convolution as a folded (space-to-depth) stride-1 problem.
 *
 * cuDNN 8.1 documents the outputs (folded filter, padded diff, folded convolution, folded
 * grad, and the four transforms between the user's layouts and the folded ones) but not the
 * folding itself: how a stride-s problem is rearranged into the fold factors and paddings of
 * each descriptor.  hostdnn therefore answers only the case whose answer is forced:
 *
 * - all convolution strides 1: nothing to fold.  Fold factors are 1 and paddings 0; each
 *   transform converts into transformFormat (the FOLD direction for the filter, diff and grad,
 *   UNFOLD for gradUnfoldTransDesc), the folded filter/diff/grad descriptors are what those
 *   transforms produce (cudnnInitTransformDest: same dims and type, packed in
 *   transformFormat -- the inputs themselves when they already are), and the folded
 *   convolution is a copy of convDesc.
 * - strides above 1 (2-d, one group, unit dilation, cross-correlation): space-to-depth
 *   folding by the strides, see fold_strided(); other strided problems answer NOT_SUPPORTED.
 *
 * Everything is checked before any output descriptor is written.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/desc_set.h"
#include "conv/conv_problem.h"
#include "hd_impl.h"

#include <string.h>

typedef struct cudnnTensorStruct tensor_t;
typedef struct cudnnFilterStruct filter_t;
typedef struct cudnnConvolutionStruct conv_t;

#define TRY(expr) do { cudnnStatus_t st_ = (expr); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

static int plain_type(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ||
           t == CUDNN_DATA_INT8 || t == CUDNN_DATA_UINT8 || t == CUDNN_DATA_INT32;
}

static cudnnStatus_t check_inputs(const char *fn, const filter_t *w, const tensor_t *dy, const conv_t *c,
                                  const tensor_t *dx, cudnnTensorFormat_t fmt)
{
    TRY(hd_check_obj(w, HD_TAG_FILTER, "filterDesc", fn));
    TRY(hd_check_obj(dy, HD_TAG_TENSOR, "diffDesc", fn));
    TRY(hd_check_obj(c, HD_TAG_CONV, "convDesc", fn));
    TRY(hd_check_obj(dx, HD_TAG_TENSOR, "gradDesc", fn));
    if (w->nbDims == 0 || dy->nbDims == 0 || dx->nbDims == 0 || c->nbSpatial == 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "filterDesc, diffDesc, convDesc and gradDesc must all be set");
    if ((unsigned)fmt > (unsigned)CUDNN_TENSOR_NCHW_VECT_C)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "transformFormat %d is not a cudnnTensorFormat_t", (int)fmt);
    int nb = dx->nbDims;
    if (nb != 4 && nb != 5)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "gradDesc has %d dims; folding is defined for 4-d and 5-d tensors",
                       nb);
    if (dy->nbDims != nb || w->nbDims != nb || c->nbSpatial != nb - 2)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "filter (%d dims), diff (%d), grad (%d) and convolution (%d "
                       "spatial) ranks disagree", w->nbDims, dy->nbDims, nb, c->nbSpatial);
    if (w->dtype != dy->dtype || dx->dtype != dy->dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "filter, diff and grad must have one data type (%s, %s, %s)",
                       hd_dtype_name(w->dtype), hd_dtype_name(dy->dtype), hd_dtype_name(dx->dtype));
    /* diff must be the forward output of (grad, filter, conv) */
    int want[CUDNN_DIM_MAX];
    cudnnStatus_t st = hd_conv_output_dims(c, dx, w, want, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "gradDesc, filterDesc and convDesc do not form a convolution");
    for (int i = 0; i < nb; i++)
        if (dy->dims[i] != want[i])
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "diffDesc dim %d is %d; the convolution of gradDesc gives %d",
                           i, dy->dims[i], want[i]);
    if (!plain_type(dx->dtype) || dx->vect_c != 1 || dy->vect_c != 1 || w->vect_c != 1 ||
        fmt == CUDNN_TENSOR_NCHW_VECT_C)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "vectorised (NCHW_VECT_C) data is not folded");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_outputs(const char *fn, const void *fw, const void *pdy, const void *fc, const void *fdx,
                                   const void *t0, const void *t1, const void *t2, const void *t3)
{
    TRY(hd_check_obj(fw, HD_TAG_FILTER, "foldedFilterDesc", fn));
    TRY(hd_check_obj(pdy, HD_TAG_TENSOR, "paddedDiffDesc", fn));
    TRY(hd_check_obj(fc, HD_TAG_CONV, "foldedConvDesc", fn));
    TRY(hd_check_obj(fdx, HD_TAG_TENSOR, "foldedGradDesc", fn));
    TRY(hd_check_obj(t0, HD_TAG_TRANSFORM, "filterFoldTransDesc", fn));
    TRY(hd_check_obj(t1, HD_TAG_TRANSFORM, "diffPadTransDesc", fn));
    TRY(hd_check_obj(t2, HD_TAG_TRANSFORM, "gradFoldTransDesc", fn));
    TRY(hd_check_obj(t3, HD_TAG_TRANSFORM, "gradUnfoldTransDesc", fn));
    const void *all[8] = { fw, pdy, fc, fdx, t0, t1, t2, t3 };
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++)
            if (all[i] == all[j])
                return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the output descriptors must be distinct objects");
    return CUDNN_STATUS_SUCCESS;
}

/*
 * Strided problems (2-d, unit dilation, one group, cross-correlation or a 1x1 filter):
 * space-to-depth by the
 * strides (u, v).  With h + ph = u*i + a, only filter rows r = a + u*t reach dx row h, from dy
 * row i - t; so each phase (a, b) of dx is a stride-1 backward-data convolution of dy with the
 * filter taps of that phase.  Folding the phases into channels gives one problem:
 *   folded filter  K x C*u*v x ceil(R/u) x ceil(S/v)   (filter FOLD, no padding)
 *   dy             unchanged                           (identity "padding" transform)
 *   folded conv    padding 0, stride 1, dilation 1, cross-correlation
 *   folded dx      N x C*u*v x (P + ceil(R/u) - 1) x (Q + ceil(S/v) - 1)
 *   dx             UNFOLD of folded dx with offsets (ph, pw)
 * using the folding transform defined in src/ops/infer/transform.c.
 */
static cudnnStatus_t fold_strided(const char *fn, const filter_t *w, const tensor_t *dy, const conv_t *c,
                                  const tensor_t *dx, cudnnTensorFormat_t fmt, cudnnFilterDescriptor_t fw,
                                  cudnnTensorDescriptor_t pdy, cudnnConvolutionDescriptor_t fc,
                                  cudnnTensorDescriptor_t fdx, cudnnTensorTransformDescriptor_t t_filter,
                                  cudnnTensorTransformDescriptor_t t_diff, cudnnTensorTransformDescriptor_t t_fold,
                                  cudnnTensorTransformDescriptor_t t_unfold)
{
    if (dx->nbDims != 4)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "strided folding is implemented for 2-d convolutions only");
    /* CUDNN_CONVOLUTION flips the filter, which the folding transform does not do; for a 1x1
     * filter the flip changes nothing, so that case is folded too. */
    int flip_free = c->mode == CUDNN_CROSS_CORRELATION || (w->dims[2] == 1 && w->dims[3] == 1);
    if (c->group_count != 1 || c->dilation[0] != 1 || c->dilation[1] != 1 || !flip_free)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "strided folding needs one group, unit dilation and "
                       "CUDNN_CROSS_CORRELATION (or a 1x1 filter)");
    const int u = c->stride[0], v = c->stride[1];
    const int K = w->dims[0], C = w->dims[1], R = w->dims[2], S = w->dims[3];
    const int Rf = (R + u - 1) / u, Sf = (S + v - 1) / v;
    int32_t pad0[CUDNN_DIM_MAX] = {0}, padx[CUDNN_DIM_MAX] = {0};
    uint32_t fold1[CUDNN_DIM_MAX], fold[CUDNN_DIM_MAX];
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        fold1[i] = fold[i] = 1;
    fold[0] = (uint32_t)u, fold[1] = (uint32_t)v;
    padx[2] = c->pad[0], padx[3] = c->pad[1];
    const int fw_dims[4] = {K, C * u * v, Rf, Sf};
    const int fdx_dims[4] = {dx->dims[0], C * u * v, dy->dims[2] + Rf - 1, dy->dims[3] + Sf - 1};
    const int zero2[2] = {0, 0}, one2[2] = {1, 1};
    cudnnStatus_t st = hd_impl_cudnnSetTensorTransformDescriptor(t_filter, 4, fmt, pad0, pad0, fold, CUDNN_TRANSFORM_FOLD);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_impl_cudnnSetTensorTransformDescriptor(t_diff, 4, fmt, pad0, pad0, fold1, CUDNN_TRANSFORM_FOLD);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_impl_cudnnSetTensorTransformDescriptor(t_fold, 4, fmt, padx, pad0, fold, CUDNN_TRANSFORM_FOLD);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_impl_cudnnSetTensorTransformDescriptor(t_unfold, 4, fmt, padx, pad0, fold, CUDNN_TRANSFORM_UNFOLD);
    size_t bytes;
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_impl_cudnnInitTransformDest(t_diff, (cudnnTensorDescriptor_t)(uintptr_t)dy, pdy, &bytes);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_filter_set(fw, w->dtype, fmt, 4, fw_dims, fn);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_tensor_set_format(fdx, fmt, dx->dtype, 4, fdx_dims, fn);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_conv_desc_set(fc, 2, zero2, one2, one2, CUDNN_CROSS_CORRELATION, c->compute_type, fn);
    if (st == CUDNN_STATUS_SUCCESS)
        fc->math_type = c->math_type;
    if (st != CUDNN_STATUS_SUCCESS)
        return hd_fail(st, fn, "could not describe the folded problem");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetFoldedConvBackwardDataDescriptors)(const cudnnHandle_t handle,
    const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc,
    const cudnnTensorFormat_t transformFormat, cudnnFilterDescriptor_t foldedFilterDesc,
    cudnnTensorDescriptor_t paddedDiffDesc, cudnnConvolutionDescriptor_t foldedConvDesc,
    cudnnTensorDescriptor_t foldedGradDesc, cudnnTensorTransformDescriptor_t filterFoldTransDesc,
    cudnnTensorTransformDescriptor_t diffPadTransDesc, cudnnTensorTransformDescriptor_t gradFoldTransDesc,
    cudnnTensorTransformDescriptor_t gradUnfoldTransDesc)
{
    HD_CHECK_HANDLE(handle);
    TRY(check_inputs(__func__, filterDesc, diffDesc, convDesc, gradDesc, transformFormat));
    TRY(check_outputs(__func__, foldedFilterDesc, paddedDiffDesc, foldedConvDesc, foldedGradDesc,
                      filterFoldTransDesc, diffPadTransDesc, gradFoldTransDesc, gradUnfoldTransDesc));
    /* the inputs may be among the outputs only where the answer leaves them as they are */
    if ((const void *)foldedConvDesc == (const void *)convDesc)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "foldedConvDesc must not be convDesc");
    if ((const void *)foldedFilterDesc == (const void *)filterDesc ||
        (const void *)paddedDiffDesc == (const void *)diffDesc ||
        (const void *)foldedGradDesc == (const void *)gradDesc ||
        (const void *)paddedDiffDesc == (const void *)gradDesc || (const void *)foldedGradDesc == (const void *)diffDesc)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the output descriptors must not be the input descriptors");
    const int nb = gradDesc->nbDims, ns = nb - 2;
    int strided = 0;
    for (int i = 0; i < ns; i++)
        strided |= convDesc->stride[i] != 1;
    if (strided)
        return fold_strided(__func__, filterDesc, diffDesc, convDesc, gradDesc, transformFormat, foldedFilterDesc,
                            paddedDiffDesc, foldedConvDesc, foldedGradDesc, filterFoldTransDesc, diffPadTransDesc,
                            gradFoldTransDesc, gradUnfoldTransDesc);

    /* Stride 1: identity transforms into transformFormat.  Build everything aside first. */
    int32_t pad0[CUDNN_DIM_MAX];
    uint32_t fold1[CUDNN_DIM_MAX];
    memset(pad0, 0, sizeof pad0);
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        fold1[i] = 1;
    cudnnTensorTransformDescriptor_t t[4] = { filterFoldTransDesc, diffPadTransDesc, gradFoldTransDesc,
                                              gradUnfoldTransDesc };
    for (int i = 0; i < 4; i++) {
        cudnnStatus_t st = hd_impl_cudnnSetTensorTransformDescriptor(t[i], (uint32_t)nb, transformFormat, pad0, pad0, fold1,
                                                             i == 3 ? CUDNN_TRANSFORM_UNFOLD : CUDNN_TRANSFORM_FOLD);
        if (st != CUDNN_STATUS_SUCCESS)
            return HD_FAIL(st, "could not set transform descriptor %d", i);
    }
    size_t bytes = 0;
    cudnnStatus_t st = hd_impl_cudnnInitTransformDest(diffPadTransDesc, diffDesc, paddedDiffDesc, &bytes);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_impl_cudnnInitTransformDest(gradFoldTransDesc, gradDesc, foldedGradDesc, &bytes);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_filter_set(foldedFilterDesc, filterDesc->dtype, transformFormat, nb, filterDesc->dims, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return HD_FAIL(st, "could not describe the folded tensors");
    hd_object keep = foldedConvDesc->obj;
    *foldedConvDesc = *convDesc;
    foldedConvDesc->obj = keep;
    return CUDNN_STATUS_SUCCESS;
}
