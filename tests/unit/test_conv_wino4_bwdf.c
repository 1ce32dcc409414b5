/*
 * The Winograd F(4x4, 3x3) backward-filter solver (id 307, src/kernels/conv/
 * conv_wino4_bwdf_f32.c; CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED) through the
 * public API, against the float64 reference (tests/ref/conv_ref.c).
 *
 * Data are random in [-1, 1), so the results round.  Every dw element must lie within its
 * first-order error bound (docs/algorithms.md, "Winograd F(4x4, 3x3) backward filter"):
 *     |dw - dw_ref| <= (T + 20) u (|alpha| S + |beta dw_old|),   u = 2^-24,
 * with T the tiles of a group and S the Winograd sum evaluated in double with every matrix,
 * input and gradient replaced by its absolute value:
 *     S = |G^T| (sum over tiles of |A||dY||A^T| .* |B^T||d||B|) |G|.
 * The test computes S itself, tile by tile.
 *
 * Covered: images of 1..13 rows and columns, pads 0/1/2, K and C remainders against the GEMM
 * panels (14 x 32, 6 x 16, 4 x 4), N = 1..3, groups, NCHW / NHWC / padded strides, both
 * modes, alpha/beta with beta = 0 over NaN, the three plans (several blocks and chunks; every
 * tile transformed first, which the small cases take; blocks of tiles transformed first in
 * turn, for a problem whose chunk plan passes the workspace cap); the dispatch log; the
 * exact workspace (one byte less is refused, dw untouched); bitwise identical results for 1,
 * 2, 3 and 5 threads; every HOSTDNN_MAX_ISA cap in a child process.  The kernel of the
 * output-gradient transform is checked on its own in test_kernel_wino4.c.
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
#define CONV_CASE_SEED 2025
#include "wino_tens.h"

#define ALGO CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED

static const wcase cases[] = {
    {"1x1 image pad 1", 1, 3, 5, 1, 1, 1, 1, 1},
    {"2x3 pad 1", 2, 2, 3, 1, 2, 3, 1, 1},
    {"3x5 pad 0", 1, 4, 4, 1, 3, 5, 0, 0},
    {"4x2 pad 2", 1, 3, 6, 1, 4, 2, 2, 2},
    {"5x7 pad 1/2", 3, 5, 7, 1, 5, 7, 1, 2},
    {"7x7 pad 1", 1, 8, 15, 1, 7, 7, 1, 1},
    {"8x9 pad 2/0", 3, 3, 29, 1, 8, 9, 2, 0},
    {"9x11 pad 1, K 33", 1, 7, 33, 1, 9, 11, 1, 1},
    {"11x10 pad 0, C 17", 2, 17, 9, 1, 11, 10, 0, 0},
    {"13x13 pad 1", 1, 5, 14, 1, 13, 13, 1, 1},
    {"13x12 pad 0/1", 3, 2, 13, 1, 13, 12, 0, 1},
    {"groups 2", 3, 6, 10, 2, 9, 8, 1, 1},
    {"groups 4 (depthwise-like)", 1, 4, 8, 4, 10, 7, 1, 1},
    {"C 70 K 70", 1, 70, 70, 1, 6, 9, 1, 1},
    {"C 33 K 16, many blocks and chunks", 3, 33, 16, 1, 40, 36, 1, 1},
    {"groups 2, two blocks (chunk mode)", 3, 32, 16, 2, 40, 36, 1, 1},
    {"many tile rows, one column", 2, 3, 5, 1, 70, 3, 1, 1},
    /* C 1020: the chunk plan's 8 slots of 72 tiles' transforms pass the 64 MiB cap and every
       tile's transforms pass 32 MiB, so blocks of tile rows in turn (staged mode) */
    {"C 1020 K 4, N 3, 34x34 (staged)", 3, 1020, 4, 1, 34, 34, 1, 1},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))

static double rnd(void)   /* a float in [-1, 1) */
{
    rng = rng * 1103515245u + 12345u;
    return (double)(float)((double)((rng >> 8) & 0xffff) / 32768.0 - 1.0);
}

/* Backward filter into P->w with the queried workspace, less LESS bytes. */
static cudnnStatus_t run(cudnnHandle_t h, prob *P, float alpha, float beta, size_t less)
{
    size_t ws = 0;
    cudnnStatus_t st = cudnnGetConvolutionBackwardFilterWorkspaceSize(h, P->xd, P->yd, P->cd, P->wd, ALGO, &ws);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    size_t give = ws >= less ? ws - less : 0;
    void *mem = give ? malloc(give) : NULL;
    st = cudnnConvolutionBackwardFilter(h, &alpha, P->xd, P->x.mem, P->yd, P->y.mem, P->cd, ALGO, mem, give, &beta,
                                        P->wd, P->w.mem);
    free(mem);
    return st;
}

/* ---- the error bound ---- */

