/*
 * The Winograd F(4x4, 3x3) fp32 solvers (src/conv/solvers/conv_wino4_f32.c) through the
 * public API: forward (id 109, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED) and backward data
 * (id 207, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED), against the float64 reference
 * (tests/ref/conv_ref.c).
 *
 * Data are random in [-1, 1), so the results round; every output element must lie within
 * its own first-order error bound (docs/algorithms.md, Winograd F(4x4, 3x3), "Accuracy"):
 *     |y - y_ref| <= (Cg + 18) u (|alpha| S + |beta y_old|),   u = 2^-24,
 * where S is the Winograd sum evaluated in double with every matrix, filter and input
 * replaced by its absolute value, S = |A^T| (sum_c |G||g_c||G^T| .* |B^T||d_c||B|) |A|.
 * The test computes S itself, tile by tile.  It also prints the measured accuracy (largest
 * error relative to the largest |y_ref|, and relative to the bound).  Backward data is the
 * forward convolution of dy with the filter rotated by 180 degrees and its k / c roles
 * exchanged, padded by 2 - pad: its bound is S of that convolution, with Kg for Cg.
 *
 * Covered: images of 1..13 rows and columns, pads 0/1/2, K and C remainders against the
 * GEMM tiles (MR 14, 6, 4), N = 1 and 3, groups, NCHW / NHWC / padded strides, both modes,
 * alpha/beta with beta = 0 over NaN, several tile blocks and K ranges, C = 512; the dispatch
 * log; the exact workspace (one byte less is refused, y untouched) and its cap; bitwise
 * identical results for 1, 2, 3 and 5 threads; every HOSTDNN_MAX_ISA cap in a child process;
 * the fused bias/activation call; refusals (DOUBLE data and 5x5 filters, which solvers 106
 * and 110 take instead, stride 2, backward data with pad 3) and the heuristic.  Backward data runs the same cases, layouts, alpha/beta, threads
 * and ISA caps.
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
#define CONV_CASE_SEED 2024
#include "wino_tens.h"
#include "wino4_bound.h"

#define ALGO CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED
#define ALGO_BWDD CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED

static const wcase cases[] = {
    {"1x1 image pad 1", 1, 3, 5, 1, 1, 1, 1, 1},
    {"2x3 pad 1", 2, 2, 3, 1, 2, 3, 1, 1},
    {"3x5 pad 0", 1, 4, 4, 1, 3, 5, 0, 0},
    {"4x2 pad 2", 1, 3, 6, 1, 4, 2, 2, 2},
    {"5x7 pad 1/2", 3, 5, 7, 1, 5, 7, 1, 2},
    {"6x4 pad 0", 1, 6, 2, 1, 6, 4, 0, 0},
    {"7x7 pad 1", 1, 8, 15, 1, 7, 7, 1, 1},
    {"8x9 pad 2/0", 3, 3, 29, 1, 8, 9, 2, 0},
    {"9x11 pad 1, K 33", 1, 7, 33, 1, 9, 11, 1, 1},
    {"11x10 pad 0", 2, 17, 9, 1, 11, 10, 0, 0},
    {"12x12 pad 2", 1, 1, 1, 1, 12, 12, 2, 2},
    {"13x13 pad 1", 1, 5, 14, 1, 13, 13, 1, 1},
    {"13x12 pad 0/1", 3, 2, 13, 1, 13, 12, 0, 1},
    {"groups 2", 3, 6, 10, 2, 9, 8, 1, 1},
    {"groups 4 (depthwise-like)", 1, 4, 8, 4, 10, 7, 1, 1},
    {"C 70 K 70", 1, 70, 70, 1, 6, 9, 1, 1},
    {"tile blocks", 2, 4, 6, 1, 40, 36, 1, 1},
    {"K ranges", 1, 5, 130, 1, 6, 6, 1, 1},
    {"tile blocks x K ranges (K-range-major tasks)", 1, 4, 130, 1, 48, 48, 1, 1},
    {"C 512", 1, 512, 8, 1, 10, 10, 1, 1},
    {"K 512", 1, 8, 512, 1, 9, 7, 1, 1},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))

static double rnd(void)   /* a float in [-1, 1) */
{
    rng = rng * 1103515245u + 12345u;
    return (double)(float)((double)((rng >> 8) & 0xffff) / 32768.0 - 1.0);
}

