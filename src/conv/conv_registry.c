/*
 * The solver tables (conv/conv_registry.h).  Ids are stable and never reused:
 * forward 1xx, backward data 2xx, backward filter 3xx.
 */
#include "conv/conv_internal.h"
#include "conv/solvers/conv_dw.h"
#include "conv/solvers/conv_bwdd.h"
#include "conv/solvers/conv_bwdf.h"
#include "conv/solvers/conv_fast.h"
#include "conv/solvers/conv_lowp.h"
#include "conv/solvers/conv_wino4.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HOSTDNN_CONV_DISABLE="103,fwd.fft,..." turns solvers off by id or name (debugging, and to
 * check that every problem still has a working algorithm). */
static int disabled(const hd_conv_solver *s)
{
    const char *env = getenv("HOSTDNN_CONV_DISABLE");
    if (!env || !*env)
        return 0;
    char id[16];
    snprintf(id, sizeof id, "%d", s->id);
    for (const char *p = env; *p;) {
        size_t n = strcspn(p, ", ");
        if ((n == strlen(id) && !strncmp(p, id, n)) || (n == strlen(s->name) && !strncmp(p, s->name, n)))
            return 1;
        p += n;
        p += strspn(p, ", ");
    }
    return 0;
}

/* ---- applicability ---- */

static int fits(size_t ws, const char **reason)
{
    if (ws == SIZE_MAX) {
        *reason = "its workspace would not fit in size_t";
        return 0;
    }
    return 1;
}

static int always(const hd_conv_problem *p, const char **reason)
{
    (void)p, (void)reason;
    return 1;
}

static size_t ws_zero(const hd_conv_problem *p)
{
    (void)p;
    return 0;
}

static size_t ws_fwd_gemm(const hd_conv_problem *p) { return hd_conv_layout_fwd_gemm(p).total; }
static size_t ws_fwd_precomp(const hd_conv_problem *p) { return hd_conv_layout_fwd_precomp(p).total; }
static size_t ws_bwdd_gemm(const hd_conv_problem *p) { return hd_conv_layout_bwdd_gemm(p).total; }
static size_t ws_bwdf_gemm(const hd_conv_problem *p) { return hd_conv_layout_bwdf_gemm(p, 0).total; }
static size_t ws_bwdf_tiled(const hd_conv_problem *p) { return hd_conv_layout_bwdf_gemm(p, 1).total; }

static int app_fwd_gemm(const hd_conv_problem *p, const char **r) { return fits(ws_fwd_gemm(p), r); }
static int app_fwd_precomp(const hd_conv_problem *p, const char **r) { return fits(ws_fwd_precomp(p), r); }
static int app_bwdd_gemm(const hd_conv_problem *p, const char **r) { return fits(ws_bwdd_gemm(p), r); }
static int app_bwdf_gemm(const hd_conv_problem *p, const char **r) { return fits(ws_bwdf_gemm(p), r); }
static int app_bwdf_tiled(const hd_conv_problem *p, const char **r) { return fits(ws_bwdf_tiled(p), r); }

/* Winograd F(2x2, 3x3): 2-d, 3x3 filter, unit stride and dilation; backward data also
 * needs pad <= 2 (its equivalent forward convolution pads by 2 - pad). */
