/*
 * cublas/gemm.c -- the GEMM family: Sgemm, Dgemm, Hgemm, SgemmEx, GemmEx, the batched and
 * strided-batched forms.
 *
 * cuBLAS matrices are column-major.  A column-major X (r x c, leading dimension ld) is the
 * row-major X^T with row stride ld, so C = op(A) op(B) is computed by the row-major kernel
 * (kernels/gemm/gemm.h) as C^T = op(B)^T op(A)^T: operands swapped, each keeping its own 'N'/'T'.
 * Half, bfloat16 and int8 operands are widened to float (packed) first; a half or bfloat16 C
 * is computed in float and rounded once at the end.  As in BLAS, alpha == 0 or k == 0 means
 * A and B are not read, and beta == 0 means C is not read (it may hold NaN).
 */
#include "cublas/blas.h"
#include "kernels/gemm/gemm.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t blas_elem_size(cudaDataType t)
{
    switch (t) {
    case CUDA_R_64F: return 8;
    case CUDA_R_32F: case CUDA_R_32I: return 4;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_8I: return 1;
    default: return 0;
    }
}

static double blas_load(cudaDataType t, const void *p, size_t i)
{
    switch (t) {
    case CUDA_R_64F: return ((const double *)p)[i];
    case CUDA_R_32F: return ((const float *)p)[i];
    case CUDA_R_16F: return __hd_half_bits_to_float(((const unsigned short *)p)[i]);
    case CUDA_R_16BF: return __hd_bf16_bits_to_float(((const unsigned short *)p)[i]);
    case CUDA_R_8I: return ((const int8_t *)p)[i];
    case CUDA_R_32I: return ((const int32_t *)p)[i];
    default: return 0;
    }
}

static void blas_store(cudaDataType t, void *p, size_t i, double v)
{
    switch (t) {
    case CUDA_R_64F: ((double *)p)[i] = v; break;
    case CUDA_R_32F: ((float *)p)[i] = (float)v; break;
    case CUDA_R_16F: ((unsigned short *)p)[i] = __hd_float_to_half_bits((float)v, 0); break;
    case CUDA_R_16BF: ((unsigned short *)p)[i] = __hd_float_to_bf16_bits((float)v, 0); break;
    case CUDA_R_32I:      /* nearest integer, saturated to the int32 range */
        ((int32_t *)p)[i] = v >= 2147483647.0 ? INT32_MAX : v <= -2147483648.0 ? INT32_MIN : (int32_t)lrint(v);
        break;
    default: break;
    }
}

static int blas_mul_ok(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

/* Copy the r x c column-major matrix X (type T, leading dimension ld) into a packed float or
 * double buffer (ld = r).  Returns NULL when memory is short. */
static void *blas_pack(cudaDataType t, const void *X, size_t r, size_t c, size_t ld, int dbl)
{
    size_t n, bytes;
    if (!blas_mul_ok(r, c, &n) || !blas_mul_ok(n, dbl ? sizeof(double) : sizeof(float), &bytes))
        return NULL;
    void *out = malloc(bytes ? bytes : 1);
    if (!out)
        return NULL;
    for (size_t j = 0; j < c; j++)
        for (size_t i = 0; i < r; i++) {
            double v = blas_load(t, X, i + j * ld);
            if (dbl)
                ((double *)out)[i + j * r] = v;
            else
                ((float *)out)[i + j * r] = (float)v;
        }
    return out;
}

/* C = beta * C over the m x n column-major C (beta == 0 writes zeros without reading). */
static void blas_scale_c(cudaDataType ct, void *C, size_t m, size_t n, size_t ldc, double beta)
{
    if (beta == 1)
        return;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            size_t at = i + j * ldc;
            blas_store(ct, C, at, beta == 0 ? 0.0 : beta * blas_load(ct, C, at));
        }
}

