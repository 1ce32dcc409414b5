/*
 * The micro-kernel backward-filter solvers (src/conv/solvers/conv_bwdf_*_f32.c: 352, the k-major
 * tiles, and 351, the row tiles), through the public API: FLOAT cudnnConvolutionBackwardFilter
 * with ALGO_1, where they come first, against the float64 reference (tests/ref/conv_ref.c).
 * Every case runs twice: as dispatched, then with 352 disabled so 351 takes it.  The shapes
 * cross every block boundary of the plans: output channels beyond one B panel and beyond one
 * column tile (256), filter columns beyond one A panel and beyond one row tile (640), positions
 * beyond one block (512) with a remainder, several reduction chunks, several waves of images,
 * blocks that straddle images; batch-1 problems whose one block 352 writes straight into dW
 * (16 tiles, tails of both tiles), k-major chunks, local tiles and waves; one NCHW image of a
 * 1x1 layer on 351's dot tiles (no workspace); strides, padding,
 * dilation, groups, 3-d, the tap-merging gather (C = 3, 7x7 stride 2), NCHW, NHWC and padded
 * strides, both modes, alpha/beta with beta = 0 over NaN.  Fills are small integers, so
 * results are exact and compared with zero tolerance.  Then: the dispatch log names the
 * solver, the exact workspace is enough and one byte less is refused with dW untouched,
 * results are bitwise identical across thread counts (1, 2, 3, 5) on random data for both
 * solvers, the checks pass under every HOSTDNN_MAX_ISA cap in child processes (AVX2 and
 * AVX-512 bitwise equal), the solvers refuse what they do not take (DOUBLE data, depthwise)
 * and the next solver of ALGO_1 computes it, and the heuristic ranks ALGO_1 first for
 * ResNet-like layers.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hostdnn.h"
#include "harness.h"
#include "ref/conv_ref.h"
#define CONV_CASE_SEED 777
#include "conv_case.h"

typedef conv_case fcase;

static const fcase cases[] = {
    {"3x3 K=40 (B panel remainder)", 2, 2, 6, 40, 1, {1, 9, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 K=300 (two column tiles)", 2, 1, 9, 300, 1, {1, 5, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 C=80 (two row tiles, R=720)", 2, 1, 80, 16, 1, {1, 6, 5}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 C=29 (A panel remainder)", 2, 3, 29, 8, 1, {1, 7, 6}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 x's runs read in place as A, blocks across images", 2, 3, 30, 40, 1, {1, 20, 26}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"positions: 2 blocks + tail, across images", 2, 3, 5, 9, 1, {1, 19, 17}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"positions: 8 chunks", 2, 2, 3, 10, 1, {1, 46, 44}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"waves of images (1x1 stride 3 pad 1; NCHW: k-major strided im2col rows, 8 chunks)", 2, 4, 8, 8, 1,
     {1, 192, 192}, {1, 1, 1}, {0, 1, 1}, {1, 3, 3}, {1, 1, 1}},
    {"conv1-like C=3 7x7 stride 2 (merged taps)", 2, 2, 3, 16, 1, {1, 23, 21}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
    {"5x5 pad 2 C=2", 2, 1, 2, 12, 1, {1, 11, 9}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 stride 2", 2, 2, 4, 12, 1, {1, 9, 10}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"1x1 stride 2", 2, 2, 9, 10, 1, {1, 8, 7}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2}, {1, 1, 1}},
    {"3x3 dilation 2", 2, 2, 3, 8, 1, {1, 9, 9}, {1, 3, 3}, {0, 2, 1}, {1, 1, 1}, {1, 2, 2}},
    {"odd 2x3 stride 3x2 dilation 1x2", 2, 3, 3, 9, 1, {1, 9, 7}, {1, 2, 3}, {0, 1, 0}, {1, 3, 2}, {1, 1, 2}},
    {"groups 2", 2, 2, 8, 32, 2, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"groups 3 K=27", 2, 2, 9, 27, 3, {1, 6, 5}, {1, 3, 3}, {0, 0, 1}, {1, 1, 2}, {1, 1, 1}},
    {"kernel > input", 2, 1, 2, 9, 1, {1, 2, 3}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3d 3x3x3", 3, 1, 3, 10, 1, {4, 5, 6}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3d stride dilation groups", 3, 2, 4, 16, 2, {5, 4, 6}, {2, 3, 2}, {1, 0, 1}, {2, 1, 2}, {1, 1, 2}},
    /* k-major tiles (dW rows = output channels, written by the kernel when one block holds
       every position) */
    {"batch 1 output split (k-major, one block, 16 tiles)", 2, 1, 64, 64, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1},
     {1, 1, 1}, {1, 1, 1}},
    {"batch 1 k-major K=45 C=37 stride 2 (tails of both tiles)", 2, 1, 37, 45, 1, {1, 13, 11}, {1, 3, 3}, {0, 1, 0},
     {1, 2, 2}, {1, 1, 1}},
    {"k-major 1x1 C>K, 2 blocks, 2 chunks", 2, 3, 40, 12, 1, {1, 16, 15}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 K=300, 2 blocks, two column tiles (short: no chunks)", 2, 2, 8, 300, 1, {1, 20, 20}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1},
     {1, 1, 1}},
    {"short reduction (one image): row tile halved (C=29: 135 + 126 rows), 3 blocks", 2, 1, 29, 20, 1, {1, 36, 36},
     {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"short reduction (one image): two row tiles split in four (C=128), 2 blocks", 2, 1, 128, 16, 1, {1, 23, 23},
     {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"k-major groups 8, local tiles", 2, 2, 128, 64, 8, {1, 24, 24}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* one image of a 1x1 unit-stride layer, 512 positions or more: in NCHW the dot tiles of 351
       (no workspace); tails of the 16-position groups, of the 4 x 6 tiles and of the 64-channel tasks */
    {"dot tiles, tails of every kind", 2, 1, 29, 71, 1, {1, 23, 25}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"dot tiles, groups 3", 2, 1, 27, 210, 3, {1, 32, 17}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"dot tiles, whole 16-position groups", 2, 1, 12, 9, 1, {1, 32, 32}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"k-major two waves of one image", 2, 2, 16, 8, 1, {1, 160, 160}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* 1x1 strided, NCHW-like x: panels transposed from x itself, row by row (the even columns
       deinterleaved in registers; width 37: the last load of a row masked, 19 = 16 + 3 columns) */
    {"1x1 stride 2 x rows in place (2 blocks across images, column tails)", 2, 3, 20, 24, 1, {1, 29, 37}, {1, 1, 1},
     {0, 0, 0}, {1, 2, 2}, {1, 1, 1}},
    {"1x1 stride 2x1 x rows in place (rows skipped)", 2, 2, 16, 16, 1, {1, 9, 21}, {1, 1, 1}, {0, 0, 0}, {1, 2, 1},
     {1, 1, 1}},
    {"1x1 stride 2 x rows in place, C=30 (A panel and 16-row tails)", 2, 1, 30, 40, 1, {1, 16, 64}, {1, 1, 1},
     {0, 0, 0}, {1, 2, 2}, {1, 1, 1}},
    /* k-major from a channel-contiguous dy of few output channels: its A panels read in place
       (NHWC), the wave's last block packing the panels that would read past the last row */
    {"k-major dy in place K=16 (14 + 2 rows), 3 blocks across images", 2, 2, 32, 16, 1, {1, 23, 25}, {1, 1, 1},
     {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"k-major dy in place groups 2 Kg=15 (14 + 1 rows), 3 blocks", 2, 3, 24, 30, 2, {1, 17, 21}, {1, 1, 1},
     {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"k-major 1x1 K=512 C=160, one wave, 2 blocks, x in place", 2, 2, 160, 512, 1, {1, 24, 12},
     {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"k-major dy in place, one block written into dW", 2, 1, 16, 16, 1, {1, 16, 16}, {1, 1, 1}, {0, 0, 0},
     {1, 1, 1}, {1, 1, 1}},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))

/* ---- a strided FLOAT tensor and its packed logical mirror ---- */


/* ---- the dispatch log ---- */

static int saw_uk, saw_km, saw_other;
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud, (void)msg;
    int id;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL)) {
        if (id == 351)          /* bwd_filter.ukernel_blocked_gemm_f32 */
            saw_uk = 1;
        else if (id == 352)     /* bwd_filter.ukernel_kmajor_blocked_gemm_f32 */
            saw_km = 1;
        else
            saw_other = 1;
    }
}

/* Set by the second pass of the reference checks: 352 disabled, every case on 351's row tiles. */
static int rows_only;

/* ---- correctness against the reference ---- */

static void check_case(cudnnHandle_t h, const fcase *c, int layout, int flip)
{
    prob P;
    prob_make(&P, c, layout, flip);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
    double *ly = malloc(sizeof(double) * (size_t)ny);
    double *ref = malloc(sizeof(double) * (size_t)nw), *prev = malloc(sizeof(double) * (size_t)nw);
    for (long i = 0; i < nx; i++)
        lx[i] = small_int(2);
    for (long i = 0; i < ny; i++)
        ly[i] = small_int(2);
    for (long i = 0; i < nw; i++)
        lw[i] = 0;
    conv_ref_bwd_filter(&P.rs, lx, ly, ref);
    static const float ab[3][2] = {{1, 0}, {2, 0.5f}, {-1, 1}};
    tens_load(&P.x, lx, 0), tens_load(&P.y, ly, 0);      /* x and dy are only read */
    for (int k = 0; k < 3; k++) {
        float alpha = ab[k][0], beta = ab[k][1];
        for (long i = 0; i < nw; i++)
            prev[i] = (double)small_int(3);
        tens_load(&P.w, prev, beta == 0 ? NAN : -7.0f);   /* elements outside the tensor must survive */
        saw_uk = saw_km = saw_other = 0;
        cudnnStatus_t st = conv_case_run(h, &P, D_BWDF, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, alpha, beta, 0, NULL);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s layout %d: status %d", c->name, layout, (int)st);
        CHECK_MSG((saw_uk || saw_km) && !saw_other && !(saw_uk && saw_km),
                  "%s layout %d: a micro-kernel solver was not dispatched", c->name, layout);
        /* one block of positions in all: the k-major tiles, in every layout */
        if (!strncmp(c->name, "batch 1", 7))
            CHECK_MSG(rows_only ? saw_uk : saw_km, "%s layout %d: %s tiles expected", c->name, layout,
                      rows_only ? "row" : "k-major");
        if (rows_only)
            CHECK_MSG(saw_uk, "%s layout %d: 352 disabled, 351 expected", c->name, layout);
        long bad = 0;
        for (long i = 0; i < nw; i++) {
            double want = alpha * ref[i] + (beta == 0 ? 0 : beta * prev[i]);
            if (P.w.mem[tens_off(&P.w, i)] != (float)want)
                bad++;
        }
        long gaps = 0;
        char *mark = calloc((size_t)P.w.span, 1);
        for (long i = 0; i < nw; i++)
            mark[tens_off(&P.w, i)] = 1;
        for (long i = 0; i < P.w.span; i++)
            if (!mark[i] && !(beta == 0 ? isnan(P.w.mem[i]) : P.w.mem[i] == -7.0f))
                gaps++;
        free(mark);
        CHECK_MSG(bad == 0 && gaps == 0, "%s layout %d flip %d alpha %g beta %g: %ld wrong, %ld gaps", c->name, layout,
                  flip, alpha, beta, bad, gaps);
    }
    /* exact workspace worked above; one byte less: BAD_PARAM, dW untouched (the dot tiles need
       none: nothing to take away) */
    for (long i = 0; i < P.w.span; i++)
        P.w.mem[i] = 12345.0f;
    size_t ws = 0;
    cudnnStatus_t st = conv_case_run(h, &P, D_BWDF, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1, 0, 1, &ws);
    long touched = 0;
    for (long i = 0; i < P.w.span; i++)
        touched += P.w.mem[i] != 12345.0f;
    if (!strncmp(c->name, "dot tiles", 9) && layout == L_NCHW)
        CHECK_MSG(ws == 0 && st == CUDNN_STATUS_SUCCESS, "%s: dot tiles: workspace %zu, status %d", c->name, ws, (int)st);
    else
        CHECK_MSG(ws > 0 && st == CUDNN_STATUS_BAD_PARAM && touched == 0,
                  "%s: short workspace (%zu - 1): status %d, %ld touched", c->name, ws, (int)st, touched);
    free(lx), free(lw), free(ly), free(ref), free(prev);
    prob_free(&P);
}

/* ---- determinism: random (non-integer) data ---- */

static const fcase det_cases[] = {
    {"det chunks", 2, 3, 20, 40, 1, {1, 23, 21}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det waves", 2, 4, 8, 8, 1, {1, 192, 192}, {1, 3, 3}, {0, 1, 1}, {1, 3, 3}, {1, 1, 1}},
    {"det tiles", 2, 1, 80, 270, 1, {1, 9, 9}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det batch 1 output split", 2, 1, 64, 64, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det K=300 2 blocks", 2, 2, 8, 300, 1, {1, 20, 20}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det short reduction halved", 2, 1, 29, 20, 1, {1, 36, 36}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det short reduction in four", 2, 1, 128, 16, 1, {1, 23, 23}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det k-major local", 2, 2, 128, 64, 8, {1, 24, 24}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det dot tiles", 2, 1, 40, 70, 1, {1, 23, 29}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det 1x1 stride 2 x rows in place", 2, 3, 20, 24, 1, {1, 29, 37}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2}, {1, 1, 1}},
    {"det k-major 1x1 K=512 one wave", 2, 2, 160, 512, 1, {1, 24, 12}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det k-major dy in place", 2, 2, 32, 16, 1, {1, 23, 25}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det k-major dy in place groups 2", 2, 3, 24, 30, 2, {1, 17, 21}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
};
#define NDET ((int)(sizeof det_cases / sizeof *det_cases))

/* Runs every det case in LAYOUT on fixed pseudo-random data; writes the dW spans into OUT. */
static long det_run(cudnnHandle_t h, int layout, float *out)
{
    unsigned save = rng;
    rng = 99;
    long n = 0;
    for (int i = 0; i < NDET; i++) {
        prob P;
        prob_make(&P, &det_cases[i], layout, i & 1);
        for (long j = 0; j < P.x.span; j++)
            P.x.mem[j] = rnd_float();
        for (long j = 0; j < P.w.span; j++)
            P.w.mem[j] = rnd_float();
        for (long j = 0; j < P.y.span; j++)
            P.y.mem[j] = rnd_float();
        if (h)
            conv_case_run(h, &P, D_BWDF, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1, 0.25f, 0, NULL);
        if (out)
            memcpy(out + n, P.w.mem, sizeof(float) * (size_t)P.w.span);
        n += P.w.span;
        prob_free(&P);
    }
    rng = save;
    return n;
}


static void check_threads(void)
{
    SECTION("bitwise identical across thread counts");
    for (int pass = 0; pass < 2; pass++) {          /* as dispatched, then on 351's row tiles alone */
        if (pass)
            setenv("HOSTDNN_CONV_DISABLE", "352", 1);
        for (int layout = 0; layout < L_COUNT; layout++) {
            char what[48];
            snprintf(what, sizeof what, "pass %d layout %d", pass, layout);
            conv_case_check_threads(det_run, layout, what);
        }
    }
    unsetenv("HOSTDNN_CONV_DISABLE");
}

/* Each ISA cap in a fresh child (the cap is read once per process): the exact reference checks
 * pass there too; AVX2 and AVX-512 (fused multiply-adds in the same order) give bitwise the
 * same dW, the scalar kernels (separate multiply and add) agree to rounding. */
static void isa_child(cudnnHandle_t h, int cap, float *out)
{
    (void)cap;
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    for (int c = 0; c < NCASES; c++)
        check_case(h, &cases[c], c % L_COUNT, c & 1);
    cudnnSetCallback(0, NULL, NULL);
    long m = det_run(h, L_NCHW, out);
    det_run(h, L_NHWC, out + m);
}

static void check_isa(void)
{
    conv_case_check_isa(det_run(NULL, L_NCHW, NULL) + det_run(NULL, L_NHWC, NULL), isa_child);
}

/* What the solver does not take goes to the next solver of ALGO_1, and is still right. */
static void check_refusal(cudnnHandle_t h)
{
    SECTION("refused problems go to the next solver");
    static const fcase dw = {"depthwise", 2, 2, 6, 6, 6, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}};
    prob P;
    prob_make(&P, &dw, L_NCHW, 0);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    double *lx = malloc(sizeof(double) * (size_t)nx), *ly = malloc(sizeof(double) * (size_t)ny);
    double *ref = malloc(sizeof(double) * (size_t)nw);
    for (long i = 0; i < nx; i++)
        lx[i] = small_int(2);
    for (long i = 0; i < ny; i++)
        ly[i] = small_int(2);
    conv_ref_bwd_filter(&P.rs, lx, ly, ref);
    tens_load(&P.x, lx, 0), tens_load(&P.y, ly, 0);
    saw_uk = saw_km = saw_other = 0;
    CHECK_OK(conv_case_run(h, &P, D_BWDF, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1, 0, 0, NULL));
    CHECK(!saw_uk && !saw_km && saw_other);
    long bad = 0;
    for (long i = 0; i < nw; i++)
        bad += P.w.mem[tens_off(&P.w, i)] != (float)ref[i];
    CHECK_EQ_INT(bad, 0);
    free(lx), free(ly), free(ref);
    prob_free(&P);

    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cd);
    cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 2, 4, 4);
    cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 16, 4, 4);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 16, 2, 3, 3);
    cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_DOUBLE);
    double x[32], y[256], w[288], alpha = 1, beta = 0;
    for (int i = 0; i < 32; i++)
        x[i] = i % 5 - 2;
    for (int i = 0; i < 256; i++)
        y[i] = i % 3 - 1;
    size_t ws = 0;
    CHECK_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cd, wd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, &ws));
    void *mem = malloc(ws + 1);
    saw_uk = saw_km = saw_other = 0;
    CHECK_OK(cudnnConvolutionBackwardFilter(h, &alpha, xd, x, yd, y, cd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, mem, ws,
                                            &beta, wd, w));
    CHECK(!saw_uk && !saw_km && saw_other);
    free(mem);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
}

