/*
 * The depthwise fp32 solvers (src/conv/solvers/conv_dw_*_f32.c), through the public API:
 * FLOAT problems with G == C == K of forward IMPLICIT_GEMM, backward data ALGO_0 and backward
 * filter ALGO_0 (where these solvers come first), against the float64 reference
 * (tests/ref/conv_ref.c).  Filters 1x1 to 7x7 and odd ones, strides 1 to 3, padding 0 to 3,
 * dilation 2, every output width 1..40 (vector remainders of 8 and 16 lanes), channel counts
 * that leave channel-vector tails, N = 1, in NCHW, NHWC and padded strides, both modes,
 * alpha/beta with beta = 0 over NaN.  Fills are small integers, so results are exact and
 * compared with zero tolerance.  Then: the dispatch log names the solver, the exact
 * workspace is enough and one byte less is refused with the output untouched, the fused
 * bias-activation forward, results bitwise identical across thread counts (1, 2, 3, 5), the
 * reference checks under every HOSTDNN_MAX_ISA cap (in child processes) with the vector
 * kernels agreeing with the scalar ones to rounding, non-depthwise and non-FLOAT problems
 * left to the next solver, and the heuristic ranking these algorithms first for MobileNet-v2
 * depthwise layers.
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

enum { L_NCHW, L_NHWC, L_PADDED, L_COUNT };
enum { D_FWD, D_BWDD, D_BWDF };

typedef struct {
    const char *name;
    int N, C, H, W, R, S, ph, pw, sh, sw, dh, dw;
} dcase;

static const dcase cases[] = {
    {"3x3 s1 p1", 2, 5, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1},
    {"3x3 s1 p1 C=17 N=1", 1, 17, 6, 19, 3, 3, 1, 1, 1, 1, 1, 1},
    {"3x3 s2 p1", 2, 3, 9, 10, 3, 3, 1, 1, 2, 2, 1, 1},
    {"3x3 s2 p1 C=35 wide", 1, 35, 5, 37, 3, 3, 1, 1, 2, 2, 1, 1},
    {"1x1", 2, 4, 5, 7, 1, 1, 0, 0, 1, 1, 1, 1},
    {"1x1 s2", 1, 3, 6, 9, 1, 1, 0, 0, 2, 2, 1, 1},
    {"5x5 s1 p2", 2, 3, 8, 21, 5, 5, 2, 2, 1, 1, 1, 1},
    {"5x5 s2 p2 C=20", 1, 20, 9, 23, 5, 5, 2, 2, 2, 2, 1, 1},
    {"7x7 s1 p3", 1, 2, 9, 18, 7, 7, 3, 3, 1, 1, 1, 1},
    {"7x7 s2 p3", 2, 2, 11, 13, 7, 7, 3, 3, 2, 2, 1, 1},
    {"3x3 s3 p0", 2, 3, 10, 11, 3, 3, 0, 0, 3, 3, 1, 1},
    {"3x3 p0", 1, 4, 5, 6, 3, 3, 0, 0, 1, 1, 1, 1},
    {"3x3 p3 (pad beyond the filter)", 1, 3, 4, 5, 3, 3, 3, 3, 1, 1, 1, 1},
    {"3x3 dilation 2 p2", 2, 3, 9, 12, 3, 3, 2, 2, 1, 1, 2, 2},
    {"3x3 dilation 2 s2 p1", 1, 18, 9, 12, 3, 3, 1, 1, 2, 2, 2, 2},
    {"2x3 strides 3x2 p(1,0)", 2, 3, 9, 7, 2, 3, 1, 0, 3, 2, 1, 1},
    {"C=1", 2, 1, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1},
    {"kernel > input", 1, 3, 2, 3, 5, 5, 2, 2, 1, 1, 1, 1},
    {"width 1", 2, 16, 6, 1, 3, 3, 1, 1, 1, 1, 1, 1},
    {"many rows, N=1", 1, 2, 70, 33, 3, 3, 1, 1, 1, 1, 1, 1},
    /* blocked work (NHWC; NCHW with rows up to 112 wide): full and partial 16-channel blocks,
     * the 3x3 kernel's 16-pixel blocks and partial last block, bands split by rows and by
     * channel groups at small batches */
    {"blocked 3x3 s1 p1 C=32 W=40", 2, 32, 5, 40, 3, 3, 1, 1, 1, 1, 1, 1},
    {"blocked 3x3 s2 p1 C=48 W=35", 1, 48, 7, 35, 3, 3, 1, 1, 2, 2, 1, 1},
    {"blocked 3x3 p0 C=16 W=20", 2, 16, 6, 20, 3, 3, 0, 0, 1, 1, 1, 1},
    {"blocked 3x3 p2 C=24", 1, 24, 5, 17, 3, 3, 2, 2, 1, 1, 1, 1},
    {"blocked 5x5 s1 p2 C=16 W=33", 1, 16, 6, 33, 5, 5, 2, 2, 1, 1, 1, 1},
    {"blocked tiny 1x1 image C=16", 2, 16, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1},
    {"blocked tiny 2x3 image C=20", 1, 20, 2, 3, 3, 3, 1, 1, 1, 1, 1, 1},
    {"blocked N=1 C=96 (channel groups)", 1, 96, 3, 5, 3, 3, 1, 1, 1, 1, 1, 1},
    {"blocked N=3 C=70 rows split", 3, 70, 13, 9, 3, 3, 1, 1, 1, 1, 1, 1},
    {"blocked 3x3 s3 p1 C=17", 1, 17, 8, 13, 3, 3, 1, 1, 3, 3, 1, 1},
    /* NCHW rows of 41 to 112 results (blocked since the limit was raised from 40 to 112) */
    {"blocked 3x3 s1 p1 C=18 W=100", 1, 18, 5, 100, 3, 3, 1, 1, 1, 1, 1, 1},
    {"blocked 3x3 s2 p1 C=20 W=112", 2, 20, 6, 112, 3, 3, 1, 1, 2, 2, 1, 1},
    {"blocked 5x5 s1 p2 C=17 W=57", 1, 17, 4, 57, 5, 5, 2, 2, 1, 1, 1, 1},
    /* NHWC rows read in place (whole 16-channel blocks, at least 8 interior results; 24 for
     * backward filter): edges of one or two results, dilation, uneven padding, none */
    {"in place 3x3 dilation 2 p2 C=32 W=30", 2, 32, 6, 30, 3, 3, 2, 2, 1, 1, 2, 2},
    {"in place 5x5 p1 C=16 W=24", 2, 16, 5, 24, 5, 5, 1, 1, 1, 1, 1, 1},
    {"in place 7x7 s2 p3 C=48 W=41", 1, 48, 9, 41, 7, 7, 3, 3, 2, 2, 1, 1},
    {"in place 3x3 s2 p1 C=16 W=61 (backward filter too)", 2, 16, 5, 61, 3, 3, 1, 1, 2, 2, 1, 1},
    /* NHWC rows in place through the AVX-512 edge-row kernel (forward: 3 taps; backward data
     * at stride 1, and at stride 2 as two phases of 1 and 2 taps; chunks of 16, 14, 8 or 7
     * results, a column off either end or none; widths that fit no chunk stay with the band) */
    {"edge rows 3x3 s1 p1 C=32 W=14", 2, 32, 5, 14, 3, 3, 1, 1, 1, 1, 1, 1},
    {"edge rows 3x3 s1 p1 C=16 W=7", 1, 16, 4, 7, 3, 3, 1, 1, 1, 1, 1, 1},
    {"edge rows 3x3 s1 p1 C=48 W=28 (two chunks)", 2, 48, 4, 28, 3, 3, 1, 1, 1, 1, 1, 1},
    {"edge rows 3x3 s1 p1 C=32 W=112 (seven chunks)", 1, 32, 3, 112, 3, 3, 1, 1, 1, 1, 1, 1},
    {"edge rows 3x3 s2 p1 C=32 W=14", 1, 32, 6, 14, 3, 3, 1, 1, 2, 2, 1, 1},
    {"edge rows 3x3 s2 p1 C=16 W=13 (last column off)", 2, 16, 5, 13, 3, 3, 1, 1, 2, 2, 1, 1},
    {"edge rows 3x3 s2 p1 C=16 W=32", 1, 16, 3, 32, 3, 3, 1, 1, 2, 2, 1, 1},
    {"edge rows 3x3 s2 p1 C=16 W=111 (four chunks)", 1, 16, 3, 111, 3, 3, 1, 1, 2, 2, 1, 1},
    {"edge rows 3x3 s2 p1 C=16 W=64 (backward data: two phases of two chunks)", 1, 16, 4, 64, 3, 3, 1, 1, 2, 2, 1, 1},
    {"edge rows 3x3 s2 p1 C=16 W=112 (backward data: four chunks a phase, the band)", 1, 16, 4, 112, 3, 3, 1, 1, 2, 2, 1, 1},
    {"edge rows 3x3 s2 p1 C=32 W=28 (backward data: phases of 14)", 2, 32, 6, 28, 3, 3, 1, 1, 2, 2, 1, 1},
    {"edge rows 3x3 p0 C=16 W=16 (no column off)", 2, 16, 4, 16, 3, 3, 0, 0, 1, 1, 1, 1},
    {"edge rows 1x3 p(0,1) C=16 W=8 (one filter row)", 1, 16, 5, 8, 1, 3, 0, 1, 1, 1, 1, 1},
    {"edge rows 5x3 p(2,1) C=16 W=14 (five filter rows)", 2, 16, 7, 14, 5, 3, 2, 1, 1, 1, 1, 1},
    {"edge rows refused: 3x3 p2 C=16 W=12", 1, 16, 4, 12, 3, 3, 2, 2, 1, 1, 1, 1},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))

