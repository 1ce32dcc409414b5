/* kernels/rnn/rnn-cell-config.c -- choosing the RNN cell table for an ISA.  AVX-512 machines
 * run the AVX2 table: the cell is a small share of a step, next to the matrix products. */
#include "kernels/rnn/rnn-ukernels.h"
#include "core/cpu.h"

const hd_rnn_cell_table *hd_rnn_cell_kernels(int isa)
{
    return hd_isa_cap(isa) >= HD_ISA_AVX2 ? &hd_f32_rnn_cell_ukernels__avx2 : &hd_f32_rnn_cell_ukernels__scalar;
}
