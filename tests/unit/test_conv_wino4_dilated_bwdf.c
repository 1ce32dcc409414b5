/*
 * Dilated 3x3 backward filter on the Winograd F(4x4, 3x3) solver (id 307, src/conv/solvers/
 * conv_wino4_bwdf_f32.c): with dilation d at stride 1, dw is the sum over the d x d phases of
 * the undilated backward filter of each phase's x sub-grid and dy sub-grid, all the phases'
 * tiles one reduction.  Checked through the public API against the float64 reference
 * (tests/ref/conv_ref.c): every dw element within the first-order bound of the Winograd sum
 * (docs/algorithms.md, "Winograd F(4x4, 3x3) backward filter"; test_conv_wino4_bwdf.c states
 * it for d = 1)
 *     |dw - dw_ref| <= (T + 20) u (|alpha| S + |beta dw_old|),   u = 2^-24,
 * with T the tiles of a group over all phases (each phase counted with the tiles of the
 * largest, as the solver enumerates them) and S the Winograd sum in absolute values, computed
 * here phase by phase and tile by tile.
 *
 * Covered: dilation 2 to 5, equal and different per axis; "same" padding, uneven and one-sided
 * paddings, phases without outputs; images whose size is not a multiple of d; groups; channel
 * counts past the GEMM panels; the three plans (chunks of blocks; every tile transformed
 * first; and, for a problem whose chunk plan would pass the workspace cap, blocks of tiles
 * transformed first in turn, each added to one dU: the "staged" mode); NCHW (the band copies
 * of every d-th row), NHWC and padded strides; both modes; alpha/beta with beta = 0 over NaN;
 * the dispatch log; bitwise identical results for 1, 2, 3 and 5 threads; every HOSTDNN_MAX_ISA
 * cap in a child process (each within the bound); the _v7 ranking of the DeepLab-v3 layers at
 * batch 1 and 16; refusals (dilation with stride 2).
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hostdnn.h"
#include "harness.h"
#include "ref/conv_ref.h"
#define CONV_CASE_SEED 5151
#include "conv_case.h"

#define ALGO CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED

/* name, nsp, N, C, K, G, in, flt, pad, str, dil */
static const conv_case cases[] = {
    {"d2 same padding 12x12", 2, 1, 5, 7, 1, {1, 12, 12}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
    {"d2 pad 1, 13x11", 2, 2, 4, 6, 1, {1, 13, 11}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 2, 2}},
    {"d3 pad 3, 9x10, groups 2", 2, 1, 6, 4, 2, {1, 9, 10}, {1, 3, 3}, {0, 3, 3}, {1, 1, 1}, {1, 3, 3}},
    {"d4 pad 4, 28x28, C 32 K 24", 2, 1, 32, 24, 1, {1, 28, 28}, {1, 3, 3}, {0, 4, 4}, {1, 1, 1}, {1, 4, 4}},
    {"d 2 x 3, pad 0/5, 14x17", 2, 1, 9, 10, 1, {1, 14, 17}, {1, 3, 3}, {0, 0, 5}, {1, 1, 1}, {1, 2, 3}},
    {"d5, 7x6, pad 2/3 (phases without outputs)", 2, 3, 3, 5, 1, {1, 7, 6}, {1, 3, 3}, {0, 2, 3}, {1, 1, 1}, {1, 5, 5}},
    {"d3, pad 1/4, 16x15, groups 3", 2, 2, 9, 6, 3, {1, 16, 15}, {1, 3, 3}, {0, 1, 4}, {1, 1, 1}, {1, 3, 3}},
    /* many tiles over the phases, few channels: chunks of blocks */
    {"d2, N 3, 40x36, C 33 K 16 (blocks)", 2, 3, 33, 16, 1, {1, 40, 36}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
    /* many channels, few tiles: every tile transformed first */
    {"d2, 12x12, C 70 K 70 (whole)", 2, 1, 70, 70, 1, {1, 12, 12}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
    /* 1024 channels in all and 300 tiles: the chunk plan's slots would pass 64 MiB and every
       tile's transforms 32 MiB, so blocks of 100 tiles in turn (staged) */
    {"d2, N 3, 34x34, C 1020 K 4 (staged)", 2, 3, 1020, 4, 1, {1, 34, 34}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))
#define NDET 12   /* det_run's problems: 3 layouts x 4 cases */

static double rnd(void)   /* a float in [-1, 1) */
{
    rng = rng * 1103515245u + 12345u;
    return (double)(float)((double)((rng >> 8) & 0xffff) / 32768.0 - 1.0);
}

static int saw_w4, saw_other;
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud, (void)msg;
    int id;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL)) {
        if (id == 307)
            saw_w4 = 1;
        else
            saw_other = 1;
    }
}

