/*
 * rnn/rnn_apack.h -- writing pieces of a GEMM A operand straight into the packed form that
 * hd_sgemm_pb_pack_a produces (kernels/gemm/gemm.h), for the RNN's column-block steps.
 *
 * The column-block steps compute the next step's A (the states, or backward data's
 * recurrent-side gradients: batch rows x width) in column blocks, one block per task.
 * Packing the whole A again on every thread at every step repeats the same transposition once
 * per thread; instead each task puts its own columns into one shared packed buffer, which
 * every task of the next step reads.  The buffer then holds exactly what hd_sgemm_pb_pack_a
 * would have written (test_kernel_rnn_apack checks this for every kernel the GEMM may
 * choose), so the products keep their bits.
 */
#ifndef HD_RNN_APACK_H
#define HD_RNN_APACK_H

#include <stddef.h>

#include "kernels/gemm/gemm.h"

/* The layout of a packed A of M rows for PB's kernel: k blocks of HD_GEMM_KC depth, each
 * holding the row panels of MR rows as kc rows of MR values. */
typedef struct {
    size_t mr, k, mpanels;
} hd_rnn_apack;

/* 0 when PB's kernel has row panels wider than the puts handle (HD_RNN_APACK_MAX_MR): the
 * caller then packs with hd_sgemm_pb_pack_a. */
#define HD_RNN_APACK_MAX_MR 16
int hd_rnn_apack_init(hd_rnn_apack *lay, const hd_gemm_packed_b *pb, size_t m);

/* The buffer has hd_sgemm_pb_a_elems(pb, m) elements; zero it once (calloc) before the first
 * put: the rows past M in the last panel are never written and must read as zeros. */

/* Rows [ROW0, ROW0 + NROWS), columns [K0, K0 + N) of op(A): row ROW0 + i from SRC[i] (N
 * values), or zeros where SRC[i] is NULL.  Written panel by panel, MR values of one column
 * at a time, so the stores are contiguous. */
void hd_rnn_apack_put_f32(const hd_rnn_apack *lay, size_t row0, size_t nrows, size_t k0, size_t n,
                          const float *const *src, float *ap);

/* The same with row ROW0 + i at SRC + i * LD. */
void hd_rnn_apack_put_ld_f32(const hd_rnn_apack *lay, size_t row0, size_t nrows, size_t k0, size_t n,
                             const float *src, size_t ld, float *ap);

#endif