cublasStatus_t blas_gemm_any(const struct cublasContext *h, char ta, char tb, int m, int n, int k, double alpha,
                             const void *A, cudaDataType at, int lda, const void *B, cudaDataType bt, int ldb,
                             double beta, void *C, cudaDataType ct, int ldc, int dbl)
{
    size_t M = (size_t)m, N = (size_t)n, K = (size_t)k;
    if (M == 0 || N == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (alpha == 0 || K == 0) {
        blas_scale_c(ct, C, M, N, (size_t)ldc, beta);
        return CUBLAS_STATUS_SUCCESS;
    }
    cudaDataType native = dbl ? CUDA_R_64F : CUDA_R_32F;
    size_t ar = ta == 'N' ? M : K, ac = ta == 'N' ? K : M;
    size_t br = tb == 'N' ? K : N, bc = tb == 'N' ? N : K;
    void *Ap = NULL, *Bp = NULL, *Cp = NULL;
    const void *Au = A, *Bu = B;
    void *Cu = C;
    size_t la = (size_t)lda, lb = (size_t)ldb, lc = (size_t)ldc;
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    if (at != native) {
        Au = Ap = blas_pack(at, A, ar, ac, la, dbl);
        la = ar;
    }
    if (bt != native) {
        Bu = Bp = blas_pack(bt, B, br, bc, lb, dbl);
        lb = br;
    }
    if (ct != native) {
        /* beta == 0: the packed copy is never read, so do not read C either. */
        if (beta == 0) {
            size_t cnt, bytes;
            if (blas_mul_ok(M, N, &cnt) && blas_mul_ok(cnt, dbl ? sizeof(double) : sizeof(float), &bytes))
                Cp = calloc(bytes ? bytes : 1, 1);
        } else {
            Cp = blas_pack(ct, C, M, N, lc, dbl);
        }
        Cu = Cp;
        lc = M;
    }
    if (!Au || !Bu || !Cu) {
        st = BLAS_FAIL(CUBLAS_STATUS_ALLOC_FAILED, "no memory to widen %dx%dx%d operands", m, n, k);
        goto done;
    }
    if (dbl)
        hd_dgemm(h->num_threads, tb, ta, N, M, K, alpha, Bu, lb, Au, la, beta, Cu, lc);
    else
        hd_sgemm(h->num_threads, tb, ta, N, M, K, (float)alpha, Bu, lb, Au, la, (float)beta, Cu, lc);
    if (Cp)
        for (size_t j = 0; j < N; j++)
            for (size_t i = 0; i < M; i++)
                blas_store(ct, C, i + j * (size_t)ldc,
                           dbl ? ((double *)Cp)[i + j * M] : (double)((float *)Cp)[i + j * M]);
done:
    free(Ap);
    free(Bp);
    free(Cp);
    return st;
}

cublasStatus_t blas_gemm_check(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                               const void *alpha, const void *A, int lda, const void *B, int ldb,
                               const void *beta, const void *C, int ldc, const char *fn)
{
    char ta = blas_op(transa), tb = blas_op(transb);
    if (!ta || !tb)
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "transa %d or transb %d is not N, T or C", (int)transa,
                         (int)transb);
    if (m < 0 || n < 0 || k < 0)
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "m=%d n=%d k=%d must not be negative", m, n, k);
    int ra = ta == 'N' ? m : k, rb = tb == 'N' ? k : n;
    if (lda < (ra > 1 ? ra : 1) || ldb < (rb > 1 ? rb : 1) || ldc < (m > 1 ? m : 1))
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "lda=%d ldb=%d ldc=%d are below max(1,%d), max(1,%d), max(1,%d)",
                         lda, ldb, ldc, ra, rb, m);
    if (!alpha || !beta)
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "alpha or beta is NULL");
    if (m > 0 && n > 0 && (!C || (k > 0 && (!A || !B))))
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "a matrix pointer is NULL");
    return CUBLAS_STATUS_SUCCESS;
}

/* Which (A, B, C) type triples a float-computing GemmEx / SgemmEx accepts. */
static int blas_float_types_ok(cudaDataType a, cudaDataType b, cudaDataType c)
{
    if (a != b)
        return 0;
    switch (a) {
    case CUDA_R_32F: return c == CUDA_R_32F;
    case CUDA_R_16F: return c == CUDA_R_16F || c == CUDA_R_32F;
    case CUDA_R_16BF: return c == CUDA_R_16BF || c == CUDA_R_32F;
    case CUDA_R_8I: return c == CUDA_R_32F;
    default: return 0;
    }
}

