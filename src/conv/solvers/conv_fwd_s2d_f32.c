/*
 * Strided convolution of a few input channels by space-to-depth: forward (solver 113,
 * fwd.s2d_winograd_f32) and backward filter (solver 311, bwd_filter.s2d_winograd_f32);
 * docs/algorithms.md, "Strided stems by space-to-depth".
 *
 * With stride s (both dimensions), output o reads input rows o*s - pad + r for taps r < R.
 * Write r = r'*s + a (a < s): the row is (o + r')*s + a - pad, so the convolution is a
 * stride-1 one over the space-to-depth input x'[i][a] = x[i*s + a - pad] (zero outside x), with
 * s*s times the channels (channel c*s*s + a*s + b) and a filter of ceil(R/s) x ceil(S/s) taps,
 * w'[r'][a] = w[r'*s + a] (zero past R), and no padding.  Where that filter is 3x3 (AlexNet's
 * 11x11 stride-4 stem: 48 channels), the derived problem runs on the Winograd F(4x4,3x3)
 * engine (solver 109's code), 2.25 multiplications per output and derived channel instead of
 * R*S / (s*s) per derived channel: for 11x11 stride 4, 108 per output and filter against 363.
 *
 * Per call: x' is written into the workspace channels-contiguous (the engine's channel-lane
 * form on AVX-512), w' as a plain KCRS 3x3 filter (CONVOLUTION mode's flip applied here), then
 * the engine runs the derived problem with the user's y, alpha/beta and fused epilogue.
 * Backward filter: the engine's backward filter (solver 307's code) of x' with dy gives the
 * gradient of w' (in the workspace), whose taps are those of w rearranged: each real tap is
 * read back into dw as alpha dw' + beta dw (the zero taps' gradients are dropped).  The
 * copies are exact and the engines deterministic: results do not depend on the thread count.
 */
#include "conv/solvers/conv_solvers.h"
#include "conv/solvers/conv_wino4.h"

#include "core/parallel.h"
#include "conv/conv_internal.h"

#include <string.h>

/* The derived problem D of P (its x' and w' strides: x' channels-contiguous, w' KCRS). */
static void derive(const hd_conv_problem *p, hd_conv_problem *d)
{
    int64_t s = p->str[1];
    *d = *p;
    d->C = d->Cg = p->Cg * s * s;
    d->in[1] = p->out[1] + 2, d->in[2] = p->out[2] + 2;
    d->flt[1] = d->flt[2] = 3;
    d->pad[1] = d->pad[2] = 0;
    d->str[1] = d->str[2] = 1;
    d->flip = 0;
    int64_t C = d->C, H = d->in[1], W = d->in[2];
    d->xs[0] = H * W * C, d->xs[1] = 1, d->xs[2] = H * W * C, d->xs[3] = W * C, d->xs[4] = C;
    d->wst[0] = C * 9, d->wst[1] = 9, d->wst[2] = 9, d->wst[3] = 3, d->wst[4] = 1;
    d->wfmt = CUDNN_TENSOR_NCHW;
    d->Q = H * W;
    d->TRS = 9;
    d->CRS = C * 9;
}

/* The problems both solvers take (the engine's own checks on the derived problem apart). */
static int s2d_shape(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1 || p->nsp != 2) {
        *reason = "space-to-depth takes 2-d FLOAT tensors only";
        return 0;
    }
    int64_t s = p->str[1];
    if (s < 2 || p->str[2] != s || p->dil[1] != 1 || p->dil[2] != 1 || p->G != 1) {
        *reason = "space-to-depth needs equal strides of 2 or more, no dilation, one group";
        return 0;
    }
    /* a stem: few input channels, a filter that becomes 3x3, s*s*C channels that fill the
       engine's vectors without making the derived layer a deep one */
    if (p->Cg > 4 || (p->flt[1] + s - 1) / s != 3 || (p->flt[2] + s - 1) / s != 3 || p->Cg * s * s < 16 ||
        p->Cg * s * s > 64) {
        *reason = "space-to-depth takes stems: at most 4 input channels, a filter of 3x3 strides, 16..64 derived channels";
        return 0;
    }
    return 1;
}

