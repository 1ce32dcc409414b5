/* RNN forward pass, float compute (the kernel is rnn_fwd.inc). */
#include "core/api.h"
#include "kernels/gemm/gemm.h"
#include "rnn/rnn_engine.h"

#define REAL float
#define GEMM hd_sgemm
#define EXP expf
#define TANH tanhf
#define FN(n) n##_f32
#include "rnn/rnn_fwd.inc"
