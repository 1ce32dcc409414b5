/*
 * cublas/handle.c -- cuBLAS handles, their settings, versions, status names, and the
 * vector/matrix transfer helpers (plain strided copies on the host).
 */
#include "cublas/blas.h"
#include "core/parallel.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static cublasHandle_t *blas_live;
static size_t blas_nlive, blas_cap;

static int blas_debug(void)
{
    const char *v = getenv("HOSTDNN_CUBLAS_DEBUG");
    return v && v[0] && strcmp(v, "0") != 0;
}

cublasStatus_t blas_fail(cublasStatus_t status, const char *fn, const char *fmt, ...)
{
    if (blas_debug()) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "hostdnn cublas: %s: %s: ", fn, cublasGetStatusName(status));
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    return status;
}

static long blas_index(cublasHandle_t h)
{
    for (size_t i = 0; i < blas_nlive; i++)
        if (blas_live[i] == h)
            return (long)i;
    return -1;
}

cublasStatus_t blas_check_handle(cublasHandle_t h, const char *fn)
{
    pthread_mutex_lock(&blas_lock);
    long i = h ? blas_index(h) : -1;
    pthread_mutex_unlock(&blas_lock);
    if (i < 0)
        return blas_fail(CUBLAS_STATUS_NOT_INITIALIZED, fn, "handle %p is not a live cuBLAS handle", (void *)h);
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (!handle)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "handle is NULL");
    struct cublasContext *h = calloc(1, sizeof *h);
    if (!h)
        return BLAS_FAIL(CUBLAS_STATUS_ALLOC_FAILED, "no memory for a handle");
    h->stream = NULL;
    h->pointer_mode = CUBLAS_POINTER_MODE_HOST;
    h->math_mode = CUBLAS_DEFAULT_MATH;
    h->atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
    h->num_threads = hd_default_threads();
    pthread_mutex_lock(&blas_lock);
    int ok = 1;
    if (blas_nlive == blas_cap) {
        size_t ncap = blas_cap ? blas_cap * 2 : 8;
        cublasHandle_t *n = realloc(blas_live, ncap * sizeof *n);
        if (n) {
            blas_live = n;
            blas_cap = ncap;
        } else {
            ok = 0;
        }
    }
    if (ok)
        blas_live[blas_nlive++] = h;
    pthread_mutex_unlock(&blas_lock);
    if (!ok) {
        free(h);
        return BLAS_FAIL(CUBLAS_STATUS_ALLOC_FAILED, "no memory for a handle");
    }
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    pthread_mutex_lock(&blas_lock);
    long i = handle ? blas_index(handle) : -1;
    if (i >= 0)
        blas_live[i] = blas_live[--blas_nlive];
    pthread_mutex_unlock(&blas_lock);
    if (i < 0)
        return BLAS_FAIL(CUBLAS_STATUS_NOT_INITIALIZED, "handle %p is not a live cuBLAS handle", (void *)handle);
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    BLAS_HANDLE(handle);
    if (!version)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "version is NULL");
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "value is NULL");
    switch ((int)type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; break;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; break;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; break;
    default: return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "type %d is not a libraryPropertyType", (int)type);
    }
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API size_t cublasGetCudartVersion(void)
{
    return 11020;
}

BLAS_API cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    BLAS_HANDLE(handle);
    handle->stream = streamId;
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
    BLAS_HANDLE(handle);
    if (!streamId)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "streamId is NULL");
    *streamId = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

