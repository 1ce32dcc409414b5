/*
 * The fp32 backward-data solvers of src/conv/solvers/conv_bwdd_*.c (bwd_data.phased_fwd,
 * bwd_data.col2im, bwd_data.1x1 and bwd_data.batched_col2im, under CUDNN_CONVOLUTION_BWD_DATA_ALGO_1), through the public API,
 * against the float64 reference (tests/ref/conv_ref.c).
 *
 * A sweep of strides 1/2/3 x pads 0..3 x filters 1x1/3x3/5x5/7x7 for a few-channel problem
 * (col2im) and a many-channel one (phases), then named cases: dilation 2 with strides 1-3
 * (empty phases), groups, 3-d, C = 1 and 3, several dy-row chunks and dx bands, 1x1 GEMMs,
 * small images batched into one GEMM (one and two image blocks).  Every case
 * runs in NCHW, NHWC or padded strides, in both modes, with alpha/beta (1, 0) over NaN and
 * (2, 0.5); fills are small integers, so results are exact and compared with zero tolerance.
 * Then: the exact workspace is enough and one byte less is refused with dx untouched,
 * results are bitwise identical across thread counts (1, 2, 3, 5), the reference checks pass
 * under every HOSTDNN_MAX_ISA cap (child processes), and the heuristic ranks ALGO_1 first.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hostdnn.h"
#include "harness.h"
#include "ref/conv_ref.h"
#define CONV_CASE_SEED 4242
#include "conv_case.h"

typedef conv_case bcase;

static const bcase named[] = {
    {"dil 2 stride 1", 2, 2, 5, 4, 1, {1, 9, 9}, {1, 3, 3}, {0, 2, 1}, {1, 1, 1}, {1, 2, 2}},
    {"dil 2 stride 2 (empty phases)", 2, 2, 5, 4, 1, {1, 11, 10}, {1, 3, 3}, {0, 2, 1}, {1, 2, 2}, {1, 2, 2}},
    {"dil 2 stride 3", 2, 2, 5, 4, 1, {1, 13, 12}, {1, 3, 3}, {0, 1, 2}, {1, 3, 3}, {1, 2, 2}},
    {"dil 2 stride 2 col2im", 2, 2, 2, 9, 1, {1, 12, 11}, {1, 3, 3}, {0, 1, 2}, {1, 2, 2}, {1, 2, 2}},
    {"dil 2 stride 3 col2im", 2, 1, 3, 12, 1, {1, 14, 13}, {1, 5, 3}, {0, 2, 1}, {1, 3, 3}, {1, 2, 2}},
    {"groups 3 stride 2", 2, 2, 6, 9, 3, {1, 9, 8}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"groups 2 col2im", 2, 2, 4, 16, 2, {1, 9, 10}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"depthwise stride 2", 2, 2, 4, 4, 4, {1, 8, 7}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"C=1 col2im", 2, 2, 1, 5, 1, {1, 9, 8}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"C=1 phases", 2, 2, 1, 2, 1, {1, 9, 8}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"conv1-like C=3 7x7 s2 p3", 2, 2, 3, 16, 1, {1, 21, 20}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
    {"col2im chunks (1600 positions)", 2, 1, 3, 12, 1, {1, 80, 79}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
    {"col2im bands, N=1", 2, 1, 2, 8, 1, {1, 33, 9}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"phases: channels > 256", 2, 1, 300, 3, 1, {1, 5, 4}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"odd 2x3 stride 3x2 dil 1x2", 2, 3, 5, 2, 1, {1, 9, 7}, {1, 2, 3}, {0, 1, 0}, {1, 3, 2}, {1, 1, 2}},
    {"1x1 pad 2 (dy edges skipped)", 2, 2, 5, 6, 1, {1, 5, 6}, {1, 1, 1}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 GEMM", 2, 2, 8, 12, 1, {1, 6, 5}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 GEMM groups 2", 2, 3, 16, 16, 2, {1, 5, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 GEMM position blocks", 2, 1, 300, 3, 1, {1, 50, 40}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"3d 1x1x1 GEMM", 3, 2, 8, 16, 1, {3, 4, 5}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* the 1x1 solver on the micro-kernels: strided cells, swapped small images, k blocks,
       batch-1 splits, channels not multiples of the tiles, sub-blocks, the whole-batch GEMM */
    {"1x1 stride 2 odd sizes (cells)", 2, 2, 20, 24, 1, {1, 9, 7}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2}, {1, 1, 1}},
    {"1x1 stride 3x2 groups 2", 2, 2, 32, 48, 2, {1, 8, 9}, {1, 1, 1}, {0, 0, 0}, {1, 3, 2}, {1, 1, 1}},
    {"1x1 3d strides 2,3,3", 3, 1, 8, 16, 1, {5, 7, 8}, {1, 1, 1}, {0, 0, 0}, {2, 3, 3}, {1, 1, 1}},
    {"1x1 stride 2 sub-blocks", 2, 2, 24, 16, 1, {1, 40, 41}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2}, {1, 1, 1}},
    {"1x1 stride 2 rows of 70 (spread: 32 + 32 + 6)", 2, 2, 20, 24, 1, {1, 16, 70}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2},
     {1, 1, 1}},
    {"1x1 swapped small images, 2 k blocks", 2, 3, 40, 300, 1, {1, 5, 6}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 swapped N=1, channel blocks share the dy panel", 2, 1, 320, 600, 1, {1, 7, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
     {1, 1, 1}},
    {"1x1 swapped N=1 groups 2, one dy panel per group", 2, 1, 160, 600, 2, {1, 7, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
     {1, 1, 1}},
    {"1x1 N=1 channel split, C=300", 2, 1, 300, 20, 1, {1, 16, 16}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 3 k blocks, C=30", 2, 2, 30, 520, 1, {1, 10, 16}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 awkward 12x12 images", 2, 3, 17, 40, 1, {1, 12, 12}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 whole-batch GEMM (NHWC, K=512)", 2, 2, 16, 512, 1, {1, 5, 6}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* NHWC: dy rows read in place (2 k blocks, partial tiles), and rows 4 KiB apart (packed) */
    {"1x1 dy in place, 2 k blocks", 2, 2, 24, 300, 1, {1, 17, 17}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 dy rows aliasing, K=1024", 2, 1, 16, 1024, 1, {1, 16, 17}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 NCHW dy rows in place", 2, 2, 20, 24, 1, {1, 16, 16}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    /* stride 2 into small images, N=1, several k blocks: swapped with one position block (W
       packed per k block, the next one prefetched; the buffer transposed for channel planes;
       NHWC dy rows 4 KiB apart packed once for all k blocks) */
    {"1x1 stride 2 swapped N=1, 2 k blocks", 2, 1, 64, 300, 1, {1, 14, 14}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2},
     {1, 1, 1}},
    {"1x1 stride 2 swapped N=1, K=1024", 2, 1, 64, 1024, 1, {1, 13, 14}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2},
     {1, 1, 1}},
    /* N=1 14x14, 2 position x 4 channel blocks: tasks channel blocks first, sharing the dy panel */
    {"1x1 swapped N=1, channel blocks first", 2, 1, 256, 600, 1, {1, 14, 14}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
     {1, 1, 1}},
    /* N=1 12x12 (144 positions, 4.5 panels of 32), more dx channels than dy channels: swapped */
    {"1x1 swapped N=1 awkward image, C > K", 2, 1, 256, 40, 1, {1, 12, 12}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
     {1, 1, 1}},
    /* N=1 small image, five one-panel channel blocks: one position block (not cut finer) */
    {"1x1 swapped N=1, 5 channel blocks of one panel", 2, 1, 160, 300, 1, {1, 7, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
     {1, 1, 1}},
    {"1x1 NCHW dy rows in place, 150-row k block", 2, 2, 20, 150, 1, {1, 16, 16}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
     {1, 1, 1}},
    {"batched small images", 2, 3, 64, 64, 1, {1, 6, 5}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"batched 2 image blocks, stride 2", 2, 10, 64, 64, 1, {1, 7, 6}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"batched N=1, channel chunks of 38 and 37", 2, 1, 75, 64, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"batched groups 2, 5x5 pad 1", 2, 2, 64, 128, 2, {1, 6, 7}, {1, 5, 5}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"kernel > input", 2, 1, 5, 3, 1, {1, 2, 3}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3d 3x3x3", 3, 1, 3, 4, 1, {4, 5, 6}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3d stride dil groups", 3, 2, 4, 2, 2, {5, 4, 6}, {2, 3, 2}, {1, 0, 1}, {2, 1, 2}, {1, 1, 2}},
    {"3d stride 2 C=3", 3, 2, 3, 16, 1, {5, 6, 7}, {3, 3, 3}, {1, 1, 1}, {2, 2, 2}, {1, 1, 1}},
};
#define NNAMED ((int)(sizeof named / sizeof *named))

/* ---- a strided FLOAT tensor ---- */


/* ---- the dispatch log: which of the new solvers ran ---- */

static int saw_phase, saw_col2im, saw_1x1, saw_batched, saw_other;
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud, (void)msg;
    int id;
    if (!hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL))
        return;
    if (id == 251)          /* bwd_data.phased_fwd_blocked_gemm_f32 */
        saw_phase++;
    else if (id == 253)     /* bwd_data.1x1_blocked_gemm_f32 */
        saw_1x1++;
    else if (id == 254)     /* bwd_data.batched_col2im_blocked_gemm_f32 */
        saw_batched++;
    else if (id == 252)     /* bwd_data.col2im_blocked_gemm_f32 */
        saw_col2im++;
    else
        saw_other++;
}

