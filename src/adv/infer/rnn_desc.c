/*
 * RNN descriptor: create/destroy, the v8 and v6 setters/getters and the legacy field setters
 * (math type, bias mode, clipping, projection, padding mode).  Layout in rnn/rnn_problem.h;
 * rules and the v6 <-> v8 read-back table in docs/rnn.md.
 */
#include <math.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "core/handle.h"
#include "rnn/rnn_problem.h"

static int valid_dtype_enum(cudnnDataType_t t) { return (unsigned)t <= (unsigned)CUDNN_DATA_INT64; }
static int rnn_dtype(cudnnDataType_t t) { return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF; }

/* Defaults every setter starts from, so a re-set descriptor forgets the previous call. */
static void rnn_defaults(struct cudnnRNNStruct *r)
{
    r->algo = CUDNN_RNN_ALGO_STANDARD;
    r->cell = CUDNN_RNN_RELU;
    r->bias = CUDNN_RNN_DOUBLE_BIAS;
    r->dir = CUDNN_UNIDIRECTIONAL;
    r->input_mode = CUDNN_LINEAR_INPUT;
    r->dtype = CUDNN_DATA_FLOAT;
    r->math_prec = CUDNN_DATA_FLOAT;
    r->math_type = CUDNN_DEFAULT_MATH;
    r->input_size = r->hidden_size = r->proj_size = r->num_layers = 0;
    r->dropout = NULL;
    r->aux_flags = 0;
    r->clip_mode = CUDNN_RNN_CLIP_NONE;
    r->clip_nan = CUDNN_NOT_PROPAGATE_NAN;
    r->lclip = r->rclip = 0.0;
    r->plan = NULL;
}

cudnnStatus_t HD_IMPL(cudnnCreateRNNDescriptor)(cudnnRNNDescriptor_t *rnnDesc)
{
    HD_CHECK_PTR(rnnDesc);
    struct cudnnRNNStruct *r = hd_object_new(sizeof *r, HD_TAG_RNN);
    if (!r)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    rnn_defaults(r);
    *rnnDesc = r;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyRNNDescriptor)(cudnnRNNDescriptor_t rnnDesc)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    hd_object_free(rnnDesc);
    return CUDNN_STATUS_SUCCESS;
}

