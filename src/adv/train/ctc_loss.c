/*
 * cudnnCTCLoss, cudnnCTCLoss_v8 and their workspace queries: argument validation, then
 * hd_ctc_run (ctc_forward_backward.c).  See docs/ctc.md for the exact contract.
 *
 * The v7 entry points size the workspace by the longest label actually given (labels are
 * on the host and at most 256 long); the _v8 ones by the descriptor's maxLabelLength, which
 * must have been set with cudnnSetCTCLossDescriptor_v8 and bounds every label length.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "adv/train/ctc.h"

typedef struct cudnnTensorStruct tensor_t;

/* Checks of the shapes and the descriptor that need no label data. */
static cudnnStatus_t check_shapes(const char *fn, cudnnHandle_t handle, cudnnCTCLossAlgo_t algo,
                                  cudnnCTCLossDescriptor_t desc, cudnnTensorDescriptor_t probsDesc,
                                  cudnnTensorDescriptor_t gradientsDesc, int need_grads_desc)
{
    cudnnStatus_t st = hd_handle_check(handle, fn);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_check_obj(desc, HD_TAG_CTC_LOSS, "ctcLossDesc", fn);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_check_tensor(probsDesc, "probsDesc", fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (algo != CUDNN_CTC_LOSS_ALGO_DETERMINISTIC && algo != CUDNN_CTC_LOSS_ALGO_NON_DETERMINISTIC)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "algo %d is not a cudnnCTCLossAlgo_t", (int)algo);
    const tensor_t *pd = probsDesc;
    if (pd->nbDims != 3)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "probsDesc must be 3-d (T, N, A); it has %d dimensions", pd->nbDims);
    if (pd->dtype != CUDNN_DATA_FLOAT && pd->dtype != CUDNN_DATA_DOUBLE)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "probabilities of type %s are not supported (FLOAT or DOUBLE)",
                       hd_dtype_name(pd->dtype));
    if (gradientsDesc || need_grads_desc) {
        st = hd_check_tensor(gradientsDesc, "gradientsDesc", fn);
        if (st != CUDNN_STATUS_SUCCESS)
            return st;
        const tensor_t *gd = gradientsDesc;
        if (gd->nbDims != 3 || gd->dims[0] != pd->dims[0] || gd->dims[1] != pd->dims[1] || gd->dims[2] != pd->dims[2])
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "gradientsDesc must have the dimensions of probsDesc (%d, %d, %d)",
                           pd->dims[0], pd->dims[1], pd->dims[2]);
        if (gd->dtype != pd->dtype)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "gradientsDesc is %s but probsDesc is %s", hd_dtype_name(gd->dtype),
                           hd_dtype_name(pd->dtype));
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Per-sample lengths (and label values when LABELS is given); *max_label gets the longest. */
static cudnnStatus_t check_lengths(const char *fn, const tensor_t *pd, const int *labels, const int *labelLengths,
                                   const int *inputLengths, int limit, const char *limit_what, int *max_label)
{
    if (!labelLengths)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "labelLengths is NULL");
    if (!inputLengths)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "inputLengths is NULL");
    const int T = pd->dims[0], N = pd->dims[1], A = pd->dims[2];
    int longest = 0;
    int64_t off = 0;
    for (int n = 0; n < N; n++) {
        if (inputLengths[n] < 1 || inputLengths[n] > T)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "inputLengths[%d] is %d; it must be in 1..T (T = %d)", n,
                           inputLengths[n], T);
        if (labelLengths[n] < 0 || labelLengths[n] > limit)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "labelLengths[%d] is %d; it must be in 0..%d (%s)", n,
                           labelLengths[n], limit, limit_what);
        longest = labelLengths[n] > longest ? labelLengths[n] : longest;
        if (labels)
            for (int i = 0; i < labelLengths[n]; i++) {
                int l = labels[off + i];
                if (l < 1 || l >= A)
                    return hd_fail(CUDNN_STATUS_BAD_PARAM, fn,
                                   "label %d of sample %d is %d; labels must be in 1..A-1 (0 is the blank, A = %d)", i, n,
                                   l, A);
            }
        off += labelLengths[n];
    }
    *max_label = longest;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t workspace_bytes(const char *fn, const tensor_t *pd, int max_label, size_t *bytes)
{
    *bytes = hd_ctc_workspace_bytes(pd->dims[0], pd->dims[1], pd->dims[2], max_label);
    if (*bytes == 0)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "the workspace size overflows size_t");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t v8_limit(const char *fn, cudnnCTCLossDescriptor_t desc)
{
    if (desc->max_label_length <= 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn,
                       "ctcLossDesc has no maxLabelLength; set it with cudnnSetCTCLossDescriptor_v8");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t run(const char *fn, cudnnHandle_t handle, cudnnCTCLossDescriptor_t desc, const tensor_t *pd,
                         const void *probs, const int *labels, const int *labelLengths, const int *inputLengths,
                         void *costs, const tensor_t *gd, void *gradients, void *workspace, size_t wsBytes, int limit,
                         const char *limit_what, int size_by_longest)
{
    if (!probs)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "probs is NULL");
    if (!costs)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "costs is NULL");
    if (!labels)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "labels is NULL");
    int longest;
    cudnnStatus_t st = check_lengths(fn, pd, labels, labelLengths, inputLengths, limit, limit_what, &longest);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int sized_for = size_by_longest ? longest : limit;
    size_t need;
    st = workspace_bytes(fn, pd, sized_for, &need);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (wsBytes < need || !workspace)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the workspace has %zu bytes%s; %zu are needed", wsBytes,
                       workspace ? "" : " (NULL)", need);
    hd_ctc_problem p = {0};
    p.T = pd->dims[0];
    p.N = pd->dims[1];
    p.A = pd->dims[2];
    p.dtype = pd->dtype;
    p.probs = probs;
    for (int i = 0; i < 3; i++)
        p.probs_stride[i] = pd->strides[i];
    p.grads = gradients;
    if (gradients)
        for (int i = 0; i < 3; i++)
            p.grads_stride[i] = gd->strides[i];
    p.costs = costs;
    p.labels = labels;
    p.label_lengths = labelLengths;
    p.input_lengths = inputLengths;
    p.softmax = desc->norm_mode == CUDNN_LOSS_NORMALIZATION_SOFTMAX;
    p.nan_grads = desc->grad_mode == CUDNN_PROPAGATE_NAN;
    p.max_label = sized_for;
    hd_ctc_run(&p, workspace, handle->num_threads);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetCTCLossWorkspaceSize)(cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc,
                                                    const cudnnTensorDescriptor_t gradientsDesc, const int *labels,
                                                    const int *labelLengths, const int *inputLengths,
                                                    cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
                                                    size_t *sizeInBytes)
{
    const char *fn = "cudnnGetCTCLossWorkspaceSize";
    cudnnStatus_t st = check_shapes(fn, handle, algo, ctcLossDesc, probsDesc, gradientsDesc, 0);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    HD_CHECK_PTR(sizeInBytes);
    if (!labels)   /* an input of the query, as of the loss: the labels are checked here too */
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "labels is NULL");
    int longest;
    st = check_lengths(fn, probsDesc, labels, labelLengths, inputLengths, HD_CTC_MAX_LABEL, "cuDNN's label limit",
                       &longest);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    size_t need;
    st = workspace_bytes(fn, probsDesc, longest, &need);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    *sizeInBytes = need;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetCTCLossWorkspaceSize_v8)(cudnnHandle_t handle, cudnnCTCLossAlgo_t algo,
                                                       cudnnCTCLossDescriptor_t ctcLossDesc,
                                                       const cudnnTensorDescriptor_t probsDesc,
                                                       const cudnnTensorDescriptor_t gradientsDesc, size_t *sizeInBytes)
{
    const char *fn = "cudnnGetCTCLossWorkspaceSize_v8";
    cudnnStatus_t st = check_shapes(fn, handle, algo, ctcLossDesc, probsDesc, gradientsDesc, 0);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    HD_CHECK_PTR(sizeInBytes);
    st = v8_limit(fn, ctcLossDesc);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    size_t need;
    st = workspace_bytes(fn, probsDesc, ctcLossDesc->max_label_length, &need);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    *sizeInBytes = need;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnCTCLoss)(cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc, const void *probs,
                                    const int hostLabels[], const int hostLabelLengths[], const int hostInputLengths[],
                                    void *costs, const cudnnTensorDescriptor_t gradientsDesc, void *gradients,
                                    cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc, void *workspace,
                                    size_t workSpaceSizeInBytes)
{
    const char *fn = "cudnnCTCLoss";
    cudnnStatus_t st = check_shapes(fn, handle, algo, ctcLossDesc, probsDesc, gradientsDesc, gradients != NULL);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    return run(fn, handle, ctcLossDesc, probsDesc, probs, hostLabels, hostLabelLengths, hostInputLengths, costs,
               gradientsDesc, gradients, workspace, workSpaceSizeInBytes, HD_CTC_MAX_LABEL, "cuDNN's label limit", 1);
}

cudnnStatus_t HD_IMPL(cudnnCTCLoss_v8)(cudnnHandle_t handle, cudnnCTCLossAlgo_t algo,
                                       cudnnCTCLossDescriptor_t ctcLossDesc, const cudnnTensorDescriptor_t probsDesc,
                                       const void *probs, const int labels[], const int labelLengths[],
                                       const int inputLengths[], void *costs, const cudnnTensorDescriptor_t gradientsDesc,
                                       void *gradients, size_t workSpaceSizeInBytes, void *workspace)
{
    const char *fn = "cudnnCTCLoss_v8";
    cudnnStatus_t st = check_shapes(fn, handle, algo, ctcLossDesc, probsDesc, gradientsDesc, gradients != NULL);
    if (st == CUDNN_STATUS_SUCCESS)
        st = v8_limit(fn, ctcLossDesc);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    return run(fn, handle, ctcLossDesc, probsDesc, probs, labels, labelLengths, inputLengths, costs, gradientsDesc,
               gradients, workspace, workSpaceSizeInBytes, ctcLossDesc->max_label_length, "the descriptor's maxLabelLength",
               0);
}
