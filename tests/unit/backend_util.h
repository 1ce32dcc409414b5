/*
 * Helpers shared by the backend API tests (test_backend.c, test_backend_exec.c): tensor and
 * convolution descriptors built through the public cudnnBackend* calls.  Include after
 * harness.h.
 */
#ifndef HD_TEST_BACKEND_UTIL_H
#define HD_TEST_BACKEND_UTIL_H

#include <cudnn.h>
#include <stdbool.h>
#include <stdint.h>

typedef cudnnBackendDescriptor_t bd;

static inline bd mk_tensor_full(int64_t uid, int n, const int64_t *dims, const int64_t *strides, cudnnDataType_t dt,
                         bool virt, int finalize)
{
    bd t;
    int64_t packed[8], align = dt == CUDNN_DATA_DOUBLE ? 8 : 4;
    if (!strides) {
        int64_t s = 1;
        for (int i = n - 1; i >= 0; i--) {
            packed[i] = s;
            s *= dims[i];
        }
        strides = packed;
    }
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t);
    cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, n, dims);
    cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, n, strides);
    cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    if (virt)
        cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt);
    if (finalize)
        CHECK_OK(cudnnBackendFinalize(t));
    return t;
}

static inline bd mk_tensor(int64_t uid, int n, const int64_t *dims)
{
    return mk_tensor_full(uid, n, dims, NULL, CUDNN_DATA_FLOAT, false, 1);
}

static inline bd mk_conv(int64_t pad, int64_t stride, int64_t dil, cudnnConvolutionMode_t mode)
{
    bd c;
    int64_t sd = 2, p[2] = {pad, pad}, s[2] = {stride, stride}, d[2] = {dil, dil};
    cudnnDataType_t ct = CUDNN_DATA_FLOAT;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &c);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &sd);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, p);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, p);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, s);
    cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, d);
    CHECK_OK(cudnnBackendFinalize(c));
    return c;
}

#endif
