/* tests/ref/gemm_ref.c -- see gemm_ref.h.  Plain triple loop; clarity over speed. */
#include "ref/gemm_ref.h"

#include <math.h>

static double elem(const double *X, size_t ld, char trans, size_t r, size_t c)
{
    return trans == 'T' ? X[c * ld + r] : X[r * ld + c];
}

void hd_ref_gemm(char transa, char transb, size_t m, size_t n, size_t k, double alpha, const double *A,
                 size_t lda, const double *B, size_t ldb, double beta, double *C, size_t ldc, double *bound)
{
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            double sum = 0, mag = 0;
            for (size_t p = 0; p < k; p++) {
                double a = elem(A, lda, transa, i, p), b = elem(B, ldb, transb, p, j);
                sum += a * b;
                mag += fabs(a * b);
            }
            double old = beta == 0 ? 0 : beta * C[i * ldc + j];
            C[i * ldc + j] = alpha * sum + old;
            if (bound)
                bound[i * ldc + j] = fabs(alpha) * mag + fabs(old);
        }
    }
}