static long count_phase, count_col2im, count_1x1, count_batched;

/* ---- correctness against the reference ---- */

static void check_case(cudnnHandle_t h, const bcase *c, int layout, int flip)
{
    prob P;
    prob_make(&P, c, layout, flip);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    double *lw = malloc(sizeof(double) * (size_t)nw), *ly = malloc(sizeof(double) * (size_t)ny);
    double *ref = malloc(sizeof(double) * (size_t)nx), *prev = malloc(sizeof(double) * (size_t)nx);
    for (long i = 0; i < nw; i++)
        lw[i] = small_int(2);
    for (long i = 0; i < ny; i++)
        ly[i] = small_int(2);
    conv_ref_bwd_data(&P.rs, ly, lw, ref);
    static const float ab[2][2] = {{1, 0}, {2, 0.5f}};
    tens_load(&P.w, lw, 0), tens_load(&P.y, ly, 0);
    for (int k = 0; k < 2; k++) {
        float alpha = ab[k][0], beta = ab[k][1];
        for (long i = 0; i < nx; i++)
            prev[i] = (double)small_int(3);
        tens_load(&P.x, prev, beta == 0 ? NAN : -7.0f);   /* padding elements must survive */
        saw_phase = saw_col2im = saw_1x1 = saw_batched = saw_other = 0;
        cudnnStatus_t st = conv_case_run(h, &P, D_BWDD, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, alpha, beta, 0, NULL);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s layout %d: status %d", c->name, layout, (int)st);
        CHECK_MSG(saw_phase + saw_col2im + saw_1x1 + saw_batched == 1 && saw_other == 0, "%s layout %d: new solvers not dispatched", c->name,
                  layout);
        count_phase += saw_phase, count_col2im += saw_col2im, count_1x1 += saw_1x1, count_batched += saw_batched;
        long bad = 0;
        for (long i = 0; i < nx; i++) {
            double want = alpha * ref[i] + (beta == 0 ? 0 : beta * prev[i]);
            if (P.x.mem[tens_off(&P.x, i)] != (float)want)
                bad++;
        }
        long gaps = 0;
        if (layout == L_PADDED) {
            char *mark = calloc((size_t)P.x.span, 1);
            for (long i = 0; i < nx; i++)
                mark[tens_off(&P.x, i)] = 1;
            for (long i = 0; i < P.x.span; i++)
                if (!mark[i] && !(beta == 0 ? isnan(P.x.mem[i]) : P.x.mem[i] == -7.0f))
                    gaps++;
            free(mark);
        }
        CHECK_MSG(bad == 0 && gaps == 0, "%s layout %d flip %d alpha %g beta %g: %ld wrong, %ld gaps", c->name, layout,
                  flip, alpha, beta, bad, gaps);
    }
    /* one byte less workspace: BAD_PARAM, dx untouched */
    size_t ws = 0;
    float *keep = malloc(sizeof(float) * (size_t)P.x.span);
    for (long i = 0; i < P.x.span; i++)
        P.x.mem[i] = keep[i] = (float)(i % 13);
    cudnnStatus_t st = conv_case_run(h, &P, D_BWDD, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1, 0, 1, &ws);
    if (ws > 0) {
        CHECK_MSG(st == CUDNN_STATUS_BAD_PARAM, "%s: one byte less workspace gave status %d", c->name, (int)st);
        CHECK_MSG(!memcmp(keep, P.x.mem, sizeof(float) * (size_t)P.x.span), "%s: dx changed on refusal", c->name);
    }
    free(keep);
    free(lw), free(ly), free(ref), free(prev);
    prob_free(&P);
}

