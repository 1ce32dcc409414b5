/*
 * kernels/gemm.h -- general matrix multiply, the workhorse under convolution, RNN and the
 * cuBLAS subset.
 *
 * Row-major: C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C, where op(X) is X or
 * its transpose (trans = 'N' or 'T'), and lda/ldb/ldc are row strides in elements of the
 * matrices as stored.  beta == 0 means C is not read (it may hold NaN).  Column-major
 * callers (cuBLAS) compute C^T = op(B)^T op(A)^T by swapping the operands.
 *
 * Results are bitwise identical for any thread count: each element of C is reduced over k
 * in the same order whatever the partition.  NTHREADS <= 1 runs on the calling thread.
 */
#ifndef HD_KERNELS_GEMM_H
#define HD_KERNELS_GEMM_H

#include <stddef.h>

void hd_sgemm(int nthreads, char transa, char transb, size_t m, size_t n, size_t k, float alpha,
              const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc);

void hd_dgemm(int nthreads, char transa, char transb, size_t m, size_t n, size_t k, double alpha,
              const double *A, size_t lda, const double *B, size_t ldb, double beta, double *C, size_t ldc);

#endif
