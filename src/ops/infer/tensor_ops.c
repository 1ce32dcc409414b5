/*
 * cudnnAddTensor (C = alpha * A + beta * C, A broadcast over C), cudnnSetTensor (every
 * element of y = *valuePtr) and cudnnScaleTensor (y = alpha * y).
 *
 * AddTensor: A and C have the same number of dims and type; each dim of A equals C's or
 * is 1.  A may be C itself (same dims and strides); any other overlap is BAD_PARAM.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "ops/common.h"

#include <string.h>

typedef struct {
    cudnnDataType_t dt;
    const void *a;
    void *c;
    double alpha, beta;
    const hd_eltwise_table *k;
} add_ctx;

/* operand 0 = C, operand 1 = A (stride 0 on broadcast dims) */
static void add_piece(void *vctx, const hd_rows *r, const int64_t *off, int64_t n)
{
    const add_ctx *x = vctx;
    int64_t sc = r->strides[0][r->nd - 1], sa = r->strides[1][r->nd - 1];
    if (x->dt == CUDNN_DATA_FLOAT && sc == 1 && (sa == 1 || sa == 0)) {
        const float *a = (const float *)x->a + off[1];
        float *c = (float *)x->c + off[0];
        float alpha = (float)x->alpha, beta = (float)x->beta;
        if (sa == 1) {
            x->k->axpby((size_t)n, a, c, alpha, beta);
        } else {
            x->k->fill((size_t)n, alpha * a[0], c, beta);
        }
        return;
    }
    double v[HD_ROWS_PIECE];
    hd_load_f64(x->dt, x->a, off[1], sa, n, v);
    hd_blend_f64(x->dt, x->c, off[0], sc, n, v, x->alpha, x->beta);
}

/* FLOAT bias over channel-contiguous C (NHWC and the like): C is P pixels of CH channels
 * back to back and A one vector of CH values.  Each pixel row gets the add_piece case
 * "A contiguous" (the biasrows kernel is axpby on every row, so the same bits), but a task
 * takes many rows in one kernel call: rows of 64 channels are too short to pay a piece, or a
 * call, each. */
typedef struct {
    const add_ctx *x;
    int64_t pixels, ch, per_task;
    hd_f32_biasrows_fn rows;
} bias_ctx;

static void bias_task(void *vctx, size_t t, int thread)
{
    (void)thread;
    const bias_ctx *b = vctx;
    int64_t p0 = (int64_t)t * b->per_task, p1 = p0 + b->per_task < b->pixels ? p0 + b->per_task : b->pixels;
    b->rows((size_t)(p1 - p0), (size_t)b->ch, b->x->a, (float *)b->x->c + p0 * b->ch, (float)b->x->alpha,
            (float)b->x->beta);
}

/* True when C is packed with channels innermost and A varies along dim 1 alone, packed, and
 * the two do not share memory. */
static int bias_nhwc(const cudnnTensorDescriptor_t aDesc, const void *A, const cudnnTensorDescriptor_t cDesc,
                     const void *C)
{
    if (cDesc->dtype != CUDNN_DATA_FLOAT || cDesc->nbDims < 3 || cDesc->strides[1] != 1 || aDesc->strides[1] != 1 ||
        aDesc->dims[1] != cDesc->dims[1] || cDesc->dims[1] < 2 || hd_tensors_overlap(aDesc, A, cDesc, C))
        return 0;
    int64_t want = cDesc->dims[1];
    for (int i = cDesc->nbDims - 1; i >= 2; i--) {
        if (aDesc->dims[i] != 1 || (cDesc->dims[i] > 1 && cDesc->strides[i] != want))
            return 0;
        want *= cDesc->dims[i];
    }
    return aDesc->dims[0] == 1 && (cDesc->dims[0] == 1 || cDesc->strides[0] == want);
}