/* Checks shared by the v6 and v8 setters. */
static cudnnStatus_t check_common(const char *fn, cudnnRNNAlgo_t algo, cudnnRNNMode_t cell,
                                  cudnnDirectionMode_t dir, cudnnRNNInputMode_t in_mode,
                                  cudnnDataType_t math_prec, int hidden, int layers,
                                  cudnnDropoutDescriptor_t dropout)
{
    if ((unsigned)algo >= (unsigned)CUDNN_RNN_ALGO_COUNT)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "algo %d is not a cudnnRNNAlgo_t", (int)algo);
    if ((unsigned)cell > (unsigned)CUDNN_GRU)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "cellMode %d is not a cudnnRNNMode_t", (int)cell);
    if ((unsigned)dir > (unsigned)CUDNN_BIDIRECTIONAL)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dirMode %d is not a cudnnDirectionMode_t", (int)dir);
    if ((unsigned)in_mode > (unsigned)CUDNN_SKIP_INPUT)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "inputMode %d is not a cudnnRNNInputMode_t", (int)in_mode);
    if (!valid_dtype_enum(math_prec))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "mathPrec %d is not a cudnnDataType_t", (int)math_prec);
    if (!rnn_dtype(math_prec))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "RNN mathPrec must be FLOAT, DOUBLE or HALF (got %s)",
                       hd_dtype_name(math_prec));
    if (hidden <= 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "hiddenSize must be positive (got %d)", hidden);
    if (layers <= 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "numLayers must be positive (got %d)", layers);
    if (dropout)
        return hd_check_obj(dropout, HD_TAG_DROPOUT, "dropoutDesc", fn);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetRNNDescriptor_v8)(cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t algo,
    cudnnRNNMode_t cellMode, cudnnRNNBiasMode_t biasMode, cudnnDirectionMode_t dirMode,
    cudnnRNNInputMode_t inputMode, cudnnDataType_t dataType, cudnnDataType_t mathPrec,
    cudnnMathType_t mathType, int32_t inputSize, int32_t hiddenSize, int32_t projSize,
    int32_t numLayers, cudnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    cudnnStatus_t st = check_common(__func__, algo, cellMode, dirMode, inputMode, mathPrec, hiddenSize,
                                    numLayers, dropoutDesc);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if ((unsigned)biasMode > (unsigned)CUDNN_RNN_SINGLE_REC_BIAS)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "biasMode %d is not a cudnnRNNBiasMode_t", (int)biasMode);
    if (!valid_dtype_enum(dataType))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dataType %d is not a cudnnDataType_t", (int)dataType);
    if (!rnn_dtype(dataType))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "RNN dataType must be FLOAT, DOUBLE or HALF (got %s)",
                       hd_dtype_name(dataType));
    int prec_ok = dataType == CUDNN_DATA_HALF ? (mathPrec == CUDNN_DATA_HALF || mathPrec == CUDNN_DATA_FLOAT)
                                              : mathPrec == dataType;
    if (!prec_ok)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "mathPrec %s does not go with dataType %s",
                       hd_dtype_name(mathPrec), hd_dtype_name(dataType));
    if ((unsigned)mathType > (unsigned)CUDNN_FMA_MATH)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mathType %d is not a cudnnMathType_t", (int)mathType);
    if (inputSize <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "inputSize must be positive (got %d)", inputSize);
    if (projSize <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "projSize must be positive (got %d)", projSize);
    if (auxFlags & ~(uint32_t)CUDNN_RNN_PADDED_IO_ENABLED)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "auxFlags 0x%x has unknown bits", (unsigned)auxFlags);
    /* As cuDNN: a projection wider than the cell, or on a non-LSTM cell, is "not supported";
     * SKIP_INPUT with inputSize != hiddenSize is accepted here and refused when used. */
    if (projSize > hiddenSize)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "projSize %d is larger than hiddenSize %d", projSize, hiddenSize);
    if (projSize < hiddenSize && cellMode != CUDNN_LSTM)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "a recurrent projection (projSize < hiddenSize) needs CUDNN_LSTM");
    if (projSize < hiddenSize && algo != CUDNN_RNN_ALGO_STANDARD)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "recurrent projection needs CUDNN_RNN_ALGO_STANDARD");
    if (biasMode != CUDNN_RNN_DOUBLE_BIAS && algo != CUDNN_RNN_ALGO_STANDARD)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "bias modes other than DOUBLE_BIAS need CUDNN_RNN_ALGO_STANDARD");

    rnn_defaults(rnnDesc);
    rnnDesc->algo = algo;
    rnnDesc->cell = cellMode;
    rnnDesc->bias = biasMode;
    rnnDesc->dir = dirMode;
    rnnDesc->input_mode = inputMode;
    rnnDesc->dtype = dataType;
    rnnDesc->math_prec = mathPrec;
    rnnDesc->math_type = mathType;
    rnnDesc->input_size = inputSize;
    rnnDesc->hidden_size = hiddenSize;
    rnnDesc->proj_size = projSize;
    rnnDesc->num_layers = numLayers;
    rnnDesc->dropout = dropoutDesc;
    rnnDesc->aux_flags = auxFlags;
    rnnDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetRNNDescriptor_v8)(cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t *algo,
    cudnnRNNMode_t *cellMode, cudnnRNNBiasMode_t *biasMode, cudnnDirectionMode_t *dirMode,
    cudnnRNNInputMode_t *inputMode, cudnnDataType_t *dataType, cudnnDataType_t *mathPrec,
    cudnnMathType_t *mathType, int32_t *inputSize, int32_t *hiddenSize, int32_t *projSize,
    int32_t *numLayers, cudnnDropoutDescriptor_t *dropoutDesc, uint32_t *auxFlags)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    if (!rnnDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "rnnDesc was never set");
    const struct cudnnRNNStruct *r = rnnDesc;
    /* Every output is optional: NULL means "not wanted". */
    if (algo) *algo = r->algo;
    if (cellMode) *cellMode = r->cell;
    if (biasMode) *biasMode = r->bias;
    if (dirMode) *dirMode = r->dir;
    if (inputMode) *inputMode = r->input_mode;
    if (dataType) *dataType = r->dtype;
    if (mathPrec) *mathPrec = r->math_prec;
    if (mathType) *mathType = r->math_type;
    if (inputSize) *inputSize = r->input_size;
    if (hiddenSize) *hiddenSize = r->hidden_size;
    if (projSize) *projSize = r->proj_size;
    if (numLayers) *numLayers = r->num_layers;
    if (dropoutDesc) *dropoutDesc = r->dropout;
    if (auxFlags) *auxFlags = r->aux_flags;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetRNNDescriptor_v6)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
    const int hiddenSize, const int numLayers, cudnnDropoutDescriptor_t dropoutDesc,
    cudnnRNNInputMode_t inputMode, cudnnDirectionMode_t direction, cudnnRNNMode_t cellMode,
    cudnnRNNAlgo_t algo, cudnnDataType_t mathPrec)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    cudnnStatus_t st = check_common(__func__, algo, cellMode, direction, inputMode, mathPrec, hiddenSize,
                                    numLayers, dropoutDesc);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    /* The v6 call predates dataType and inputSize: the data type reads back as mathPrec and
     * the input size as 0 until a legacy call brings an xDesc (docs/rnn.md). */
    rnn_defaults(rnnDesc);
    rnnDesc->algo = algo;
    rnnDesc->cell = cellMode;
    rnnDesc->dir = direction;
    rnnDesc->input_mode = inputMode;
    rnnDesc->dtype = mathPrec;
    rnnDesc->math_prec = mathPrec;
    rnnDesc->hidden_size = hiddenSize;
    rnnDesc->proj_size = hiddenSize;
    rnnDesc->num_layers = numLayers;
    rnnDesc->dropout = dropoutDesc;
    rnnDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetRNNDescriptor_v6)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
    int *hiddenSize, int *numLayers, cudnnDropoutDescriptor_t *dropoutDesc, cudnnRNNInputMode_t *inputMode,
    cudnnDirectionMode_t *direction, cudnnRNNMode_t *cellMode, cudnnRNNAlgo_t *algo, cudnnDataType_t *mathPrec)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    if (!rnnDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "rnnDesc was never set");
    /* Unlike Get_v8, the v6 getter needs every output: cuDNN 8.5 answers BAD_PARAM for any
     * NULL one (docs/rnn.md, "NULL outputs"). */
    if (!hiddenSize || !numLayers || !dropoutDesc || !inputMode || !direction || !cellMode || !algo || !mathPrec)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL (the v6 getter needs all eight)");
    const struct cudnnRNNStruct *r = rnnDesc;
    *hiddenSize = r->hidden_size;
    *numLayers = r->num_layers;
    *dropoutDesc = r->dropout;
    *inputMode = r->input_mode;
    *direction = r->dir;
    *cellMode = r->cell;
    *algo = r->algo;
    *mathPrec = r->math_prec;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetRNNMatrixMathType)(cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t mType)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    if ((unsigned)mType > (unsigned)CUDNN_FMA_MATH)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "mType %d is not a cudnnMathType_t", (int)mType);
    rnnDesc->math_type = mType;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetRNNMatrixMathType)(cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t *mType)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    HD_CHECK_PTR(mType);
    *mType = rnnDesc->math_type;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetRNNBiasMode)(cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t biasMode)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    if ((unsigned)biasMode > (unsigned)CUDNN_RNN_SINGLE_REC_BIAS)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "biasMode %d is not a cudnnRNNBiasMode_t", (int)biasMode);
    if (biasMode != CUDNN_RNN_DOUBLE_BIAS && rnnDesc->algo != CUDNN_RNN_ALGO_STANDARD)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "bias modes other than DOUBLE_BIAS need CUDNN_RNN_ALGO_STANDARD");
    rnnDesc->bias = biasMode;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetRNNBiasMode)(cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t *biasMode)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    HD_CHECK_PTR(biasMode);
    *biasMode = rnnDesc->bias;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t set_clip(const char *fn, cudnnRNNDescriptor_t r, cudnnRNNClipMode_t mode,
                              cudnnNanPropagation_t nan_opt, double lclip, double rclip)
{
    if ((unsigned)mode > (unsigned)CUDNN_RNN_CLIP_MINMAX)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "clipMode %d is not a cudnnRNNClipMode_t", (int)mode);
    if ((unsigned)nan_opt > (unsigned)CUDNN_PROPAGATE_NAN)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "clipNanOpt %d is not a cudnnNanPropagation_t", (int)nan_opt);
    /* The bounds are checked whatever the mode, as cuDNN does. */
    if (isnan(lclip) || isnan(rclip))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "lclip and rclip must not be NaN");
    if (lclip > rclip)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "lclip %g is greater than rclip %g", lclip, rclip);
    r->clip_mode = mode;
    r->clip_nan = nan_opt;
    r->lclip = lclip;
    r->rclip = rclip;
    return CUDNN_STATUS_SUCCESS;
}

