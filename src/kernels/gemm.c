/*
 * kernels/gemm.c -- portable GEMM (see gemm.h).  Rows of C are split across threads; the
 * k loop order never changes, which keeps results independent of the thread count.
 */
#include "kernels/gemm.h"
#include "core/parallel.h"

typedef struct {
    char ta, tb;
    size_t m, n, k, lda, ldb, ldc;
    double alpha, beta;
    const void *A, *B;
    void *C;
    int is_double;
} gemm_ctx;

#define ROWS_PER_TASK 16

#define GEMM_ROWS(T)                                                                      \
    static void rows_##T(const gemm_ctx *c, size_t r0, size_t r1)                         \
    {                                                                                     \
        const T *A = c->A, *B = c->B;                                                     \
        T *C = c->C;                                                                      \
        T alpha = (T)c->alpha, beta = (T)c->beta;                                         \
        for (size_t i = r0; i < r1; i++) {                                                \
            T *ci = C + i * c->ldc;                                                       \
            for (size_t j = 0; j < c->n; j++)                                             \
                ci[j] = beta == 0 ? (T)0 : beta * ci[j];                                  \
            for (size_t p = 0; p < c->k; p++) {                                           \
                T a = c->ta == 'N' ? A[i * c->lda + p] : A[p * c->lda + i];               \
                a *= alpha;                                                               \
                if (c->tb == 'N') {                                                       \
                    const T *bp = B + p * c->ldb;                                         \
                    for (size_t j = 0; j < c->n; j++)                                     \
                        ci[j] += a * bp[j];                                               \
                } else {                                                                  \
                    for (size_t j = 0; j < c->n; j++)                                     \
                        ci[j] += a * B[j * c->ldb + p];                                   \
                }                                                                         \
            }                                                                             \
        }                                                                                 \
    }
GEMM_ROWS(float)
GEMM_ROWS(double)

static void task(void *ctx, size_t t, int thread)
{
    (void)thread;
    const gemm_ctx *c = ctx;
    size_t r0 = t * ROWS_PER_TASK, r1 = r0 + ROWS_PER_TASK;
    if (r1 > c->m)
        r1 = c->m;
    if (c->is_double)
        rows_double(c, r0, r1);
    else
        rows_float(c, r0, r1);
}

static void run(gemm_ctx *c, int nthreads)
{
    if (c->m == 0 || c->n == 0)
        return;
    size_t tasks = (c->m + ROWS_PER_TASK - 1) / ROWS_PER_TASK;
    hd_parallel_for(tasks, nthreads, task, c);
}

void hd_sgemm(int nthreads, char transa, char transb, size_t m, size_t n, size_t k, float alpha,
              const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
    gemm_ctx c = {transa, transb, m, n, k, lda, ldb, ldc, alpha, beta, A, B, C, 0};
    run(&c, nthreads);
}

void hd_dgemm(int nthreads, char transa, char transb, size_t m, size_t n, size_t k, double alpha,
              const double *A, size_t lda, const double *B, size_t ldb, double beta, double *C, size_t ldc)
{
    gemm_ctx c = {transa, transb, m, n, k, lda, ldb, ldc, alpha, beta, A, B, C, 1};
    run(&c, nthreads);
}
