/*
 * 5x5 convolutions on the Winograd F(4x4, 3x3) engines in 3x3 pieces (src/conv/solvers/
 * conv_wino4_f32.c, conv_wino4_view.h, conv_wino4_bwdf_f32.c): forward (id 112), backward
 * data (id 210) and backward filter (id 310) run a
 * stride-1 5x5 convolution as the sum of the four 3x3 convolutions of its zero-padded 6x6
 * filter's pieces, each over the input shifted by (0|3, 0|3), as one 3x3 convolution over
 * four times the channels.  Checked through the public API against the float64 reference
 * (tests/ref/conv_ref.c): every output element within the first-order bound of the
 * pieces' Winograd sums, S = sum over pieces of the F(4x4,3x3) bound of wino4_bound.h
 * (exact: the output transform is linear in the accumulated products), with the reduction
 * over 4 Cg virtual channels,
 *     |y - y_ref| <= (4 Cg + 18) u (|alpha| S + |beta y_old|),   u = 2^-24.
 * Backward filter: each 5x5 tap belongs to one piece, whose gradient is the F(4x4,3x3)
 * backward filter of the shifted x with dy, within (T + 20) u (|alpha| S + |beta dw_old|)
 * over the T tiles of a group (test_conv_wino4_dilated_bwdf.c's bound, piece by piece).
 *
 * Covered: images from 1x1 to 34x34, pads 0 to 4 (backward data: 4 - pad >= 0), groups,
 * channel counts past the GEMM tiles (virtual channel runs that cross a piece inside a
 * transform chunk), several tile blocks, one block split over K ranges (the shared input
 * transform), NCHW, NHWC (the channel-lane form on AVX-512) and padded strides (elements
 * outside the tensor untouched), both modes, alpha/beta with beta = 0 over NaN, the dispatch
 * log, bitwise identical results for 1, 2, 3 and 5 threads, every HOSTDNN_MAX_ISA cap in a
 * child process, the _v7 ranking of AlexNet's conv2, and the refusals (stride 2, dilation 2,
 * backward data with pad 5, which leave the problem to the solvers after it).
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hostdnn.h"
#include "harness.h"
#include "ref/conv_ref.h"
#define CONV_CASE_SEED 5511
#include "conv_case.h"
#include "wino4_bound.h"
#include "wino_check.h"
#include "wino4_bwdf_bound.h"

#define ALGO CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED
#define ALGO_BWDD CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED
#define ALGO_BWDF CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED

/* name, nsp, N, C, K, G, in, flt, pad, str, dil */
static const conv_case cases[] = {
    {"1x1 image pad 2", 2, 1, 3, 5, 1, {1, 1, 1}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"7x6 pad 0", 2, 2, 4, 6, 1, {1, 7, 6}, {1, 5, 5}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"9x11 pad 2, K 33", 2, 1, 7, 33, 1, {1, 9, 11}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"13x12 pad 1/4, N 3", 2, 3, 5, 9, 1, {1, 13, 12}, {1, 5, 5}, {0, 1, 4}, {1, 1, 1}, {1, 1, 1}},
    {"groups 2, 10x9 pad 3", 2, 2, 6, 10, 2, {1, 10, 9}, {1, 5, 5}, {0, 3, 3}, {1, 1, 1}, {1, 1, 1}},
    {"C 13 (pieces cross transform chunks), 8x8 pad 2", 2, 1, 13, 7, 1, {1, 8, 8}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    /* 2 x 9 x 9 = 162 tiles: several tile blocks */
    {"N 2, 34x34 pad 2 (tile blocks)", 2, 2, 8, 20, 1, {1, 34, 34}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    /* one tile block split over K ranges: forward with K 140, backward data with C 140 */
    {"K 140 (K ranges)", 2, 1, 16, 140, 1, {1, 12, 12}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"C 140 (K ranges of backward data)", 2, 1, 140, 16, 1, {1, 12, 12}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"AlexNet conv2 in small, 27x27 pad 2, C 32 K 48", 2, 1, 32, 48, 1, {1, 27, 27}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))
#define NDET 18   /* det_run's problems: 3 directions x 2 layouts x 3 cases */
#define NDET_ISA 12   /* those compared across ISA caps: forward and backward data (backward
                         filter's AVX2 and AVX-512 kernels sum in other orders; each cap's
                         result is held to the bound in its child instead) */

/* The bound of forward problem S (5x5, stride and dilation 1) as the engine computes it: the
 * sum over the four pieces of the F(4x4,3x3) bound of the 3x3 convolution of piece (i, j) of
 * the filter as applied (flipped in CONVOLUTION mode, zero past the 5x5), padded by pad - 3i,
 * pad - 3j (a negative padding: windows that start inside the image). */
static void abs_bound_split(const conv_ref_shape *s, const double *x, const double *w, double *S)
{
    int Cg = s->C / s->G;
    long ny = conv_ref_y_elems(s), nq = (long)s->K * Cg;
    double *wq = malloc(sizeof(double) * (size_t)nq * 9), *Sq = malloc(sizeof(double) * (size_t)ny);
    for (long i = 0; i < ny; i++)
        S[i] = 0;
    for (int pi = 0; pi < 2; pi++)
        for (int pj = 0; pj < 2; pj++) {
            conv_ref_shape f = *s;
            f.flt[1] = f.flt[2] = 3;
            f.pad[1] = s->pad[1] - 3 * pi, f.pad[2] = s->pad[2] - 3 * pj;
            f.flip = 0;
            for (long kc = 0; kc < nq; kc++)
                for (int e = 0; e < 9; e++) {
                    int r = 3 * pi + e / 3, c = 3 * pj + e % 3;
                    int src = s->flip ? (4 - r) * 5 + 4 - c : r * 5 + c;
                    wq[kc * 9 + e] = r < 5 && c < 5 ? w[kc * 25 + src] : 0;
                }
            abs_bound(&f, x, wq, Sq);
            for (long i = 0; i < ny; i++)
                S[i] += Sq[i];
        }
    free(wq), free(Sq);
}

/* Backward data: the bound of the equivalent forward problem (input dy with K channels,
 * output C channels, padding 4 - pad, filter w'(c, k) = w(k, c) rotated, as applied). */
static void abs_bound_split_bwdd(const conv_ref_shape *s, const double *dy, const double *w, double *S)
{
    conv_ref_shape f = *s;
    f.C = s->K, f.K = s->C, f.flip = 0;
    for (int i = 1; i < 3; i++) {
        f.in[i] = s->out[i];
        f.out[i] = s->in[i];
        f.pad[i] = 4 - s->pad[i];
    }
    int Cg = s->C / s->G, Kg = s->K / s->G;
    double *wf = malloc(sizeof(double) * (size_t)s->C * (size_t)Kg * 25);
    for (int g = 0; g < s->G; g++)
        for (int kk = 0; kk < Kg; kk++)
            for (int c = 0; c < Cg; c++)
                for (int e = 0; e < 25; e++) {
                    int src = s->flip ? e : 24 - e;
                    wf[(((long)(g * Cg + c)) * Kg + kk) * 25 + e] = w[(((long)(g * Kg + kk)) * Cg + c) * 25 + src];
                }
    abs_bound_split(&f, dy, wf, S);
    free(wf);
}

static int saw_split, saw_other;
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud, (void)msg;
    int id;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL)) {
        if (id == 112 || id == 210 || id == 310)
            saw_split = 1;
        else
            saw_other = 1;
    }
}

