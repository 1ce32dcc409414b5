/*
 * The low-precision forward solvers (src/conv/solvers/conv_lowp.c, the kernels of
 * src/kernels/conv/lowp-ukernels.h), through the public API:
 * INT8_CONFIG (int8 y), INT8_EXT_CONFIG (float y) and BFLOAT16 with IMPLICIT_PRECOMP_GEMM,
 * where these solvers come first, against the float64 reference (tests/ref/conv_ref.c).
 *
 * INT8 results are exact integers: y = sat8(round-half-even(alpha * sum + beta * y)) computed
 * in double (or that value rounded to float for a float y) is compared with zero tolerance,
 * and the bytes must equal those of the generic IMPLICIT_GEMM path.  BFLOAT16 results are
 * compared with the tolerance
 *     |y - e| <= 2^-8 |e| + (CRS + 2) * 2^-23 * (|alpha| * sum|x*w| + |beta * y0|) + 1e-30
 * where e is the exact alpha * conv + beta * y0: the first term is the rounding of the
 * output to bf16 (8 significant bits, half an ulp <= 2^-8 relative), the second bounds the
 * fp32 accumulation (each of the CRS additions rounds at 2^-24 relative of a partial sum
 * no larger than sum|x*w|).
 *
 * Shapes cross the solvers' blocks: output channels that are not multiples of 16 (and
 * several 16-channel vectors with 1..3 left over), group channels that are not multiples of
 * 4 (int8) or 2 (bf16), several position blocks, padding, stride, dilation, N = 1, 1x1, 3x3,
 * 5x5 and 3-d.  Also: INT8 saturation at both ends, alpha/beta with beta = 0 over NaN,
 * the dispatch log names the solver, the exact workspace is enough and one byte less is
 * refused with y untouched, the fused bias + ReLU form equals the generic path (INT8 bit for
 * bit, BFLOAT16 within a bf16 rounding), INT8
 * reductions too long for exact int32 sums go to the generic solver, results are
 * bitwise identical across thread counts 1, 2, 3, 5, the heuristic ranks
 * IMPLICIT_PRECOMP_GEMM first, and every reference check passes under each HOSTDNN_MAX_ISA
 * cap (child processes; below avx512 the fallback kernels run).
 *
 * LOWP_BENCH=1 runs only the interleaved timings instead (this solver, the algorithm the
 * heuristic chose before it existed, the FLOAT problem of the same shape and layout):
 * LOWP_BENCH_REPS=N runs, LOWP_BENCH_CPU=1 process CPU time instead of wall time,
 * LOWP_BENCH_KIND=k starts at kind k (0 INT8, 1 BF16 NHWC, 2 BF16 NCHW), LOWP_BENCH_NEW_ONLY=1
 * times this solver alone (for profiling).
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hostdnn.h"
#include "harness.h"
#include "ref/conv_ref.h"

enum { T_I8, T_I8F, T_I8F_NCHW, T_BF_NCHW, T_BF_NHWC, T_BF_PAD, T_COUNT };
static const char *tname[T_COUNT] = {"int8", "int8->float", "int8->float nchw", "bf16 nchw", "bf16 nhwc", "bf16 padded"};

typedef struct {
    const char *name;
    int nsp, N, C, K, G;
    int in[3], flt[3], pad[3], str[3], dil[3];
} lcase;

static const lcase cases[] = {
    {"1x1", 2, 2, 8, 12, 1, {1, 6, 5}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 pad K=36", 2, 2, 20, 36, 1, {1, 9, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 K=68 C=68 N=1 (reduction blocks)", 2, 1, 68, 68, 1, {1, 7, 6}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"1x1 K=104 (6 vectors + 8)", 2, 1, 16, 104, 1, {1, 5, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"5x5 pad 2 N=1", 2, 1, 4, 4, 1, {1, 11, 9}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 stride 2", 2, 2, 12, 20, 1, {1, 9, 10}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    {"3x3 dilation 2", 2, 2, 8, 8, 1, {1, 9, 9}, {1, 3, 3}, {0, 2, 1}, {1, 1, 1}, {1, 2, 2}},
    {"groups 2, Cg=6", 2, 2, 12, 8, 2, {1, 7, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"groups 4, Cg=3 Kg=5", 2, 1, 12, 20, 4, {1, 6, 6}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"odd 2x3 stride 3x2 dil", 2, 3, 8, 8, 1, {1, 9, 7}, {1, 2, 3}, {0, 1, 0}, {1, 3, 2}, {1, 1, 2}},
    {"many positions", 2, 1, 8, 20, 1, {1, 30, 25}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"kernel > input", 2, 1, 4, 8, 1, {1, 2, 3}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3d 3x3x3", 3, 1, 4, 8, 1, {4, 5, 6}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))

/* ---- storage ---- */

