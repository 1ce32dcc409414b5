/*
 * cublas/level1.c -- single and double precision level-1 BLAS (axpy, scal, dot, nrm2, asum,
 * copy, swap, iamax) with cuBLAS's argument rules.
 *
 * Increments follow reference BLAS: a negative increment walks the vector from its far end
 * (element i at (n-1-i)*|inc|) for axpy, dot, copy and swap; scal, nrm2, asum and iamax do
 * nothing (result 0) for n <= 0 or incx <= 0.  Sums are accumulated in double, in index
 * order, so results are deterministic and at least as accurate as float accumulation.
 * Scalars and results may be host or "device" pointers: the same memory here.
 */
#include "cublas/blas.h"

#include <math.h>

/* Offset of element I of an N-vector with increment INC. */
static inline size_t blas_at(size_t i, size_t n, int inc)
{
    return inc >= 0 ? i * (size_t)inc : (n - 1 - i) * (size_t)(-(long long)inc);
}

#define L1_FUNCS(P, p, T)                                                                                     \
BLAS_API cublasStatus_t cublas##P##axpy_v2(cublasHandle_t handle, int n, const T *alpha, const T *x, int incx, \
                                           T *y, int incy)                                                 \
{                                                                                                          \
    BLAS_HANDLE(handle);                                                                                   \
    if (!alpha)                                                                                            \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "alpha is NULL");                                    \
    if (n <= 0)                                                                                            \
        return CUBLAS_STATUS_SUCCESS;                                                                      \
    if (!x || !y)                                                                                          \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "x or y is NULL");                                   \
    T a = *alpha;                                                                                          \
    if (a == 0)                                                                                            \
        return CUBLAS_STATUS_SUCCESS;                                                                      \
    for (size_t i = 0; i < (size_t)n; i++)                                                                 \
        y[blas_at(i, (size_t)n, incy)] += a * x[blas_at(i, (size_t)n, incx)];                              \
    return CUBLAS_STATUS_SUCCESS;                                                                          \
}                                                                                                          \
                                                                                                           \
BLAS_API cublasStatus_t cublas##P##scal_v2(cublasHandle_t handle, int n, const T *alpha, T *x, int incx)   \
{                                                                                                          \
    BLAS_HANDLE(handle);                                                                                   \
    if (!alpha)                                                                                            \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "alpha is NULL");                                    \
    if (n <= 0 || incx <= 0)                                                                               \
        return CUBLAS_STATUS_SUCCESS;                                                                      \
    if (!x)                                                                                                \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "x is NULL");                                        \
    T a = *alpha;                                                                                          \
    for (size_t i = 0; i < (size_t)n; i++)                                                                 \
        x[i * (size_t)incx] *= a;                                                                          \
    return CUBLAS_STATUS_SUCCESS;                                                                          \
}                                                                                                          \
                                                                                                           \
BLAS_API cublasStatus_t cublas##P##dot_v2(cublasHandle_t handle, int n, const T *x, int incx, const T *y,  \
                                          int incy, T *result)                                             \
{                                                                                                          \
    BLAS_HANDLE(handle);                                                                                   \
    if (!result)                                                                                           \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "result is NULL");                                   \
    if (n > 0 && (!x || !y))                                                                               \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "x or y is NULL");                                   \
    double s = 0;                                                                                          \
    for (size_t i = 0; n > 0 && i < (size_t)n; i++)                                                        \
        s += (double)x[blas_at(i, (size_t)n, incx)] * (double)y[blas_at(i, (size_t)n, incy)];              \
    *result = (T)s;                                                                                        \
    return CUBLAS_STATUS_SUCCESS;                                                                          \
}                                                                                                          \
                                                                                                           \
BLAS_API cublasStatus_t cublas##P##nrm2_v2(cublasHandle_t handle, int n, const T *x, int incx, T *result)  \
{                                                                                                          \
    BLAS_HANDLE(handle);                                                                                   \
    if (!result)                                                                                           \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "result is NULL");                                   \
    if (n <= 0 || incx <= 0) {                                                                             \
        *result = 0;                                                                                       \
        return CUBLAS_STATUS_SUCCESS;                                                                      \
    }                                                                                                      \
    if (!x)                                                                                                \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "x is NULL");                                        \
    /* Scale by the largest magnitude so squares neither overflow nor underflow. */                        \
    double scale = 0;                                                                                      \
    for (size_t i = 0; i < (size_t)n; i++) {                                                               \
        double v = fabs((double)x[i * (size_t)incx]);                                                      \
        if (v > scale || isnan(v))                                                                         \
            scale = v;                                                                                     \
    }                                                                                                      \
    if (scale == 0 || isnan(scale) || isinf(scale)) {                                                      \
        *result = (T)scale;                                                                                \
        return CUBLAS_STATUS_SUCCESS;                                                                      \
    }                                                                                                      \
    double ss = 0;                                                                                         \
    for (size_t i = 0; i < (size_t)n; i++) {                                                               \
        double v = (double)x[i * (size_t)incx] / scale;                                                    \
        ss += v * v;                                                                                       \
    }                                                                                                      \
    *result = (T)(scale * sqrt(ss));                                                                       \
    return CUBLAS_STATUS_SUCCESS;                                                                          \
}                                                                                                          \
                                                                                                           \
