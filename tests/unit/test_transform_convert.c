/*
 * cudnnTransformTensor converts between element types (NVIDIA's mnistCUDNN sample relies on
 * it to turn FLOAT weights into HALF): every pair of FLOAT, DOUBLE, HALF and BFLOAT16, with
 * a layout change, alpha and beta.  Then the float NCHW <-> NHWC transposes (the blocked tile
 * kernels): edge shapes, alpha/beta with beta 0 over NaN, a transpose large enough for the
 * streaming stores, thread counts and every HOSTDNN_MAX_ISA cap (in child processes).
 */
#define _DEFAULT_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

static double ld(cudnnDataType_t t, const void *p, int i)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: return ((const float *)p)[i];
    case CUDNN_DATA_DOUBLE: return ((const double *)p)[i];
    case CUDNN_DATA_HALF: {        /* values used here are small integers and halves: exact */
        uint16_t h = ((const uint16_t *)p)[i];
        int e = (h >> 10) & 31, m = h & 1023;
        double v = e ? (1 + m / 1024.0) * ldexp(1, e - 15) : m / 1024.0 * ldexp(1, -14);
        return (h & 0x8000) ? -v : v;
    }
    default: {                      /* BFLOAT16 */
        uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    }
}

static void st(cudnnDataType_t t, void *p, int i, double v)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: ((float *)p)[i] = (float)v; break;
    case CUDNN_DATA_DOUBLE: ((double *)p)[i] = v; break;
    case CUDNN_DATA_HALF: {         /* exact for the small values used */
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        uint16_t s = (uint16_t)((u >> 16) & 0x8000);
        if ((u & 0x7fffffff) == 0) { ((uint16_t *)p)[i] = s; break; }
        int e = (int)((u >> 23) & 255) - 127 + 15;
        ((uint16_t *)p)[i] = (uint16_t)(s | (e << 10) | ((u >> 13) & 1023));
        break;
    }
    default: {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        ((uint16_t *)p)[i] = (uint16_t)(u >> 16);
    }
    }
}

/* One float transpose N x C x H x W between NCHW and NHWC (to_nhwc selects the direction);
 * returns the number of wrong values (exact: y = alpha * x + beta * y in float). */
static long transpose_case(cudnnHandle_t h, int N, int C, int H, int W, int to_nhwc, float alpha, float beta)
{
    size_t e = (size_t)N * C * H * W;
    float *x = malloc(e * 4), *y = malloc(e * 4), *y0 = malloc(e * 4);
    for (size_t i = 0; i < e; i++) {
        x[i] = (float)((int)((i * 13) % 61) - 30) * 0.25f;
        y0[i] = y[i] = beta == 0.0f ? NAN : (float)(i % 11);
    }
    cudnnTensorDescriptor_t xd, yd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnSetTensor4dDescriptor(xd, to_nhwc ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, C, H, W);
    cudnnSetTensor4dDescriptor(yd, to_nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W);
    long bad = cudnnTransformTensor(h, &alpha, xd, x, &beta, yd, y) == CUDNN_STATUS_SUCCESS ? 0 : 1;
    size_t S = (size_t)H * W;
    for (size_t n = 0; n < (size_t)N && !bad; n++)
        for (size_t c = 0; c < (size_t)C; c++)
            for (size_t sp = 0; sp < S; sp++) {
                size_t nchw = (n * C + c) * S + sp, nhwc = (n * S + sp) * C + c;
                size_t xi = to_nhwc ? nchw : nhwc, yi = to_nhwc ? nhwc : nchw;
                float v = alpha * x[xi];
                float want = beta != 0.0f ? v + beta * y0[yi] : v;
                bad += memcmp(&want, &y[yi], 4) != 0;
            }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    free(x);
    free(y);
    free(y0);
    return bad;
}

/* Edge shapes (C and H*W below, at and past the 16-wide register tiles and the 16 x 256
 * blocks; N > 1) both ways, four alpha/beta pairs; then a transpose past 16 MiB (streamed
 * when the CPU has AVX-512).  Returns the number of wrong cases. */
