/* Multi-head attention descriptor: create, set (validated), get, destroy. */
#include <math.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "attn/attn_problem.h"

cudnnStatus_t HD_IMPL(cudnnCreateAttnDescriptor)(cudnnAttnDescriptor_t *attnDesc)
{
    HD_CHECK_PTR(attnDesc);
    struct cudnnAttnStruct *a = hd_object_new(sizeof *a, HD_TAG_ATTN);
    if (!a)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *attnDesc = a;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyAttnDescriptor)(cudnnAttnDescriptor_t attnDesc)
{
    HD_CHECK_DESC(attnDesc, HD_TAG_ATTN);
    hd_object_free(attnDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetAttnDescriptor)(cudnnAttnDescriptor_t attnDesc, unsigned attnMode, int nHeads,
    double smScaler, cudnnDataType_t dataType, cudnnDataType_t computePrec, cudnnMathType_t mathType,
    cudnnDropoutDescriptor_t attnDropoutDesc, cudnnDropoutDescriptor_t postDropoutDesc, int qSize, int kSize,
    int vSize, int qProjSize, int kProjSize, int vProjSize, int oProjSize, int qoMaxSeqLength,
    int kvMaxSeqLength, int maxBatchSize, int maxBeamSize)
{
    HD_CHECK_DESC(attnDesc, HD_TAG_ATTN);
    if (attnMode & ~(unsigned)(CUDNN_ATTN_QUERYMAP_ONE_TO_ONE | CUDNN_ATTN_ENABLE_PROJ_BIASES))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "attnMode 0x%x has unknown bits", attnMode);
    if (nHeads <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "nHeads must be positive (got %d)", nHeads);
    if (smScaler < 0.0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "smScaler must not be negative (got %g)", smScaler);
    if (dataType != CUDNN_DATA_FLOAT && dataType != CUDNN_DATA_DOUBLE && dataType != CUDNN_DATA_HALF)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dataType %d must be FLOAT, DOUBLE or HALF", (int)dataType);
    int prec_ok = dataType == CUDNN_DATA_HALF ? (computePrec == CUDNN_DATA_HALF || computePrec == CUDNN_DATA_FLOAT)
                                              : computePrec == dataType;
    if ((unsigned)computePrec > (unsigned)CUDNN_DATA_INT64)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "computePrec %d is not a cudnnDataType_t", (int)computePrec);
    if (!prec_ok)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "computePrec %s does not go with dataType %s",
                       hd_dtype_name(computePrec), hd_dtype_name(dataType));
    if ((unsigned)mathType > (unsigned)CUDNN_FMA_MATH)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mathType %d is not a cudnnMathType_t", (int)mathType);
    if (attnDropoutDesc) HD_CHECK_DESC(attnDropoutDesc, HD_TAG_DROPOUT);
    if (postDropoutDesc) HD_CHECK_DESC(postDropoutDesc, HD_TAG_DROPOUT);
    if (qSize <= 0 || kSize <= 0 || vSize <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "qSize, kSize and vSize must be positive (got %d, %d, %d)", qSize, kSize, vSize);
    if (qProjSize < 0 || kProjSize < 0 || vProjSize < 0 || oProjSize < 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "projection sizes must not be negative");
    if (qProjSize != kProjSize)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "qProjSize and kProjSize must be equal (got %d, %d)", qProjSize, kProjSize);
    if (qProjSize == 0 && qSize != kSize)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "without Q/K projections qSize must equal kSize (got %d, %d)", qSize, kSize);
    if (qoMaxSeqLength <= 0 || kvMaxSeqLength <= 0 || maxBatchSize <= 0 || maxBeamSize <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "sequence lengths, batch and beam sizes must be positive");

    struct cudnnAttnStruct *a = attnDesc;
    a->mode = attnMode;
    a->n_heads = nHeads;
    a->sm_scaler = smScaler;
    a->dtype = dataType;
    a->comp_prec = computePrec;
    a->math_type = mathType;
    a->attn_dropout = attnDropoutDesc;
    a->post_dropout = postDropoutDesc;
    a->q_size = qSize; a->k_size = kSize; a->v_size = vSize;
    a->q_proj = qProjSize; a->k_proj = kProjSize; a->v_proj = vProjSize; a->o_proj = oProjSize;
    a->qo_max_seq = qoMaxSeqLength; a->kv_max_seq = kvMaxSeqLength;
    a->max_batch = maxBatchSize; a->max_beam = maxBeamSize;
    a->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetAttnDescriptor)(cudnnAttnDescriptor_t attnDesc, unsigned *attnMode, int *nHeads,
    double *smScaler, cudnnDataType_t *dataType, cudnnDataType_t *computePrec, cudnnMathType_t *mathType,
    cudnnDropoutDescriptor_t *attnDropoutDesc, cudnnDropoutDescriptor_t *postDropoutDesc, int *qSize, int *kSize,
    int *vSize, int *qProjSize, int *kProjSize, int *vProjSize, int *oProjSize, int *qoMaxSeqLength,
    int *kvMaxSeqLength, int *maxBatchSize, int *maxBeamSize)
{
    HD_CHECK_DESC(attnDesc, HD_TAG_ATTN);
    if (!attnDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "attnDesc was never set");
    const struct cudnnAttnStruct *a = attnDesc;
    /* Outputs are optional: NULL means "not wanted". */
    if (attnMode) *attnMode = a->mode;
    if (nHeads) *nHeads = a->n_heads;
    if (smScaler) *smScaler = a->sm_scaler;
    if (dataType) *dataType = a->dtype;
    if (computePrec) *computePrec = a->comp_prec;
    if (mathType) *mathType = a->math_type;
    if (attnDropoutDesc) *attnDropoutDesc = a->attn_dropout;
    if (postDropoutDesc) *postDropoutDesc = a->post_dropout;
    if (qSize) *qSize = a->q_size;
    if (kSize) *kSize = a->k_size;
    if (vSize) *vSize = a->v_size;
    if (qProjSize) *qProjSize = a->q_proj;
    if (kProjSize) *kProjSize = a->k_proj;
    if (vProjSize) *vProjSize = a->v_proj;
    if (oProjSize) *oProjSize = a->o_proj;
    if (qoMaxSeqLength) *qoMaxSeqLength = a->qo_max_seq;
    if (kvMaxSeqLength) *kvMaxSeqLength = a->kv_max_seq;
    if (maxBatchSize) *maxBatchSize = a->max_batch;
    if (maxBeamSize) *maxBeamSize = a->max_beam;
    return CUDNN_STATUS_SUCCESS;
}
