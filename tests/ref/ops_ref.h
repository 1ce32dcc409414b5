/*
 * tests/ref/ops_ref.h -- float64 references for the tensor operations, activation,
 * softmax and reduction, on packed logical arrays (row-major over the dims).  Written from
 * the cuDNN definitions, independently of src/.
 */
#ifndef HD_TEST_OPS_REF_H
#define HD_TEST_OPS_REF_H

#include <stddef.h>

/* mode: 0 sigmoid, 1 relu, 2 tanh, 3 clipped relu, 4 elu (cudnnActivationMode_t values) */
double ref_act(int mode, int propagate_nan, double coef, double x);
double ref_act_grad(int mode, int propagate_nan, double coef, double y, double dy, double x);

/* Softmax over N x C x S (S = spatial product).  algo 0 fast, 1 accurate, 2 log;
 * channel = 1 for CHANNEL mode. */
void ref_softmax_fwd(int algo, int channel, int n, int c, int s, const double *x, double *y);
void ref_softmax_bwd(int algo, int channel, int n, int c, int s, const double *y, const double *dy, double *dx);

/* Index into a tensor of dims BDIMS (each 1 or equal to DIMS) for logical index I of DIMS. */
size_t ref_bcast_index(int nd, const int *dims, const int *bdims, size_t i);

/* op: 0 add, 1 mul, 2 min, 3 max, 4 sqrt, 5 not (cudnnOpTensorOp_t values) */
double ref_op(int op, int propagate_nan, double a, double b);

/* Reduce A (dims ADIMS) into C (dims CDIMS, each 1 or equal).  op: cudnnReduceTensorOp_t.
 * IDX (may be NULL) receives the flattened index, within the reduced dims, of the
 * selected element for MIN/MAX/AMAX (first occurrence). */
void ref_reduce(int op, int nd, const int *adims, const int *cdims, const double *a, double *c, unsigned *idx);

#endif

/* Spatial transformer (2-d, bilinear, zero outside, corners at -1 and 1). */
void ref_st_grid(int n, int h, int w, const double *theta, double *grid);
/* x is N x C x Hi x Wi packed, grid N x H x W x 2, y N x C x H x W packed. */
void ref_st_sample(int n, int c, int hi, int wi, int h, int w, const double *x, const double *grid, double *y);
void ref_st_sample_bwd(int n, int c, int hi, int wi, int h, int w, const double *x, const double *grid,
                       const double *dy, double *dx, double *dgrid);
