/* The convolution methods in float: FLOAT, HALF and BFLOAT16 data (conv_algos.inc). */
#define T float
#define NATIVE CUDNN_DATA_FLOAT
#define SFX(n) n##_f32
#define GEMM hd_sgemm
#include "conv/solvers/conv_algos.inc"
#include "conv/solvers/conv_winograd.inc"
#include "conv/solvers/conv_winograd5.inc"
#include "conv/solvers/conv_fft.inc"
#include "conv/solvers/conv_fft3d.inc"