static void check_case(cudnnHandle_t h, const conv_case *c, int layout, int flip, int dir)
{
    static const wc_spec sp = {abs_bound_split, abs_bound_split_bwdd, 4, "the split solver", &saw_split, &saw_other};
    wc_check_case(h, &sp, c, layout, flip, dir);
}

/* ---- backward filter ---- */

/* S of every dw element (logical KCRS order, stored taps): per piece (pi, pj), the Winograd
 * bound of the 3x3 backward filter of x shifted by (3 pi, 3 pj) with dy (wino4_bwdf_bound.h);
 * *T the tiles of a group. */
static void split_bwdf_bound(const conv_ref_shape *s, const double *x, const double *dy, double *S, long *T)
{
    int Cg = s->C / s->G, Kg = s->K / s->G;
    double *S3 = malloc(sizeof(double) * (size_t)Kg * Cg * 9);
    for (int g = 0; g < s->G; g++)
        for (int pc = 0; pc < 4; pc++) {
            int sh = 3 * (pc / 2), sw = 3 * (pc % 2);
            wbb_sum3(s->N, s->C, s->K, s->G, g, s->in[1], s->in[2], s->out[1], s->out[2], s->pad[1] - sh,
                     s->pad[2] - sw, x, dy, S3, T);
            for (int k = 0; k < Kg; k++)
                for (int ci = 0; ci < Cg; ci++)
                    for (int e = 0; e < 9; e++) {
                        int r = sh + e / 3, q = sw + e % 3;
                        if (r >= 5 || q >= 5)
                            continue;
                        int rr = s->flip ? 4 - r : r, qq = s->flip ? 4 - q : q;   /* the stored tap */
                        S[(((long)(g * Kg + k) * Cg + ci) * 5 + rr) * 5 + qq] = S3[((long)k * Cg + ci) * 9 + e];
                    }
        }
    free(S3);
}

