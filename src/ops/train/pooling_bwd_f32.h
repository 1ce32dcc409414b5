/*
 * ops/train/pooling_bwd_f32.h -- what the FLOAT 2-d paths of cudnnPoolingBackward share:
 * the call's context (pooling_bwd_f32.c fills it), the walk over covering output rows, and the
 * tasks of max pooling on row-contiguous planes (pooling_bwd_f32_maxplane.c).
 */
#ifndef HD_OPS_TRAIN_POOLING_BWD_F32_H
#define HD_OPS_TRAIN_POOLING_BWD_F32_H

#include <stddef.h>
#include <stdint.h>
#include "core/elem.h"
#include "kernels/pool/pool-ukernels.h"

struct cudnnPoolingStruct;

typedef struct {
    const struct cudnnPoolingStruct *p;
    const hd_view *dy, *x, *dx;
    const float *dyp, *xp;
    float *dxp;
    double alpha, beta;
    int maxm, prop, incl, nhwc;
    int kh;                  /* ring rows (max): the window height, at most H */
    int nslot;               /* output rows kept (average gather): the most that cover one input row */
    int nblk, rows_per_blk;  /* row blocks per plane (or image): input rows, output rows for the tiles */
    int64_t aw;              /* ring row length (max, planes path) */
    size_t sl, lpad;         /* average gather, planes path: share row length with its padding, left part */
    size_t per_thread;       /* doubles of scratch per thread */
    double *scratch;
    int stream;              /* dx rows streamed (beta 0, long channel-contiguous rows) */
    hd_f32_pool_rowargmax_fn rowargmax;
    hd_f32_pool_argmax_fn argmax;
    hd_f32_pool_flush_fn flush;
    hd_f32_pool_gatherrow_fn gatherrow;
    hd_f32_pool_gatherpix_fn gatherpix;
    hd_f32_pool_share_fn share;
    hd_f32_pool_broadcast_fn broadcast;
    hd_f32_pool_fence_fn fence;      /* after a task's last streamed store */
    hd_f32_pool_argmax8_fn argmax8;
    hd_f32_pool_maxgatherrow_fn maxgatherrow;
    int ncol;                /* max gather: the most outputs whose windows cover one input column */
    hd_f32_pool_maxgatherplane_fn maxgatherplane;
} hd_pool_bwd_ctx;

/* Output rows [*oh0, *oh1) whose windows meet input rows [r0, r1). */
void hd_pool_bwd_out_rows(const hd_pool_bwd_ctx *k, int r0, int r1, int *oh0, int *oh1);

/* The output rows whose windows cover input row ih, [*first, *next): *first moves past rows
 * that end at or above ih, *next past rows that start at or above it (window starts and ends
 * never move up, so both only grow); make(oh) runs for each row as *next passes it. */
typedef void (*hd_pool_bwd_make_fn)(const hd_pool_bwd_ctx *k, void *task, int oh);
void hd_pool_bwd_cover(const hd_pool_bwd_ctx *k, int ih, int oh_end, int *first, int *next, hd_pool_bwd_make_fn make,
                       void *task);

/* Max pooling on row-contiguous planes, one task per (n, c, row block): by scatter into a
 * ring of double rows, and by gathering (needs maxgatherplane, contiguous rows of dy and dx). */
void hd_pool_bwd_max_plane_task(void *vctx, size_t t, int thread);
void hd_pool_bwd_max_plane_gather_task(void *vctx, size_t t, int thread);

#endif
