/*
 * The solver tables (conv/conv_registry.h).  Ids are stable and never reused:
 * forward 1xx, backward data 2xx, backward filter 3xx.
 */
#include "conv/conv_internal.h"
#include "conv/solvers/conv_solvers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the N characters at P name S, by id or by name. */
static int names(const hd_conv_solver *s, const char *p, size_t n)
{
    char id[16];
    snprintf(id, sizeof id, "%d", s->id);
    return (n == strlen(id) && !strncmp(p, id, n)) || (n == strlen(s->name) && !strncmp(p, s->name, n));
}

/* Whether the list ENV ("103,fwd.fft,...": ids or names, separated by commas or spaces; NULL:
 * empty) names S. */
static int listed(const char *env, const hd_conv_solver *s)
{
    if (!env || !*env)
        return 0;
    for (const char *p = env; *p;) {
        size_t n = strcspn(p, ", ");
        if (n && names(s, p, n))
            return 1;
        p += n;
        p += strspn(p, ", ");
    }
    return 0;
}

/* HOSTDNN_CONV_DISABLE turns solvers off (debugging, and to check that every problem still
 * has a working algorithm).  Naming a family (150) turns off its variants (151-153) too, as
 * before they were registered apart. */
static int disabled(const char *env, const hd_conv_solver *s)
{
    if (!env || !*env)
        return 0;
    if (listed(env, s))
        return 1;
    if (!s->family)
        return 0;
    int n;
    const hd_conv_solver *const *t = hd_conv_solvers(s->dir, &n);
    for (int i = 0; i < n; i++)
        if (t[i]->id == s->family)
            return listed(env, t[i]);
    return 0;
}

/* The tables: under one algorithm the most specialised solver comes first, and the first
 * that takes the problem runs (variants that never share a problem: the commonest first). */
static const hd_conv_solver *const fwd_solvers[] = {
    &hd_solver_fwd_dw,          /* 160  IMPLICIT_GEMM */
    &hd_solver_fwd_implicit,    /* 101 */
    &hd_solver_fwd_s2d,         /* 113  IMPLICIT_PRECOMP_GEMM: strided stems of <= 4 channels */
    &hd_solver_fwd_blocked,     /* 150  150-153 never share a problem */
    &hd_solver_fwd_rows,        /* 152 */
    &hd_solver_fwd_wide,        /* 153 */
    &hd_solver_fwd_dot,         /* 151 */
    &hd_solver_fwd_int8,        /* 170 */
    &hd_solver_fwd_bf16,        /* 171 */
    &hd_solver_fwd_precomp,     /* 102 */
    &hd_solver_fwd_gemm,        /* 103  GEMM */
    &hd_solver_fwd_direct,      /* 104  DIRECT */
    &hd_solver_fwd_wino_f,      /* 105  WINOGRAD */
    &hd_solver_fwd_wino4,       /* 109  WINOGRAD_NONFUSED */
    &hd_solver_fwd_wino_nf,     /* 106 */
    &hd_solver_fwd_wino4_split, /* 112  FLOAT 5x5 in 3x3 pieces */
    &hd_solver_fwd_wino5,       /* 110  5x5 */
    &hd_solver_fwd_fft,         /* 107  FFT */
    &hd_solver_fwd_fft3d,       /* 111  FFT_TILING, 3-d */
    &hd_solver_fwd_fftt,        /* 108  2-d (and names the 3-d refusal) */
};

static const hd_conv_solver *const bwdd_solvers[] = {
    &hd_solver_bwdd_dw,         /* 260  ALGO_0 */
    &hd_solver_bwdd_gemm,       /* 201 */
    &hd_solver_bwdd_1x1,        /* 253  ALGO_1 */
    &hd_solver_bwdd_col2im,     /* 252 */
    &hd_solver_bwdd_batched,    /* 254 */
    &hd_solver_bwdd_phase,      /* 251 */
    &hd_solver_bwdd_blocked,    /* 250 */
    &hd_solver_bwdd_direct,     /* 202 */
    &hd_solver_bwdd_wino_f,     /* 203  WINOGRAD */
    &hd_solver_bwdd_wino4,      /* 207  WINOGRAD_NONFUSED */
    &hd_solver_bwdd_wino_nf,    /* 204 */
    &hd_solver_bwdd_wino4_split, /* 210 FLOAT 5x5 in 3x3 pieces */
    &hd_solver_bwdd_wino5,      /* 208  5x5 */
    &hd_solver_bwdd_fft,        /* 205  FFT */
    &hd_solver_bwdd_fft3d,      /* 209  FFT_TILING, 3-d */
    &hd_solver_bwdd_fftt,       /* 206  2-d */
};

