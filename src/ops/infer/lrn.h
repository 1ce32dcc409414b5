/*
 * ops/infer/lrn.h -- the LRN descriptor (shared by ops_infer and ops_train; append fields
 * only) and the window helpers of LRN and divisive normalization.
 *
 * Window of width n around position i: [i - lookBehind, i + lookAhead] with
 * lookBehind = (n - 1) / 2 and lookAhead = n - lookBehind - 1, clipped to the tensor.
 */
#ifndef HD_OPS_LRN_H
#define HD_OPS_LRN_H

#include "core/api.h"
#include "core/object.h"

struct cudnnLRNStruct {
    hd_object obj;
    unsigned n;
    double alpha, beta, k;
};

static inline int hd_lrn_behind(unsigned n) { return (int)(n - 1) / 2; }
static inline int hd_lrn_ahead(unsigned n) { return (int)n - hd_lrn_behind(n) - 1; }

/* out[i] = sum of in[j] for j in [i - lo, i + hi] within [0, len), along a line of LEN values
 * STRIDE apart.  Running sums in double, in index order. */
static inline void hd_box_line(const double *in, double *out, int len, long long stride, int lo, int hi)
{
    for (int i = 0; i < len; i++) {
        int a = i - lo < 0 ? 0 : i - lo, b = i + hi >= len ? len - 1 : i + hi;
        double s = 0.0;
        for (int j = a; j <= b; j++)
            s += in[(long long)j * stride];
        out[(long long)i * stride] = s;
    }
}

/* Box sum over an ND grid (packed, row-major DIMS), separable along each dimension.
 * BUF has the grid's size and receives the result; TMP too (clobbered).  IN may be BUF. */
static inline void hd_box_nd(const double *in, double *buf, double *tmp, int nd, const int *dims, int lo, int hi)
{
    long long total = 1;
    for (int d = 0; d < nd; d++)
        total *= dims[d];
    for (long long i = 0; i < total; i++)
        tmp[i] = in[i];
    for (int d = 0; d < nd; d++) {
        long long stride = 1;
        for (int e = d + 1; e < nd; e++)
            stride *= dims[e];
        long long outer = total / ((long long)dims[d] * stride);
        for (long long o = 0; o < outer; o++)
            for (long long s = 0; s < stride; s++) {
                long long base = o * dims[d] * stride + s;
                hd_box_line(tmp + base, buf + base, dims[d], stride, lo, hi);
            }
        if (d + 1 < nd)
            for (long long i = 0; i < total; i++)
                tmp[i] = buf[i];
    }
    if (nd == 0)
        for (long long i = 0; i < total; i++)
            buf[i] = tmp[i];
}

#endif
