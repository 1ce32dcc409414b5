/*
 * tests/unit/misuse_args.h -- the valid arguments the misuse harness starts each call from.
 *
 * Most come from rules on the parameter's class and name (a tensor named like a scale, bias or
 * statistic gets the 1x4x1x1 fixture, an int named like a tensor size gets that size, ...);
 * ms_overrides lists the functions whose arguments the rules do not guess, as "name=value"
 * words: an integer, a real (with a '.'), '@' and an int list ("@1,1"), "null" (a NULL
 * pointer or object) or "tensor" (the 2x4x8x8 tensor descriptor).
 */
#ifndef HD_TEST_MISUSE_ARGS_H
#define HD_TEST_MISUSE_ARGS_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "misuse_fixtures.h"

typedef struct ms_override { const char *func, *args; } ms_override;

static const ms_override ms_overrides[] = {
    {"cudnnSetTensor4dDescriptorEx", "nStride=256 cStride=64 hStride=8 wStride=1"},
    {"cudnnSetFilter4dDescriptor", "k=4 c=4 h=3 w=3"},
    {"cudnnSetConvolutionNdDescriptor", "arrayLength=2 padA=@1,1 filterStrideA=@1,1 dilationA=@1,1"},
    {"cudnnGetConvolutionNdDescriptor", "arrayLengthRequested=2"},
    {"cudnnGetConvolutionNdForwardOutputDim", "nbDims=4"},
    {"cudnnSetPoolingNdDescriptor", "nbDims=2 windowDimA=@3,3 paddingA=@1,1 strideA=@1,1"},
    {"cudnnGetPoolingNdDescriptor", "nbDimsRequested=2"},
    {"cudnnGetPoolingNdForwardOutputDim", "nbDims=4"},
    {"cudnnSetTensorTransformDescriptor", "nbDims=4 padBeforeA=@0,0,0,0 padAfterA=@0,0,0,0 foldA=@1,1"},
    {"cudnnGetTensorTransformDescriptor", "nbDimsRequested=4"},
    {"cudnnSetLRNDescriptor", "lrnN=5 lrnAlpha=0.0001 lrnBeta=0.75 lrnK=2.0"},
    {"cudnnSetSeqDataDescriptor", "nbDims=4 dimA=@3,2,1,4 axes=@1,2,0,3 seqLengthArraySize=2"},
    {"cudnnGetSeqDataDescriptor", "nbDimsRequested=4 seqLengthSizeRequested=2"},
    {"cudnnGetRNNDataDescriptor", "arrayLengthRequested=2"},
    {"cudnnSetAttnDescriptor", "attnMode=0 qProjSize=0 kProjSize=0 vProjSize=0 oProjSize=0"},
    {"cudnnSetCTCLossDescriptorEx", "normMode=0 gradMode=0"},
    {"cudnnSetCTCLossDescriptor_v8", "normMode=0 gradMode=0 maxLabelLength=2"},
    {"cudnnCTCLoss", "hostLabels=@1,1 hostLabelLengths=@1,1 hostInputLengths=@3,3"},
    {"cudnnCTCLoss_v8", "labels=@1,1 labelLengths=@1,1 inputLengths=@3,3"},
    {"cudnnGetCTCLossWorkspaceSize", "labels=@1,1 labelLengths=@1,1 inputLengths=@3,3"},
    {"cudnnGetCTCLossWorkspaceSize_v8", ""},
    {"cudnnSetRNNDescriptor_v6", "hiddenSize=4 numLayers=1"},
    {"cudnnSetRNNDescriptor_v8", "inputSize=4 hiddenSize=4 projSize=4 numLayers=1 auxFlags=0"},
    {"cudnnSetRNNProjectionLayers", "recProjSize=4 outProjSize=0"},
    {"cudnnCreateAlgorithmPerformance", "numberToCreate=1"},
    {"cudnnDestroyAlgorithmPerformance", "numberToDestroy=1"},
    {"cudnnSetDropoutDescriptor", "seed=7"},
    {"cudnnRestoreDropoutDescriptor", "seed=7"},
    {"cudnnGetRNNLinLayerMatrixParams", "pseudoLayer=0 linLayerID=0"},
    {"cudnnGetRNNLinLayerBiasParams", "pseudoLayer=0 linLayerID=0"},
    {"cudnnGetRNNWeightParams", "pseudoLayer=0 linLayerID=0"},
    {"cudnnSetCallback", "mask=0"},
    {"cudnnQueryRuntimeError", "mode=1"},
    /* batch normalization per channel (CUDNN_BATCHNORM_SPATIAL, CUDNN_NORM_PER_CHANNEL): the
     * 1x4x1x1 statistics fit it */
    {"cudnnBatchNormalizationForwardInference", "mode=1"},
    {"cudnnBatchNormalizationForwardTraining", "mode=1"},
    {"cudnnBatchNormalizationForwardTrainingEx", "mode=1"},
    {"cudnnBatchNormalizationBackward", "mode=1"},
    {"cudnnBatchNormalizationBackwardEx", "mode=1"},
    {"cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize", "mode=1"},
    {"cudnnGetBatchNormalizationBackwardExWorkspaceSize", "mode=1"},
    {"cudnnGetBatchNormalizationTrainingExReserveSpaceSize", "mode=1"},
    {"cudnnNormalizationForwardInference", "mode=1"},
    {"cudnnNormalizationForwardTraining", "mode=1"},
    {"cudnnNormalizationBackward", "mode=1"},
    {"cudnnGetNormalizationForwardTrainingWorkspaceSize", "mode=1"},
    {"cudnnGetNormalizationBackwardWorkspaceSize", "mode=1"},
    {"cudnnGetNormalizationTrainingReserveSpaceSize", "mode=1"},
    /* the legacy RNN *Ex calls: the attention arguments are reserved, NULL */
    {"cudnnRNNForwardInferenceEx", "kDesc=null keys=null cDesc=null cAttn=null iDesc=null iAttn=null qDesc=null queries=null"},
    {"cudnnRNNForwardTrainingEx", "kDesc=null keys=null cDesc=null cAttn=null iDesc=null iAttn=null qDesc=null queries=null"},
    {"cudnnRNNBackwardDataEx", "dkDesc=null dkeys=null dcDesc=null dcAttn=null"},
    /* the fused-ops packs' first label, CUDNN_PARAM_XDESC, holds a tensor descriptor */
    {"cudnnSetFusedOpsConstParamPackAttribute", "param=tensor"},
    {"cudnnGetFusedOpsConstParamPackAttribute", "param=tensor"},
    /* the backend fixture is a pointwise descriptor: its mode (CUDNN_TYPE_POINTWISE_MODE) */
    {"cudnnBackendSetAttribute", "attributeName=0 attributeType=14"},
    {"cudnnBackendGetAttribute", "attributeName=0 attributeType=14"},
    {NULL, NULL},
};

