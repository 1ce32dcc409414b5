/* RNN forward pass, float compute (the kernel is adv/rnn_fwd.inc). */
#include "core/api.h"
#include "kernels/gemm/gemm.h"
#include "adv/rnn_exec.h"

#define REAL float
#define GEMM hd_sgemm
#define EXP expf
#define TANH tanhf
#define FN(n) n##_f32
#include "adv/rnn_fwd.inc"
