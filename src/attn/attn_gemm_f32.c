/* Multi-head attention on GEMMs, float compute (the kernel is attn_gemm.inc). */
#include "core/api.h"
#include "kernels/gemm/gemm.h"

#define REAL float
#define REAL_DT CUDNN_DATA_FLOAT
#define GEMM hd_sgemm
#define EXP expf
#define FN(n) n##_f32
#include "attn/attn_gemm.inc"