static const ms_override *ms_find_override(const char *func)
{
    for (const ms_override *o = ms_overrides; o->func; o++)
        if (strcmp(o->func, func) == 0)
            return o;
    return NULL;
}

/* The word "NAME=VALUE" for parameter NAME in an override, or NULL. */
static const char *ms_override_value(const ms_override *o, const char *name)
{
    if (!o)
        return NULL;
    size_t n = strlen(name);
    for (const char *s = o->args; (s = strstr(s, name)) != NULL; s += n)
        if ((s == o->args || s[-1] == ' ') && s[n] == '=')
            return s + n + 1;
    return NULL;
}

/* Fill an int array of N entries from "@a,b,c" (the last entry repeats). */
static void ms_parse_list(const char *v, int *out, int n)
{
    int last = 1, i = 0;
    v++;
    while (i < n && *v && *v != ' ') {
        last = (int)strtol(v, (char **)&v, 10);
        out[i++] = last;
        if (*v == ',')
            v++;
    }
    for (; i < n; i++)
        out[i] = last;
}

static int ms_has(const char *name, const char *part)
{
    char a[64], b[64];
    size_t i;
    for (i = 0; name[i] && i < 63; i++)
        a[i] = (char)tolower((unsigned char)name[i]);
    a[i] = 0;
    for (i = 0; part[i] && i < 63; i++)
        b[i] = (char)tolower((unsigned char)part[i]);
    b[i] = 0;
    return strstr(a, b) != NULL;
}

