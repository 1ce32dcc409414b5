/*
 * demo.c -- what `make demo` runs: the version probe people run after installing cuDNN,
 * hostdnn's build information, then a tour of what works today.
 */
#include <cudnn.h>
#include <hostdnn.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(call) do { cudnnStatus_t s_ = (call); if (s_ != CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "%s failed: %s\n", #call, cudnnGetErrorString(s_)); exit(1); } } while (0)

int main(void)
{
    size_t v = cudnnGetVersion();
    printf("cuDNN version probe\n");
    printf("  cudnnGetVersion()       = %zu  (headers: CUDNN_VERSION %d)\n", v, CUDNN_VERSION);
    printf("  cudnnGetCudartVersion() = %zu\n", cudnnGetCudartVersion());
    int major, minor, patch;
    CK(cudnnGetProperty(MAJOR_VERSION, &major));
    CK(cudnnGetProperty(MINOR_VERSION, &minor));
    CK(cudnnGetProperty(PATCH_LEVEL, &patch));
    printf("  cudnnGetProperty        = %d.%d.%d\n", major, minor, patch);
    printf("  %s\n", v == CUDNN_VERSION ? "library and headers agree" : "MISMATCH between library and headers");

    printf("\nhostdnn build\n");
    printf("  %s\n", hostdnnGetVersionString());
    printf("  CPU: %s\n", hostdnnGetCpuName());
    printf("  kernels: %s (hardware supports %s), threads: %d\n", hostdnnGetIsa(), hostdnnGetHardwareIsa(),
           hostdnnGetNumThreads());

    printf("\nsub-library self-checks\n");
    printf("  ops_infer %s, ops_train %s, cnn_infer %s, cnn_train %s, adv_infer %s, adv_train %s\n",
           cudnnGetErrorString(cudnnOpsInferVersionCheck()), cudnnGetErrorString(cudnnOpsTrainVersionCheck()),
           cudnnGetErrorString(cudnnCnnInferVersionCheck()), cudnnGetErrorString(cudnnCnnTrainVersionCheck()),
           cudnnGetErrorString(cudnnAdvInferVersionCheck()), cudnnGetErrorString(cudnnAdvTrainVersionCheck()));

    cudnnHandle_t h;
    CK(cudnnCreate(&h));
    printf("\ncudnnCreate: handle ready (host memory stands in for device memory)\n");
    CK(cudnnDestroy(h));
    printf("next: train_cnn, a small CNN trained with cuDNN calls\n");
    return 0;
}
