/*
 * test_cublas_gemm.c -- host cuBLAS GEMM family, gemv and geam against a float64 reference:
 * every transpose pair, padded and tight leading dimensions, alpha/beta combinations
 * (beta == 0 with NaN in C, alpha == 0 with NaN in A/B), batched and strided-batched forms,
 * fp16/bf16/int8 GemmEx, bad arguments (status and output untouched).
 */
#define _POSIX_C_SOURCE 200809L
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "ref/blas_ref.h"

#define CHECK_BLAS(expr, want) do { cublasStatus_t got_ = (expr); \
    if (got_ == (want)) hd_t_passed++; else { hd_t_failed++; \
    fprintf(stderr, "FAIL %s:%d [%s] %s -> %d, want %d\n", __FILE__, __LINE__, hd_t_section, #expr, \
            (int)got_, (int)(want)); } } while (0)
#define CHECK_BLAS_OK(expr) CHECK_BLAS(expr, CUBLAS_STATUS_SUCCESS)

static unsigned rng_state = 12345u;
static double rnd(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)(rng_state >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

static const cublasOperation_t OPS[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
static char opc(cublasOperation_t o) { return o == CUBLAS_OP_N ? 'N' : 'T'; }

/* Max |got - want| / (1 + |want|) over the m x n column-major matrices. */
static double max_rel_err_f(const float *got, const double *want, int m, int n, int ld)
{
    double worst = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double e = fabs((double)got[i + j * ld] - want[i + j * ld]) / (1.0 + fabs(want[i + j * ld]));
            if (!(e <= worst))
                worst = e;            /* NaN propagates as a failure */
        }
    return worst;
}

static double max_rel_err_d(const double *got, const double *want, int m, int n, int ld)
{
    double worst = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double e = fabs(got[i + j * ld] - want[i + j * ld]) / (1.0 + fabs(want[i + j * ld]));
            if (!(e <= worst))
                worst = e;
        }
    return worst;
}

static void test_sgemm_dgemm(cublasHandle_t h)
{
    SECTION("Sgemm/Dgemm all combinations");
    const int shapes[][3] = {{1, 1, 1}, {5, 3, 7}, {17, 33, 9}, {40, 1, 23}, {1, 29, 31}, {64, 48, 70}};
    const double ab[][2] = {{1, 0}, {1, 1}, {-0.5, 2}, {0, 0.75}, {2.5, 0}, {0, 0}};
    int cases = 0, bad_f = 0, bad_d = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int ta = 0; ta < 3; ta++)
            for (int tb = 0; tb < 3; tb++)
                for (int pad = 0; pad < 2; pad++)
                    for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
                        int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                        char a_t = opc(OPS[ta]), b_t = opc(OPS[tb]);
                        int ar = a_t == 'N' ? m : k, ac = a_t == 'N' ? k : m;
                        int br = b_t == 'N' ? k : n, bc = b_t == 'N' ? n : k;
                        int lda = ar + pad * 3, ldb = br + pad * 5, ldc = m + pad * 2;
                        double alpha = ab[c][0], beta = ab[c][1];
                        size_t na = (size_t)lda * ac, nb = (size_t)ldb * bc, nc = (size_t)ldc * n;
                        double *Ad = malloc(na * 8), *Bd = malloc(nb * 8), *Cd = malloc(nc * 8), *R = malloc(nc * 8);
                        float *Af = malloc(na * 4), *Bf = malloc(nb * 4), *Cf = malloc(nc * 4);
                        double *Cdd = malloc(nc * 8);
                        for (size_t i = 0; i < na; i++)
                            Af[i] = (float)(Ad[i] = rnd());
                        for (size_t i = 0; i < nb; i++)
                            Bf[i] = (float)(Bd[i] = rnd());
                        for (size_t i = 0; i < nc; i++)
                            Cf[i] = (float)(Cd[i] = rnd());
                        if (beta == 0)           /* C must not be read */
                            for (size_t i = 0; i < nc; i++)
                                Cf[i] = (float)(Cd[i] = NAN);
                        if (alpha == 0) {        /* A and B must not be read */
                            for (size_t i = 0; i < na; i++)
                                Af[i] = (float)(Ad[i] = NAN);
                            for (size_t i = 0; i < nb; i++)
                                Bf[i] = (float)(Bd[i] = NAN);
                        }
                        memcpy(Cdd, Cd, nc * 8);
                        memcpy(R, Cd, nc * 8);
                        /* the reference leaves padding rows of C alone: so must cuBLAS */
                        ref_gemm(a_t, b_t, m, n, k, alpha, Ad, lda, Bd, ldb, beta, R, ldc);
                        float fa = (float)alpha, fb = (float)beta;
                        CHECK_BLAS_OK(cublasSgemm(h, OPS[ta], OPS[tb], m, n, k, &fa, Af, lda, Bf, ldb, &fb, Cf, ldc));
                        CHECK_BLAS_OK(cublasDgemm(h, OPS[ta], OPS[tb], m, n, k, &alpha, Ad, lda, Bd, ldb, &beta,
                                                  Cdd, ldc));
                        /* reference from float-rounded inputs for the float result */
                        double ef = max_rel_err_f(Cf, R, m, n, ldc), ed = max_rel_err_d(Cdd, R, m, n, ldc);
                        if (!(ef < 1e-5 * (k + 1))) {
                            bad_f++;
                            fprintf(stderr, "  sgemm %c%c m=%d n=%d k=%d pad=%d a=%g b=%g err %g\n", a_t, b_t, m, n, k,
                                    pad, alpha, beta, ef);
                        }
                        if (!(ed < 1e-13 * (k + 1)))
                            bad_d++;
                        /* padding rows below m stay untouched */
                        int pad_ok = 1;
                        for (int j = 0; j < n && pad; j++)
                            for (int i = m; i < ldc; i++)
                                pad_ok &= (isnan(Cd[i + j * ldc]) && isnan(Cf[i + j * ldc])) ||
                                          Cf[i + j * ldc] == (float)Cd[i + j * ldc];
                        CHECK(pad_ok);
                        cases++;
                        free(Ad); free(Bd); free(Cd); free(R); free(Af); free(Bf); free(Cf); free(Cdd);
                    }
    CHECK_EQ_INT(bad_f, 0);
    CHECK_EQ_INT(bad_d, 0);
    CHECK(cases == 6 * 9 * 2 * 6);
}

