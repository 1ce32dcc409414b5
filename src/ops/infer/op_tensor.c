/*
 * Op-tensor descriptor and cudnnOpTensor: C = op(alpha1 * A, alpha2 * B) + beta * C.
 *
 * ADD, MUL, MIN, MAX are binary; SQRT and NOT read A only (B and bDesc are ignored and may
 * be NULL).  NOT is the logical negation of a 0/1 mask, 1 - x (cuDNN only says "negation").
 * A and C have equal dims; each dim of B equals C's or is 1.  Types follow cuDNN 8.1's
 * table (A and B share a type):
 *     A/B       C                        compute
 *     FLOAT     FLOAT, HALF, INT8, BF16  FLOAT
 *     HALF      FLOAT, HALF              FLOAT
 *     BFLOAT16  FLOAT, BFLOAT16          FLOAT
 *     INT8      FLOAT, INT8              FLOAT
 *     DOUBLE    DOUBLE                   DOUBLE
 * Anything else is NOT_SUPPORTED.  alpha1/alpha2/beta are doubles when C is DOUBLE.
 * C may be A (same strides), or B when B is not broadcast; other overlaps are BAD_PARAM.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "ops/common.h"

#include <math.h>

struct cudnnOpTensorStruct {
    hd_object obj;
    int is_set;
    cudnnOpTensorOp_t op;
    cudnnDataType_t comp;
    cudnnNanPropagation_t nan_opt;
};

cudnnStatus_t HD_IMPL(cudnnCreateOpTensorDescriptor)(cudnnOpTensorDescriptor_t *opTensorDesc)
{
    HD_CHECK_PTR(opTensorDesc);
    struct cudnnOpTensorStruct *d = hd_object_new(sizeof *d, HD_TAG_OPTENSOR);
    if (!d)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *opTensorDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyOpTensorDescriptor)(cudnnOpTensorDescriptor_t opTensorDesc)
{
    if (!opTensorDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(opTensorDesc, HD_TAG_OPTENSOR);
    hd_object_free(opTensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetOpTensorDescriptor)(cudnnOpTensorDescriptor_t opTensorDesc, cudnnOpTensorOp_t opTensorOp,
                                                  cudnnDataType_t opTensorCompType,
                                                  cudnnNanPropagation_t opTensorNanOpt)
{
    HD_CHECK_DESC(opTensorDesc, HD_TAG_OPTENSOR);
    if ((int)opTensorOp < (int)CUDNN_OP_TENSOR_ADD || (int)opTensorOp > (int)CUDNN_OP_TENSOR_NOT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "opTensorOp %d is not a cudnnOpTensorOp_t", (int)opTensorOp);
    /* the descriptor takes the floating-point types (as cuDNN does); cudnnOpTensor itself then
     * runs FLOAT and DOUBLE compute only */
    if (opTensorCompType != CUDNN_DATA_FLOAT && opTensorCompType != CUDNN_DATA_DOUBLE &&
        opTensorCompType != CUDNN_DATA_HALF && opTensorCompType != CUDNN_DATA_BFLOAT16)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "opTensorCompType %d must be FLOAT, DOUBLE, HALF or BFLOAT16",
                       (int)opTensorCompType);
    if (opTensorNanOpt != CUDNN_NOT_PROPAGATE_NAN && opTensorNanOpt != CUDNN_PROPAGATE_NAN)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "opTensorNanOpt %d is not a cudnnNanPropagation_t", (int)opTensorNanOpt);
    opTensorDesc->op = opTensorOp;
    opTensorDesc->comp = opTensorCompType;
    opTensorDesc->nan_opt = opTensorNanOpt;
    opTensorDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetOpTensorDescriptor)(const cudnnOpTensorDescriptor_t opTensorDesc,
                                                  cudnnOpTensorOp_t *opTensorOp, cudnnDataType_t *opTensorCompType,
                                                  cudnnNanPropagation_t *opTensorNanOpt)
{
    HD_CHECK_DESC(opTensorDesc, HD_TAG_OPTENSOR);
    HD_CHECK_PTR(opTensorOp);
    HD_CHECK_PTR(opTensorCompType);
    HD_CHECK_PTR(opTensorNanOpt);
    if (!opTensorDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "opTensorDesc was never set");
    *opTensorOp = opTensorDesc->op;
    *opTensorCompType = opTensorDesc->comp;
    *opTensorNanOpt = opTensorDesc->nan_opt;
    return CUDNN_STATUS_SUCCESS;
}