static double bf2d(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t d2bf(double v)                     /* v already a bf16 value (or NaN) */
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

typedef struct {
    int nb, dims[5], strides[5];
    cudnnDataType_t dt;
    long span;
    void *mem;
} tens;

static size_t esize(cudnnDataType_t dt) { return dt == CUDNN_DATA_INT8 ? 1 : dt == CUDNN_DATA_FLOAT ? 4 : 2; }

/* layout 0: NCHW, 1: NHWC, 2: NCHW with padded strides */
static void tens_init(tens *t, int nb, const int *dims, int layout, cudnnDataType_t dt)
{
    t->nb = nb;
    t->dt = dt;
    memcpy(t->dims, dims, sizeof(int) * (size_t)nb);
    int *s = t->strides;
    if (layout == 1) {
        long acc = dims[1];
        s[1] = 1;
        for (int i = nb - 1; i >= 2; i--) {
            s[i] = (int)acc;
            acc *= dims[i];
        }
        s[0] = (int)acc;
    } else {
        long acc = 1;
        for (int i = nb - 1; i >= 0; i--) {
            s[i] = (int)acc;
            acc = acc * dims[i] + (layout == 2 ? 1 : 0);
        }
    }
    long last = 0;
    for (int i = 0; i < nb; i++)
        last += (long)(dims[i] - 1) * s[i];
    t->span = last + 1;
    t->mem = malloc((size_t)t->span * esize(dt));
}

static long tens_off(const tens *t, long li)
{
    long off = 0;
    for (int i = t->nb - 1; i >= 0; i--) {
        off += (li % t->dims[i]) * t->strides[i];
        li /= t->dims[i];
    }
    return off;
}

static long tens_elems(const tens *t)
{
    long n = 1;
    for (int i = 0; i < t->nb; i++)
        n *= t->dims[i];
    return n;
}

static double tget(const tens *t, long off)
{
    switch (t->dt) {
    case CUDNN_DATA_INT8: return ((const int8_t *)t->mem)[off];
    case CUDNN_DATA_FLOAT: return ((const float *)t->mem)[off];
    default: return bf2d(((const uint16_t *)t->mem)[off]);
    }
}

static void tset(tens *t, long off, double v)
{
    switch (t->dt) {
    case CUDNN_DATA_INT8: ((int8_t *)t->mem)[off] = (int8_t)v; break;
    case CUDNN_DATA_FLOAT: ((float *)t->mem)[off] = (float)v; break;
    default: ((uint16_t *)t->mem)[off] = d2bf(v); break;
    }
}

/* Every element (gaps too) to FILL, then the logical elements from L. */
static void tens_load(tens *t, const double *l, double fill)
{
    for (long i = 0; i < t->span; i++)
        tset(t, i, fill);
    long n = tens_elems(t);
    for (long i = 0; i < n; i++)
        tset(t, tens_off(t, i), l[i]);
}

static unsigned rng = 4242;
static unsigned rnd(void)
{
    rng = rng * 1103515245u + 12345u;
    return rng >> 8;
}
static int rnd_int(int lo, int hi) { return lo + (int)(rnd() % (unsigned)(hi - lo + 1)); }
/* A bf16 value in (-1, 1) with 8 significant bits. */
static double rnd_bf(void) { return (double)rnd_int(-255, 255) / 256.0; }

/* ---- one problem ---- */

typedef struct {
    conv_ref_shape rs;
    int type;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    tens x, w, y;
} prob;

static int is_int8(int type) { return type <= T_I8F_NCHW; }

static void prob_make(prob *P, const lcase *c, int type, int flip)
{
    memset(P, 0, sizeof *P);
    P->type = type;
    conv_ref_shape *s = &P->rs;
    s->N = c->N, s->C = c->C, s->K = c->K, s->G = c->G, s->flip = flip;
    for (int j = 0; j < 3; j++) {
        s->in[j] = c->in[j], s->flt[j] = c->flt[j], s->pad[j] = c->pad[j];
        s->str[j] = c->str[j], s->dil[j] = c->dil[j];
    }
    conv_ref_out_dims(s);
    int nb = c->nsp + 2, o = 3 - c->nsp;
    int xdims[5] = {c->N, c->C}, ydims[5] = {c->N, c->K}, wdims[5] = {c->K, c->C / c->G};
    int pad[3], str[3], dil[3];
    for (int j = 0; j < c->nsp; j++) {
        xdims[2 + j] = c->in[o + j], ydims[2 + j] = s->out[o + j], wdims[2 + j] = c->flt[o + j];
        pad[j] = c->pad[o + j], str[j] = c->str[o + j], dil[j] = c->dil[o + j];
    }
    int xl = type == T_BF_NCHW ? 0 : type == T_BF_PAD ? 2 : 1;
    int yl = type == T_I8F_NCHW ? 0 : xl;
    int wl = is_int8(type) || type == T_BF_NHWC ? 1 : 0;
    cudnnDataType_t xdt = is_int8(type) ? CUDNN_DATA_INT8 : CUDNN_DATA_BFLOAT16;
    cudnnDataType_t ydt = type == T_I8 ? CUDNN_DATA_INT8 : is_int8(type) ? CUDNN_DATA_FLOAT : CUDNN_DATA_BFLOAT16;
    tens_init(&P->x, nb, xdims, xl, xdt);
    tens_init(&P->y, nb, ydims, yl, ydt);
    tens_init(&P->w, nb, wdims, wl, xdt);
    cudnnCreateTensorDescriptor(&P->xd);
    cudnnCreateTensorDescriptor(&P->yd);
    cudnnCreateFilterDescriptor(&P->wd);
    cudnnCreateConvolutionDescriptor(&P->cd);
    CHECK_OK(cudnnSetTensorNdDescriptor(P->xd, xdt, nb, xdims, P->x.strides));
    CHECK_OK(cudnnSetTensorNdDescriptor(P->yd, ydt, nb, ydims, P->y.strides));
    CHECK_OK(cudnnSetFilterNdDescriptor(P->wd, xdt, wl ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, nb, wdims));
    CHECK_OK(cudnnSetConvolutionNdDescriptor(P->cd, c->nsp, pad, str, dil,
                                             flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                             is_int8(type) ? CUDNN_DATA_INT32 : CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(P->cd, c->G));
}

static void prob_free(prob *P)
{
    free(P->x.mem), free(P->w.mem), free(P->y.mem);
    cudnnDestroyTensorDescriptor(P->xd);
    cudnnDestroyTensorDescriptor(P->yd);
    cudnnDestroyFilterDescriptor(P->wd);
    cudnnDestroyConvolutionDescriptor(P->cd);
}

/* Forward with ALGO and exactly its queried workspace (+ WS_DELTA bytes). */
static cudnnStatus_t run_fwd(cudnnHandle_t h, prob *P, int algo, float alpha, float beta, long ws_delta)
{
    size_t ws = 0;
    cudnnStatus_t st = cudnnGetConvolutionForwardWorkspaceSize(h, P->xd, P->wd, P->cd, P->yd, algo, &ws);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    size_t give = (size_t)((long)ws + ws_delta);
    void *mem = give ? malloc(give) : NULL;
    st = cudnnConvolutionForward(h, &alpha, P->xd, P->x.mem, P->wd, P->w.mem, P->cd, algo, mem, give, &beta, P->yd,
                                 P->y.mem);
    free(mem);
    return st;
}
#define PRECOMP CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM

/* ---- the dispatch log ---- */

static int saw_lowp;
static void log_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud, (void)msg;
    int id;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL) && (id == 170 || id == 171))   /* fwd.lowp_* */
        saw_lowp = 1;
}