/* ---- a strided FLOAT tensor ---- */

typedef struct {
    int dims[4], strides[4];
    long span;
    float *mem, *base;            /* mem = base + a varying offset: every alignment mod 64 bytes */
} tens;

static int align_turn;

static void tens_init(tens *t, const int *dims, int layout)
{
    memcpy(t->dims, dims, sizeof t->dims);
    int *s = t->strides;
    if (layout == L_NHWC) {
        s[1] = 1, s[3] = dims[1], s[2] = dims[1] * dims[3], s[0] = dims[1] * dims[3] * dims[2];
    } else {
        long acc = 1;
        for (int i = 3; i >= 0; i--) {
            s[i] = (int)acc;
            acc = acc * dims[i] + (layout == L_PADDED ? 1 : 0);
        }
    }
    long last = 0;
    for (int i = 0; i < 4; i++)
        last += (long)(dims[i] - 1) * s[i];
    t->span = last + 1;
    t->base = malloc((size_t)(t->span + 16) * sizeof(float));
    t->mem = t->base + (align_turn++ / 3 * 5) % 16;   /* x, y, w of one problem alike */
}

static long tens_off(const tens *t, long li)
{
    long off = 0;
    for (int i = 3; i >= 0; i--) {
        off += (li % t->dims[i]) * t->strides[i];
        li /= t->dims[i];
    }
    return off;
}

