/* The convolution methods in double: DOUBLE data (conv_algos.inc). */
#define T double
#define NATIVE CUDNN_DATA_DOUBLE
#define SFX(n) n##_f64
#define GEMM hd_dgemm
#include "conv/solvers/conv_algos.inc"
#include "conv/solvers/conv_winograd.inc"
#include "conv/solvers/conv_winograd5.inc"
#include "conv/solvers/conv_fft.inc"
#include "conv/solvers/conv_fft3d.inc"