BLAS_API cublasStatus_t cublas##P##asum_v2(cublasHandle_t handle, int n, const T *x, int incx, T *result)  \
{                                                                                                          \
    BLAS_HANDLE(handle);                                                                                   \
    if (!result)                                                                                           \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "result is NULL");                                   \
    if (n <= 0 || incx <= 0) {                                                                             \
        *result = 0;                                                                                       \
        return CUBLAS_STATUS_SUCCESS;                                                                      \
    }                                                                                                      \
    if (!x)                                                                                                \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "x is NULL");                                        \
    double s = 0;                                                                                          \
    for (size_t i = 0; i < (size_t)n; i++)                                                                 \
        s += fabs((double)x[i * (size_t)incx]);                                                            \
    *result = (T)s;                                                                                        \
    return CUBLAS_STATUS_SUCCESS;                                                                          \
}                                                                                                          \
                                                                                                           \
BLAS_API cublasStatus_t cublas##P##copy_v2(cublasHandle_t handle, int n, const T *x, int incx, T *y, int incy) \
{                                                                                                          \
    BLAS_HANDLE(handle);                                                                                   \
    if (n <= 0)                                                                                            \
        return CUBLAS_STATUS_SUCCESS;                                                                      \
    if (!x || !y)                                                                                          \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "x or y is NULL");                                   \
    for (size_t i = 0; i < (size_t)n; i++)                                                                 \
        y[blas_at(i, (size_t)n, incy)] = x[blas_at(i, (size_t)n, incx)];                                  \
    return CUBLAS_STATUS_SUCCESS;                                                                          \
}                                                                                                          \
                                                                                                           \
BLAS_API cublasStatus_t cublas##P##swap_v2(cublasHandle_t handle, int n, T *x, int incx, T *y, int incy)   \
{                                                                                                          \
    BLAS_HANDLE(handle);                                                                                   \
    if (n <= 0)                                                                                            \
        return CUBLAS_STATUS_SUCCESS;                                                                      \
    if (!x || !y)                                                                                          \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "x or y is NULL");                                   \
    for (size_t i = 0; i < (size_t)n; i++) {                                                               \
        T *a = &x[blas_at(i, (size_t)n, incx)], *b = &y[blas_at(i, (size_t)n, incy)];                      \
        T t = *a;                                                                                          \
        *a = *b;                                                                                           \
        *b = t;                                                                                            \
    }                                                                                                      \
    return CUBLAS_STATUS_SUCCESS;                                                                          \
}                                                                                                          \
                                                                                                           \
BLAS_API cublasStatus_t cublasI##p##amax_v2(cublasHandle_t handle, int n, const T *x, int incx, int *result) \
{                                                                                                          \
    BLAS_HANDLE(handle);                                                                                   \
    if (!result)                                                                                           \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "result is NULL");                                   \
    if (n <= 0 || incx <= 0) {                                                                             \
        *result = 0;                                                                                       \
        return CUBLAS_STATUS_SUCCESS;                                                                      \
    }                                                                                                      \
    if (!x)                                                                                                \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "x is NULL");                                        \
    /* 1-based index of the first element of largest magnitude. */                                         \
    int best = 1;                                                                                          \
    T bv = (T)fabs((double)x[0]);                                                                          \
    for (size_t i = 1; i < (size_t)n; i++) {                                                               \
        T v = (T)fabs((double)x[i * (size_t)incx]);                                                        \
        if (v > bv) {                                                                                      \
            bv = v;                                                                                        \
            best = (int)i + 1;                                                                             \
        }                                                                                                  \
    }                                                                                                      \
    *result = best;                                                                                        \
    return CUBLAS_STATUS_SUCCESS;                                                                          \
}

L1_FUNCS(S, s, float)
L1_FUNCS(D, d, double)
