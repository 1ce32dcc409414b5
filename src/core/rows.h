/*
 * core/rows.h -- walking one or more strided tensors of the same shape, row by row.
 *
 * Elementwise operations (activation, op-tensor, transform, dropout ...) see their operands
 * as N-d arrays with arbitrary strides (a broadcast operand has stride 0 on its size-1
 * dimensions).  hd_rows_init orders the dimensions by the strides of operand 0 (the
 * output), drops size-1 dimensions and merges dimensions that are contiguous in every
 * operand, so a packed tensor becomes one long row and NHWC walks its channels innermost.
 * hd_rows_run then cuts the rows into pieces of at most HD_ROWS_PIECE elements and deals
 * them to threads in a fixed partition (elementwise work: results never depend on threads).
 *
 * The generic path of every operation converts a piece to double (hd_load_f64), computes,
 * and converts back (hd_store_f64 / hd_blend_f64); float fast paths use src/kernels/eltwise.
 */
#ifndef HD_CORE_ROWS_H
#define HD_CORE_ROWS_H

#include "core/api.h"
#include "core/desc.h"

#define HD_ROWS_MAX_OPS 4
#define HD_ROWS_PIECE 1024

typedef struct {
    int nd;                                       /* >= 1 after merging */
    int n_ops;
    int64_t dims[CUDNN_DIM_MAX + 1];              /* outermost first, innermost last */
    int64_t strides[HD_ROWS_MAX_OPS][CUDNN_DIM_MAX + 1];
    int64_t rows;                                 /* product of all dims but the last */
    int64_t len;                                  /* the last dim */
} hd_rows;

/* STRIDES[k] are the element strides of operand k over the ND dims DIMS. */
void hd_rows_init(hd_rows *r, int nd, const int64_t *dims, int n_ops, const int64_t *const *strides);

/* One piece: N elements starting at element offsets OFF[k]; the inner stride of operand k
 * is r->strides[k][r->nd - 1]. */
typedef void (*hd_rows_fn)(void *ctx, const hd_rows *r, const int64_t *off, int64_t n);

/* Call FN for every piece, on up to NTHREADS threads. */
void hd_rows_run(const hd_rows *r, int nthreads, hd_rows_fn fn, void *ctx);

/* Offsets of the first element of ROW for every operand. */
void hd_rows_offsets(const hd_rows *r, int64_t row, int64_t *off);

/* Element conversions: load N elements of type DT at BASE + OFF (stride STRIDE, in elements)
 * into doubles; store rounds (integers: to nearest even, saturated, NaN -> 0). */
void hd_load_f64(cudnnDataType_t dt, const void *base, int64_t off, int64_t stride, int64_t n, double *out);
void hd_store_f64(cudnnDataType_t dt, void *base, int64_t off, int64_t stride, int64_t n, const double *in);

/* y = alpha * v + beta * y on N elements; y is not read when beta == 0. */
void hd_blend_f64(cudnnDataType_t dt, void *base, int64_t off, int64_t stride, int64_t n, const double *v,
                  double alpha, double beta);

/* One element, for gathers over irregular offsets. */
static inline double hd_ld1(cudnnDataType_t dt, const void *base, int64_t off)
{
    double v;
    hd_load_f64(dt, base, off, 1, 1, &v);
    return v;
}

static inline void hd_st1(cudnnDataType_t dt, void *base, int64_t off, double v)
{
    hd_store_f64(dt, base, off, 1, 1, &v);
}

/* The value of a host scaling factor: a double for DOUBLE data, a float otherwise. */
static inline double hd_scale_value(const void *p, cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? *(const double *)p : (double)*(const float *)p;
}

/* Tensor dims/strides as 64-bit arrays. */
void hd_tensor_dims64(const struct cudnnTensorStruct *t, int64_t *dims, int64_t *strides);

/* True when A and B have the same nbDims and dims. */
int hd_same_dims(const struct cudnnTensorStruct *a, const struct cudnnTensorStruct *b);

/* True when the memory spans of the two tensors overlap. */
int hd_tensors_overlap(const struct cudnnTensorStruct *a, const void *pa, const struct cudnnTensorStruct *b,
                       const void *pb);

#endif