static const hd_conv_solver *const bwdf_solvers[] = {
    &hd_solver_bwdf_dw,         /* 360  ALGO_0 */
    &hd_solver_bwdf_gemm,       /* 301 */
    &hd_solver_bwdf_s2d,        /* 311  ALGO_1: strided stems of <= 4 channels */
    &hd_solver_bwdf_kmajor,     /* 352 */
    &hd_solver_bwdf_ukernel,    /* 351 */
    &hd_solver_bwdf_blocked,    /* 350 */
    &hd_solver_bwdf_direct,     /* 302 */
    &hd_solver_bwdf_tiled,      /* 303  ALGO_3 */
    &hd_solver_bwdf_fft,        /* 304  FFT */
    &hd_solver_bwdf_fft3d,      /* 309  FFT_TILING, 3-d */
    &hd_solver_bwdf_fftt,       /* 305  2-d */
    &hd_solver_bwdf_wino4,      /* 307  WINOGRAD_NONFUSED */
    &hd_solver_bwdf_wino_nf,    /* 306 */
    &hd_solver_bwdf_wino4_split, /* 310 FLOAT 5x5 in 3x3 pieces */
    &hd_solver_bwdf_wino5,      /* 308  5x5 */
};

const hd_conv_solver *const *hd_conv_solvers(hd_conv_dir dir, int *n)
{
    switch (dir) {
    case HD_CONV_FWD: *n = (int)(sizeof fwd_solvers / sizeof *fwd_solvers); return fwd_solvers;
    case HD_CONV_BWD_DATA: *n = (int)(sizeof bwdd_solvers / sizeof *bwdd_solvers); return bwdd_solvers;
    default: *n = (int)(sizeof bwdf_solvers / sizeof *bwdf_solvers); return bwdf_solvers;
    }
}

