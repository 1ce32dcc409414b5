/* tests/ref/gemm_ref.h -- float64 reference GEMM for the tests (independent of src/). */
#ifndef HD_TEST_GEMM_REF_H
#define HD_TEST_GEMM_REF_H

#include <stddef.h>

/*
 * Row-major C = alpha * op(A) * op(B) + beta * C in double (beta == 0: C not read), where
 * op(X) is X for trans 'N' and its transpose for 'T'.  If BOUND is not NULL it receives, per
 * element, |alpha| * sum |a||b| + |beta * c| (row stride ldc): the scale of the rounding error
 * a float computation of that element may make.
 */
void hd_ref_gemm(char transa, char transb, size_t m, size_t n, size_t k, double alpha, const double *A,
                 size_t lda, const double *B, size_t ldb, double beta, double *C, size_t ldc, double *bound);

#endif
