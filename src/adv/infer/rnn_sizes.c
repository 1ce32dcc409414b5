/*
 * RNN size queries and weight-space lookups: weight space / params size, work and reserve
 * space sizes, and the pointers + descriptors of each matrix and bias (layout in
 * rnn/rnn_plan.h and docs/rnn.md).
 */
#include <stdlib.h>
#include <string.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "core/handle.h"
#include "adv/rnn_check.h"
#include "adv/rnn_run.h"

static cudnnStatus_t check_fits(const char *fn, const struct cudnnRNNStruct *r, int input_size, int T, int B)
{
    if (hd_rnn_size_estimate(r, input_size, T, B) > HD_RNN_MAX_BYTES)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the sizes of this RNN overflow any buffer");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t need_input_size(const char *fn, const struct cudnnRNNStruct *r)
{
    if (r->input_size <= 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "rnnDesc has no inputSize (set by cudnnSetRNNDescriptor_v6): "
                       "use cudnnSetRNNDescriptor_v8 or the legacy calls that take xDesc");
    return CUDNN_STATUS_SUCCESS;
}

#define TRY(expr) do { cudnnStatus_t st_ = (expr); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

cudnnStatus_t HD_IMPL(cudnnGetRNNWeightSpaceSize)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                                  size_t *weightSpaceSize)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_rnn_check_desc(__func__, rnnDesc));
    HD_CHECK_PTR(weightSpaceSize);
    TRY(need_input_size(__func__, rnnDesc));
    TRY(check_fits(__func__, rnnDesc, rnnDesc->input_size, 1, 1));
    *weightSpaceSize = hd_rnn_weight_bytes(rnnDesc);
    return CUDNN_STATUS_SUCCESS;
}

/* Legacy: input size and data type come from xDesc ({batch, inputSize, 1}). */
static cudnnStatus_t legacy_x(const char *fn, const struct cudnnRNNStruct *r, const struct cudnnTensorStruct *x,
                              struct cudnnRNNStruct *view)
{
    TRY(hd_check_obj(x, HD_TAG_TENSOR, "xDesc", fn));
    if (x->nbDims < 2)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "xDesc was never set");
    return hd_rnn_legacy_view(fn, r, x->dims[1], x->dtype, view);
}

cudnnStatus_t HD_IMPL(cudnnGetRNNParamsSize)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                             const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes,
                                             cudnnDataType_t dataType)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_rnn_check_desc(__func__, rnnDesc));
    HD_CHECK_PTR(sizeInBytes);
    struct cudnnRNNStruct v;
    TRY(legacy_x(__func__, rnnDesc, xDesc, &v));
    if (dataType != xDesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dataType %s differs from xDesc's %s", hd_dtype_name(dataType),
                       hd_dtype_name(xDesc->dtype));
    TRY(check_fits(__func__, &v, v.input_size, 1, 1));
    *sizeInBytes = hd_rnn_weight_bytes(&v);   /* v's type is dataType */
    return CUDNN_STATUS_SUCCESS;
}

/* Where (PL, ID) lives, after range checks. */
static cudnnStatus_t locate(const char *fn, const struct cudnnRNNStruct *r, int pl, int id, hd_rnn_piece *pc)
{
    /* wider than int: a bidirectional descriptor may have up to INT_MAX layers */
    long long npl = (long long)r->num_layers * hd_rnn_dirs(r);
    int G = hd_rnn_gates(r->cell);
    if (pl < 0 || pl >= npl)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "pseudoLayer %d is outside 0..%lld", pl, npl - 1);
    int maxid = 2 * G - 1 + hd_rnn_has_proj(r);
    if (id < 0 || id > maxid)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "linLayerID %d is outside 0..%d for this cell", id, maxid);
    *pc = hd_rnn_locate(r, r->input_size, pl, id);
    return CUDNN_STATUS_SUCCESS;
}

/* Descriptor strides are ints: a matrix with more elements cannot be described. */
static cudnnStatus_t fits_int(const char *fn, hd_rnn_piece pc)
{
    if ((long long)pc.m_rows * (long long)pc.m_cols > 2147483647LL)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "a %d x %d matrix does not fit a descriptor's int strides",
                       pc.m_rows, pc.m_cols);
    return CUDNN_STATUS_SUCCESS;
}