/* ---- the bound ---- */

static const double At[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
static const double Bt[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
static const double Gm[6][3] = {{0.25, 0, 0},          {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};

/* |B^T| |d| |B| of a 6x6 window (BT set), or |A| |o| |A^T| of a 4x4 tile (m = 4): out[36]. */
static void abs_tr(const double *d, int m, int bt, double out[36])
{
    double t[6][6];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < m; j++) {
            double s = 0;
            for (int k = 0; k < m; k++)
                s += fabs(bt ? Bt[i][k] : At[k][i]) * fabs(d[k * m + j]);
            t[i][j] = s;
        }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double s = 0;
            for (int k = 0; k < m; k++)
                s += t[i][k] * fabs(bt ? Bt[j][k] : At[k][j]);
            out[6 * i + j] = s;
        }
}

/* S of every dw element (logical KCRS order, stored taps) and the tiles of a group in *T:
 * phase (a, b)'s tile (ty, tj) holds dy rows a + (4 ty + i) d and x rows pad before, both
 * every d-th. */
static void wino_sum(const prob *P, const conv_case *c, const double *x, const double *dy, double *S, long *T)
{
    const conv_ref_shape *s = &P->rs;
    int H = c->in[1], W = c->in[2], OH = s->out[1], OW = s->out[2], dh = c->dil[1], dw = c->dil[2];
    int ph = c->pad[1], pw = c->pad[2];
    int TH = ((OH + dh - 1) / dh + 3) / 4, TP = ((OW + dw - 1) / dw + 3) / 4;
    int Cg = c->C / c->G, Kg = c->K / c->G;
    *T = (long)c->N * dh * TH * dw * TP;
    double *vb = malloc(sizeof(double) * 36 * (size_t)Cg), *mb = malloc(sizeof(double) * 36 * (size_t)Kg);
    double *sum = malloc(sizeof(double) * (size_t)Kg * Cg * 36);
    for (int g = 0; g < c->G; g++) {
        memset(sum, 0, sizeof(double) * (size_t)Kg * Cg * 36);
        for (int n = 0; n < c->N; n++)
            for (int a = 0; a < dh; a++)
                for (int b = 0; b < dw; b++)
                    for (int ty = 0; ty < TH; ty++)
                        for (int tj = 0; tj < TP; tj++) {
                            int oh0 = a + 4 * ty * dh, ow0 = b + 4 * tj * dw;
                            for (int ci = 0; ci < Cg; ci++) {
                                double d[36];
                                for (int i = 0; i < 6; i++)
                                    for (int j = 0; j < 6; j++) {
                                        int hh = oh0 - ph + i * dh, ww = ow0 - pw + j * dw;
                                        d[6 * i + j] =
                                            hh >= 0 && hh < H && ww >= 0 && ww < W
                                                ? x[(((long)n * c->C + g * Cg + ci) * H + hh) * W + ww]
                                                : 0;
                                    }
                                abs_tr(d, 6, 1, vb + 36 * ci);
                            }
                            for (int k = 0; k < Kg; k++) {
                                double o[16];
                                for (int i = 0; i < 4; i++)
                                    for (int j = 0; j < 4; j++) {
                                        int hh = oh0 + i * dh, ww = ow0 + j * dw;
                                        o[4 * i + j] =
                                            hh < OH && ww < OW ? dy[(((long)n * c->K + g * Kg + k) * OH + hh) * OW + ww]
                                                               : 0;
                                    }
                                abs_tr(o, 4, 0, mb + 36 * k);
                            }
                            for (int k = 0; k < Kg; k++)
                                for (int ci = 0; ci < Cg; ci++)
                                    for (int e = 0; e < 36; e++)
                                        sum[((long)k * Cg + ci) * 36 + e] += mb[36 * k + e] * vb[36 * ci + e];
                        }
        for (int k = 0; k < Kg; k++)
            for (int ci = 0; ci < Cg; ci++)
                for (int r = 0; r < 3; r++)
                    for (int q = 0; q < 3; q++) {
                        double v = 0;
                        for (int i = 0; i < 6; i++)
                            for (int j = 0; j < 6; j++)
                                v += fabs(Gm[i][r]) * sum[((long)k * Cg + ci) * 36 + 6 * i + j] * fabs(Gm[j][q]);
                        /* the stored tap: CONVOLUTION mode keeps the filter flipped */
                        int rr = s->flip ? 2 - r : r, qq = s->flip ? 2 - q : q;
                        S[(((long)(g * Kg + k) * Cg + ci) * 3 + rr) * 3 + qq] = v;
                    }
    }
    free(vb), free(mb), free(sum);
}

static double worst_bound;

/* Case C in LAYOUT against the reference, for two (alpha, beta) pairs. */
static void check_case(cudnnHandle_t h, const conv_case *c, int layout, int flip)
{
    prob P;
    prob_make(&P, c, layout, flip);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    double *x = malloc(sizeof(double) * (size_t)nx), *dy = malloc(sizeof(double) * (size_t)ny);
    double *ref = malloc(sizeof(double) * (size_t)nw), *S = malloc(sizeof(double) * (size_t)nw);
    double *prev = malloc(sizeof(double) * (size_t)nw);
    for (long i = 0; i < nx; i++)
        x[i] = rnd();
    for (long i = 0; i < ny; i++)
        dy[i] = rnd();
    conv_ref_bwd_filter(&P.rs, x, dy, ref);
    long T = 0;
    wino_sum(&P, c, x, dy, S, &T);
    double gam = (double)(T + 20) * 0x1p-24;
    tens_load(&P.x, x, 0), tens_load(&P.y, dy, 0);
    static const float ab[2][2] = {{1, 0}, {-1.5f, 1}};
    for (int k = 0; k < 2; k++) {
        float alpha = ab[k][0], beta = ab[k][1];
        for (long i = 0; i < nw; i++)
            prev[i] = rnd();
        tens_load(&P.w, prev, 0);
        if (beta == 0)
            for (long i = 0; i < nw; i++)
                P.w.mem[tens_off(&P.w, i)] = NAN;   /* beta = 0: never read */
        saw_w4 = saw_other = 0;
        cudnnStatus_t st = conv_case_run(h, &P, D_BWDF, ALGO, alpha, beta, 0, NULL);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s layout %d: status %d", c->name, layout, (int)st);
        CHECK_MSG(saw_w4 && !saw_other, "%s layout %d: solver 307 not dispatched", c->name, layout);
        long bad = 0, first = -1;
        for (long i = 0; i < nw; i++) {
            double old = beta == 0 ? 0 : (double)(float)prev[i];
            double want = alpha * ref[i] + beta * old, got = P.w.mem[tens_off(&P.w, i)];
            double err = fabs(got - want), tol = gam * (fabs(alpha) * S[i] + fabs(beta * old)) + 1e-30;
            if (!(err <= tol)) {
                if (first < 0)
                    first = i;
                bad++;
            }
            if (err / tol > worst_bound)
                worst_bound = err / tol;
        }
        CHECK_MSG(bad == 0, "%s layout %d flip %d alpha %g beta %g: %ld beyond the bound (first %ld)", c->name, layout,
                  flip, alpha, beta, bad, first);
    }
    free(x), free(dy), free(ref), free(S), free(prev);
    prob_free(&P);
}

/* ---- determinism: phases without outputs, blocks and chunks, whole and staged modes ---- */

static long det_run(cudnnHandle_t h, int arg, float *out)
{
    int layout = arg / 4, which = arg % 4;
    int ci = which == 0 ? 5 : which == 1 ? 7 : which == 2 ? 8 : 9;
    prob P;
    prob_make(&P, &cases[ci], layout, 0);
    unsigned save = rng;
    rng = 99;
    for (long i = 0; i < P.x.span; i++)
        P.x.mem[i] = (float)rnd();
    for (long i = 0; i < P.y.span; i++)
        P.y.mem[i] = (float)rnd();
    for (long i = 0; i < P.w.span; i++)
        P.w.mem[i] = (float)rnd();
    if (h)
        conv_case_run(h, &P, D_BWDF, ALGO, 1, 0.25f, 0, NULL);
    if (out)
        memcpy(out, P.w.mem, sizeof(float) * (size_t)P.w.span);
    long n = P.w.span;
    rng = save;
    prob_free(&P);
    return n;
}

/* ---- every ISA cap: reference checks in a child per cap.  No comparison across caps:
   solver 307's AVX2 and AVX-512 transform kernels round differently (at d = 1 as well), so
   each cap is held to the bound on its own, as test_conv_wino4_bwdf.c does. ---- */

static void isa_child(cudnnHandle_t h, int cap, float *out)
{
    (void)out;
    static const int pick[] = {0, 3, 5, 7, 8};   /* d2, d4, d5 with empty phases, blocks, whole */
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    for (int i = 0; i < 5; i++)
        check_case(h, &cases[pick[i]], (i + cap) % L_COUNT, i & 1);
    cudnnSetCallback(0, NULL, NULL);
}

/* ---- the ranking and the refusals ---- */

static void check_rank_and_refusals(cudnnHandle_t h)
{
    SECTION("_v7 ranking of the DeepLab-v3 layers");
    /* Winograd is the faster one at batch 1 and 16 (staged mode), both layouts
       (docs/performance.md) */
    static const conv_case dl[] = {
        {"deeplab 256 d2 @28", 2, 1, 256, 256, 1, {1, 28, 28}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
        {"deeplab 512 d2 @28", 2, 1, 512, 512, 1, {1, 28, 28}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
        {"deeplab 512 d4 @28", 2, 1, 512, 512, 1, {1, 28, 28}, {1, 3, 3}, {0, 4, 4}, {1, 1, 1}, {1, 4, 4}},
        {"deeplab 256 d2 @28 N 16", 2, 16, 256, 256, 1, {1, 28, 28}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
        {"deeplab 512 d2 @28 N 16", 2, 16, 512, 512, 1, {1, 28, 28}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}},
        {"deeplab 512 d4 @28 N 16", 2, 16, 512, 512, 1, {1, 28, 28}, {1, 3, 3}, {0, 4, 4}, {1, 1, 1}, {1, 4, 4}},
    };
    for (int i = 0; i < 12; i++) {
        prob P;
        /* descriptors only: the ranking reads no data */
        prob_make(&P, &dl[i / 2], i % 2 ? L_NHWC : L_NCHW, 0);
        cudnnConvolutionBwdFilterAlgoPerf_t pf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        int got = 0;
        CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, P.xd, P.yd, P.cd, P.wd,
                                                               CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, pf));
        CHECK_MSG(got > 0 && pf[0].algo == ALGO, "%s layout %d: first choice %d", dl[i / 2].name, i % 2,
                  (int)pf[0].algo);
        prob_free(&P);
    }

    SECTION("refusals");
    size_t ws = 0;
    /* dilation with stride 2: the phases are no longer independent convolutions of sub-grids */
    conv_case strided = {"stride 2 d2", 2, 1, 4, 4, 1, {1, 12, 12}, {1, 3, 3}, {0, 2, 2}, {1, 2, 2}, {1, 2, 2}};
    prob P;
    prob_make(&P, &strided, L_NCHW, 0);
    CHECK_STATUS(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, P.xd, P.yd, P.cd, P.wd, ALGO, &ws),
                 CUDNN_STATUS_NOT_SUPPORTED);
    prob_free(&P);
}

int main(void)
{
    conv_case_check_isa(0, isa_child);   /* first: fork before this process starts threads */
    cudnnHandle_t h = conv_case_handle(2);
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    SECTION("against the float64 reference");
    for (int i = 0; i < NCASES; i++)
        for (int layout = 0; layout < L_COUNT; layout++)
            if (i < NCASES - 1 || layout == L_NHWC)   /* the staged case's reference is slow: one layout */
                check_case(h, &cases[i], layout, (i + layout) & 1);
    cudnnSetCallback(0, NULL, NULL);
    check_rank_and_refusals(h);
    cudnnDestroy(h);
    SECTION("bitwise identical across thread counts");
    for (int arg = 0; arg < NDET; arg++)
        conv_case_check_threads(det_run, arg, "backward filter");
    printf("accuracy (random data in [-1,1)): largest error / bound = %.3f\n", worst_bound);
    return hd_test_finish();
}
