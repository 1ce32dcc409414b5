/*
 * The blocked implicit-GEMM fp32 solvers (src/conv/solvers/conv_fast_f32.c), through the
 * public API: FLOAT problems of forward IMPLICIT_PRECOMP_GEMM, backward data ALGO_1 and
 * backward filter ALGO_1 (where these solvers come first), against the float64 reference
 * (tests/ref/conv_ref.c).  Shapes are chosen to cross the solvers' block boundaries
 * (several position blocks, channel blocks beyond 256, reduction columns beyond 512, several
 * reduction chunks), in NCHW, NHWC and padded strides, both modes, alpha/beta with beta = 0
 * over NaN.  Fills are small integers, so results are exact and compared with zero
 * tolerance.  Then: the dispatch log names the solver, the exact workspace is enough and one
 * byte less is refused with the output untouched, results are bitwise identical across
 * thread counts (1, 2, 3, 5), the reference checks pass under every HOSTDNN_MAX_ISA cap (in
 * child processes), and non-FLOAT data is refused by this solver (the next one of the enum
 * takes it).  The forward solver's own blocking (k blocks of CRS, channel tiles and blocks,
 * position blocks inside and across images, x read in place for 1x1) has cases of its own, and
 * its fused bias + activation epilogue (cudnnConvolutionBiasActivationForward, z apart and z == y)
 * is checked in every layout.
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

static const int algo_of[3] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                               CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1};

typedef conv_case fcase;

static const fcase cases[] = {
    {"1x1", 2, 2, 8, 12, 1, {1, 6, 5}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 K=300 (channel blocks)", 2, 1, 5, 300, 1, {1, 3, 4}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 C=300 (bwd data channel blocks)", 2, 1, 300, 3, 1, {1, 3, 2}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 pad", 2, 2, 6, 7, 1, {1, 9, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 C=64 (reduction blocks)", 2, 3, 64, 5, 1, {1, 7, 6}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"5x5 pad 2 N=1", 2, 1, 3, 4, 1, {1, 11, 9}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 stride 2", 2, 2, 4, 6, 1, {1, 9, 10}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"1x1 stride 2", 2, 2, 5, 6, 1, {1, 8, 7}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2}, {1, 1, 1}},
    {"3x3 dilation 2", 2, 2, 3, 4, 1, {1, 9, 9}, {1, 3, 3}, {0, 2, 1}, {1, 1, 1}, {1, 2, 2}},
    {"groups 3", 2, 2, 6, 9, 3, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"depthwise stride 2", 2, 2, 4, 4, 4, {1, 8, 7}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"odd 2x3 stride 3x2 dil", 2, 3, 3, 2, 1, {1, 9, 7}, {1, 2, 3}, {0, 1, 0}, {1, 3, 2}, {1, 1, 2}},
    {"blocks across images", 2, 3, 5, 6, 1, {1, 6, 6}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"blocks inside images, N=3", 2, 3, 4, 5, 1, {1, 12, 13}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"many positions", 2, 1, 3, 8, 1, {1, 40, 45}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"kernel > input", 2, 1, 2, 3, 1, {1, 2, 3}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3d 3x3x3", 3, 1, 3, 4, 1, {4, 5, 6}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3d stride dil groups", 3, 2, 4, 2, 2, {5, 4, 6}, {2, 3, 2}, {1, 0, 1}, {2, 1, 2}, {1, 1, 2}},
    /* the forward solver's blocking: k blocks of <= 256 rows (R = 513, 261), result-channel
     * tiles with remainders (K = 15, 33) and blocks past 512 (K = 530, 600 per 2 groups),
     * position blocks with remainders (323 positions), blocks across small images (2-d and
     * 3-d), the 1x1 path that reads x in place with a partial last panel, stride 2 with
     * wide padding, and batch 1 cut finer so that both threads work */
    {"R=513 (3 k blocks) K=15", 2, 2, 57, 15, 1, {1, 9, 10}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"R=261 K=33 323 positions N=1", 2, 1, 29, 33, 1, {1, 17, 19}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 in place, partial panel, N=1", 2, 1, 20, 16, 1, {1, 9, 9}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 in place K=530 (channel blocks)", 2, 2, 12, 530, 1, {1, 12, 13}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 in place, whole images of 400", 2, 4, 24, 40, 1, {1, 20, 20}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* x over 1 MiB in blocks smaller than an image: read in place where a plane is an odd
       number of lines (AVX-512), copied where planes are 4 KiB apart, several k blocks (the
       next block's rows prefetched, then the next task's) */
    /* batch 1 1x1: position blocks longer than 256 (x in place with a partial last panel;
     * x over 1 MiB gathered into long panels) */
    {"1x1 in place N=1, long blocks", 2, 1, 16, 20, 1, {1, 45, 47}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 N=1, blocks evened out (784 positions)", 2, 1, 300, 20, 1, {1, 28, 28}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 x over 1 MiB N=1, long blocks", 2, 1, 40, 18, 1, {1, 90, 90}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 x over 1 MiB, blocks of odd planes", 2, 2, 520, 40, 1, {1, 23, 29}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 x over 1 MiB, planes 4 KiB apart", 2, 2, 300, 20, 1, {1, 32, 32}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* batch 1 plain 1x1, roles swapped on AVX-512 (positions in 14-row tiles, read in place):
       whole tiles; a partial last position tile and two k blocks; a partial channel tile */
    {"1x1 N=1 swapped 14x14", 2, 1, 40, 64, 1, {1, 14, 14}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 N=1 swapped, partial tile", 2, 1, 300, 64, 1, {1, 13, 13}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 N=1 swapped K=90", 2, 1, 20, 90, 1, {1, 14, 14}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* swapped, 512 channels a task: B panels packed in chunks of channels (480, 32) */
    {"1x1 N=1 swapped 10x10 K=2048 (chunks)", 2, 1, 130, 2048, 1, {1, 10, 10}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* 7x7, a long reduction and a filter over 1 MiB: swapped, not the dot plan (5 k blocks) */
    {"1x1 N=1 swapped 7x7 C=1100", 2, 1, 1100, 260, 1, {1, 7, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* batch 1, x over 1 MiB, planes 4 KiB apart: read in place too (AVX-512), several k blocks */
    {"1x1 x over 1 MiB N=1, planes 4 KiB apart", 2, 1, 300, 20, 1, {1, 32, 32}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* batch 1, few positions, long reduction, filter over 1 MiB: from NCHW-like x the rows of
       x's im2col (built transposed once per call) as the A side, borders and stride 2 */
    {"im2col rows 3x3", 2, 1, 128, 300, 1, {1, 7, 6}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"im2col rows 3x3 stride 2", 2, 1, 120, 290, 1, {1, 9, 8}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"im2col rows 1x1", 2, 1, 1100, 260, 1, {1, 5, 5}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"small images across blocks N=5", 2, 5, 8, 20, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"7x7 stride 2 pad 3 across images", 2, 2, 3, 10, 1, {1, 21, 19}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
    {"7x7 stride 2 pad 3 N=1", 2, 1, 3, 10, 1, {1, 31, 29}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
    {"3d across images", 3, 3, 2, 5, 1, {3, 4, 5}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"groups 2 K=600 1x1 N=1", 2, 1, 4, 600, 2, {1, 5, 6}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"stride 3 pad 2 dil 2", 2, 2, 6, 17, 1, {1, 23, 25}, {1, 3, 3}, {0, 2, 2}, {1, 3, 3}, {1, 2, 2}},
    /* groups per task: one (large groups), two of four, all (small groups) */
    {"groups 2, one per task", 2, 1, 64, 128, 2, {1, 6, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"groups 4, two per task", 2, 2, 1024, 128, 4, {1, 3, 4}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* NHWC-like x: positions are the A side, read through the row table (tiles across output
     * rows and images, taps in the padding, k blocks that end inside a tap, strides, dilation,
     * groups); with few positions (batch 1) each task packs its B tiles of the filter per k
     * block (partial channel tiles, several k blocks) */
    {"swap 3x3 pad, tiles across rows", 2, 2, 12, 40, 1, {1, 13, 21}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"swap R=360 (k blocks inside taps)", 2, 2, 40, 17, 1, {1, 16, 17}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"swap 1x1 stride 2 K=33", 2, 3, 16, 33, 1, {1, 27, 25}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2}, {1, 1, 1}},
    {"swap 3x3 stride 2 dil 2", 2, 2, 8, 20, 1, {1, 37, 33}, {1, 3, 3}, {0, 2, 1}, {1, 2, 2}, {1, 2, 1}},
    {"swap across images 7x7", 2, 12, 8, 16, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"swap 1x1 C=300 N=1", 2, 1, 300, 21, 1, {1, 24, 24}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"swap groups 2", 2, 2, 32, 48, 2, {1, 17, 16}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"swap N=1 14x14 (196 positions)", 2, 1, 24, 40, 1, {1, 14, 14}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    /* swapped with x's position rows 4 KiB apart (C = 1024; C = 512 at stride 2): each tile's
     * rows of a k block are copied before the kernel reads them */
    {"swap 1x1 C=1024 (rows copied)", 2, 1, 1024, 20, 1, {1, 24, 24}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"swap 3x3 stride 2 C=512 (rows copied)", 2, 1, 512, 9, 1, {1, 47, 49}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"swap groups 8 C=1024 (rows copied, k blocks across taps)", 2, 1, 1024, 16, 8, {1, 6, 17}, {1, 3, 3}, {0, 1, 1},
     {1, 1, 1}, {1, 1, 1}},
    {"few positions 3x3 K=200", 2, 1, 16, 200, 1, {1, 9, 9}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"few positions 1x1 C=1024 (rows 4 KiB apart)", 2, 1, 1024, 20, 1, {1, 3, 4}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"few positions stride 2 N=2", 2, 2, 24, 30, 1, {1, 14, 14}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"few positions 7x7 R=603 (3 k blocks) K=70", 2, 1, 67, 70, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    /* NHWC with few channels: one table entry per filter row (a run of S*C floats), runs cut by
     * the borders copied; swapped (conv1-like) and not, 3-d */
    {"wide runs 7x7 stride 2 pad 3 (swap)", 2, 2, 3, 20, 1, {1, 45, 47}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
    {"wide runs 5x3 pad 2x1 C=5 (swap)", 2, 1, 5, 9, 1, {1, 30, 23}, {1, 5, 3}, {0, 2, 1}, {1, 1, 1}, {1, 1, 1}},
    {"wide runs 3d C=2", 3, 2, 2, 6, 1, {5, 6, 7}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    /* AVX-512 takes wide x tile by tile (no row table): tiles inside x read in place, tiles at
     * a border from a zero-padded copy of their span, tiles across two result rows from copies
     * of each position's runs; and k blocks that end inside a filter row (R = 405) */
    {"wide tiles 9x9 C=5 R=405 (k blocks inside a filter row)", 2, 2, 5, 12, 1, {1, 40, 36}, {1, 9, 9}, {0, 4, 4},
     {1, 1, 1}, {1, 1, 1}},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))

/* The forward's "dot" plan (at most 64 positions over the batch, a reduction of 1024 or
 * more, a filter over 1 MiB; conv_fwd_dot_f32.c), in every layout and unflipped (a flipped filter
 * takes the other plans): from NHWC-like x one reduction block per tap or per run of taps
 * (C = 200: two taps per block, a 16-lane tail per tap), from NCHW-like or padded x the rows
 * of x's im2col; position and channel counts off the kernels' tiles. */
static const fcase dot_cases[] = {
    {"dot 3x3 C=200 K=147", 2, 1, 200, 147, 1, {1, 7, 9}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"dot 1x1 stride 2 C=1100", 2, 1, 1100, 260, 1, {1, 9, 9}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2}, {1, 1, 1}},
    {"dot 3x3 stride 2 dilation 2", 2, 1, 130, 250, 1, {1, 11, 10}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 2, 2}},
    {"dot N=2 (positions of both images)", 2, 2, 128, 300, 1, {1, 5, 5}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"dot 5x5 pad 2 (im2col rows of 5-tap runs)", 2, 1, 64, 200, 1, {1, 7, 7}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    /* padding 3 around a 3x3 x: 24 of the 49 windows lie wholly in the padding (whole tiles
       of them skip every tap, their sums are zero), the others skip taps tile by tile */
    {"dot 3x3 pad 3 (windows in the padding)", 2, 1, 200, 147, 1, {1, 3, 3}, {1, 3, 3}, {0, 3, 3}, {1, 1, 1}, {1, 1, 1}},
    /* 64 positions of 2720-float im2col rows: too many for L2, taken in two phases of position
       tiles */
    {"dot 8x8 C=300 (im2col rows in two phases)", 2, 1, 300, 100, 1, {1, 8, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
};

/* ---- a strided FLOAT tensor and its packed logical mirror ---- */


/* ---- the dispatch log ---- */

/* Whether a solver of the blocked-GEMM family ran: forward 150-153, backward data 250-254,
 * backward filter 350-352 (docs/solvers.md). */
static int saw_fast, saw_dot;
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud, (void)msg;
    int id;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL) &&
        ((id >= 150 && id <= 153) || (id >= 250 && id <= 254) || (id >= 350 && id <= 352)))
        saw_fast = 1;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL) && id == 151)   /* fwd.dot_f32 */
        saw_dot++;
}

/* ---- correctness against the reference ---- */

static void check_case(cudnnHandle_t h, const fcase *c, int layout, int flip)
{
    prob P;
    prob_make(&P, c, layout, flip);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
    double *ly = malloc(sizeof(double) * (size_t)ny);
    long nmax = nx > nw ? nx : nw;
    nmax = nmax > ny ? nmax : ny;
    double *ref = malloc(sizeof(double) * (size_t)nmax), *prev = malloc(sizeof(double) * (size_t)nmax);
    for (long i = 0; i < nx; i++)
        lx[i] = small_int(2);
    for (long i = 0; i < nw; i++)
        lw[i] = small_int(2);
    for (long i = 0; i < ny; i++)
        ly[i] = small_int(2);
    static const float ab[2][2] = {{1, 0}, {2, 0.5f}};
    for (int dir = D_FWD; dir <= D_BWDF; dir++) {
        tens *out = dir == D_FWD ? &P.y : dir == D_BWDD ? &P.x : &P.w;
        long nout = tens_elems(out);
        if (dir == D_FWD)
            conv_ref_fwd(&P.rs, lx, lw, ref);
        else if (dir == D_BWDD)
            conv_ref_bwd_data(&P.rs, ly, lw, ref);
        else
            conv_ref_bwd_filter(&P.rs, lx, ly, ref);
        for (int k = 0; k < 2; k++) {
            float alpha = ab[k][0], beta = ab[k][1];
            tens_load(&P.x, lx, 0), tens_load(&P.w, lw, 0), tens_load(&P.y, ly, 0);
            for (long i = 0; i < nout; i++)
                prev[i] = (double)small_int(3);
            tens_load(out, prev, beta == 0 ? NAN : -7.0f);   /* padding elements must survive */
            saw_fast = 0;
            cudnnStatus_t st = conv_case_run(h, &P, dir, algo_of[dir], alpha, beta, 0, NULL);
            CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s layout %d dir %d: status %d", c->name, layout, dir, (int)st);
            CHECK_MSG(saw_fast, "%s layout %d dir %d: blocked solver not dispatched", c->name, layout, dir);
            long bad = 0;
            for (long i = 0; i < nout; i++) {
                double want = alpha * ref[i] + (beta == 0 ? 0 : beta * prev[i]);
                if (out->mem[tens_off(out, i)] != (float)want)
                    bad++;
            }
            long off_layout = 0;
            if (layout == L_PADDED) {                  /* elements outside the tensor untouched */
                char *mark = calloc((size_t)out->span, 1);
                for (long i = 0; i < nout; i++)
                    mark[tens_off(out, i)] = 1;
                for (long i = 0; i < out->span; i++)
                    if (!mark[i] && !(beta == 0 ? isnan(out->mem[i]) : out->mem[i] == -7.0f))
                        off_layout++;
                free(mark);
            }
            CHECK_MSG(bad == 0 && off_layout == 0, "%s layout %d flip %d dir %d alpha %g beta %g: %ld wrong, %ld gaps",
                      c->name, layout, flip, dir, alpha, beta, bad, off_layout);
        }
        /* one byte less workspace: BAD_PARAM, output untouched */
        float before = out->mem[0];
        out->mem[0] = 12345.0f;
        cudnnStatus_t st = conv_case_run(h, &P, dir, algo_of[dir], 1, 0, 1, NULL);
        size_t ws = 0;
        if (dir == D_FWD)
            cudnnGetConvolutionForwardWorkspaceSize(h, P.xd, P.wd, P.cd, P.yd,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &ws);
        CHECK(st == (dir != D_FWD || ws > 0 ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_SUCCESS) || ws == 0);
        CHECK(st != CUDNN_STATUS_BAD_PARAM || out->mem[0] == 12345.0f);
        out->mem[0] = before;
    }
    free(lx), free(lw), free(ly), free(ref), free(prev);
    prob_free(&P);
}

/* ---- determinism: random (non-integer) data, outputs of all three directions ---- */

static const fcase det_cases[] = {
    {"det", 2, 3, 70, 40, 1, {1, 13, 11}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    /* blocks across images, result-channel blocks */
    {"det small images", 2, 4, 8, 530, 1, {1, 5, 6}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    /* batch 1: positions and channels cut for the threads; 1x1 read in place */
    {"det batch 1", 2, 1, 300, 70, 1, {1, 15, 14}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* NHWC: positions as the A side, the filter packed once per call or (batch 1 3x3) per task */
    {"det batch 1 1x1 long blocks", 2, 1, 24, 30, 1, {1, 50, 47}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det batch 1 1x1 evened blocks", 2, 1, 300, 20, 1, {1, 28, 28}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det batch 1 1x1 x over 1 MiB", 2, 1, 300, 20, 1, {1, 32, 32}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det batch 1 1x1 swapped", 2, 1, 300, 64, 1, {1, 13, 13}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det batch 1 1x1 7x7 swapped (not dot)", 2, 1, 1100, 260, 1, {1, 7, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det swap", 2, 2, 24, 40, 1, {1, 17, 16}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det batch 1 3x3", 2, 1, 40, 70, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det batch 1 im2col rows", 2, 1, 128, 300, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det dot plan N=2", 2, 2, 200, 147, 1, {1, 4, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det dot plan 7x7 (tiles skip padding taps)", 2, 1, 130, 250, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det dot plan in phases", 2, 1, 300, 100, 1, {1, 8, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det conv1-like", 2, 2, 3, 24, 1, {1, 33, 35}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
};
#define NDET ((int)(sizeof det_cases / sizeof *det_cases))

/* Runs the three directions on fixed pseudo-random data for every det case; writes y, dx, dw
 * into OUT. */
static long det_run1(cudnnHandle_t h, int layout, float *out, const fcase *dc);
static long det_run(cudnnHandle_t h, int layout, float *out)
{
    long n = 0;
    for (int i = 0; i < NDET; i++)
        n += det_run1(h, layout, out ? out + n : NULL, &det_cases[i]);
    return n;
}

static long det_run1(cudnnHandle_t h, int layout, float *out, const fcase *dc)
{
    prob P;
    prob_make(&P, dc, layout, 0);
    unsigned save = rng;
    rng = 99;
    long n = 0;
    for (int dir = D_FWD; dir <= D_BWDF; dir++) {
        for (long i = 0; i < P.x.span; i++)
            P.x.mem[i] = rnd_float();
        for (long i = 0; i < P.w.span; i++)
            P.w.mem[i] = rnd_float();
        for (long i = 0; i < P.y.span; i++)
            P.y.mem[i] = rnd_float();
        tens *o = dir == D_FWD ? &P.y : dir == D_BWDD ? &P.x : &P.w;
        conv_case_run(h, &P, dir, algo_of[dir], 1, 0.25f, 0, NULL);
        if (out)
            memcpy(out + n, o->mem, sizeof(float) * (size_t)o->span);
        n += o->span;
    }
    rng = save;
    prob_free(&P);
    return n;
}


static void check_threads(void)
{
    SECTION("bitwise identical across thread counts");
    for (int layout = 0; layout < 2; layout++) {
        char what[32];
        snprintf(what, sizeof what, "layout %d", layout);
        conv_case_check_threads(det_run, layout, what);
    }
}

static void check_case(cudnnHandle_t h, const fcase *c, int layout, int flip);
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg);

/* Each ISA cap in a fresh child (the cap is read once per process): the exact reference
 * checks of every case must pass there too; AVX2 and AVX-512 (both FMA kernels) give bitwise
 * the same results, the scalar kernels (separate multiply and add) agree to rounding. */
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

/* cudnnConvolutionBiasActivationForward through this solver: y = act(alpha1*conv +
 * alpha2*z + bias), with z separate and z == y (read before written), relu and identity,
 * in every layout, including blocks across images and the 1x1 path that reads x in place. */
static void check_fused(cudnnHandle_t h)
{
    SECTION("fused bias + activation epilogue");
    static const fcase fc[] = {
        {"fused 3x3", 2, 2, 6, 20, 1, {1, 13, 12}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
        {"fused across images", 2, 3, 5, 7, 1, {1, 5, 4}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
        {"fused 1x1", 2, 1, 9, 30, 1, {1, 12, 12}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
        {"fused 1x1 N=1 long blocks", 2, 1, 16, 20, 1, {1, 45, 47}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
        {"fused 1x1 N=1 swapped", 2, 1, 40, 64, 1, {1, 13, 13}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
        {"fused 1x1 whole-image blocks", 2, 4, 9, 30, 1, {1, 12, 13}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
        {"fused swap", 2, 3, 9, 20, 1, {1, 13, 14}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
        {"fused dot plan", 2, 1, 128, 300, 1, {1, 7, 6}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    };
    for (int ci = 0; ci < (int)(sizeof fc / sizeof fc[0]); ci++)
        for (int layout = 0; layout < L_COUNT; layout++)
            for (int mode = 0; mode < 4; mode++) {     /* bit 0: relu; bit 1: z is y */
                prob P;
                prob_make(&P, &fc[ci], layout, 0);
                long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
                double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
                double *lz = malloc(sizeof(double) * (size_t)ny), *ref = malloc(sizeof(double) * (size_t)ny);
                for (long i = 0; i < nx; i++)
                    lx[i] = small_int(2);
                for (long i = 0; i < nw; i++)
                    lw[i] = small_int(2);
                for (long i = 0; i < ny; i++)
                    lz[i] = small_int(3);
                conv_ref_fwd(&P.rs, lx, lw, ref);
                int K = fc[ci].K;
                float *bias = malloc(sizeof(float) * (size_t)K);
                for (int k = 0; k < K; k++)
                    bias[k] = (float)small_int(4);
                tens z;
                tens_init(&z, P.y.nb, P.y.dims, layout);
                tens_load(&P.x, lx, 0), tens_load(&P.w, lw, 0), tens_load(&z, lz, 0);
                tens_load(&P.y, lz, -7.0f);
                float *zp = mode & 2 ? P.y.mem : z.mem;
                cudnnTensorDescriptor_t bd;
                cudnnActivationDescriptor_t ad;
                cudnnCreateTensorDescriptor(&bd);
                cudnnCreateActivationDescriptor(&ad);
                int bdims[5] = {1, K, 1, 1, 1}, bstr[5] = {K, 1, 1, 1, 1};
                cudnnSetTensorNdDescriptor(bd, CUDNN_DATA_FLOAT, P.y.nb, bdims, bstr);
                cudnnSetActivationDescriptor(ad, mode & 1 ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                                             CUDNN_NOT_PROPAGATE_NAN, 0);
                size_t ws = 0;
                cudnnGetConvolutionForwardWorkspaceSize(h, P.xd, P.wd, P.cd, P.yd,
                                                        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &ws);
                void *mem = ws ? malloc(ws) : NULL;
                float a1 = 2, a2 = 0.5f;
                saw_fast = 0;
                cudnnStatus_t st = cudnnConvolutionBiasActivationForward(
                    h, &a1, P.xd, P.x.mem, P.wd, P.w.mem, P.cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, mem, ws,
                    &a2, P.yd, zp, bd, bias, ad, P.yd, P.y.mem);
                CHECK_MSG(st == CUDNN_STATUS_SUCCESS && saw_fast, "%s layout %d mode %d: status %d, dispatched %d",
                          fc[ci].name, layout, mode, (int)st, saw_fast);
                long bad = 0;
                for (long i = 0; i < ny; i++) {
                    long per_img = ny / fc[ci].N, per_ch = per_img / K;
                    int ch = (int)((i % per_img) / per_ch);
                    double want = a1 * ref[i] + a2 * lz[i] + bias[ch];
                    if ((mode & 1) && want < 0)
                        want = 0;
                    if (P.y.mem[tens_off(&P.y, i)] != (float)want)
                        bad++;
                }
                CHECK_MSG(bad == 0, "%s layout %d mode %d: %ld wrong", fc[ci].name, layout, mode, bad);
                free(mem), free(bias), free(lx), free(lw), free(lz), free(ref), free(z.mem);
                cudnnDestroyTensorDescriptor(bd);
                cudnnDestroyActivationDescriptor(ad);
                prob_free(&P);
            }
}

/* DOUBLE data: this solver refuses (logged), the next solver of the enum computes it. */
static void check_refusal(cudnnHandle_t h)
{
    SECTION("non-FLOAT data goes to the next solver");
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cd);
    cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 2, 4, 4);
    cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 3, 4, 4);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 3, 2, 3, 3);
    cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_DOUBLE);
    double x[32], w[54], y[48], alpha = 1, beta = 0;
    for (int i = 0; i < 32; i++)
        x[i] = i % 5 - 2;
    for (int i = 0; i < 54; i++)
        w[i] = i % 3 - 1;
    size_t ws = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                                     &ws));
    void *mem = malloc(ws + 1);
    saw_fast = 0;
    CHECK_OK(cudnnConvolutionForward(h, &alpha, xd, x, wd, w, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, mem,
                                     ws, &beta, yd, y));
    CHECK(!saw_fast);
    free(mem);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
}

/* The heuristic puts the blocked solvers' algorithms first for a FLOAT ResNet-like layer. */
static void check_heuristic(cudnnHandle_t h)
{
    SECTION("heuristic ranking");
    prob P;
    fcase c = {"rank", 2, 2, 32, 32, 1, {1, 14, 14}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}};
    prob_make(&P, &c, L_NCHW, 0);
    cudnnConvolutionFwdAlgoPerf_t fp[8];
    cudnnConvolutionBwdDataAlgoPerf_t dp[6];
    cudnnConvolutionBwdFilterAlgoPerf_t wp[7];
    int n = 0;
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, P.xd, P.wd, P.cd, P.yd, 8, &n, fp));
    /* 3x3, stride 1: Winograd F(4x4,3x3) (solver 109) is faster still, then the blocked GEMM */
    CHECK(n > 1 && fp[0].algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED &&
          fp[1].algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
    CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, P.wd, P.yd, P.cd, P.xd, 6, &n, dp));
    /* the phased blocked GEMM or Winograd F(4x4,3x3) (solver 207): their modelled costs are
     * close, so either may rank first depending on the ISA */
    CHECK(n > 0 && (dp[0].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 ||
                    dp[0].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED));
    CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, P.xd, P.yd, P.cd, P.wd, 7, &n, wp));
    CHECK(n > 0 && wp[0].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 && wp[0].determinism == CUDNN_DETERMINISTIC);
    prob_free(&P);
}

int main(void)
{
    check_isa();                                   /* first: fork before this process starts OpenMP threads */
    cudnnHandle_t h = conv_case_handle(2);
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    SECTION("against the float64 reference");
    for (int i = 0; i < NCASES; i++)
        for (int layout = 0; layout < L_COUNT; layout++)
            check_case(h, &cases[i], layout, (i + layout) & 1);
    SECTION("the dot plan");
    saw_dot = 0;
    for (int i = 0; i < (int)(sizeof dot_cases / sizeof *dot_cases); i++)
        for (int layout = 0; layout < L_COUNT; layout++)
            check_case(h, &dot_cases[i], layout, 0);
    CHECK_MSG(saw_dot > 0, "solver 151 never ran on the dot cases");
    /* from NCHW-like x its im2col rows would take 69 MB: the plan declines (64 MiB at most),
       and the solver's workspace stays within 64 MiB in every layout (a query, no run) */
    static const fcase big = {"dot declined", 2, 1, 30000, 2, 1, {1, 8, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}};
    for (int layout = 0; layout < L_COUNT; layout++) {
        prob P;
        prob_make(&P, &big, layout, 0);
        size_t ws = 0;
        CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, P.xd, P.wd, P.cd, P.yd, algo_of[D_FWD], &ws));
        CHECK_MSG(ws <= ((size_t)64 << 20), "%s layout %d: workspace %zu", big.name, layout, ws);
        prob_free(&P);
    }
    check_fused(h);
    check_refusal(h);
    check_heuristic(h);
    cudnnSetCallback(0, NULL, NULL);
    check_threads();
    cudnnDestroy(h);
    return hd_test_finish();
}
