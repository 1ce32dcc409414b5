/*
 * cublas/level2.c -- Sgemv / Dgemv: y = alpha op(A) x + beta y, A column-major m x n.
 *
 * Reference-BLAS rules: incx or incy of 0 is INVALID_VALUE, negative increments walk the
 * vector from its far end, m == 0 or n == 0 (or alpha == 0 with beta == 1) returns at once,
 * alpha == 0 means A and x are not read, beta == 0 means y is not read.  Each output element
 * is accumulated in double in column order, so results do not depend on anything but the
 * inputs.
 */
#include "cublas/blas.h"

#include <stdlib.h>

static inline size_t gv_at(size_t i, size_t n, int inc)
{
    return inc >= 0 ? i * (size_t)inc : (n - 1 - i) * (size_t)(-(long long)inc);
}

#define GEMV(P, T)                                                                                          \
BLAS_API cublasStatus_t cublas##P##gemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m, int n,    \
                                           const T *alpha, const T *A, int lda, const T *x, int incx,       \
                                           const T *beta, T *y, int incy)                                   \
{                                                                                                           \
    BLAS_HANDLE(handle);                                                                                    \
    char t = blas_op(trans);                                                                                \
    if (!t)                                                                                                 \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "trans %d is not N, T or C", (int)trans);             \
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0 || incy == 0)                                  \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "m=%d n=%d lda=%d incx=%d incy=%d", m, n, lda, incx,   \
                         incy);                                                                             \
    if (!alpha || !beta)                                                                                    \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "alpha or beta is NULL");                             \
    T a = *alpha, b = *beta;                                                                                \
    if (m == 0 || n == 0 || (a == 0 && b == 1))                                                             \
        return CUBLAS_STATUS_SUCCESS;                                                                       \
    size_t M = (size_t)m, N = (size_t)n, ld = (size_t)lda;                                                  \
    size_t leny = t == 'N' ? M : N, lenx = t == 'N' ? N : M;                                                \
    if (!y || (a != 0 && (!A || !x)))                                                                       \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "A, x or y is NULL");                                 \
    double *acc = calloc(leny, sizeof *acc);                                                                \
    if (!acc)                                                                                               \
        return BLAS_FAIL(CUBLAS_STATUS_ALLOC_FAILED, "no memory for %zu accumulators", leny);               \
    if (a != 0) {                                                                                           \
        if (t == 'N') {                                                                                     \
            for (size_t j = 0; j < N; j++) {                                                                \
                double xj = (double)x[gv_at(j, lenx, incx)];                                                \
                const T *col = A + j * ld;                                                                  \
                for (size_t i = 0; i < M; i++)                                                              \
                    acc[i] += (double)col[i] * xj;                                                          \
            }                                                                                               \
        } else {                                                                                            \
            for (size_t j = 0; j < N; j++) {                                                                \
                const T *col = A + j * ld;                                                                  \
                double s = 0;                                                                               \
                for (size_t i = 0; i < M; i++)                                                              \
                    s += (double)col[i] * (double)x[gv_at(i, lenx, incx)];                                  \
                acc[j] = s;                                                                                 \
            }                                                                                               \
        }                                                                                                   \
    }                                                                                                       \
    for (size_t i = 0; i < leny; i++) {                                                                     \
        T *yi = &y[gv_at(i, leny, incy)];                                                                   \
        double v = (double)a * acc[i];                                                                      \
        *yi = (T)(b == 0 ? v : v + (double)b * (double)*yi);                                                \
    }                                                                                                       \
    free(acc);                                                                                              \
    return CUBLAS_STATUS_SUCCESS;                                                                           \
}

GEMV(S, float)
GEMV(D, double)
