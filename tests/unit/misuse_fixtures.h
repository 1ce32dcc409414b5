/*
 * tests/unit/misuse_fixtures.h -- the valid objects the misuse harness (test_misuse_all.c)
 * starts every call from, and the objects it swaps in as mutations.
 *
 * One small problem shared by every family, chosen so one tensor fits most slots: a 2x4x8x8
 * float tensor; a 4x4x3x3 filter with padding 1 and stride 1, so a convolution's output has
 * the input's shape; 3x3 pooling with padding 1, stride 1 (same shape again); a 1x4x1x1
 * tensor for per-channel scales, biases and statistics; a one-layer RELU RNN with input,
 * hidden and projection size 4, batch 2, sequence length 3; a one-head attention with
 * sizes 4, 3 steps, batch 2, beam 1.  Every fixture is built again for each call, because a
 * setter or a destroy function under test changes or kills the object it is given.
 * Besides the live fixtures, each kind has a never-set object (created, not set) and a
 * destroyed one (created and destroyed last, so nothing reuses its block before the call).
 */
#ifndef HD_TEST_MISUSE_FIXTURES_H
#define HD_TEST_MISUSE_FIXTURES_H

#include <cudnn.h>
#include <stdlib.h>
#include <string.h>
#include "misuse_table.h"

#define FX_SEQ 3   /* RNN sequence length: the legacy RNN calls take one tensor per step */

typedef struct fx {
    cudnnHandle_t h, h_dead;
    void *live[MS_K_COUNT];     /* a valid object of each kind */
    void *unset[MS_K_COUNT];    /* created, never set */
    void *dead[MS_K_COUNT];     /* created and destroyed */
    cudnnTensorDescriptor_t t_small;        /* 1x4x1x1: scales, biases, statistics */
    cudnnTensorDescriptor_t t_h;            /* 1x2x4: RNN hidden and cell states */
    cudnnTensorDescriptor_t t_seq[FX_SEQ];  /* 2x4x1 per step: legacy RNN x and y */
    cudnnTensorDescriptor_t t_seq_bad[FX_SEQ];  /* the same array with a destroyed entry */
    cudnnFilterDescriptor_t f_rnn;          /* legacy RNN weights, sized by cudnnGetRNNParamsSize */
    cudnnTensorDescriptor_t t_ctc;
    cudnnTensorDescriptor_t t_double;       /* 2x4x8x8 DOUBLE: a type mismatch */
    cudnnTensorDescriptor_t t_wide;         /* 2x8x8x4 FLOAT: a shape mismatch of the same size */
    cudnnFilterDescriptor_t f_double;       /* 4x4x3x3 DOUBLE */
    cudnnFilterDescriptor_t f_1x1;          /* 4x4x1x1 FLOAT */          /* 3x2x4 (T, N, A): CTC probabilities and gradients */
    cudnnRNNDescriptor_t rnn_dyn;           /* the RNN with ALGO_PERSIST_DYNAMIC the plans need */
} fx;

/* Dropout states shared by every dropout fixture of one child process. */
static void *fx_states;
static size_t fx_states_size;

static cudnnTensorDescriptor_t fx_tensor(int nb, const int *dims)
{
    cudnnTensorDescriptor_t t = NULL;
    int strides[8];
    strides[nb - 1] = 1;
    for (int i = nb - 2; i >= 0; i--)
        strides[i] = strides[i + 1] * dims[i + 1];
    if (cudnnCreateTensorDescriptor(&t) == CUDNN_STATUS_SUCCESS)
        cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, nb, dims, strides);
    return t;
}

/* Create one object of kind K with nothing set (but the persistent RNN plan, which needs an
 * RNN descriptor set for CUDNN_RNN_ALGO_PERSIST_DYNAMIC: it is made from RNN_DYN). */