cudnnStatus_t HD_IMPL(cudnnAddTensor)(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t aDesc,
                                      const void *A, const void *beta, const cudnnTensorDescriptor_t cDesc, void *C)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(aDesc);
    HD_CHECK_TENSOR(cDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(A);
    HD_CHECK_PTR(C);
    if (aDesc->nbDims != cDesc->nbDims)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "aDesc has %d dims but cDesc has %d", aDesc->nbDims, cDesc->nbDims);
    for (int i = 0; i < aDesc->nbDims; i++)
        if (aDesc->dims[i] != 1 && aDesc->dims[i] != cDesc->dims[i])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dim %d of A is %d; it must be 1 or C's (%d)", i, aDesc->dims[i],
                           cDesc->dims[i]);
    if (aDesc->dtype != cDesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "A is %s but C is %s", hd_dtype_name(aDesc->dtype),
                       hd_dtype_name(cDesc->dtype));
    HD_TRY(hd_check_fp_type(__func__, "cDesc", cDesc->dtype));
    if (hd_tensors_overlap(aDesc, A, cDesc, C) && !hd_same_dims(aDesc, cDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "A overlaps C but is broadcast");
    HD_TRY(hd_check_alias(__func__, "A", aDesc, A, "C", cDesc, C));

    add_ctx x = { cDesc->dtype, A, C, hd_scale_value(alpha, cDesc->dtype), hd_scale_value(beta, cDesc->dtype),
                  hd_eltwise_kernels(handle->isa) };
    if (bias_nhwc(aDesc, A, cDesc, C)) {
        bias_ctx b = { &x, hd_tensor_elems(cDesc) / cDesc->dims[1], cDesc->dims[1], 0,
                       hd_f32_biasrows_select(handle->isa) };
        b.per_task = 1 + 16384 / b.ch;
        hd_parallel_for((size_t)((b.pixels + b.per_task - 1) / b.per_task), handle->num_threads, bias_task, &b);
        return CUDNN_STATUS_SUCCESS;
    }
    int64_t dims[CUDNN_DIM_MAX], sc[CUDNN_DIM_MAX], sa[CUDNN_DIM_MAX];
    hd_tensor_dims64(cDesc, dims, sc);
    for (int i = 0; i < aDesc->nbDims; i++)
        sa[i] = aDesc->dims[i] == 1 ? 0 : aDesc->strides[i];
    const int64_t *strides[2] = { sc, sa };
    hd_rows r;
    hd_rows_init(&r, cDesc->nbDims, dims, 2, strides);
    hd_rows_run(&r, handle->num_threads, add_piece, &x);
    return CUDNN_STATUS_SUCCESS;
}

typedef struct {
    size_t esize;
    unsigned char value[8];
    void *y;
} set_ctx;

static void set_piece(void *vctx, const hd_rows *r, const int64_t *off, int64_t n)
{
    const set_ctx *s = vctx;
    int64_t st = r->strides[0][r->nd - 1];
    unsigned char *p = (unsigned char *)s->y + (size_t)off[0] * s->esize;
    for (int64_t i = 0; i < n; i++)
        memcpy(p + (size_t)(i * st) * s->esize, s->value, s->esize);
}

/* valuePtr holds one element of y's own type (a half for HALF, an int8 for INT8 ...). */
cudnnStatus_t HD_IMPL(cudnnSetTensor)(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y,
                                      const void *valuePtr)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_PTR(y);
    HD_CHECK_PTR(valuePtr);
    if (yDesc->vect_c > 1 || hd_dtype_vect(yDesc->dtype) > 1)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "vector data types (%s) are not supported",
                       hd_dtype_name(yDesc->dtype));
    set_ctx s = { hd_dtype_size(yDesc->dtype), { 0 }, y };
    if (s.esize == 0 || s.esize > sizeof s.value)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "data type %s is not supported", hd_dtype_name(yDesc->dtype));
    memcpy(s.value, valuePtr, s.esize);
    int64_t dims[CUDNN_DIM_MAX], sy[CUDNN_DIM_MAX];
    hd_tensor_dims64(yDesc, dims, sy);
    const int64_t *strides[1] = { sy };
    hd_rows r;
    hd_rows_init(&r, yDesc->nbDims, dims, 1, strides);
    hd_rows_run(&r, handle->num_threads, set_piece, &s);
    return CUDNN_STATUS_SUCCESS;
}

typedef struct {
    cudnnDataType_t dt;
    void *y;
    double alpha;
    const hd_eltwise_table *k;
} scale_ctx;

static void scale_piece(void *vctx, const hd_rows *r, const int64_t *off, int64_t n)
{
    const scale_ctx *s = vctx;
    int64_t st = r->strides[0][r->nd - 1];
    if (s->dt == CUDNN_DATA_FLOAT && st == 1) {
        float *y = (float *)s->y + off[0];
        s->k->axpby((size_t)n, y, y, (float)s->alpha, 0.0f);
        return;
    }
    double v[HD_ROWS_PIECE];
    hd_load_f64(s->dt, s->y, off[0], st, n, v);
    for (int64_t i = 0; i < n; i++)
        v[i] *= s->alpha;
    hd_store_f64(s->dt, s->y, off[0], st, n, v);
}

cudnnStatus_t HD_IMPL(cudnnScaleTensor)(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y,
                                        const void *alpha)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_PTR(y);
    HD_CHECK_PTR(alpha);
    HD_TRY(hd_check_fp_type(__func__, "yDesc", yDesc->dtype));
    scale_ctx s = { yDesc->dtype, y, hd_scale_value(alpha, yDesc->dtype), hd_eltwise_kernels(handle->isa) };
    int64_t dims[CUDNN_DIM_MAX], sy[CUDNN_DIM_MAX];
    hd_tensor_dims64(yDesc, dims, sy);
    const int64_t *strides[1] = { sy };
    hd_rows r;
    hd_rows_init(&r, yDesc->nbDims, dims, 1, strides);
    hd_rows_run(&r, handle->num_threads, scale_piece, &s);
    return CUDNN_STATUS_SUCCESS;
}