static void fill_f(float *x, double *xd, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(xd[i] = (double)(float)rnd());
}

static void test_strided_batched(cublasHandle_t h)
{
    SECTION("SgemmStridedBatched / batched");
    enum { M = 7, N = 5, K = 6, B = 4 };
    int lda = M + 1, ldb = K, ldc = M + 2;
    long long sa = lda * K + 3, sb = ldb * N, sc = ldc * N + 1;
    size_t na = (size_t)sa * B, nb = (size_t)sb * B, nc = (size_t)sc * B;
    float *A = malloc(na * 4), *Bm = malloc(nb * 4), *C = malloc(nc * 4), *C2 = malloc(nc * 4);
    double *Ad = malloc(na * 8), *Bd = malloc(nb * 8), *Cd = malloc(nc * 8);
    fill_f(A, Ad, na);
    fill_f(Bm, Bd, nb);
    fill_f(C, Cd, nc);
    memcpy(C2, C, nc * 4);
    float alpha = 1.5f, beta = -0.5f;
    CHECK_BLAS_OK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A, lda, sa, Bm, ldb, sb,
                                            &beta, C, ldc, sc, B));
    for (int b = 0; b < B; b++)
        ref_gemm('N', 'N', M, N, K, alpha, Ad + b * sa, lda, Bd + b * sb, ldb, beta, Cd + b * sc, ldc);
    double worst = 0;
    for (int b = 0; b < B; b++) {
        double e = max_rel_err_f(C + b * sc, Cd + b * sc, M, N, ldc);
        worst = e > worst ? e : worst;
    }
    CHECK_MSG(worst < 1e-5, "strided batched err %g", worst);

    /* pointer-array form gives the same bits */
    const float *Ap[B], *Bp[B];
    float *Cp[B];
    for (int b = 0; b < B; b++) {
        Ap[b] = A + b * sa;
        Bp[b] = Bm + b * sb;
        Cp[b] = C2 + b * sc;
    }
    CHECK_BLAS_OK(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, Ap, lda, Bp, ldb, &beta, Cp, ldc, B));
    CHECK(memcmp(C, C2, nc * 4) == 0);
    CHECK_BLAS_OK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A, lda, sa, Bm, ldb, sb,
                                            &beta, C, ldc, sc, 0));
    CHECK_BLAS(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A, lda, sa, Bm, ldb, sb,
                                         &beta, C, ldc, sc, -1), CUBLAS_STATUS_INVALID_VALUE);

    /* broadcast A (stride 0), transposed B, double precision */
    double *Cdd = malloc(nc * 8), *R = malloc(nc * 8);
    for (size_t i = 0; i < nc; i++)
        Cdd[i] = R[i] = rnd();
    double da = 0.25, db = 1.0;
    int ldbt = N;   /* B stored N x K for op T */
    CHECK_BLAS_OK(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, M, N, K, &da, Ad, lda, 0, Bd, ldbt, sb,
                                            &db, Cdd, ldc, sc, B));
    for (int b = 0; b < B; b++)
        ref_gemm('N', 'T', M, N, K, da, Ad, lda, Bd + b * sb, ldbt, db, R + b * sc, ldc);
    worst = 0;
    for (int b = 0; b < B; b++) {
        double e = max_rel_err_d(Cdd + b * sc, R + b * sc, M, N, ldc);
        worst = e > worst ? e : worst;
    }
    CHECK_MSG(worst < 1e-13, "dgemm strided err %g", worst);
    free(A); free(Bm); free(C); free(C2); free(Ad); free(Bd); free(Cd); free(Cdd); free(R);
}

