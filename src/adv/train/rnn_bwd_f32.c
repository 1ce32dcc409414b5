/* RNN backward data and weights, float compute (the kernels are adv/rnn_bwd.inc). */
#include "core/api.h"
#include "kernels/gemm/gemm.h"
#include "adv/rnn_exec.h"

#define REAL float
#define GEMM hd_sgemm
#define TANH tanhf
#define FN(n) n##_f32
#include "adv/rnn_bwd.inc"