static int wino_shape(const hd_conv_problem *p, int bwd, const char **reason)
{
    if (p->nsp != 2) {
        *reason = "Winograd is implemented for 2-d convolutions only";
        return 0;
    }
    if (p->flt[1] != 3 || p->flt[2] != 3) {
        *reason = "Winograd F(2x2,3x3) needs a 3x3 filter";
        return 0;
    }
    if (p->str[1] != 1 || p->str[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1) {
        *reason = "Winograd needs unit stride and dilation";
        return 0;
    }
    if (bwd && (p->pad[1] > 2 || p->pad[2] > 2)) {
        *reason = "backward-data Winograd needs padding <= 2";
        return 0;
    }
    return 1;
}

static size_t ws_fwd_wino_nf(const hd_conv_problem *p) { return hd_conv_layout_winograd(p, 0, 0).total; }
static size_t ws_fwd_wino_f(const hd_conv_problem *p) { return hd_conv_layout_winograd(p, 0, 1).total; }
static size_t ws_bwdd_wino_nf(const hd_conv_problem *p) { return hd_conv_layout_winograd(p, 1, 0).total; }
static size_t ws_bwdd_wino_f(const hd_conv_problem *p) { return hd_conv_layout_winograd(p, 1, 1).total; }
static int app_fwd_wino_nf(const hd_conv_problem *p, const char **r) { return wino_shape(p, 0, r) && fits(ws_fwd_wino_nf(p), r); }
static int app_fwd_wino_f(const hd_conv_problem *p, const char **r) { return wino_shape(p, 0, r) && fits(ws_fwd_wino_f(p), r); }
static int app_bwdd_wino_nf(const hd_conv_problem *p, const char **r) { return wino_shape(p, 1, r) && fits(ws_bwdd_wino_nf(p), r); }
static int app_bwdd_wino_f(const hd_conv_problem *p, const char **r) { return wino_shape(p, 1, r) && fits(ws_bwdd_wino_f(p), r); }
static size_t ws_bwdf_wino_nf(const hd_conv_problem *p) { return hd_conv_layout_winograd_bwdf(p).total; }
static int app_bwdf_wino_nf(const hd_conv_problem *p, const char **r) { return wino_shape(p, 0, r) && fits(ws_bwdf_wino_nf(p), r); }

/* FFT: 2-d, unit stride and dilation; planes of at most 2^12 x 2^12. */
static int fft_shape(const hd_conv_problem *p, const char **reason)
{
    if (p->nsp != 2) {
        *reason = "FFT is implemented for 2-d convolutions only";
        return 0;
    }
    if (p->str[1] != 1 || p->str[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1) {
        *reason = "FFT needs unit stride and dilation";
        return 0;
    }
    if (p->in[1] + 2 * p->pad[1] > 4096 || p->in[2] + 2 * p->pad[2] > 4096) {
        *reason = "FFT planes are limited to 4096 x 4096";
        return 0;
    }
    return 1;
}

/* FFT_TILING: as FFT, filters up to 32 x 32 (64 x 64 transforms). */
static int fft_tile_shape(const hd_conv_problem *p, const char **reason)
{
    if (!fft_shape(p, reason))
        return 0;
    if (p->flt[1] > 32 || p->flt[2] > 32) {
        *reason = "FFT_TILING handles filters up to 32 x 32";
        return 0;
    }
    return 1;
}

static size_t ws_fwd_fft(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 0, 0).total; }
static size_t ws_bwdd_fft(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 1, 0).total; }
static size_t ws_bwdf_fft(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 2, 0).total; }
static size_t ws_fwd_fftt(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 0, 1).total; }
static size_t ws_bwdd_fftt(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 1, 1).total; }
static size_t ws_bwdf_fftt(const hd_conv_problem *p) { return hd_conv_layout_fft(p, 2, 1).total; }
static int app_fwd_fft(const hd_conv_problem *p, const char **r) { return fft_shape(p, r) && fits(ws_fwd_fft(p), r); }
static int app_bwdd_fft(const hd_conv_problem *p, const char **r) { return fft_shape(p, r) && fits(ws_bwdd_fft(p), r); }
static int app_bwdf_fft(const hd_conv_problem *p, const char **r) { return fft_shape(p, r) && fits(ws_bwdf_fft(p), r); }
static int app_fwd_fftt(const hd_conv_problem *p, const char **r) { return fft_tile_shape(p, r) && fits(ws_fwd_fftt(p), r); }
static int app_bwdd_fftt(const hd_conv_problem *p, const char **r) { return fft_tile_shape(p, r) && fits(ws_bwdd_fftt(p), r); }
static int app_bwdf_fftt(const hd_conv_problem *p, const char **r) { return fft_tile_shape(p, r) && fits(ws_bwdf_fftt(p), r); }