/* ---- expected values ---- */

static double sat8(double r)
{
    double q = nearbyint(r);
    return q > 127 ? 127 : q < -128 ? -128 : q;
}

/* Logical inputs for P: int8 in [-lim, lim] (or the full range), bf16 values in (-1, 1). */
static void fill_inputs(prob *P, double *lx, double *lw, int full_range)
{
    long nx = conv_ref_x_elems(&P->rs), nw = conv_ref_w_elems(&P->rs);
    for (long i = 0; i < nx; i++)
        lx[i] = is_int8(P->type) ? (full_range ? rnd_int(-128, 127) : rnd_int(-9, 9)) : rnd_bf();
    for (long i = 0; i < nw; i++)
        lw[i] = is_int8(P->type) ? (full_range ? rnd_int(-128, 127) : rnd_int(-9, 9)) : rnd_bf();
}

/* One alpha/beta run against the reference; returns the number of wrong elements.  *sat_lo /
 * *sat_hi count int8 outputs that saturated. */
static void make_prev(const prob *P, double *prev)
{
    long ny = tens_elems(&P->y);
    for (long i = 0; i < ny; i++)
        prev[i] = P->type == T_I8 ? rnd_int(-100, 100) : rnd_int(-64, 64) / 32.0;
}

/* x, w and y (logical values PREV; gaps -7, or NaN when beta == 0 and y can hold it). */
static void load_all(prob *P, const double *lx, const double *lw, const double *prev, float beta)
{
    tens_load(&P->x, lx, 0);
    tens_load(&P->w, lw, 0);
    tens_load(&P->y, prev, beta == 0 && P->y.dt != CUDNN_DATA_INT8 ? NAN : -7.0);
}

