/*
 * Dilated 3x3 convolutions on the Winograd F(4x4, 3x3) solvers (src/conv/solvers/
 * conv_wino4_f32.c): forward (id 109) and backward data (id 207) split a stride-1 convolution
 * with dilation d into d*d phases, each an undilated convolution of one input sub-grid, and
 * run them as one plan.  Checked through the public API against the float64 reference
 * (tests/ref/conv_ref.c): every output element within the first-order bound of the
 * Winograd sum of its own phase (wino4_bound.h, the bound test_conv_winograd4.c states),
 *     |y - y_ref| <= (Cg + 18) u (|alpha| S + |beta y_old|),   u = 2^-24.
 *
 * Covered: dilation 2 to 5, equal and different per axis; "same" padding and paddings that
 * leave phases of different sizes or none at all on one side; images whose size is not a
 * multiple of d; groups; channel counts past the GEMM tiles; several tile blocks over the
 * phases, and one block split over K ranges (the shared input transform); NCHW, NHWC (the
 * channel-lane form on AVX-512) and padded strides (elements outside the tensor untouched);
 * both modes; alpha/beta with beta = 0 over NaN; the dispatch log; bitwise identical results
 * for 1, 2, 3 and 5 threads; every HOSTDNN_MAX_ISA cap in a child process (AVX2 and AVX-512
 * bitwise equal, the scalar kernels within rounding, each within the bound); the _v7 ranking
 * of a DeepLab-v3 layer; refusals (backward data with padding above 2 d, dilation with
 * stride 2).  Backward filter (id 307) on the phases: test_conv_wino4_dilated_bwdf.c.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hostdnn.h"
#include "harness.h"
#include "ref/conv_ref.h"
#define CONV_CASE_SEED 4242
#include "conv_case.h"
#include "wino4_bound.h"
#include "wino_check.h"

#define ALGO CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED
#define ALGO_BWDD CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED

/* name, nsp, N, C, K, G, in, flt, pad, str, dil */
static const conv_case cases[] = {
    {"d2 same padding 12x12", 2, 1, 5, 7, 1, {1, 12, 12}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
    {"d2 pad 1, 13x11", 2, 2, 4, 6, 1, {1, 13, 11}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 2, 2}},
    {"d3 pad 3, 9x10, groups 2", 2, 1, 6, 4, 2, {1, 9, 10}, {1, 3, 3}, {0, 3, 3}, {1, 1, 1}, {1, 3, 3}},
    {"d4 pad 4, 28x28, C 32 K 24", 2, 1, 32, 24, 1, {1, 28, 28}, {1, 3, 3}, {0, 4, 4}, {1, 1, 1}, {1, 4, 4}},
    {"d 1/2 x 3, pad 0/5, 14x17", 2, 1, 9, 10, 1, {1, 14, 17}, {1, 3, 3}, {0, 0, 5}, {1, 1, 1}, {1, 2, 3}},
    {"d5, 7x6, pad 2/3 (phases without outputs)", 2, 3, 3, 5, 1, {1, 7, 6}, {1, 3, 3}, {0, 2, 3}, {1, 1, 1}, {1, 5, 5}},
    /* 200 tiles over the phases: several tile blocks */
    {"d2, N 2, 34x34 (tile blocks)", 2, 2, 8, 20, 1, {1, 34, 34}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
    /* one tile block split over two K ranges (shared input transform): forward with K 140,
       backward data with C 140 (its output channels) */
    {"d2, K 140 (K ranges)", 2, 1, 16, 140, 1, {1, 12, 12}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
    {"d2, C 140 (K ranges of backward data)", 2, 1, 140, 16, 1, {1, 12, 12}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))
#define NDET 12   /* det_run's problems: 2 directions x 2 layouts x 3 cases */

static int saw_w4, saw_other;
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud, (void)msg;
    int id;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL)) {
        if (id == 109 || id == 207)
            saw_w4 = 1;
        else
            saw_other = 1;
    }
}

static void check_case(cudnnHandle_t h, const conv_case *c, int layout, int flip, int dir)
{
    static const wc_spec sp = {abs_bound, abs_bound_bwdd, 1, "the F(4x4,3x3) solver", &saw_w4, &saw_other};
    wc_check_case(h, &sp, c, layout, flip, dir);
}

/* ---- determinism: d5 with empty phases, several tile blocks, and K ranges (of the
   direction's output channels) ---- */