static int types_ok(cudnnDataType_t ab, cudnnDataType_t c, cudnnDataType_t comp)
{
    if (ab == CUDNN_DATA_DOUBLE)
        return c == CUDNN_DATA_DOUBLE && comp == CUDNN_DATA_DOUBLE;
    if (comp != CUDNN_DATA_FLOAT)
        return 0;
    switch (ab) {
    case CUDNN_DATA_FLOAT:
        return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_HALF || c == CUDNN_DATA_INT8 || c == CUDNN_DATA_BFLOAT16;
    case CUDNN_DATA_HALF:
        return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_HALF;
    case CUDNN_DATA_BFLOAT16:
        return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_BFLOAT16;
    case CUDNN_DATA_INT8:
        return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_INT8;
    default:
        return 0;
    }
}

typedef struct {
    cudnnOpTensorOp_t op;
    int prop;
    int unary;
    int comp_float;          /* round the op's operands and result to float (compute type FLOAT) */
    cudnnDataType_t at, ct;
    const void *a, *b;
    void *c;
    double alpha1, alpha2, beta;
    const hd_eltwise_table *k;
    hd_f32_add3_fn add3;     /* k->add3, or k->add3_stream for operands larger than the cache */
} op_ctx;

static double op_apply(const op_ctx *x, double a, double b)
{
    switch (x->op) {
    case CUDNN_OP_TENSOR_ADD:
        return a + b;
    case CUDNN_OP_TENSOR_MUL:
        return a * b;
    case CUDNN_OP_TENSOR_MIN:
        if (a != a || b != b)
            return x->prop ? (a != a ? a : b) : (a != a ? b : a);
        return a < b ? a : b;
    case CUDNN_OP_TENSOR_MAX:
        if (a != a || b != b)
            return x->prop ? (a != a ? a : b) : (a != a ? b : a);
        return a > b ? a : b;
    case CUDNN_OP_TENSOR_SQRT:
        return sqrt(a);
    case CUDNN_OP_TENSOR_NOT:
        return 1.0 - a;
    default:
        return 0;
    }
}

/* operands: 0 = C, 1 = A, 2 = B (stride 0 on broadcast dims) */
static void op_piece(void *vctx, const hd_rows *r, const int64_t *off, int64_t n)
{
    const op_ctx *x = vctx;
    int last = r->nd - 1;
    int64_t sc = r->strides[0][last], sa = r->strides[1][last], sb = r->strides[2][last];
    if (x->at == CUDNN_DATA_FLOAT && x->ct == CUDNN_DATA_FLOAT && sc == 1 && sa == 1 && sb == 1 &&
        (x->op == CUDNN_OP_TENSOR_ADD || x->op == CUDNN_OP_TENSOR_MUL)) {
        const float *a = (const float *)x->a + off[1], *b = (const float *)x->b + off[2];
        float *c = (float *)x->c + off[0];
        if (x->op == CUDNN_OP_TENSOR_ADD)
            x->add3((size_t)n, a, b, c, (float)x->alpha1, (float)x->alpha2, (float)x->beta);
        else
            x->k->mul3((size_t)n, a, b, c, (float)x->alpha1, (float)x->alpha2, (float)x->beta);
        return;
    }
    double va[HD_ROWS_PIECE], vb[HD_ROWS_PIECE];
    hd_load_f64(x->at, x->a, off[1], sa, n, va);
    if (!x->unary)
        hd_load_f64(x->at, x->b, off[2], sb, n, vb);
    for (int64_t i = 0; i < n; i++) {
        double a = x->alpha1 * va[i], b = x->unary ? 0.0 : x->alpha2 * vb[i];
        if (x->comp_float) {
            a = (float)a;
            b = (float)b;
        }
        double v = op_apply(x, a, b);
        va[i] = x->comp_float ? (double)(float)v : v;
    }
    hd_blend_f64(x->ct, x->c, off[0], sc, n, va, 1.0, x->beta);
}