/* A user workspace is accepted and not needed: the host routines allocate their own scratch. */
BLAS_API cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes)
{
    BLAS_HANDLE(handle);
    if (!workspace && workspaceSizeInBytes)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "workspace is NULL but its size is %zu", workspaceSizeInBytes);
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    BLAS_HANDLE(handle);
    if (!mode)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "mode is NULL");
    *mode = handle->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)
{
    BLAS_HANDLE(handle);
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "mode %d is not a cublasPointerMode_t", (int)mode);
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
    BLAS_HANDLE(handle);
    if (!mode)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "mode is NULL");
    *mode = handle->atomics_mode;
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode)
{
    BLAS_HANDLE(handle);
    if (mode != CUBLAS_ATOMICS_NOT_ALLOWED && mode != CUBLAS_ATOMICS_ALLOWED)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "mode %d is not a cublasAtomicsMode_t", (int)mode);
    handle->atomics_mode = mode;      /* results are deterministic either way */
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    BLAS_HANDLE(handle);
    if (!mode)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "mode is NULL");
    *mode = handle->math_mode;
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    BLAS_HANDLE(handle);
    unsigned base = (unsigned)mode & ~(unsigned)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if (base > CUBLAS_TF32_TENSOR_OP_MATH)
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "mode %d is not a cublasMath_t", (int)mode);
    handle->math_mode = mode;         /* every mode computes in full float here */
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API const char *cublasGetStatusName(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "unrecognized status";
}

BLAS_API const char *cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an unsupported value or parameter was passed to the function";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "the function requires an architectural feature absent from the device";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the function failed to launch on the GPU";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the requested functionality is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "the license check failed";
    }
    return "unrecognized status";
}

/* ---- transfers: elements of ELEM bytes, strided; "device" and host are the same memory ---- */

static cublasStatus_t blas_copy_vector(int n, int elem, const void *x, int incx, void *y, int incy, const char *fn)
{
    if (n < 0 || elem <= 0 || incx <= 0 || incy <= 0)
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "n=%d elemSize=%d incx=%d incy=%d", n, elem, incx, incy);
    if (n == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!x || !y)
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "a vector pointer is NULL");
    for (size_t i = 0; i < (size_t)n; i++)
        memmove((char *)y + i * (size_t)incy * (size_t)elem, (const char *)x + i * (size_t)incx * (size_t)elem,
                (size_t)elem);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t blas_copy_matrix(int rows, int cols, int elem, const void *A, int lda, void *B, int ldb,
                                       const char *fn)
{
    if (rows < 0 || cols < 0 || elem <= 0 || lda <= 0 || ldb <= 0 || lda < rows || ldb < rows)
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "rows=%d cols=%d elemSize=%d lda=%d ldb=%d", rows, cols,
                         elem, lda, ldb);
    if (rows == 0 || cols == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!A || !B)
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "a matrix pointer is NULL");
    for (size_t j = 0; j < (size_t)cols; j++)
        memmove((char *)B + j * (size_t)ldb * (size_t)elem, (const char *)A + j * (size_t)lda * (size_t)elem,
                (size_t)rows * (size_t)elem);
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *devicePtr, int incy)
{
    return blas_copy_vector(n, elemSize, x, incx, devicePtr, incy, __func__);
}

BLAS_API cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy)
{
    return blas_copy_vector(n, elemSize, x, incx, y, incy, __func__);
}

BLAS_API cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb)
{
    return blas_copy_matrix(rows, cols, elemSize, A, lda, B, ldb, __func__);
}

BLAS_API cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb)
{
    return blas_copy_matrix(rows, cols, elemSize, A, lda, B, ldb, __func__);
}

BLAS_API cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *hostPtr, int incx, void *devicePtr,
                                             int incy, cudaStream_t stream)
{
    (void)stream;
    return blas_copy_vector(n, elemSize, hostPtr, incx, devicePtr, incy, __func__);
}

BLAS_API cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *devicePtr, int incx, void *hostPtr,
                                             int incy, cudaStream_t stream)
{
    (void)stream;
    return blas_copy_vector(n, elemSize, devicePtr, incx, hostPtr, incy, __func__);
}

BLAS_API cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                                             int ldb, cudaStream_t stream)
{
    (void)stream;
    return blas_copy_matrix(rows, cols, elemSize, A, lda, B, ldb, __func__);
}

BLAS_API cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                                             int ldb, cudaStream_t stream)
{
    (void)stream;
    return blas_copy_matrix(rows, cols, elemSize, A, lda, B, ldb, __func__);
}
