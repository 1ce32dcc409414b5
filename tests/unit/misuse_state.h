/*
 * tests/unit/misuse_state.h -- what a descriptor holds, read through its public getters, so the
 * misuse harness can check that a failing setter left the descriptor as it was (a descriptor a
 * function writes is one of its outputs).  Every getter's status is recorded with the values,
 * so a destroyed or never-set object gives the same record before and after as well.
 */
#ifndef HD_TEST_MISUSE_STATE_H
#define HD_TEST_MISUSE_STATE_H

#include <cudnn.h>
#include <string.h>
#include "misuse_table.h"

typedef struct ms_state { unsigned char bytes[1024]; size_t n; } ms_state;

static void st_put(ms_state *s, const void *p, size_t len)
{
    if (s->n + len <= sizeof s->bytes) {
        memcpy(s->bytes + s->n, p, len);
        s->n += len;
    }
}

#define ST_STATUS(s, call) do { cudnnStatus_t st_ = (call); st_put((s), &st_, sizeof st_); } while (0)

/* Read object O of kind K into S (zeroed first); kinds without getters give an empty record. */
static void ms_read_state(int k, void *o, ms_state *s)
{
    memset(s, 0, sizeof *s);
    union {
        struct { cudnnDataType_t dt; int nb, dims[8], strides[8]; } t;
        struct { cudnnDataType_t dt; cudnnTensorFormat_t fmt; int nb, dims[8]; } f;
        struct { int len, pad[8], stride[8], dil[8], groups; cudnnConvolutionMode_t mode; cudnnDataType_t ct;
                 cudnnMathType_t math; cudnnReorderType_t reorder; } c;
        struct { cudnnPoolingMode_t mode; cudnnNanPropagation_t nan; int nb, win[8], pad[8], stride[8]; } p;
        struct { cudnnActivationMode_t mode; cudnnNanPropagation_t nan; double coef; } a;
        struct { unsigned n; double alpha, beta, k; } l;
        struct { cudnnOpTensorOp_t op; cudnnDataType_t dt; cudnnNanPropagation_t nan; } o;
        struct { cudnnReduceTensorOp_t op; cudnnDataType_t dt; cudnnNanPropagation_t nan;
                 cudnnReduceTensorIndices_t ind; cudnnIndicesType_t it; } r;
        struct { cudnnTensorFormat_t fmt; int32_t before[8], after[8]; uint32_t fold[8];
                 cudnnFoldingDirection_t dir; } x;
        struct { cudnnDataType_t dt; cudnnLossNormalizationMode_t norm; cudnnNanPropagation_t grad; int max; } ctc;
        struct { cudnnRNNAlgo_t algo; cudnnRNNMode_t cell; cudnnRNNBiasMode_t bias; cudnnDirectionMode_t dir;
                 cudnnRNNInputMode_t in; cudnnDataType_t dt, prec; cudnnMathType_t math;
                 int32_t isz, hsz, psz, layers; cudnnDropoutDescriptor_t drop; uint32_t aux;
                 cudnnRNNClipMode_t clip; cudnnNanPropagation_t cnan; double lclip, rclip; unsigned pad; } rnn;
        struct { cudnnDataType_t dt; cudnnRNNDataLayout_t layout; int seq, batch, vec, lens[8]; double fill; } rd;
        struct { cudnnDataType_t dt; int nb, dims[8]; cudnnSeqDataAxis_t axes[8]; size_t nlen; int lens[8];
                 double fill; } sd;
        struct { unsigned mode; int heads; double scaler; cudnnDataType_t dt, prec; cudnnMathType_t math;
                 cudnnDropoutDescriptor_t d1, d2; int sz[11]; } at;
        cudnnAlgorithm_t algo;
    } u;
    memset(&u, 0, sizeof u);
    switch (k) {
    case MS_K_TENSOR:
        ST_STATUS(s, cudnnGetTensorNdDescriptor(o, 8, &u.t.dt, &u.t.nb, u.t.dims, u.t.strides));
        break;
    case MS_K_FILTER:
        ST_STATUS(s, cudnnGetFilterNdDescriptor(o, 8, &u.f.dt, &u.f.fmt, &u.f.nb, u.f.dims));
        break;
    case MS_K_CONV:
        ST_STATUS(s, cudnnGetConvolutionNdDescriptor(o, 6, &u.c.len, u.c.pad, u.c.stride, u.c.dil, &u.c.mode, &u.c.ct));
        ST_STATUS(s, cudnnGetConvolutionGroupCount(o, &u.c.groups));
        ST_STATUS(s, cudnnGetConvolutionMathType(o, &u.c.math));
        ST_STATUS(s, cudnnGetConvolutionReorderType(o, &u.c.reorder));
        break;
    case MS_K_POOLING:
        ST_STATUS(s, cudnnGetPoolingNdDescriptor(o, 6, &u.p.mode, &u.p.nan, &u.p.nb, u.p.win, u.p.pad, u.p.stride));
        break;
    case MS_K_ACTIVATION: ST_STATUS(s, cudnnGetActivationDescriptor(o, &u.a.mode, &u.a.nan, &u.a.coef)); break;
    case MS_K_LRN: ST_STATUS(s, cudnnGetLRNDescriptor(o, &u.l.n, &u.l.alpha, &u.l.beta, &u.l.k)); break;
    case MS_K_OPTENSOR: ST_STATUS(s, cudnnGetOpTensorDescriptor(o, &u.o.op, &u.o.dt, &u.o.nan)); break;
    case MS_K_REDUCE:
        ST_STATUS(s, cudnnGetReduceTensorDescriptor(o, &u.r.op, &u.r.dt, &u.r.nan, &u.r.ind, &u.r.it));
        break;
    case MS_K_TRANSFORM:
        ST_STATUS(s, cudnnGetTensorTransformDescriptor(o, 8, &u.x.fmt, u.x.before, u.x.after, u.x.fold, &u.x.dir));
        break;
    case MS_K_CTC:
        ST_STATUS(s, cudnnGetCTCLossDescriptor_v8(o, &u.ctc.dt, &u.ctc.norm, &u.ctc.grad, &u.ctc.max));
        break;
    case MS_K_RNN:
        ST_STATUS(s, cudnnGetRNNDescriptor_v8(o, &u.rnn.algo, &u.rnn.cell, &u.rnn.bias, &u.rnn.dir, &u.rnn.in,
                                              &u.rnn.dt, &u.rnn.prec, &u.rnn.math, &u.rnn.isz, &u.rnn.hsz,
                                              &u.rnn.psz, &u.rnn.layers, &u.rnn.drop, &u.rnn.aux));
        ST_STATUS(s, cudnnRNNGetClip_v8(o, &u.rnn.clip, &u.rnn.cnan, &u.rnn.lclip, &u.rnn.rclip));
        ST_STATUS(s, cudnnGetRNNPaddingMode(o, &u.rnn.pad));
        break;
    case MS_K_RNN_DATA:
        ST_STATUS(s, cudnnGetRNNDataDescriptor(o, &u.rd.dt, &u.rd.layout, &u.rd.seq, &u.rd.batch, &u.rd.vec, 8,
                                               u.rd.lens, &u.rd.fill));
        break;
    case MS_K_SEQ_DATA:
        ST_STATUS(s, cudnnGetSeqDataDescriptor(o, &u.sd.dt, &u.sd.nb, 8, u.sd.dims, u.sd.axes, &u.sd.nlen, 8,
                                               u.sd.lens, &u.sd.fill));
        break;
    case MS_K_ATTN:
        ST_STATUS(s, cudnnGetAttnDescriptor(o, &u.at.mode, &u.at.heads, &u.at.scaler, &u.at.dt, &u.at.prec,
                                            &u.at.math, &u.at.d1, &u.at.d2, &u.at.sz[0], &u.at.sz[1], &u.at.sz[2],
                                            &u.at.sz[3], &u.at.sz[4], &u.at.sz[5], &u.at.sz[6], &u.at.sz[7],
                                            &u.at.sz[8], &u.at.sz[9], &u.at.sz[10]));
        break;
    case MS_K_ALGO_DESC: ST_STATUS(s, cudnnGetAlgorithmDescriptor(o, &u.algo)); break;
    default:
        return;
    }
    st_put(s, &u, sizeof u);
}

#endif
