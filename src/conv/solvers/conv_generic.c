/*
 * The generic convolution solvers (conv/solvers/conv_solvers.h): one per cuDNN algorithm,
 * any data type (float or double accumulation, conv_algos.inc, conv_winograd.inc,
 * conv_fft.inc).  None keeps a plan of its own: each gives its workspace layout, and the
 * registry checks that it fits.
 */
#include "conv/conv_internal.h"
#include "conv/solvers/conv_solvers.h"

/* ---- workspace and applicability ---- */

static size_t ws_zero(const hd_conv_problem *p)
{
    (void)p;
    return 0;
}

static size_t ws_fwd_gemm(const hd_conv_problem *p) { return hd_conv_layout_fwd_gemm(p).total; }
static size_t ws_fwd_precomp(const hd_conv_problem *p) { return hd_conv_layout_fwd_precomp(p).total; }
static size_t ws_bwdd_gemm(const hd_conv_problem *p) { return hd_conv_layout_bwdd_gemm(p).total; }
static size_t ws_bwdf_gemm(const hd_conv_problem *p) { return hd_conv_layout_bwdf_gemm(p, 0).total; }
static size_t ws_bwdf_tiled(const hd_conv_problem *p) { return hd_conv_layout_bwdf_gemm(p, 1).total; }


/* Winograd F(2x2, 3x3): 2-d, 3x3 filter, unit stride and dilation; backward data also
 * needs pad <= 2 (its equivalent forward convolution pads by 2 - pad). */