static int s2d_app(const hd_conv_problem *p, const char **reason)
{
    hd_conv_problem d;
    derive(p, &d);
    return s2d_shape(p, reason) && hd_conv_wino4_app(&d, reason);
}

static int s2d_bwdf_app(const hd_conv_problem *p, const char **reason)
{
    hd_conv_problem d;
    derive(p, &d);
    return s2d_shape(p, reason) && hd_conv_wino4_bwdf_app(&d, reason);
}

/* Workspace: x' (N * H' * W' * C' floats), w' or dw' (K * C' * 9), then the engine's. */
static hd_conv_layout s2d_layout(const hd_conv_problem *p, const hd_conv_problem *d, int bwdf)
{
    hd_conv_layout L = {{0}, 0};
    size_t inner = bwdf ? hd_conv_wino4_bwdf_ws(d) : hd_conv_wino4_ws(d);
    if (inner == SIZE_MAX) {
        L.total = SIZE_MAX;
        return L;
    }
    hd_conv_book(&L, 0, d->N * d->in[1] * d->in[2], d->C, sizeof(float));
    hd_conv_book(&L, 1, p->K, d->C * 9, sizeof(float));
    hd_conv_book(&L, 2, 1, (int64_t)inner, 1);
    return L;
}

static size_t s2d_ws(const hd_conv_problem *p)
{
    hd_conv_problem d;
    derive(p, &d);
    return s2d_layout(p, &d, 0).total;
}

static size_t s2d_bwdf_ws(const hd_conv_problem *p)
{
    hd_conv_problem d;
    derive(p, &d);
    return s2d_layout(p, &d, 1).total;
}

/* The engine's estimate for the derived problem, per multiply-add of the original (its
 * multiply-adds are R'S'/(RS) times as many), plus the copy of x into x' (a few units per
 * value written, against the original's R*S*K multiply-adds per output pixel). */
static double s2d_cost_of(const hd_conv_problem *p, int bwdf)
{
    hd_conv_problem d;
    derive(p, &d);
    double dm = (double)(d.C * 9), om = (double)(p->Cg * p->flt[1] * p->flt[2]);
    double copy = 4.0 * (double)(d.N * d.Q * d.C) / ((double)(p->N * p->P * p->K) * om);
    return (bwdf ? hd_conv_wino4_bwdf_cost(&d) : hd_conv_wino4_cost(&d)) * dm / om + copy;
}

static double s2d_cost(const hd_conv_problem *p) { return s2d_cost_of(p, 0); }
static double s2d_bwdf_cost(const hd_conv_problem *p) { return s2d_cost_of(p, 1); }

typedef struct {
    const hd_conv_problem *p, *d;
    const float *x;
    float *xs;
} s2d_ctx;

/* Row i of image n of x' (task n * H' + i): W' pixels of C' channels. */
static void s2d_row(void *vctx, size_t task, int thread)
{
    (void)thread;
    const s2d_ctx *c = vctx;
    const hd_conv_problem *p = c->p, *d = c->d;
    int64_t s = p->str[1], n = (int64_t)task / d->in[1], i = (int64_t)task % d->in[1];
    int64_t H = p->in[1], W = p->in[2], Wd = d->in[2], C = d->C;
    float *dst = c->xs + (n * d->in[1] + i) * Wd * C;
    memset(dst, 0, sizeof(float) * (size_t)(Wd * C));
    for (int64_t ch = 0; ch < p->Cg; ch++)
        for (int64_t a = 0; a < s; a++) {
            int64_t h = i * s + a - p->pad[1];
            if (h < 0 || h >= H)
                continue;
            const float *row = c->x + n * p->xs[0] + ch * p->xs[1] + h * p->xs[3];
            for (int64_t j = 0; j < Wd; j++)
                for (int64_t b = 0; b < s; b++) {
                    int64_t w = j * s + b - p->pad[2];
                    if (w >= 0 && w < W)
                        dst[j * C + (ch * s + a) * s + b] = row[w * p->xs[4]];
                }
        }
}

