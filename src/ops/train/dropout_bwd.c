/*
 * cudnnDropoutBackward: dx = dy * mask / (1 - p), with the mask the forward call left in
 * the reserve space (one byte per element, row-major logical order; see
 * ops/infer/dropout.c) and p from the descriptor.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/dropout_desc.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "ops/common.h"

#define DB_CHUNK 8192

typedef struct {
    cudnnDataType_t dt;
    int nd;
    int64_t dims[CUDNN_DIM_MAX], sdy[CUDNN_DIM_MAX], sdx[CUDNN_DIM_MAX];
    const void *dy;
    void *dx;
    const unsigned char *mask;
    double scale;
    int64_t n;
} db_ctx;

static void db_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const db_ctx *c = vctx;
    int64_t lo = (int64_t)task * DB_CHUNK, hi = lo + DB_CHUNK < c->n ? lo + DB_CHUNK : c->n;
    int64_t idx[CUDNN_DIM_MAX], rem = lo, oi = 0, oo = 0;
    for (int i = c->nd - 1; i >= 0; i--) {
        idx[i] = rem % c->dims[i];
        rem /= c->dims[i];
        oi += idx[i] * c->sdy[i];
        oo += idx[i] * c->sdx[i];
    }
    for (int64_t e = lo; e < hi; e++) {
        double v = c->mask[e] ? hd_ld1(c->dt, c->dy, oi) * c->scale : 0.0;
        hd_st1(c->dt, c->dx, oo, v);
        for (int i = c->nd - 1; i >= 0; i--) {
            oi += c->sdy[i];
            oo += c->sdx[i];
            if (++idx[i] < c->dims[i])
                break;
            oi -= c->dims[i] * c->sdy[i];
            oo -= c->dims[i] * c->sdx[i];
            idx[i] = 0;
        }
    }
}

cudnnStatus_t HD_IMPL(cudnnDropoutBackward)(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                                            const cudnnTensorDescriptor_t dydesc, const void *dy,
                                            const cudnnTensorDescriptor_t dxdesc, void *dx, void *reserveSpace,
                                            size_t reserveSpaceSizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(dropoutDesc, HD_TAG_DROPOUT);
    if (!dropoutDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dropoutDesc was never set");
    HD_CHECK_TENSOR(dydesc);
    HD_CHECK_TENSOR(dxdesc);
    HD_CHECK_PTR(dy);
    HD_CHECK_PTR(dx);
    HD_CHECK_PTR(reserveSpace);
    if (!hd_same_dims(dydesc, dxdesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dydesc and dxdesc have different dimensions");
    if (dydesc->dtype != dxdesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dy is %s but dx is %s", hd_dtype_name(dydesc->dtype),
                       hd_dtype_name(dxdesc->dtype));
    HD_TRY(hd_check_fp_type(__func__, "dydesc", dydesc->dtype));
    int64_t n = hd_tensor_elems(dydesc);
    if (reserveSpaceSizeInBytes < (size_t)n)
        return HD_FAIL(CUDNN_STATUS_INVALID_VALUE, "reserveSpaceSizeInBytes %zu is below the %lld needed",
                       reserveSpaceSizeInBytes, (long long)n);
    HD_TRY(hd_check_alias(__func__, "dy", dydesc, dy, "dx", dxdesc, dx));
    db_ctx c;
    c.dt = dydesc->dtype;
    c.nd = dydesc->nbDims;
    hd_tensor_dims64(dydesc, c.dims, c.sdy);
    hd_tensor_dims64(dxdesc, c.dims, c.sdx);
    c.dy = dy;
    c.dx = dx;
    c.mask = reserveSpace;
    c.scale = 1.0 / (1.0 - (double)dropoutDesc->dropout);
    c.n = n;
    hd_parallel_for((size_t)((n + DB_CHUNK - 1) / DB_CHUNK), handle->num_threads, db_task, &c);
    return CUDNN_STATUS_SUCCESS;
}