/* Round-trip helpers for the half and bfloat16 tests. */
static double q_half(double v) { return __half2float(__float2half((float)v)); }
static double q_bf16(double v) { return __bfloat162float(__float2bfloat16((float)v)); }

static void test_gemm_ex(cublasHandle_t h)
{
    SECTION("GemmEx fp16/bf16/int8/fp32/fp64");
    enum { M = 9, N = 11, K = 13 };
    int lda = K + 1, ldb = K, ldc = M + 1;   /* A is op T: stored K x M */
    size_t na = (size_t)lda * M, nb = (size_t)ldb * N, nc = (size_t)ldc * N;
    double *Ad = malloc(na * 8), *Bd = malloc(nb * 8), *C0 = malloc(nc * 8), *R = malloc(nc * 8);
    __half *Ah = malloc(na * 2), *Bh = malloc(nb * 2), *Ch = malloc(nc * 2);
    __nv_bfloat16 *Ab = malloc(na * 2), *Bb = malloc(nb * 2), *Cb = malloc(nc * 2);
    float *Cf = malloc(nc * 4);
    signed char *Ai = malloc(na), *Bi = malloc(nb);
    for (size_t i = 0; i < na; i++) {
        Ad[i] = rnd();
        Ah[i] = __float2half((float)Ad[i]);
        Ab[i] = __float2bfloat16((float)Ad[i]);
        Ai[i] = (signed char)(int)(Ad[i] * 100);
    }
    for (size_t i = 0; i < nb; i++) {
        Bd[i] = rnd();
        Bh[i] = __float2half((float)Bd[i]);
        Bb[i] = __float2bfloat16((float)Bd[i]);
        Bi[i] = (signed char)(int)(Bd[i] * 100);
    }
    for (size_t i = 0; i < nc; i++)
        C0[i] = rnd();
    float alpha = 0.75f, beta = 0.5f;
    double *Aq = malloc(na * 8), *Bq = malloc(nb * 8);

    /* fp16 in, fp16 out, fp32 compute */
    for (size_t i = 0; i < na; i++) Aq[i] = q_half(Ad[i]);
    for (size_t i = 0; i < nb; i++) Bq[i] = q_half(Bd[i]);
    for (size_t i = 0; i < nc; i++) { Ch[i] = __float2half((float)C0[i]); R[i] = q_half(C0[i]); }
    ref_gemm('T', 'N', M, N, K, alpha, Aq, lda, Bq, ldb, beta, R, ldc);
    CHECK_BLAS_OK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ah, CUDA_R_16F, lda, Bh, CUDA_R_16F, ldb,
                               &beta, Ch, CUDA_R_16F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    double worst = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double e = fabs(__half2float(Ch[i + j * ldc]) - R[i + j * ldc]);
            worst = e > worst ? e : worst;
        }
    CHECK_MSG(worst < 4e-3, "fp16 GemmEx err %g", worst);
    CHECK(__half2float(Ch[M]) == (float)q_half(C0[M]));    /* padding row untouched */

    /* fp16 in, fp32 out (SgemmEx too) */
    for (size_t i = 0; i < nc; i++) { Cf[i] = (float)C0[i]; R[i] = (float)C0[i]; }
    ref_gemm('T', 'N', M, N, K, alpha, Aq, lda, Bq, ldb, beta, R, ldc);
    CHECK_BLAS_OK(cublasSgemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ah, CUDA_R_16F, lda, Bh, CUDA_R_16F, ldb,
                                &beta, Cf, CUDA_R_32F, ldc));
    CHECK_MSG(max_rel_err_f(Cf, R, M, N, ldc) < 1e-5, "fp16->fp32 err %g", max_rel_err_f(Cf, R, M, N, ldc));

    /* bf16 in, bf16 out; beta = 0 with NaN in C */
    for (size_t i = 0; i < na; i++) Aq[i] = q_bf16(Ad[i]);
    for (size_t i = 0; i < nb; i++) Bq[i] = q_bf16(Bd[i]);
    for (size_t i = 0; i < nc; i++) { Cb[i] = __float2bfloat16(NAN); R[i] = 0; }
    float zero = 0;
    ref_gemm('T', 'N', M, N, K, alpha, Aq, lda, Bq, ldb, 0, R, ldc);
    CHECK_BLAS_OK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ab, CUDA_R_16BF, lda, Bb, CUDA_R_16BF,
                               ldb, &zero, Cb, CUDA_R_16BF, ldc, CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_GEMM_DEFAULT));
    worst = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double e = fabs(__bfloat162float(Cb[i + j * ldc]) - R[i + j * ldc]);
            worst = !(e <= worst) ? e : worst;
        }
    CHECK_MSG(worst < 2e-2, "bf16 GemmEx err %g", worst);

    /* bf16 in, fp32 out */
    for (size_t i = 0; i < nc; i++) { Cf[i] = (float)C0[i]; R[i] = (float)C0[i]; }
    ref_gemm('T', 'N', M, N, K, alpha, Aq, lda, Bq, ldb, beta, R, ldc);
    CHECK_BLAS_OK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ab, CUDA_R_16BF, lda, Bb, CUDA_R_16BF,
                               ldb, &beta, Cf, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP));
    CHECK(max_rel_err_f(Cf, R, M, N, ldc) < 1e-5);

    /* int8 in, fp32 out: exact */
    for (size_t i = 0; i < na; i++) Aq[i] = Ai[i];
    for (size_t i = 0; i < nb; i++) Bq[i] = Bi[i];
    for (size_t i = 0; i < nc; i++) { Cf[i] = (float)C0[i]; R[i] = (float)C0[i]; }
    ref_gemm('T', 'N', M, N, K, alpha, Aq, lda, Bq, ldb, beta, R, ldc);
    CHECK_BLAS_OK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ai, CUDA_R_8I, lda, Bi, CUDA_R_8I, ldb,
                               &beta, Cf, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CHECK_MSG(max_rel_err_f(Cf, R, M, N, ldc) < 1e-5, "int8 err %g", max_rel_err_f(Cf, R, M, N, ldc));

    /* int8 in, int32 out, int32 scalars: exact */
    {
        int32_t *Ci = malloc(nc * 4), ia = 3, ib = -2;
        for (size_t i = 0; i < nc; i++) { Ci[i] = (int32_t)(C0[i] * 1000); R[i] = Ci[i]; }
        ref_gemm('T', 'N', M, N, K, ia, Aq, lda, Bq, ldb, ib, R, ldc);
        CHECK_BLAS_OK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &ia, Ai, CUDA_R_8I, lda, Bi, CUDA_R_8I, ldb,
                                   &ib, Ci, CUDA_R_32I, ldc, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
        int exact = 1;
        for (int j = 0; j < N; j++)
            for (int i = 0; i <= M; i++)        /* the padding row keeps its value too */
                exact &= Ci[i + j * ldc] == (int32_t)R[i + j * ldc];
        CHECK(exact);
        free(Ci);
    }

    /* fp64 via GemmEx, and the pre-11 cudaDataType compute-type spelling for fp32 */
    double *Cd = malloc(nc * 8);
    double dal = -1.25, dbe = 0.5;
    for (size_t i = 0; i < nc; i++) Cd[i] = R[i] = C0[i];
    ref_gemm('T', 'N', M, N, K, dal, Ad, lda, Bd, ldb, dbe, R, ldc);
    CHECK_BLAS_OK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &dal, Ad, CUDA_R_64F, lda, Bd, CUDA_R_64F, ldb,
                               &dbe, Cd, CUDA_R_64F, ldc, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT));
    CHECK(max_rel_err_d(Cd, R, M, N, ldc) < 1e-13);
    float *Af32 = malloc(na * 4), *Bf32 = malloc(nb * 4);
    for (size_t i = 0; i < na; i++) Af32[i] = (float)Ad[i];
    for (size_t i = 0; i < nb; i++) Bf32[i] = (float)Bd[i];
    for (size_t i = 0; i < nc; i++) { Cf[i] = (float)C0[i]; R[i] = (float)C0[i]; }
    for (size_t i = 0; i < na; i++) Aq[i] = Af32[i];
    for (size_t i = 0; i < nb; i++) Bq[i] = Bf32[i];
    ref_gemm('T', 'N', M, N, K, alpha, Aq, lda, Bq, ldb, beta, R, ldc);
    CHECK_BLAS_OK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Af32, CUDA_R_32F, lda, Bf32, CUDA_R_32F,
                               ldb, &beta, Cf, CUDA_R_32F, ldc, (cublasComputeType_t)CUDA_R_32F, CUBLAS_GEMM_DEFAULT));
    CHECK(max_rel_err_f(Cf, R, M, N, ldc) < 1e-5);

    /* Hgemm: half scalars */
    for (size_t i = 0; i < na; i++) Aq[i] = q_half(Ad[i]);
    for (size_t i = 0; i < nb; i++) Bq[i] = q_half(Bd[i]);
    for (size_t i = 0; i < nc; i++) { Ch[i] = __float2half((float)C0[i]); R[i] = q_half(C0[i]); }
    __half ha = __float2half(0.75f), hb = __float2half(0.5f);
    ref_gemm('T', 'N', M, N, K, 0.75, Aq, lda, Bq, ldb, 0.5, R, ldc);
    CHECK_BLAS_OK(cublasHgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &ha, Ah, lda, Bh, ldb, &hb, Ch, ldc));
    worst = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double e = fabs(__half2float(Ch[i + j * ldc]) - R[i + j * ldc]);
            worst = e > worst ? e : worst;
        }
    CHECK_MSG(worst < 4e-3, "Hgemm err %g", worst);
    /* GemmEx with CUBLAS_COMPUTE_16F reads half scalars */
    CHECK_BLAS_OK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &ha, Ah, CUDA_R_16F, lda, Bh, CUDA_R_16F, ldb,
                               &hb, Ch, CUDA_R_16F, ldc, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT));

    SECTION("GemmStridedBatchedEx");
    enum { NB = 3 };
    __half *Abh = malloc(na * NB * 2), *Bbh = malloc(nb * NB * 2);
    float *Cbf = malloc(nc * NB * 4);
    double *Rb = malloc(nc * NB * 8), *Abq = malloc(na * NB * 8), *Bbq = malloc(nb * NB * 8);
    for (size_t i = 0; i < na * NB; i++) { Abh[i] = __float2half((float)rnd()); Abq[i] = __half2float(Abh[i]); }
    for (size_t i = 0; i < nb * NB; i++) { Bbh[i] = __float2half((float)rnd()); Bbq[i] = __half2float(Bbh[i]); }
    for (size_t i = 0; i < nc * NB; i++) { Cbf[i] = (float)rnd(); Rb[i] = Cbf[i]; }
    CHECK_BLAS_OK(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Abh, CUDA_R_16F, lda,
                                             (long long)na, Bbh, CUDA_R_16F, ldb, (long long)nb, &beta, Cbf,
                                             CUDA_R_32F, ldc, (long long)nc, NB, CUBLAS_COMPUTE_32F,
                                             CUBLAS_GEMM_DEFAULT));
    worst = 0;
    for (int b = 0; b < NB; b++) {
        ref_gemm('T', 'N', M, N, K, alpha, Abq + b * na, lda, Bbq + b * nb, ldb, beta, Rb + b * nc, ldc);
        double e = max_rel_err_f(Cbf + b * nc, Rb + b * nc, M, N, ldc);
        worst = e > worst ? e : worst;
    }
    CHECK_MSG(worst < 1e-5, "strided Ex err %g", worst);

    SECTION("GemmEx unsupported");
    memcpy(Cf, Cf, 0);
    float keep0 = Cf[0];
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ah, CUDA_R_16F, lda, Bb, CUDA_R_16BF, ldb,
                            &beta, Cf, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ah, CUDA_R_16F, lda, Bh, CUDA_R_16F, ldb,
                            &beta, Cf, CUDA_R_32F, ldc, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT),
               CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ai, CUDA_R_8I, lda, Bi, CUDA_R_8I, ldb,
                            &beta, Cf, CUDA_R_32F, ldc, (cublasComputeType_t)99, CUBLAS_GEMM_DEFAULT),
               CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ah, CUDA_R_16F, lda, Bh, CUDA_R_16F, ldb,
                            &beta, Cf, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, (cublasGemmAlgo_t)50),
               CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ai, CUDA_R_8I, lda, Bi, CUDA_R_8I, ldb,
                            &beta, Cf, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
               CUBLAS_STATUS_NOT_SUPPORTED);    /* 32I compute needs an int32 C */
    CHECK_BLAS(cublasSgemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, Ah, CUDA_R_16F, lda, Bh, CUDA_R_16F, ldb,
                             &beta, Cf, CUDA_R_64F, ldc), CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK(Cf[0] == keep0);

    free(Ad); free(Bd); free(C0); free(R); free(Ah); free(Bh); free(Ch); free(Ab); free(Bb); free(Cb); free(Cf);
    free(Ai); free(Bi); free(Aq); free(Bq); free(Cd); free(Af32); free(Bf32);
    free(Abh); free(Bbh); free(Cbf); free(Rb); free(Abq); free(Bbq);
}