static int wino_shape(const hd_conv_problem *p, int bwd, const char **reason)
{
    if (p->nsp != 2) {
        *reason = "Winograd is implemented for 2-d convolutions only";
        return 0;
    }
    if (p->flt[1] != 3 || p->flt[2] != 3) {
        *reason = "Winograd F(2x2,3x3) needs a 3x3 filter";
        return 0;
    }
    if (p->str[1] != 1 || p->str[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1) {
        *reason = "Winograd needs unit stride and dilation";
        return 0;
    }
    if (bwd && (p->pad[1] > 2 || p->pad[2] > 2)) {
        *reason = "backward-data Winograd needs padding <= 2";
        return 0;
    }
    return 1;
}

/* WINOGRAD_NONFUSED: 2-d 3x3 (F(2x2,3x3), solvers 106/204/306, and F(4x4,3x3) ahead of them)
 * or 5x5 (F(2x2,5x5), solvers 110/208/308) filters, unit stride and dilation, as cuDNN 8.1
 * documents it, which also excludes TRUE_HALF_CONFIG (HALF data and compute) for 5x5;
 * backward data pads by at most filter - 1 (its equivalent forward problem pads by
 * filter - 1 - pad).  Both solvers of a direction check the whole rule and then their own
 * filter size, so a refused problem logs the same reason whichever solver comes last. */
static int wino_nf_shape(const hd_conv_problem *p, int bwd, int64_t own, const char **reason)
{
    if (p->nsp != 2) {
        *reason = "Winograd is implemented for 2-d convolutions only";
        return 0;
    }
    int64_t R = p->flt[1];
    if (R != p->flt[2] || (R != 3 && R != 5)) {
        *reason = "WINOGRAD_NONFUSED needs a 3x3 or 5x5 filter";
        return 0;
    }
    if (p->str[1] != 1 || p->str[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1) {
        *reason = "Winograd needs unit stride and dilation";
        return 0;
    }
    if (R == 5 && p->xdt == CUDNN_DATA_HALF && p->cdt == CUDNN_DATA_HALF) {
        *reason = "WINOGRAD_NONFUSED with a 5x5 filter does not take TRUE_HALF_CONFIG (HALF compute)";
        return 0;
    }
    if (bwd && (p->pad[1] > R - 1 || p->pad[2] > R - 1)) {
        *reason = R == 3 ? "backward-data Winograd needs padding <= 2" : "backward-data Winograd F(2x2,5x5) needs padding <= 4";
        return 0;
    }
    if (R != own) {
        *reason = "the other WINOGRAD_NONFUSED solver of this direction takes this filter size";
        return 0;
    }
    return 1;
}

static int app_wino_nf_fwd(const hd_conv_problem *p, const char **r) { return wino_nf_shape(p, 0, 3, r); }
static int app_wino_nf_bwdd(const hd_conv_problem *p, const char **r) { return wino_nf_shape(p, 1, 3, r); }
static int app_wino5_fwd(const hd_conv_problem *p, const char **r) { return wino_nf_shape(p, 0, 5, r); }
static int app_wino5_bwdd(const hd_conv_problem *p, const char **r) { return wino_nf_shape(p, 1, 5, r); }
static size_t ws_fwd_wino5(const hd_conv_problem *p) { return hd_conv_layout_winograd5(p, 0).total; }
static size_t ws_bwdd_wino5(const hd_conv_problem *p) { return hd_conv_layout_winograd5(p, 1).total; }
static size_t ws_bwdf_wino5(const hd_conv_problem *p) { return hd_conv_layout_winograd5_bwdf(p).total; }

static size_t ws_fwd_wino_nf(const hd_conv_problem *p) { return hd_conv_layout_winograd(p, 0, 0).total; }
static size_t ws_fwd_wino_f(const hd_conv_problem *p) { return hd_conv_layout_winograd(p, 0, 1).total; }
static size_t ws_bwdd_wino_nf(const hd_conv_problem *p) { return hd_conv_layout_winograd(p, 1, 0).total; }
static size_t ws_bwdd_wino_f(const hd_conv_problem *p) { return hd_conv_layout_winograd(p, 1, 1).total; }
static size_t ws_bwdf_wino_nf(const hd_conv_problem *p) { return hd_conv_layout_winograd_bwdf(p).total; }
static int app_wino_fwd(const hd_conv_problem *p, const char **r) { return wino_shape(p, 0, r); }
static int app_wino_bwdd(const hd_conv_problem *p, const char **r) { return wino_shape(p, 1, r); }

/* FFT: 2-d, unit stride and dilation; planes of at most 2^12 x 2^12. */
static int fft_shape(const hd_conv_problem *p, const char **reason)
{
    if (p->nsp != 2) {
        *reason = "FFT is implemented for 2-d convolutions only";
        return 0;
    }
    if (p->str[1] != 1 || p->str[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1) {
        *reason = "FFT needs unit stride and dilation";
        return 0;
    }
    if (p->in[1] + 2 * p->pad[1] > 4096 || p->in[2] + 2 * p->pad[2] > 4096) {
        *reason = "FFT planes are limited to 4096 x 4096";
        return 0;
    }
    return 1;
}

/* 3-d FFT_TILING (solvers 111, 209, 309), as cuDNN 8.1 documents it for 3-d convolutions:
 * unit stride and dilation, filters of at most 16 in each dimension, each larger than the
 * padding of its dimension. */
static int fft3d_shape(const hd_conv_problem *p, const char **reason)
{
    for (int d = 0; d < 3; d++) {
        if (p->str[d] != 1 || p->dil[d] != 1) {
            *reason = "FFT needs unit stride and dilation";
            return 0;
        }
        if (p->flt[d] > 16) {
            *reason = "3-d FFT_TILING handles filters up to 16 x 16 x 16";
            return 0;
        }
        if (p->pad[d] >= p->flt[d]) {
            *reason = "3-d FFT_TILING needs each filter dimension larger than its padding";
            return 0;
        }
    }
    return 1;
}

static int app_fft3d(const hd_conv_problem *p, const char **reason)
{
    if (p->nsp != 3) {
        *reason = "2-d FFT_TILING is the 2-d solver's";
        return 0;
    }
    return fft3d_shape(p, reason);
}

static size_t ws_fwd_fft3d(const hd_conv_problem *p) { return hd_conv_layout_fft3d(p, 0).total; }
static size_t ws_bwdd_fft3d(const hd_conv_problem *p) { return hd_conv_layout_fft3d(p, 1).total; }
static size_t ws_bwdf_fft3d(const hd_conv_problem *p) { return hd_conv_layout_fft3d(p, 2).total; }

/* FFT_TILING: as FFT, filters up to 32 x 32 (64 x 64 transforms).  3-d problems belong to
 * the 3-d solvers, listed first; this one, listed last, names why they refused. */
static int fft_tile_shape(const hd_conv_problem *p, const char **reason)
{
    if (p->nsp == 3) {
        if (fft3d_shape(p, reason))
            *reason = "3-d FFT_TILING is the 3-d solver's";
        return 0;
    }
    if (!fft_shape(p, reason))
        return 0;
    if (p->flt[1] > 32 || p->flt[2] > 32) {
        *reason = "FFT_TILING handles filters up to 32 x 32";
        return 0;
    }
    return 1;
}

static size_t ws_fwd_fft(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 0, 0).total; }
static size_t ws_bwdd_fft(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 1, 0).total; }
static size_t ws_bwdf_fft(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 2, 0).total; }
static size_t ws_fwd_fftt(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 0, 1).total; }
static size_t ws_bwdd_fftt(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 1, 1).total; }
static size_t ws_bwdf_fftt(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 2, 1).total; }