static size_t ws_query_dir(cudnnHandle_t h, prob *P, int dir, cudnnStatus_t *st)
{
    size_t ws = 0;
    if (dir == D_FWD)
        *st = cudnnGetConvolutionForwardWorkspaceSize(h, P->xd, P->wd, P->cd, P->yd, ALGO, &ws);
    else
        *st = cudnnGetConvolutionBackwardDataWorkspaceSize(h, P->wd, P->yd, P->cd, P->xd, ALGO_BWDD, &ws);
    return ws;
}

static size_t ws_query(cudnnHandle_t h, prob *P, cudnnStatus_t *st) { return ws_query_dir(h, P, D_FWD, st); }

/* Forward (y from x) or backward data (x = dx from y = dy) with the queried workspace, less
 * LESS bytes. */
static cudnnStatus_t run_dir(cudnnHandle_t h, prob *P, int dir, float alpha, float beta, size_t less)
{
    cudnnStatus_t st;
    size_t ws = ws_query_dir(h, P, dir, &st);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    size_t give = ws >= less ? ws - less : 0;
    void *mem = give ? malloc(give) : NULL;
    if (dir == D_FWD)
        st = cudnnConvolutionForward(h, &alpha, P->xd, P->x.mem, P->wd, P->w.mem, P->cd, ALGO, mem, give, &beta, P->yd,
                                     P->y.mem);
    else
        st = cudnnConvolutionBackwardData(h, &alpha, P->wd, P->w.mem, P->yd, P->y.mem, P->cd, ALGO_BWDD, mem, give,
                                          &beta, P->xd, P->x.mem);
    free(mem);
    return st;
}

/* ---- the error bound S (see the header): wino4_bound.h ---- */

/* ---- the dispatch log ---- */

static int saw_w4, saw_other, saw_cl;
static char last_plan[512];       /* the Winograd engine's last plan line */
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud;
    if (msg && strstr(msg, "plan: channel lanes"))
        saw_cl = 1;
    if (msg && strstr(msg, "plan: "))
        snprintf(last_plan, sizeof last_plan, "%s", strstr(msg, "plan: "));
    int id;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL)) {
        if (id == 109 || id == 207)   /* fwd / bwd_data .winograd_f4x3_f32 */
            saw_w4 = 1;
        else
            saw_other = 1;
    }
}

/* Whether the AVX-512 kernels run here (the CPU and HOSTDNN_MAX_ISA allow them). */
static int isa_avx512(void)
{
    const char *cap = getenv("HOSTDNN_MAX_ISA");
    if (cap && (!strcmp(cap, "scalar") || !strcmp(cap, "avx2")))
        return 0;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}

/* ---- accuracy statistics (printed at the end) ---- */

static double worst_rel = 0, worst_bound = 0, worst_rel_c512 = 0;

/* Direction DIR of case C: forward y = conv(x, w), or backward data dx (in P.x) from dy (in
 * P.y). */