static void check_bwdf(cudnnHandle_t h, const conv_case *c, int layout, int flip)
{
    static const wc_bwdf_spec sp = {split_bwdf_bound, ALGO_BWDF, 0, "the split solver", &saw_split, &saw_other};
    wc_check_bwdf(h, &sp, c, layout, flip);
}

/* ---- determinism: pieces across chunks, several tile blocks, and K ranges (of the
   direction's output channels) ---- */

static long det_run(cudnnHandle_t h, int arg, float *out)
{
    int dir = arg / 6, layout = arg / 3 % 2, which = arg % 3;
    int ci = which == 0 ? 5 : which == 1 ? 6 : dir == D_BWDD ? 8 : 7;
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
        conv_case_run(h, &P, dir, dir == D_FWD ? ALGO : dir == D_BWDD ? ALGO_BWDD : ALGO_BWDF, 1, 0.25f, 0, NULL);
    tens *t = dir == D_FWD ? &P.y : dir == D_BWDD ? &P.x : &P.w;
    if (out)
        memcpy(out, t->mem, sizeof(float) * (size_t)t->span);
    long n = t->span;
    rng = save;
    prob_free(&P);
    return n;
}

/* ---- every ISA cap: the reference checks of some cases in a child, and the determinism
   set's results (forward and backward data) for the comparison across caps ---- */

static long isa_len(void)
{
    long n = 0;
    for (int arg = 0; arg < NDET_ISA; arg++)
        n += det_run(NULL, arg, NULL);
    return n;
}

static void isa_child(cudnnHandle_t h, int cap, float *out)
{
    (void)cap;
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    for (int i = 0; i < 6; i++) {
        for (int dir = D_FWD; dir <= D_BWDD; dir++)
            check_case(h, &cases[i], i % 2 ? L_NHWC : L_NCHW, i & 1, dir);
        check_bwdf(h, &cases[i], i % 2 ? L_NCHW : L_NHWC, i & 1);
    }
    cudnnSetCallback(0, NULL, NULL);
    for (int arg = 0; arg < NDET_ISA; arg++)
        out += det_run(h, arg, out);
}

/* ---- the ranking and the refusals ---- */

