/*
 * fuzz_desc.c -- libFuzzer harness: descriptor setters and size queries.
 *
 * Each input is a sequence of calls: a byte picks one of the setters (tensor, filter,
 * convolution, pooling, LRN, activation, dropout, RNN, RNN data, sequence data, attention, CTC
 * loss, transform, reduce, op-tensor, spatial transformer) or size/shape queries (workspace,
 * output dimensions, RNN temp spaces, attention buffers, CTC workspace, reserve spaces), the
 * following bytes give its arguments (fz_int: counts, negatives, INT_MAX, products that
 * overflow).  Descriptors are made on first use and destroyed at the end of the input, so each
 * input is independent.  Whatever the library answers is fine; what must never happen is a
 * crash, a sanitizer report, a hang, or a write past an output array the harness sized as the
 * API documents (those are the bugs this finds).
 */
#include <cudnn.h>
#include <stdlib.h>
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NT 3          /* tensor descriptors in play */
#define MAXLEN 4096   /* longest per-batch array the harness hands over */

typedef struct {
    cudnnTensorDescriptor_t t[NT];
    cudnnFilterDescriptor_t f;
    cudnnConvolutionDescriptor_t cv;
    cudnnPoolingDescriptor_t pool;
    cudnnLRNDescriptor_t lrn;
    cudnnActivationDescriptor_t act;
    cudnnDropoutDescriptor_t drop;
    cudnnRNNDescriptor_t rnn;
    cudnnRNNDataDescriptor_t rd;
    cudnnSeqDataDescriptor_t sd[3];
    cudnnAttnDescriptor_t attn;
    cudnnCTCLossDescriptor_t ctc;
    cudnnTensorTransformDescriptor_t tt;
    cudnnReduceTensorDescriptor_t red;
    cudnnOpTensorDescriptor_t op;
    cudnnSpatialTransformerDescriptor_t st;
} objs;

static cudnnHandle_t handle;
static int lens[MAXLEN];
static unsigned char dropout_states[1 << 16];

/* Made on first use; a create that fails leaves NULL, which the calls then get (and refuse). */
#define GET(field, create) (o->field ? o->field : (create(&o->field) == CUDNN_STATUS_SUCCESS ? o->field : NULL))

static cudnnTensorDescriptor_t tensor(objs *o, fz_in *in)
{
    int i = fz_u8(in) % NT;
    if (!o->t[i] && cudnnCreateTensorDescriptor(&o->t[i]) != CUDNN_STATUS_SUCCESS)
        o->t[i] = NULL;
    return o->t[i];
}

static void ints(fz_in *in, int *v, int n, int dims)
{
    for (int i = 0; i < n; i++)
        v[i] = dims ? fz_dim(in) : fz_int(in);
}

/* A per-batch length array of COUNT entries when COUNT fits, else NULL (the call must refuse). */
static const int *len_array(fz_in *in, long long count)
{
    if (count < 0 || count > MAXLEN)
        return NULL;
    int v = fz_int(in);
    for (long long i = 0; i < count; i++)
        lens[i] = v > 0 && v < 64 ? 1 + (int)((i * 7 + (unsigned)v) % (unsigned)v) : v;
    return lens;
}

