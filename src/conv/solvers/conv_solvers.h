/*
 * conv/solvers/conv_solvers.h -- every convolution solver's descriptor, declared in one
 * place.  Each is defined beside its code; conv/conv_registry.c lists them in one table per
 * direction, most specialised first.  docs/solvers.md has the table of ids and names.
 */
#ifndef HD_CONV_SOLVERS_H
#define HD_CONV_SOLVERS_H

#include "conv/conv_registry.h"

/* generic, any data type (conv_generic.c; 110/208/308 F(2x2,5x5), 111/209/309 3-d FFT_TILING) */
extern const hd_conv_solver hd_solver_fwd_implicit;       /* 101 */
extern const hd_conv_solver hd_solver_fwd_precomp;        /* 102 */
extern const hd_conv_solver hd_solver_fwd_gemm;           /* 103 */
extern const hd_conv_solver hd_solver_fwd_direct;         /* 104 */
extern const hd_conv_solver hd_solver_fwd_wino_f;         /* 105 */
extern const hd_conv_solver hd_solver_fwd_wino_nf;        /* 106 */
extern const hd_conv_solver hd_solver_fwd_fft;            /* 107 */
extern const hd_conv_solver hd_solver_fwd_fftt;           /* 108 */
extern const hd_conv_solver hd_solver_bwdd_gemm;          /* 201 */
extern const hd_conv_solver hd_solver_bwdd_direct;        /* 202 */
extern const hd_conv_solver hd_solver_bwdd_wino_f;        /* 203 */
extern const hd_conv_solver hd_solver_bwdd_wino_nf;       /* 204 */
extern const hd_conv_solver hd_solver_bwdd_fft;           /* 205 */
extern const hd_conv_solver hd_solver_bwdd_fftt;          /* 206 */
extern const hd_conv_solver hd_solver_bwdf_gemm;          /* 301 */
extern const hd_conv_solver hd_solver_bwdf_direct;        /* 302 */
extern const hd_conv_solver hd_solver_bwdf_tiled;         /* 303 */
extern const hd_conv_solver hd_solver_bwdf_fft;           /* 304 */
extern const hd_conv_solver hd_solver_bwdf_fftt;          /* 305 */
extern const hd_conv_solver hd_solver_bwdf_wino_nf;       /* 306 */
extern const hd_conv_solver hd_solver_fwd_wino5;          /* 110 */
extern const hd_conv_solver hd_solver_fwd_fft3d;          /* 111 */
extern const hd_conv_solver hd_solver_bwdd_wino5;         /* 208 */
extern const hd_conv_solver hd_solver_bwdd_fft3d;         /* 209 */
extern const hd_conv_solver hd_solver_bwdf_wino5;         /* 308 */
extern const hd_conv_solver hd_solver_bwdf_fft3d;         /* 309 */

/* fp32 blocked implicit GEMM: forward (conv_fwd_*_f32.c, conv_fwd_dot_f32.c), backward data
 * and filter (conv_fast_f32.c) */
extern const hd_conv_solver hd_solver_fwd_blocked;        /* 150 */
extern const hd_conv_solver hd_solver_fwd_dot;            /* 151 */
extern const hd_conv_solver hd_solver_fwd_rows;           /* 152 */
extern const hd_conv_solver hd_solver_fwd_wide;           /* 153 */
extern const hd_conv_solver hd_solver_bwdd_blocked;       /* 250 */
extern const hd_conv_solver hd_solver_bwdf_blocked;       /* 350 */

/* fp32 backward data without the zeros of a strided gather (conv_bwdd_*_f32.c) */
extern const hd_conv_solver hd_solver_bwdd_phase;         /* 251 */
extern const hd_conv_solver hd_solver_bwdd_col2im;        /* 252 */
extern const hd_conv_solver hd_solver_bwdd_1x1;           /* 253 */
extern const hd_conv_solver hd_solver_bwdd_batched;       /* 254 */

/* fp32 backward filter on the GEMM micro-kernels (conv_bwdf_*_f32.c) */
extern const hd_conv_solver hd_solver_bwdf_ukernel;       /* 351 */
extern const hd_conv_solver hd_solver_bwdf_kmajor;        /* 352 */

/* fp32 depthwise (conv_dw_*_f32.c) */
extern const hd_conv_solver hd_solver_fwd_dw;             /* 160 */
extern const hd_conv_solver hd_solver_bwdd_dw;            /* 260 */
extern const hd_conv_solver hd_solver_bwdf_dw;            /* 360 */

/* low precision forward (conv_lowp.c) */
extern const hd_conv_solver hd_solver_fwd_int8;           /* 170 */
extern const hd_conv_solver hd_solver_fwd_bf16;           /* 171 */

/* fp32 Winograd F(4x4, 3x3) (conv_wino4_f32.c, conv_wino4_bwdf_f32.c) */
extern const hd_conv_solver hd_solver_fwd_wino4;          /* 109 */
extern const hd_conv_solver hd_solver_bwdd_wino4;         /* 207 */
extern const hd_conv_solver hd_solver_bwdf_wino4;         /* 307 */
/* the same engine, 5x5 filters in 3x3 pieces (conv_wino4_view.h) */
extern const hd_conv_solver hd_solver_fwd_wino4_split;    /* 112 */
extern const hd_conv_solver hd_solver_bwdd_wino4_split;   /* 210 */
extern const hd_conv_solver hd_solver_bwdf_wino4_split;   /* 310 */
/* strided stems by space-to-depth on the same engine (conv_fwd_s2d_f32.c) */
extern const hd_conv_solver hd_solver_fwd_s2d;            /* 113 */
extern const hd_conv_solver hd_solver_bwdf_s2d;           /* 311 */

#endif