static long tens_elems(const tens *t) { return (long)t->dims[0] * t->dims[1] * t->dims[2] * t->dims[3]; }

static unsigned rng = 4242;
static int small_int(int range)
{
    rng = rng * 1103515245u + 12345u;
    return (int)((rng >> 16) % (unsigned)(2 * range + 1)) - range;
}

static float rnd_float(void)
{
    rng = rng * 1103515245u + 12345u;
    return (float)((rng >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/* ---- one problem ---- */

typedef struct {
    conv_ref_shape rs;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    tens x, w, y;
} prob;

static void prob_make(prob *P, const dcase *c, int layout, int flip)
{
    memset(P, 0, sizeof *P);
    conv_ref_shape *s = &P->rs;
    s->N = c->N, s->C = c->C, s->K = c->C, s->G = c->C, s->flip = flip;
    s->in[0] = 1, s->in[1] = c->H, s->in[2] = c->W;
    s->flt[0] = 1, s->flt[1] = c->R, s->flt[2] = c->S;
    s->pad[0] = 0, s->pad[1] = c->ph, s->pad[2] = c->pw;
    s->str[0] = 1, s->str[1] = c->sh, s->str[2] = c->sw;
    s->dil[0] = 1, s->dil[1] = c->dh, s->dil[2] = c->dw;
    conv_ref_out_dims(s);
    int xdims[4] = {c->N, c->C, c->H, c->W}, ydims[4] = {c->N, c->C, s->out[1], s->out[2]};
    int wdims[4] = {c->C, 1, c->R, c->S};
    int pad[2] = {c->ph, c->pw}, str[2] = {c->sh, c->sw}, dil[2] = {c->dh, c->dw};
    tens_init(&P->x, xdims, layout);
    tens_init(&P->y, ydims, layout);
    tens_init(&P->w, wdims, layout == L_NHWC ? L_NHWC : L_NCHW);
    cudnnCreateTensorDescriptor(&P->xd);
    cudnnCreateTensorDescriptor(&P->yd);
    cudnnCreateFilterDescriptor(&P->wd);
    cudnnCreateConvolutionDescriptor(&P->cd);
    cudnnSetTensorNdDescriptor(P->xd, CUDNN_DATA_FLOAT, 4, xdims, P->x.strides);
    cudnnSetTensorNdDescriptor(P->yd, CUDNN_DATA_FLOAT, 4, ydims, P->y.strides);
    cudnnSetFilterNdDescriptor(P->wd, CUDNN_DATA_FLOAT, layout == L_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, 4,
                               wdims);
    cudnnSetConvolutionNdDescriptor(P->cd, 2, pad, str, dil, flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    cudnnSetConvolutionGroupCount(P->cd, c->C);
}

static void prob_free(prob *P)
{
    free(P->x.base), free(P->w.base), free(P->y.base);
    cudnnDestroyTensorDescriptor(P->xd);
    cudnnDestroyTensorDescriptor(P->yd);
    cudnnDestroyFilterDescriptor(P->wd);
    cudnnDestroyConvolutionDescriptor(P->cd);
}

static void tens_load(tens *t, const double *l, float fill)
{
    for (long i = 0; i < t->span; i++)
        t->mem[i] = fill;
    long n = tens_elems(t);
    for (long i = 0; i < n; i++)
        t->mem[tens_off(t, i)] = (float)l[i];
}

static size_t ws_query(cudnnHandle_t h, prob *P, int dir)
{
    size_t ws = 0;
    if (dir == D_FWD)
        cudnnGetConvolutionForwardWorkspaceSize(h, P->xd, P->wd, P->cd, P->yd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                                &ws);
    else if (dir == D_BWDD)
        cudnnGetConvolutionBackwardDataWorkspaceSize(h, P->wd, P->yd, P->cd, P->xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
                                                     &ws);
    else
        cudnnGetConvolutionBackwardFilterWorkspaceSize(h, P->xd, P->yd, P->cd, P->wd,
                                                       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, &ws);
    return ws;
}

/* Run direction DIR with exactly the queried workspace (one byte less when short). */
static cudnnStatus_t run_dir(cudnnHandle_t h, prob *P, int dir, float alpha, float beta, int short_ws)
{
    size_t ws = ws_query(h, P, dir);
    size_t give = short_ws && ws > 0 ? ws - 1 : ws;
    void *mem = give ? malloc(give) : NULL;
    cudnnStatus_t st;
    if (dir == D_FWD)
        st = cudnnConvolutionForward(h, &alpha, P->xd, P->x.mem, P->wd, P->w.mem, P->cd,
                                     CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, mem, give, &beta, P->yd, P->y.mem);
    else if (dir == D_BWDD)
        st = cudnnConvolutionBackwardData(h, &alpha, P->wd, P->w.mem, P->yd, P->y.mem, P->cd,
                                          CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, mem, give, &beta, P->xd, P->x.mem);
    else
        st = cudnnConvolutionBackwardFilter(h, &alpha, P->xd, P->x.mem, P->yd, P->y.mem, P->cd,
                                            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, mem, give, &beta, P->wd, P->w.mem);
    free(mem);
    return st;
}

/* ---- the dispatch log ---- */

static int saw_dw;
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud, (void)msg;
    int id;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL) && (id == 160 || id == 260 || id == 360))   /* *.depthwise_f32 */
        saw_dw = 1;
}

/* ---- correctness against the reference ---- */

static void check_case(cudnnHandle_t h, const dcase *c, int layout, int flip)
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
            tens_load(out, prev, beta == 0 ? NAN : -7.0f);   /* gaps of padded layouts must survive */
            saw_dw = 0;
            cudnnStatus_t st = run_dir(h, &P, dir, alpha, beta, 0);
            CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s layout %d dir %d: status %d", c->name, layout, dir, (int)st);
            CHECK_MSG(saw_dw, "%s layout %d dir %d: depthwise solver not dispatched", c->name, layout, dir);
            long bad = 0;
            for (long i = 0; i < nout; i++) {
                double want = alpha * ref[i] + (beta == 0 ? 0 : beta * prev[i]);
                if (out->mem[tens_off(out, i)] != (float)want)
                    bad++;
            }
            long gaps = 0;
            if (layout == L_PADDED) {
                char *mark = calloc((size_t)out->span, 1);
                for (long i = 0; i < nout; i++)
                    mark[tens_off(out, i)] = 1;
                for (long i = 0; i < out->span; i++)
                    if (!mark[i] && !(beta == 0 ? isnan(out->mem[i]) : out->mem[i] == -7.0f))
                        gaps++;
                free(mark);
            }
            CHECK_MSG(bad == 0 && gaps == 0, "%s (W=%d) layout %d flip %d dir %d alpha %g beta %g: %ld wrong, %ld gaps",
                      c->name, c->W, layout, flip, dir, alpha, beta, bad, gaps);
        }
        /* one byte less workspace: BAD_PARAM, output untouched */
        CHECK(ws_query(h, &P, dir) > 0);
        float before = out->mem[0];
        out->mem[0] = 12345.0f;
        CHECK_STATUS(run_dir(h, &P, dir, 1, 0, 1), CUDNN_STATUS_BAD_PARAM);
        CHECK(out->mem[0] == 12345.0f);
        out->mem[0] = before;
    }
    free(lx), free(lw), free(ly), free(ref), free(prev);
    prob_free(&P);
}