static long check_run(cudnnHandle_t h, prob *P, const double *lx, const double *lw, const double *ref,
                      const double *aref, const double *prev, float alpha, float beta, long *sat_lo, long *sat_hi)
{
    long ny = tens_elems(&P->y), crs = conv_ref_w_elems(&P->rs) / P->rs.K;
    int nan_ok = P->y.dt != CUDNN_DATA_INT8;
    load_all(P, lx, lw, prev, beta);
    saw_lowp = 0;
    cudnnStatus_t st = run_fwd(h, P, PRECOMP, alpha, beta, 0);
    CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "status %d", (int)st);
    CHECK_MSG(saw_lowp, "%s: low-precision solver not dispatched", tname[P->type]);
    long bad = 0;
    for (long i = 0; i < ny; i++) {
        double e = (double)alpha * ref[i] + (beta == 0 ? 0 : (double)beta * prev[i]);
        double got = tget(&P->y, tens_off(&P->y, i));
        if (P->type == T_I8) {
            double want = sat8(e);
            if (want == 127 && e > 127)
                (*sat_hi)++;
            if (want == -128 && e < -128)
                (*sat_lo)++;
            bad += got != want;
        } else if (is_int8(P->type)) {
            bad += got != (double)(float)e;
        } else {
            double tol = ldexp(fabs(e), -8) +
                         (double)(crs + 2) * ldexp(fabs(alpha) * aref[i] + fabs(beta * prev[i]), -23) + 1e-30;
            bad += !(fabs(got - e) <= tol);
        }
    }
    if (P->type == T_BF_PAD || P->type == T_I8F_NCHW) {       /* gaps untouched */
        char *mark = calloc((size_t)P->y.span, 1);
        for (long i = 0; i < ny; i++)
            mark[tens_off(&P->y, i)] = 1;
        for (long i = 0; i < P->y.span; i++) {
            double v = tget(&P->y, i);
            if (!mark[i] && !(beta == 0 && nan_ok ? isnan(v) : v == -7.0))
                bad++;
        }
        free(mark);
    }
    return bad;
}

static void check_case(cudnnHandle_t h, const lcase *c, int type, int flip)
{
    prob P;
    prob_make(&P, c, type, flip);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
    double *ref = malloc(sizeof(double) * (size_t)ny), *aref = malloc(sizeof(double) * (size_t)ny);
    double *ax = malloc(sizeof(double) * (size_t)nx), *aw = malloc(sizeof(double) * (size_t)nw);
    fill_inputs(&P, lx, lw, 0);
    conv_ref_fwd(&P.rs, lx, lw, ref);
    if (!is_int8(type)) {                          /* sum |x*w| for the bf16 tolerance */
        for (long i = 0; i < nx; i++)
            ax[i] = fabs(lx[i]);
        for (long i = 0; i < nw; i++)
            aw[i] = fabs(lw[i]);
        conv_ref_fwd(&P.rs, ax, aw, aref);
    }
    static const float ab[3][2] = {{1, 0}, {0.37f, 0}, {0.75f, -0.5f}};
    long lo = 0, hi = 0;
    double *prev = malloc(sizeof(double) * (size_t)ny);
    make_prev(&P, prev);
    for (int k = 0; k < 3; k++) {
        long bad = check_run(h, &P, lx, lw, ref, aref, prev, ab[k][0], ab[k][1], &lo, &hi);
        CHECK_MSG(bad == 0, "%s %s flip %d alpha %g beta %g: %ld wrong", c->name, tname[type], flip, ab[k][0],
                  ab[k][1], bad);
    }
    /* one byte less workspace: BAD_PARAM, y untouched */
    size_t ws = 0;
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, P.xd, P.wd, P.cd, P.yd, PRECOMP, &ws));
    CHECK(ws > 0);
    memset(P.y.mem, 0x5a, (size_t)P.y.span * esize(P.y.dt));
    CHECK_STATUS(run_fwd(h, &P, PRECOMP, 1, 0, -1), CUDNN_STATUS_BAD_PARAM);
    long touched = 0;
    for (long i = 0; i < P.y.span * (long)esize(P.y.dt); i++)
        touched += ((unsigned char *)P.y.mem)[i] != 0x5a;
    CHECK_MSG(touched == 0, "%s: y changed by a refused call", c->name);
    free(lx), free(lw), free(ref), free(aref), free(ax), free(aw), free(prev);
    prob_free(&P);
}

/* INT8 with full-range data: saturation at both ends, and the bytes equal those of the
 * generic IMPLICIT_GEMM path (double accumulation) for the same call; also the fused
 * bias + ReLU form against the generic path. */