static void test_gemm_bad_args(cublasHandle_t h)
{
    SECTION("gemm bad arguments");
    float A[64], B[64], C[64], one = 1, zero = 0;
    for (int i = 0; i < 64; i++)
        A[i] = B[i] = C[i] = 7;
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 2, 2, &one, A, 2, B, 2, &zero, C, 2),
               CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 2, &one, A, 3, B, 2, &zero, C, 4),
               CUBLAS_STATUS_INVALID_VALUE);     /* lda < m */
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, 4, 2, 3, &one, A, 2, B, 3, &zero, C, 4),
               CUBLAS_STATUS_INVALID_VALUE);     /* lda < k for op T */
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, 4, 5, 3, &one, A, 4, B, 4, &zero, C, 4),
               CUBLAS_STATUS_INVALID_VALUE);     /* ldb < n for op T */
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 2, &one, A, 4, B, 2, &zero, C, 3),
               CUBLAS_STATUS_INVALID_VALUE);     /* ldc < m */
    CHECK_BLAS(cublasSgemm(h, (cublasOperation_t)7, CUBLAS_OP_N, 2, 2, 2, &one, A, 2, B, 2, &zero, C, 2),
               CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_CONJG, CUBLAS_OP_N, 2, 2, 2, &one, A, 2, B, 2, &zero, C, 2),
               CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, NULL, A, 2, B, 2, &zero, C, 2),
               CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, NULL, 2, B, 2, &zero, C, 2),
               CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSgemm(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, A, 2, B, 2, &zero, C, 2),
               CUBLAS_STATUS_NOT_INITIALIZED);
    int untouched = 1;
    for (int i = 0; i < 64; i++)
        untouched &= C[i] == 7;
    CHECK(untouched);
    /* quick returns */
    CHECK_BLAS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 0, 2, 2, &one, NULL, 1, NULL, 2, &zero, NULL, 1));
    CHECK_BLAS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 0, &one, NULL, 2, NULL, 1, &zero, C, 2));
    CHECK(C[0] == 0 && C[3] == 0 && C[4] == 7);      /* k == 0: C = beta C */
}

