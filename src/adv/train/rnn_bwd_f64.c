/* RNN backward data and weights, double compute (the kernels are adv/rnn_bwd.inc). */
#include "core/api.h"
#include "kernels/gemm/gemm.h"
#include "adv/rnn_exec.h"

#define REAL double
#define GEMM hd_dgemm
#define TANH tanh
#define FN(n) n##_f64
#include "adv/rnn_bwd.inc"