/* Describe a rows x cols piece as a 3-d tensor {1, rows, cols}; rows == 0 leaves it unset. */
static void describe_tensor(struct cudnnTensorStruct *t, cudnnDataType_t dt, int rows, int cols)
{
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        t->dims[i] = t->strides[i] = 0;
    t->dtype = dt;
    t->format = CUDNN_TENSOR_NCHW;
    t->vect_c = 1;
    t->packed = 1;
    if (rows == 0) {
        t->nbDims = 0;
        return;
    }
    t->nbDims = 3;
    t->dims[0] = 1; t->dims[1] = rows; t->dims[2] = cols;
    t->strides[0] = rows * cols; t->strides[1] = cols; t->strides[2] = 1;
}

static void describe_filter(struct cudnnFilterStruct *f, cudnnDataType_t dt, int rows, int cols)
{
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        f->dims[i] = 0;
    f->dtype = dt;
    f->format = CUDNN_TENSOR_NCHW;
    f->vect_c = 1;
    if (rows == 0) {
        f->nbDims = 0;
        return;
    }
    f->nbDims = 3;
    f->dims[0] = 1; f->dims[1] = rows; f->dims[2] = cols;
}

cudnnStatus_t HD_IMPL(cudnnGetRNNWeightParams)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int32_t pseudoLayer,
    size_t weightSpaceSize, const void *weightSpace, int32_t linLayerID, cudnnTensorDescriptor_t mDesc, void **mAddr,
    cudnnTensorDescriptor_t bDesc, void **bAddr)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_rnn_check_desc(__func__, rnnDesc));
    TRY(need_input_size(__func__, rnnDesc));
    TRY(check_fits(__func__, rnnDesc, rnnDesc->input_size, 1, 1));
    HD_CHECK_PTR(weightSpace);
    /* All four outputs are needed: cuDNN 8.5 answers BAD_PARAM for any NULL one. */
    HD_CHECK_DESC(mDesc, HD_TAG_TENSOR);
    HD_CHECK_DESC(bDesc, HD_TAG_TENSOR);
    HD_CHECK_PTR(mAddr);
    HD_CHECK_PTR(bAddr);
    size_t es = hd_dtype_size(rnnDesc->dtype);
    size_t need = hd_rnn_weight_bytes(rnnDesc);
    if (weightSpaceSize < need)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "weightSpaceSize %zu is below the %zu bytes this RNN needs",
                       weightSpaceSize, need);
    hd_rnn_piece pc;
    TRY(locate(__func__, rnnDesc, pseudoLayer, linLayerID, &pc));
    TRY(fits_int(__func__, pc));
    char *base = (char *)(uintptr_t)weightSpace;
    *mAddr = pc.m_rows ? base + pc.m_off * es : NULL;
    describe_tensor(mDesc, rnnDesc->dtype, pc.m_rows, pc.m_cols);
    *bAddr = pc.b_rows ? base + pc.b_off * es : NULL;
    describe_tensor(bDesc, rnnDesc->dtype, pc.b_rows, 1);
    return CUDNN_STATUS_SUCCESS;
}

/* The legacy pair: the weight space is described by a filter ({total, 1, 1}). */
static cudnnStatus_t lin_layer(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *r, int pl,
                               const struct cudnnTensorStruct *x, const struct cudnnFilterStruct *w, const void *wp,
                               int id, struct cudnnFilterStruct *out, void **addr, int want_bias)
{
    TRY(hd_handle_check(handle, fn));
    TRY(hd_rnn_check_desc(fn, r));
    struct cudnnRNNStruct v;
    TRY(legacy_x(fn, r, x, &v));
    TRY(hd_check_obj(w, HD_TAG_FILTER, "wDesc", fn));
    TRY(hd_check_obj(out, HD_TAG_FILTER, want_bias ? "linLayerBiasDesc" : "linLayerMatDesc", fn));
    if (!wp)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "w is NULL");
    if (!addr)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is NULL", want_bias ? "linLayerBias" : "linLayerMat");
    if (w->nbDims == 0)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "wDesc was never set");
    if (w->dtype != v.dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "wDesc has type %s, xDesc %s", hd_dtype_name(w->dtype),
                       hd_dtype_name(v.dtype));
    TRY(check_fits(fn, &v, v.input_size, 1, 1));
    size_t have = 1;
    for (int i = 0; i < w->nbDims; i++)
        have *= (size_t)w->dims[i];
    size_t need = hd_rnn_weight_elems(&v, v.input_size);
    if (have < need)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "wDesc holds %zu elements, this RNN needs %zu", have, need);
    hd_rnn_piece pc;
    TRY(locate(fn, &v, pl, id, &pc));
    TRY(fits_int(fn, pc));
    size_t es = hd_dtype_size(v.dtype);
    char *base = (char *)(uintptr_t)wp;
    if (want_bias) {
        *addr = pc.b_rows ? base + pc.b_off * es : NULL;
        describe_filter(out, v.dtype, pc.b_rows, 1);
    } else {
        *addr = pc.m_rows ? base + pc.m_off * es : NULL;
        describe_filter(out, v.dtype, pc.m_rows, pc.m_cols);
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetRNNLinLayerMatrixParams)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int pseudoLayer, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc, const void *w,
    const int linLayerID, cudnnFilterDescriptor_t linLayerMatDesc, void **linLayerMat)
{
    return lin_layer(__func__, handle, rnnDesc, pseudoLayer, xDesc, wDesc, w, linLayerID, linLayerMatDesc, linLayerMat, 0);
}