/* cuDNN 8.5 treats NULL outputs differently in the two clip getters: the _v8 one skips them
 * ("not wanted"), the legacy one answers BAD_PARAM.  ALL_NEEDED picks the legacy rule. */
static cudnnStatus_t get_clip(const char *fn, cudnnRNNDescriptor_t r, cudnnRNNClipMode_t *mode,
                              cudnnNanPropagation_t *nan_opt, double *lclip, double *rclip, int all_needed)
{
    if (all_needed && (!mode || !nan_opt || !lclip || !rclip))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "an output pointer is NULL");
    if (mode) *mode = r->clip_mode;
    if (nan_opt) *nan_opt = r->clip_nan;
    if (lclip) *lclip = r->lclip;
    if (rclip) *rclip = r->rclip;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnRNNSetClip_v8)(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                                          cudnnNanPropagation_t clipNanOpt, double lclip, double rclip)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    return set_clip(__func__, rnnDesc, clipMode, clipNanOpt, lclip, rclip);
}

cudnnStatus_t HD_IMPL(cudnnRNNGetClip_v8)(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
                                          cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    return get_clip(__func__, rnnDesc, clipMode, clipNanOpt, lclip, rclip, 0);
}

cudnnStatus_t HD_IMPL(cudnnRNNSetClip)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                                       cudnnNanPropagation_t clipNanOpt, double lclip, double rclip)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    return set_clip(__func__, rnnDesc, clipMode, clipNanOpt, lclip, rclip);
}