static void call_one(objs *o, fz_in *in)
{
    int dims[CUDNN_DIM_MAX], b[CUDNN_DIM_MAX], c[CUDNN_DIM_MAX], out[CUDNN_DIM_MAX];
    size_t sz = 0, sz2 = 0, sz3 = 0;
    int nb;
    switch (fz_u8(in) % 40) {
    case 0:
        cudnnSetTensor4dDescriptor(tensor(o, in), fz_enum(in, 3), fz_enum(in, FZ_NDTYPES), fz_dim(in), fz_dim(in),
                                   fz_dim(in), fz_dim(in));
        break;
    case 1: {
        cudnnTensorDescriptor_t t = tensor(o, in);
        ints(in, dims, 4, 1);
        ints(in, b, 4, 0);
        cudnnSetTensor4dDescriptorEx(t, fz_enum(in, FZ_NDTYPES), dims[0], dims[1], dims[2], dims[3], b[0], b[1], b[2],
                                     b[3]);
        break;
    }
    case 2: {
        cudnnTensorDescriptor_t t = tensor(o, in);
        nb = fz_int(in);
        ints(in, dims, CUDNN_DIM_MAX, 1);
        ints(in, b, CUDNN_DIM_MAX, 0);
        cudnnSetTensorNdDescriptor(t, fz_enum(in, FZ_NDTYPES), nb > CUDNN_DIM_MAX ? CUDNN_DIM_MAX + (nb & 1) : nb,
                                   dims, b);
        break;
    }
    case 3: {
        cudnnTensorDescriptor_t t = tensor(o, in);
        nb = fz_int(in);
        ints(in, dims, CUDNN_DIM_MAX, 1);
        cudnnSetTensorNdDescriptorEx(t, fz_enum(in, 3), fz_enum(in, FZ_NDTYPES),
                                     nb > CUDNN_DIM_MAX ? CUDNN_DIM_MAX + (nb & 1) : nb, dims);
        break;
    }
    case 4:
        cudnnSetFilter4dDescriptor(GET(f, cudnnCreateFilterDescriptor), fz_enum(in, FZ_NDTYPES), fz_enum(in, 3),
                                   fz_dim(in), fz_dim(in), fz_dim(in), fz_dim(in));
        break;
    case 5:
        nb = fz_int(in);
        ints(in, dims, CUDNN_DIM_MAX, 1);
        cudnnSetFilterNdDescriptor(GET(f, cudnnCreateFilterDescriptor), fz_enum(in, FZ_NDTYPES), fz_enum(in, 3),
                                   nb > CUDNN_DIM_MAX ? CUDNN_DIM_MAX + (nb & 1) : nb, dims);
        break;
    case 6:
        ints(in, dims, 6, 0);
        cudnnSetConvolution2dDescriptor(GET(cv, cudnnCreateConvolutionDescriptor), dims[0], dims[1], dims[2], dims[3],
                                        dims[4], dims[5], fz_enum(in, 2), fz_enum(in, FZ_NDTYPES));
        break;
    case 7:
        nb = fz_int(in);
        ints(in, dims, CUDNN_DIM_MAX, 0);
        ints(in, b, CUDNN_DIM_MAX, 1);
        ints(in, c, CUDNN_DIM_MAX, 1);
        cudnnSetConvolutionNdDescriptor(GET(cv, cudnnCreateConvolutionDescriptor),
                                        nb > CUDNN_DIM_MAX ? CUDNN_DIM_MAX + (nb & 1) : nb, dims, b, c,
                                        fz_enum(in, 2), fz_enum(in, FZ_NDTYPES));
        break;
    case 8:
        cudnnSetConvolutionGroupCount(GET(cv, cudnnCreateConvolutionDescriptor), fz_int(in));
        cudnnSetConvolutionMathType(GET(cv, cudnnCreateConvolutionDescriptor), fz_enum(in, 4));
        cudnnSetConvolutionReorderType(GET(cv, cudnnCreateConvolutionDescriptor), fz_enum(in, 2));
        break;
    case 9: {
        cudnnTensorDescriptor_t t = tensor(o, in);
        nb = fz_u8(in) % (CUDNN_DIM_MAX + 1);
        cudnnGetConvolutionNdForwardOutputDim(GET(cv, cudnnCreateConvolutionDescriptor), t,
                                              GET(f, cudnnCreateFilterDescriptor), nb, out);
        cudnnGetConvolution2dForwardOutputDim(o->cv, t, o->f, &out[0], &out[1], &out[2], &out[3]);
        break;
    }
    case 10: {
        cudnnTensorDescriptor_t x = tensor(o, in), y = tensor(o, in);
        int algo = fz_enum(in, 8);
        cudnnGetConvolutionForwardWorkspaceSize(handle, x, GET(f, cudnnCreateFilterDescriptor),
                                                GET(cv, cudnnCreateConvolutionDescriptor), y, algo, &sz);
        cudnnGetConvolutionBackwardDataWorkspaceSize(handle, o->f, y, o->cv, x, fz_enum(in, 6), &sz);
        cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, x, y, o->cv, o->f, fz_enum(in, 7), &sz);
        break;
    }
    case 11: {
        cudnnTensorDescriptor_t x = tensor(o, in), y = tensor(o, in);
        cudnnConvolutionFwdAlgoPerf_t pf[8];
        cudnnConvolutionBwdDataAlgoPerf_t pd[8];
        cudnnConvolutionBwdFilterAlgoPerf_t pw[8];
        int req = fz_u8(in) % 9, got = 0;
        cudnnGetConvolutionForwardAlgorithm_v7(handle, x, GET(f, cudnnCreateFilterDescriptor),
                                               GET(cv, cudnnCreateConvolutionDescriptor), y, req, &got, pf);
        cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, o->f, y, o->cv, x, req, &got, pd);
        cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x, y, o->cv, o->f, req, &got, pw);
        break;
    }
    case 12:
        ints(in, dims, 6, 0);
        cudnnSetPooling2dDescriptor(GET(pool, cudnnCreatePoolingDescriptor), fz_enum(in, 4), fz_enum(in, 2), dims[0],
                                    dims[1], dims[2], dims[3], dims[4], dims[5]);
        break;
    case 13:
        nb = fz_int(in);
        ints(in, dims, CUDNN_DIM_MAX, 1);
        ints(in, b, CUDNN_DIM_MAX, 0);
        ints(in, c, CUDNN_DIM_MAX, 1);
        cudnnSetPoolingNdDescriptor(GET(pool, cudnnCreatePoolingDescriptor), fz_enum(in, 4), fz_enum(in, 2),
                                    nb > CUDNN_DIM_MAX ? CUDNN_DIM_MAX + (nb & 1) : nb, dims, b, c);
        break;
    case 14: {
        cudnnTensorDescriptor_t t = tensor(o, in);
        nb = fz_u8(in) % (CUDNN_DIM_MAX + 1);
        cudnnGetPoolingNdForwardOutputDim(GET(pool, cudnnCreatePoolingDescriptor), t, nb, out);
        cudnnGetPooling2dForwardOutputDim(o->pool, t, &out[0], &out[1], &out[2], &out[3]);
        break;
    }
    case 15:
        cudnnSetLRNDescriptor(GET(lrn, cudnnCreateLRNDescriptor), (unsigned)fz_int(in), fz_double(in), fz_double(in),
                              fz_double(in));
        break;
    case 16:
        cudnnSetActivationDescriptor(GET(act, cudnnCreateActivationDescriptor), fz_enum(in, 7), fz_enum(in, 2),
                                     fz_double(in));
        break;
    case 17: {
        /* states: what cudnnDropoutGetStatesSize asks for when it fits the harness's buffer */
        cudnnDropoutGetStatesSize(handle, &sz);
        size_t give = (size_t)fz_int(in);
        if (give > sz || sz > sizeof dropout_states)
            give = sz <= sizeof dropout_states ? sz : 0;
        float rate = (float)fz_double(in);
        cudnnSetDropoutDescriptor(GET(drop, cudnnCreateDropoutDescriptor), handle, rate, give ? dropout_states : NULL,
                                  give, fz_u32(in));
        cudnnDropoutGetReserveSpaceSize(tensor(o, in), &sz);
        break;
    }
    case 18:
        ints(in, dims, 4, 0);
        cudnnSetRNNDescriptor_v8(GET(rnn, cudnnCreateRNNDescriptor), fz_enum(in, 3), fz_enum(in, 4), fz_enum(in, 4),
                                 fz_enum(in, 2), fz_enum(in, 2), fz_enum(in, FZ_NDTYPES), fz_enum(in, FZ_NDTYPES),
                                 fz_enum(in, 4), dims[0], dims[1], dims[2], dims[3], fz_u8(in) & 1 ? o->drop : NULL,
                                 fz_u8(in) & 3);
        break;
    case 19: {
        cudnnGetRNNWeightSpaceSize(handle, GET(rnn, cudnnCreateRNNDescriptor), &sz);
        cudnnGetRNNTempSpaceSizes(handle, o->rnn, fz_enum(in, 2), GET(rd, cudnnCreateRNNDataDescriptor), &sz2, &sz3);
        break;
    }
    case 20: {
        int maxseq = fz_int(in), batch = fz_int(in), vec = fz_int(in);
        double pad = 0.0;
        cudnnSetRNNDataDescriptor(GET(rd, cudnnCreateRNNDataDescriptor), fz_enum(in, FZ_NDTYPES), fz_enum(in, 3),
                                  maxseq, batch, vec, len_array(in, batch), fz_u8(in) & 1 ? &pad : NULL);
        break;
    }
    case 21: {
        int i = fz_u8(in) % 3;
        cudnnSeqDataAxis_t axes[CUDNN_SEQDATA_DIM_COUNT];
        for (int k = 0; k < CUDNN_SEQDATA_DIM_COUNT; k++) {
            dims[k] = fz_u8(in) & 1 ? fz_dim(in) : fz_int(in);
            axes[k] = fz_u8(in) & 7 ? (cudnnSeqDataAxis_t)((k + (fz_u8(in) & 3)) & 3) : (cudnnSeqDataAxis_t)fz_enum(in, 4);
        }
        long long count = fz_u8(in) & 1 ? (long long)dims[1] * dims[2] : fz_int(in);
        nb = fz_u8(in) & 7 ? CUDNN_SEQDATA_DIM_COUNT : fz_int(in);
        if (nb > CUDNN_DIM_MAX)
            nb = CUDNN_DIM_MAX;
        if (!o->sd[i] && cudnnCreateSeqDataDescriptor(&o->sd[i]) != CUDNN_STATUS_SUCCESS)
            o->sd[i] = NULL;
        cudnnSetSeqDataDescriptor(o->sd[i], fz_enum(in, FZ_NDTYPES), nb, dims, axes, (size_t)count,
                                  len_array(in, count), NULL);
        break;
    }
    case 22: {
        int v[11];
        ints(in, v, 11, 0);
        cudnnSetAttnDescriptor(GET(attn, cudnnCreateAttnDescriptor), fz_u8(in) & 3, fz_int(in), fz_double(in),
                               fz_enum(in, FZ_NDTYPES), fz_enum(in, FZ_NDTYPES), fz_enum(in, 4),
                               fz_u8(in) & 1 ? o->drop : NULL, fz_u8(in) & 1 ? o->drop : NULL, v[0], v[1], v[2], v[3],
                               v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
        break;
    }
    case 23: {
        static float weights[64];
        void *addr = NULL;
        cudnnGetMultiHeadAttnBuffers(handle, GET(attn, cudnnCreateAttnDescriptor), &sz, &sz2, &sz3);
        /* the weight address query computes an address only; the harness's array stands in */
        cudnnGetMultiHeadAttnWeights(handle, o->attn, fz_enum(in, 8), sz, weights, tensor(o, in), &addr);
        break;
    }
    case 24:
        switch (fz_u8(in) % 3) {
        case 0: cudnnSetCTCLossDescriptor(GET(ctc, cudnnCreateCTCLossDescriptor), fz_enum(in, FZ_NDTYPES)); break;
        case 1:
            cudnnSetCTCLossDescriptorEx(GET(ctc, cudnnCreateCTCLossDescriptor), fz_enum(in, FZ_NDTYPES),
                                        fz_enum(in, 2), fz_enum(in, 2));
            break;
        default:
            cudnnSetCTCLossDescriptor_v8(GET(ctc, cudnnCreateCTCLossDescriptor), fz_enum(in, FZ_NDTYPES),
                                         fz_enum(in, 2), fz_enum(in, 2), fz_int(in));
        }
        break;
    case 25: {
        cudnnTensorDescriptor_t p = tensor(o, in), g = tensor(o, in);
        int algo = fz_enum(in, 2);
        cudnnGetCTCLossWorkspaceSize_v8(handle, algo, GET(ctc, cudnnCreateCTCLossDescriptor), p, g, &sz);
        /* the legacy form reads per-batch host arrays: sized from the probabilities' batch */
        cudnnDataType_t dt;
        int n = 0, d[CUDNN_DIM_MAX], s[CUDNN_DIM_MAX];
        if (p && cudnnGetTensorNdDescriptor(p, CUDNN_DIM_MAX, &dt, &n, d, s) == CUDNN_STATUS_SUCCESS && n == 3 &&
            d[1] > 0 && d[1] <= MAXLEN / 2) {
            static int labels[MAXLEN], label_len[MAXLEN / 2], input_len[MAXLEN / 2];
            int each = fz_u8(in) % 8;
            for (int k = 0; k < d[1]; k++)
                label_len[k] = each, input_len[k] = fz_u8(in) & 1 ? d[0] : fz_int(in);
            for (int k = 0; k < MAXLEN; k++)
                labels[k] = 1 + k % 5;
            if ((long long)each * d[1] <= MAXLEN)
                cudnnGetCTCLossWorkspaceSize(handle, p, g, labels, label_len, input_len, algo, o->ctc, &sz);
        }
        break;
    }
    case 26: {
        int32_t before[CUDNN_DIM_MAX], after[CUDNN_DIM_MAX];
        uint32_t fold[CUDNN_DIM_MAX];
        uint32_t n = (uint32_t)fz_int(in);
        for (int k = 0; k < CUDNN_DIM_MAX; k++)
            before[k] = fz_int(in) % 8, after[k] = fz_int(in), fold[k] = (uint32_t)fz_int(in);
        cudnnSetTensorTransformDescriptor(GET(tt, cudnnCreateTensorTransformDescriptor),
                                          n > CUDNN_DIM_MAX ? CUDNN_DIM_MAX + (n & 1) : n, fz_enum(in, 3), before,
                                          after, fold, fz_enum(in, 2));
        break;
    }
    case 27: {
        cudnnTensorDescriptor_t s = tensor(o, in), d = tensor(o, in);
        if (s != d)
            cudnnInitTransformDest(GET(tt, cudnnCreateTensorTransformDescriptor), s, d, &sz);
        break;
    }
    case 28:
        cudnnSetReduceTensorDescriptor(GET(red, cudnnCreateReduceTensorDescriptor), fz_enum(in, 9),
                                       fz_enum(in, FZ_NDTYPES), fz_enum(in, 2), fz_enum(in, 2), fz_enum(in, 4));
        break;
    case 29: {
        cudnnTensorDescriptor_t a = tensor(o, in), cc = tensor(o, in);
        cudnnGetReductionWorkspaceSize(handle, GET(red, cudnnCreateReduceTensorDescriptor), a, cc, &sz);
        cudnnGetReductionIndicesSize(handle, o->red, a, cc, &sz);
        break;
    }
    case 30:
        cudnnSetOpTensorDescriptor(GET(op, cudnnCreateOpTensorDescriptor), fz_enum(in, 6), fz_enum(in, FZ_NDTYPES),
                                   fz_enum(in, 2));
        break;
    case 31:
        cudnnGetTensorSizeInBytes(tensor(o, in), &sz);
        cudnnGetFilterSizeInBytes(GET(f, cudnnCreateFilterDescriptor), &sz);
        break;
    case 32: {
        cudnnDataType_t dt;
        cudnnTensorFormat_t fmt;
        cudnnConvolutionMode_t mode;
        cudnnPoolingMode_t pm;
        cudnnNanPropagation_t nan;
        int req = fz_u8(in) % (CUDNN_DIM_MAX + 1), got;
        cudnnGetTensorNdDescriptor(tensor(o, in), req, &dt, &got, dims, b);
        cudnnGetFilterNdDescriptor(GET(f, cudnnCreateFilterDescriptor), req, &dt, &fmt, &got, dims);
        cudnnGetConvolutionNdDescriptor(GET(cv, cudnnCreateConvolutionDescriptor), req, &got, dims, b, c, &mode, &dt);
        cudnnGetPoolingNdDescriptor(GET(pool, cudnnCreatePoolingDescriptor), req, &pm, &nan, &got, dims, b, c);
        break;
    }
    case 33: {
        cudnnRNNDataLayout_t layout;
        cudnnDataType_t dt;
        int a1, a2, a3, req = fz_u8(in) % 65;
        double pad;
        cudnnGetRNNDataDescriptor(GET(rd, cudnnCreateRNNDataDescriptor), &dt, &layout, &a1, &a2, &a3, req, lens, &pad);
        cudnnSeqDataAxis_t axes[CUDNN_SEQDATA_DIM_COUNT];
        size_t count;
        int i = fz_u8(in) % 3;
        if (o->sd[i])
            cudnnGetSeqDataDescriptor(o->sd[i], &dt, &a1, fz_u8(in) % 5, dims, axes, &count, (size_t)req, lens, &pad);
        break;
    }
    case 34: {
        cudnnTensorDescriptor_t x = tensor(o, in), y = tensor(o, in);
        int mode = fz_enum(in, 3), ops = fz_enum(in, 3);
        cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(handle, mode, ops, x, y, y, tensor(o, in),
                                                                 GET(act, cudnnCreateActivationDescriptor), &sz);
        cudnnGetBatchNormalizationBackwardExWorkspaceSize(handle, mode, ops, x, y, y, y, x, tensor(o, in), o->act,
                                                          &sz);
        cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, mode, ops, o->act, x, &sz);
        cudnnDeriveBNTensorDescriptor(tensor(o, in), x, mode);
        break;
    }
    case 35:
        nb = fz_int(in);
        ints(in, dims, CUDNN_DIM_MAX, 1);
        cudnnSetSpatialTransformerNdDescriptor(GET(st, cudnnCreateSpatialTransformerDescriptor), fz_enum(in, 1),
                                               fz_enum(in, FZ_NDTYPES), nb > CUDNN_DIM_MAX ? CUDNN_DIM_MAX : nb, dims);
        break;
    case 36: {
        /* the legacy RNN queries read SEQ tensor descriptors: the harness has NT of them */
        cudnnTensorDescriptor_t xs[16];
        int seq = fz_int(in);
        for (int k = 0; k < 16; k++)
            xs[k] = o->t[k % NT];
        if (seq > 16)
            seq = 16;
        cudnnGetRNNWorkspaceSize(handle, GET(rnn, cudnnCreateRNNDescriptor), seq, xs, &sz);
        cudnnGetRNNTrainingReserveSize(handle, o->rnn, seq, xs, &sz);
        cudnnGetRNNParamsSize(handle, o->rnn, xs[0], &sz, fz_enum(in, FZ_NDTYPES));
        break;
    }
    case 37:
        cudnnSetRNNDescriptor_v6(handle, GET(rnn, cudnnCreateRNNDescriptor), fz_int(in), fz_int(in),
                                 fz_u8(in) & 1 ? o->drop : NULL, fz_enum(in, 2), fz_enum(in, 2), fz_enum(in, 4),
                                 fz_enum(in, 3), fz_enum(in, FZ_NDTYPES));
        cudnnSetRNNProjectionLayers(handle, o->rnn, fz_int(in), fz_int(in));
        cudnnRNNSetClip_v8(o->rnn, fz_enum(in, 2), fz_enum(in, 2), fz_double(in), fz_double(in));
        break;
    case 38: {
        /* weight addresses are computed, not dereferenced: a small stand-in for the space */
        static float space[64];
        void *m = NULL, *bb = NULL;
        cudnnGetRNNWeightSpaceSize(handle, GET(rnn, cudnnCreateRNNDescriptor), &sz);
        cudnnGetRNNWeightParams(handle, o->rnn, fz_int(in), fz_u8(in) & 1 ? sz : (size_t)fz_int(in), space,
                                fz_int(in), tensor(o, in), &m, tensor(o, in), &bb);
        break;
    }
    default: {
        int n = 0;
        cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &n);
        cudnnSetTensor4dDescriptor(tensor(o, in), CUDNN_TENSOR_NCHW_VECT_C, fz_enum(in, FZ_NDTYPES), fz_dim(in),
                                   fz_u8(in) % 33, fz_dim(in), fz_dim(in));
        break;
    }
    }
}

