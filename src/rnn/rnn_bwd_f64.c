/* RNN backward data and weights, double compute (the kernels are rnn_bwd.inc). */
#include "core/api.h"
#include "kernels/gemm/gemm.h"
#include "rnn/rnn_engine.h"

#define REAL double
#define GEMM hd_dgemm
#define PACK_B hd_dgemm_pack_b
#define GEMM_PB hd_dgemm_pb
#define TANH tanh
#define FN(n) n##_f64
#include "rnn/rnn_bwd.inc"
