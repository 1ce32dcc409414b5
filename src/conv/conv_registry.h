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

typedef struct hd_conv_solver {
    int id;                       /* stable, never reused */
    const char *name;
    hd_conv_dir dir;
    int algo;                     /* the cuDNN algorithm enum of this direction */
    int deterministic;
    int (*applicable)(const hd_conv_problem *p, const char **reason);
    size_t (*workspace)(const hd_conv_problem *p);   /* SIZE_MAX: too large to address */
    void (*execute)(const hd_conv_problem *p, const hd_conv_args *a);
    double cost_factor;           /* relative time per multiply-add, for the instant ranking; set
                                   * from single-thread CPU-time measurements of a 64->64 channel
                                   * 3x3 28x28 layer (retune when kernels change) */
    double (*cost)(const hd_conv_problem *p);   /* optional shape-aware estimate (same unit as
                                   * cost_factor: relative time per multiply-add); NULL: cost_factor */
} hd_conv_solver;

/* Number of cuDNN algorithm enums of DIR (FWD 8, BWD_DATA 6, BWD_FILTER 7). */
int hd_conv_algo_count(hd_conv_dir dir);

/* First solver of DIR tagged ALGO that accepts P; NULL with *reason set otherwise. */
const hd_conv_solver *hd_conv_pick(const hd_conv_problem *p, hd_conv_dir dir, int algo, const char **reason);

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
 * workspace is 16 bytes past one; every 64-byte load of a packed panel then split two lines,
 * and solver 150 ran 1.4x slower at batch 1).  0 stays 0; SIZE_MAX (too large) stays. */
#define HD_CONV_WS_SLACK 64
static inline size_t hd_conv_ws_padded(size_t raw)
{
    return raw == 0 || raw == SIZE_MAX ? raw : raw > SIZE_MAX - HD_CONV_WS_SLACK ? SIZE_MAX : raw + HD_CONV_WS_SLACK;
}
size_t hd_conv_ws_size(const hd_conv_solver *s, const hd_conv_problem *p);

/* A with its workspace pointer rounded up to a cache line and its size RAW, the solver's own
 * (s->workspace; a->ws_size must be at least hd_conv_ws_padded(RAW)). */
hd_conv_args hd_conv_ws_align(const hd_conv_args *a, size_t raw);

/* Run the solver, or refuse: BAD_PARAM when the workspace is smaller than it needs. */
cudnnStatus_t hd_conv_run(const hd_conv_solver *s, const hd_conv_problem *p, const hd_conv_args *a, const char *fn);

/* Build the im2col matrix of image n, group g, for output positions [p0, p0+np): row
 * crs (c, t, r, s of the group) holds the inputs that meet filter tap crs; zero where the tap
 * falls in the padding.  dst is CRS x np (row stride ld), in float or double (p->dbl). */
void hd_conv_im2col(const hd_conv_problem *p, const void *x, int64_t n, int64_t g, int64_t p0, int64_t np, void *dst,
                    int64_t ld, int nthreads);

#endif