BLAS_API cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                       int m, int n, int k, const float *alpha, const float *A, int lda,
                                       const float *B, int ldb, const float *beta, float *C, int ldc)
{
    BLAS_HANDLE(handle);
    cublasStatus_t st = blas_gemm_check(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, __func__);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    return blas_gemm_any(handle, blas_op(transa), blas_op(transb), m, n, k, *alpha, A, CUDA_R_32F, lda, B,
                         CUDA_R_32F, ldb, *beta, C, CUDA_R_32F, ldc, 0);
}

BLAS_API cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                       int m, int n, int k, const double *alpha, const double *A, int lda,
                                       const double *B, int ldb, const double *beta, double *C, int ldc)
{
    BLAS_HANDLE(handle);
    cublasStatus_t st = blas_gemm_check(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, __func__);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    return blas_gemm_any(handle, blas_op(transa), blas_op(transb), m, n, k, *alpha, A, CUDA_R_64F, lda, B,
                         CUDA_R_64F, ldb, *beta, C, CUDA_R_64F, ldc, 1);
}

/* Computed in float and rounded to half once (cuBLAS may accumulate in half). */
BLAS_API cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                    int n, int k, const __half *alpha, const __half *A, int lda, const __half *B,
                                    int ldb, const __half *beta, __half *C, int ldc)
{
    BLAS_HANDLE(handle);
    cublasStatus_t st = blas_gemm_check(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, __func__);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    return blas_gemm_any(handle, blas_op(transa), blas_op(transb), m, n, k, __half2float(*alpha), A, CUDA_R_16F,
                         lda, B, CUDA_R_16F, ldb, __half2float(*beta), C, CUDA_R_16F, ldc, 0);
}

BLAS_API cublasStatus_t cublasSgemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                      int m, int n, int k, const float *alpha, const void *A, cudaDataType Atype,
                                      int lda, const void *B, cudaDataType Btype, int ldb, const float *beta,
                                      void *C, cudaDataType Ctype, int ldc)
{
    BLAS_HANDLE(handle);
    cublasStatus_t st = blas_gemm_check(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, __func__);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (!blas_float_types_ok(Atype, Btype, Ctype))
        return BLAS_FAIL(CUBLAS_STATUS_NOT_SUPPORTED, "types A=%d B=%d C=%d are not a supported combination",
                         (int)Atype, (int)Btype, (int)Ctype);
    return blas_gemm_any(handle, blas_op(transa), blas_op(transb), m, n, k, *alpha, A, Atype, lda, B, Btype, ldb,
                         *beta, C, Ctype, ldc, 0);
}

/* How a GemmEx compute type reads its scalars and computes: 0 float, 1 double, 2 half
 * scalars computed in float, 3 int32 scalars computed exactly (in double: int8 products
 * summed over any k an int can hold stay below 2^53); -1 unsupported.  Pre-11 cudaDataType
 * values are accepted too. */
static int blas_compute_kind(int ct)
{
    switch (ct) {
    case CUBLAS_COMPUTE_32F: case CUBLAS_COMPUTE_32F_PEDANTIC: case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF: case CUBLAS_COMPUTE_32F_FAST_TF32: case CUDA_R_32F:
        return 0;
    case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC: case CUDA_R_64F:
        return 1;
    case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC: case CUDA_R_16F:
        return 2;
    case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC: case CUDA_R_32I:
        return 3;
    default:
        return -1;
    }
}

static int blas_algo_ok(cublasGemmAlgo_t algo)
{
    int a = (int)algo;
    return (a >= CUBLAS_GEMM_DEFAULT && a <= CUBLAS_GEMM_ALGO23) ||
           (a >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && a <= CUBLAS_GEMM_ALGO15_TENSOR_OP);
}

