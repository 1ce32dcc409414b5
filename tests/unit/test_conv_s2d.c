/*
 * Strided stems by space-to-depth (solvers 113 and 311, src/conv/solvers/conv_fwd_s2d_f32.c):
 * a forward convolution with stride s, at most 4 input channels and a filter of 3x3 strides
 * runs as the stride-1 3x3 convolution of the space-to-depth input (s*s times the channels)
 * on the Winograd F(4x4,3x3) engine, and its filter gradient as that engine's backward filter
 * of the same derived problem (within (T + 20) u S, wino4_bwdf_bound.h, over its T tiles).  Checked through the public API against the float64
 * reference (tests/ref/conv_ref.c): every output element within the first-order bound of the
 * engine on the derived problem (wino4_bound.h, the bound test_conv_winograd4.c states),
 *     |y - y_ref| <= (C s^2 + 18) u (|alpha| S + |beta y_old|),   u = 2^-24,
 * S computed here on the derived input and filter, built in double.
 *
 * Covered: AlexNet's 11x11 stride 4, 6x6 / 8x8 / 9x9 / 12x12 at strides 2-4, a non-square
 * filter, paddings 0-4, images whose size is not a multiple of s, N = 1 and 3, NCHW, NHWC and
 * padded strides (elements outside the tensor untouched), both modes, alpha/beta with beta = 0
 * over NaN, the dispatch log, bitwise identical results for 1, 2, 3 and 5 threads, every
 * HOSTDNN_MAX_ISA cap in a child process, the _v7 ranking of AlexNet's conv1, and the
 * problems it leaves to solver 150 (5 channels, stride 1, dilation, groups).
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hostdnn.h"
#include "harness.h"
#include "ref/conv_ref.h"
#define CONV_CASE_SEED 4113
#include "conv_case.h"
#include "wino4_bound.h"
#include "wino4_bwdf_bound.h"
#include "wino_check.h"

#define ALGO CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM
#define ALGO_BWDF CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1

/* name, nsp, N, C, K, G, in, flt, pad, str, dil */
static const conv_case cases[] = {
    {"11x11 s4 pad 2 (AlexNet conv1 in small)", 2, 2, 3, 20, 1, {1, 47, 47}, {1, 11, 11}, {0, 2, 2}, {1, 4, 4}, {1, 1, 1}},
    {"6x6 s2 pad 1, C 4", 2, 1, 4, 9, 1, {1, 17, 19}, {1, 6, 6}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"9x9 s3 pad 4, C 2, K 33", 2, 3, 2, 33, 1, {1, 25, 22}, {1, 9, 9}, {0, 4, 4}, {1, 3, 3}, {1, 1, 1}},
    {"8x8 s3 pad 0, C 3", 2, 1, 3, 16, 1, {1, 30, 29}, {1, 8, 8}, {0, 0, 0}, {1, 3, 3}, {1, 1, 1}},
    {"12x12 s4 pad 3, C 1", 2, 2, 1, 24, 1, {1, 40, 36}, {1, 12, 12}, {0, 3, 3}, {1, 4, 4}, {1, 1, 1}},
    {"11x9 s4 pad 2/1", 2, 1, 3, 14, 1, {1, 35, 31}, {1, 11, 9}, {0, 2, 1}, {1, 4, 4}, {1, 1, 1}},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))
#define NDET 8       /* det_run's problems: 2 directions x 2 layouts x 2 cases */
#define NDET_ISA 4   /* those compared across ISA caps: the forward ones (the backward filter's
                        AVX2 and AVX-512 kernels sum in other orders; each cap is held to the
                        bound in its child instead) */

/* S of problem S's outputs: the F(4x4,3x3) bound of the derived stride-1 3x3 problem, whose
 * input is x rearranged (channel (c*s + a)*s + b of row i, column j is x[c][i*s + a - pad]
 * [j*s + b - pad], zero outside) and filter w taken as applied (flipped in CONVOLUTION mode). */
