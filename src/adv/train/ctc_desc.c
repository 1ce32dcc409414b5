/*
 * CTC-loss descriptors: create, the three setter/getter generations (plain, Ex, _v8),
 * destroy.  A new descriptor reads back FLOAT / NORMALIZATION_NONE / NOT_PROPAGATE_NAN /
 * maxLabelLength 0, as cuDNN's does; the plain and Ex setters reset the fields they do not
 * take to those defaults (cuDNN 9 does the same).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "adv/train/ctc.h"

typedef struct cudnnCTCLossStruct ctc_t;

static void set_defaults(ctc_t *c)
{
    c->comp_type = CUDNN_DATA_FLOAT;
    c->norm_mode = CUDNN_LOSS_NORMALIZATION_NONE;
    c->grad_mode = CUDNN_NOT_PROPAGATE_NAN;
    c->max_label_length = 0;
}

/* Validate and store; FN names the public function for the log. */
static cudnnStatus_t set_all(const char *fn, ctc_t *c, cudnnDataType_t comp, cudnnLossNormalizationMode_t norm,
                             cudnnNanPropagation_t grad, int max_label)
{
    if (comp != CUDNN_DATA_FLOAT && comp != CUDNN_DATA_DOUBLE)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "compType must be CUDNN_DATA_FLOAT or CUDNN_DATA_DOUBLE (got %s, %d)",
                       hd_dtype_name(comp), (int)comp);
    if (norm != CUDNN_LOSS_NORMALIZATION_NONE && norm != CUDNN_LOSS_NORMALIZATION_SOFTMAX)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "normMode %d is not a cudnnLossNormalizationMode_t", (int)norm);
    if (grad != CUDNN_NOT_PROPAGATE_NAN && grad != CUDNN_PROPAGATE_NAN)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "gradMode %d is not a cudnnNanPropagation_t", (int)grad);
    if (max_label < 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "maxLabelLength is negative (%d)", max_label);
    c->comp_type = comp;
    c->norm_mode = norm;
    c->grad_mode = grad;
    c->max_label_length = max_label;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnCreateCTCLossDescriptor)(cudnnCTCLossDescriptor_t *ctcLossDesc)
{
    HD_CHECK_PTR(ctcLossDesc);
    ctc_t *c = hd_object_new(sizeof *c, HD_TAG_CTC_LOSS);
    if (!c)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    set_defaults(c);
    *ctcLossDesc = c;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyCTCLossDescriptor)(cudnnCTCLossDescriptor_t ctcLossDesc)
{
    if (!ctcLossDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(ctcLossDesc, HD_TAG_CTC_LOSS);
    hd_object_free(ctcLossDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetCTCLossDescriptor)(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType)
{
    HD_CHECK_DESC(ctcLossDesc, HD_TAG_CTC_LOSS);
    return set_all("cudnnSetCTCLossDescriptor", ctcLossDesc, compType, CUDNN_LOSS_NORMALIZATION_NONE,
                   CUDNN_NOT_PROPAGATE_NAN, 0);
}

cudnnStatus_t HD_IMPL(cudnnSetCTCLossDescriptorEx)(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                                                   cudnnLossNormalizationMode_t normMode,
                                                   cudnnNanPropagation_t gradMode)
{
    HD_CHECK_DESC(ctcLossDesc, HD_TAG_CTC_LOSS);
    return set_all("cudnnSetCTCLossDescriptorEx", ctcLossDesc, compType, normMode, gradMode, 0);
}

cudnnStatus_t HD_IMPL(cudnnSetCTCLossDescriptor_v8)(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                                                    cudnnLossNormalizationMode_t normMode,
                                                    cudnnNanPropagation_t gradMode, int maxLabelLength)
{
    HD_CHECK_DESC(ctcLossDesc, HD_TAG_CTC_LOSS);
    return set_all("cudnnSetCTCLossDescriptor_v8", ctcLossDesc, compType, normMode, gradMode, maxLabelLength);
}

cudnnStatus_t HD_IMPL(cudnnGetCTCLossDescriptor)(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType)
{
    HD_CHECK_DESC(ctcLossDesc, HD_TAG_CTC_LOSS);
    /* Every CTC getter output is optional, as in cuDNN 8.5: NULL means "not wanted". */
    if (compType)
        *compType = ctcLossDesc->comp_type;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetCTCLossDescriptorEx)(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType,
                                                   cudnnLossNormalizationMode_t *normMode,
                                                   cudnnNanPropagation_t *gradMode)
{
    HD_CHECK_DESC(ctcLossDesc, HD_TAG_CTC_LOSS);
    if (compType) *compType = ctcLossDesc->comp_type;
    if (normMode) *normMode = ctcLossDesc->norm_mode;
    if (gradMode) *gradMode = ctcLossDesc->grad_mode;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetCTCLossDescriptor_v8)(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType,
                                                    cudnnLossNormalizationMode_t *normMode,
                                                    cudnnNanPropagation_t *gradMode, int *maxLabelLength)
{
    HD_CHECK_DESC(ctcLossDesc, HD_TAG_CTC_LOSS);
    if (compType) *compType = ctcLossDesc->comp_type;
    if (normMode) *normMode = ctcLossDesc->norm_mode;
    if (gradMode) *gradMode = ctcLossDesc->grad_mode;
    if (maxLabelLength) *maxLabelLength = ctcLossDesc->max_label_length;
    return CUDNN_STATUS_SUCCESS;
}