static void check_case_dir(cudnnHandle_t h, const wcase *c, int layout, int flip, int dir)
{
    prob P;
    wprob_make(&P, c, layout, flip, 1);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    long nin = dir == D_FWD ? nx : ny, nout = dir == D_FWD ? ny : nx;
    tens *tin = dir == D_FWD ? &P.x : &P.y, *tout = dir == D_FWD ? &P.y : &P.x;
    double *lx = malloc(sizeof(double) * (size_t)nin), *lw = malloc(sizeof(double) * (size_t)nw);
    double *ref = malloc(sizeof(double) * (size_t)nout), *S = malloc(sizeof(double) * (size_t)nout);
    double *prev = malloc(sizeof(double) * (size_t)nout);
    for (long i = 0; i < nin; i++)
        lx[i] = rnd();
    for (long i = 0; i < nw; i++)
        lw[i] = rnd();
    if (dir == D_FWD) {
        conv_ref_fwd(&P.rs, lx, lw, ref);
        abs_bound(&P.rs, lx, lw, S);
    } else {
        conv_ref_bwd_data(&P.rs, lx, lw, ref);
        abs_bound_bwdd(&P.rs, lx, lw, S);
    }
    double refmax = 0;
    for (long i = 0; i < nout; i++)
        refmax = fabs(ref[i]) > refmax ? fabs(ref[i]) : refmax;
    int red = dir == D_FWD ? c->C / c->G : c->K / c->G;   /* channels summed per output */
    double u = 0x1p-24, gam = (double)(red + 18) * u;
    static const float ab[3][2] = {{1, 0}, {2, 0.5f}, {-1.5f, 1}};
    tens_load(tin, lx, 0), tens_load(&P.w, lw, 0);
    const char *dn = dir == D_FWD ? "fwd" : "bwd data";
    for (int k = 0; k < 3; k++) {
        float alpha = ab[k][0], beta = ab[k][1];
        for (long i = 0; i < nout; i++)
            prev[i] = rnd();
        tens_load(tout, prev, beta == 0 ? NAN : -7.0f);   /* padding elements must survive */
        saw_w4 = saw_cl = 0;
        cudnnStatus_t st = run_dir(h, &P, dir, alpha, beta, 0);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s %s layout %d: status %d", dn, c->name, layout, (int)st);
        CHECK_MSG(saw_w4, "%s %s layout %d: the F(4x4,3x3) solver not dispatched", dn, c->name, layout);
        /* AVX-512 with contiguous channels (NHWC), 8 or more per group on both sides: the
         * channel-lane form (tile lanes otherwise) */
        int want_cl = layout == L_NHWC && c->C / c->G >= 8 && c->K / c->G >= 8 && isa_avx512();
        CHECK_MSG(saw_cl == want_cl, "%s %s layout %d: channel lanes %d, expected %d", dn, c->name, layout, saw_cl,
                  want_cl);
        long bad = 0, first = -1, gaps = 0;
        for (long i = 0; i < nout; i++) {
            double want = alpha * ref[i] + (beta == 0 ? 0 : beta * prev[i]);
            double got = tout->mem[tens_off(tout, i)];
            double err = fabs(got - want), tol = gam * (fabs(alpha) * S[i] + fabs(beta * prev[i]));
            if (!(err <= tol)) {
                if (first < 0)
                    first = i;
                bad++;
            }
            if (alpha == 1 && beta == 0) {
                if (refmax > 0 && err / refmax > worst_rel)
                    worst_rel = err / refmax;
                if ((c->C == 512 || c->K == 512) && refmax > 0 && err / refmax > worst_rel_c512)
                    worst_rel_c512 = err / refmax;
                if (S[i] > 0 && err / (gam * S[i]) > worst_bound)
                    worst_bound = err / (gam * S[i]);
            }
        }
        if (layout == L_PADDED) {                  /* elements outside the tensor untouched */
            char *mark = calloc((size_t)tout->span, 1);
            for (long i = 0; i < nout; i++)
                mark[tens_off(tout, i)] = 1;
            for (long i = 0; i < tout->span; i++)
                if (!mark[i] && !(beta == 0 ? isnan(tout->mem[i]) : tout->mem[i] == -7.0f))
                    gaps++;
            free(mark);
        }
        CHECK_MSG(bad == 0 && gaps == 0,
                  "%s %s layout %d flip %d alpha %g beta %g: %ld beyond the bound (first %ld), %ld gaps", dn, c->name,
                  layout, flip, alpha, beta, bad, first, gaps);
    }
    /* one byte less workspace: BAD_PARAM, the output untouched */
    cudnnStatus_t st;
    size_t ws = ws_query_dir(h, &P, dir, &st);
    CHECK(st == CUDNN_STATUS_SUCCESS && ws > 0);
    float *saved = malloc(sizeof(float) * (size_t)tout->span);
    memcpy(saved, tout->mem, sizeof(float) * (size_t)tout->span);
    CHECK_STATUS(run_dir(h, &P, dir, 1, 0, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK(!memcmp(saved, tout->mem, sizeof(float) * (size_t)tout->span));
    free(saved);
    free(lx), free(lw), free(ref), free(S), free(prev);
    prob_free(&P);
}

static void check_case(cudnnHandle_t h, const wcase *c, int layout, int flip)
{
    check_case_dir(h, c, layout, flip, D_FWD);
    check_case_dir(h, c, layout, flip, D_BWDD);
}

/* One tile block split over K ranges whose transformed input V (96 tiles x 304 channels,
 * 4.2-4.3 MB) is too large for L2.  Tile lanes (NCHW): the engine takes more filter panels per
 * sub-block than its L2 budget for them allows (here 2: sub-blocks of 1, 2 and 2 panels in
 * each of the two K ranges), so that V is streamed fewer times.  Channel lanes (NHWC): the filter panels
 * are transformed for all channels at once instead of in chunks of 48.  Forward, against the
 * reference. */
static void check_streamed_v(cudnnHandle_t h)
{
    SECTION("V larger than L2: larger K sub-blocks, whole-channel filter chunks");
    const wcase c = {"streamed V", 24, 304, 136, 1, 5, 5, 1, 1};
    last_plan[0] = 0;
    check_case_dir(h, &c, L_NCHW, 0, D_FWD);
    if (isa_avx512())   /* the panel width (14 filters) is the AVX-512 GEMM kernel's */
        CHECK_MSG(strstr(last_plan, "2 K ranges, 2 panels of 14 filters per sub-block") != NULL, "plan: %s",
                  last_plan);
    last_plan[0] = 0;
    check_case_dir(h, &c, L_NHWC, 1, D_FWD);
    if (isa_avx512())   /* channel lanes exist on AVX-512 only */
        CHECK_MSG(strstr(last_plan, "channel lanes") && strstr(last_plan, "(in chunks of 304 channels)"), "plan: %s",
                  last_plan);
}

/* ---- determinism across thread counts ---- */

/* one tile block split over K (shared input transform, filters transformed per task) and many
 * blocks (filters transformed once per call) */
static const wcase det_cases[2] = {{"det", 3, 40, 140, 1, 13, 11, 1, 1}, {"det blocks", 2, 16, 20, 1, 40, 36, 1, 1}};
/* the same for backward data: its output channels are C */
static const wcase det_cases_bwdd[2] = {{"det", 3, 140, 40, 1, 13, 11, 1, 1},
                                        {"det blocks", 2, 20, 16, 1, 40, 36, 1, 1}};

/* Case layout / 2 in layout layout % 2, direction DIR; the output goes to OUT. */
static long det_run(cudnnHandle_t h, int layout, int dir, float *out)
{
    prob P;
    wprob_make(&P, dir == D_FWD ? &det_cases[layout / 2] : &det_cases_bwdd[layout / 2], layout % 2, 0, 1);
    unsigned save = rng;
    rng = 99;
    for (long i = 0; i < P.x.span; i++)
        P.x.mem[i] = (float)rnd();
    for (long i = 0; i < P.w.span; i++)
        P.w.mem[i] = (float)rnd();
    for (long i = 0; i < P.y.span; i++)
        P.y.mem[i] = (float)rnd();
    if (h)
        run_dir(h, &P, dir, 1, 0.25f, 0);
    tens *t = dir == D_FWD ? &P.y : &P.x;
    if (out)
        memcpy(out, t->mem, sizeof(float) * (size_t)t->span);
    long n = t->span;
    rng = save;
    prob_free(&P);
    return n;
}

static void check_threads(void)
{
    SECTION("bitwise identical across thread counts");
    for (int dir = D_FWD; dir <= D_BWDD; dir++)
        for (int layout = 0; layout < 4; layout++) {   /* (case, layout) = (layout / 2, layout % 2) */
            long n = det_run(NULL, layout, dir, NULL);
            float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n);
            cudnnHandle_t h1 = conv_case_handle(1);
            det_run(h1, layout, dir, a);
            cudnnDestroy(h1);
            static const int counts[] = {2, 3, 5};
            for (int i = 0; i < 3; i++) {
                cudnnHandle_t h = conv_case_handle(counts[i]);
                det_run(h, layout, dir, b);
                cudnnDestroy(h);
                CHECK_MSG(!memcmp(a, b, sizeof(float) * (size_t)n), "dir %d layout %d: %d threads differ from 1", dir,
                          layout, counts[i]);
            }
            free(a), free(b);
        }
}

/* ---- every ISA cap, each in a fresh child (the cap is read once per process) ---- */

static void check_isa(void)
{
    SECTION("every HOSTDNN_MAX_ISA cap");
    const char *caps[3] = {"scalar", "avx2", "avx512"};
    double *shared = mmap(NULL, 3 * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        CHECK(0);
        return;
    }
    for (int i = 0; i < 3; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("HOSTDNN_MAX_ISA", caps[i], 1);
            cudnnHandle_t h = conv_case_handle(2);
            cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
            for (int c = 0; c < NCASES; c++)
                check_case(h, &cases[c], (c + i) % L_COUNT, (c + i) & 1);
            cudnnSetCallback(0, NULL, NULL);
            cudnnDestroy(h);
            shared[i] = worst_bound;
            _exit(hd_t_failed ? 1 : 0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "checks failed under HOSTDNN_MAX_ISA=%s", caps[i]);
    }
    printf("largest error / bound: scalar %.3f, avx2 %.3f, avx512 %.3f\n", shared[0], shared[1], shared[2]);
    munmap(shared, 3 * sizeof(double));
}

/* ---- the fused call: y = relu(alpha1 * conv + alpha2 * z + bias) ---- */

static void check_fused(cudnnHandle_t h, int layout)
{
    SECTION(layout == L_NCHW ? "ConvolutionBiasActivationForward NCHW" : "ConvolutionBiasActivationForward NHWC");
    const wcase c = {"fused", 2, 10, 20, 1, 9, 10, 1, 1};
    enum { K = 20 };
    prob P;
    wprob_make(&P, &c, layout, 1, 1);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
    double *ref = malloc(sizeof(double) * (size_t)ny), *S = malloc(sizeof(double) * (size_t)ny);
    double *lz = malloc(sizeof(double) * (size_t)ny);
    float bias[K];
    for (long i = 0; i < nx; i++)
        lx[i] = rnd();
    for (long i = 0; i < nw; i++)
        lw[i] = rnd();
    for (long i = 0; i < ny; i++)
        lz[i] = rnd();
    for (int k = 0; k < K; k++)
        bias[k] = (float)rnd();
    tens z;
    tens_init(&z, 4, P.y.dims, layout);
    tens_load(&z, lz, 0);
    tens_load(&P.x, lx, 0), tens_load(&P.w, lw, 0);
    conv_ref_fwd(&P.rs, lx, lw, ref);
    abs_bound(&P.rs, lx, lw, S);
    cudnnTensorDescriptor_t bd;
    cudnnActivationDescriptor_t ad;
    cudnnCreateTensorDescriptor(&bd);
    cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, K, 1, 1);
    cudnnCreateActivationDescriptor(&ad);
    cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0);
    cudnnStatus_t st;
    size_t ws = ws_query(h, &P, &st);
    void *mem = malloc(ws);
    float a1 = 1.5f, a2 = 0.5f;
    saw_w4 = saw_cl = 0;
    CHECK_OK(cudnnConvolutionBiasActivationForward(h, &a1, P.xd, P.x.mem, P.wd, P.w.mem, P.cd, ALGO, mem, ws, &a2, P.yd,
                                                   z.mem, bd, bias, ad, P.yd, P.y.mem));
    CHECK(saw_w4);
    CHECK(saw_cl == (layout == L_NHWC && isa_avx512()));
    long bad = 0;
    for (long i = 0; i < ny; i++) {
        long k = (i / (P.rs.out[1] * P.rs.out[2])) % K;
        double want = a1 * ref[i] + a2 * lz[i] + bias[k];
        want = want > 0 ? want : 0;
        double tol = (double)(10 + 18) * 0x1p-24 * (a1 * S[i] + fabs(a2 * lz[i]) + fabs(bias[k]));
        if (!(fabs(P.y.mem[tens_off(&P.y, i)] - want) <= tol))
            bad++;
    }
    CHECK_MSG(bad == 0, "%ld fused results beyond the bound", bad);
    free(mem), free(lx), free(lw), free(ref), free(S), free(lz), free(z.mem);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyActivationDescriptor(ad);
    prob_free(&P);
}

