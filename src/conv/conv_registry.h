/*
 * conv/conv_registry.h -- the convolution algorithm registry (MIOpen solver style).
 *
 * One static table per direction lists solvers from most specialised to most general.
 * Each solver carries its stable id, name, the cuDNN algorithm enum it answers to, an
 * applicability check that gives a reason when it refuses, its workspace size (computed by
 * the same layout function its execution uses), its execution, and whether it is
 * deterministic.  See docs/algorithms.md.
 */
#ifndef HD_KERNELS_CONV_REGISTRY_H
#define HD_KERNELS_CONV_REGISTRY_H

#include "conv/conv_problem.h"

typedef enum { HD_CONV_FWD = 0, HD_CONV_BWD_DATA = 1, HD_CONV_BWD_FILTER = 2 } hd_conv_dir;

/* What happens to each computed value v before it is stored at output element `o`:
 *   plain:  o = alpha * v + beta * o          (beta == 0: o is not read)
 *   fused:  o = act(alpha * v + alpha2 * z + bias[channel])   (forward only) */
typedef struct hd_conv_epilogue {
    double alpha, beta;
    int fused;
    double alpha2;
    const void *z;                /* same layout as the output */
    const void *bias;
    cudnnDataType_t bias_dt;      /* y's type, FLOAT for the INT8 configurations */
    int64_t bias_stride;          /* elements between channels of bias */
    int relu;                     /* 1: max(0, .), 0: identity */
} hd_conv_epilogue;

typedef struct hd_conv_args {
    const void *x, *w, *y;        /* x, w, y (dy for the backward directions); the output's own slot unused */
    void *out;                    /* y (forward), dx (backward data) or dw (backward filter) */
    void *ws;
    size_t ws_size;
    int nthreads;
    hd_conv_epilogue epi;
} hd_conv_args;

struct hd_conv_solver;

/* Bytes a solver may keep in a plan (its tiling and kernel choices). */
#define HD_CONV_PLAN_PRIV 1024

/* What a solver decided for one problem, computed once per call and carried to the
 * execution: its workspace and whatever private choices it made (tiling, kernels). */
typedef struct hd_conv_plan {
    const struct hd_conv_solver *solver;
    const hd_conv_problem *p;
    size_t ws;                    /* the solver's own workspace bytes (before HD_CONV_WS_SLACK) */
    const void *memo;             /* which planner's result priv holds: solvers that are variants of
                                   * one planner reuse it while the registry walks them */
    _Alignas(64) unsigned char priv[HD_CONV_PLAN_PRIV];
} hd_conv_plan;

/*
 * One solver.  The contract:
 *   applicable(problem)      cheap checks of the problem alone (types, shapes); NULL: any;
 *   plan(problem, &plan)     the solver's decisions for the problem, its workspace included;
 *                            it may still refuse (with a reason), e.g. when the workspace would
 *                            not fit, or when the plan belongs to another variant;
 *   execute(plan, args)      runs the plan.
 * Solvers without choices to keep give `workspace` and `run` instead of `plan` and `execute`;
 * their plan holds the workspace only.
 */
typedef struct hd_conv_solver {
    int id;                       /* stable, never reused */
    const char *name;
    hd_conv_dir dir;
    int algo;                     /* the cuDNN algorithm enum of this direction */
    int deterministic;
    int family;                   /* a variant of this solver's id (HOSTDNN_CONV_DISABLE naming the
                                   * family turns its variants off too); 0: none */
    int (*applicable)(const hd_conv_problem *p, const char **reason);
    int (*plan)(const hd_conv_problem *p, hd_conv_plan *pl, const char **reason);
    void (*execute)(const hd_conv_plan *pl, const hd_conv_args *a);
    size_t (*workspace)(const hd_conv_problem *p);   /* plan-less solvers; SIZE_MAX: too large */
    void (*run)(const hd_conv_problem *p, const hd_conv_args *a);
    double cost_factor;           /* relative time per multiply-add, for the instant ranking; set
                                   * from single-thread CPU-time measurements of a 64->64 channel
                                   * 3x3 28x28 layer (retune when kernels change) */
    double (*cost)(const hd_conv_problem *p);   /* optional shape-aware estimate (same unit as
                                   * cost_factor: relative time per multiply-add); NULL: cost_factor */
} hd_conv_solver;