/* Validate GemmEx's types; sets *kind and reads the scalars into doubles. */
static cublasStatus_t blas_ex_types(cudaDataType at, cudaDataType bt, cudaDataType ct, cublasComputeType_t compute,
                                    cublasGemmAlgo_t algo, const void *alpha, const void *beta, int *kind,
                                    double *a, double *b, const char *fn)
{
    if (!blas_algo_ok(algo))   /* cuBLAS: an unsupported algo is NOT_SUPPORTED */
        return blas_fail(CUBLAS_STATUS_NOT_SUPPORTED, fn, "algo %d is not a cublasGemmAlgo_t", (int)algo);
    int kd = blas_compute_kind((int)compute);
    int ok = kd == 0 ? blas_float_types_ok(at, bt, ct)
           : kd == 1 ? (at == CUDA_R_64F && bt == CUDA_R_64F && ct == CUDA_R_64F)
           : kd == 2 ? (at == CUDA_R_16F && bt == CUDA_R_16F && ct == CUDA_R_16F)
           : kd == 3 ? (at == CUDA_R_8I && bt == CUDA_R_8I && ct == CUDA_R_32I) : 0;
    if (!ok)
        return blas_fail(CUBLAS_STATUS_NOT_SUPPORTED, fn, "compute type %d with A=%d B=%d C=%d is not supported",
                         (int)compute, (int)at, (int)bt, (int)ct);
    *kind = kd;
    if (kd == 0) {
        *a = *(const float *)alpha;
        *b = *(const float *)beta;
    } else if (kd == 1) {
        *a = *(const double *)alpha;
        *b = *(const double *)beta;
    } else if (kd == 2) {
        *a = __half2float(*(const __half *)alpha);
        *b = __half2float(*(const __half *)beta);
    } else {
        *a = *(const int32_t *)alpha;
        *b = *(const int32_t *)beta;
    }
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                     int n, int k, const void *alpha, const void *A, cudaDataType Atype, int lda,
                                     const void *B, cudaDataType Btype, int ldb, const void *beta, void *C,
                                     cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                     cublasGemmAlgo_t algo)
{
    BLAS_HANDLE(handle);
    cublasStatus_t st = blas_gemm_check(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, __func__);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    int kind;
    double a, b;
    st = blas_ex_types(Atype, Btype, Ctype, computeType, algo, alpha, beta, &kind, &a, &b, __func__);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    return blas_gemm_any(handle, blas_op(transa), blas_op(transb), m, n, k, a, A, Atype, lda, B, Btype, ldb, b, C,
                         Ctype, ldc, kind == 1 || kind == 3);
}

/* Byte offset of batch I for an element stride S of type T; 0 when it does not fit. */
static int blas_batch_offset(long long s, int i, size_t elem, ptrdiff_t *out)
{
    long long idx;
    if (__builtin_mul_overflow(s, (long long)i, &idx) || __builtin_mul_overflow(idx, (long long)elem, &idx))
        return 0;
    *out = (ptrdiff_t)idx;
    return 1;
}

static cublasStatus_t blas_strided(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, int m,
                                   int n, int k, double alpha, const void *A, cudaDataType at, int lda,
                                   long long sa, const void *B, cudaDataType bt, int ldb, long long sb,
                                   double beta, void *C, cudaDataType ct, int ldc, long long sc, int batch,
                                   int dbl, const char *fn)
{
    if (batch < 0)
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "batchCount %d is negative", batch);
    ptrdiff_t oa, ob, oc;
    if (batch > 0 && (!blas_batch_offset(sa, batch - 1, blas_elem_size(at), &oa) ||
                      !blas_batch_offset(sb, batch - 1, blas_elem_size(bt), &ob) ||
                      !blas_batch_offset(sc, batch - 1, blas_elem_size(ct), &oc)))
        return blas_fail(CUBLAS_STATUS_INVALID_VALUE, fn, "a stride times batchCount overflows");
    for (int i = 0; i < batch; i++) {
        blas_batch_offset(sa, i, blas_elem_size(at), &oa);
        blas_batch_offset(sb, i, blas_elem_size(bt), &ob);
        blas_batch_offset(sc, i, blas_elem_size(ct), &oc);
        cublasStatus_t st = blas_gemm_any(h, blas_op(transa), blas_op(transb), m, n, k, alpha,
                                          A ? (const char *)A + oa : NULL, at, lda, B ? (const char *)B + ob : NULL,
                                          bt, ldb, beta, C ? (char *)C + oc : NULL, ct, ldc, dbl);
        if (st != CUBLAS_STATUS_SUCCESS)
            return st;
    }
    return CUBLAS_STATUS_SUCCESS;
}