/* ---- refusals, workspace cap, heuristic ---- */

static void check_refusals(cudnnHandle_t h)
{
    SECTION("refusals");
    /* stride 2: neither Winograd solver applies */
    const wcase c = {"s2", 1, 3, 4, 1, 9, 9, 1, 1};
    prob P;
    wprob_make(&P, &c, L_NCHW, 0, 2);
    cudnnStatus_t st;
    ws_query(h, &P, &st);
    CHECK_STATUS(st, CUDNN_STATUS_NOT_SUPPORTED);
    prob_free(&P);
    /* backward data with padding 3: neither backward-data Winograd solver applies */
    const wcase c3 = {"pad 3", 1, 3, 4, 1, 9, 9, 3, 3};
    wprob_make(&P, &c3, L_NCHW, 0, 1);
    ws_query_dir(h, &P, D_BWDD, &st);
    CHECK_STATUS(st, CUDNN_STATUS_NOT_SUPPORTED);
    ws_query_dir(h, &P, D_FWD, &st);
    CHECK_STATUS(st, CUDNN_STATUS_SUCCESS);
    prob_free(&P);
    /* DOUBLE data: solver 109 refuses, F(2x2,3x3) (106) computes it */
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
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, ALGO, &ws));
    void *mem = malloc(ws + 1);
    saw_w4 = saw_other = 0;
    CHECK_OK(cudnnConvolutionForward(h, &alpha, xd, x, wd, w, cd, ALGO, mem, ws, &beta, yd, y));
    CHECK(!saw_w4 && saw_other);
    /* 5x5 FLOAT: solver 109 refuses, the 3x3-piece form of the same engine (112) computes it */
    cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 8, 8);
    cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 6, 6);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, 2, 5, 5);
    cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    free(mem);
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, ALGO, &ws));
    mem = malloc(ws + 1);
    float x5[128] = {0}, w5[150] = {0}, y5[108], falpha = 1, fbeta = 0;
    saw_w4 = saw_other = 0;
    CHECK_OK(cudnnConvolutionForward(h, &falpha, xd, x5, wd, w5, cd, ALGO, mem, ws, &fbeta, yd, y5));
    CHECK(!saw_w4 && saw_other);
    free(mem);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
}