static void *fx_create(int k, void *rnn_dyn)
{
    void *o = NULL;
    switch (k) {
    case MS_K_TENSOR: cudnnCreateTensorDescriptor((cudnnTensorDescriptor_t *)&o); break;
    case MS_K_FILTER: cudnnCreateFilterDescriptor((cudnnFilterDescriptor_t *)&o); break;
    case MS_K_CONV: cudnnCreateConvolutionDescriptor((cudnnConvolutionDescriptor_t *)&o); break;
    case MS_K_POOLING: cudnnCreatePoolingDescriptor((cudnnPoolingDescriptor_t *)&o); break;
    case MS_K_ACTIVATION: cudnnCreateActivationDescriptor((cudnnActivationDescriptor_t *)&o); break;
    case MS_K_LRN: cudnnCreateLRNDescriptor((cudnnLRNDescriptor_t *)&o); break;
    case MS_K_OPTENSOR: cudnnCreateOpTensorDescriptor((cudnnOpTensorDescriptor_t *)&o); break;
    case MS_K_REDUCE: cudnnCreateReduceTensorDescriptor((cudnnReduceTensorDescriptor_t *)&o); break;
    case MS_K_TRANSFORM: cudnnCreateTensorTransformDescriptor((cudnnTensorTransformDescriptor_t *)&o); break;
    case MS_K_DROPOUT: cudnnCreateDropoutDescriptor((cudnnDropoutDescriptor_t *)&o); break;
    case MS_K_SPATIAL_TF: cudnnCreateSpatialTransformerDescriptor((cudnnSpatialTransformerDescriptor_t *)&o); break;
    case MS_K_CTC: cudnnCreateCTCLossDescriptor((cudnnCTCLossDescriptor_t *)&o); break;
    case MS_K_RNN: cudnnCreateRNNDescriptor((cudnnRNNDescriptor_t *)&o); break;
    case MS_K_RNN_DATA: cudnnCreateRNNDataDescriptor((cudnnRNNDataDescriptor_t *)&o); break;
    case MS_K_SEQ_DATA: cudnnCreateSeqDataDescriptor((cudnnSeqDataDescriptor_t *)&o); break;
    case MS_K_ATTN: cudnnCreateAttnDescriptor((cudnnAttnDescriptor_t *)&o); break;
    case MS_K_FUSED_CONST:
        cudnnCreateFusedOpsConstParamPack((cudnnFusedOpsConstParamPack_t *)&o,
                                          CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
        break;
    case MS_K_FUSED_VARIANT:
        cudnnCreateFusedOpsVariantParamPack((cudnnFusedOpsVariantParamPack_t *)&o,
                                            CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
        break;
    case MS_K_FUSED_PLAN:
        cudnnCreateFusedOpsPlan((cudnnFusedOpsPlan_t *)&o, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
        break;
    case MS_K_ALGO_DESC: cudnnCreateAlgorithmDescriptor((cudnnAlgorithmDescriptor_t *)&o); break;
    case MS_K_ALGO_PERF: cudnnCreateAlgorithmPerformance((cudnnAlgorithmPerformance_t *)&o, 1); break;
    case MS_K_PERSIST_PLAN:
        if (rnn_dyn)
            cudnnCreatePersistentRNNPlan((cudnnRNNDescriptor_t)rnn_dyn, 2, CUDNN_DATA_FLOAT,
                                         (cudnnPersistentRNNPlan_t *)&o);
        break;
    case MS_K_BACKEND:
        cudnnBackendCreateDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, (cudnnBackendDescriptor_t *)&o);
        break;
    }
    return o;
}

static void fx_destroy(int k, void *o)
{
    switch (k) {
    case MS_K_TENSOR: cudnnDestroyTensorDescriptor(o); break;
    case MS_K_FILTER: cudnnDestroyFilterDescriptor(o); break;
    case MS_K_CONV: cudnnDestroyConvolutionDescriptor(o); break;
    case MS_K_POOLING: cudnnDestroyPoolingDescriptor(o); break;
    case MS_K_ACTIVATION: cudnnDestroyActivationDescriptor(o); break;
    case MS_K_LRN: cudnnDestroyLRNDescriptor(o); break;
    case MS_K_OPTENSOR: cudnnDestroyOpTensorDescriptor(o); break;
    case MS_K_REDUCE: cudnnDestroyReduceTensorDescriptor(o); break;
    case MS_K_TRANSFORM: cudnnDestroyTensorTransformDescriptor(o); break;
    case MS_K_DROPOUT: cudnnDestroyDropoutDescriptor(o); break;
    case MS_K_SPATIAL_TF: cudnnDestroySpatialTransformerDescriptor(o); break;
    case MS_K_CTC: cudnnDestroyCTCLossDescriptor(o); break;
    case MS_K_RNN: cudnnDestroyRNNDescriptor(o); break;
    case MS_K_RNN_DATA: cudnnDestroyRNNDataDescriptor(o); break;
    case MS_K_SEQ_DATA: cudnnDestroySeqDataDescriptor(o); break;
    case MS_K_ATTN: cudnnDestroyAttnDescriptor(o); break;
    case MS_K_FUSED_CONST: cudnnDestroyFusedOpsConstParamPack(o); break;
    case MS_K_FUSED_VARIANT: cudnnDestroyFusedOpsVariantParamPack(o); break;
    case MS_K_FUSED_PLAN: cudnnDestroyFusedOpsPlan(o); break;
    case MS_K_ALGO_DESC: cudnnDestroyAlgorithmDescriptor(o); break;
    case MS_K_ALGO_PERF: cudnnDestroyAlgorithmPerformance((cudnnAlgorithmPerformance_t *)&o, 1); break;
    case MS_K_PERSIST_PLAN: cudnnDestroyPersistentRNNPlan(o); break;
    case MS_K_BACKEND: cudnnBackendDestroyDescriptor(o); break;
    }
}

/* Give the live object of kind K its valid settings. */
static void fx_set(fx *f, int k)
{
    void *o = f->live[k];
    if (!o)
        return;
    static const int x_dims[4] = {2, 4, 8, 8}, w_dims[4] = {4, 4, 3, 3};
    switch (k) {
    case MS_K_TENSOR: {
        int strides[4] = {256, 64, 8, 1};
        cudnnSetTensorNdDescriptor(o, CUDNN_DATA_FLOAT, 4, x_dims, strides);
        break;
    }
    case MS_K_FILTER: cudnnSetFilterNdDescriptor(o, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, w_dims); break;
    case MS_K_CONV:
        cudnnSetConvolution2dDescriptor(o, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        break;
    case MS_K_POOLING:
        cudnnSetPooling2dDescriptor(o, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 1, 1);
        break;
    case MS_K_ACTIVATION: cudnnSetActivationDescriptor(o, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0); break;
    case MS_K_LRN: cudnnSetLRNDescriptor(o, 5, 1e-4, 0.75, 2.0); break;
    case MS_K_OPTENSOR: cudnnSetOpTensorDescriptor(o, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN); break;
    case MS_K_REDUCE:
        cudnnSetReduceTensorDescriptor(o, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES);
        break;
    case MS_K_TRANSFORM: {
        const int32_t pad[4] = {0, 0, 0, 0};
        const uint32_t fold[2] = {1, 1};
        cudnnSetTensorTransformDescriptor(o, 4, CUDNN_TENSOR_NCHW, pad, pad, fold, CUDNN_TRANSFORM_FOLD);
        break;
    }
    case MS_K_DROPOUT: cudnnSetDropoutDescriptor(o, f->h, 0.5f, fx_states, fx_states_size, 7); break;
    case MS_K_SPATIAL_TF: cudnnSetSpatialTransformerNdDescriptor(o, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, x_dims); break;
    case MS_K_CTC:
        cudnnSetCTCLossDescriptor_v8(o, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_NONE, CUDNN_NOT_PROPAGATE_NAN, 2);
        break;
    case MS_K_RNN:
        cudnnSetRNNDescriptor_v8(o, CUDNN_RNN_ALGO_STANDARD, CUDNN_RNN_RELU, CUDNN_RNN_DOUBLE_BIAS,
                                 CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                 CUDNN_DEFAULT_MATH, 4, 4, 4, 1, f->live[MS_K_DROPOUT], 0);
        break;
    case MS_K_RNN_DATA: {
        const int lens[2] = {FX_SEQ, FX_SEQ};
        cudnnSetRNNDataDescriptor(o, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, FX_SEQ, 2, 4,
                                  lens, NULL);
        break;
    }
    case MS_K_SEQ_DATA: {
        int dims[CUDNN_SEQDATA_DIM_COUNT];
        dims[CUDNN_SEQDATA_TIME_DIM] = FX_SEQ, dims[CUDNN_SEQDATA_BATCH_DIM] = 2;
        dims[CUDNN_SEQDATA_BEAM_DIM] = 1, dims[CUDNN_SEQDATA_VECT_DIM] = 4;
        const cudnnSeqDataAxis_t axes[4] = {CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_TIME_DIM,
                                            CUDNN_SEQDATA_VECT_DIM};
        const int lens[2] = {FX_SEQ, FX_SEQ};
        cudnnSetSeqDataDescriptor(o, CUDNN_DATA_FLOAT, 4, dims, axes, 2, lens, NULL);
        break;
    }
    case MS_K_ATTN:
        cudnnSetAttnDescriptor(o, CUDNN_ATTN_QUERYMAP_ALL_TO_ONE, 1, 1.0, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                               CUDNN_DEFAULT_MATH, NULL, NULL, 4, 4, 4, 0, 0, 0, 0, FX_SEQ, FX_SEQ, 2, 1);
        break;
    case MS_K_ALGO_DESC: {
        cudnnAlgorithm_t a;
        memset(&a, 0, sizeof a);
        cudnnSetAlgorithmDescriptor(o, a);
        break;
    }
    case MS_K_BACKEND: {
        const cudnnPointwiseMode_t mode = CUDNN_POINTWISE_ADD;
        const cudnnDataType_t prec = CUDNN_DATA_FLOAT;
        cudnnBackendSetAttribute(o, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
        cudnnBackendSetAttribute(o, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
        break;
    }
    default:
        break;
    }
}

/* Build every fixture; called before each call in the child. */
static void fx_build(fx *f)
{
    memset(f, 0, sizeof *f);
    cudnnCreate(&f->h);
    if (!fx_states) {
        cudnnDropoutGetStatesSize(f->h, &fx_states_size);
        fx_states = calloc(1, fx_states_size ? fx_states_size : 1);
    }
    /* Dropout and RNN first: the RNN uses the dropout, the persistent plan the RNN. */
    static const int order[] = {MS_K_DROPOUT, MS_K_RNN};
    for (int i = 0; i < 2; i++) {
        f->live[order[i]] = fx_create(order[i], NULL);
        fx_set(f, order[i]);
    }
    if (cudnnCreateRNNDescriptor(&f->rnn_dyn) == CUDNN_STATUS_SUCCESS)
        cudnnSetRNNDescriptor_v8(f->rnn_dyn, CUDNN_RNN_ALGO_PERSIST_DYNAMIC, CUDNN_RNN_RELU, CUDNN_RNN_DOUBLE_BIAS,
                                 CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                 CUDNN_DEFAULT_MATH, 4, 4, 4, 1, NULL, 0);
    for (int k = 0; k < MS_K_COUNT; k++) {
        if (!f->live[k]) {
            f->live[k] = fx_create(k, f->rnn_dyn);
            fx_set(f, k);
        }
        f->unset[k] = k == MS_K_PERSIST_PLAN ? NULL : fx_create(k, NULL);
    }
    static const int small[4] = {1, 4, 1, 1}, hdims[3] = {1, 2, 4}, sdims[3] = {2, 4, 1};
    f->t_small = fx_tensor(4, small);
    f->t_h = fx_tensor(3, hdims);
    static const int cdims[3] = {FX_SEQ, 2, 4};
    f->t_ctc = fx_tensor(3, cdims);
    static const int xdims[4] = {2, 4, 8, 8}, wide[4] = {2, 8, 8, 4}, fdims[4] = {4, 4, 3, 3}, f1[4] = {4, 4, 1, 1};
    f->t_wide = fx_tensor(4, wide);
    if (cudnnCreateTensorDescriptor(&f->t_double) == CUDNN_STATUS_SUCCESS)
        cudnnSetTensor4dDescriptor(f->t_double, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, xdims[0], xdims[1], xdims[2],
                                   xdims[3]);
    if (cudnnCreateFilterDescriptor(&f->f_double) == CUDNN_STATUS_SUCCESS)
        cudnnSetFilterNdDescriptor(f->f_double, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 4, fdims);
    if (cudnnCreateFilterDescriptor(&f->f_1x1) == CUDNN_STATUS_SUCCESS)
        cudnnSetFilterNdDescriptor(f->f_1x1, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, f1);
    for (int i = 0; i < FX_SEQ; i++)
        f->t_seq[i] = f->t_seq_bad[i] = fx_tensor(3, sdims);
    size_t wbytes = 0;
    cudnnGetRNNParamsSize(f->h, f->live[MS_K_RNN], f->t_seq[0], &wbytes, CUDNN_DATA_FLOAT);
    int wdims[3] = {(int)(wbytes / 4), 1, 1};
    if (cudnnCreateFilterDescriptor(&f->f_rnn) == CUDNN_STATUS_SUCCESS)
        cudnnSetFilterNdDescriptor(f->f_rnn, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, wdims);
    /* The destroyed objects last, so no creation above reuses their memory. */
    cudnnCreate(&f->h_dead);
    cudnnDestroy(f->h_dead);
    for (int k = 0; k < MS_K_COUNT; k++) {
        f->dead[k] = fx_create(k, f->rnn_dyn);
        fx_destroy(k, f->dead[k]);
    }
    f->t_seq_bad[1] = f->dead[MS_K_TENSOR];
}

/* Destroy what fx_build made (not the dead objects): a call under test may have destroyed
 * some already, which the library answers with BAD_PARAM, since its dead objects stay readable. */
static void fx_teardown(fx *f)
{
    for (int k = MS_K_COUNT - 1; k >= 0; k--) {
        if (f->live[k])
            fx_destroy(k, f->live[k]);
        if (f->unset[k])
            fx_destroy(k, f->unset[k]);
    }
    cudnnDestroyTensorDescriptor(f->t_small);
    cudnnDestroyTensorDescriptor(f->t_h);
    cudnnDestroyTensorDescriptor(f->t_ctc);
    cudnnDestroyTensorDescriptor(f->t_wide);
    cudnnDestroyTensorDescriptor(f->t_double);
    cudnnDestroyFilterDescriptor(f->f_double);
    cudnnDestroyFilterDescriptor(f->f_1x1);
    for (int i = 0; i < FX_SEQ; i++)
        cudnnDestroyTensorDescriptor(f->t_seq[i]);
    cudnnDestroyFilterDescriptor(f->f_rnn);
    cudnnDestroyRNNDescriptor(f->rnn_dyn);
    cudnnDestroy(f->h);
}

#endif