cudnnStatus_t HD_IMPL(cudnnRNNGetClip)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
                                       cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    return get_clip(__func__, rnnDesc, clipMode, clipNanOpt, lclip, rclip, 1);
}

cudnnStatus_t HD_IMPL(cudnnSetRNNProjectionLayers)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                                   const int recProjSize, const int outProjSize)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    if (!rnnDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "rnnDesc was never set");
    if (recProjSize <= 0 || recProjSize > rnnDesc->hidden_size)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "recProjSize must be in 1..hiddenSize=%d (got %d)",
                       rnnDesc->hidden_size, recProjSize);
    if (outProjSize < 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "outProjSize must not be negative (got %d)", outProjSize);
    if (outProjSize != 0)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "output projection is not supported (outProjSize must be 0)");
    if (recProjSize < rnnDesc->hidden_size) {
        if (rnnDesc->cell != CUDNN_LSTM)
            return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "recurrent projection exists only for CUDNN_LSTM");
        if (rnnDesc->algo != CUDNN_RNN_ALGO_STANDARD)
            return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "recurrent projection needs CUDNN_RNN_ALGO_STANDARD");
    }
    rnnDesc->proj_size = recProjSize;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetRNNProjectionLayers)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                                   int *recProjSize, int *outProjSize)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    HD_CHECK_PTR(recProjSize);
    HD_CHECK_PTR(outProjSize);
    *recProjSize = rnnDesc->proj_size;
    *outProjSize = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetRNNPaddingMode)(cudnnRNNDescriptor_t rnnDesc, unsigned paddingMode)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    if (paddingMode != CUDNN_RNN_PADDED_IO_DISABLED && paddingMode != CUDNN_RNN_PADDED_IO_ENABLED)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "paddingMode %u is not a cudnnRNNPaddingMode_t", paddingMode);
    rnnDesc->aux_flags = (rnnDesc->aux_flags & ~(uint32_t)CUDNN_RNN_PADDED_IO_ENABLED) | paddingMode;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetRNNPaddingMode)(cudnnRNNDescriptor_t rnnDesc, unsigned *paddingMode)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    HD_CHECK_PTR(paddingMode);
    *paddingMode = rnnDesc->aux_flags & CUDNN_RNN_PADDED_IO_ENABLED;
    return CUDNN_STATUS_SUCCESS;
}

