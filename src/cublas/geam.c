/*
 * cublas/geam.c -- Sgeam / Dgeam: C = alpha op(A) + beta op(B), all column-major m x n.
 *
 * As cuBLAS defines it: in-place use is allowed as C == A with ldc == lda and transa == N
 * (or the same for B); any other aliasing of C with an input is INVALID_VALUE.  A term whose
 * scalar is 0 is not read, so A or B may then hold NaN (or be NULL).
 */
#include "cublas/blas.h"

#define GEAM(P, T)                                                                                          \
BLAS_API cublasStatus_t cublas##P##geam(cublasHandle_t handle, cublasOperation_t transa,                    \
                                        cublasOperation_t transb, int m, int n, const T *alpha, const T *A,  \
                                        int lda, const T *beta, const T *B, int ldb, T *C, int ldc)         \
{                                                                                                           \
    BLAS_HANDLE(handle);                                                                                    \
    char ta = blas_op(transa), tb = blas_op(transb);                                                        \
    if (!ta || !tb)                                                                                         \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "transa %d or transb %d is not N, T or C",            \
                         (int)transa, (int)transb);                                                         \
    int ra = ta == 'N' ? m : n, rb = tb == 'N' ? m : n;                                                     \
    if (m < 0 || n < 0 || lda < (ra > 1 ? ra : 1) || ldb < (rb > 1 ? rb : 1) || ldc < (m > 1 ? m : 1))     \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "m=%d n=%d lda=%d ldb=%d ldc=%d", m, n, lda, ldb, ldc); \
    if (!alpha || !beta)                                                                                    \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "alpha or beta is NULL");                             \
    if ((const T *)C == A && (lda != ldc || ta != 'N'))                                                     \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "in-place C == A needs ldc == lda and transa == N");  \
    if ((const T *)C == B && (ldb != ldc || tb != 'N'))                                                     \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "in-place C == B needs ldc == ldb and transb == N");  \
    if (m == 0 || n == 0)                                                                                   \
        return CUBLAS_STATUS_SUCCESS;                                                                       \
    T a = *alpha, b = *beta;                                                                                \
    if (!C || (a != 0 && !A) || (b != 0 && !B))                                                             \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "a matrix pointer is NULL");                          \
    size_t M = (size_t)m, N = (size_t)n, la = (size_t)lda, lb = (size_t)ldb, lc = (size_t)ldc;              \
    for (size_t j = 0; j < N; j++)                                                                          \
        for (size_t i = 0; i < M; i++) {                                                                    \
            T v = 0;                                                                                        \
            if (a != 0)                                                                                     \
                v = a * (ta == 'N' ? A[i + j * la] : A[j + i * la]);                                        \
            if (b != 0)                                                                                     \
                v += b * (tb == 'N' ? B[i + j * lb] : B[j + i * lb]);                                       \
            C[i + j * lc] = v;                                                                              \
        }                                                                                                   \
    return CUBLAS_STATUS_SUCCESS;                                                                           \
}

GEAM(S, float)
GEAM(D, double)