/* Every stride 1..3 x pad 0..3 x filter 1/3/5/7, for a few-channel problem (col2im) and a
 * many-channel one (phases); layouts and modes rotate. */
static void check_sweep(cudnnHandle_t h)
{
    static const int flts[4] = {1, 3, 5, 7};
    int i = 0;
    for (int kind = 0; kind < 2; kind++)
        for (int str = 1; str <= 3; str++)
            for (int pad = 0; pad <= 3; pad++)
                for (int f = 0; f < 4; f++, i++) {
                    bcase c = {"sweep", 2, 2, kind ? 5 : 2, kind ? 4 : 9, 1, {1, 9 + str, 8 + pad}, {1, flts[f], flts[f]},
                               {0, pad, pad}, {1, str, str}, {1, 1, 1}};
                    if (c.in[1] + 2 * pad < flts[f] || c.in[2] + 2 * pad < flts[f])
                        continue;
                    char name[64];
                    snprintf(name, sizeof name, "sweep %s s%d p%d f%d", kind ? "phases" : "col2im", str, pad, flts[f]);
                    c.name = name;
                    check_case(h, &c, i % L_COUNT, (i / L_COUNT) & 1);
                }
}

static void check_all(cudnnHandle_t h)
{
    check_sweep(h);
    for (int i = 0; i < NNAMED; i++)
        for (int layout = 0; layout < L_COUNT; layout++)
            check_case(h, &named[i], layout, (i + layout) & 1);
}

