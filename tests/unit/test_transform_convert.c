/*
 * cudnnTransformTensor converts between element types (NVIDIA's mnistCUDNN sample relies on
 * it to turn FLOAT weights into HALF): every pair of FLOAT, DOUBLE, HALF and BFLOAT16, with
 * a layout change, alpha and beta.
 */
#include <cudnn.h>
#include <stdint.h>
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

int main(void)
{
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
