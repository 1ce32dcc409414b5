/*
 * adv/train/ctc.h -- the CTC-loss descriptor and the forward-backward computation behind
 * cudnnCTCLoss / cudnnCTCLoss_v8 (see docs/ctc.md).
 */
#ifndef HD_ADV_CTC_H
#define HD_ADV_CTC_H

#include "core/object.h"

struct cudnnCTCLossStruct {
    hd_object obj;
    cudnnDataType_t comp_type;               /* FLOAT or DOUBLE */
    cudnnLossNormalizationMode_t norm_mode;
    cudnnNanPropagation_t grad_mode;
    int max_label_length;                    /* 0 = not given (only the _v8 setter gives it) */
};

/* cuDNN's limit on one label sequence for the v7 entry points. */
#define HD_CTC_MAX_LABEL 256

/* One validated CTC problem: probabilities / activations (T, N, A) with element strides. */
typedef struct {
    int T, N, A;
    cudnnDataType_t dtype;                   /* FLOAT or DOUBLE, for probs, costs and gradients */
    const void *probs;
    int64_t probs_stride[3];
    void *grads;                             /* NULL: costs only */
    int64_t grads_stride[3];
    void *costs;                             /* N values of dtype */
    const int *labels;                       /* concatenated, sum(label_lengths) entries */
    const int *label_lengths;
    const int *input_lengths;
    int softmax;                             /* 1: probs are activations, apply softmax */
    int nan_grads;                           /* 1: infeasible samples get NaN gradients; 0: zeros */
    int max_label;                           /* workspace is sized for this many labels per sample */
} hd_ctc_problem;

/* Bytes of workspace for N samples of T steps over an alphabet of A with up to MAX_LABEL
 * labels each; 0 when the size overflows. */
size_t hd_ctc_workspace_bytes(int T, int N, int A, int max_label);

/* Run the loss (and gradients) for every sample, NTHREADS threads, scratch in WORKSPACE
 * (at least hd_ctc_workspace_bytes).  Inputs are validated by the caller. */
void hd_ctc_run(const hd_ctc_problem *p, void *workspace, int nthreads);

#endif