static void test_gemv(cublasHandle_t h)
{
    SECTION("gemv");
    const int incs[] = {1, 2, -1, -3};
    int bad = 0, cases = 0;
    for (int t = 0; t < 3; t++)
        for (int ix = 0; ix < 4; ix++)
            for (int iy = 0; iy < 4; iy++)
                for (int c = 0; c < 3; c++) {
                    int m = 6, n = 9, lda = 8;
                    char tc = opc(OPS[t]);
                    int lenx = tc == 'N' ? n : m, leny = tc == 'N' ? m : n;
                    int incx = incs[ix], incy = incs[iy];
                    double alpha = c == 2 ? 0 : 1.25, beta = c == 0 ? 0 : -0.5;
                    size_t nx = (size_t)(lenx - 1) * abs(incx) + 1, ny = (size_t)(leny - 1) * abs(incy) + 1;
                    double A[8 * 9], x[40], y[40], yd[40];
                    float Af[8 * 9], xf[40], yf[40];
                    for (int i = 0; i < 72; i++)
                        Af[i] = (float)(A[i] = (double)(float)rnd());
                    for (size_t i = 0; i < nx; i++)
                        xf[i] = (float)(x[i] = (double)(float)rnd());
                    for (size_t i = 0; i < ny; i++)
                        yf[i] = (float)(y[i] = yd[i] = beta == 0 ? NAN : (double)(float)rnd());
                    if (alpha == 0)
                        for (int i = 0; i < 72; i++)
                            Af[i] = (float)(A[i] = NAN);
                    double yr[40];
                    memcpy(yr, y, sizeof y);
                    ref_gemv(tc, m, n, alpha, A, lda, x, incx, beta, yr, incy);
                    float fa = (float)alpha, fb = (float)beta;
                    CHECK_BLAS_OK(cublasSgemv(h, OPS[t], m, n, &fa, Af, lda, xf, incx, &fb, yf, incy));
                    CHECK_BLAS_OK(cublasDgemv(h, OPS[t], m, n, &alpha, A, lda, x, incx, &beta, yd, incy));
                    for (int i = 0; i < leny; i++) {
                        size_t at = (size_t)i * abs(incy);
                        if (!(fabs(yf[at] - yr[at]) < 1e-5) || !(fabs(yd[at] - yr[at]) < 1e-12)) {
                            if (bad++ < 3)
                                fprintf(stderr, "  gemv %c incx=%d incy=%d a=%g b=%g y[%zu]: %g %g want %g\n", tc,
                                        incx, incy, alpha, beta, at, yf[at], yd[at], yr[at]);
                        }
                    }
                    cases++;
                }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(cases, 144);
    float A[16] = {0}, x[4] = {0}, y[4] = {3, 3, 3, 3}, one = 1;
    CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, 4, 4, &one, A, 3, x, 1, &one, y, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, 4, 4, &one, A, 4, x, 0, &one, y, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, 4, 4, &one, A, 4, x, 1, &one, y, 0), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, -1, 4, &one, A, 4, x, 1, &one, y, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSgemv(h, (cublasOperation_t)5, 4, 4, &one, A, 4, x, 1, &one, y, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK(y[0] == 3 && y[3] == 3);
}