static const double At[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
static const double Bt[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
static const double Gm[6][3] = {{0.25, 0, 0},          {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};

/* |B^T| |d| |B| of a 6x6 window (or |A| |o| |A^T| of a 4x4 tile, m = 4): out[6][6]. */
static void abs_tr(const double *d, int m, int six_from_bt, double out[36])
{
    double t[6][6];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < m; j++) {
            double s = 0;
            for (int k = 0; k < m; k++)
                s += fabs(six_from_bt ? Bt[i][k] : At[k][i]) * fabs(d[k * m + j]);
            t[i][j] = s;
        }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double s = 0;
            for (int k = 0; k < m; k++)
                s += t[i][k] * fabs(six_from_bt ? Bt[j][k] : At[k][j]);
            out[6 * i + j] = s;
        }
}

static double worst_bound, worst_rel;
static int dispatched;

static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud;
    int id, dir;
    if (hostdnnDebugGetConvSolver(dbg, &id, &dir, NULL) && dir == 2 && ++dispatched)
        CHECK_MSG(id == 307, "dispatched elsewhere: %s", msg);   /* bwd_filter.winograd_f4x3_f32 */
}

/* One case: the API result against the reference, element by element within its bound. */
static void check_case(cudnnHandle_t h, const wcase *c, int layout, int flip)
{
    prob P;
    wprob_make(&P, c, layout, flip, 1);
    conv_ref_shape *s = &P.rs;
    long nx = conv_ref_x_elems(s), ny = conv_ref_y_elems(s), nw = conv_ref_w_elems(s);
    double *x = malloc(sizeof(double) * (size_t)nx), *dy = malloc(sizeof(double) * (size_t)ny);
    double *ref = malloc(sizeof(double) * (size_t)nw), *S = calloc((size_t)nw, sizeof(double));
    double *old = malloc(sizeof(double) * (size_t)nw);
    for (long i = 0; i < nx; i++)
        x[i] = rnd();
    for (long i = 0; i < ny; i++)
        dy[i] = rnd();
    for (long i = 0; i < nw; i++)
        old[i] = rnd();
    conv_ref_bwd_filter(s, x, dy, ref);
    /* S per (k, c, r, s) of the cross-correlation, tile by tile */
    int OH = s->out[1], OW = s->out[2], TH = (OH + 3) / 4, TW = (OW + 3) / 4, Cg = c->C / c->G, Kg = c->K / c->G;
    int T = c->N * TH * TW;
    double *vb = malloc(sizeof(double) * 36 * (size_t)Cg), *mb = malloc(sizeof(double) * 36 * (size_t)Kg);
    double *sum = calloc((size_t)Kg * Cg * 36, sizeof(double));
    for (int g = 0; g < c->G; g++) {
        memset(sum, 0, sizeof(double) * (size_t)Kg * Cg * 36);
        for (int n = 0; n < c->N; n++)
            for (int ty = 0; ty < TH; ty++)
                for (int tx = 0; tx < TW; tx++) {
                    for (int ci = 0; ci < Cg; ci++) {
                        double d[36];
                        for (int a = 0; a < 6; a++)
                            for (int b = 0; b < 6; b++) {
                                int hh = ty * 4 - c->ph + a, ww = tx * 4 - c->pw + b;
                                d[6 * a + b] = hh >= 0 && hh < c->H && ww >= 0 && ww < c->W
                                                   ? x[(((long)n * c->C + g * Cg + ci) * c->H + hh) * c->W + ww]
                                                   : 0;
                            }
                        abs_tr(d, 6, 1, vb + 36 * ci);
                    }
                    for (int k = 0; k < Kg; k++) {
                        double o[16];
                        for (int a = 0; a < 4; a++)
                            for (int b = 0; b < 4; b++) {
                                int hh = ty * 4 + a, ww = tx * 4 + b;
                                o[4 * a + b] =
                                    hh < OH && ww < OW ? dy[(((long)n * c->K + g * Kg + k) * OH + hh) * OW + ww] : 0;
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
                        int rr = flip ? 2 - r : r, qq = flip ? 2 - q : q;
                        S[(((long)(g * Kg + k) * Cg + ci) * 3 + rr) * 3 + qq] = v;
                    }
    }
    static const float ab[3][2] = {{1, 0}, {0.5f, -0.75f}, {-2, 1}};
    int which = (c->N + c->H + layout) % 3;
    float alpha = ab[which][0], beta = ab[which][1];
    tens_load(&P.x, x, 0);
    tens_load(&P.y, dy, 0);
    if (beta == 0) {
        tens_load(&P.w, old, 0);
        for (long i = 0; i < nw; i++)
            P.w.mem[tens_off(&P.w, i)] = NAN;   /* beta = 0: never read */
    } else {
        tens_load(&P.w, old, 0);
    }
    CHECK_OK(run(h, &P, alpha, beta, 0));
    double gam = (T + 20) * 0x1p-24, maxref = 0, maxerr = 0;
    int bad = 0;
    for (long i = 0; i < nw; i++) {
        double prev = beta == 0 ? 0 : (double)(float)old[i];
        double want = alpha * ref[i] + beta * prev, got = P.w.mem[tens_off(&P.w, i)];
        double err = fabs(got - want), tol = gam * (fabs(alpha) * S[i] + fabs(beta * prev)) + 1e-30;
        if (!(err <= tol) && bad++ < 3)
            fprintf(stderr, "  %s layout %d flip %d: dw[%ld] = %.9g, want %.9g (bound %.3g)\n", c->name, layout, flip,
                    i, got, want, tol);
        if (err / tol > worst_bound)
            worst_bound = err / tol;
        if (fabs(want) > maxref)
            maxref = fabs(want);
        if (err > maxerr)
            maxerr = err;
    }
    CHECK_MSG(bad == 0, "%s (layout %d, flip %d): %d elements outside their bound", c->name, layout, flip, bad);
    if (maxref > 0 && maxerr / maxref > worst_rel)
        worst_rel = maxerr / maxref;
    free(x), free(dy), free(ref), free(S), free(old), free(vb), free(mb), free(sum);
    prob_free(&P);
}

/* ---- workspace, refusals ---- */

static void check_workspace(cudnnHandle_t h)
{
    SECTION("workspace: exact size, one byte less refused and dw untouched");
    prob P;
    wprob_make(&P, &cases[14], L_NCHW, 0, 1);
    long nx = conv_ref_x_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    for (long i = 0; i < P.x.span; i++)
        P.x.mem[i] = (float)rnd();
    for (long i = 0; i < P.y.span; i++)
        P.y.mem[i] = (float)rnd();
    (void)nx, (void)ny;
    for (long i = 0; i < P.w.span; i++)
        P.w.mem[i] = 7.0f;
    CHECK_STATUS(run(h, &P, 1, 0, 1), CUDNN_STATUS_BAD_PARAM);
    int same = 1;
    for (long i = 0; i < P.w.span; i++)
        same &= P.w.mem[i] == 7.0f;
    CHECK(same);
    CHECK_OK(run(h, &P, 1, 0, 0));
    prob_free(&P);

    SECTION("refusal: stride 2");
    wcase c = {"stride 2", 1, 4, 4, 1, 9, 9, 1, 1};
    wprob_make(&P, &c, L_NCHW, 0, 2);
    size_t ws = 0;
    cudnnStatus_t st = cudnnGetConvolutionBackwardFilterWorkspaceSize(h, P.xd, P.yd, P.cd, P.wd, ALGO, &ws);
    /* stride 2 is no Winograd problem: refused (NOT_SUPPORTED), never computed by solver 307 */
    CHECK(st == CUDNN_STATUS_NOT_SUPPORTED);
    prob_free(&P);
}

/* ---- bitwise identical across thread counts ---- */

static long det_run(cudnnHandle_t h, int layout, float *out)
{
    prob P;
    wprob_make(&P, &cases[14], layout, layout & 1, 1);
    unsigned save = rng;
    rng = 77;
    for (long i = 0; i < P.x.span; i++)
        P.x.mem[i] = (float)rnd();
    for (long i = 0; i < P.y.span; i++)
        P.y.mem[i] = (float)rnd();
    for (long i = 0; i < P.w.span; i++)
        P.w.mem[i] = 0;
    rng = save;
    if (h) {
        CHECK_OK(run(h, &P, 1, 0, 0));
        memcpy(out, P.w.mem, sizeof(float) * (size_t)P.w.span);
    }
    long n = P.w.span;
    prob_free(&P);
    return n;
}

static void check_threads(void)
{
    SECTION("bitwise identical across thread counts");
    for (int layout = 0; layout < L_COUNT; layout++) {
        long n = det_run(NULL, layout, NULL);
        float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n);
        cudnnHandle_t h1 = conv_case_handle(1);
        det_run(h1, layout, a);
        cudnnDestroy(h1);
        static const int counts[] = {2, 3, 5};
        for (int i = 0; i < 3; i++) {
            cudnnHandle_t h = conv_case_handle(counts[i]);
            det_run(h, layout, b);
            cudnnDestroy(h);
            CHECK_MSG(!memcmp(a, b, sizeof(float) * (size_t)n), "layout %d: %d threads differ from 1", layout,
                      counts[i]);
        }
        free(a), free(b);
    }
}

/* ---- every ISA cap, each in a fresh child (the cap is read once per process) ---- */

static void check_isa(void)
{
    SECTION("every HOSTDNN_MAX_ISA cap");
    const char *caps[3] = {"scalar", "avx2", "avx512"};
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
            _exit(hd_t_failed ? 1 : 0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "checks failed under HOSTDNN_MAX_ISA=%s", caps[i]);
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
    cudnnSetCallback(0, NULL, NULL);
    CHECK_MSG(dispatched >= NCASES * L_COUNT, "%d dispatch lines seen", dispatched);
    check_workspace(h);
    check_threads();
    cudnnDestroy(h);
    printf("accuracy (random data in [-1,1)): largest |error| / max|dw_ref| = %.2e; largest error / bound = %.3f\n",
           worst_rel, worst_bound);
    return hd_test_finish();
}