static void check_int8_generic(cudnnHandle_t h)
{
    SECTION("int8: saturation, same bytes as the generic path");
    long lo = 0, hi = 0;
    for (int ci = 0; ci < NCASES; ci++)
        for (int type = T_I8; type <= T_I8F_NCHW; type++) {
            prob P;
            prob_make(&P, &cases[ci], type, ci & 1);
            long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
            double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
            double *ref = malloc(sizeof(double) * (size_t)ny), *prev = malloc(sizeof(double) * (size_t)ny);
            fill_inputs(&P, lx, lw, 1);
            conv_ref_fwd(&P.rs, lx, lw, ref);
            make_prev(&P, prev);
            float alpha = 1.0f / 1536, beta = 0.375f;
            long bad = check_run(h, &P, lx, lw, ref, NULL, prev, alpha, beta, &lo, &hi);
            CHECK_MSG(bad == 0, "%s %s full range: %ld wrong", cases[ci].name, tname[type], bad);
            size_t bytes = (size_t)P.y.span * esize(P.y.dt);
            void *ours = malloc(bytes);
            memcpy(ours, P.y.mem, bytes);
            load_all(&P, lx, lw, prev, beta);
            CHECK_OK(run_fwd(h, &P, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, alpha, beta, 0));
            CHECK_MSG(!memcmp(ours, P.y.mem, bytes), "%s %s: bytes differ from the generic path", cases[ci].name,
                      tname[type]);
            /* fused: y = relu(alpha1 * conv + alpha2 * z + bias), z = y (in place) */
            cudnnTensorDescriptor_t bd;
            cudnnActivationDescriptor_t act;
            cudnnCreateTensorDescriptor(&bd);
            cudnnCreateActivationDescriptor(&act);
            cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0);
            int nb = P.y.nb, bdims[5] = {1, P.rs.K, 1, 1, 1}, bstr[5] = {P.rs.K, 1, 1, 1, 1};
            CHECK_OK(cudnnSetTensorNdDescriptor(bd, CUDNN_DATA_FLOAT, nb, bdims, bstr));
            float *bias = malloc(sizeof(float) * (size_t)P.rs.K);
            for (int k = 0; k < P.rs.K; k++)
                bias[k] = (float)rnd_int(-40, 40) * 0.75f;
            float a1 = 1.0f / 2048, a2 = 0.5f;
            for (int pass = 0; pass < 2; pass++) {
                int algo = pass == 0 ? PRECOMP : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
                load_all(&P, lx, lw, prev, 1);
                size_t ws = 0;
                CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, P.xd, P.wd, P.cd, P.yd, algo, &ws));
                void *mem = malloc(ws + 1);
                CHECK_OK(cudnnConvolutionBiasActivationForward(h, &a1, P.xd, P.x.mem, P.wd, P.w.mem, P.cd, algo, mem,
                                                               ws, &a2, P.yd, P.y.mem, bd, bias, act, P.yd, P.y.mem));
                free(mem);
                if (pass == 0)
                    memcpy(ours, P.y.mem, bytes);
            }
            CHECK_MSG(!memcmp(ours, P.y.mem, bytes), "%s %s: fused bytes differ from the generic path",
                      cases[ci].name, tname[type]);
            free(bias);
            cudnnDestroyTensorDescriptor(bd);
            cudnnDestroyActivationDescriptor(act);
            free(ours), free(lx), free(lw), free(ref), free(prev);
            prob_free(&P);
        }
    CHECK_MSG(lo > 0 && hi > 0, "saturation not reached at both ends (%ld low, %ld high)", lo, hi);
}

/* A reduction longer than 131071 (int32 sums could overflow): the INT8 solver refuses (logged)
 * and IMPLICIT_PRECOMP_GEMM still answers, through the generic solver, with the bytes of
 * IMPLICIT_GEMM. */
static int saw_refusal;
static void refusal_cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)ud;
    if (msg && strstr(msg, "solver refused") && strstr(msg, "int32"))
        saw_refusal = 1;
    int id;
    if (hostdnnDebugGetConvSolver(dbg, &id, NULL, NULL) && (id == 170 || id == 171))
        saw_lowp = 1;
}

static void check_long_reduction(cudnnHandle_t h)
{
    SECTION("int8: long reductions go to the generic solver");
    lcase c = {"CRS 147456", 2, 1, 16384, 4, 1, {1, 3, 3}, {1, 3, 3}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}};
    prob P;
    prob_make(&P, &c, T_I8F, 0);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
    double *ref = malloc(sizeof(double) * (size_t)ny), *prev = calloc((size_t)ny, sizeof(double));
    fill_inputs(&P, lx, lw, 1);
    conv_ref_fwd(&P.rs, lx, lw, ref);
    load_all(&P, lx, lw, prev, 0);
    saw_refusal = saw_lowp = 0;
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, refusal_cb);
    CHECK_OK(run_fwd(h, &P, PRECOMP, 1, 0, 0));
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    CHECK(saw_refusal && !saw_lowp);
    long bad = 0;
    for (long i = 0; i < ny; i++)
        bad += tget(&P.y, tens_off(&P.y, i)) != (double)(float)ref[i];
    CHECK_MSG(bad == 0, "%ld wrong", bad);
    free(lx), free(lw), free(ref), free(prev);
    prob_free(&P);
}

/* BFLOAT16 fused bias + ReLU (in place, z = y): against the generic IMPLICIT_GEMM path, within
 * two bf16 roundings of the result (both round the same float sum, accumulated in different
 * orders). */
