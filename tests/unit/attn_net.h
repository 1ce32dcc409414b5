/*
 * tests/unit/attn_net.h -- one multi-head attention problem and its buffers, shared by the
 * attention gradient tests (test_attn_backward, test_attn_dropout): the descriptors, the data
 * in FLOAT or DOUBLE, element access by type, and clean-up.  The dropout fields stay zero
 * where a test uses no dropout.
 */
#ifndef HD_TEST_ATTN_NET_H
#define HD_TEST_ATTN_NET_H

#include <cudnn.h>
#include <stdlib.h>

typedef struct {
    cudnnDataType_t dt;
    size_t es;
    cudnnAttnDescriptor_t a;
    cudnnDropoutDescriptor_t da, dp;    /* attention / output dropout (NULL: none) */
    void *sa, *sp, *sa0, *sp0;          /* their states buffers and the state after set-up */
    size_t ssize;
    cudnnSeqDataDescriptor_t qd, kd, vd, od;
    size_t wsize, wks, rss, nq, nk, nv, no;
    void *w, *q, *k, *v, *o, *ws, *rs;
    int qlen[16], klen[16], lo[64], hi[64], KB, dout;
} net;

static inline double get(const net *n, const void *p, size_t i)
{
    return n->dt == CUDNN_DATA_DOUBLE ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static inline void put(const net *n, void *p, size_t i, double v)
{
    if (n->dt == CUDNN_DATA_DOUBLE) ((double *)p)[i] = v; else ((float *)p)[i] = (float)v;
}

static inline void net_free(net *n)
{
    free(n->w); free(n->q); free(n->k); free(n->v); free(n->o); free(n->ws); free(n->rs);
    free(n->sa); free(n->sp); free(n->sa0); free(n->sp0);
    cudnnDestroySeqDataDescriptor(n->qd); cudnnDestroySeqDataDescriptor(n->kd);
    cudnnDestroySeqDataDescriptor(n->vd); cudnnDestroySeqDataDescriptor(n->od);
    cudnnDestroyAttnDescriptor(n->a);
    if (n->da) cudnnDestroyDropoutDescriptor(n->da);
    if (n->dp) cudnnDestroyDropoutDescriptor(n->dp);
}

#endif