/* Int defaults by parameter name: the sizes of the fixtures' problem. */
static long long ms_int_default(const char *fn, const char *name)
{
    static const struct { const char *name; int v; } tab[] = {
        {"n", 2}, {"c", 4}, {"h", 8}, {"w", 8}, {"k", 4}, {"nbDims", 4}, {"nbDimsRequested", 8},
        {"pad_h", 1}, {"pad_w", 1}, {"u", 1}, {"v", 1}, {"dilation_h", 1}, {"dilation_w", 1},
        {"windowHeight", 3}, {"windowWidth", 3}, {"verticalPadding", 1}, {"horizontalPadding", 1},
        {"verticalStride", 1}, {"horizontalStride", 1}, {"groupCount", 1}, {"requestedAlgoCount", 1},
        {"hiddenSize", 4}, {"numLayers", 1}, {"inputSize", 4}, {"projSize", 4}, {"seqLength", FX_SEQ},
        {"maxSeqLength", FX_SEQ}, {"batchSize", 2}, {"vectorSize", 4}, {"minibatch", 2}, {"nHeads", 1},
        {"qSize", 4}, {"kSize", 4}, {"vSize", 4}, {"qoMaxSeqLength", FX_SEQ}, {"kvMaxSeqLength", FX_SEQ},
        {"maxBatchSize", 2}, {"maxBeamSize", 1}, {"arrayLength", 2}, {"arrayLengthRequested", 8},
        {"lrnN", 5}, {"currIdx", 0}, {"loWinIdx", 0}, {"hiWinIdx", 0}, {"layer", 0},
        {"maxLabelLength", 2}, {"seed", 7},
    };
    (void)fn;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(tab[i].name, name) == 0)
            return tab[i].v;
    return 1;
}

/* Int-array defaults by parameter name. */
static void ms_iarr_default(const char *name, int *out, int n)
{
    int v = 1;
    for (int i = 0; i < n; i++)
        out[i] = 1;
    if (ms_has(name, "filterStride") || ms_has(name, "dilation") || ms_has(name, "fold"))
        v = 1;
    else if (ms_has(name, "stride")) {
        static const int s[4] = {256, 64, 8, 1};
        for (int i = 0; i < n; i++)
            out[i] = i < 4 ? s[i] : 1;
        return;
    } else if (ms_has(name, "dim")) {
        static const int d[4] = {2, 4, 8, 8};
        for (int i = 0; i < n; i++)
            out[i] = i < 4 ? d[i] : 8;
        return;
    } else if (ms_has(name, "pad"))
        v = 1;
    else if (ms_has(name, "window"))
        v = 3;
    else if (ms_has(name, "seqLength") || ms_has(name, "inputLengths"))
        v = FX_SEQ;
    for (int i = 0; i < n; i++)
        out[i] = v;
}

/* True for a tensor parameter that holds per-channel values (1x4x1x1). */
static int ms_small_tensor(const char *fn, const char *name)
{
    if (strstr(fn, "DivisiveNormalization"))   /* its means are full-size tensors */
        return 0;
    return strcmp(name, "dbDesc") == 0 || ms_has(name, "scale") || ms_has(name, "bias") || ms_has(name, "mean") || ms_has(name, "var") ||
           ms_has(name, "derived");
}

/* True for an RNN hidden or cell state tensor (1x2x4). */
static int ms_state_tensor(const char *name)
{
    static const char *const names[] = {"hxDesc", "cxDesc", "hyDesc", "cyDesc", "dhxDesc", "dcxDesc",
                                        "dhyDesc", "dcyDesc", "hDesc", "cDesc"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

#endif
