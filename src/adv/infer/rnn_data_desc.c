/*
 * RNN data descriptor: a batch of variable-length sequences of vectors in one of three
 * layouts (time-major padded, time-major packed, batch-major padded).
 */
#include <stdlib.h>
#include <string.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "rnn/rnn_problem.h"

cudnnStatus_t HD_IMPL(cudnnCreateRNNDataDescriptor)(cudnnRNNDataDescriptor_t *rnnDataDesc)
{
    HD_CHECK_PTR(rnnDataDesc);
    struct cudnnRNNDataStruct *d = hd_object_new(sizeof *d, HD_TAG_RNN_DATA);
    if (!d)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *rnnDataDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyRNNDataDescriptor)(cudnnRNNDataDescriptor_t rnnDataDesc)
{
    HD_CHECK_DESC(rnnDataDesc, HD_TAG_RNN_DATA);
    free(rnnDataDesc->seq_len);
    rnnDataDesc->seq_len = NULL;
    rnnDataDesc->is_set = 0;
    hd_object_free(rnnDataDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetRNNDataDescriptor)(cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t dataType,
    cudnnRNNDataLayout_t layout, int maxSeqLength, int batchSize, int vectorSize, const int seqLengthArray[],
    void *paddingFill)
{
    HD_CHECK_DESC(rnnDataDesc, HD_TAG_RNN_DATA);
    if ((unsigned)dataType > (unsigned)CUDNN_DATA_INT64)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dataType %d is not a cudnnDataType_t", (int)dataType);
    if (dataType != CUDNN_DATA_FLOAT && dataType != CUDNN_DATA_DOUBLE && dataType != CUDNN_DATA_HALF)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "RNN data must be FLOAT, DOUBLE or HALF (got %s)",
                       hd_dtype_name(dataType));
    if ((unsigned)layout > (unsigned)CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "layout %d is not a cudnnRNNDataLayout_t", (int)layout);
    if (maxSeqLength <= 0 || batchSize <= 0 || vectorSize <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "maxSeqLength, batchSize and vectorSize must be positive (got %d, %d, %d)",
                       maxSeqLength, batchSize, vectorSize);
    HD_CHECK_PTR(seqLengthArray);
    for (int b = 0; b < batchSize; b++) {
        if (seqLengthArray[b] < 0 || seqLengthArray[b] > maxSeqLength)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "seqLengthArray[%d] = %d is outside 0..maxSeqLength=%d", b,
                           seqLengthArray[b], maxSeqLength);
        if (layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED && b > 0 && seqLengthArray[b] > seqLengthArray[b - 1])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the packed layout needs seqLengthArray sorted in descending order "
                           "(entry %d: %d > %d)", b, seqLengthArray[b], seqLengthArray[b - 1]);
    }
    int *lens = malloc((size_t)batchSize * sizeof *lens);
    if (!lens)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory for %d sequence lengths", batchSize);
    memcpy(lens, seqLengthArray, (size_t)batchSize * sizeof *lens);
    free(rnnDataDesc->seq_len);
    rnnDataDesc->seq_len = lens;
    rnnDataDesc->dtype = dataType;
    rnnDataDesc->layout = layout;
    rnnDataDesc->max_seq = maxSeqLength;
    rnnDataDesc->batch = batchSize;
    rnnDataDesc->vec = vectorSize;
    /* paddingFill points at a double for DOUBLE data and at a float otherwise (as alpha/beta). */
    rnnDataDesc->has_fill = paddingFill != NULL;
    rnnDataDesc->fill = !paddingFill ? 0.0
                      : dataType == CUDNN_DATA_DOUBLE ? *(const double *)paddingFill
                                                      : (double)*(const float *)paddingFill;
    rnnDataDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetRNNDataDescriptor)(cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t *dataType,
    cudnnRNNDataLayout_t *layout, int *maxSeqLength, int *batchSize, int *vectorSize, int arrayLengthRequested,
    int seqLengthArray[], void *paddingFill)
{
    HD_CHECK_DESC(rnnDataDesc, HD_TAG_RNN_DATA);
    if (!rnnDataDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "rnnDataDesc was never set");
    if (!dataType || !layout || !maxSeqLength || !batchSize || !vectorSize || !paddingFill)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    if (arrayLengthRequested < 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "arrayLengthRequested must not be negative (got %d)", arrayLengthRequested);
    if (arrayLengthRequested > 0 && !seqLengthArray)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "seqLengthArray is NULL with arrayLengthRequested = %d", arrayLengthRequested);
    const struct cudnnRNNDataStruct *d = rnnDataDesc;
    *dataType = d->dtype;
    *layout = d->layout;
    *maxSeqLength = d->max_seq;
    *batchSize = d->batch;
    *vectorSize = d->vec;
    int n = arrayLengthRequested < d->batch ? arrayLengthRequested : d->batch;
    if (n > 0)
        memcpy(seqLengthArray, d->seq_len, (size_t)n * sizeof *seqLengthArray);
    if (d->has_fill) {   /* untouched when the descriptor has no fill value, as in cuDNN */
        if (d->dtype == CUDNN_DATA_DOUBLE)
            *(double *)paddingFill = d->fill;
        else
            *(float *)paddingFill = (float)d->fill;
    }
    return CUDNN_STATUS_SUCCESS;
}