const hd_conv_solver *hd_conv_solver_find(const char *key)
{
    key += strspn(key, ", ");
    size_t len = strcspn(key, ", ");
    for (int d = 0; d < 3; d++) {
        int n;
        const hd_conv_solver *const *t = hd_conv_solvers((hd_conv_dir)d, &n);
        for (int i = 0; i < n; i++)
            if (names(t[i], key, len))
                return t[i];
    }
    return NULL;
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

/* The registry's plan for solvers without one of their own: the workspace only. */
static int plan_one(const hd_conv_solver *s, const hd_conv_problem *p, hd_conv_plan *pl, const char **reason)
{
    pl->solver = s;
    pl->p = p;
    pl->ws = 0;
    if (s->applicable && !s->applicable(p, reason))
        return 0;
    if (s->plan)
        return s->plan(p, pl, reason);
    pl->ws = s->workspace ? s->workspace(p) : 0;
    if (pl->ws == SIZE_MAX) {
        *reason = "its workspace would not fit in size_t";
        return 0;
    }
    return 1;
}

int hd_conv_plan_for(const hd_conv_solver *s, const hd_conv_problem *p, hd_conv_plan *pl, const char **reason)
{
    pl->memo = NULL;
    return plan_one(s, p, pl, reason);
}

void hd_conv_execute(const hd_conv_plan *pl, const hd_conv_args *a)
{
    if (pl->solver->execute)
        pl->solver->execute(pl, a);
    else
        pl->solver->run(pl->p, a);
}

/* Whether S may answer ALGO of DIR for P at all (INT8 limits). */
static int int8_allows(const hd_conv_problem *p, const hd_conv_solver *s, const char **why)
{
    if (p->int8 && s->algo >= CUDNN_CONVOLUTION_FWD_ALGO_FFT) {
        *why = "INT8 is computed by the GEMM and direct methods only";
        return 0;
    }
    return 1;
}

/* HOSTDNN_CONV_FORCE=<id or name>: the solver it names, when that solver belongs to DIR and
 * ALGO and takes P; NULL otherwise (the warning says why, and the ordinary choice follows). */
static const hd_conv_solver *forced(const hd_conv_problem *p, hd_conv_dir dir, int algo, hd_conv_plan *pl,
                                    const char *env, const char *off)
{
    if (!env || !*env)
        return NULL;
    const hd_conv_solver *s = hd_conv_solver_find(env);
    const char *why = "not applicable";
    if (!s) {
        hd_logf(CUDNN_SEV_WARNING, "HOSTDNN_CONV_FORCE", CUDNN_STATUS_SUCCESS, "no solver is called \"%s\"", env);
        return NULL;
    }
    if (s->dir != dir || s->algo != algo)
        return NULL;                       /* another direction or algorithm: not this call's */
    if (disabled(off, s))
        why = "it is also named by HOSTDNN_CONV_DISABLE";
    else if (int8_allows(p, s, &why) && plan_one(s, p, pl, &why))
        return s;
    hd_logf(CUDNN_SEV_WARNING, s->name, CUDNN_STATUS_SUCCESS,
            "HOSTDNN_CONV_FORCE: solver %d refused the problem (%s); choosing as usual", s->id, why);
    return NULL;
}

const hd_conv_solver *hd_conv_pick(const hd_conv_problem *p, hd_conv_dir dir, int algo, hd_conv_plan *pl,
                                   const char **reason)
{
    int n;
    const hd_conv_solver *const *t = hd_conv_solvers(dir, &n);
    const char *why = missing_reason(dir, algo);
    pl->memo = NULL;
    if (p->int8 && dir != HD_CONV_FWD) {
        *reason = "INT8 configurations are forward only (as in cuDNN)";
        return NULL;
    }
    /* the switches are read once per choice (tests change them between calls) */
    const char *off = getenv("HOSTDNN_CONV_DISABLE");
    const hd_conv_solver *f = forced(p, dir, algo, pl, getenv("HOSTDNN_CONV_FORCE"), off);
    if (f)
        return f;
    int loud = hd_log_info_enabled();
    for (int i = 0; i < n; i++) {
        const hd_conv_solver *s = t[i];
        if (s->algo != algo)
            continue;
        if (!int8_allows(p, s, &why))
            continue;
        const char *r = "not applicable";
        if (disabled(off, s))
            r = "disabled by HOSTDNN_CONV_DISABLE";
        else if (plan_one(s, p, pl, &r))
            return s;
        why = r;
        if (loud)
            hd_logf(CUDNN_SEV_INFO, s->name, CUDNN_STATUS_NOT_SUPPORTED, "solver refused: %s", r);
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
        hd_conv_plan pl;
        const hd_conv_solver *s = hd_conv_pick(p, dir, algo, &pl, &why);
        hd_conv_perf *r = &rows[algo];
        r->algo = algo;
        r->time = -1;
        if (s) {
            r->status = CUDNN_STATUS_SUCCESS;
            r->memory = hd_conv_ws_size(&pl);
            r->deterministic = s->deterministic;
            double f = s->cost ? s->cost(p) : s->cost_factor;
            /* depthwise and tiny reductions: the GEMM call overhead dominates */
            if (p->CRS * p->Kg < 64 && pl.ws > 0)
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

cudnnStatus_t hd_conv_run(const hd_conv_plan *pl, const hd_conv_args *a, const char *fn)
{
    const hd_conv_solver *s = pl->solver;
    size_t need = hd_conv_ws_padded(pl->ws);
    if (a->ws_size < need)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s needs %zu bytes of workspace; %zu given", s->name, need,
                       a->ws_size);
    if (need > 0 && !a->ws)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "workSpace is NULL but %s needs %zu bytes", s->name, need);
    hd_conv_log_dispatch(pl, fn);
    hd_conv_args run = hd_conv_ws_align(a, pl->ws);
    hd_conv_execute(pl, &run);
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
