/*
 * tests/ref/blas_ref.c -- straightforward float64 loops, written from the BLAS definitions.
 */
#include "ref/blas_ref.h"

static double elem(char t, const double *X, int ld, int r, int c)
{
    /* element (r, c) of op(X) */
    return t == 'N' ? X[r + c * ld] : X[c + r * ld];
}

void ref_gemm(char ta, char tb, int m, int n, int k, double alpha, const double *A, int lda, const double *B,
              int ldb, double beta, double *C, int ldc)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int p = 0; p < k && alpha != 0; p++)
                s += elem(ta, A, lda, i, p) * elem(tb, B, ldb, p, j);
            double c = beta == 0 ? 0 : beta * C[i + j * ldc];
            C[i + j * ldc] = alpha * s + c;
        }
}

static int at(int i, int len, int inc)
{
    return inc >= 0 ? i * inc : (len - 1 - i) * -inc;
}

void ref_gemv(char t, int m, int n, double alpha, const double *A, int lda, const double *x, int incx, double beta,
              double *y, int incy)
{
    int leny = t == 'N' ? m : n, lenx = t == 'N' ? n : m;
    for (int i = 0; i < leny; i++) {
        double s = 0;
        for (int p = 0; p < lenx && alpha != 0; p++)
            s += (t == 'N' ? A[i + p * lda] : A[p + i * lda]) * x[at(p, lenx, incx)];
        double *yi = &y[at(i, leny, incy)];
        *yi = alpha * s + (beta == 0 ? 0 : beta * *yi);
    }
}
