/* RNN forward pass, double compute (the kernel is adv/rnn_fwd.inc). */
#include "core/api.h"
#include "kernels/gemm/gemm.h"
#include "adv/rnn_exec.h"

#define REAL double
#define GEMM hd_dgemm
#define EXP exp
#define TANH tanh
#define FN(n) n##_f64
#include "adv/rnn_fwd.inc"