static void test_geam(cublasHandle_t h)
{
    SECTION("geam");
    enum { M = 5, N = 7 };
    int bad = 0;
    for (int ta = 0; ta < 3; ta++)
        for (int tb = 0; tb < 3; tb++)
            for (int c = 0; c < 4; c++) {
                char at = opc(OPS[ta]), bt = opc(OPS[tb]);
                int lda = (at == 'N' ? M : N) + 1, ldb = (bt == 'N' ? M : N) + 2, ldc = M + 1;
                int acols = at == 'N' ? N : M, bcols = bt == 'N' ? N : M;
                float A[8 * 8], B[9 * 8], C[6 * 7];
                double alpha = c == 1 ? 0 : 1.5, beta = c == 2 ? 0 : -2, R[6 * 7];
                for (int i = 0; i < lda * acols; i++)
                    A[i] = alpha == 0 ? NAN : (float)rnd();
                for (int i = 0; i < ldb * bcols; i++)
                    B[i] = beta == 0 ? NAN : (float)rnd();
                for (int i = 0; i < ldc * N; i++)
                    C[i] = NAN;
                for (int j = 0; j < N; j++)
                    for (int i = 0; i < M; i++) {
                        double a = alpha == 0 ? 0 : alpha * (at == 'N' ? A[i + j * lda] : A[j + i * lda]);
                        double b = beta == 0 ? 0 : beta * (bt == 'N' ? B[i + j * ldb] : B[j + i * ldb]);
                        R[i + j * ldc] = a + b;
                    }
                float fa = (float)alpha, fb = (float)beta;
                CHECK_BLAS_OK(cublasSgeam(h, OPS[ta], OPS[tb], M, N, &fa, A, lda, &fb, B, ldb, C, ldc));
                for (int j = 0; j < N; j++)
                    for (int i = 0; i < M; i++)
                        if (!(fabs(C[i + j * ldc] - R[i + j * ldc]) < 1e-5))
                            bad++;
            }
    CHECK_EQ_INT(bad, 0);
    /* in place: C == A (transpose of B added) */
    double A[M * N], B[N * M], R[M * N];
    for (int i = 0; i < M * N; i++) {
        A[i] = rnd();
        B[i] = rnd();
    }
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            R[i + j * M] = 2 * A[i + j * M] + B[j + i * N];
    double two = 2, one = 1;
    CHECK_BLAS_OK(cublasDgeam(h, CUBLAS_OP_N, CUBLAS_OP_T, M, N, &two, A, M, &one, B, N, A, M));
    int ok = 1;
    for (int i = 0; i < M * N; i++)
        ok &= fabs(A[i] - R[i]) < 1e-14;
    CHECK(ok);
    CHECK_BLAS(cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, M, M, &two, A, M, &one, B, M, A, M),
               CUBLAS_STATUS_INVALID_VALUE);     /* in place needs op N */
    CHECK_BLAS(cublasDgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, &two, A, M, &one, B, M, (double *)B, M + 1),
               CUBLAS_STATUS_INVALID_VALUE);     /* in place needs ldc == ldb */
    CHECK_BLAS(cublasDgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, &two, A, M - 1, &one, B, M, R, M),
               CUBLAS_STATUS_INVALID_VALUE);
}

