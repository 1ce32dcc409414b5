/* Tensor and filter descriptors: round trips, packed strides per format, sizes, bad input. */
#include <cudnn.h>
#include <stdint.h>
#include "harness.h"

static void tensor_round_trips(void)
{
    SECTION("tensor round trips");
    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    cudnnDataType_t dt;
    int n, c, h, w, ns, cs, hs, ws;
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
    CHECK_OK(cudnnGetTensor4dDescriptor(t, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(dt == CUDNN_DATA_FLOAT && n == 2 && c == 3 && h == 4 && w == 5);
    CHECK(ns == 60 && cs == 20 && hs == 5 && ws == 1);
    size_t sz = 0;
    CHECK_OK(cudnnGetTensorSizeInBytes(t, &sz));
    CHECK_EQ_INT(sz, 480);

    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 3, 4, 5));
    CHECK_OK(cudnnGetTensor4dDescriptor(t, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(dt == CUDNN_DATA_HALF && ns == 60 && cs == 1 && hs == 15 && ws == 3);
    CHECK_OK(cudnnGetTensorSizeInBytes(t, &sz));
    CHECK_EQ_INT(sz, 240);

    /* INT8x4 in NCHW_VECT_C: C counts scalars, strides count 4-byte vectors. */
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 1, 8, 2, 3));
    CHECK_OK(cudnnGetTensor4dDescriptor(t, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(c == 8 && ns == 12 && cs == 6 && hs == 3 && ws == 1);
    CHECK_OK(cudnnGetTensorSizeInBytes(t, &sz));
    CHECK_EQ_INT(sz, 48);

    /* Explicit strides, padded rows. */
    CHECK_OK(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_DOUBLE, 2, 3, 4, 5, 100, 30, 6, 1));
    CHECK_OK(cudnnGetTensorSizeInBytes(t, &sz));
    CHECK_EQ_INT(sz, (100 + 2 * 30 + 3 * 6 + 4 + 1) * 8);

    int dims[5] = {2, 3, 4, 5, 6}, strides[5], dd[8], ss[8], nb;
    CHECK_OK(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 5, dims));
    CHECK_OK(cudnnGetTensorNdDescriptor(t, 8, &dt, &nb, dd, ss));
    CHECK(nb == 5 && ss[0] == 360 && ss[1] == 1 && ss[2] == 90 && ss[3] == 18 && ss[4] == 3);
    /* Asking for fewer dimensions fills only those, but reports the true count. */
    int few[2] = {-1, -1}, fews[2] = {-1, -1};
    CHECK_OK(cudnnGetTensorNdDescriptor(t, 1, &dt, &nb, few, fews));
    CHECK(nb == 5 && few[0] == 2 && few[1] == -1);
    for (int i = 0; i < 5; i++)
        strides[i] = ss[i];
    CHECK_OK(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_BFLOAT16, 5, dims, strides));
    CHECK_OK(cudnnGetTensorNdDescriptor(t, 8, &dt, &nb, dd, ss));
    CHECK(dt == CUDNN_DATA_BFLOAT16 && nb == 5 && ss[2] == 90);
    /* A 5-d descriptor read as 4-d gives its first four dimensions. */
    CHECK_OK(cudnnGetTensor4dDescriptor(t, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(n == 2 && w == 5);
    CHECK_OK(cudnnDestroyTensorDescriptor(t));
}

static void tensor_bad_input(void)
{
    SECTION("tensor bad input");
    cudnnTensorDescriptor_t t, unset;
    CHECK_STATUS(cudnnCreateTensorDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_OK(cudnnCreateTensorDescriptor(&unset));
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 3, 4));
    /* Each failure leaves the descriptor as it was. */
    CHECK_STATUS(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 2, 3, 4), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, -2, 3, 4), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor4dDescriptor(t, (cudnnTensorFormat_t)99, CUDNN_DATA_FLOAT, 1, 2, 3, 4), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, (cudnnDataType_t)99, 1, 2, 3, 4), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 1, 4, 3, 4), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 1, 6, 3, 4), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 65536, 65536, 1, 1), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 2, 3, 4, 5, -1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 2, 3, 4, 5, 0, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    /* The span of the strides (1 + sum (dim - 1) * stride) must fit in 31 bits, as NVIDIA's
     * cuDNN 8 answers; up to that, sizes are exact (64-bit). */
    size_t big = 0;
    CHECK_STATUS(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 2, 3, 4, 5, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 2, 1, 1, 1, INT32_MAX, 1, 1, 1), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 2, 1, 1, 1, INT32_MAX - 1, 1, 1, 1));
    CHECK_OK(cudnnGetTensorSizeInBytes(t, &big));
    CHECK(big == (size_t)INT32_MAX * 4);
    /* packed strides are computed in 32 bits, as cuDNN 8 does: one that wraps to 0 is
     * BAD_PARAM, a span beyond 31 bits NOT_SUPPORTED */
    CHECK_STATUS(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 65536, 65536), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 46341, 46341),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 46340, 46340));
    CHECK_STATUS(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 65536, 65536, 65536),
                 CUDNN_STATUS_BAD_PARAM);   /* a zero dimension is found before any size */
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 3, 4));
    int dims[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, strides[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_STATUS(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 9, dims, strides), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 1, dims, strides), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 2, dims, strides), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, -3, dims, strides), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 4, NULL, strides), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 4, dims, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnDataType_t dt;
    int n, c, h, w, ns, cs, hs, ws;
    CHECK_OK(cudnnGetTensor4dDescriptor(t, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(n == 1 && c == 2 && h == 3 && w == 4 && ns == 24);
    CHECK_STATUS(cudnnGetTensor4dDescriptor(t, NULL, &n, &c, &h, &w, &ns, &cs, &hs, &ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetTensorSizeInBytes(t, NULL), CUDNN_STATUS_BAD_PARAM);
    /* An unset descriptor reads back as 0 dimensions and 0 bytes. */
    int nb = -1;
    size_t sz = 7;
    CHECK_OK(cudnnGetTensorNdDescriptor(unset, 8, &dt, &nb, dims, strides));
    CHECK_EQ_INT(nb, 0);
    CHECK_OK(cudnnGetTensorSizeInBytes(unset, &sz));
    CHECK_EQ_INT(sz, 0);
    /* Wrong kind, destroyed, NULL. */
    cudnnFilterDescriptor_t f;
    CHECK_OK(cudnnCreateFilterDescriptor(&f));
    CHECK_STATUS(cudnnSetTensor4dDescriptor((cudnnTensorDescriptor_t)f, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyTensorDescriptor((cudnnTensorDescriptor_t)f), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyFilterDescriptor(f));
    CHECK_STATUS(cudnnSetTensor4dDescriptor(NULL, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyTensorDescriptor(unset));
    CHECK_STATUS(cudnnSetTensor4dDescriptor(unset, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetTensorSizeInBytes(unset, &sz), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyTensorDescriptor(unset), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyTensorDescriptor(NULL));
    CHECK_OK(cudnnDestroyTensorDescriptor(t));
}

static void filters(void)
{
    SECTION("filters");
    cudnnFilterDescriptor_t f;
    CHECK_STATUS(cudnnCreateFilterDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateFilterDescriptor(&f));
    cudnnDataType_t dt;
    cudnnTensorFormat_t fmt;
    int k, c, h, w;
    size_t sz;
    CHECK_OK(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 8, 3, 5, 7));
    CHECK_OK(cudnnGetFilter4dDescriptor(f, &dt, &fmt, &k, &c, &h, &w));
    CHECK(dt == CUDNN_DATA_FLOAT && fmt == CUDNN_TENSOR_NHWC && k == 8 && c == 3 && h == 5 && w == 7);
    CHECK_OK(cudnnGetFilterSizeInBytes(f, &sz));
    CHECK_EQ_INT(sz, 8 * 3 * 5 * 7 * 4);
    CHECK_OK(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_INT8x4, CUDNN_TENSOR_NCHW_VECT_C, 2, 8, 4, 5));
    CHECK_OK(cudnnGetFilterSizeInBytes(f, &sz));
    CHECK_EQ_INT(sz, 320);
    int dims[5] = {4, 2, 3, 3, 3}, out[8], nb;
    CHECK_OK(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 5, dims));
    CHECK_OK(cudnnGetFilterNdDescriptor(f, 8, &dt, &fmt, &nb, out));
    CHECK(nb == 5 && dt == CUDNN_DATA_DOUBLE && out[0] == 4 && out[4] == 3);
    CHECK_OK(cudnnGetFilterSizeInBytes(f, &sz));
    CHECK_EQ_INT(sz, 4 * 2 * 27 * 8);
    CHECK_STATUS(cudnnGetFilter4dDescriptor(f, &dt, &fmt, &k, &c, &h, &w), CUDNN_STATUS_SUCCESS);
    CHECK_STATUS(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, dims), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 9, dims), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 0, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, (cudnnTensorFormat_t)99, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFilter4dDescriptor(f, (cudnnDataType_t)99, CUDNN_TENSOR_NCHW, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW_VECT_C, 1, 4, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetFilterNdDescriptor(f, 8, &dt, &fmt, &nb, out));
    CHECK(nb == 5 && dt == CUDNN_DATA_DOUBLE);   /* untouched by the failures */
    CHECK_STATUS(cudnnGetFilterSizeInBytes(f, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyFilterDescriptor(f));
    CHECK_STATUS(cudnnGetFilterSizeInBytes(f, &sz), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyFilterDescriptor(NULL));
}

int main(void)
{
    tensor_round_trips();
    tensor_bad_input();
    filters();
    return hd_test_finish();
}
