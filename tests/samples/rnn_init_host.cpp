// rnn_init_host.cpp -- host stand-in for the data-initialisation kernel of NVIDIA's RNN_v8.0
// cuDNN sample.
//
// The sample's header (RNN_example.h) defines a CUDA kernel that sets every element of a
// device buffer to one value, and a template launcher, initGPUData(), that starts it with the
// <<<...>>> syntax, which a host compiler cannot build.  run_nvidia_samples.sh removes that
// kernel and launcher from a scratch copy of the header, leaving a declaration of
// initGPUData(), and links this file instead: with hostdnn, "device" buffers are host memory,
// so the fill is a plain loop.  The sample uses it with half1, float and double elements.
#include <cuda_runtime.h>
#include "fp16_emu.h"

template <typename T_ELEM>
void initGPUData(T_ELEM *data, int numElements, T_ELEM value)
{
    for (int i = 0; i < numElements; i++)
        data[i] = value;
    // the kernel ran on the default stream: keep the same ordering contract
    cudaDeviceSynchronize();
}

template void initGPUData<half1>(half1 *, int, half1);
template void initGPUData<float>(float *, int, float);
template void initGPUData<double>(double *, int, double);
