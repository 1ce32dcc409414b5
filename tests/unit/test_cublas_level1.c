/*
 * test_cublas_level1.c -- host cuBLAS handles and settings, level-1 routines against float64
 * loops (positive, negative and zero increments where BLAS allows them), transfers,
 * cuBLASLt handles, status names.
 */
#include <cublasLt.h>
#include <dlfcn.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdlib.h>

#include "harness.h"

#define CHECK_BLAS(expr, want) do { cublasStatus_t got_ = (expr); \
    if (got_ == (want)) hd_t_passed++; else { hd_t_failed++; \
    fprintf(stderr, "FAIL %s:%d [%s] %s -> %d, want %d\n", __FILE__, __LINE__, hd_t_section, #expr, \
            (int)got_, (int)(want)); } } while (0)
#define CHECK_BLAS_OK(expr) CHECK_BLAS(expr, CUBLAS_STATUS_SUCCESS)

static void test_handle(void)
{
    SECTION("handle");
    cublasHandle_t h = NULL;
    CHECK_BLAS(cublasCreate(NULL), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS_OK(cublasCreate(&h));
    int ver = 0;
    CHECK_BLAS_OK(cublasGetVersion(h, &ver));
    CHECK_EQ_INT(ver, CUBLAS_VERSION);
    CHECK(ver >= 11000 && ver < 12000);
    int major = 0;
    CHECK_BLAS_OK(cublasGetProperty(MAJOR_VERSION, &major));
    CHECK_EQ_INT(major, 11);
    CHECK_BLAS(cublasGetProperty((libraryPropertyType)7, &major), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ_INT(cublasGetCudartVersion(), 11020);

    cudaStream_t s = NULL, got = (cudaStream_t)0x1;
    CHECK_BLAS_OK(cublasGetStream(h, &got));
    CHECK(got == NULL);
    cudaStreamCreate(&s);
    CHECK_BLAS_OK(cublasSetStream(h, s));
    CHECK_BLAS_OK(cublasGetStream(h, &got));
    CHECK(got == s);
    CHECK_BLAS(cublasGetStream(h, NULL), CUBLAS_STATUS_INVALID_VALUE);

    cublasPointerMode_t pm;
    CHECK_BLAS_OK(cublasGetPointerMode(h, &pm));
    CHECK(pm == CUBLAS_POINTER_MODE_HOST);
    CHECK_BLAS_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CHECK_BLAS_OK(cublasGetPointerMode(h, &pm));
    CHECK(pm == CUBLAS_POINTER_MODE_DEVICE);
    CHECK_BLAS(cublasSetPointerMode(h, (cublasPointerMode_t)2), CUBLAS_STATUS_INVALID_VALUE);

    cublasMath_t mm;
    CHECK_BLAS_OK(cublasGetMathMode(h, &mm));
    CHECK(mm == CUBLAS_DEFAULT_MATH);
    CHECK_BLAS_OK(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    CHECK_BLAS_OK(cublasSetMathMode(h, (cublasMath_t)(CUBLAS_PEDANTIC_MATH |
                                                      CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
    CHECK_BLAS_OK(cublasGetMathMode(h, &mm));
    CHECK(mm == (cublasMath_t)(CUBLAS_PEDANTIC_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
    CHECK_BLAS(cublasSetMathMode(h, (cublasMath_t)9), CUBLAS_STATUS_INVALID_VALUE);
    cublasAtomicsMode_t am;
    CHECK_BLAS_OK(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED));
    CHECK_BLAS_OK(cublasGetAtomicsMode(h, &am));
    CHECK(am == CUBLAS_ATOMICS_ALLOWED);
    char ws[64];
    CHECK_BLAS_OK(cublasSetWorkspace(h, ws, sizeof ws));

    CHECK_BLAS_OK(cublasDestroy(h));
    CHECK_BLAS(cublasDestroy(h), CUBLAS_STATUS_NOT_INITIALIZED);        /* twice */
    CHECK_BLAS(cublasSetStream(h, s), CUBLAS_STATUS_NOT_INITIALIZED);   /* destroyed handle */
    CHECK_BLAS(cublasDestroy(NULL), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_BLAS(cublasGetVersion(NULL, &ver), CUBLAS_STATUS_NOT_INITIALIZED);
    cudaStreamDestroy(s);

    CHECK(strcmp(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE") == 0);
    CHECK(strcmp(cublasGetStatusString(CUBLAS_STATUS_SUCCESS), "success") == 0);
    CHECK(strcmp(cublasGetStatusName((cublasStatus_t)99), "unrecognized status") == 0);
    /* NVIDIA's cuBLAS as oracle for names and messages, when installed (not under
     * AddressSanitizer: loading it leaks memory of its own). */
#if defined(__SANITIZE_ADDRESS__)
    void *nv = NULL;
#else
    void *nv = dlopen("/usr/local/cuda/lib64/libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
#endif
    if (nv) {
        const char *(*nv_name)(int) = (const char *(*)(int))dlsym(nv, "cublasGetStatusName");
        const char *(*nv_text)(int) = (const char *(*)(int))dlsym(nv, "cublasGetStatusString");
        const int codes[] = {0, 1, 3, 7, 8, 11, 13, 14, 15, 16, 99};
        for (size_t i = 0; nv_name && nv_text && i < sizeof codes / sizeof codes[0]; i++) {
            CHECK_MSG(strcmp(cublasGetStatusName((cublasStatus_t)codes[i]), nv_name(codes[i])) == 0, "name of %d",
                      codes[i]);
            CHECK_MSG(strcmp(cublasGetStatusString((cublasStatus_t)codes[i]), nv_text(codes[i])) == 0,
                      "string of %d: '%s' vs '%s'", codes[i], cublasGetStatusString((cublasStatus_t)codes[i]),
                      nv_text(codes[i]));
        }
        dlclose(nv);
    } else {
        SKIP("status texts vs NVIDIA libcublas: libcublas.so.13 not loaded (absent, or AddressSanitizer)");
    }

    SECTION("cublasLt");
    cublasLtHandle_t lt = NULL;
    CHECK_BLAS_OK(cublasLtCreate(&lt));
    CHECK(lt != NULL);
    CHECK(cublasLtGetVersion() == CUBLAS_VERSION);
    CHECK_BLAS_OK(cublasLtDestroy(lt));
    CHECK_BLAS(cublasLtCreate(NULL), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasLtDestroy(NULL), CUBLAS_STATUS_NOT_INITIALIZED);
}

static double at(const double *x, int i, int n, int inc)
{
    return x[inc >= 0 ? i * inc : (n - 1 - i) * -inc];
}

static void test_level1(void)
{
    SECTION("level 1");
    cublasHandle_t h;
    CHECK_BLAS_OK(cublasCreate(&h));
    enum { N = 37 };
    const int incs[] = {1, 3, -1, -2};
    float xf[N * 3], yf[N * 3];
    double xd[N * 3], yd[N * 3];
    for (int i = 0; i < N * 3; i++) {
        xd[i] = (double)(float)((i * 37 % 23) - 11) / 7.0;
        yd[i] = (double)(float)((i * 11 % 17) - 8) / 5.0;
        xd[i] = (float)xd[i];
        yd[i] = (float)yd[i];
    }
    int bad = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            int ix = incs[a], iy = incs[b];
            /* dot */
            double want = 0;
            for (int i = 0; i < N; i++)
                want += at(xd, i, N, ix) * at(yd, i, N, iy);
            for (int i = 0; i < N * 3; i++) {
                xf[i] = (float)xd[i];
                yf[i] = (float)yd[i];
            }
            float fr = 0;
            double dr = 0;
            CHECK_BLAS_OK(cublasSdot(h, N, xf, ix, yf, iy, &fr));
            CHECK_BLAS_OK(cublasDdot(h, N, xd, ix, yd, iy, &dr));
            bad += !(fabs(fr - want) < 1e-5) || !(fabs(dr - want) < 1e-12);

            /* axpy */
            float alpha = -1.5f;
            double y2[N * 3];
            memcpy(y2, yd, sizeof y2);
            for (int i = 0; i < N; i++) {
                int yi = iy >= 0 ? i * iy : (N - 1 - i) * -iy;
                y2[yi] += alpha * at(xd, i, N, ix);
            }
            double da = alpha;
            double yd2[N * 3];
            memcpy(yd2, yd, sizeof yd2);
            CHECK_BLAS_OK(cublasSaxpy(h, N, &alpha, xf, ix, yf, iy));
            CHECK_BLAS_OK(cublasDaxpy(h, N, &da, xd, ix, yd2, iy));
            for (int i = 0; i < N * 3; i++)
                bad += !(fabs(yf[i] - y2[i]) < 1e-5) || !(fabs(yd2[i] - y2[i]) < 1e-12);

            /* copy and swap */
            float cf[N * 3];
            double cd[N * 3], cw[N * 3];
            for (int i = 0; i < N * 3; i++)
                cf[i] = 0, cd[i] = 0, cw[i] = 0;
            for (int i = 0; i < N; i++)
                cw[iy >= 0 ? i * iy : (N - 1 - i) * -iy] = at(xd, i, N, ix);
            CHECK_BLAS_OK(cublasScopy(h, N, xf, ix, cf, iy));
            CHECK_BLAS_OK(cublasDcopy(h, N, xd, ix, cd, iy));
            for (int i = 0; i < N * 3; i++)
                bad += cf[i] != (float)cw[i] || cd[i] != cw[i];
            double s1[N * 3], s2[N * 3];
            memcpy(s1, xd, sizeof s1);
            memcpy(s2, cd, sizeof s2);
            CHECK_BLAS_OK(cublasDswap(h, N, s1, ix, s2, iy));
            CHECK_BLAS_OK(cublasDswap(h, N, s1, ix, s2, iy));   /* twice = identity */
            bad += memcmp(s1, xd, sizeof s1) != 0 || memcmp(s2, cd, sizeof s2) != 0;
            float t1[N * 3], t2[N * 3];
            for (int i = 0; i < N * 3; i++)
                t1[i] = (float)xd[i], t2[i] = 0;
            CHECK_BLAS_OK(cublasSswap(h, N, t1, ix, t2, iy));
            for (int i = 0; i < N; i++)
                bad += t2[iy >= 0 ? i * iy : (N - 1 - i) * -iy] != (float)at(xd, i, N, ix);
        }
    CHECK_EQ_INT(bad, 0);

    SECTION("scal nrm2 asum iamax");
    for (int a = 0; a < 2; a++) {
        int inc = incs[a];
        double ss = 0, sa = 0, big = -1;
        int imax = 0;
        for (int i = 0; i < N; i++) {
            double v = xd[i * inc];
            ss += v * v;
            sa += fabs(v);
            if (fabs(v) > big) {
                big = fabs(v);
                imax = i + 1;
            }
        }
        float fr;
        double dr;
        int ir = -1;
        CHECK_BLAS_OK(cublasSnrm2(h, N, xf, inc, &fr));
        for (int i = 0; i < N * 3; i++)
            xf[i] = (float)xd[i];
        CHECK_BLAS_OK(cublasSnrm2(h, N, xf, inc, &fr));
        CHECK_NEAR(fr, sqrt(ss), 1e-5);
        CHECK_BLAS_OK(cublasDnrm2(h, N, xd, inc, &dr));
        CHECK_NEAR(dr, sqrt(ss), 1e-12);
        CHECK_BLAS_OK(cublasSasum(h, N, xf, inc, &fr));
        CHECK_NEAR(fr, sa, 1e-5);
        CHECK_BLAS_OK(cublasDasum(h, N, xd, inc, &dr));
        CHECK_NEAR(dr, sa, 1e-12);
        CHECK_BLAS_OK(cublasIsamax(h, N, xf, inc, &ir));
        CHECK_EQ_INT(ir, imax);
        CHECK_BLAS_OK(cublasIdamax(h, N, xd, inc, &ir));
        CHECK_EQ_INT(ir, imax);
        float sc = 3.0f;
        double dsc = -0.5;
        float xs[N * 3];
        double xds[N * 3];
        memcpy(xs, xf, sizeof xs);
        memcpy(xds, xd, sizeof xds);
        CHECK_BLAS_OK(cublasSscal(h, N, &sc, xs, inc));
        CHECK_BLAS_OK(cublasDscal(h, N, &dsc, xds, inc));
        int ok = 1;
        for (int i = 0; i < N * 3; i++) {
            int hit = i % inc == 0 && i / inc < N;
            ok &= xs[i] == (hit ? 3.0f * xf[i] : xf[i]);
            ok &= xds[i] == (hit ? -0.5 * xd[i] : xd[i]);
        }
        CHECK(ok);
    }
    /* overflow-safe nrm2 */
    float huge[2] = {3e30f, 4e30f};
    float fr = 0;
    CHECK_BLAS_OK(cublasSnrm2(h, 2, huge, 1, &fr));
    CHECK_NEAR(fr / 5e30f, 1.0, 1e-6);

    SECTION("level 1 edge cases");
    float r = 7;
    int ir = 7;
    CHECK_BLAS_OK(cublasSnrm2(h, 0, xf, 1, &r));
    CHECK(r == 0);
    r = 7;
    CHECK_BLAS_OK(cublasSasum(h, N, xf, -1, &r));      /* incx <= 0: result 0 */
    CHECK(r == 0);
    CHECK_BLAS_OK(cublasIsamax(h, 0, xf, 1, &ir));
    CHECK_EQ_INT(ir, 0);
    r = 7;
    CHECK_BLAS_OK(cublasSdot(h, 0, xf, 1, yf, 1, &r));
    CHECK(r == 0);
    CHECK_BLAS(cublasSdot(h, N, xf, 1, yf, 1, NULL), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSaxpy(h, N, NULL, xf, 1, yf, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSscal(h, N, NULL, xf, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSnrm2(NULL, N, xf, 1, &r), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_BLAS_OK(cublasSaxpy(h, -3, &r, NULL, 1, NULL, 1));   /* n <= 0: nothing */
    /* zero increment on x broadcasts one element (reference BLAS) */
    float one = 1, xb = 2, yb[3] = {1, 1, 1};
    CHECK_BLAS_OK(cublasSaxpy(h, 3, &one, &xb, 0, yb, 1));
    CHECK(yb[0] == 3 && yb[1] == 3 && yb[2] == 3);
    CHECK_BLAS_OK(cublasDestroy(h));
}

static void test_transfers(void)
{
    SECTION("set/get vector and matrix");
    float src[20], dst[20];
    for (int i = 0; i < 20; i++)
        src[i] = (float)i, dst[i] = -1;
    CHECK_BLAS_OK(cublasSetVector(5, sizeof(float), src, 2, dst, 3));
    CHECK(dst[0] == 0 && dst[3] == 2 && dst[12] == 8 && dst[1] == -1);
    CHECK_BLAS_OK(cublasGetVector(5, sizeof(float), src, 1, dst, 1));
    CHECK(dst[4] == 4);
    CHECK_BLAS(cublasSetVector(5, 0, src, 1, dst, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasSetVector(5, 4, src, 0, dst, 1), CUBLAS_STATUS_INVALID_VALUE);
    for (int i = 0; i < 20; i++)
        dst[i] = -1;
    CHECK_BLAS_OK(cublasSetMatrix(3, 2, sizeof(float), src, 4, dst, 5));
    CHECK(dst[0] == 0 && dst[2] == 2 && dst[3] == -1 && dst[5] == 4 && dst[7] == 6);
    CHECK_BLAS_OK(cublasGetMatrixAsync(3, 2, sizeof(float), src, 3, dst, 3, 0));
    CHECK(dst[5] == 5);
    CHECK_BLAS(cublasSetMatrix(3, 2, sizeof(float), src, 2, dst, 3), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS(cublasGetMatrix(-1, 2, sizeof(float), src, 2, dst, 3), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_BLAS_OK(cublasSetVectorAsync(2, 4, src, 1, dst, 1, 0));
    CHECK_BLAS_OK(cublasGetVectorAsync(2, 4, src, 1, dst, 1, 0));
    CHECK_BLAS_OK(cublasSetMatrixAsync(1, 1, 4, src, 1, dst, 1, 0));
}

static void test_half_conversions(void)
{
    SECTION("cuda_fp16.h conversions");
    /* exact values, rounding to nearest even, overflow, subnormals, NaN */
    CHECK(__half_as_ushort(__float2half(1.0f)) == 0x3c00);
    CHECK(__half_as_ushort(__float2half(-2.0f)) == 0xc000);
    CHECK(__half_as_ushort(__float2half(65504.0f)) == 0x7bff);
    CHECK(__half_as_ushort(__float2half(65520.0f)) == 0x7c00);     /* rounds up to inf */
    CHECK(__half_as_ushort(__float2half(65519.0f)) == 0x7bff);
    CHECK(__half_as_ushort(__float2half_rz(1e6f)) == 0x7bff);
    CHECK(__half_as_ushort(__float2half(1.0f + 1.0f / 2048)) == 0x3c00);  /* tie -> even */
    CHECK(__half_as_ushort(__float2half(1.0f + 3.0f / 2048)) == 0x3c02);  /* tie -> even (up) */
    CHECK(__half_as_ushort(__float2half(5.9604644775390625e-08f)) == 0x0001);  /* 2^-24 */
    CHECK(__half_as_ushort(__float2half(2.98023223876953125e-08f)) == 0x0000); /* 2^-25 ties to 0 */
    CHECK(__half_as_ushort(__float2half(4.0e-08f)) == 0x0001);
    CHECK(__half_as_ushort(__float2half(6.097555160522461e-05f)) == 0x03ff);   /* largest subnormal */
    CHECK(__half_as_ushort(__float2half(NAN)) == 0x7fff);
    CHECK(__half_as_ushort(__float2half(-INFINITY)) == 0xfc00);
    CHECK(__half2float(__ushort_as_half(0x0001)) == 5.9604644775390625e-08f);
    CHECK(__half2float(__ushort_as_half(0x7bff)) == 65504.0f);
    CHECK(isnan(__half2float(__ushort_as_half(0x7e00))));
    CHECK(__hisnan(__ushort_as_half(0x7e00)) && !__hisnan(__ushort_as_half(0x7c00)));
    CHECK(__hisinf(__ushort_as_half(0xfc00)) == -1);
    /* every half round-trips through float */
    int rt = 1;
    for (unsigned b = 0; b < 0x10000; b++) {
        __half hv = __ushort_as_half((unsigned short)b);
        if (__hisnan(hv))
            continue;
        rt &= __half_as_ushort(__float2half(__half2float(hv))) == b;
    }
    CHECK(rt);
    __half_raw raw;
    raw.x = 0x4000;
    __half two;
    memcpy(&two, &raw, sizeof two);
    CHECK(__half2float(two) == 2.0f);
    CHECK(__low2float(__floats2half2_rn(1.5f, -3.0f)) == 1.5f);
    CHECK(__high2float(__floats2half2_rn(1.5f, -3.0f)) == -3.0f);
    CHECK(__bfloat16_as_ushort(__float2bfloat16(1.0f)) == 0x3f80);
    CHECK(__bfloat16_as_ushort(__float2bfloat16(1.00390625f)) == 0x3f80);   /* tie -> even */
    CHECK(__bfloat16_as_ushort(__float2bfloat16(1.01171875f)) == 0x3f82);   /* tie -> even (up) */
    CHECK(__bfloat16_as_ushort(__float2bfloat16(NAN)) == 0x7fff);
    CHECK(__bfloat162float(__ushort_as_bfloat16(0xc040)) == -3.0f);
    CHECK_EQ_INT(sizeof(__half), 2);
    CHECK_EQ_INT(sizeof(__half2), 4);
    CHECK_EQ_INT(sizeof(__nv_bfloat16), 2);
}

int main(void)
{
    test_handle();
    test_level1();
    test_transfers();
    test_half_conversions();
    return hd_test_finish();
}
