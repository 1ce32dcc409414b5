/*
 * cudnnIm2Col: the matrix the explicit-GEMM forward algorithm multiplies by the filter.
 * Layout of colBuffer (x's data type): for each image n, a (C * spatial filter size) x
 * (output spatial size) row-major matrix; row c*T*R*S + (t*R + r)*S + s holds, for every
 * output position, the input element that filter tap (t, r, s) of channel c meets (0 in the
 * padding); images follow each other.  CONVOLUTION mode flips nothing here: the flip
 * belongs to the filter side of the product.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/convert.h"
#include "core/handle.h"
#include "core/memory.h"
#include "conv/conv_api_util.h"

#include <string.h>

cudnnStatus_t HD_IMPL(cudnnIm2Col)(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x,
                                   const cudnnFilterDescriptor_t wDesc, const cudnnConvolutionDescriptor_t convDesc,
                                   void *colBuffer)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(convDesc, HD_TAG_CONV);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_FILTER(wDesc);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(colBuffer);
    int od[CUDNN_DIM_MAX] = {0};
    cudnnStatus_t st = hd_conv_output_dims(convDesc, xDesc, wDesc, od, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    /* a packed output descriptor of the right shape, only to build the problem */
    struct cudnnTensorStruct y;
    memset(&y, 0, sizeof y);
    y.dtype = xDesc->dtype;
    y.nbDims = xDesc->nbDims;
    y.vect_c = 1;
    int64_t acc = 1;
    for (int i = y.nbDims - 1; i >= 0; i--) {
        y.dims[i] = od[i];
        y.strides[i] = (int)(acc < INT32_MAX ? acc : 1);
        acc *= od[i];
    }
    hd_conv_problem p;
    st = hd_conv_problem_init(&p, xDesc, wDesc, convDesc, &y, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    size_t es = p.dbl ? sizeof(double) : sizeof(float), rows_g = (size_t)p.CRS, bytes;
    if (hd_mul_size(rows_g * (size_t)p.P, es, &bytes))
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "the column matrix of one group is too large");
    int native = p.xdt == CUDNN_DATA_FLOAT || p.xdt == CUDNN_DATA_DOUBLE;
    void *tmp = NULL;
    if (!native && !(tmp = hd_handle_scratch(handle, bytes)))
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory for %zu bytes", bytes);
    size_t xes = hd_dtype_size(p.xdt);
    for (int64_t n = 0; n < p.N; n++)
        for (int64_t g = 0; g < p.G; g++) {
            char *dst = (char *)colBuffer + ((size_t)(n * p.G + g) * rows_g * (size_t)p.P) * xes;
            if (native) {
                hd_conv_im2col(&p, x, n, g, 0, p.P, dst, p.P, handle->num_threads);
                continue;
            }
            hd_conv_im2col(&p, x, n, g, 0, p.P, tmp, p.P, handle->num_threads);
            size_t cnt = rows_g * (size_t)p.P;
            if (p.int8) {                          /* exact: the values are int8 */
                const double *src = tmp;
                for (size_t i = 0; i < cnt; i++)
                    ((int8_t *)dst)[i] = (int8_t)src[i];
                continue;
            }
            const float *src = tmp;
            uint16_t *d16 = (uint16_t *)dst;
            for (size_t i = 0; i < cnt; i++)
                d16[i] = p.xdt == CUDNN_DATA_HALF ? hd_f32_to_f16(src[i]) : hd_f32_to_bf16(src[i]);
        }
    return CUDNN_STATUS_SUCCESS;
}