/* One large NHWC problem at N = 1, exact against the reference: beta = 0 over NaN with the
 * result tensor at a 64-byte boundary and (offs > 1) 16 bytes off it, and (betas > 1) beta =
 * 1.  Few runs: these tensors are large for the sanitizer pass. */
static void check_large(cudnnHandle_t h, const dcase *c, int dir, int offs, int betas)
{
    prob P;
    prob_make(&P, c, L_NHWC, 0);
    tens *out = dir == D_FWD ? &P.y : &P.x;
    float *alloc = out->base;
    out->base = aligned_alloc(64, (size_t)(out->span + 64) / 16 * 64);   /* a chosen alignment */
    free(alloc);
    long nin = dir == D_FWD ? conv_ref_x_elems(&P.rs) : conv_ref_y_elems(&P.rs);
    long nw = conv_ref_w_elems(&P.rs), nout = tens_elems(out);
    double *lin = malloc(sizeof(double) * (size_t)nin), *lw = malloc(sizeof(double) * (size_t)nw);
    double *ref = malloc(sizeof(double) * (size_t)nout);
    for (long i = 0; i < nin; i++)
        lin[i] = small_int(2);
    for (long i = 0; i < nw; i++)
        lw[i] = small_int(2);
    if (dir == D_FWD)
        conv_ref_fwd(&P.rs, lin, lw, ref);
    else
        conv_ref_bwd_data(&P.rs, lin, lw, ref);
    tens_load(dir == D_FWD ? &P.x : &P.y, lin, 0), tens_load(&P.w, lw, 0);
    for (int off = 0; off < offs; off++)
        for (int k = 0; k < (off ? 1 : betas); k++) {
            out->mem = out->base + (off ? 4 : 0);
            for (long i = 0; i < out->span; i++)
                out->mem[i] = k ? 3.0f : NAN;
            saw_dw = 0;
            CHECK_OK(run_dir(h, &P, dir, 1, (float)k, 0));
            CHECK(saw_dw);
            long bad = 0;
            for (long i = 0; i < nout; i++)
                if (out->mem[tens_off(out, i)] != (float)(ref[i] + 3.0 * k))
                    bad++;
            CHECK_MSG(bad == 0, "%s dir %d offset %d beta %d: %ld wrong", c->name, dir, off, k, bad);
        }
    free(lin), free(lw), free(ref);
    prob_free(&P);
}