/* ---- execution: pick the precision ---- */

#define EXEC(fn) \
    static void exec_##fn(const hd_conv_problem *p, const hd_conv_args *a) \
    { \
        if (p->dbl) \
            hd_conv_##fn##_f64(p, a); \
        else \
            hd_conv_##fn##_f32(p, a); \
    }
EXEC(fwd_gemm)
EXEC(fwd_implicit)
EXEC(fwd_precomp)
EXEC(fwd_direct)
EXEC(bwdd_gemm)
EXEC(bwdd_direct)
EXEC(bwdf_gemm)
EXEC(bwdf_tiled)
EXEC(bwdf_direct)
EXEC(fwd_wino_nonfused)
EXEC(fwd_wino_fused)
EXEC(bwdd_wino_nonfused)
EXEC(bwdd_wino_fused)
EXEC(bwdf_wino_nonfused)
EXEC(fwd_fft)
EXEC(bwdd_fft)
EXEC(bwdf_fft)
EXEC(fwd_fft_tiling)
EXEC(bwdd_fft_tiling)
EXEC(bwdf_fft_tiling)
EXEC(fwd_wino5)
EXEC(bwdd_wino5)
EXEC(bwdf_wino5)
EXEC(fwd_fft3d)
EXEC(bwdd_fft3d)
EXEC(bwdf_fft3d)

#define SOLVER(var, id_, name_, dir_, algo_, app_, ws_, run_, cf_) \
    const hd_conv_solver var = {.id = id_, .name = name_, .dir = dir_, .algo = algo_, .deterministic = 1, \
                                .applicable = app_, .workspace = ws_, .run = run_, .cost_factor = cf_}

SOLVER(hd_solver_fwd_implicit, 101, "fwd.implicit_gemm", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL,
       ws_zero, exec_fwd_implicit, 1.0);
SOLVER(hd_solver_fwd_precomp, 102, "fwd.implicit_precomp_gemm", HD_CONV_FWD,
       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, NULL, ws_fwd_precomp, exec_fwd_precomp, 1.05);
SOLVER(hd_solver_fwd_gemm, 103, "fwd.im2col_gemm", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, NULL, ws_fwd_gemm,
       exec_fwd_gemm, 1.3);
SOLVER(hd_solver_fwd_direct, 104, "fwd.direct", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, NULL, ws_zero,
       exec_fwd_direct, 2.2);
SOLVER(hd_solver_fwd_wino_f, 105, "fwd.winograd_f2x3_fused", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,
       app_wino_fwd, ws_fwd_wino_f, exec_fwd_wino_fused, 0.6);
SOLVER(hd_solver_fwd_wino_nf, 106, "fwd.winograd_f2x3_nonfused", HD_CONV_FWD,
       CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, app_wino_nf_fwd, ws_fwd_wino_nf, exec_fwd_wino_nonfused, 0.65);
SOLVER(hd_solver_fwd_fft, 107, "fwd.fft", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_FFT, fft_shape, ws_fwd_fft,
       exec_fwd_fft, 2.8);
SOLVER(hd_solver_fwd_fftt, 108, "fwd.fft_tiling", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, fft_tile_shape,
       ws_fwd_fftt, exec_fwd_fft_tiling, 2.8);

