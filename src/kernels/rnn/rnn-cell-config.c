/* kernels/rnn/rnn-cell-config.c -- choosing the RNN cell table for an ISA.  The AVX-512 rows
 * give the AVX2 rows' bits (the same operations per lane), so the choice changes speed only. */
#include "kernels/rnn/rnn-ukernels.h"
#include "core/cpu.h"

const hd_rnn_cell_table *hd_rnn_cell_kernels(int isa)
{
    hd_isa_t have = hd_isa_cap(isa);
    return have >= HD_ISA_AVX512 ? &hd_f32_rnn_cell_ukernels__avx512
         : have >= HD_ISA_AVX2   ? &hd_f32_rnn_cell_ukernels__avx2
                                 : &hd_f32_rnn_cell_ukernels__scalar;
}