/* A forward NHWC result of 16 MiB: many tasks, bands split by rows. */
static void check_big(cudnnHandle_t h)
{
    const dcase c = {"big NHWC", 1, 64, 256, 256, 3, 3, 1, 1, 1, 1, 1, 1};
    check_large(h, &c, D_FWD, 1, 1);
}

/* Results of more than 32 MiB of source and result together are stored around the caches
 * (streaming stores of whole 64-byte lines, beta == 0; a result 16 bytes off a line falls
 * back to plain stores, and beta != 0 is never streamed): forward through the edge rows,
 * stride-2 backward data through the band. */
static void check_stream(cudnnHandle_t h)
{
    const dcase s1 = {"streamed C=176 224x224 (edge rows)", 1, 176, 224, 224, 3, 3, 1, 1, 1, 1, 1, 1};
    const dcase s2 = {"streamed s2 C=240 240x240 (band)", 1, 240, 240, 240, 3, 3, 1, 1, 2, 2, 1, 1};
    check_large(h, &s1, D_FWD, 2, 2);
    check_large(h, &s2, D_BWDD, 1, 1);
}

/* Every output width 1..40 at stride 1 and 2 (plane kernels: vector remainders). */
static void check_widths(cudnnHandle_t h)
{
    for (int ow = 1; ow <= 40; ow++)
        for (int st = 1; st <= 2; st++) {
            dcase c = {"width sweep", 1, 2, 4, 0, 3, 3, 1, 1, st, st, 1, 1};
            c.W = st == 1 ? ow : 2 * ow - 1;
            check_case(h, &c, (ow + st) % L_COUNT, ow & 1);
        }
}

/* ---- fused bias + activation forward on a depthwise problem ---- */