cudnnStatus_t HD_IMPL(cudnnOpTensor)(cudnnHandle_t handle, const cudnnOpTensorDescriptor_t opTensorDesc,
                                     const void *alpha1, const cudnnTensorDescriptor_t aDesc, const void *A,
                                     const void *alpha2, const cudnnTensorDescriptor_t bDesc, const void *B,
                                     const void *beta, const cudnnTensorDescriptor_t cDesc, void *C)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(opTensorDesc, HD_TAG_OPTENSOR);
    if (!opTensorDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "opTensorDesc was never set");
    int unary = opTensorDesc->op == CUDNN_OP_TENSOR_SQRT || opTensorDesc->op == CUDNN_OP_TENSOR_NOT;
    HD_CHECK_TENSOR(aDesc);
    HD_CHECK_TENSOR(cDesc);
    HD_CHECK_PTR(alpha1);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(A);
    HD_CHECK_PTR(C);
    if (!unary) {
        HD_CHECK_TENSOR(bDesc);
        HD_CHECK_PTR(alpha2);
        HD_CHECK_PTR(B);
    }
    if (!hd_same_dims(aDesc, cDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "aDesc and cDesc must have the same dimensions");
    if (!unary) {
        if (bDesc->nbDims != cDesc->nbDims)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "bDesc has %d dims but cDesc has %d", bDesc->nbDims, cDesc->nbDims);
        for (int i = 0; i < bDesc->nbDims; i++)
            if (bDesc->dims[i] != 1 && bDesc->dims[i] != cDesc->dims[i])
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dim %d of B is %d; it must be 1 or C's (%d)", i,
                               bDesc->dims[i], cDesc->dims[i]);
        if (bDesc->dtype != aDesc->dtype)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "A is %s but B is %s", hd_dtype_name(aDesc->dtype),
                           hd_dtype_name(bDesc->dtype));
    }
    if (aDesc->vect_c > 1 || cDesc->vect_c > 1 || (!unary && bDesc->vect_c > 1))
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "CUDNN_TENSOR_NCHW_VECT_C tensors are not supported");
    if (!types_ok(aDesc->dtype, cDesc->dtype, opTensorDesc->comp))
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "A/B %s, C %s with compute type %s is not a supported combination",
                       hd_dtype_name(aDesc->dtype), hd_dtype_name(cDesc->dtype), hd_dtype_name(opTensorDesc->comp));
    HD_TRY(hd_check_alias(__func__, "A", aDesc, A, "C", cDesc, C));
    if (!unary) {
        if (hd_tensors_overlap(bDesc, B, cDesc, C) && !hd_same_dims(bDesc, cDesc))
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "B overlaps C but is broadcast");
        HD_TRY(hd_check_alias(__func__, "B", bDesc, B, "C", cDesc, C));
    }

    cudnnDataType_t st = cDesc->dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    op_ctx x = { opTensorDesc->op, opTensorDesc->nan_opt == CUDNN_PROPAGATE_NAN, unary,
                 opTensorDesc->comp == CUDNN_DATA_FLOAT, aDesc->dtype, cDesc->dtype, A, unary ? A : B, C,
                 hd_scale_value(alpha1, st), unary ? 0.0 : hd_scale_value(alpha2, st), hd_scale_value(beta, st),
                 hd_eltwise_kernels(handle->isa), NULL };
    int64_t dims[CUDNN_DIM_MAX], sc[CUDNN_DIM_MAX], sa[CUDNN_DIM_MAX], sb[CUDNN_DIM_MAX];
    hd_tensor_dims64(cDesc, dims, sc);
    hd_tensor_dims64(aDesc, dims, sa);
    for (int i = 0; i < cDesc->nbDims; i++)
        sb[i] = unary || bDesc->dims[i] == 1 ? 0 : bDesc->strides[i];
    const int64_t *strides[3] = { sc, sa, sb };
    hd_rows r;
    hd_rows_init(&r, cDesc->nbDims, dims, 3, strides);
    /* A and B read, C written: streaming stores once that outgrows the cache (same results) */
    double touched = 3.0 * (double)r.rows * (double)r.len * sizeof(float);
    x.add3 = x.beta == 0.0 && touched >= (double)hd_eltwise_stream_min_bytes() ? x.k->add3_stream : x.k->add3;
    hd_rows_run(&r, handle->num_threads, op_piece, &x);
    return CUDNN_STATUS_SUCCESS;
}