/* Index of tap (r, q) of channel ch of filter k in w' (KCRS 3x3 over the derived channels). */
static int64_t wd_at(const hd_conv_problem *p, int64_t k, int64_t ch, int64_t r, int64_t q)
{
    int64_t s = p->str[1], C = p->Cg * s * s;
    return (k * C + (ch * s + r % s) * s + q % s) * 9 + (r / s) * 3 + q / s;
}

/* x' of the call into the workspace (both solvers); the derived call's arguments in *B. */
static float *s2d_prepare(const hd_conv_problem *p, const hd_conv_problem *d, const hd_conv_args *a, int bwdf,
                          hd_conv_args *b)
{
    hd_conv_layout L = s2d_layout(p, d, bwdf);
    float *xs = (float *)((char *)a->ws + L.off[0]);
    s2d_ctx c = {p, d, a->x, xs};
    hd_parallel_for((size_t)(d->N * d->in[1]), a->nthreads, s2d_row, &c);
    *b = *a;
    b->x = xs;
    b->ws = (char *)a->ws + L.off[2];
    b->ws_size = a->ws_size - L.off[2];
    return (float *)((char *)a->ws + L.off[1]);
}

static void s2d_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    hd_conv_problem d;
    derive(p, &d);
    hd_conv_args b;
    float *ws = s2d_prepare(p, &d, a, 0, &b);
    /* w'[k][(ch*s + a)*s + b][r'][q'] = w[k][ch][r'*s + a][q'*s + b], zero past the filter */
    const float *w = a->w;
    memset(ws, 0, sizeof(float) * (size_t)(p->K * d.C * 9));
    for (int64_t k = 0; k < p->K; k++)
        for (int64_t ch = 0; ch < p->Cg; ch++)
            for (int64_t r = 0; r < p->flt[1]; r++)
                for (int64_t q = 0; q < p->flt[2]; q++)
                    ws[wd_at(p, k, ch, r, q)] = w[hd_conv_w_off(p, k, ch, 0, r, q)];
    b.w = ws;
    hd_conv_wino4_exec(&d, &b);
}

static void s2d_bwdf_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    hd_conv_problem d;
    derive(p, &d);
    hd_conv_args b;
    float *dws = s2d_prepare(p, &d, a, 1, &b);
    b.out = dws;
    b.epi.alpha = 1, b.epi.beta = 0;
    hd_conv_wino4_bwdf_exec(&d, &b);
    /* dw = alpha dw' + beta dw, tap by tap (the flip of CONVOLUTION mode in hd_conv_w_off) */
    double alpha = a->epi.alpha, beta = a->epi.beta;
    float *dw = a->out;
    for (int64_t k = 0; k < p->K; k++)
        for (int64_t ch = 0; ch < p->Cg; ch++)
            for (int64_t r = 0; r < p->flt[1]; r++)
                for (int64_t q = 0; q < p->flt[2]; q++) {
                    float *o = dw + hd_conv_w_off(p, k, ch, 0, r, q);
                    double g = alpha * (double)dws[wd_at(p, k, ch, r, q)];
                    *o = (float)(beta == 0 ? g : g + beta * (double)*o);
                }
}

const hd_conv_solver hd_solver_fwd_s2d = {
    .id = 113, .name = "fwd.s2d_winograd_f32", .dir = HD_CONV_FWD, .algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, .deterministic = 1,
    .applicable = s2d_app, .workspace = s2d_ws, .run = s2d_exec, .cost_factor = 0.3, .cost = s2d_cost};

const hd_conv_solver hd_solver_bwdf_s2d = {
    .id = 311, .name = "bwd_filter.s2d_winograd_f32", .dir = HD_CONV_BWD_FILTER, .algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, .deterministic = 1,
    .applicable = s2d_bwdf_app, .workspace = s2d_bwdf_ws, .run = s2d_bwdf_exec, .cost_factor = 0.3, .cost = s2d_bwdf_cost};
