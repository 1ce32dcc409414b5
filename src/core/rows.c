/* core/rows.c -- see rows.h. */
#include "core/rows.h"
#include "core/convert.h"
#include "core/parallel.h"
#include "core/tensor.h"

#include <math.h>

void hd_rows_init(hd_rows *r, int nd, const int64_t *dims, int n_ops, const int64_t *const *strides)
{
    int order[CUDNN_DIM_MAX + 1];
    int m = 0;
    /* keep dims of size > 1, ordered by operand 0's stride, largest first (stable sort) */
    for (int i = 0; i < nd; i++)
        if (dims[i] > 1)
            order[m++] = i;
    for (int i = 1; i < m; i++) {
        int v = order[i], j = i;
        while (j > 0 && strides[0][order[j - 1]] < strides[0][v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    r->n_ops = n_ops;
    r->nd = 0;
    for (int i = 0; i < m; i++) {
        int d = order[i];
        int merge = r->nd > 0;
        for (int k = 0; k < n_ops && merge; k++)
            merge = r->strides[k][r->nd - 1] == strides[k][d] * dims[d];
        if (merge) {
            r->dims[r->nd - 1] *= dims[d];
            for (int k = 0; k < n_ops; k++)
                r->strides[k][r->nd - 1] = strides[k][d];
        } else {
            r->dims[r->nd] = dims[d];
            for (int k = 0; k < n_ops; k++)
                r->strides[k][r->nd] = strides[k][d];
            r->nd++;
        }
    }
    if (r->nd == 0) {
        r->nd = 1;
        r->dims[0] = 1;
        for (int k = 0; k < n_ops; k++)
            r->strides[k][0] = 1;
    }
    r->len = r->dims[r->nd - 1];
    r->rows = 1;
    for (int i = 0; i < r->nd - 1; i++)
        r->rows *= r->dims[i];
}

void hd_rows_offsets(const hd_rows *r, int64_t row, int64_t *off)
{
    for (int k = 0; k < r->n_ops; k++)
        off[k] = 0;
    for (int d = r->nd - 2; d >= 0; d--) {
        int64_t i = row % r->dims[d];
        row /= r->dims[d];
        for (int k = 0; k < r->n_ops; k++)
            off[k] += i * r->strides[k][d];
    }
}

typedef struct {
    const hd_rows *r;
    hd_rows_fn fn;
    void *ctx;
    int64_t pieces_per_row;
    int64_t pieces_per_task;
    int64_t total;
} run_ctx;

static void run_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const run_ctx *c = vctx;
    const hd_rows *r = c->r;
    int64_t lo = (int64_t)task * c->pieces_per_task;
    int64_t hi = lo + c->pieces_per_task;
    if (hi > c->total)
        hi = c->total;
    int64_t base[HD_ROWS_MAX_OPS], off[HD_ROWS_MAX_OPS];
    int64_t cur_row = -1;
    for (int64_t p = lo; p < hi; p++) {
        int64_t row = p / c->pieces_per_row;
        int64_t start = (p % c->pieces_per_row) * HD_ROWS_PIECE;
        int64_t n = r->len - start < HD_ROWS_PIECE ? r->len - start : HD_ROWS_PIECE;
        if (row != cur_row) {
            hd_rows_offsets(r, row, base);
            cur_row = row;
        }
        for (int k = 0; k < r->n_ops; k++)
            off[k] = base[k] + start * r->strides[k][r->nd - 1];
        c->fn(c->ctx, r, off, n);
    }
}

void hd_rows_run(const hd_rows *r, int nthreads, hd_rows_fn fn, void *ctx)
{
    run_ctx c = { r, fn, ctx, 0, 0, 0 };
    c.pieces_per_row = (r->len + HD_ROWS_PIECE - 1) / HD_ROWS_PIECE;
    c.total = c.pieces_per_row * r->rows;
    /* about 64K elements per task, so small tensors stay on one thread */
    int64_t per_piece = r->len < HD_ROWS_PIECE ? r->len : HD_ROWS_PIECE;
    c.pieces_per_task = (65536 + per_piece - 1) / per_piece;
    size_t ntasks = (size_t)((c.total + c.pieces_per_task - 1) / c.pieces_per_task);
    hd_parallel_for(ntasks, nthreads, run_task, &c);
}

void hd_load_f64(cudnnDataType_t dt, const void *base, int64_t off, int64_t stride, int64_t n, double *out)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: {
        const float *p = (const float *)base + off;
        for (int64_t i = 0; i < n; i++)
            out[i] = p[i * stride];
        break;
    }
    case CUDNN_DATA_DOUBLE: {
        const double *p = (const double *)base + off;
        for (int64_t i = 0; i < n; i++)
            out[i] = p[i * stride];
        break;
    }
    case CUDNN_DATA_HALF: {
        const uint16_t *p = (const uint16_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            out[i] = hd_f16_to_f32(p[i * stride]);
        break;
    }
    case CUDNN_DATA_BFLOAT16: {
        const uint16_t *p = (const uint16_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            out[i] = hd_bf16_to_f32(p[i * stride]);
        break;
    }
    case CUDNN_DATA_INT8: case CUDNN_DATA_INT8x4: case CUDNN_DATA_INT8x32: {
        const int8_t *p = (const int8_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            out[i] = p[i * stride];
        break;
    }
    case CUDNN_DATA_UINT8: case CUDNN_DATA_UINT8x4: {
        const uint8_t *p = (const uint8_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            out[i] = p[i * stride];
        break;
    }
    case CUDNN_DATA_INT32: {
        const int32_t *p = (const int32_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            out[i] = p[i * stride];
        break;
    }
    default:
        for (int64_t i = 0; i < n; i++)
            out[i] = 0;
        break;
    }
}

static double sat(double v, double lo, double hi)
{
    if (v != v)
        return 0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

void hd_store_f64(cudnnDataType_t dt, void *base, int64_t off, int64_t stride, int64_t n, const double *in)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: {
        float *p = (float *)base + off;
        for (int64_t i = 0; i < n; i++)
            p[i * stride] = (float)in[i];
        break;
    }
    case CUDNN_DATA_DOUBLE: {
        double *p = (double *)base + off;
        for (int64_t i = 0; i < n; i++)
            p[i * stride] = in[i];
        break;
    }
    case CUDNN_DATA_HALF: {
        uint16_t *p = (uint16_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            p[i * stride] = hd_f32_to_f16((float)in[i]);
        break;
    }
    case CUDNN_DATA_BFLOAT16: {
        uint16_t *p = (uint16_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            p[i * stride] = hd_f32_to_bf16((float)in[i]);
        break;
    }
    case CUDNN_DATA_INT8: case CUDNN_DATA_INT8x4: case CUDNN_DATA_INT8x32: {
        int8_t *p = (int8_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            p[i * stride] = (int8_t)sat(in[i], -128, 127);
        break;
    }
    case CUDNN_DATA_UINT8: case CUDNN_DATA_UINT8x4: {
        uint8_t *p = (uint8_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            p[i * stride] = (uint8_t)sat(in[i], 0, 255);
        break;
    }
    case CUDNN_DATA_INT32: {
        int32_t *p = (int32_t *)base + off;
        for (int64_t i = 0; i < n; i++)
            p[i * stride] = (int32_t)sat(in[i], -2147483648.0, 2147483647.0);
        break;
    }
    default:
        break;
    }
}

void hd_blend_f64(cudnnDataType_t dt, void *base, int64_t off, int64_t stride, int64_t n, const double *v,
                  double alpha, double beta)
{
    double out[HD_ROWS_PIECE];
    for (int64_t s = 0; s < n; s += HD_ROWS_PIECE) {
        int64_t m = n - s < HD_ROWS_PIECE ? n - s : HD_ROWS_PIECE;
        if (beta != 0) {
            hd_load_f64(dt, base, off + s * stride, stride, m, out);
            for (int64_t i = 0; i < m; i++)
                out[i] = alpha * v[s + i] + beta * out[i];
        } else {
            for (int64_t i = 0; i < m; i++)
                out[i] = alpha * v[s + i];
        }
        hd_store_f64(dt, base, off + s * stride, stride, m, out);
    }
}

void hd_tensor_dims64(const struct cudnnTensorStruct *t, int64_t *dims, int64_t *strides)
{
    for (int i = 0; i < t->nbDims; i++) {
        dims[i] = t->dims[i];
        strides[i] = t->strides[i];
    }
}

int hd_same_dims(const struct cudnnTensorStruct *a, const struct cudnnTensorStruct *b)
{
    if (a->nbDims != b->nbDims)
        return 0;
    for (int i = 0; i < a->nbDims; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

int hd_tensors_overlap(const struct cudnnTensorStruct *a, const void *pa, const struct cudnnTensorStruct *b,
                       const void *pb)
{
    const char *a0 = pa, *b0 = pb;
    const char *a1 = a0 + hd_tensor_span_bytes(a), *b1 = b0 + hd_tensor_span_bytes(b);
    return a0 < b1 && b0 < a1;
}
