/*
 * tests/ref/normpool_ref.h -- float64 references for pooling, LRN, divisive normalization
 * and batch normalization, written from the formulas (not from src/).  All arrays are
 * logical, packed NCHW-order doubles; results are unblended (alpha = 1, beta = 0).
 * Plus helpers that move logical arrays in and out of strided typed buffers.
 */
#ifndef HD_TESTS_NORMPOOL_REF_H
#define HD_TESTS_NORMPOOL_REF_H

#include <cudnn.h>
#include <stddef.h>

/* ---- typed strided buffers ---- */
double ref_from_type(cudnnDataType_t t, const void *p, long long i);
void ref_to_type(cudnnDataType_t t, void *p, long long i, double v);
size_t ref_type_size(cudnnDataType_t t);
/* Scalar offset of logical element IDX (nb indices); VECT > 1 for NCHW_VECT_C (strides in vectors). */
long long ref_offset(int nb, const int *strides, int vect, const int *idx);
/* logical <-> buffer; STRIDES as in the tensor descriptor. */
void ref_scatter(cudnnDataType_t t, void *buf, int nb, const int *dims, const int *strides, int vect, const double *logical);
void ref_gather(cudnnDataType_t t, const void *buf, int nb, const int *dims, const int *strides, int vect, double *logical);
/* Round V as storing in T would (for building exact expectations). */
double ref_round(cudnnDataType_t t, double v);
long long ref_count(int nb, const int *dims);

/* ---- pooling ---- */
/* mode: 0 max, 1 avg incl pad, 2 avg excl pad, 3 max deterministic (as cudnnPoolingMode_t). */
void ref_pool_fwd(int mode, int propagate_nan, int nsp, const int *win, const int *pad, const int *stride, int N, int C,
                  const int *in, const int *out, const double *x, double *y);
void ref_pool_bwd(int mode, int propagate_nan, int nsp, const int *win, const int *pad, const int *stride, int N, int C,
                  const int *in, const int *out, const double *x, const double *dy, double *dx);

/* ---- LRN across channels (x: N x C x S) ---- */
void ref_lrn_fwd(int N, int C, int S, unsigned n, double a, double b, double k, const double *x, double *y);
void ref_lrn_bwd(int N, int C, int S, unsigned n, double a, double b, double k, const double *x, const double *dy,
                 double *dx);

/* ---- divisive normalization (nsp = 2 or 3 spatial dims) ---- */
void ref_divnorm_fwd(int N, int C, int nsp, const int *sp, unsigned n, double a, double b, double k, const double *x,
                     const double *means, double *y);
void ref_divnorm_bwd(int N, int C, int nsp, const int *sp, unsigned n, double a, double b, double k, const double *x,
                     const double *means, const double *dy, double *dx);

/* ---- batch normalization (x: N x C x S; per_act: features C*S, else C) ---- */
void ref_bn_stats(int per_act, int N, int C, int S, const double *x, double *mean, double *var_biased);
void ref_bn_fwd(int per_act, int N, int C, int S, const double *x, const double *scale, const double *bias,
                const double *mean, const double *var, double eps, double *y);
void ref_bn_bwd(int per_act, int N, int C, int S, const double *x, const double *dy, const double *scale,
                const double *mean, const double *invstd, double *dx, double *dscale, double *dbias);

#endif