/* The derived problem D of S and its input, built from x (freed by the caller). */
static double *s2d_input(const conv_ref_shape *s, const double *x, conv_ref_shape *dp)
{
    int st = s->str[1], C = s->C, H = s->in[1], W = s->in[2];
    conv_ref_shape d = *s;
    d.C = C * st * st;
    d.in[1] = s->out[1] + 2, d.in[2] = s->out[2] + 2;
    d.flt[1] = d.flt[2] = 3;
    d.pad[1] = d.pad[2] = 0;
    d.str[1] = d.str[2] = 1;
    d.flip = 0;
    long nx = (long)s->N * d.C * d.in[1] * d.in[2];
    double *xd = calloc((size_t)nx, sizeof(double));
    for (int n = 0; n < s->N; n++)
        for (int c = 0; c < C; c++)
            for (int i = 0; i < d.in[1]; i++)
                for (int j = 0; j < d.in[2]; j++)
                    for (int a = 0; a < st; a++)
                        for (int b = 0; b < st; b++) {
                            int h = i * st + a - s->pad[1], v = j * st + b - s->pad[2];
                            if (h >= 0 && h < H && v >= 0 && v < W)
                                xd[(((long)n * d.C + (c * st + a) * st + b) * d.in[1] + i) * d.in[2] + j] =
                                    x[(((long)n * C + c) * H + h) * W + v];
                        }
    *dp = d;
    return xd;
}

/* Channel (c * s + r % s) * s + q % s, tap (r / s, q / s) of the derived filter: the derived
 * index of tap (r, q) of channel c (KCRS 3x3 over the derived channels, filter k). */
static long s2d_wat(const conv_ref_shape *s, int k, int c, int r, int q)
{
    int st = s->str[1], Cd = s->C * st * st;
    return ((long)k * Cd + (c * st + r % st) * st + q % st) * 9 + (r / st) * 3 + q / st;
}

static void s2d_bound(const conv_ref_shape *s, const double *x, const double *w, double *S)
{
    int C = s->C, R = s->flt[1], Q = s->flt[2];
    conv_ref_shape d;
    double *xd = s2d_input(s, x, &d), *wd = calloc((size_t)s->K * d.C * 9, sizeof(double));
    for (int k = 0; k < s->K; k++)
        for (int c = 0; c < C; c++)
            for (int r = 0; r < R; r++)
                for (int q = 0; q < Q; q++) {
                    int src = s->flip ? (R - 1 - r) * Q + Q - 1 - q : r * Q + q;
                    wd[s2d_wat(s, k, c, r, q)] = w[((long)k * C + c) * R * Q + src];
                }
    abs_bound(&d, xd, wd, S);
    free(xd), free(wd);
}

/* S of every dw element (logical KCRS order, stored taps): the backward-filter bound of the
 * derived problem, tap by tap; *T its tiles. */
static void s2d_bwdf_bound(const conv_ref_shape *s, const double *x, const double *dy, double *S, long *T)
{
    int R = s->flt[1], Q = s->flt[2];
    conv_ref_shape d;
    double *xd = s2d_input(s, x, &d), *S3 = malloc(sizeof(double) * (size_t)s->K * d.C * 9);
    wbb_sum3(s->N, d.C, s->K, 1, 0, d.in[1], d.in[2], s->out[1], s->out[2], 0, 0, xd, dy, S3, T);
    for (int k = 0; k < s->K; k++)
        for (int c = 0; c < s->C; c++)
            for (int r = 0; r < R; r++)
                for (int q = 0; q < Q; q++) {
                    int rr = s->flip ? R - 1 - r : r, qq = s->flip ? Q - 1 - q : q;   /* the stored tap */
                    S[(((long)k * s->C + c) * R + rr) * Q + qq] = S3[s2d_wat(s, k, c, r, q)];
                }
    free(xd), free(S3);
}

static int saw_s2d, saw_other;
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud, (void)msg;
    int id;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL)) {
        if (id == 113 || id == 311)
            saw_s2d = 1;
        else
            saw_other = 1;
    }
}

static double worst_bound = 0;

