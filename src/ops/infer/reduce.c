/*
 * Reduce-tensor descriptor and cudnnReduceTensor: C = alpha * reduce(A) + beta * C, where
 * each dim of C is 1 (reduced) or equal to A's (kept).
 *
 * Ops: ADD, MUL, MIN, MAX, AMAX (max |a|), AVG, NORM1 (sum |a|), NORM2 (sqrt sum a^2),
 * MUL_NO_ZEROS (product of the non-zero elements; 1 when there are none).
 * Types: A and C both FLOAT, HALF or BFLOAT16 with compute type FLOAT, or both DOUBLE with
 * compute type DOUBLE.  Accumulation is in double, in row-major order of the reduced dims,
 * one output element per task step, so results are deterministic.
 * Indices (FLATTENED_INDICES, 32-bit only, for MIN/MAX/AMAX): the row-major position of the
 * selected element inside its reduction window (first occurrence on ties).  They are written
 * for the reduction itself, independently of alpha/beta.  No workspace is needed (size 0).
 * NaN: with PROPAGATE_NAN a NaN wins MIN/MAX/AMAX (first NaN's index); with NOT_PROPAGATE_NAN
 * NaNs are skipped (all-NaN windows give NaN, index 0).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "ops/common.h"

#include <math.h>
#include <string.h>

struct cudnnReduceTensorStruct {
    hd_object obj;
    int is_set;
    cudnnReduceTensorOp_t op;
    cudnnDataType_t comp;
    cudnnNanPropagation_t nan_opt;
    cudnnReduceTensorIndices_t indices;
    cudnnIndicesType_t indices_type;
};

typedef struct cudnnReduceTensorStruct reduce_t;

cudnnStatus_t HD_IMPL(cudnnCreateReduceTensorDescriptor)(cudnnReduceTensorDescriptor_t *reduceTensorDesc)
{
    HD_CHECK_PTR(reduceTensorDesc);
    reduce_t *d = hd_object_new(sizeof *d, HD_TAG_REDUCE);
    if (!d)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *reduceTensorDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyReduceTensorDescriptor)(cudnnReduceTensorDescriptor_t reduceTensorDesc)
{
    if (!reduceTensorDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(reduceTensorDesc, HD_TAG_REDUCE);
    hd_object_free(reduceTensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetReduceTensorDescriptor)(cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                      cudnnReduceTensorOp_t reduceTensorOp,
                                                      cudnnDataType_t reduceTensorCompType,
                                                      cudnnNanPropagation_t reduceTensorNanOpt,
                                                      cudnnReduceTensorIndices_t reduceTensorIndices,
                                                      cudnnIndicesType_t reduceTensorIndicesType)
{
    HD_CHECK_DESC(reduceTensorDesc, HD_TAG_REDUCE);
    if ((int)reduceTensorOp < (int)CUDNN_REDUCE_TENSOR_ADD || (int)reduceTensorOp > (int)CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reduceTensorOp %d is not a cudnnReduceTensorOp_t", (int)reduceTensorOp);
    if (reduceTensorCompType != CUDNN_DATA_FLOAT && reduceTensorCompType != CUDNN_DATA_DOUBLE &&
        reduceTensorCompType != CUDNN_DATA_HALF)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reduceTensorCompType %d must be FLOAT, DOUBLE or HALF",
                       (int)reduceTensorCompType);
    if (reduceTensorNanOpt != CUDNN_NOT_PROPAGATE_NAN && reduceTensorNanOpt != CUDNN_PROPAGATE_NAN)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reduceTensorNanOpt %d is not a cudnnNanPropagation_t",
                       (int)reduceTensorNanOpt);
    if (reduceTensorIndices != CUDNN_REDUCE_TENSOR_NO_INDICES &&
        reduceTensorIndices != CUDNN_REDUCE_TENSOR_FLATTENED_INDICES)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reduceTensorIndices %d is not a cudnnReduceTensorIndices_t",
                       (int)reduceTensorIndices);
    if ((int)reduceTensorIndicesType < (int)CUDNN_32BIT_INDICES || (int)reduceTensorIndicesType > (int)CUDNN_8BIT_INDICES)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reduceTensorIndicesType %d is not a cudnnIndicesType_t",
                       (int)reduceTensorIndicesType);
    reduceTensorDesc->op = reduceTensorOp;
    reduceTensorDesc->comp = reduceTensorCompType;
    reduceTensorDesc->nan_opt = reduceTensorNanOpt;
    reduceTensorDesc->indices = reduceTensorIndices;
    reduceTensorDesc->indices_type = reduceTensorIndicesType;
    reduceTensorDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetReduceTensorDescriptor)(const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                      cudnnReduceTensorOp_t *reduceTensorOp,
                                                      cudnnDataType_t *reduceTensorCompType,
                                                      cudnnNanPropagation_t *reduceTensorNanOpt,
                                                      cudnnReduceTensorIndices_t *reduceTensorIndices,
                                                      cudnnIndicesType_t *reduceTensorIndicesType)
{
    HD_CHECK_DESC(reduceTensorDesc, HD_TAG_REDUCE);
    HD_CHECK_PTR(reduceTensorOp);
    HD_CHECK_PTR(reduceTensorCompType);
    HD_CHECK_PTR(reduceTensorNanOpt);
    HD_CHECK_PTR(reduceTensorIndices);
    HD_CHECK_PTR(reduceTensorIndicesType);
    if (!reduceTensorDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reduceTensorDesc was never set");
    *reduceTensorOp = reduceTensorDesc->op;
    *reduceTensorCompType = reduceTensorDesc->comp;
    *reduceTensorNanOpt = reduceTensorDesc->nan_opt;
    *reduceTensorIndices = reduceTensorDesc->indices;
    *reduceTensorIndicesType = reduceTensorDesc->indices_type;
    return CUDNN_STATUS_SUCCESS;
}

static int wants_indices(const reduce_t *d)
{
    return d->indices == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES &&
           (d->op == CUDNN_REDUCE_TENSOR_MIN || d->op == CUDNN_REDUCE_TENSOR_MAX || d->op == CUDNN_REDUCE_TENSOR_AMAX);
}

/* Shared validation of the descriptors of a reduction. */
static cudnnStatus_t check_shapes(const char *fn, const reduce_t *d, const struct cudnnTensorStruct *a,
                                  const struct cudnnTensorStruct *c)
{
    if (!d->is_set)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "reduceTensorDesc was never set");
    if (a->nbDims != c->nbDims)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "aDesc has %d dims but cDesc has %d", a->nbDims, c->nbDims);
    for (int i = 0; i < a->nbDims; i++)
        if (c->dims[i] != 1 && c->dims[i] != a->dims[i])
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dim %d of C is %d; it must be 1 or A's (%d)", i, c->dims[i],
                           a->dims[i]);
    if (a->dtype != c->dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "A is %s but C is %s", hd_dtype_name(a->dtype),
                       hd_dtype_name(c->dtype));
    if (a->vect_c > 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "vector data types are not supported");
    if (!hd_is_fp_type(a->dtype))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "data type %s is not supported", hd_dtype_name(a->dtype));
    if ((a->dtype == CUDNN_DATA_DOUBLE) != (d->comp == CUDNN_DATA_DOUBLE))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "DOUBLE data needs compute type DOUBLE and vice versa");
    if (d->comp != CUDNN_DATA_FLOAT && d->comp != CUDNN_DATA_DOUBLE)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "compute type %s is not supported", hd_dtype_name(d->comp));
    if (wants_indices(d) && d->indices_type != CUDNN_32BIT_INDICES)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "only CUDNN_32BIT_INDICES are supported");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetReductionIndicesSize)(cudnnHandle_t handle,
                                                    const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                    const cudnnTensorDescriptor_t aDesc,
                                                    const cudnnTensorDescriptor_t cDesc, size_t *sizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(reduceTensorDesc, HD_TAG_REDUCE);
    HD_CHECK_TENSOR(aDesc);
    HD_CHECK_TENSOR(cDesc);
    HD_CHECK_PTR(sizeInBytes);
    HD_TRY(check_shapes(__func__, reduceTensorDesc, aDesc, cDesc));
    *sizeInBytes = wants_indices(reduceTensorDesc) ? (size_t)hd_tensor_elems(cDesc) * sizeof(uint32_t) : 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetReductionWorkspaceSize)(cudnnHandle_t handle,
                                                      const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                      const cudnnTensorDescriptor_t aDesc,
                                                      const cudnnTensorDescriptor_t cDesc, size_t *sizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(reduceTensorDesc, HD_TAG_REDUCE);
    HD_CHECK_TENSOR(aDesc);
    HD_CHECK_TENSOR(cDesc);
    HD_CHECK_PTR(sizeInBytes);
    HD_TRY(check_shapes(__func__, reduceTensorDesc, aDesc, cDesc));
    *sizeInBytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

typedef struct {
    const reduce_t *d;
    cudnnDataType_t dt;
    const void *a;
    void *c;
    uint32_t *indices;
    double alpha, beta;
    int nd;                                 /* all dims of the tensors */
    int64_t cdims[CUDNN_DIM_MAX], cstr[CUDNN_DIM_MAX], akept[CUDNN_DIM_MAX];
    int nr;                                 /* reduced dims (size > 1), outermost first */
    int64_t rdims[CUDNN_DIM_MAX], rstr[CUDNN_DIM_MAX];
    int64_t window, nout, per_task;
} red_ctx;

static void red_one(const red_ctx *x, int64_t oi)
{
    /* the output element's own offsets */
    int64_t rem = oi, ao = 0, co = 0;
    for (int i = x->nd - 1; i >= 0; i--) {
        int64_t k = rem % x->cdims[i];
        rem /= x->cdims[i];
        ao += k * x->akept[i];
        co += k * x->cstr[i];
    }
    cudnnReduceTensorOp_t op = x->d->op;
    int prop = x->d->nan_opt == CUDNN_PROPAGATE_NAN;
    double acc = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS ? 1.0 : 0.0;
    int have = 0;           /* MIN/MAX/AMAX: a candidate was found */
    int nan_won = 0;
    uint32_t best = 0;
    int64_t idx[CUDNN_DIM_MAX] = { 0 };
    int64_t off = ao;
    for (int64_t w = 0; w < x->window; w++) {
        double v = hd_ld1(x->dt, x->a, off);
        switch (op) {
        case CUDNN_REDUCE_TENSOR_ADD: case CUDNN_REDUCE_TENSOR_AVG: acc += v; break;
        case CUDNN_REDUCE_TENSOR_MUL: acc *= v; break;
        case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: if (v != 0) acc *= v; break;
        case CUDNN_REDUCE_TENSOR_NORM1: acc += fabs(v); break;
        case CUDNN_REDUCE_TENSOR_NORM2: acc += v * v; break;
        default: {          /* MIN, MAX, AMAX */
            if (op == CUDNN_REDUCE_TENSOR_AMAX)
                v = fabs(v);
            if (nan_won)
                break;
            if (v != v) {
                if (prop) {
                    acc = v;
                    best = (uint32_t)w;
                    nan_won = have = 1;
                }
                break;
            }
            int better = !have || (op == CUDNN_REDUCE_TENSOR_MIN ? v < acc : v > acc);
            if (better) {
                acc = v;
                best = (uint32_t)w;
                have = 1;
            }
        }
        }
        /* next window position, last reduced dim fastest */
        for (int i = x->nr - 1; i >= 0; i--) {
            off += x->rstr[i];
            if (++idx[i] < x->rdims[i])
                break;
            off -= x->rdims[i] * x->rstr[i];
            idx[i] = 0;
        }
    }
    if (op == CUDNN_REDUCE_TENSOR_AVG)
        acc /= (double)x->window;
    else if (op == CUDNN_REDUCE_TENSOR_NORM2)
        acc = sqrt(acc);
    else if ((op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX || op == CUDNN_REDUCE_TENSOR_AMAX) && !have)
        acc = NAN;
    double r = x->alpha * acc;
    if (x->beta != 0)
        r += x->beta * hd_ld1(x->dt, x->c, co);
    hd_st1(x->dt, x->c, co, r);
    if (x->indices)
        x->indices[oi] = best;
}

static void red_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const red_ctx *x = vctx;
    int64_t lo = (int64_t)task * x->per_task, hi = lo + x->per_task;
    if (hi > x->nout)
        hi = x->nout;
    for (int64_t o = lo; o < hi; o++)
        red_one(x, o);
}