static long det_run(cudnnHandle_t h, int arg, float *out)
{
    int dir = arg / 6, layout = arg / 3 % 2, which = arg % 3;
    int ci = which == 0 ? 5 : which == 1 ? 6 : dir == D_FWD ? 7 : 8;
    prob P;
    prob_make(&P, &cases[ci], layout, 0);
    unsigned save = rng;
    rng = 99;
    for (long i = 0; i < P.x.span; i++)
        P.x.mem[i] = (float)rnd();
    for (long i = 0; i < P.w.span; i++)
        P.w.mem[i] = (float)rnd();
    for (long i = 0; i < P.y.span; i++)
        P.y.mem[i] = (float)rnd();
    if (h)
        conv_case_run(h, &P, dir, dir == D_FWD ? ALGO : ALGO_BWDD, 1, 0.25f, 0, NULL);
    tens *t = dir == D_FWD ? &P.y : &P.x;
    if (out)
        memcpy(out, t->mem, sizeof(float) * (size_t)t->span);
    long n = t->span;
    rng = save;
    prob_free(&P);
    return n;
}

/* ---- every ISA cap: the reference checks of the first cases in a child, and the
   determinism set's results for the comparison across caps ---- */

static long isa_len(void)
{
    long n = 0;
    for (int arg = 0; arg < NDET; arg++)
        n += det_run(NULL, arg, NULL);
    return n;
}

static void isa_child(cudnnHandle_t h, int cap, float *out)
{
    (void)cap;
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    for (int i = 0; i < 4; i++)
        for (int dir = D_FWD; dir <= D_BWDD; dir++)
            check_case(h, &cases[i], i % 2 ? L_NHWC : L_NCHW, i & 1, dir);
    cudnnSetCallback(0, NULL, NULL);
    for (int arg = 0; arg < NDET; arg++)
        out += det_run(h, arg, out);
}

/* ---- the ranking and the refusals ---- */

static void check_rank_and_refusals(cudnnHandle_t h)
{
    SECTION("_v7 ranking of a DeepLab-v3 layer");
    conv_case dl = {"deeplab res4 d2", 2, 1, 256, 256, 1, {1, 28, 28}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}};
    for (int layout = L_NCHW; layout <= L_NHWC; layout++) {
        prob P;
        prob_make(&P, &dl, layout, 0);
        cudnnConvolutionFwdAlgoPerf_t pf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        cudnnConvolutionBwdDataAlgoPerf_t pd[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        int got = 0;
        CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, P.xd, P.wd, P.cd, P.yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                        &got, pf));
        CHECK_MSG(got > 0 && pf[0].algo == ALGO, "layout %d: forward first choice %d", layout, (int)pf[0].algo);
        CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, P.wd, P.yd, P.cd, P.xd,
                                                             CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, pd));
        CHECK_MSG(got > 0 && pd[0].algo == ALGO_BWDD, "layout %d: backward-data first choice %d", layout,
                  (int)pd[0].algo);
        prob_free(&P);
    }

    SECTION("refusals");
    size_t ws = 0;
    /* backward data: padding 5 > 2 d = 4 leaves the phases a negative padding */
    conv_case big_pad = {"pad 5 d2", 2, 1, 4, 4, 1, {1, 12, 12}, {1, 3, 3}, {0, 5, 5}, {1, 1, 1}, {1, 2, 2}};
    prob P;
    prob_make(&P, &big_pad, L_NCHW, 0);
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, P.xd, P.wd, P.cd, P.yd, ALGO, &ws));
    CHECK_STATUS(cudnnGetConvolutionBackwardDataWorkspaceSize(h, P.wd, P.yd, P.cd, P.xd, ALGO_BWDD, &ws),
                 CUDNN_STATUS_NOT_SUPPORTED);
    prob_free(&P);
    /* dilation with stride 2: the phases are no longer independent convolutions of sub-grids */
    conv_case strided = {"stride 2 d2", 2, 1, 4, 4, 1, {1, 12, 12}, {1, 3, 3}, {0, 2, 2}, {1, 2, 2}, {1, 2, 2}};
    prob_make(&P, &strided, L_NCHW, 0);
    CHECK_STATUS(cudnnGetConvolutionForwardWorkspaceSize(h, P.xd, P.wd, P.cd, P.yd, ALGO, &ws),
                 CUDNN_STATUS_NOT_SUPPORTED);
    prob_free(&P);
}

int main(void)
{
    conv_case_check_isa(isa_len(), isa_child);   /* first: fork before this process starts threads */
    cudnnHandle_t h = conv_case_handle(2);
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    SECTION("against the float64 reference");
    for (int i = 0; i < NCASES; i++)
        for (int layout = 0; layout < L_COUNT; layout++)
            for (int dir = D_FWD; dir <= D_BWDD; dir++)
                check_case(h, &cases[i], layout, (i + layout) & 1, dir);
    cudnnSetCallback(0, NULL, NULL);
    check_rank_and_refusals(h);
    cudnnDestroy(h);
    SECTION("bitwise identical across thread counts");
    for (int arg = 0; arg < NDET; arg++)
        conv_case_check_threads(det_run, arg, arg < NDET / 2 ? "forward" : "backward data");
    printf("accuracy (random data in [-1,1)): largest error / bound = %.3f\n", wc_worst_bound);
    return hd_test_finish();
}
