/*
 * conv/conv_api_util.h -- helpers shared by the convolution entry points of
 * cnn_infer and cnn_train: descriptor checks + problem building, scaling factors, and the
 * timed search behind cudnnFind*.
 */
#ifndef HD_KERNELS_CONV_API_UTIL_H
#define HD_KERNELS_CONV_API_UTIL_H

#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "conv/conv_registry.h"

/* Check the four descriptors (live, right kind, set) and build the problem. */
cudnnStatus_t hd_conv_setup(hd_conv_problem *p, const void *xDesc, const void *wDesc, const void *convDesc,
                            const void *yDesc, const char *fn);

/* *alpha / *beta as double: read as double for DOUBLE data, as float otherwise (INT8 too). */
static inline double hd_conv_scale(const hd_conv_problem *p, const void *s)
{
    return p->scale_dbl ? *(const double *)s : (double)*(const float *)s;
}

/* Time every algorithm of DIR: for each, the first applicable solver runs once to warm up
 * and then is timed (best of two).  A.ws / a.ws_size are the user's workspace (Ex
 * variants: algorithms needing more get ALLOC_FAILED); with own_ws the search allocates
 * what each algorithm needs.  Rows sorted: successes by time, then the others. */
void hd_conv_find(const hd_conv_problem *p, hd_conv_dir dir, hd_conv_args a, int own_ws, hd_conv_perf *rows);

/* The handle's cache of cudnnFind*Algorithm results (non-Ex searches), keyed by direction
 * and problem: a hit copies the stored rows and returns 1. */
int hd_conv_find_cached(cudnnHandle_t h, const hd_conv_problem *p, hd_conv_dir dir, hd_conv_perf *rows);
void hd_conv_find_remember(cudnnHandle_t h, const hd_conv_problem *p, hd_conv_dir dir, const hd_conv_perf *rows);

/* Host buffers for the non-Ex searches, zero-filled; NULL when out of memory. */
void *hd_conv_tensor_buffer(const struct cudnnTensorStruct *t);
void *hd_conv_filter_buffer(const struct cudnnFilterStruct *f);

/* The descriptors of one call in the problem's terms: x, w, y (dy for the backward
 * directions), whichever of them is the output. */
typedef struct hd_conv_descs {
    const void *xDesc, *wDesc, *convDesc, *yDesc;
} hd_conv_descs;

/* The most algorithms any direction has (forward: 8). */
#define HD_CONV_MAX_ALGOS 8

/* Bodies of the entry points, shared by the three directions (conv_api.c).  Each checks the
 * descriptors, builds the problem and logs refusals under FN.  PERF is an array of the
 * direction's cudnnConvolution*AlgoPerf_t. */
cudnnStatus_t hd_conv_api_workspace(hd_conv_dir dir, const hd_conv_descs *d, int algo, size_t *size, const char *fn);
cudnnStatus_t hd_conv_api_rank(hd_conv_dir dir, const hd_conv_descs *d, int requested, int *returned, void *perf,
                               const char *fn);
/* USER: the caller's buffers and workspace (Find*Ex), or NULL to search on buffers of our own
 * (Find; results cached in the handle). */
cudnnStatus_t hd_conv_api_find(cudnnHandle_t h, hd_conv_dir dir, const hd_conv_descs *d, const hd_conv_args *user,
                               int requested, int *returned, void *perf, const char *fn);
/* Run ALGO with the operands in A (x, w, y, out, ws, ws_size set by the caller). */
cudnnStatus_t hd_conv_api_run(cudnnHandle_t h, hd_conv_dir dir, const hd_conv_descs *d, int algo, const void *alpha,
                              const void *beta, hd_conv_args a, const char *fn);

#endif
