/*
 * norm/bn_engine.h -- the batch-normalization engine behind cudnnBatchNormalization*
 * and cudnnNormalization* (in libcudnn_ops_infer; ops_train calls it through the private
 * interface).  bn_check.c: arguments and parameters; bn_layout.c: memory layouts and chunks;
 * bn_forward.c: statistics and the forward apply; bn_backward.c: the backward passes.
 *
 * A problem is x of N x C x spatial (1 to 3 spatial dims, any strides, FLOAT / DOUBLE / HALF
 * / BFLOAT16 storage).  A "feature" is a channel (spatial modes) or a channel and spatial
 * position (per-activation mode); statistics of a feature reduce over everything else.
 *
 * Determinism: statistics are reduced in a fixed partition (spatial modes: each channel's
 * samples cut into chunks of about HD_BN_CHUNK values -- whole (n, c) planes, or pixel
 * ranges for channel-contiguous FLOAT layouts; per-activation: one task per channel) and
 * the chunk results are combined in chunk order, so results are bitwise the same for any
 * thread count.  Callers validate everything first: the engine never fails.
 *
 * Paths: FLOAT / HALF / BFLOAT16 rows with packed spatial dims run the row kernels of
 * bn-ukernels.h (16-bit rows converted to float first); channel-contiguous layouts of these
 * types run the column kernels (16-bit blocks converted); everything else runs generic loops
 * in double.
 */
#ifndef HD_NORM_BN_ENGINE_H
#define HD_NORM_BN_ENGINE_H

#include "core/elem.h"

#define HD_BN_CHUNK 16384

/* The activation of the fused (Ex / NORM_ACTIVATION) variants. */
typedef struct {
    int on;
    cudnnActivationMode_t mode;
    int propagate_nan;
    double coef;
} hd_bn_act;

/* act(v); *deriv (if not NULL) gets act'(v). */
double hd_bn_act_apply(const hd_bn_act *a, double v, double *deriv);

/* Read the mode and coefficient of an activation descriptor (core/desc_set.h).  FN is the
 * caller's name for the log. */
cudnnStatus_t hd_bn_act_read(const char *fn, cudnnActivationDescriptor_t d, hd_bn_act *out);

typedef struct {
    int per_act;             /* 1: PER_ACTIVATION; 0: SPATIAL / SPATIAL_PERSISTENT */
    int N, C, S;             /* S = product of the spatial dims */
    int F;                   /* features: C, or C * S */
    hd_view x, y, z, dy, dx, dz;
    const void *xp, *zp, *dyp;
    void *yp, *dxp, *dzp;    /* zp / dzp NULL when unused */
    hd_bn_act act;
    float *reserve;          /* NULL, or one float per element: act'(v), logical NCHW order */
    int nthreads, isa;
} hd_bn_problem;

/* Fill the shape part of PB from x (4-d or 5-d) and the mode. */
void hd_bn_problem_init(hd_bn_problem *pb, const struct cudnnTensorStruct *xDesc, int per_act, int nthreads, int isa);

/* Bytes of scratch the engine calls below need. */
size_t hd_bn_scratch_bytes(const hd_bn_problem *pb);

/* mean[F] and biased var[F] of x. */
void hd_bn_stats(const hd_bn_problem *pb, double *mean, double *var, void *scratch);

/* y = alpha * act(a[f] * (x - m[f]) + b[f] (+ z)) + beta * y; also fills pb->reserve when set.
 * M (NULL: zeros) is the mean: subtracting it first keeps a large mean from cancelling in
 * the float kernels. */
void hd_bn_apply(const hd_bn_problem *pb, const double *m, const double *a, const double *b, double alpha, double beta,
                 void *scratch);

/* Per feature: sdy = sum g, sdyx = sum g * (x - mean[f]), where g = dy (* reserve). */
void hd_bn_bwd_sums(const hd_bn_problem *pb, const double *mean, double *sdy, double *sdyx, void *scratch);

/* Backward without saved statistics in one pass over x and dy: mean, biased var, and the sums of
 * hd_bn_bwd_sums.  Returns 0 where it does not apply -- per-activation mode, a
 * fused activation, x or dy not FLOAT rows with packed spatial dims -- or where the shifted
 * sums would cancel (some outputs may then have been written); the caller then runs
 * hd_bn_stats and hd_bn_bwd_sums. */
int hd_bn_stats_bwd_sums(const hd_bn_problem *pb, double *mean, double *var, double *sdy, double *sdyx, void *scratch);

/* dx = alpha * (p[f] * g + q[f] * (x - m[f]) + r[f]) + beta * dx, and dz = g when pb->dzp
 * (M: the mean, NULL for zeros). */
void hd_bn_bwd_apply(const hd_bn_problem *pb, const double *m, const double *p, const double *q, const double *r,
                     double alpha, double beta, void *scratch);

/* Parameter tensors (scale, bias, mean, variance) as F doubles, and back. */
void hd_bn_param_load(const hd_bn_problem *pb, const struct cudnnTensorStruct *d, const void *p, double *out);
void hd_bn_param_store(const hd_bn_problem *pb, const struct cudnnTensorStruct *d, void *p, const double *v,
                       double alpha, double beta);

/* The checks shared by every BN / normalization entry point. */
cudnnStatus_t hd_bn_check_x(const char *fn, const struct cudnnTensorStruct *x, const char *name);
cudnnStatus_t hd_bn_check_like_x(const char *fn, const struct cudnnTensorStruct *x, const struct cudnnTensorStruct *t,
                                 const char *name);
cudnnStatus_t hd_bn_check_param(const char *fn, const struct cudnnTensorStruct *x, const struct cudnnTensorStruct *p,
                                int per_act, const char *name);
/* The derived parameter descriptor's type for data of type T. */
cudnnDataType_t hd_bn_param_type(cudnnDataType_t t);

#endif