/* ---- determinism: random data, several shapes, both solvers ---- */

static const bcase det_cases[] = {
    {"det col2im", 2, 3, 3, 16, 1, {1, 30, 29}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
    {"det col2im bands", 2, 1, 3, 24, 1, {1, 40, 21}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"det phases s2", 2, 2, 20, 24, 1, {1, 13, 11}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"det 1x1", 2, 2, 40, 24, 1, {1, 17, 13}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det 1x1 stride 2", 2, 2, 40, 24, 1, {1, 17, 13}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2}, {1, 1, 1}},
    {"det 1x1 stride 2, 2 k blocks kept in the slot", 2, 3, 40, 300, 1, {1, 34, 26}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2},
     {1, 1, 1}},
    {"det 1x1 swapped, k blocks", 2, 3, 40, 300, 1, {1, 7, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det 1x1 N=1 split", 2, 1, 300, 40, 1, {1, 16, 16}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det 1x1 NCHW dy in place, 150-row k block", 2, 1, 20, 150, 1, {1, 32, 32}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
     {1, 1, 1}},
    {"det 1x1 swapped N=1, shared dy panel", 2, 1, 320, 600, 1, {1, 7, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"det 1x1 k blocks of a 256-channel W^T kept", 2, 1, 256, 1024, 1, {1, 20, 20}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
     {1, 1, 1}},
    {"det 1x1 stride 2 swapped N=1, K=1024", 2, 1, 64, 1024, 1, {1, 14, 14}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2},
     {1, 1, 1}},
    {"det 1x1 swapped N=1, 5 channel blocks of one panel", 2, 1, 160, 300, 1, {1, 7, 7}, {1, 1, 1}, {0, 0, 0},
     {1, 1, 1}, {1, 1, 1}},
    {"det 1x1 swapped N=1, channel blocks first", 2, 1, 256, 600, 1, {1, 14, 14}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
     {1, 1, 1}},
    {"det 1x1 swapped N=1 awkward image, C > K", 2, 1, 256, 40, 1, {1, 12, 12}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1},
     {1, 1, 1}},
    {"det batched", 2, 9, 64, 70, 1, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"det phases s1", 2, 3, 40, 70, 1, {1, 13, 11}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
};
#define NDET ((int)(sizeof det_cases / sizeof *det_cases))

static long det_run(cudnnHandle_t h, int layout, float *out)
{
    long n = 0;
    unsigned save = rng;
    rng = 99;
    for (int d = 0; d < NDET; d++) {
        prob P;
        prob_make(&P, &det_cases[d], layout, d & 1);
        for (long i = 0; i < P.x.span; i++)
            P.x.mem[i] = rnd_float();
        for (long i = 0; i < P.w.span; i++)
            P.w.mem[i] = rnd_float();
        for (long i = 0; i < P.y.span; i++)
            P.y.mem[i] = rnd_float();
        if (h)
            conv_case_run(h, &P, D_BWDD, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1, 0.25f, 0, NULL);
        if (out)
            memcpy(out + n, P.x.mem, sizeof(float) * (size_t)P.x.span);
        n += P.x.span;
        prob_free(&P);
    }
    rng = save;
    return n;
}


static void check_threads(void)
{
    SECTION("bitwise identical across thread counts");
    for (int layout = 0; layout < L_COUNT; layout++) {
        char what[32];
        snprintf(what, sizeof what, "layout %d", layout);
        conv_case_check_threads(det_run, layout, what);
    }
}

/* Each ISA cap in a fresh child (the cap is read once per process). */
static void isa_child(cudnnHandle_t h, int cap, float *out)
{
    (void)out;
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    for (int c = cap; c < NNAMED; c += 2)       /* half the cases per cap (kept fast under ASan) */
        check_case(h, &named[c], c % L_COUNT, (c / 2) & 1);
    cudnnSetCallback(0, NULL, NULL);
}

static void check_isa(void) { conv_case_check_isa(0, isa_child); }

/* The heuristic ranks ALGO_1 first for FLOAT problems these solvers take.  A 3x3 stride-1
 * problem may instead rank Winograd F(4x4,3x3) (WINOGRAD_NONFUSED) first: with AVX2 kernels
 * only, Find measures it ahead of ALGO_1 for this shape, and the cost model follows. */
static void check_heuristic(cudnnHandle_t h)
{
    SECTION("heuristic ranking");
    static const bcase hc[] = {
        {"conv1-like", 2, 2, 3, 64, 1, {1, 32, 32}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
        {"3x3 stride 2", 2, 2, 32, 32, 1, {1, 14, 14}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
        {"3x3 stride 1", 2, 2, 32, 32, 1, {1, 14, 14}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    };
    for (int i = 0; i < 3; i++) {
        prob P;
        prob_make(&P, &hc[i], i == 1 ? L_NHWC : L_NCHW, 0);
        cudnnConvolutionBwdDataAlgoPerf_t dp[6];
        int n = 0;
        CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, P.wd, P.yd, P.cd, P.xd, 6, &n, dp));
        int ok_algo = n > 0 && (dp[0].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 ||
                                (i == 2 && dp[0].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED));
        CHECK_MSG(ok_algo && dp[0].determinism == CUDNN_DETERMINISTIC,
                  "%s: heuristic first choice %d", hc[i].name, n > 0 ? (int)dp[0].algo : -1);
        prob_free(&P);
    }
}

int main(void)
{
    check_isa();                                   /* first: fork before this process starts threads */
    cudnnHandle_t h = conv_case_handle(2);
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    SECTION("against the float64 reference");
    check_all(h);
    CHECK_MSG(count_phase > 100 && count_col2im > 100 && count_1x1 >= 48 && count_batched >= 18,
              "solvers seen: phases %ld, col2im %ld, 1x1 %ld, batched %ld", count_phase, count_col2im, count_1x1,
              count_batched);
    check_heuristic(h);
    cudnnSetCallback(0, NULL, NULL);
    check_threads();
    cudnnDestroy(h);
    return hd_test_finish();
}
