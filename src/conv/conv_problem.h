/*
 * conv/conv_problem.h -- one convolution, built and validated once from the
 * descriptors, in the form every algorithm reads.
 *
 * Spatial dimensions are always three (D, H, W); a 2-d convolution has D = 1 with zero
 * padding, unit stride and dilation there.  Strides are in elements of each tensor's type.
 * The filter is addressed through `wst` in the logical order (k, c, t, r, s), whatever its
 * format (KCRS or KRSC); CONVOLUTION mode (flip) is applied by the algorithms when they
 * read or write the filter, through hd_conv_w_off.
 *
 * The same problem serves the three directions: x = input (dx for backward data),
 * w = filter (dw for backward filter), y = output (dy for the backward directions).
 */
#ifndef HD_KERNELS_CONV_PROBLEM_H
#define HD_KERNELS_CONV_PROBLEM_H

#include "core/api.h"
#include "core/cpu.h"
#include "core/desc.h"

typedef struct hd_conv_problem {
    int nsp;                          /* spatial dimensions as given: 2 or 3 */
    int64_t N, C, K, G, Cg, Kg;       /* channels per group: Cg = C / G, Kg = K / G */
    int64_t in[3], flt[3], out[3];    /* D, H, W of x, w and y */
    int64_t pad[3], str[3], dil[3];
    int64_t xs[5], ys[5], wst[5];     /* strides of (n|k, c, d, h, w) */
    cudnnDataType_t xdt, wdt, ydt;    /* storage types */
    cudnnDataType_t cdt;              /* compute type of the descriptor */
    cudnnTensorFormat_t wfmt;
    cudnnMathType_t math;
    int flip;                         /* CUDNN_CONVOLUTION: the filter is flipped */
    int dbl;                          /* accumulate in double (DOUBLE and INT8 data), else in float */
    int int8;                         /* INT8_CONFIG / INT8_EXT_CONFIG: exact integer sums, forward only */
    int scale_dbl;                    /* alpha/beta point to double (DOUBLE data) */
    int xv, yv, wv;                   /* NCHW_VECT_C vector widths (1 = plain): channel c of a
                                       * vectorised tensor is at (c / v) * stride + c % v, with all
                                       * strides in scalars; the storage type is then INT8 */
    int64_t P, Q, TRS, CRS;           /* output / input spatial sizes, filter spatial size, Cg*TRS */
    hd_isa_t isa;                     /* the instruction set the solvers plan and run for: the one
                                       * place they read it (the process's, HOSTDNN_MAX_ISA-capped,
                                       * which is also every handle's), so the workspace query
                                       * and the execution always choose the same kernels */
} hd_conv_problem;

/* Forward output dims (N, K, spatial...) into OUT[x->nbDims]; BAD_PARAM (logged as FN) when
 * the descriptors do not fit together. */
cudnnStatus_t hd_conv_output_dims(const struct cudnnConvolutionStruct *c, const struct cudnnTensorStruct *x,
                                  const struct cudnnFilterStruct *w, int *out, const char *fn);

/* Check the (already live and set) descriptors against each other and fill P.
 * BAD_PARAM for inconsistent shapes or types, NOT_SUPPORTED for valid configurations
 * hostdnn does not compute (integer and vector types, 1-d or >3-d spatial). */
cudnnStatus_t hd_conv_problem_init(hd_conv_problem *p, const struct cudnnTensorStruct *x,
                                   const struct cudnnFilterStruct *w, const struct cudnnConvolutionStruct *c,
                                   const struct cudnnTensorStruct *y, const char *fn);

/* Offset of channel c given the channel stride cs and vector width v. */
static inline int64_t hd_conv_chan(int64_t c, int64_t cs, int v)
{
    return v == 1 ? c * cs : (c / v) * cs + c % v;
}

/* Offset of filter element (k, c, t, r, s) (k in 0..K, c in 0..Cg), flip applied. */
static inline int64_t hd_conv_w_off(const hd_conv_problem *p, int64_t k, int64_t c, int64_t t, int64_t r, int64_t s)
{
    if (p->flip) {
        t = p->flt[0] - 1 - t;
        r = p->flt[1] - 1 - r;
        s = p->flt[2] - 1 - s;
    }
    return k * p->wst[0] + hd_conv_chan(c, p->wst[1], p->wv) + t * p->wst[2] + r * p->wst[3] + s * p->wst[4];
}

/* A short printable key of the problem (for logs and the find cache). */
void hd_conv_problem_key(const hd_conv_problem *p, char *buf, size_t size);

#endif