/* ---- execution: pick the precision ---- */

#define EXEC(fn) \
    static void exec_##fn(const hd_conv_problem *p, const hd_conv_args *a) \
    { \
        if (p->dbl) \
            hd_conv_##fn##_f64(p, a); \
        else \
            hd_conv_##fn##_f32(p, a); \
    }
EXEC(fwd_gemm)
EXEC(fwd_implicit)
EXEC(fwd_precomp)
EXEC(fwd_direct)
EXEC(bwdd_gemm)
EXEC(bwdd_direct)
EXEC(bwdf_gemm)
EXEC(bwdf_tiled)
EXEC(bwdf_direct)
EXEC(fwd_wino_nonfused)
EXEC(fwd_wino_fused)
EXEC(bwdd_wino_nonfused)
EXEC(bwdd_wino_fused)
EXEC(bwdf_wino_nonfused)
EXEC(fwd_fft)
EXEC(bwdd_fft)
EXEC(bwdf_fft)
EXEC(fwd_fft_tiling)
EXEC(bwdd_fft_tiling)
EXEC(bwdf_fft_tiling)

/* One solver per cuDNN algorithm today.  When an algorithm gets several (an ISA-specific
 * kernel, a special case), list the most specialised first: the first applicable one runs. */
static const hd_conv_solver fwd_solvers[] = {
    HD_CONV_DW_FWD_F32,
    {101, "fwd.implicit_gemm", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 1, always, ws_zero,
     exec_fwd_implicit, 1.0, NULL},
    HD_CONV_FAST_FWD_F32,
    HD_CONV_LOWP_FWD_INT8,
    HD_CONV_LOWP_FWD_BF16,
    {102, "fwd.implicit_precomp_gemm", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 1,
     app_fwd_precomp, ws_fwd_precomp, exec_fwd_precomp, 1.05, NULL},
    {103, "fwd.im2col_gemm", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, 1, app_fwd_gemm, ws_fwd_gemm,
     exec_fwd_gemm, 1.3, NULL},
    {104, "fwd.direct", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, 1, always, ws_zero, exec_fwd_direct, 2.2, NULL},
    {105, "fwd.winograd_f2x3_fused", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, 1, app_fwd_wino_f,
     ws_fwd_wino_f, exec_fwd_wino_fused, 0.6, NULL},
    HD_CONV_WINO4_FWD_F32,
    {106, "fwd.winograd_f2x3_nonfused", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, 1,
     app_fwd_wino_nf, ws_fwd_wino_nf, exec_fwd_wino_nonfused, 0.65, NULL},
    {107, "fwd.fft", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_FFT, 1, app_fwd_fft, ws_fwd_fft, exec_fwd_fft, 2.8, NULL},
    {108, "fwd.fft_tiling", HD_CONV_FWD, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, 1, app_fwd_fftt, ws_fwd_fftt,
     exec_fwd_fft_tiling, 2.8, NULL},
};

static const hd_conv_solver bwdd_solvers[] = {
    HD_CONV_DW_BWDD_F32,
    {201, "bwd_data.gemm_col2im", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, 1, app_bwdd_gemm,
     ws_bwdd_gemm, exec_bwdd_gemm, 1.0, NULL},
    HD_CONV_BWDD_1X1_F32,
    HD_CONV_BWDD_COL2IM_F32,
    HD_CONV_BWDD_BATCHED_F32,
    HD_CONV_BWDD_PHASE_F32,
    HD_CONV_FAST_BWDD_F32,
    {202, "bwd_data.direct", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1, always, ws_zero,
     exec_bwdd_direct, 2.0, NULL},
    {203, "bwd_data.winograd_f2x3_fused", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD, 1,
     app_bwdd_wino_f, ws_bwdd_wino_f, exec_bwdd_wino_fused, 0.55, NULL},
    HD_CONV_WINO4_BWDD_F32,
    {204, "bwd_data.winograd_f2x3_nonfused", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, 1,
     app_bwdd_wino_nf, ws_bwdd_wino_nf, exec_bwdd_wino_nonfused, 0.5, NULL},
    {205, "bwd_data.fft", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, 1, app_bwdd_fft, ws_bwdd_fft,
     exec_bwdd_fft, 3.0, NULL},
    {206, "bwd_data.fft_tiling", HD_CONV_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING, 1, app_bwdd_fftt,
     ws_bwdd_fftt, exec_bwdd_fft_tiling, 3.0, NULL},
};

