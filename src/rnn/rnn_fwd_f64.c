/* RNN forward pass, double compute (the kernel is rnn_fwd.inc). */
#include "core/api.h"
#include "kernels/gemm/gemm.h"
#include "kernels/rnn/rnn-ukernels.h"
#include "rnn/rnn_engine.h"

#define REAL double
#define GEMM hd_dgemm
#define PACK_B hd_dgemm_pack_b
#define GEMM_PB hd_dgemm_pb
#define EXP exp
#define TANH tanh
#define FN(n) n##_f64
#include "rnn/rnn_fwd.inc"