static void destroy_all(objs *o)
{
    for (int i = 0; i < NT; i++)
        cudnnDestroyTensorDescriptor(o->t[i]);
    for (int i = 0; i < 3; i++)
        cudnnDestroySeqDataDescriptor(o->sd[i]);
    cudnnDestroyFilterDescriptor(o->f);
    cudnnDestroyConvolutionDescriptor(o->cv);
    cudnnDestroyPoolingDescriptor(o->pool);
    cudnnDestroyLRNDescriptor(o->lrn);
    cudnnDestroyActivationDescriptor(o->act);
    cudnnDestroyRNNDescriptor(o->rnn);
    cudnnDestroyRNNDataDescriptor(o->rd);
    cudnnDestroyAttnDescriptor(o->attn);
    cudnnDestroyCTCLossDescriptor(o->ctc);
    cudnnDestroyTensorTransformDescriptor(o->tt);
    cudnnDestroyReduceTensorDescriptor(o->red);
    cudnnDestroyOpTensorDescriptor(o->op);
    cudnnDestroySpatialTransformerDescriptor(o->st);
    cudnnDestroyDropoutDescriptor(o->drop);   /* after the RNN and attention descriptors that name it */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!handle && cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS)
        return 0;
    fz_in in = {data, size};
    objs o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < 48 && in.n > 0; i++)
        call_one(&o, &in);
    destroy_all(&o);
    return 0;
}