/* The heuristic puts ALGO_1 first for FLOAT ResNet-like layers, in both layouts. */
static void check_heuristic(cudnnHandle_t h)
{
    SECTION("heuristic ranking");
    static const fcase rank[] = {
        {"3x3", 2, 2, 32, 32, 1, {1, 14, 14}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
        {"1x1", 2, 2, 64, 32, 1, {1, 14, 14}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
        {"7x7 stride 2", 2, 2, 3, 64, 1, {1, 30, 30}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
    };
    for (int i = 0; i < 3; i++)
        for (int layout = L_NCHW; layout <= L_NHWC; layout++) {
            prob P;
            prob_make(&P, &rank[i], layout, 0);
            cudnnConvolutionBwdFilterAlgoPerf_t wp[7];
            int n = 0;
            CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, P.xd, P.yd, P.cd, P.wd, 7, &n, wp));
            CHECK_MSG(n > 0 && wp[0].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 &&
                          wp[0].determinism == CUDNN_DETERMINISTIC,
                      "%s layout %d: first algo %d", rank[i].name, layout, n > 0 ? (int)wp[0].algo : -1);
            prob_free(&P);
        }
}

int main(void)
{
    check_isa();                                   /* first: fork before this process starts threads */
    cudnnHandle_t h = conv_case_handle(2);
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    SECTION("against the float64 reference");
    for (int i = 0; i < NCASES; i++)
        for (int layout = 0; layout < L_COUNT; layout++)
            check_case(h, &cases[i], layout, (i + layout) & 1);
    check_refusal(h);
    SECTION("the row tiles alone (352 disabled)");
    setenv("HOSTDNN_CONV_DISABLE", "352", 1);
    rows_only = 1;
    for (int i = 0; i < NCASES; i++)
        for (int layout = 0; layout < L_COUNT; layout++)
            check_case(h, &cases[i], layout, (i + layout + 1) & 1);
    rows_only = 0;
    unsetenv("HOSTDNN_CONV_DISABLE");
    cudnnSetCallback(0, NULL, NULL);
    check_heuristic(h);
    check_threads();
    cudnnDestroy(h);
    return hd_test_finish();
}
