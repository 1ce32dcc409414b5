/*
 * Sequence data descriptor: a 4-d container (time, batch, beam, vector) whose axes may be
 * stored in any order, plus per-(batch, beam) sequence lengths.
 */
#include <stdlib.h>
#include <string.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "attn/attn_problem.h"

cudnnStatus_t HD_IMPL(cudnnCreateSeqDataDescriptor)(cudnnSeqDataDescriptor_t *seqDataDesc)
{
    HD_CHECK_PTR(seqDataDesc);
    struct cudnnSeqDataStruct *d = hd_object_new(sizeof *d, HD_TAG_SEQ_DATA);
    if (!d)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *seqDataDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroySeqDataDescriptor)(cudnnSeqDataDescriptor_t seqDataDesc)
{
    HD_CHECK_DESC(seqDataDesc, HD_TAG_SEQ_DATA);
    free(seqDataDesc->seq_len);
    seqDataDesc->seq_len = NULL;
    seqDataDesc->is_set = 0;
    hd_object_free(seqDataDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetSeqDataDescriptor)(cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t dataType,
    int nbDims, const int dimA[], const cudnnSeqDataAxis_t axes[], size_t seqLengthArraySize,
    const int seqLengthArray[], void *paddingFill)
{
    HD_CHECK_DESC(seqDataDesc, HD_TAG_SEQ_DATA);
    if ((unsigned)dataType > (unsigned)CUDNN_DATA_INT64)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dataType %d is not a cudnnDataType_t", (int)dataType);
    if (dataType != CUDNN_DATA_FLOAT && dataType != CUDNN_DATA_DOUBLE && dataType != CUDNN_DATA_HALF)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "sequence data must be FLOAT, DOUBLE or HALF (got %s)",
                       hd_dtype_name(dataType));
    if (nbDims != CUDNN_SEQDATA_DIM_COUNT)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "nbDims must be %d (got %d)", CUDNN_SEQDATA_DIM_COUNT, nbDims);
    HD_CHECK_PTR(dimA);
    HD_CHECK_PTR(axes);
    HD_CHECK_PTR(seqLengthArray);
    int seen[CUDNN_SEQDATA_DIM_COUNT] = { 0 };
    for (int i = 0; i < CUDNN_SEQDATA_DIM_COUNT; i++) {
        if (dimA[i] <= 0)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dimA[%d] must be positive (got %d)", i, dimA[i]);
        if ((unsigned)axes[i] >= CUDNN_SEQDATA_DIM_COUNT)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "axes[%d] = %d is not a cudnnSeqDataAxis_t", i, (int)axes[i]);
        if (seen[axes[i]]++)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "axes[] names axis %d twice", (int)axes[i]);
    }
    if (axes[CUDNN_SEQDATA_DIM_COUNT - 1] != CUDNN_SEQDATA_VECT_DIM)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the vector axis must be the innermost (last in axes[])");
    size_t want = (size_t)dimA[CUDNN_SEQDATA_BATCH_DIM] * (size_t)dimA[CUDNN_SEQDATA_BEAM_DIM];
    if (seqLengthArraySize != want)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "seqLengthArraySize must be batch*beam = %zu (got %zu)", want,
                       seqLengthArraySize);
    int T = dimA[CUDNN_SEQDATA_TIME_DIM];
    for (size_t i = 0; i < want; i++)
        if (seqLengthArray[i] < 1 || seqLengthArray[i] > T)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "seqLengthArray[%zu] = %d is outside 1..%d", i, seqLengthArray[i], T);
    int *lens = malloc(want * sizeof *lens);
    if (!lens)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory for %zu sequence lengths", want);
    memcpy(lens, seqLengthArray, want * sizeof *lens);
    free(seqDataDesc->seq_len);
    seqDataDesc->seq_len = lens;
    seqDataDesc->nlens = want;
    seqDataDesc->dtype = dataType;
    for (int i = 0; i < CUDNN_SEQDATA_DIM_COUNT; i++) {
        seqDataDesc->dims[i] = dimA[i];
        seqDataDesc->axes[i] = axes[i];
    }
    seqDataDesc->has_fill = paddingFill != NULL;
    seqDataDesc->fill = !paddingFill ? 0.0
                      : dataType == CUDNN_DATA_DOUBLE ? *(const double *)paddingFill
                                                      : (double)*(const float *)paddingFill;
    seqDataDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetSeqDataDescriptor)(const cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t *dataType,
    int *nbDims, int nbDimsRequested, int dimA[], cudnnSeqDataAxis_t axes[], size_t *seqLengthArraySize,
    size_t seqLengthSizeRequested, int seqLengthArray[], void *paddingFill)
{
    HD_CHECK_DESC(seqDataDesc, HD_TAG_SEQ_DATA);
    if (!seqDataDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "seqDataDesc was never set");
    if (nbDimsRequested < 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "nbDimsRequested must not be negative (got %d)", nbDimsRequested);
    /* Every output is optional, as in cuDNN 8.5 (checked against it, docs/rnn.md): NVIDIA's
     * multiHeadAttention sample asks for the dims and axes only, with dataType, the length
     * array and paddingFill NULL.  A NULL array is "not wanted" whatever count comes with it. */
    const struct cudnnSeqDataStruct *d = seqDataDesc;
    if (dataType)
        *dataType = d->dtype;
    if (nbDims)
        *nbDims = CUDNN_SEQDATA_DIM_COUNT;
    int nd = nbDimsRequested < CUDNN_SEQDATA_DIM_COUNT ? nbDimsRequested : CUDNN_SEQDATA_DIM_COUNT;
    for (int i = 0; i < nd; i++) {
        if (dimA)
            dimA[i] = d->dims[i];
        if (axes)
            axes[i] = d->axes[i];
    }
    if (seqLengthArraySize)
        *seqLengthArraySize = d->nlens;
    size_t n = seqLengthSizeRequested < d->nlens ? seqLengthSizeRequested : d->nlens;
    if (n > 0 && seqLengthArray)
        memcpy(seqLengthArray, d->seq_len, n * sizeof *seqLengthArray);
    if (paddingFill) {
        if (d->dtype == CUDNN_DATA_DOUBLE)
            *(double *)paddingFill = d->fill;
        else
            *(float *)paddingFill = (float)d->fill;
    }
    return CUDNN_STATUS_SUCCESS;
}
