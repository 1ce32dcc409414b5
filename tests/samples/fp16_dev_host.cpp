// fp16_dev_host.cpp -- host stand-in for the fp16_dev.cu file of NVIDIA's cuDNN samples.
//
// The sample's version launches a CUDA kernel (<<<...>>> syntax), which a host compiler
// cannot build.  This file provides the same function, gpu_float2half_rn(), with the same
// declaration (fp16_dev.h, from the sample) and the same rounding (to nearest even), as a
// plain loop: with hostdnn, "device" buffers are host memory.
#include <cuda_runtime.h>
#include "fp16_dev.h"

template <class value_type>
void gpu_float2half_rn(int size, const value_type *buffIn, half1 *buffOut)
{
    for (int i = 0; i < size; i++)
        buffOut[i] = __float2half_rn(float(buffIn[i]));
    cudaDeviceSynchronize();
}

template void gpu_float2half_rn<float>(int, const float *, half1 *);
template void gpu_float2half_rn<double>(int, const double *, half1 *);