/* Workspace <= max(x, 64 MiB) on the ResNet-50 / VGG-16 3x3 layers at batch 16 and a
 * large-channel layer; the heuristic ranks Winograd first on the large-image ResNet layer. */
static void check_workspace_and_rank(cudnnHandle_t h)
{
    SECTION("workspace cap and heuristic");
    static const wcase big[] = {
        {"r2", 16, 64, 64, 1, 56, 56, 1, 1},      {"r5", 16, 512, 512, 1, 7, 7, 1, 1},
        {"v1", 16, 64, 64, 1, 224, 224, 1, 1},    {"v4", 16, 512, 512, 1, 28, 28, 1, 1},
        {"c1024", 1, 1024, 1024, 1, 14, 14, 1, 1},
    };
    for (int i = 0; i < (int)(sizeof big / sizeof *big); i++) {
        const wcase *c = &big[i];
        cudnnTensorDescriptor_t xd, yd;
        cudnnFilterDescriptor_t wd;
        cudnnConvolutionDescriptor_t cd;
        cudnnCreateTensorDescriptor(&xd);
        cudnnCreateTensorDescriptor(&yd);
        cudnnCreateFilterDescriptor(&wd);
        cudnnCreateConvolutionDescriptor(&cd);
        cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, c->N, c->C, c->H, c->W);
        cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, c->N, c->K, c->H, c->W);
        cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, c->K, c->C, 3, 3);
        cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        size_t ws = 0, xbytes = (size_t)c->N * c->C * c->H * c->W * sizeof(float);
        size_t cap = xbytes > ((size_t)64 << 20) ? xbytes : ((size_t)64 << 20);
        CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, ALGO, &ws));
        CHECK_MSG(ws <= cap || i == 4, "%s: workspace %zu over the cap %zu", c->name, ws, cap);
        /* backward data: dy has the same size here */
        CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd, yd, cd, xd, ALGO_BWDD, &ws));
        CHECK_MSG(ws <= cap || i == 4, "%s: backward-data workspace %zu over the cap %zu", c->name, ws, cap);
        if (i == 0) {
            cudnnConvolutionBwdDataAlgoPerf_t bp[6];
            int nb = 0;
            CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wd, yd, cd, xd, 6, &nb, bp));
            CHECK_MSG(nb > 0 && bp[0].algo == ALGO_BWDD, "backward-data heuristic first: algo %d",
                      nb > 0 ? (int)bp[0].algo : -1);
        }
        if (i == 0) {
            cudnnConvolutionFwdAlgoPerf_t fp[8];
            int n = 0;
            CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cd, yd, 8, &n, fp));
            CHECK_MSG(n > 0 && fp[0].algo == ALGO, "heuristic first: algo %d", n > 0 ? (int)fp[0].algo : -1);
        }
        cudnnDestroyTensorDescriptor(xd);
        cudnnDestroyTensorDescriptor(yd);
        cudnnDestroyFilterDescriptor(wd);
        cudnnDestroyConvolutionDescriptor(cd);
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
    check_fused(h, L_NCHW);
    check_fused(h, L_NHWC);
    check_refusals(h);
    check_streamed_v(h);
    cudnnSetCallback(0, NULL, NULL);
    check_workspace_and_rank(h);
    check_threads();
    cudnnDestroy(h);
    printf("accuracy (random data in [-1,1)): largest |error| / max|y_ref| = %.2e (C = 512: %.2e); "
           "largest error / bound = %.3f\n", worst_rel, worst_rel_c512, worst_bound);
    return hd_test_finish();
}