static void test_device_pointers(cublasHandle_t h)
{
    SECTION("device pointer mode with cudaMalloc memory");
    enum { M = 4, N = 3, K = 2 };
    float hA[M * K], hB[K * N], hC[M * N], *dA, *dB, *dC, *dAlpha, *dBeta, alpha = 2, beta = 0;
    double R[M * N], Ad[M * K], Bd[K * N];
    for (int i = 0; i < M * K; i++) hA[i] = (float)(Ad[i] = i + 1);
    for (int i = 0; i < K * N; i++) hB[i] = (float)(Bd[i] = i - 2);
    cudaMalloc((void **)&dA, sizeof hA);
    cudaMalloc((void **)&dB, sizeof hB);
    cudaMalloc((void **)&dC, sizeof hC);
    cudaMalloc((void **)&dAlpha, 4);
    cudaMalloc((void **)&dBeta, 4);
    cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
    cudaMemcpy(dAlpha, &alpha, 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dBeta, &beta, 4, cudaMemcpyHostToDevice);
    CHECK_BLAS_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CHECK_BLAS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, dAlpha, dA, M, dB, K, dBeta, dC, M));
    CHECK_BLAS_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    cudaMemcpy(hC, dC, sizeof hC, cudaMemcpyDeviceToHost);
    ref_gemm('N', 'N', M, N, K, 2, Ad, M, Bd, K, 0, R, M);
    int ok = 1;
    for (int i = 0; i < M * N; i++)
        ok &= hC[i] == (float)R[i];
    CHECK(ok);
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dAlpha); cudaFree(dBeta);
    CHECK(cudaGetLastError() == cudaSuccess);
}

