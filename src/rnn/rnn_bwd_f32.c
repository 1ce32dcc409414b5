/* RNN backward data and weights, float compute (the kernels are rnn_bwd.inc). */
#include "core/api.h"
#include "kernels/gemm/gemm.h"
#include "rnn/rnn_engine.h"

#define REAL float
#define GEMM hd_sgemm
#define TANH tanhf
#define FN(n) n##_f32
#include "rnn/rnn_bwd.inc"