static const hd_conv_solver bwdf_solvers[] = {
    HD_CONV_DW_BWDF_F32,
    {301, "bwd_filter.im2col_gemm", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, 1, app_bwdf_gemm,
     ws_bwdf_gemm, exec_bwdf_gemm, 1.0, NULL},
    HD_CONV_BWDF_KMAJOR_F32,
    HD_CONV_BWDF_UKERNEL_F32,
    HD_CONV_FAST_BWDF_F32,
    {302, "bwd_filter.direct", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1, always, ws_zero,
     exec_bwdf_direct, 1.15, NULL},
    {303, "bwd_filter.tiled_gemm", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3, 1, app_bwdf_tiled,
     ws_bwdf_tiled, exec_bwdf_tiled, 1.9, NULL},
    {304, "bwd_filter.fft", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, 1, app_bwdf_fft, ws_bwdf_fft,
     exec_bwdf_fft, 2.2, NULL},
    {305, "bwd_filter.fft_tiling", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING, 1, app_bwdf_fftt,
     ws_bwdf_fftt, exec_bwdf_fft_tiling, 2.2, NULL},
    HD_CONV_WINO4_BWDF_F32,
    {306, "bwd_filter.winograd_f2x3_nonfused", HD_CONV_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED,
     1, app_bwdf_wino_nf, ws_bwdf_wino_nf, exec_bwdf_wino_nonfused, 0.45, NULL},
};

static const hd_conv_solver *table(hd_conv_dir dir, int *n)
{
    switch (dir) {
    case HD_CONV_FWD: *n = (int)(sizeof fwd_solvers / sizeof *fwd_solvers); return fwd_solvers;
    case HD_CONV_BWD_DATA: *n = (int)(sizeof bwdd_solvers / sizeof *bwdd_solvers); return bwdd_solvers;
    default: *n = (int)(sizeof bwdf_solvers / sizeof *bwdf_solvers); return bwdf_solvers;
    }
}

int hd_conv_algo_count(hd_conv_dir dir)
{
    switch (dir) {
    case HD_CONV_FWD: return CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    case HD_CONV_BWD_DATA: return CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    default: return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
    }
}

/* Why an algorithm without a solver is refused. */
static const char *missing_reason(hd_conv_dir dir, int algo)
{
    if (dir == HD_CONV_BWD_FILTER && algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD)
        return "cuDNN does not implement backward-filter WINOGRAD either";
    if (algo < 0 || algo >= hd_conv_algo_count(dir))
        return "not an algorithm of this direction";
    return "no solver for this algorithm";
}

const hd_conv_solver *hd_conv_pick(const hd_conv_problem *p, hd_conv_dir dir, int algo, const char **reason)
{
    int n;
    const hd_conv_solver *t = table(dir, &n);
    const char *why = missing_reason(dir, algo);
    if (p->int8 && dir != HD_CONV_FWD) {
        *reason = "INT8 configurations are forward only (as in cuDNN)";
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        if (t[i].algo != algo)
            continue;
        if (p->int8 && algo >= CUDNN_CONVOLUTION_FWD_ALGO_FFT) {
            why = "INT8 is computed by the GEMM and direct methods only";
            continue;
        }
        const char *r = "not applicable";
        if (disabled(&t[i]))
            r = "disabled by HOSTDNN_CONV_DISABLE";
        else if (t[i].applicable(p, &r))
            return &t[i];
        why = r;
        hd_logf(CUDNN_SEV_INFO, t[i].name, CUDNN_STATUS_NOT_SUPPORTED, "solver refused: %s", r);
    }
    *reason = why;
    return NULL;
}