static int transpose_sweep(cudnnHandle_t h)
{
    static const int shapes[][4] = {{1, 1, 1, 1}, {2, 3, 1, 5}, {1, 16, 4, 4}, {3, 17, 3, 7}, {2, 64, 5, 13},
                                    {1, 5, 17, 16}, {2, 33, 1, 257}, {1, 300, 2, 3}, {4, 48, 9, 9}};
    static const float ab[4][2] = {{1, 0}, {2, 0}, {1, 0.5f}, {-0.5f, 2}};
    int bad = 0;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int dir = 0; dir < 2; dir++)
            for (int k = 0; k < 4; k++) {
                const int *sh = shapes[si];
                bad += transpose_case(h, sh[0], sh[1], sh[2], sh[3], dir, ab[k][0], ab[k][1]) != 0;
            }
    bad += transpose_case(h, 2, 64, 182, 182, 1, 1.0f, 0.0f) != 0;
    bad += transpose_case(h, 2, 64, 182, 182, 0, 1.0f, 0.0f) != 0;
    bad += transpose_case(h, 1, 48, 300, 301, 1, 0.5f, 0.0f) != 0;
    return bad;
}

static void transposes(void)
{
    static const char *threads[3] = {"1", "2", "3"};
    for (int t = 0; t < 3; t++) {
        char sec[64];
        snprintf(sec, sizeof sec, "float transposes, %s threads", threads[t]);
        SECTION(sec);
        setenv("HOSTDNN_NUM_THREADS", threads[t], 1);
        cudnnHandle_t h;
        CHECK_OK(cudnnCreate(&h));
        int bad = transpose_sweep(h);
        CHECK_MSG(bad == 0, "%d transpose cases wrong", bad);
        cudnnDestroy(h);
    }
}

/* Each ISA cap in a fresh child (the cap is read once per process). */
static void transposes_per_isa(void)
{
    static const char *caps[3] = {"scalar", "avx2", "avx512"};
    for (int i = 0; i < 3; i++) {
        char sec[64];
        snprintf(sec, sizeof sec, "float transposes, HOSTDNN_MAX_ISA=%s", caps[i]);
        SECTION(sec);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("HOSTDNN_MAX_ISA", caps[i], 1);
            setenv("HOSTDNN_NUM_THREADS", "2", 1);
            cudnnHandle_t h;
            if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
                _exit(2);
            int bad = transpose_sweep(h);
            cudnnDestroy(h);
            _exit(bad ? 1 : 0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
    }
}

int main(void)
{
    transposes_per_isa();      /* before this process loads anything */
    transposes();
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    const cudnnDataType_t types[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    const int n = 2, c = 3, hh = 2, w = 2, total = n * c * hh * w;
    for (int a = 0; a < 4; a++) {
        for (int b = 0; b < 4; b++) {
            SECTION("convert");
            cudnnTensorDescriptor_t xd, yd;
            cudnnCreateTensorDescriptor(&xd);
            cudnnCreateTensorDescriptor(&yd);
            CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, types[a], n, c, hh, w));
            CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, types[b], n, c, hh, w));
            double xs[64], ys[64];
            unsigned char x[64 * 8], y[64 * 8];
            for (int i = 0; i < total; i++) {
                st(types[a], x, i, xs[i] = (i % 7) - 3);
                st(types[b], y, i, ys[i] = (i % 5) * 0.5);
            }
            double alpha = 2, beta = 0.5;
            float af = 2, bf = 0.5;
            int dbl = types[a] == CUDNN_DATA_DOUBLE;
            CHECK_OK(cudnnTransformTensor(h, dbl ? (const void *)&alpha : (const void *)&af, xd, x,
                                          dbl ? (const void *)&beta : (const void *)&bf, yd, y));
            int bad = 0;
            for (int in = 0; in < n; in++)
                for (int ic = 0; ic < c; ic++)
                    for (int ih = 0; ih < hh; ih++)
                        for (int iw = 0; iw < w; iw++) {
                            int xi = ((in * c + ic) * hh + ih) * w + iw;
                            int yi = ((in * hh + ih) * w + iw) * c + ic;
                            double want = alpha * xs[xi] + beta * ys[yi];
                            if (ld(types[b], y, yi) != want)
                                bad++;
                        }
            CHECK_MSG(bad == 0, "%d wrong values converting type %d to %d", bad, (int)types[a], (int)types[b]);
            cudnnDestroyTensorDescriptor(xd);
            cudnnDestroyTensorDescriptor(yd);
        }
    }
    CHECK_OK(cudnnDestroy(h));
    return hd_test_finish();
}