BLAS_API cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                  cublasOperation_t transb, int m, int n, int k, const float *alpha,
                                                  const float *A, int lda, long long int strideA, const float *B,
                                                  int ldb, long long int strideB, const float *beta, float *C,
                                                  int ldc, long long int strideC, int batchCount)
{
    BLAS_HANDLE(handle);
    cublasStatus_t st = blas_gemm_check(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, __func__);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    return blas_strided(handle, transa, transb, m, n, k, *alpha, A, CUDA_R_32F, lda, strideA, B, CUDA_R_32F, ldb,
                        strideB, *beta, C, CUDA_R_32F, ldc, strideC, batchCount, 0, __func__);
}

BLAS_API cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                  cublasOperation_t transb, int m, int n, int k,
                                                  const double *alpha, const double *A, int lda,
                                                  long long int strideA, const double *B, int ldb,
                                                  long long int strideB, const double *beta, double *C, int ldc,
                                                  long long int strideC, int batchCount)
{
    BLAS_HANDLE(handle);
    cublasStatus_t st = blas_gemm_check(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, __func__);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    return blas_strided(handle, transa, transb, m, n, k, *alpha, A, CUDA_R_64F, lda, strideA, B, CUDA_R_64F, ldb,
                        strideB, *beta, C, CUDA_R_64F, ldc, strideC, batchCount, 1, __func__);
}

BLAS_API cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void *alpha, const void *A, cudaDataType Atype, int lda, long long int strideA, const void *B,
    cudaDataType Btype, int ldb, long long int strideB, const void *beta, void *C, cudaDataType Ctype, int ldc,
    long long int strideC, int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    BLAS_HANDLE(handle);
    cublasStatus_t st = blas_gemm_check(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, __func__);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    int kind;
    double a, b;
    st = blas_ex_types(Atype, Btype, Ctype, computeType, algo, alpha, beta, &kind, &a, &b, __func__);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    return blas_strided(handle, transa, transb, m, n, k, a, A, Atype, lda, strideA, B, Btype, ldb, strideB, b, C,
                        Ctype, ldc, strideC, batchCount, kind == 1 || kind == 3, __func__);
}

#define BATCHED(P, T, CT, DBL)                                                                             \
BLAS_API cublasStatus_t cublas##P##gemmBatched(cublasHandle_t handle, cublasOperation_t transa,             \
                                               cublasOperation_t transb, int m, int n, int k, const T *alpha, \
                                               const T *const Aarray[], int lda, const T *const Barray[],  \
                                               int ldb, const T *beta, T *const Carray[], int ldc,         \
                                               int batchCount)                                             \
{                                                                                                          \
    BLAS_HANDLE(handle);                                                                                   \
    /* Dimensions first (the scalar stands in for the matrices), then the arrays themselves. */            \
    cublasStatus_t st = blas_gemm_check(transa, transb, m, n, k, alpha, alpha, lda, alpha, ldb, beta,      \
                                        alpha, ldc, __func__);                                             \
    if (st != CUBLAS_STATUS_SUCCESS)                                                                       \
        return st;                                                                                         \
    if (batchCount < 0)                                                                                    \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "batchCount %d is negative", batchCount);            \
    if (batchCount > 0 && (!Aarray || !Barray || !Carray))                                                 \
        return BLAS_FAIL(CUBLAS_STATUS_INVALID_VALUE, "a pointer array is NULL");                          \
    for (int i = 0; i < batchCount; i++) {                                                                 \
        st = blas_gemm_check(transa, transb, m, n, k, alpha, Aarray[i], lda, Barray[i], ldb, beta,         \
                             Carray[i], ldc, __func__);                                                    \
        if (st != CUBLAS_STATUS_SUCCESS)                                                                   \
            return st;                                                                                     \
    }                                                                                                      \
    for (int i = 0; i < batchCount; i++) {                                                                 \
        st = blas_gemm_any(handle, blas_op(transa), blas_op(transb), m, n, k, *alpha, Aarray[i], CT, lda,   \
                           Barray[i], CT, ldb, *beta, Carray[i], CT, ldc, DBL);                            \
        if (st != CUBLAS_STATUS_SUCCESS)                                                                   \
            return st;                                                                                     \
    }                                                                                                      \
    return CUBLAS_STATUS_SUCCESS;                                                                          \
}
BATCHED(S, float, CUDA_R_32F, 0)
BATCHED(D, double, CUDA_R_64F, 1)
