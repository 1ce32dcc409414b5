/*
 * mlp_cublas.c -- a two-layer fully connected network run the way CUDA programs run one:
 * weights and inputs uploaded with cudaMemcpy, each layer a cublasSgemm (bias added by a
 * rank-1 GEMM with a vector of ones), timing with CUDA events, results checked against
 * plain loops.  Built with a host compiler against hostdnn's CUDA runtime and cuBLAS.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, (int)s_); exit(1); } } while (0)

enum { BATCH = 8, IN = 64, HID = 32, OUT = 10 };

static float weight(int layer, int i, int j) { return (float)sin(0.37 * (i + 1) * (layer + 1) + 0.11 * j) * 0.2f; }

/* y[out x batch] = W[out x in] x[in x batch] + b, all column-major, on the "device". */
static void fc(cublasHandle_t h, const float *W, const float *b, const float *ones, const float *x, float *y,
               int out, int in)
{
    const float one = 1, zero = 0;
    CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, out, BATCH, in, &one, W, out, x, in, &zero, y, out));
    CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, out, BATCH, 1, &one, b, out, ones, 1, &one, y, out));
}

int main(void)
{
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device 0: %s, compute capability %d.%d\n", prop.name, prop.major, prop.minor);

    float hW1[HID * IN], hb1[HID], hW2[OUT * HID], hb2[OUT], hx[IN * BATCH], ones[BATCH];
    for (int i = 0; i < HID; i++) {
        hb1[i] = 0.01f * i;
        for (int j = 0; j < IN; j++)
            hW1[i + j * HID] = weight(0, i, j);
    }
    for (int i = 0; i < OUT; i++) {
        hb2[i] = -0.02f * i;
        for (int j = 0; j < HID; j++)
            hW2[i + j * OUT] = weight(1, i, j);
    }
    for (int n = 0; n < BATCH; n++)
        for (int j = 0; j < IN; j++)
            hx[j + n * IN] = (float)cos(0.05 * j * (n + 1));
    for (int n = 0; n < BATCH; n++)
        ones[n] = 1;

    float *W1, *b1, *W2, *b2, *x, *h1, *y, *d_ones;
    CK(cudaMalloc((void **)&W1, sizeof hW1));
    CK(cudaMalloc((void **)&b1, sizeof hb1));
    CK(cudaMalloc((void **)&W2, sizeof hW2));
    CK(cudaMalloc((void **)&b2, sizeof hb2));
    CK(cudaMalloc((void **)&x, sizeof hx));
    CK(cudaMalloc((void **)&d_ones, sizeof ones));
    CK(cudaMalloc((void **)&h1, HID * BATCH * sizeof(float)));
    CK(cudaMalloc((void **)&y, OUT * BATCH * sizeof(float)));
    CK(cudaMemcpy(W1, hW1, sizeof hW1, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b1, hb1, sizeof hb1, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(W2, hW2, sizeof hW2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b2, hb2, sizeof hb2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_ones, ones, sizeof ones, cudaMemcpyHostToDevice));

    cublasHandle_t h;
    cudaStream_t s;
    cudaEvent_t t0, t1;
    CB(cublasCreate(&h));
    CK(cudaStreamCreate(&s));
    CB(cublasSetStream(h, s));
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));

    CK(cudaEventRecord(t0, s));
    fc(h, W1, b1, d_ones, x, h1, HID, IN);
    float hh[HID * BATCH];               /* ReLU on the host side of the program */
    CK(cudaMemcpyAsync(hh, h1, sizeof hh, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < HID * BATCH; i++)
        hh[i] = hh[i] > 0 ? hh[i] : 0;
    CK(cudaMemcpyAsync(h1, hh, sizeof hh, cudaMemcpyHostToDevice, s));
    fc(h, W2, b2, d_ones, h1, y, OUT, HID);
    CK(cudaEventRecord(t1, s));
    CK(cudaEventSynchronize(t1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, t0, t1));

    float hy[OUT * BATCH];
    CK(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));

    /* the same network with plain loops */
    double worst = 0;
    for (int n = 0; n < BATCH; n++) {
        double a[HID];
        for (int i = 0; i < HID; i++) {
            double v = hb1[i];
            for (int j = 0; j < IN; j++)
                v += (double)hW1[i + j * HID] * hx[j + n * IN];
            a[i] = v > 0 ? v : 0;
        }
        int best = 0;
        for (int i = 0; i < OUT; i++) {
            double v = hb2[i];
            for (int j = 0; j < HID; j++)
                v += (double)hW2[i + j * OUT] * a[j];
            double e = fabs(v - hy[i + n * OUT]);
            worst = e > worst ? e : worst;
            if (hy[i + n * OUT] > hy[best + n * OUT])
                best = i;
        }
        printf("sample %d: class %d\n", n, best);
    }
    printf("forward pass: %.3f ms, max difference from plain loops %.2e\n", ms, worst);

    CB(cublasDestroy(h));
    CK(cudaEventDestroy(t0));
    CK(cudaEventDestroy(t1));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(W1)); CK(cudaFree(b1)); CK(cudaFree(W2)); CK(cudaFree(b2));
    CK(cudaFree(x)); CK(cudaFree(h1)); CK(cudaFree(y)); CK(cudaFree(d_ones));
    printf("Result = %s\n", worst < 1e-4 ? "PASS" : "FAIL");
    return worst < 1e-4 ? 0 : 1;
}