static void check_case(cudnnHandle_t h, const conv_case *c, int layout, int flip)
{
    prob P;
    prob_make(&P, c, layout, flip);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
    double *ref = malloc(sizeof(double) * (size_t)ny), *S = malloc(sizeof(double) * (size_t)ny);
    double *prev = malloc(sizeof(double) * (size_t)ny);
    for (long i = 0; i < nx; i++)
        lx[i] = rnd();
    for (long i = 0; i < nw; i++)
        lw[i] = rnd();
    conv_ref_fwd(&P.rs, lx, lw, ref);
    s2d_bound(&P.rs, lx, lw, S);
    double gam = (double)(c->C * c->str[1] * c->str[1] + 18) * 0x1p-24;
    static const float ab[2][2] = {{1, 0}, {-1.5f, 1}};
    tens_load(&P.x, lx, 0), tens_load(&P.w, lw, 0);
    for (int k = 0; k < 2; k++) {
        float alpha = ab[k][0], beta = ab[k][1];
        for (long i = 0; i < ny; i++)
            prev[i] = rnd();
        tens_load(&P.y, prev, beta == 0 ? NAN : -7.0f);   /* padding elements must survive */
        saw_s2d = saw_other = 0;
        cudnnStatus_t st = conv_case_run(h, &P, D_FWD, ALGO, alpha, beta, 0, NULL);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s layout %d: status %d", c->name, layout, (int)st);
        CHECK_MSG(saw_s2d && !saw_other, "%s layout %d: solver 113 not dispatched", c->name, layout);
        long bad = 0, first = -1, gaps = 0;
        for (long i = 0; i < ny; i++) {
            double want = alpha * ref[i] + (beta == 0 ? 0 : beta * prev[i]);
            double got = P.y.mem[tens_off(&P.y, i)];
            double err = fabs(got - want), tol = gam * (fabs(alpha) * S[i] + fabs(beta * prev[i]));
            if (!(err <= tol)) {
                if (first < 0)
                    first = i;
                bad++;
            }
            if (beta == 0 && S[i] > 0 && err / (gam * S[i]) > worst_bound)
                worst_bound = err / (gam * S[i]);
        }
        if (layout == L_PADDED) {
            char *mark = calloc((size_t)P.y.span, 1);
            for (long i = 0; i < ny; i++)
                mark[tens_off(&P.y, i)] = 1;
            for (long i = 0; i < P.y.span; i++)
                if (!mark[i] && !(beta == 0 ? isnan(P.y.mem[i]) : P.y.mem[i] == -7.0f))
                    gaps++;
            free(mark);
        }
        CHECK_MSG(bad == 0 && gaps == 0, "%s layout %d flip %d alpha %g beta %g: %ld beyond the bound (first %ld), %ld gaps",
                  c->name, layout, flip, alpha, beta, bad, first, gaps);
    }
    free(lx), free(lw), free(ref), free(S), free(prev);
    prob_free(&P);
}

static void check_bwdf(cudnnHandle_t h, const conv_case *c, int layout, int flip)
{
    /* one more rounding than the engine's: dw' is rounded to float before alpha and beta */
    static const wc_bwdf_spec sp = {s2d_bwdf_bound, ALGO_BWDF, 0x1p-23, "solver 311", &saw_s2d, &saw_other};
    wc_check_bwdf(h, &sp, c, layout, flip);
}

static long det_run(cudnnHandle_t h, int arg, float *out)
{
    int bwdf = arg >= 4;
    prob P;
    prob_make(&P, &cases[arg % 2 ? 2 : 0], arg / 2 % 2 ? L_NHWC : L_NCHW, 0);
    unsigned save = rng;
    rng = 99;
    for (long i = 0; i < P.x.span; i++)
        P.x.mem[i] = (float)rnd();
    for (long i = 0; i < P.w.span; i++)
        P.w.mem[i] = (float)rnd();
    for (long i = 0; i < P.y.span; i++)
        P.y.mem[i] = (float)rnd();
    if (h)
        conv_case_run(h, &P, bwdf ? D_BWDF : D_FWD, bwdf ? ALGO_BWDF : ALGO, 1, 0.25f, 0, NULL);
    tens *t = bwdf ? &P.w : &P.y;
    if (out)
        memcpy(out, t->mem, sizeof(float) * (size_t)t->span);
    long n = t->span;
    rng = save;
    prob_free(&P);
    return n;
}

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
    for (int i = 0; i < 3; i++) {
        check_case(h, &cases[i], i % 2 ? L_NHWC : L_NCHW, i & 1);
        check_bwdf(h, &cases[i], i % 2 ? L_NCHW : L_NHWC, i & 1);
    }
    cudnnSetCallback(0, NULL, NULL);
    for (int arg = 0; arg < NDET_ISA; arg++)
        out += det_run(h, arg, out);
}

