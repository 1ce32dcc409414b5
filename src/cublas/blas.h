/*
 * cublas/blas.h -- internals shared by the files of hostdnn's host cuBLAS subset.
 *
 * A handle remembers its stream, pointer mode, math mode and atomics mode, and the thread
 * count its routines use.  Live handles are kept in a set so a destroyed handle is refused
 * (CUBLAS_STATUS_NOT_INITIALIZED) rather than read.
 */
#ifndef HD_CUBLAS_BLAS_H
#define HD_CUBLAS_BLAS_H

#include <stddef.h>
#include "cublas_api.h"

#define BLAS_API __attribute__((visibility("default")))

struct cublasContext {
    cudaStream_t stream;
    cublasPointerMode_t pointer_mode;
    cublasMath_t math_mode;
    cublasAtomicsMode_t atomics_mode;
    int num_threads;
};

/* CUBLAS_STATUS_SUCCESS when H is a live handle; logs and returns NOT_INITIALIZED otherwise. */
cublasStatus_t blas_check_handle(cublasHandle_t h, const char *fn);

/* Log why a call failed when HOSTDNN_CUBLAS_DEBUG=1; returns STATUS. */
cublasStatus_t blas_fail(cublasStatus_t status, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define BLAS_FAIL(st, ...) blas_fail((st), __func__, __VA_ARGS__)
#define BLAS_HANDLE(h) do { cublasStatus_t s_ = blas_check_handle((h), __func__); \
    if (s_ != CUBLAS_STATUS_SUCCESS) return s_; } while (0)

/* 'N' or 'T' for a real-valued operation (CUBLAS_OP_C means transpose for real data); 0 if invalid. */
static inline char blas_op(cublasOperation_t op)
{
    return op == CUBLAS_OP_N ? 'N' : (op == CUBLAS_OP_T || op == CUBLAS_OP_C) ? 'T' : 0;
}

/*
 * The shared GEMM engine.  Column-major C (m x n, ldc) = alpha op(A) op(B) + beta C with
 * element types given as cudaDataType; computes in double when DOUBLE_COMPUTE, else in
 * float.  Arguments are already validated.  Returns ALLOC_FAILED when scratch memory for a
 * type conversion cannot be had; C is then untouched.
 */
cublasStatus_t blas_gemm_any(const struct cublasContext *h, char ta, char tb, int m, int n, int k, double alpha,
                             const void *A, cudaDataType at, int lda, const void *B, cudaDataType bt, int ldb,
                             double beta, void *C, cudaDataType ct, int ldc, int double_compute);

/* Validation shared by every GEMM: dimensions, leading dimensions, operations, scalars. */
cublasStatus_t blas_gemm_check(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                               const void *alpha, const void *A, int lda, const void *B, int ldb,
                               const void *beta, const void *C, int ldc, const char *fn);

#endif
