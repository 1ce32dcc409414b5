/*
 * cublas/lt.c -- libcublasLt.so.11: handle creation and version queries only.
 *
 * Programs such as NVIDIA's cuDNN samples link cuBLASLt without calling it; a handle here
 * holds nothing but a marker, and the matmul API is not provided.
 */
#include "cublasLt.h"

#include <stdlib.h>

#define LT_API __attribute__((visibility("default")))
#define LT_MAGIC 0x4c54484455u   /* "LTHDU" */

struct cublasLtContext {
    unsigned long long magic;
};

LT_API cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
{
    if (!lightHandle)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct cublasLtContext *h = malloc(sizeof *h);
    if (!h)
        return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = LT_MAGIC;
    *lightHandle = h;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle)
{
    if (!lightHandle || lightHandle->magic != LT_MAGIC)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    lightHandle->magic = 0;
    free(lightHandle);
    return CUBLAS_STATUS_SUCCESS;
}

LT_API size_t cublasLtGetVersion(void)
{
    return CUBLAS_VERSION;
}

LT_API size_t cublasLtGetCudartVersion(void)
{
    return 11020;
}

LT_API cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch ((int)type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}