cudnnStatus_t HD_IMPL(cudnnGetRNNLinLayerBiasParams)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int pseudoLayer, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc, const void *w,
    const int linLayerID, cudnnFilterDescriptor_t linLayerBiasDesc, void **linLayerBias)
{
    return lin_layer(__func__, handle, rnnDesc, pseudoLayer, xDesc, wDesc, w, linLayerID, linLayerBiasDesc,
                     linLayerBias, 1);
}

cudnnStatus_t HD_IMPL(cudnnGetRNNTempSpaceSizes)(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
    cudnnForwardMode_t fMode, cudnnRNNDataDescriptor_t xDesc, size_t *workSpaceSize, size_t *reserveSpaceSize)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_rnn_check_desc(__func__, rnnDesc));
    TRY(need_input_size(__func__, rnnDesc));
    if ((unsigned)fMode > (unsigned)CUDNN_FWD_MODE_TRAINING)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "fMode %d is not a cudnnForwardMode_t", (int)fMode);
    TRY(hd_rnn_check_data(__func__, xDesc, "xDesc", rnnDesc, rnnDesc->input_size));
    /* Either size may be NULL ("not wanted"), both too: cuDNN 8.5 answers SUCCESS then. */
    TRY(check_fits(__func__, rnnDesc, rnnDesc->input_size, xDesc->max_seq, xDesc->batch));
    hd_rnn_bytes n = hd_rnn_plan_bytes(rnnDesc, xDesc->max_seq, xDesc->batch, fMode == CUDNN_FWD_MODE_INFERENCE);
    if (workSpaceSize)
        *workSpaceSize = n.work;
    if (reserveSpaceSize)
        *reserveSpaceSize = n.reserve;
    return CUDNN_STATUS_SUCCESS;
}

/* Legacy sizes: xDesc is the per-step array; training reserve is queried separately. */
static cudnnStatus_t legacy_sizes(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *r, int seq_length,
                                  const cudnnTensorDescriptor_t *xDesc, size_t *out, int reserve)
{
    TRY(hd_handle_check(handle, fn));
    TRY(hd_rnn_check_desc(fn, r));
    if (!out)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "sizeInBytes is NULL");
    struct cudnnRNNDataStruct xd;
    memset(&xd, 0, sizeof xd);
    int *lens;
    TRY(hd_rnn_legacy_data(fn, "xDesc", seq_length, xDesc, -1, &xd, &lens));
    free(lens);
    struct cudnnRNNStruct v;
    memset(&v, 0, sizeof v);
    TRY(hd_rnn_legacy_view(fn, r, xd.vec, xd.dtype, &v));
    TRY(check_fits(fn, &v, v.input_size, xd.max_seq, xd.batch));
    *out = reserve ? hd_rnn_plan_bytes(&v, xd.max_seq, xd.batch, 0).reserve : hd_rnn_legacy_work_bytes(&v, &xd);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetRNNWorkspaceSize)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int seqLength, const cudnnTensorDescriptor_t *xDesc, size_t *sizeInBytes)
{
    return legacy_sizes(__func__, handle, rnnDesc, seqLength, xDesc, sizeInBytes, 0);
}

cudnnStatus_t HD_IMPL(cudnnGetRNNTrainingReserveSize)(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
    const int seqLength, const cudnnTensorDescriptor_t *xDesc, size_t *sizeInBytes)
{
    return legacy_sizes(__func__, handle, rnnDesc, seqLength, xDesc, sizeInBytes, 1);
}
