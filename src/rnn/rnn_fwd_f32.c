/* RNN forward pass, float compute (the kernel is rnn_fwd.inc). */
#include "core/api.h"
#include "core/cpu.h"
#include "kernels/gemm/gemm.h"
#include "kernels/rnn/rnn-ukernels.h"
#include "rnn/rnn_engine.h"

#define REAL float
#define GEMM hd_sgemm
#define PACK_B hd_sgemm_pack_b
#define GEMM_PB hd_sgemm_pb
#define PB_A_ELEMS hd_sgemm_pb_a_elems
#define PB_PACK_A hd_sgemm_pb_pack_a
#define PB_COLS hd_sgemm_pb_cols
#define EXP expf
#define TANH tanhf
#define FN(n) n##_f32
#define CELL_KERNELS 1
#include "rnn/rnn_fwd.inc"