static void check_fused(cudnnHandle_t h, int layout)
{
    const dcase c = {"fused", 2, 19, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1};
    prob P;
    prob_make(&P, &c, layout, 0);
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
    tens z;
    tens_init(&z, P.y.dims, layout);
    tens_load(&P.x, lx, 0), tens_load(&P.w, lw, 0), tens_load(&z, lz, 0), tens_load(&P.y, lz, NAN);
    float bias[19];
    for (int i = 0; i < 19; i++)
        bias[i] = (float)(i % 5 - 2);
    cudnnTensorDescriptor_t bd;
    cudnnActivationDescriptor_t ad;
    cudnnCreateTensorDescriptor(&bd);
    cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 19, 1, 1);
    cudnnCreateActivationDescriptor(&ad);
    cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0);
    size_t ws = ws_query(h, &P, D_FWD);
    void *mem = malloc(ws);
    float a1 = 2, a2 = 0.5f;
    saw_dw = 0;
    /* y doubles as z (in place), as frameworks do for residual additions */
    CHECK_OK(cudnnConvolutionBiasActivationForward(h, &a1, P.xd, P.x.mem, P.wd, P.w.mem, P.cd,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, mem, ws, &a2, P.yd,
                                                   z.mem, bd, bias, ad, P.yd, z.mem));
    CHECK(saw_dw);
    long bad = 0;
    for (long i = 0; i < ny; i++) {
        long ch = (i / ((long)P.y.dims[2] * P.y.dims[3])) % 19;
        double v = a1 * ref[i] + a2 * lz[i] + bias[ch];
        if (z.mem[tens_off(&z, i)] != (float)(v > 0 ? v : 0))
            bad++;
    }
    CHECK_MSG(bad == 0, "fused layout %d: %ld wrong", layout, bad);
    free(mem), free(z.base), free(lx), free(lw), free(lz), free(ref);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyActivationDescriptor(ad);
    prob_free(&P);
}

/* ---- determinism: random (non-integer) data, outputs of all three directions ---- */

static const dcase det_cases[] = {
    {"det 3x3", 3, 37, 13, 29, 3, 3, 1, 1, 1, 1, 1, 1},
    {"det 5x5 s2", 2, 20, 11, 19, 5, 5, 2, 2, 2, 2, 1, 1},
    {"det N=1 C=80 (row blocks and channel groups)", 1, 80, 21, 33, 3, 3, 1, 1, 1, 1, 1, 1},
    {"det edge rows C=32 W=28", 3, 32, 9, 28, 3, 3, 1, 1, 1, 1, 1, 1},
};
#define NDET ((int)(sizeof det_cases / sizeof *det_cases))

static long det_run(cudnnHandle_t h, const dcase *c, int layout, float *out)
{
    prob P;
    prob_make(&P, c, layout, 0);
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
        if (h)
            run_dir(h, &P, dir, 1, 0.25f, 0);
        if (out)
            memcpy(out + n, o->mem, sizeof(float) * (size_t)o->span);
        n += o->span;
    }
    rng = save;
    prob_free(&P);
    return n;
}

/* All det runs (every case, NCHW and NHWC) into OUT; returns the count. */
static long det_all(cudnnHandle_t h, float *out)
{
    long n = 0;
    for (int c = 0; c < NDET; c++)
        for (int layout = 0; layout < 2; layout++)
            n += det_run(h, &det_cases[c], layout, out ? out + n : NULL);
    return n;
}

static cudnnHandle_t handle_with_threads(int nt)
{
    char v[16];
    snprintf(v, sizeof v, "%d", nt);
    setenv("HOSTDNN_NUM_THREADS", v, 1);
    cudnnHandle_t h = NULL;
    cudnnCreate(&h);
    unsetenv("HOSTDNN_NUM_THREADS");
    return h;
}

static void check_threads(void)
{
    SECTION("bitwise identical across thread counts");
    long n = det_all(NULL, NULL);
    float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n);
    cudnnHandle_t h1 = handle_with_threads(1);
    det_all(h1, a);
    cudnnDestroy(h1);
    static const int counts[] = {2, 3, 5};
    for (int i = 0; i < 3; i++) {
        cudnnHandle_t h = handle_with_threads(counts[i]);
        det_all(h, b);
        cudnnDestroy(h);
        CHECK_MSG(!memcmp(a, b, sizeof(float) * (size_t)n), "%d threads differ from 1", counts[i]);
    }
    free(a), free(b);
}

/* Each ISA cap in a fresh child (the cap is read once per process): the exact reference
 * checks pass there too, and the vector kernels' results on random data agree with the
 * scalar kernels' to rounding (they sum in other orders and fuse multiply-adds). */
