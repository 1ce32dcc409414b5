/* Versions: of this library, of the CUDA runtime it pairs with, and the self-check. */
#include "core/api.h"

/* cuDNN 8.1.0 was built for CUDA 11.2; programs compare against this. */
#define HD_CUDART_VERSION 11020

size_t HD_IMPL(cudnnGetVersion)(void) { return CUDNN_VERSION; }

size_t HD_IMPL(cudnnGetCudartVersion)(void) { return HD_CUDART_VERSION; }

cudnnStatus_t HD_IMPL(cudnnGetProperty)(libraryPropertyType type, int *value)
{
    if (!value)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "value is NULL");
    switch ((int)type) {
    case MAJOR_VERSION: *value = CUDNN_MAJOR; return CUDNN_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUDNN_MINOR; return CUDNN_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUDNN_PATCHLEVEL; return CUDNN_STATUS_SUCCESS;
    }
    return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "type %d is not a libraryPropertyType", (int)type);
}

/* ops_infer is the library the others are compared with, so it is always consistent. */
cudnnStatus_t HD_IMPL(cudnnOpsInferVersionCheck)(void) { return CUDNN_STATUS_SUCCESS; }