cudnnStatus_t HD_IMPL(cudnnReduceTensor)(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                         void *indices, size_t indicesSizeInBytes, void *workspace,
                                         size_t workspaceSizeInBytes, const void *alpha,
                                         const cudnnTensorDescriptor_t aDesc, const void *A, const void *beta,
                                         const cudnnTensorDescriptor_t cDesc, void *C)
{
    (void)workspace;
    (void)workspaceSizeInBytes;
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(reduceTensorDesc, HD_TAG_REDUCE);
    HD_CHECK_TENSOR(aDesc);
    HD_CHECK_TENSOR(cDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(A);
    HD_CHECK_PTR(C);
    HD_TRY(check_shapes(__func__, reduceTensorDesc, aDesc, cDesc));
    int want_idx = wants_indices(reduceTensorDesc);
    size_t need = want_idx ? (size_t)hd_tensor_elems(cDesc) * sizeof(uint32_t) : 0;
    if (want_idx && !indices)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "indices is NULL but the descriptor asks for indices");
    if (indicesSizeInBytes < need)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "indicesSizeInBytes %zu is below the %zu needed", indicesSizeInBytes,
                       need);
    if (hd_tensors_overlap(aDesc, A, cDesc, C))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "A and C overlap");

    red_ctx x;
    memset(&x, 0, sizeof x);
    x.d = reduceTensorDesc;
    x.dt = aDesc->dtype;
    x.a = A;
    x.c = C;
    x.indices = want_idx ? indices : NULL;
    x.alpha = hd_scale_value(alpha, x.dt);
    x.beta = hd_scale_value(beta, x.dt);
    x.nd = aDesc->nbDims;
    x.window = 1;
    x.nout = 1;
    for (int i = 0; i < x.nd; i++) {
        x.cdims[i] = cDesc->dims[i];
        x.cstr[i] = cDesc->strides[i];
        x.akept[i] = cDesc->dims[i] == 1 ? 0 : aDesc->strides[i];
        x.nout *= cDesc->dims[i];
        if (cDesc->dims[i] == 1 && aDesc->dims[i] > 1) {
            x.rdims[x.nr] = aDesc->dims[i];
            x.rstr[x.nr] = aDesc->strides[i];
            x.nr++;
            x.window *= aDesc->dims[i];
        }
    }
    x.per_task = 1 + 65536 / x.window;
    size_t ntasks = (size_t)((x.nout + x.per_task - 1) / x.per_task);
    hd_parallel_for(ntasks, handle->num_threads, red_task, &x);
    return CUDNN_STATUS_SUCCESS;
}