static void check_isa(void)
{
    SECTION("every HOSTDNN_MAX_ISA cap");
    const char *caps[3] = {"scalar", "avx2", "avx512"};
    long n = det_all(NULL, NULL);
    float *shared = mmap(NULL, sizeof(float) * 3 * (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        CHECK(0);
        return;
    }
    for (int i = 0; i < 3; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("HOSTDNN_MAX_ISA", caps[i], 1);
            cudnnHandle_t h = handle_with_threads(2);
            cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
            for (int c = 0; c < NCASES; c++)
                check_case(h, &cases[c], c % L_COUNT, c & 1);
            for (int ow = 1; ow <= 40; ow += 3) {
                dcase c = {"isa widths", 1, 3, 3, ow, 3, 3, 1, 1, 1, 1, 1, 1};
                check_case(h, &c, ow % L_COUNT, 0);
            }
            cudnnSetCallback(0, NULL, NULL);
            det_all(h, shared + (size_t)i * (size_t)n);
            cudnnDestroy(h);
            _exit(hd_t_failed ? 1 : 0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "checks failed under HOSTDNN_MAX_ISA=%s", caps[i]);
    }
    for (int v = 1; v < 3; v++) {
        long far = 0;
        for (long i = 0; i < n; i++)
            if (!(fabsf(shared[i] - shared[(size_t)v * (size_t)n + (size_t)i]) <= 1e-4f * (1 + fabsf(shared[i]))))
                far++;
        CHECK_MSG(far == 0, "%ld %s results differ from scalar beyond rounding", far, caps[v]);
    }
    munmap(shared, sizeof(float) * 3 * (size_t)n);
}

/* Grouped but not depthwise (two channels per group), and DOUBLE data: these solvers
 * refuse (logged), the next solver of the enum computes it. */
static void check_refusal(cudnnHandle_t h)
{
    SECTION("not depthwise / not FLOAT: the next solver");
    for (int k = 0; k < 2; k++) {
        cudnnDataType_t dt = k ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
        int C = k ? 4 : 8, G = 4;
        cudnnTensorDescriptor_t xd, yd;
        cudnnFilterDescriptor_t wd;
        cudnnConvolutionDescriptor_t cd;
        cudnnCreateTensorDescriptor(&xd);
        cudnnCreateTensorDescriptor(&yd);
        cudnnCreateFilterDescriptor(&wd);
        cudnnCreateConvolutionDescriptor(&cd);
        cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, dt, 1, C, 5, 5);
        cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, dt, 1, 4, 5, 5);
        cudnnSetFilter4dDescriptor(wd, dt, CUDNN_TENSOR_NCHW, 4, C / G, 3, 3);
        cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, dt);
        cudnnSetConvolutionGroupCount(cd, G);
        double mem[400] = {0};
        double one = 1, zero = 0;
        float onef = 1, zerof = 0;
        const void *al = k ? (const void *)&one : (const void *)&onef, *be = k ? (const void *)&zero : (const void *)&zerof;
        size_t ws = 0;
        CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws));
        void *w = malloc(ws + 1);
        saw_dw = 0;
        CHECK_OK(cudnnConvolutionForward(h, al, xd, mem, wd, mem + 200, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, w,
                                         ws, be, yd, mem + 300));
        CHECK(!saw_dw);
        free(w);
        cudnnDestroyTensorDescriptor(xd);
        cudnnDestroyTensorDescriptor(yd);
        cudnnDestroyFilterDescriptor(wd);
        cudnnDestroyConvolutionDescriptor(cd);
    }
}

/* Channel multiplier 2 (K = 2C, groups = C): refused with a reason, the next solver of each
 * direction computes it (against the reference, forward). */
static void check_multiplier(cudnnHandle_t h)
{
    SECTION("channel multiplier 2: the next solver");
    const int N = 1, C = 4, K = 8, H = 5, W = 6;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cd);
    cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W);
    cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, 1, 3, 3);
    cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    cudnnSetConvolutionGroupCount(cd, C);
    float x[N * C * H * W], w[K * 9], y[N * K * H * W];
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = (float)small_int(2);
    for (int i = 0; i < K * 9; i++)
        w[i] = (float)small_int(2);
    size_t ws = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws));
    void *mem = malloc(ws + 1);
    float one = 1, zero = 0;
    saw_dw = 0;
    CHECK_OK(cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, mem, ws, &zero,
                                     yd, y));
    CHECK(!saw_dw);
    long bad = 0;
    for (int k = 0; k < K; k++)               /* output channel k reads input channel k / 2 */
        for (int i = 0; i < H; i++)
            for (int j = 0; j < W; j++) {
                float want = 0;
                for (int r = 0; r < 3; r++)
                    for (int t = 0; t < 3; t++) {
                        int ii = i + r - 1, jj = j + t - 1;
                        if (ii >= 0 && ii < H && jj >= 0 && jj < W)
                            want += w[k * 9 + r * 3 + t] * x[(k / 2) * H * W + ii * W + jj];
                    }
                if (y[(k * H + i) * W + j] != want)
                    bad++;
            }
    CHECK_MSG(bad == 0, "multiplier 2 forward: %ld wrong", bad);
    free(mem);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
}

