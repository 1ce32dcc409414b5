/*
 * tests/ref/blas_ref.h -- float64 reference BLAS for the cuBLAS tests (column-major).
 */
#ifndef HD_TEST_BLAS_REF_H
#define HD_TEST_BLAS_REF_H

/* C (m x n, ldc) = alpha * op(A) * op(B) + beta * C; ta/tb are 'N' or 'T'.  beta == 0 ignores C. */
void ref_gemm(char ta, char tb, int m, int n, int k, double alpha, const double *A, int lda, const double *B,
              int ldb, double beta, double *C, int ldc);

/* y = alpha * op(A) * x + beta * y with A m x n; increments may be negative (BLAS rule). */
void ref_gemv(char t, int m, int n, double alpha, const double *A, int lda, const double *x, int incx, double beta,
              double *y, int incy);

#endif