static void check_bf16_fused(cudnnHandle_t h)
{
    SECTION("bf16: fused bias + ReLU");
    static const int types[2] = {T_BF_NCHW, T_BF_NHWC};
    for (int ti = 0; ti < 2; ti++) {
        prob P;
        prob_make(&P, &cases[1], types[ti], 0);
        long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
        double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
        double *prev = malloc(sizeof(double) * (size_t)ny), *res[2];
        fill_inputs(&P, lx, lw, 0);
        make_prev(&P, prev);
        cudnnTensorDescriptor_t bd;
        cudnnActivationDescriptor_t act;
        cudnnCreateTensorDescriptor(&bd);
        cudnnCreateActivationDescriptor(&act);
        cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0);
        int bdims[4] = {1, P.rs.K, 1, 1}, bstr[4] = {P.rs.K, 1, 1, 1};
        CHECK_OK(cudnnSetTensorNdDescriptor(bd, CUDNN_DATA_BFLOAT16, 4, bdims, bstr));
        uint16_t *bias = malloc(sizeof(uint16_t) * (size_t)P.rs.K);
        for (int k = 0; k < P.rs.K; k++)
            bias[k] = d2bf(rnd_int(-8, 8) / 4.0);
        float a1 = 0.75f, a2 = 0.5f;
        for (int pass = 0; pass < 2; pass++) {
            int algo = pass == 0 ? PRECOMP : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
            load_all(&P, lx, lw, prev, 1);
            size_t ws = 0;
            CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, P.xd, P.wd, P.cd, P.yd, algo, &ws));
            void *mem = malloc(ws + 1);
            saw_lowp = 0;
            CHECK_OK(cudnnConvolutionBiasActivationForward(h, &a1, P.xd, P.x.mem, P.wd, P.w.mem, P.cd, algo, mem, ws,
                                                           &a2, P.yd, P.y.mem, bd, bias, act, P.yd, P.y.mem));
            CHECK(saw_lowp == (pass == 0));
            free(mem);
            res[pass] = malloc(sizeof(double) * (size_t)ny);
            for (long i = 0; i < ny; i++)
                res[pass][i] = tget(&P.y, tens_off(&P.y, i));
        }
        long bad = 0, pos = 0;
        for (long i = 0; i < ny; i++) {
            pos += res[0][i] > 0;
            bad += !(res[0][i] >= 0 && fabs(res[0][i] - res[1][i]) <= ldexp(fabs(res[1][i]), -7) + 1e-6);
        }
        CHECK_MSG(bad == 0 && pos > 0, "%s: %ld differ from the generic path", tname[types[ti]], bad);
        free(res[0]), free(res[1]), free(bias), free(lx), free(lw), free(prev);
        cudnnDestroyTensorDescriptor(bd);
        cudnnDestroyActivationDescriptor(act);
        prob_free(&P);
    }
}

/* ---- determinism: pseudo-random data, thread counts 1, 2, 3, 5 ---- */

static const lcase det_case = {"det", 2, 3, 68, 40, 1, {1, 13, 11}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}};

/* Runs TYPE on fixed data (alpha 1, beta 0.25) and copies y's bytes into OUT; returns the size. */
static size_t det_run(cudnnHandle_t h, int type, void *out)
{
    prob P;
    prob_make(&P, &det_case, type, 0);
    unsigned save = rng;
    rng = 99;
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
    double *prev = malloc(sizeof(double) * (size_t)ny);
    fill_inputs(&P, lx, lw, 1);
    if (!is_int8(type)) {
        for (long i = 0; i < nx; i++)
            lx[i] = rnd_int(-32767, 32767) / 32768.0 * 3;      /* rounded to bf16 when stored */
        for (long i = 0; i < nw; i++)
            lw[i] = rnd_int(-32767, 32767) / 32768.0;
    }
    make_prev(&P, prev);
    load_all(&P, lx, lw, prev, 0.25f);
    size_t bytes = (size_t)P.y.span * esize(P.y.dt);
    if (h) {
        CHECK_OK(run_fwd(h, &P, PRECOMP, 1, 0.25f, 0));
        memcpy(out, P.y.mem, bytes);
    }
    rng = save;
    free(lx), free(lw), free(prev);
    prob_free(&P);
    return bytes;
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
    static const int types[4] = {T_I8, T_I8F, T_BF_NCHW, T_BF_NHWC};
    for (int ti = 0; ti < 4; ti++) {
        size_t n = det_run(NULL, types[ti], NULL);
        char *a = malloc(n), *b = malloc(n);
        cudnnHandle_t h1 = handle_with_threads(1);
        det_run(h1, types[ti], a);
        cudnnDestroy(h1);
        static const int counts[] = {2, 3, 5};
        for (int i = 0; i < 3; i++) {
            cudnnHandle_t h = handle_with_threads(counts[i]);
            det_run(h, types[ti], b);
            cudnnDestroy(h);
            CHECK_MSG(!memcmp(a, b, n), "%s: %d threads differ from 1", tname[types[ti]], counts[i]);
        }
        free(a), free(b);
    }
}

/* Each HOSTDNN_MAX_ISA cap in a fresh child (the cap is read once per process): every
 * reference check passes there too (below avx512 the fallbacks run), and the INT8 bytes are
 * the same under every cap.  A fourth child runs BFLOAT16 on the vdpbf16ps kernel
 * (HOSTDNN_CONV_BF16_DP=1; the fp32 FMA kernel otherwise). */
