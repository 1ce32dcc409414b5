/*
 * conv/conv_api.c -- the bodies of the convolution entry points, written once for
 * the three directions.  cnn_infer (forward, backward data) and cnn_train (backward filter)
 * keep thin wrappers that check their own pointers and name their operands; everything
 * after that -- problem building, algorithm choice, workspace, ranking, search, execution --
 * is here, so the three directions cannot drift apart.
 */
#include "conv/conv_api_util.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The three cudnnConvolution*AlgoPerf_t structs have one layout; rows are written through the
 * forward one and copied, so one routine fills any of them. */
_Static_assert(sizeof(cudnnConvolutionFwdAlgoPerf_t) == sizeof(cudnnConvolutionBwdDataAlgoPerf_t) &&
                   sizeof(cudnnConvolutionFwdAlgoPerf_t) == sizeof(cudnnConvolutionBwdFilterAlgoPerf_t),
               "the algorithm performance structs share one layout");
_Static_assert(offsetof(cudnnConvolutionBwdFilterAlgoPerf_t, mathType) == offsetof(cudnnConvolutionFwdAlgoPerf_t, mathType),
               "the algorithm performance structs share one layout");

static const char *const dir_name[3] = {"forward", "backward data", "backward filter"};
static const char *const algo_type[3] = {"cudnnConvolutionFwdAlgo_t", "cudnnConvolutionBwdDataAlgo_t",
                                         "cudnnConvolutionBwdFilterAlgo_t"};

static void fill_perf(const hd_conv_perf *rows, int n, cudnnMathType_t math, void *out)
{
    for (int i = 0; i < n; i++) {
        cudnnConvolutionFwdAlgoPerf_t o;
        memset(&o, 0, sizeof o);
        o.algo = (cudnnConvolutionFwdAlgo_t)rows[i].algo;
        o.status = rows[i].status;
        o.time = rows[i].time;
        o.memory = rows[i].memory;
        o.determinism = rows[i].deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
        o.mathType = math;
        memcpy((char *)out + (size_t)i * sizeof o, &o, sizeof o);
    }
}

static cudnnStatus_t setup(hd_conv_problem *p, const hd_conv_descs *d, const char *fn)
{
    return hd_conv_setup(p, d->xDesc, d->wDesc, d->convDesc, d->yDesc, fn);
}

/* The plan of the solver that runs ALGO for P, or the logged refusal. */
static cudnnStatus_t pick(const hd_conv_problem *p, hd_conv_dir dir, int algo, hd_conv_plan *pl, const char *fn)
{
    if (algo < 0 || algo >= hd_conv_algo_count(dir))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "algo %d is not a %s", algo, algo_type[dir]);
    const char *why;
    if (!hd_conv_pick(p, dir, algo, pl, &why))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s algo %d: %s", dir_name[dir], algo, why);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_conv_api_workspace(hd_conv_dir dir, const hd_conv_descs *d, int algo, size_t *size, const char *fn)
{
    hd_conv_problem p;
    hd_conv_plan pl;
    cudnnStatus_t st = setup(&p, d, fn);
    if (st == CUDNN_STATUS_SUCCESS)
        st = pick(&p, dir, algo, &pl, fn);
    if (st == CUDNN_STATUS_SUCCESS)
        *size = hd_conv_ws_size(&pl);
    return st;
}

static cudnnStatus_t check_request(int requested, const int *returned, const void *perf, const char *fn)
{
    if (!returned || !perf)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "returnedAlgoCount or perfResults is NULL");
    if (requested <= 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "requestedAlgoCount must be positive (got %d)", requested);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_conv_api_rank(hd_conv_dir dir, const hd_conv_descs *d, int requested, int *returned, void *perf,
                               const char *fn)
{
    cudnnStatus_t st = check_request(requested, returned, perf, fn);
    hd_conv_problem p;
    if (st == CUDNN_STATUS_SUCCESS)
        st = setup(&p, d, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    hd_conv_perf rows[HD_CONV_MAX_ALGOS];
    hd_conv_rank(&p, dir, rows);
    int count = hd_conv_algo_count(dir), n = requested < count ? requested : count;
    fill_perf(rows, n, p.math, perf);
    *returned = n;
    return CUDNN_STATUS_SUCCESS;
}

/* The measured search on the buffers in A (own: buffers hostdnn made, so the result may be
 * cached in the handle and reused). */
static void search(cudnnHandle_t h, const hd_conv_problem *p, hd_conv_dir dir, hd_conv_args a, int own, int requested,
                   int *returned, void *perf)
{
    hd_conv_perf rows[HD_CONV_MAX_ALGOS];
    a.nthreads = h->num_threads;
    if (!own || !hd_conv_find_cached(h, p, dir, rows)) {
        hd_conv_find(p, dir, a, own, rows);
        if (own)
            hd_conv_find_remember(h, p, dir, rows);
    }
    int count = hd_conv_algo_count(dir), n = requested < count ? requested : count;
    fill_perf(rows, n, p->math, perf);
    *returned = n;
}

cudnnStatus_t hd_conv_api_find(cudnnHandle_t h, hd_conv_dir dir, const hd_conv_descs *d, const hd_conv_args *user,
                               int requested, int *returned, void *perf, const char *fn)
{
    cudnnStatus_t st = check_request(requested, returned, perf, fn);
    hd_conv_problem p;
    if (st == CUDNN_STATUS_SUCCESS)
        st = setup(&p, d, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (user) {                                   /* Find*Ex: the caller's buffers and workspace */
        hd_conv_args a = *user;
        if (!a.ws)
            a.ws_size = 0;
        search(h, &p, dir, a, 0, requested, returned, perf);
        return CUDNN_STATUS_SUCCESS;
    }
    /* Find: search on zero-filled buffers of our own; the operands the direction reads come
     * from x, w and y, and its output goes to the slot it writes. */
    void *x = hd_conv_tensor_buffer(d->xDesc), *w = hd_conv_filter_buffer(d->wDesc), *y = hd_conv_tensor_buffer(d->yDesc);
    if (!x || !w || !y) {
        st = hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "out of host memory for the search buffers");
    } else {
        hd_conv_args a;
        memset(&a, 0, sizeof a);
        a.x = x, a.w = w, a.y = y;
        a.out = dir == HD_CONV_FWD ? y : dir == HD_CONV_BWD_DATA ? x : w;
        search(h, &p, dir, a, 1, requested, returned, perf);
    }
    free(x), free(w), free(y);
    return st;
}

cudnnStatus_t hd_conv_api_run(cudnnHandle_t h, hd_conv_dir dir, const hd_conv_descs *d, int algo, const void *alpha,
                              const void *beta, hd_conv_args a, const char *fn)
{
    hd_conv_problem p;
    hd_conv_plan pl;
    cudnnStatus_t st = setup(&p, d, fn);
    if (st == CUDNN_STATUS_SUCCESS)
        st = pick(&p, dir, algo, &pl, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (!a.ws)
        a.ws_size = 0;
    a.nthreads = h->num_threads;
    a.epi.alpha = hd_conv_scale(&p, alpha);
    a.epi.beta = hd_conv_scale(&p, beta);
    return hd_conv_run(&pl, &a, fn);
}