/* The registered solvers of DIR, most specialised first (*n of them). */
const hd_conv_solver *const *hd_conv_solvers(hd_conv_dir dir, int *n);

/* The solver with this id or name (any direction; the first word of KEY, words separated by
 * commas or spaces); NULL when none. */
const hd_conv_solver *hd_conv_solver_find(const char *id_or_name);

/* Number of cuDNN algorithm enums of DIR (FWD 8, BWD_DATA 6, BWD_FILTER 7). */
int hd_conv_algo_count(hd_conv_dir dir);

/* The solver that runs ALGO of DIR for P, planned into *PL: the one HOSTDNN_CONV_FORCE names
 * when it takes the problem, else the first solver tagged ALGO that takes it (and is not
 * turned off by HOSTDNN_CONV_DISABLE).  NULL with *reason set when none does. */
const hd_conv_solver *hd_conv_pick(const hd_conv_problem *p, hd_conv_dir dir, int algo, hd_conv_plan *pl,
                                   const char **reason);

/* Plan P for S alone (no environment consulted): 1, or 0 with *reason set. */
int hd_conv_plan_for(const hd_conv_solver *s, const hd_conv_problem *p, hd_conv_plan *pl, const char **reason);

/* Run the plan once (the workspace already checked and aligned). */
void hd_conv_execute(const hd_conv_plan *pl, const hd_conv_args *a);

/* One entry of a heuristic or measured ranking. */
typedef struct hd_conv_perf {
    int algo;
    cudnnStatus_t status;
    float time;                   /* ms; -1 when not measured */
    size_t memory;
    int deterministic;
} hd_conv_perf;

/* Rank every algorithm of DIR for P (instant heuristic): the applicable ones by estimated
 * cost, then the refused ones (status NOT_SUPPORTED).  Fills hd_conv_algo_count(dir) rows. */
void hd_conv_rank(const hd_conv_problem *p, hd_conv_dir dir, hd_conv_perf *rows);

/* Workspace bytes S needs for P as the API reports them (Get*WorkspaceSize, the rankings,
 * Find): the solver's layout plus HD_CONV_WS_SLACK bytes when it needs any, so that the layout
 * can start on a cache line whatever the alignment of the caller's buffer (a malloc'd
 * workspace is 16 bytes past one; every 64-byte load of a packed panel would then split two
 * lines).  0 stays 0; SIZE_MAX (too large) stays. */
#define HD_CONV_WS_SLACK 64
static inline size_t hd_conv_ws_padded(size_t raw)
{
    return raw == 0 || raw == SIZE_MAX ? raw : raw > SIZE_MAX - HD_CONV_WS_SLACK ? SIZE_MAX : raw + HD_CONV_WS_SLACK;
}
static inline size_t hd_conv_ws_size(const hd_conv_plan *pl) { return hd_conv_ws_padded(pl->ws); }

/* A with its workspace pointer rounded up to a cache line and its size RAW, the solver's own
 * (plan.ws; a->ws_size must be at least hd_conv_ws_padded(RAW)). */
hd_conv_args hd_conv_ws_align(const hd_conv_args *a, size_t raw);

/* Run the plan, or refuse: BAD_PARAM when the workspace is smaller than it needs.  Logs the
 * dispatch (solver and problem) at info level under FN. */
cudnnStatus_t hd_conv_run(const hd_conv_plan *pl, const hd_conv_args *a, const char *fn);

/* The dispatch record of PL under FN (info level; conv_dispatch_log.c). */
void hd_conv_log_dispatch(const hd_conv_plan *pl, const char *fn);

/* Build the im2col matrix of image n, group g, for output positions [p0, p0+np): row
 * crs (c, t, r, s of the group) holds the inputs that meet filter tap crs; zero where the tap
 * falls in the padding.  dst is CRS x np (row stride ld), in float or double (p->dbl). */
void hd_conv_im2col(const hd_conv_problem *p, const void *x, int64_t n, int64_t g, int64_t p0, int64_t np, void *dst,
                    int64_t ld, int nthreads);

#endif
