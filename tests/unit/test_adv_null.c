/* Every implemented adv function called with NULL / zero arguments answers BAD_PARAM (and does
 * not crash); the same with a live handle but NULL descriptors. */
#include <cudnn.h>
#include "harness.h"

#define BAD(expr) CHECK_STATUS(expr, CUDNN_STATUS_BAD_PARAM)

static void sweep(cudnnHandle_t h)
{
    BAD(cudnnSetRNNDescriptor_v8(NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, 0));
    BAD(cudnnGetRNNDescriptor_v8(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    BAD(cudnnSetRNNDescriptor_v6(h, NULL, 0, 0, NULL, 0, 0, 0, 0, 0));
    BAD(cudnnGetRNNDescriptor_v6(h, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    BAD(cudnnSetRNNMatrixMathType(NULL, 0));
    BAD(cudnnGetRNNMatrixMathType(NULL, NULL));
    BAD(cudnnSetRNNBiasMode(NULL, 0));
    BAD(cudnnGetRNNBiasMode(NULL, NULL));
    BAD(cudnnRNNSetClip_v8(NULL, 0, 0, 0, 0));
    BAD(cudnnRNNGetClip_v8(NULL, NULL, NULL, NULL, NULL));
    BAD(cudnnRNNSetClip(h, NULL, 0, 0, 0, 0));
    BAD(cudnnRNNGetClip(h, NULL, NULL, NULL, NULL, NULL));
    BAD(cudnnSetRNNProjectionLayers(h, NULL, 0, 0));
    BAD(cudnnGetRNNProjectionLayers(h, NULL, NULL, NULL));
    BAD(cudnnCreatePersistentRNNPlan(NULL, 0, 0, NULL));
    BAD(cudnnSetPersistentRNNPlan(NULL, NULL));
    BAD(cudnnDestroyPersistentRNNPlan(NULL));
    BAD(cudnnBuildRNNDynamic(h, NULL, 0));
    BAD(cudnnGetRNNWorkspaceSize(h, NULL, 0, NULL, NULL));
    BAD(cudnnGetRNNTrainingReserveSize(h, NULL, 0, NULL, NULL));
    BAD(cudnnGetRNNTempSpaceSizes(h, NULL, 0, NULL, NULL, NULL));
    BAD(cudnnGetRNNParamsSize(h, NULL, NULL, NULL, 0));
    BAD(cudnnGetRNNWeightSpaceSize(h, NULL, NULL));
    BAD(cudnnGetRNNLinLayerMatrixParams(h, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL));
    BAD(cudnnGetRNNLinLayerBiasParams(h, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL));
    BAD(cudnnGetRNNWeightParams(h, NULL, 0, 0, NULL, 0, NULL, NULL, NULL, NULL));
    BAD(cudnnRNNForwardInference(h, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL, NULL, 0));
    BAD(cudnnSetRNNPaddingMode(NULL, 0));
    BAD(cudnnGetRNNPaddingMode(NULL, NULL));
    BAD(cudnnSetRNNDataDescriptor(NULL, 0, 0, 0, 0, 0, NULL, NULL));
    BAD(cudnnGetRNNDataDescriptor(NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL));
    BAD(cudnnRNNForwardInferenceEx(h, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0));
    BAD(cudnnRNNForward(h, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, 0,
                        NULL));
    BAD(cudnnSetRNNAlgorithmDescriptor(h, NULL, NULL));
    BAD(cudnnSetSeqDataDescriptor(NULL, 0, 0, NULL, NULL, 0, NULL, NULL));
    BAD(cudnnGetSeqDataDescriptor(NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL));
    BAD(cudnnSetAttnDescriptor(NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    BAD(cudnnGetAttnDescriptor(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                               NULL, NULL, NULL, NULL, NULL));
    BAD(cudnnGetMultiHeadAttnBuffers(h, NULL, NULL, NULL, NULL));
    BAD(cudnnGetMultiHeadAttnWeights(h, NULL, 0, 0, NULL, NULL, NULL));
    BAD(cudnnMultiHeadAttnForward(h, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                  0, NULL, 0, NULL, 0, NULL));
    BAD(cudnnRNNForwardTraining(h, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL, 0, NULL, 0));
    BAD(cudnnRNNBackwardData(h, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                             NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0));
    BAD(cudnnRNNBackwardData_v8(h, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                0, NULL, 0, NULL, 0, NULL));
    BAD(cudnnRNNBackwardWeights(h, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, 0));
    BAD(cudnnRNNBackwardWeights_v8(h, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, 0, NULL));
    BAD(cudnnRNNForwardTrainingEx(h, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0));
    BAD(cudnnRNNBackwardDataEx(h, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                               NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0));
    BAD(cudnnRNNBackwardWeightsEx(h, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, 0));
    BAD(cudnnMultiHeadAttnBackwardData(h, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                       NULL, NULL, NULL, 0, NULL, 0, NULL, 0, NULL));
    BAD(cudnnMultiHeadAttnBackwardWeights(h, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                          NULL, 0, NULL));
}

int main(void)
{
    SECTION("NULL handle");
    sweep(NULL);
    SECTION("live handle, NULL descriptors");
    cudnnHandle_t h;
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 1;
    sweep(h);
    /* creates with NULL outputs */
    BAD(cudnnCreateRNNDescriptor(NULL));
    BAD(cudnnCreateRNNDataDescriptor(NULL));
    BAD(cudnnCreateSeqDataDescriptor(NULL));
    BAD(cudnnCreateAttnDescriptor(NULL));
    cudnnDestroy(h);
    return hd_test_finish();
}