static void check_rank_and_others(cudnnHandle_t h)
{
    SECTION("_v7 ranking of AlexNet conv1 (batch 16), forward and backward filter");
    conv_case ax = {"alexnet conv1", 2, 16, 3, 64, 1, {1, 224, 224}, {1, 11, 11}, {0, 2, 2}, {1, 4, 4}, {1, 1, 1}};
    for (int layout = L_NCHW; layout <= L_NHWC; layout++) {
        prob P;
        prob_make(&P, &ax, layout, 0);
        cudnnConvolutionFwdAlgoPerf_t pf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int got = 0;
        CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, P.xd, P.wd, P.cd, P.yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                        &got, pf));
        CHECK_MSG(got > 0 && pf[0].algo == ALGO, "layout %d: forward first choice %d", layout, (int)pf[0].algo);
        cudnnConvolutionBwdFilterAlgoPerf_t pb[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, P.xd, P.yd, P.cd, P.wd,
                                                               CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, pb));
        CHECK_MSG(got > 0 && pb[0].algo == ALGO_BWDF, "layout %d: backward-filter first choice %d", layout,
                  (int)pb[0].algo);
        prob_free(&P);
    }

    SECTION("problems left to the other solvers of the algorithm");
    static const conv_case off[] = {
        {"5 channels", 2, 1, 5, 8, 1, {1, 23, 23}, {1, 11, 11}, {0, 2, 2}, {1, 4, 4}, {1, 1, 1}},
        {"stride 1", 2, 1, 3, 8, 1, {1, 12, 12}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
        {"dilation 2", 2, 1, 3, 8, 1, {1, 30, 30}, {1, 6, 6}, {0, 2, 2}, {1, 2, 2}, {1, 2, 2}},
        {"groups 3", 2, 1, 3, 6, 3, {1, 23, 23}, {1, 11, 11}, {0, 2, 2}, {1, 4, 4}, {1, 1, 1}},
        {"7x7 stride 2 (a 4x4 derived filter)", 2, 1, 3, 8, 1, {1, 30, 30}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
    };
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    for (int i = 0; i < (int)(sizeof off / sizeof *off); i++) {
        prob P;
        prob_make(&P, &off[i], L_NCHW, 0);
        for (long j = 0; j < P.x.span; j++)
            P.x.mem[j] = (float)rnd();
        for (long j = 0; j < P.w.span; j++)
            P.w.mem[j] = (float)rnd();
        for (int dir = D_FWD; dir <= D_BWDF; dir += D_BWDF - D_FWD) {
            saw_s2d = saw_other = 0;
            CHECK_OK(conv_case_run(h, &P, dir, dir == D_FWD ? ALGO : ALGO_BWDF, 1, 0, 0, NULL));
            CHECK_MSG(!saw_s2d && saw_other, "%s dir %d: solver 113 or 311 ran", off[i].name, dir);
        }
        prob_free(&P);
    }
    cudnnSetCallback(0, NULL, NULL);
}

int main(void)
{
    (void)abs_bound_bwdd;   /* wino4_bound.h's backward-data form: forward only here */
    conv_case_check_isa(isa_len(), isa_child);   /* first: fork before this process starts threads */
    cudnnHandle_t h = conv_case_handle(2);
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    SECTION("against the float64 reference");
    for (int i = 0; i < NCASES; i++)
        for (int layout = 0; layout < L_COUNT; layout++) {
            check_case(h, &cases[i], layout, (i + layout) & 1);
            check_bwdf(h, &cases[i], layout, (i + layout + 1) & 1);
        }
    cudnnSetCallback(0, NULL, NULL);
    check_rank_and_others(h);
    cudnnDestroy(h);
    SECTION("bitwise identical across thread counts");
    for (int arg = 0; arg < NDET; arg++)
        conv_case_check_threads(det_run, arg, arg < 4 ? "forward" : "backward filter");
    printf("accuracy (random data in [-1,1)): largest error / bound = %.3f\n",
           worst_bound > wc_worst_bound ? worst_bound : wc_worst_bound);
    return hd_test_finish();
}
