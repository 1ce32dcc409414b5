/*
 * cublasLt.h -- hostdnn's stand-in for the cuBLASLt header: handle creation only.
 *
 * Programs (NVIDIA's cuDNN samples among them) link libcublasLt without calling it; the
 * host library provides the handle functions and version queries so such programs link.
 */
#ifndef CUBLAS_LT_H_
#define CUBLAS_LT_H_

#include <stddef.h>
#include "cublas_api.h"

#if defined(__cplusplus)
extern "C" {
#endif

struct cublasLtContext;
typedef struct cublasLtContext *cublasLtHandle_t;

cublasStatus_t CUBLASWINAPI cublasLtCreate(cublasLtHandle_t *lightHandle);
cublasStatus_t CUBLASWINAPI cublasLtDestroy(cublasLtHandle_t lightHandle);
size_t CUBLASWINAPI cublasLtGetVersion(void);
size_t CUBLASWINAPI cublasLtGetCudartVersion(void);
cublasStatus_t CUBLASWINAPI cublasLtGetProperty(libraryPropertyType type, int *value);

#if defined(__cplusplus)
}
#endif

#endif /* CUBLAS_LT_H_ */