/* The heuristic ranks these solvers' algorithms first for MobileNet-v2 depthwise layers
 * (stride 1 and 2, batch 16 and 1, NCHW and NHWC); only descriptors, nothing runs. */
static void check_heuristic(cudnnHandle_t h)
{
    SECTION("heuristic ranking");
    static const int shapes[][5] = {{16, 144, 56, 1, 0}, {16, 144, 56, 2, 0}, {1, 144, 56, 1, 1},
                                    {16, 32, 112, 1, 1}, {16, 960, 7, 1, 0},  {1, 576, 14, 2, 1}};
    for (int i = 0; i < 6; i++) {
        int N = shapes[i][0], C = shapes[i][1], H = shapes[i][2], u = shapes[i][3];
        cudnnTensorFormat_t fmt = shapes[i][4] ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
        int O = (H + 2 - 3) / u + 1;
        cudnnTensorDescriptor_t xd, yd;
        cudnnFilterDescriptor_t wd;
        cudnnConvolutionDescriptor_t cd;
        cudnnCreateTensorDescriptor(&xd);
        cudnnCreateTensorDescriptor(&yd);
        cudnnCreateFilterDescriptor(&wd);
        cudnnCreateConvolutionDescriptor(&cd);
        cudnnSetTensor4dDescriptor(xd, fmt, CUDNN_DATA_FLOAT, N, C, H, H);
        cudnnSetTensor4dDescriptor(yd, fmt, CUDNN_DATA_FLOAT, N, C, O, O);
        cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, fmt, C, 1, 3, 3);
        cudnnSetConvolution2dDescriptor(cd, 1, 1, u, u, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        cudnnSetConvolutionGroupCount(cd, C);
        cudnnConvolutionFwdAlgoPerf_t fp[8];
        cudnnConvolutionBwdDataAlgoPerf_t dp[6];
        cudnnConvolutionBwdFilterAlgoPerf_t wp[7];
        int n = 0;
        CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cd, yd, 8, &n, fp));
        CHECK_MSG(n > 0 && fp[0].algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, "shape %d fwd: algo %d", i,
                  (int)fp[0].algo);
        CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wd, yd, cd, xd, 6, &n, dp));
        CHECK_MSG(n > 0 && dp[0].algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, "shape %d bwd data: algo %d", i,
                  (int)dp[0].algo);
        CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xd, yd, cd, wd, 7, &n, wp));
        CHECK_MSG(n > 0 && wp[0].algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 && wp[0].determinism == CUDNN_DETERMINISTIC,
                  "shape %d bwd filter: algo %d", i, (int)wp[0].algo);
        size_t ws = 0;
        CHECK_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cd, wd, wp[0].algo, &ws));
        CHECK(ws <= ((size_t)64 << 20));
        cudnnDestroyTensorDescriptor(xd);
        cudnnDestroyTensorDescriptor(yd);
        cudnnDestroyFilterDescriptor(wd);
        cudnnDestroyConvolutionDescriptor(cd);
    }
}

int main(void)
{
    check_isa();                                   /* first: fork before this process starts threads */
    cudnnHandle_t h = handle_with_threads(2);
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    SECTION("against the float64 reference");
    for (int i = 0; i < NCASES; i++)
        for (int layout = 0; layout < L_COUNT; layout++)
            check_case(h, &cases[i], layout, (i + layout) & 1);
    SECTION("16 MiB output");
    check_big(h);
    SECTION("streaming stores beyond 32 MiB");
    check_stream(h);
    SECTION("every output width 1..40");
    check_widths(h);
    SECTION("fused bias-activation");
    check_fused(h, L_NCHW);
    check_fused(h, L_NHWC);
    check_fused(h, L_PADDED);
    check_refusal(h);
    check_multiplier(h);
    check_heuristic(h);
    cudnnSetCallback(0, NULL, NULL);
    check_threads();
    cudnnDestroy(h);
    return hd_test_finish();
}