/* cuDNN 8 hands out RNN algorithm descriptors only from the legacy Find functions, which
 * return nothing usable here; after checking the arguments, say so. */
cudnnStatus_t HD_IMPL(cudnnSetRNNAlgorithmDescriptor)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                                      cudnnAlgorithmDescriptor_t algoDesc)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    HD_CHECK_DESC(algoDesc, HD_TAG_ALGO_DESC);
    return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__,
                   "RNN algorithm descriptors are not used: choose the algorithm in cudnnSetRNNDescriptor_v8");
}

/* ---- persistent RNN plans (CUDNN_RNN_ALGO_PERSIST_DYNAMIC only) ---- */

cudnnStatus_t HD_IMPL(cudnnCreatePersistentRNNPlan)(cudnnRNNDescriptor_t rnnDesc, const int minibatch,
                                                    const cudnnDataType_t dataType, cudnnPersistentRNNPlan_t *plan)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    HD_CHECK_PTR(plan);
    if (!rnnDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "rnnDesc was never set");
    if (rnnDesc->algo != CUDNN_RNN_ALGO_PERSIST_DYNAMIC)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "persistent plans need CUDNN_RNN_ALGO_PERSIST_DYNAMIC");
    if (minibatch <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "minibatch must be positive (got %d)", minibatch);
    if (!rnn_dtype(dataType))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dataType %d is not FLOAT, DOUBLE or HALF", (int)dataType);
    struct cudnnPersistentRNNPlan *p = hd_object_new(sizeof *p, HD_TAG_PERSISTENT_RNN_PLAN);
    if (!p)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    p->minibatch = minibatch;
    p->dtype = dataType;
    *plan = p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyPersistentRNNPlan)(cudnnPersistentRNNPlan_t plan)
{
    HD_CHECK_DESC(plan, HD_TAG_PERSISTENT_RNN_PLAN);
    hd_object_free(plan);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetPersistentRNNPlan)(cudnnRNNDescriptor_t rnnDesc, cudnnPersistentRNNPlan_t plan)
{
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    HD_CHECK_DESC(plan, HD_TAG_PERSISTENT_RNN_PLAN);
    if (rnnDesc->algo != CUDNN_RNN_ALGO_PERSIST_DYNAMIC)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "persistent plans need CUDNN_RNN_ALGO_PERSIST_DYNAMIC");
    rnnDesc->plan = plan;
    return CUDNN_STATUS_SUCCESS;
}

/* On the host there is no kernel to compile: the dynamic-persistent algorithm runs the same
 * code as the others, so building is only validation. */
cudnnStatus_t HD_IMPL(cudnnBuildRNNDynamic)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int miniBatch)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(rnnDesc, HD_TAG_RNN);
    if (!rnnDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "rnnDesc was never set");
    if (rnnDesc->algo != CUDNN_RNN_ALGO_PERSIST_DYNAMIC)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "cudnnBuildRNNDynamic needs CUDNN_RNN_ALGO_PERSIST_DYNAMIC");
    if (miniBatch <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "miniBatch must be positive (got %d)", miniBatch);
    return CUDNN_STATUS_SUCCESS;
}
