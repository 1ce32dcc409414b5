/* Multi-head attention on GEMMs, double compute (the kernel is attn_gemm.inc). */
#include "core/api.h"
#include "kernels/gemm/gemm.h"

#define REAL double
#define REAL_DT CUDNN_DATA_DOUBLE
#define GEMM hd_dgemm
#define EXP exp
#define FN(n) n##_f64
#include "attn/attn_gemm.inc"