static void test_thread_independence(void)
{
    SECTION("bitwise identical across thread counts");
    enum { M = 97, N = 83, K = 71 };
    float *A = malloc(M * K * 4), *B = malloc(K * N * 4), *C1 = malloc(M * N * 4), *C3 = malloc(M * N * 4);
    for (int i = 0; i < M * K; i++) A[i] = (float)rnd();
    for (int i = 0; i < K * N; i++) B[i] = (float)rnd();
    for (int i = 0; i < M * N; i++) C1[i] = C3[i] = (float)rnd();
    float alpha = 0.3f, beta = 1.7f;
    const char *threads[] = {"1", "3"};
    float *outs[] = {C1, C3};
    for (int t = 0; t < 2; t++) {
        cublasHandle_t h;
        setenv("HOSTDNN_NUM_THREADS", threads[t], 1);   /* read when the handle is created */
        CHECK_BLAS_OK(cublasCreate(&h));
        CHECK_BLAS_OK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, A, K, B, K, &beta, outs[t], M));
        CHECK_BLAS_OK(cublasDestroy(h));
    }
    unsetenv("HOSTDNN_NUM_THREADS");
    CHECK(memcmp(C1, C3, M * N * 4) == 0);
    free(A); free(B); free(C1); free(C3);
}

int main(void)
{
    cublasHandle_t h = NULL;
    CHECK_BLAS_OK(cublasCreate(&h));
    test_sgemm_dgemm(h);
    test_strided_batched(h);
    test_gemm_ex(h);
    test_gemm_bad_args(h);
    test_gemv(h);
    test_geam(h);
    test_device_pointers(h);
    test_thread_independence();
    CHECK_BLAS_OK(cublasDestroy(h));
    return hd_test_finish();
}