static int cmp_perf(const void *a, const void *b)
{
    const hd_conv_perf *x = a, *y = b;
    int xs = x->status != CUDNN_STATUS_SUCCESS, ys = y->status != CUDNN_STATUS_SUCCESS;
    if (xs != ys)
        return xs - ys;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->algo - y->algo;
}

void hd_conv_rank(const hd_conv_problem *p, hd_conv_dir dir, hd_conv_perf *rows)
{
    int count = hd_conv_algo_count(dir);
    for (int algo = 0; algo < count; algo++) {
        const char *why;
        const hd_conv_solver *s = hd_conv_pick(p, dir, algo, &why);
        hd_conv_perf *r = &rows[algo];
        r->algo = algo;
        r->time = -1;
        if (s) {
            r->status = CUDNN_STATUS_SUCCESS;
            r->memory = hd_conv_ws_size(s, p);
            r->deterministic = s->deterministic;
            double f = s->cost ? s->cost(p) : s->cost_factor;
            /* depthwise and tiny reductions: the GEMM call overhead dominates */
            if (p->CRS * p->Kg < 64 && s->workspace(p) > 0)
                f *= 2;
            r->time = (float)f;   /* sort key only; reset to -1 below */
            hd_logf(CUDNN_SEV_INFO, "heuristic", CUDNN_STATUS_SUCCESS, "algo %d: solver %s (id %d), cost %.4f",
                    algo, s->name, s->id, f);
        } else {
            r->status = CUDNN_STATUS_NOT_SUPPORTED;
            r->memory = 0;
            r->deterministic = 1;
            r->time = 1e30f;
        }
    }
    qsort(rows, (size_t)count, sizeof *rows, cmp_perf);
    for (int i = 0; i < count; i++)
        rows[i].time = -1;
}

size_t hd_conv_ws_size(const hd_conv_solver *s, const hd_conv_problem *p) { return hd_conv_ws_padded(s->workspace(p)); }

hd_conv_args hd_conv_ws_align(const hd_conv_args *a, size_t w)
{
    hd_conv_args r = *a;
    if (w > 0 && a->ws) {
        uintptr_t u = (uintptr_t)a->ws, up = (u + HD_CONV_WS_SLACK - 1) & ~(uintptr_t)(HD_CONV_WS_SLACK - 1);
        r.ws = (char *)a->ws + (up - u);
        r.ws_size = w;
    }
    return r;
}

cudnnStatus_t hd_conv_run(const hd_conv_solver *s, const hd_conv_problem *p, const hd_conv_args *a, const char *fn)
{
    size_t raw = s->workspace(p), need = hd_conv_ws_padded(raw);
    if (a->ws_size < need)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s needs %zu bytes of workspace; %zu given", s->name, need,
                       a->ws_size);
    if (need > 0 && !a->ws)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "workSpace is NULL but %s needs %zu bytes", s->name, need);
    hd_logf(CUDNN_SEV_INFO, fn, CUDNN_STATUS_SUCCESS, "dispatch: solver %s (id %d)", s->name, s->id);
    hd_conv_args run = hd_conv_ws_align(a, raw);
    s->execute(p, &run);
    return CUDNN_STATUS_SUCCESS;
}

void hd_conv_im2col(const hd_conv_problem *p, const void *x, int64_t n, int64_t g, int64_t p0, int64_t np, void *dst,
                    int64_t ld, int nthreads)
{
    if (p->dbl)
        hd_conv_im2col_f64(p, x, n, g, p0, np, dst, ld, nthreads);
    else
        hd_conv_im2col_f32(p, x, n, g, p0, np, dst, ld, nthreads);
}