SOLVER(hd_solver_bwdd_gemm, 201, "bwd_data.gemm_col2im", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, NULL,
       ws_bwdd_gemm, exec_bwdd_gemm, 1.0);
SOLVER(hd_solver_bwdd_direct, 202, "bwd_data.direct", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, NULL,
       ws_zero, exec_bwdd_direct, 2.0);
SOLVER(hd_solver_bwdd_wino_f, 203, "bwd_data.winograd_f2x3_fused", HD_CONV_BWD_DATA,
       CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD, app_wino_bwdd, ws_bwdd_wino_f, exec_bwdd_wino_fused, 0.55);
SOLVER(hd_solver_bwdd_wino_nf, 204, "bwd_data.winograd_f2x3_nonfused", HD_CONV_BWD_DATA,
       CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, app_wino_nf_bwdd, ws_bwdd_wino_nf, exec_bwdd_wino_nonfused, 0.5);
SOLVER(hd_solver_bwdd_fft, 205, "bwd_data.fft", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, fft_shape,
       ws_bwdd_fft, exec_bwdd_fft, 3.0);
SOLVER(hd_solver_bwdd_fftt, 206, "bwd_data.fft_tiling", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING,
       fft_tile_shape, ws_bwdd_fftt, exec_bwdd_fft_tiling, 3.0);

SOLVER(hd_solver_bwdf_gemm, 301, "bwd_filter.im2col_gemm", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,
       NULL, ws_bwdf_gemm, exec_bwdf_gemm, 1.0);
SOLVER(hd_solver_bwdf_direct, 302, "bwd_filter.direct", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, NULL,
       ws_zero, exec_bwdf_direct, 1.15);
SOLVER(hd_solver_bwdf_tiled, 303, "bwd_filter.tiled_gemm", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3,
       NULL, ws_bwdf_tiled, exec_bwdf_tiled, 1.9);
SOLVER(hd_solver_bwdf_fft, 304, "bwd_filter.fft", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, fft_shape,
       ws_bwdf_fft, exec_bwdf_fft, 2.2);
SOLVER(hd_solver_bwdf_fftt, 305, "bwd_filter.fft_tiling", HD_CONV_BWD_FILTER,
       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING, fft_tile_shape, ws_bwdf_fftt, exec_bwdf_fft_tiling, 2.2);
SOLVER(hd_solver_bwdf_wino_nf, 306, "bwd_filter.winograd_f2x3_nonfused", HD_CONV_BWD_FILTER,
       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, app_wino_nf_fwd, ws_bwdf_wino_nf, exec_bwdf_wino_nonfused, 0.45);

/* 5x5 Winograd and 3-d FFT_TILING (conv_winograd5.inc, conv_fft3d.inc) */
SOLVER(hd_solver_fwd_wino5, 110, "fwd.winograd_f2x5_nonfused", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
       app_wino5_fwd, ws_fwd_wino5, exec_fwd_wino5, 0.7);
SOLVER(hd_solver_bwdd_wino5, 208, "bwd_data.winograd_f2x5_nonfused", HD_CONV_BWD_DATA,
       CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, app_wino5_bwdd, ws_bwdd_wino5, exec_bwdd_wino5, 0.7);
SOLVER(hd_solver_bwdf_wino5, 308, "bwd_filter.winograd_f2x5_nonfused", HD_CONV_BWD_FILTER,
       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, app_wino5_fwd, ws_bwdf_wino5, exec_bwdf_wino5, 0.6);
SOLVER(hd_solver_fwd_fft3d, 111, "fwd.fft_tiling_3d", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, app_fft3d,
       ws_fwd_fft3d, exec_fwd_fft3d, 2.8);
SOLVER(hd_solver_bwdd_fft3d, 209, "bwd_data.fft_tiling_3d", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING,
       app_fft3d, ws_bwdd_fft3d, exec_bwdd_fft3d, 3.0);
SOLVER(hd_solver_bwdf_fft3d, 309, "bwd_filter.fft_tiling_3d", HD_CONV_BWD_FILTER,
       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING, app_fft3d, ws_bwdf_fft3d, exec_bwdf_fft3d, 2.2);
