/*
 * tests/ref/ops_tt.h -- test tensors for the ops tests: a cuDNN descriptor plus a buffer
 * in one of several layouts, and conversion between the buffer and a packed logical
 * (row-major over the dims, i.e. NCHW order) array of doubles.  Independent of src/.
 */
#ifndef HD_TEST_OPS_TT_H
#define HD_TEST_OPS_TT_H

#include <cudnn.h>
#include <stddef.h>
#include <stdint.h>

enum { OPT_NCHW, OPT_NHWC, OPT_PADDED, OPT_NLAYOUTS };

typedef struct {
    int nd;
    int dims[8];
    int strides[8];
    cudnnDataType_t dt;
    size_t esize;
    size_t bytes;          /* buffer size */
    size_t n;              /* logical elements */
    unsigned char *data;
    cudnnTensorDescriptor_t desc;
} opt_t;

/* Make a tensor of DIMS in LAYOUT (OPT_PADDED: NCHW order with a gap after every dim). */
int opt_make(opt_t *t, cudnnDataType_t dt, int nd, const int *dims, int layout);
void opt_free(opt_t *t);

/* Element (logical index I) read/write, rounding to the type on write. */
double opt_get(const opt_t *t, size_t i);
void opt_set(opt_t *t, size_t i, double v);

/* Fill every element with uniform values in [lo, hi) from a simple LCG (rounded to type). */
void opt_fill(opt_t *t, double lo, double hi, unsigned seed);
/* Fill the whole buffer (padding included) with NaN bit patterns (or 0x7f bytes for ints). */
void opt_poison(opt_t *t);

/* Round V as the type would store it. */
double opt_round(cudnnDataType_t dt, double v);
/* Relative tolerance of type DT for results of a few operations. */
double opt_tol(cudnnDataType_t dt);
const char *opt_dtname(cudnnDataType_t dt);
const char *opt_layoutname(int layout);

/* Float <-> half / bfloat16 done independently of the library. */
uint16_t opt_f2h(float f);
float opt_h2f(uint16_t h);
uint16_t opt_f2bf(float f);
float opt_bf2f(uint16_t h);

/* Compare T with expected logical values E: |got - e| <= tol * (1 + |e|); NaN must match
 * NaN.  Returns the number of mismatches (prints the first few with LABEL). */
int opt_compare(const opt_t *t, const double *e, double tol, const char *label);

/* True when the padding bytes (not covered by elements) still hold the poison pattern. */
int opt_padding_intact(const opt_t *t);

#endif
