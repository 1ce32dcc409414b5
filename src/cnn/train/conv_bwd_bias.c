/*
 * cudnnConvolutionBackwardBias: db[k] = alpha * sum over n and spatial of dy[n, k, ...]
 * + beta * db[k].  One task per channel, summed in a fixed order (bitwise reproducible).
 * db must have dy's number of dimensions, size 1 everywhere but the channel dimension.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/convert.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/tensor.h"

static double ld(const void *b, int64_t off, cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: return ((const float *)b)[off];
    case CUDNN_DATA_DOUBLE: return ((const double *)b)[off];
    case CUDNN_DATA_HALF: return hd_f16_to_f32(((const uint16_t *)b)[off]);
    default: return hd_bf16_to_f32(((const uint16_t *)b)[off]);
    }
}

static void st(void *b, int64_t off, cudnnDataType_t dt, double v)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: ((float *)b)[off] = (float)v; break;
    case CUDNN_DATA_DOUBLE: ((double *)b)[off] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)b)[off] = hd_f32_to_f16((float)v); break;
    default: ((uint16_t *)b)[off] = hd_f32_to_bf16((float)v); break;
    }
}

typedef struct {
    const struct cudnnTensorStruct *dy, *db;
    const void *y;
    void *b;
    double alpha, beta;
} bias_ctx;

static void bias_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    bias_ctx *c = vctx;
    const struct cudnnTensorStruct *t = c->dy;
    int64_t k = (int64_t)task, inner = 1;
    for (int i = 2; i < t->nbDims; i++)
        inner *= t->dims[i];
    int dbl = t->dtype == CUDNN_DATA_DOUBLE;
    double sum = 0;
    float fsum = 0;
    for (int64_t n = 0; n < t->dims[0]; n++) {
        for (int64_t e = 0; e < inner; e++) {
            int64_t off = n * t->strides[0] + k * t->strides[1], rem = e;
            for (int i = t->nbDims - 1; i >= 2; i--) {
                off += (rem % t->dims[i]) * t->strides[i];
                rem /= t->dims[i];
            }
            if (dbl)
                sum += ld(c->y, off, t->dtype);
            else
                fsum += (float)ld(c->y, off, t->dtype);
        }
    }
    if (!dbl)
        sum = fsum;
    int64_t bo = k * c->db->strides[1];
    double r = c->alpha * sum;
    if (c->beta != 0)
        r += c->beta * ld(c->b, bo, c->db->dtype);
    st(c->b, bo, c->db->dtype, r);
}

cudnnStatus_t HD_IMPL(cudnnConvolutionBackwardBias)(cudnnHandle_t handle, const void *alpha,
                                                    const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                    const void *beta, const cudnnTensorDescriptor_t dbDesc, void *db)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(dyDesc);
    HD_CHECK_TENSOR(dbDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(dy);
    HD_CHECK_PTR(db);
    cudnnDataType_t dt = dyDesc->dtype;
    if (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_DOUBLE && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "%s is not supported (float types only)", hd_dtype_name(dt));
    if (dbDesc->dtype != dt)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dbDesc is %s but dyDesc is %s", hd_dtype_name(dbDesc->dtype),
                       hd_dtype_name(dt));
    if (dyDesc->vect_c != 1)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "vectorised layouts are not supported");
    if (dbDesc->nbDims != dyDesc->nbDims)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dbDesc has %d dimensions, dyDesc %d", dbDesc->nbDims, dyDesc->nbDims);
    for (int i = 0; i < dbDesc->nbDims; i++) {
        int want = i == 1 ? dyDesc->dims[1] : 1;
        if (dbDesc->dims[i] != want)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dbDesc dimension %d is %d, expected %d", i, dbDesc->dims[i], want);
    }
    int dbl = dt == CUDNN_DATA_DOUBLE;
    bias_ctx c = {dyDesc, dbDesc, dy, db, dbl ? *(const double *)alpha : *(const float *)alpha,
                  dbl ? *(const double *)beta : *(const float *)beta};
    hd_parallel_for((size_t)dyDesc->dims[1], handle->num_threads, bias_task, &c);
    return CUDNN_STATUS_SUCCESS;
}