static void check_rank_and_refusals(cudnnHandle_t h)
{
    SECTION("_v7 ranking of AlexNet conv2 (batch 16)");
    conv_case ax = {"alexnet conv2", 2, 16, 64, 192, 1, {1, 27, 27}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}};
    for (int layout = L_NCHW; layout <= L_NHWC; layout++) {
        prob P;
        prob_make(&P, &ax, layout, 0);
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

    SECTION("refusals: the problems go on to the solvers after 112 / 210");
    static const conv_case off[] = {
        {"stride 2", 2, 1, 4, 4, 1, {1, 12, 12}, {1, 5, 5}, {0, 2, 2}, {1, 2, 2}, {1, 1, 1}},
        {"dilation 2", 2, 1, 4, 4, 1, {1, 12, 12}, {1, 5, 5}, {0, 4, 4}, {1, 1, 1}, {1, 2, 2}},
    };
    for (int i = 0; i < 2; i++)
        for (int dir = D_FWD; dir <= D_BWDF; dir++) {
            prob P;
            prob_make(&P, &off[i], L_NCHW, 0);
            size_t ws = 0;
            cudnnStatus_t st =
                dir == D_FWD    ? cudnnGetConvolutionForwardWorkspaceSize(h, P.xd, P.wd, P.cd, P.yd, ALGO, &ws)
                : dir == D_BWDD ? cudnnGetConvolutionBackwardDataWorkspaceSize(h, P.wd, P.yd, P.cd, P.xd, ALGO_BWDD, &ws)
                                : cudnnGetConvolutionBackwardFilterWorkspaceSize(h, P.xd, P.yd, P.cd, P.wd, ALGO_BWDF, &ws);
            CHECK_MSG(st == CUDNN_STATUS_NOT_SUPPORTED, "%s dir %d: status %d", off[i].name, dir, (int)st);
            prob_free(&P);
        }
    /* backward data with pad 5 (> 4): not the split solver; the forward with the same padding is */
    conv_case big_pad = {"pad 5", 2, 1, 4, 4, 1, {1, 12, 12}, {1, 5, 5}, {0, 5, 5}, {1, 1, 1}, {1, 1, 1}};
    prob P;
    prob_make(&P, &big_pad, L_NCHW, 0);
    saw_split = saw_other = 0;
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    CHECK_OK(conv_case_run(h, &P, D_FWD, ALGO, 1, 0, 0, NULL));
    CHECK(saw_split && !saw_other);
    cudnnSetCallback(0, NULL, NULL);
    size_t ws = 0;
    CHECK_STATUS(cudnnGetConvolutionBackwardDataWorkspaceSize(h, P.wd, P.yd, P.cd, P.xd, ALGO_BWDD, &ws),
                 CUDNN_STATUS_NOT_SUPPORTED);
    prob_free(&P);
}

int main(void)
{
    (void)abs_bound_bwdd;   /* wino4_bound.h's 3x3 form: the pieces go through abs_bound */
    conv_case_check_isa(isa_len(), isa_child);   /* first: fork before this process starts threads */
    cudnnHandle_t h = conv_case_handle(2);
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    SECTION("against the float64 reference");
    for (int i = 0; i < NCASES; i++)
        for (int layout = 0; layout < L_COUNT; layout++) {
            for (int dir = D_FWD; dir <= D_BWDD; dir++)
                check_case(h, &cases[i], layout, (i + layout) & 1, dir);
            check_bwdf(h, &cases[i], layout, (i + layout + 1) & 1);
        }
    cudnnSetCallback(0, NULL, NULL);
    check_rank_and_refusals(h);
    cudnnDestroy(h);
    SECTION("bitwise identical across thread counts");
    for (int arg = 0; arg < NDET; arg++)
        conv_case_check_threads(det_run, arg, arg < 6 ? "forward" : arg < 12 ? "backward data" : "backward filter");
    printf("accuracy (random data in [-1,1)): largest error / bound = %.3f\n", wc_worst_bound);
    return hd_test_finish();
}