static void check_isa(void)
{
    SECTION("every HOSTDNN_MAX_ISA cap");
    const char *caps[4] = {"scalar", "avx2", "avx512", "avx512"};
    size_t n = det_run(NULL, T_I8, NULL) + det_run(NULL, T_I8F, NULL);
    char *shared = mmap(NULL, 4 * n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        CHECK(0);
        return;
    }
    for (int i = 0; i < 4; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("HOSTDNN_MAX_ISA", caps[i], 1);
            if (i == 3)
                setenv("HOSTDNN_CONV_BF16_DP", "1", 1);
            cudnnHandle_t h = handle_with_threads(2);
            cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
            for (int c = 0; c < NCASES; c++)          /* a third of the pairs each, every type */
                for (int type = 0; type < T_COUNT; type++)
                    if ((c + type + i) % 3 == 0)
                        check_case(h, &cases[c], type, c & 1);
            cudnnSetCallback(0, NULL, NULL);
            size_t m = det_run(h, T_I8, shared + (size_t)i * n);
            det_run(h, T_I8F, shared + (size_t)i * n + m);
            cudnnDestroy(h);
            _exit(hd_t_failed ? 1 : 0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "checks failed under HOSTDNN_MAX_ISA=%s%s", caps[i],
                  i == 3 ? " with HOSTDNN_CONV_BF16_DP=1" : "");
    }
    CHECK_MSG(!memcmp(shared, shared + n, n) && !memcmp(shared, shared + 2 * n, n) && !memcmp(shared, shared + 3 * n, n),
              "INT8 bytes differ between ISA caps");
    munmap(shared, 4 * n);
}

/* The heuristic ranks IMPLICIT_PRECOMP_GEMM (these solvers) first for both configurations. */
static void check_heuristic(cudnnHandle_t h)
{
    SECTION("heuristic ranking");
    lcase c = {"rank", 2, 2, 32, 32, 1, {1, 14, 14}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}};
    static const int types[3] = {T_I8, T_I8F, T_BF_NCHW};
    for (int i = 0; i < 3; i++) {
        prob P;
        prob_make(&P, &c, types[i], 0);
        cudnnConvolutionFwdAlgoPerf_t fp[8];
        int n = 0;
        CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, P.xd, P.wd, P.cd, P.yd, 8, &n, fp));
        CHECK_MSG(n > 0 && fp[0].algo == PRECOMP && fp[0].status == CUDNN_STATUS_SUCCESS &&
                      fp[0].determinism == CUDNN_DETERMINISTIC,
                  "%s: first algo %d", tname[types[i]], n > 0 ? (int)fp[0].algo : -1);
        prob_free(&P);
    }
}

/* ---- LOWP_BENCH=1: interleaved timings ---- */

/* Wall time, or with LOWP_BENCH_CPU=1 the process CPU time (all threads: robust on a busy
 * machine when HOSTDNN_NUM_THREADS=1). */
