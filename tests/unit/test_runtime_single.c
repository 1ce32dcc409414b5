/*
 * One process-wide runtime: the thread pool exists once, in libcudnn_ops_infer, whichever
 * sub-library runs the work.  With HOSTDNN_NUM_THREADS=4, a convolution (cnn_infer), an
 * activation (ops_infer) and an activation backward (ops_train) all run on the caller plus the
 * same 3 pool workers: the process never has more than 4 threads.  A sub-library with a pool
 * of its own would start 3 more.  Thread counts come from /proc/self/task (on Windows, from a
 * Tool Help snapshot).
 */
#define _DEFAULT_SOURCE /* setenv */
#include <cudnn.h>
#include <stdlib.h>
#include "harness.h"
#ifdef _WIN32
#include <windows.h>
#include <tlhelp32.h>
#else
#include <dirent.h>
#endif

#define THREADS 4

#ifdef _WIN32
/* Windows has no /proc: the Tool Help snapshot lists every thread with its process. */
static int threads_now(void)
{
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
    if (snap == INVALID_HANDLE_VALUE)
        return -1;
    THREADENTRY32 te;
    te.dwSize = sizeof te;
    int n = 0;
    DWORD self = GetCurrentProcessId();
    for (BOOL more = Thread32First(snap, &te); more; more = Thread32Next(snap, &te))
        if (te.th32OwnerProcessID == self)
            n++;
    CloseHandle(snap);
    return n;
}
#else
static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}
#endif

int main(void)
{
    setenv("HOSTDNN_NUM_THREADS", "4", 1);
    int before = threads_now();
    if (before < 1) {
        printf("skipped: no /proc/self/task\n0 passed, 0 failed\n");
        return 0;
    }
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    const int N = 8, C = 16, H = 32, W = 32, K = 16;
    size_t nx = (size_t)N * C * H * W, ny = (size_t)N * K * H * W;
    float *x = calloc(nx, sizeof(float)), *y = calloc(ny, sizeof(float)), *dx = calloc(nx, sizeof(float));
    float *w = calloc((size_t)K * C * 9, sizeof(float));
    for (size_t i = 0; i < nx; i++)
        x[i] = (float)(i % 13) - 6;
    for (int i = 0; i < K * C * 9; i++)
        w[i] = (float)(i % 5) - 2;
    float one = 1, zero = 0;

    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad;
    CHECK_OK(cudnnCreateTensorDescriptor(&xd));
    CHECK_OK(cudnnCreateTensorDescriptor(&yd));
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnCreateConvolutionDescriptor(&cd));
    CHECK_OK(cudnnCreateActivationDescriptor(&ad));
    CHECK_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
    CHECK_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W));
    CHECK_OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, 3, 3));
    CHECK_OK(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));

    SECTION("cnn_infer");
    size_t wsb = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &wsb));
    void *ws = malloc(wsb + 1);
    for (int i = 0; i < 4; i++)
        CHECK_OK(cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ws, wsb,
                                         &zero, yd, y));
    int after_conv = threads_now();
    CHECK_MSG(after_conv > before, "the convolution ran on pool workers (%d threads before, %d after)", before,
              after_conv);
    CHECK_MSG(after_conv <= before + THREADS - 1, "%d threads after a convolution (at most %d)", after_conv,
              before + THREADS - 1);

    SECTION("ops_infer");
    for (int i = 0; i < 4; i++)
        CHECK_OK(cudnnActivationForward(h, ad, &one, xd, x, &zero, xd, dx));
    int after_ops = threads_now();
    CHECK_MSG(after_ops <= before + THREADS - 1, "%d threads after an activation in another library (at most %d: "
              "one pool)", after_ops, before + THREADS - 1);

    SECTION("ops_train");
    for (int i = 0; i < 4; i++)
        CHECK_OK(cudnnActivationBackward(h, ad, &one, xd, dx, xd, x, xd, x, &zero, xd, dx));
    int after_train = threads_now();
    CHECK_MSG(after_train <= before + THREADS - 1, "%d threads after an activation backward (at most %d: one pool)",
              after_train, before + THREADS - 1);
    printf("threads: %d at start, %d after cnn_infer, %d after ops_infer, %d after ops_train\n", before, after_conv,
           after_ops, after_train);

    cudnnDestroyActivationDescriptor(ad);
    cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroy(h);
    free(ws);
    free(x);
    free(y);
    free(dx);
    free(w);
    return hd_test_finish();
}