static double now(void)
{
    struct timespec t;
    clock_gettime(getenv("LOWP_BENCH_CPU") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The first algorithm the heuristic ranks for P. */
static int heuristic_algo(cudnnHandle_t h, prob *P)
{
    cudnnConvolutionFwdAlgoPerf_t fp[8];
    int n = 0;
    cudnnGetConvolutionForwardAlgorithm_v7(h, P->xd, P->wd, P->cd, P->yd, 8, &n, fp);
    return n > 0 ? (int)fp[0].algo : 0;
}

static void bench(void)
{
    static const lcase shapes[] = {
        {"3x3 64->64 28x28 N=8", 2, 8, 64, 64, 1, {1, 28, 28}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
        {"3x3 128->128 14x14 N=8", 2, 8, 128, 128, 1, {1, 14, 14}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
        {"1x1 256->64 28x28 N=8", 2, 8, 256, 64, 1, {1, 28, 28}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
        {"3x3 64->64 56x56 N=1", 2, 1, 64, 64, 1, {1, 56, 56}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    };
    const char *env = getenv("LOWP_BENCH_REPS");
    int reps = env ? atoi(env) : 7;
    cudnnHandle_t h;
    cudnnCreate(&h);
    printf("interleaved medians of %d runs (HOSTDNN_NUM_THREADS as set; %s ms)\n", reps, getenv("LOWP_BENCH_CPU") ? "CPU" : "wall");
    for (int si = 0; si < (int)(sizeof shapes / sizeof *shapes); si++) {
        for (int kind = getenv("LOWP_BENCH_KIND") ? atoi(getenv("LOWP_BENCH_KIND")) : 0; kind < 3; kind++) {
            int type = kind == 0 ? T_I8 : kind == 1 ? T_BF_NHWC : T_BF_NCHW, fl = kind == 2 ? 0 : 1;
            prob P, F;
            prob_make(&P, &shapes[si], type, 0);
            long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
            double *lx = malloc(sizeof(double) * (size_t)nx), *lw = malloc(sizeof(double) * (size_t)nw);
            double *prev = calloc((size_t)ny, sizeof(double));
            fill_inputs(&P, lx, lw, 0);
            load_all(&P, lx, lw, prev, 0);
            /* the FLOAT problem of the same shape and layout (the heuristic's choice) */
            memset(&F, 0, sizeof F);
            int nb = 4, xd[4] = {P.x.dims[0], P.x.dims[1], P.x.dims[2], P.x.dims[3]};
            int yd[4] = {P.y.dims[0], P.y.dims[1], P.y.dims[2], P.y.dims[3]};
            int wd[4] = {P.w.dims[0], P.w.dims[1], P.w.dims[2], P.w.dims[3]};
            tens_init(&F.x, nb, xd, fl, CUDNN_DATA_FLOAT);
            tens_init(&F.y, nb, yd, fl, CUDNN_DATA_FLOAT);
            tens_init(&F.w, nb, wd, fl, CUDNN_DATA_FLOAT);
            memset(F.x.mem, 0, (size_t)F.x.span * 4), memset(F.w.mem, 0, (size_t)F.w.span * 4);
            cudnnCreateTensorDescriptor(&F.xd), cudnnCreateTensorDescriptor(&F.yd);
            cudnnCreateFilterDescriptor(&F.wd), cudnnCreateConvolutionDescriptor(&F.cd);
            cudnnSetTensorNdDescriptor(F.xd, CUDNN_DATA_FLOAT, nb, xd, F.x.strides);
            cudnnSetTensorNdDescriptor(F.yd, CUDNN_DATA_FLOAT, nb, yd, F.y.strides);
            cudnnSetFilterNdDescriptor(F.wd, CUDNN_DATA_FLOAT, fl ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, nb, wd);
            int pad[2] = {shapes[si].pad[1], shapes[si].pad[2]}, one[2] = {1, 1};
            cudnnSetConvolutionNdDescriptor(F.cd, 2, pad, one, one, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
            int a_new = heuristic_algo(h, &P);
            setenv("HOSTDNN_CONV_DISABLE", "170,171", 1);
            int a_old = heuristic_algo(h, &P);
            unsetenv("HOSTDNN_CONV_DISABLE");
            int a_f32 = heuristic_algo(h, &F);
            double t[3][64];
            int R = reps > 64 ? 64 : reps;
            int only_new = getenv("LOWP_BENCH_NEW_ONLY") != NULL;   /* for profiling */
            for (int r = -1; r < R; r++)
                for (int v = 0; v < (only_new ? 1 : 3); v++) {
                    prob *Q = v == 2 ? &F : &P;
                    if (v == 1)
                        setenv("HOSTDNN_CONV_DISABLE", "170,171", 1);
                    double t0 = now();
                    run_fwd(h, Q, v == 0 ? a_new : v == 1 ? a_old : a_f32, 1, 0, 0);
                    double dt = now() - t0;
                    unsetenv("HOSTDNN_CONV_DISABLE");
                    if (r >= 0)
                        t[v][r] = dt;
                }
            if (only_new)
                memcpy(t[1], t[0], sizeof t[0]), memcpy(t[2], t[0], sizeof t[0]);
            for (int v = 0; v < 3; v++)
                qsort(t[v], (size_t)R, sizeof(double), cmp_d);
            double m0 = t[0][R / 2], m1 = t[1][R / 2], m2 = t[2][R / 2];
            double gmac = 2e-9 * (double)ny * (double)(conv_ref_w_elems(&P.rs) / P.rs.K);
            printf("%-26s %-9s new %7.2f ms (algo %d, %6.1f GOP/s)  old %8.2f ms (algo %d)  fp32 %7.2f ms (algo %d)"
                   "  old/new %5.2fx  fp32/new %5.2fx\n",
                   shapes[si].name, kind == 0 ? "int8" : kind == 1 ? "bf16" : "bf16/nchw", 1e3 * m0, a_new, gmac / m0, 1e3 * m1, a_old,
                   1e3 * m2, a_f32, m1 / m0, m2 / m0);
            free(lx), free(lw), free(prev);
            prob_free(&P);
            prob_free(&F);
        }
    }
    cudnnDestroy(h);
}

int main(void)
{
    if (getenv("LOWP_BENCH")) {
        bench();
        return 0;
    }
    check_isa();                                   /* first: fork before this process starts threads */
    cudnnHandle_t h = handle_with_threads(2);
    cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, log_cb);
    SECTION("against the float64 reference");
    for (int i = 0; i < NCASES; i++)
        for (int type = 0; type < T_COUNT; type++)
            check_case(h, &cases[i], type, (i + type) & 1);
    check_int8_generic(h);
    check_long_reduction(h);
    check_bf16_fused(h);
    check_heuristic(h);
    cudnnSetCallback(0, NULL, NULL);
    check_threads();
    cudnnDestroy(h);
    return hd_test_finish();
}
