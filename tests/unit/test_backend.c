/*
 * Backend API descriptors: create every descriptor type, Set/Get round trips with type and
 * count checks, Finalize validation.  Heuristics, plans and execution are in
 * test_backend_exec.c.
 */
#include <cudnn.h>
#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "harness.h"
#include "unit/backend_util.h"

static void create_all(void)
{
    SECTION("create every type");
    int made = 0;
    for (int t = 0; t <= CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR; t++) {
        bd d = NULL;
        cudnnStatus_t st = cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)t, &d);
        if (t == CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR) {
            CHECK_STATUS(st, CUDNN_STATUS_NOT_SUPPORTED);
            continue;
        }
        CHECK_OK(st);
        made += d != NULL;
        CHECK_OK(cudnnBackendDestroyDescriptor(d));
    }
    CHECK_EQ_INT(made, 22);
    bd d;
    CHECK_STATUS(cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)23, &d), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)99, &d), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)-1, &d), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnBackendDestroyDescriptor(NULL));
    /* Destroyed and wrong-kind objects. */
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
    CHECK_OK(cudnnBackendDestroyDescriptor(d));
    CHECK_STATUS(cudnnBackendDestroyDescriptor(d), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendFinalize(d), CUDNN_STATUS_BAD_PARAM);
    int64_t v = 1;
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &v), CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t legacy;
    cudnnCreateTensorDescriptor(&legacy);
    CHECK_STATUS(cudnnBackendFinalize(legacy), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendDestroyDescriptor(legacy), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(legacy);
    CHECK_STATUS(cudnnBackendFinalize(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendInitialize(NULL), CUDNN_STATUS_BAD_PARAM);
}

static void tensor(void)
{
    SECTION("tensor");
    int64_t dims[4] = {2, 3, 4, 5}, strides[4] = {60, 1, 15, 3}, out[8], cnt = -1;
    bd t = mk_tensor_full(42, 4, dims, strides, CUDNN_DATA_HALF, false, 0);
    /* Get before finalize: NOT_INITIALIZED, as cuDNN 9. */
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, &cnt, out),
                 CUDNN_STATUS_NOT_INITIALIZED);
    int64_t vc = 2, vd = 1;
    CHECK_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64, 1, &vc));
    CHECK_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, CUDNN_TYPE_INT64, 1, &vd));
    CHECK_OK(cudnnBackendFinalize(t));
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, &cnt, out));
    CHECK(cnt == 4 && out[0] == 2 && out[3] == 5);
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 8, &cnt, out));
    CHECK(cnt == 4 && out[1] == 1 && out[2] == 15);
    /* Count only; fewer than there are. */
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, &cnt, NULL));
    CHECK_EQ_INT(cnt, 4);
    out[2] = -1;
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, &cnt, out));
    CHECK(cnt == 2 && out[1] == 3 && out[2] == -1);
    int64_t v = 0;
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &cnt, &v));
    CHECK_EQ_INT(v, 42);
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64, 1, &cnt, &v));
    CHECK_EQ_INT(v, 2);
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &cnt, &dt));
    CHECK_EQ_INT(dt, CUDNN_DATA_HALF);
    bool b = true;
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &cnt, &b));
    CHECK(b == false);
    CHECK_OK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &cnt, &b));
    CHECK(b == false);
    /* Bad Get calls. */
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_DOUBLE, 8, &cnt, out),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, -1, &cnt, out),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 8, &cnt, out),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendGetAttribute(t, (cudnnBackendAttributeName_t)99999, CUDNN_TYPE_INT64, 8, &cnt, out),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    /* Finalized: no more Set, no second Finalize (INVALID_VALUE, as NVIDIA's cuDNN 8 answers). */
    CHECK_STATUS(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &v),
                 CUDNN_STATUS_INVALID_VALUE);
    CHECK_STATUS(cudnnBackendFinalize(t), CUDNN_STATUS_INVALID_VALUE);
    /* Initialize brings it back to the created state. */
    CHECK_OK(cudnnBackendInitialize(t));
    CHECK_STATUS(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &cnt, &v),
                 CUDNN_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(cudnnBackendFinalize(t), CUDNN_STATUS_BAD_PARAM);   /* nothing set */
    CHECK_OK(cudnnBackendDestroyDescriptor(t));

    /* Defaults. */
    bd d;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
    int64_t al = 4;
    CHECK_OK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
    CHECK_OK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
    CHECK_OK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &al));
    CHECK_OK(cudnnBackendFinalize(d));
    CHECK_OK(cudnnBackendGetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &cnt, &dt));
    CHECK_EQ_INT(dt, CUDNN_DATA_FLOAT);
    CHECK_OK(cudnnBackendGetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &cnt, &v));
    CHECK_EQ_INT(v, -1);
    CHECK_OK(cudnnBackendGetAttribute(d, CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, CUDNN_TYPE_INT64, 1, &cnt, &v));
    CHECK_EQ_INT(v, -1);
    CHECK_OK(cudnnBackendDestroyDescriptor(d));

    /* Set-time errors. */
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
    int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    int bad_dt = 99;
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_DATA_TYPE, 4, dims), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, dims), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, -1, dims), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 9, nine), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 2, dims), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &bad_dt),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_INT64, 1, dims), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(d, (cudnnBackendAttributeName_t)99999, CUDNN_TYPE_INT64, 1, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, (cudnnBackendAttributeType_t)99, 1, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(NULL, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnBackendDestroyDescriptor(d));

    /* Finalize-time errors. */
    struct { int64_t dims[4], strides[4], align; int n_strides; cudnnDataType_t dt; cudnnStatus_t want; } cs[] = {
        {{2, 3, 4, 5}, {60, 20, 5, 1}, 4, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_SUCCESS},
        {{2, 3, 4, 5}, {60, 20, 5, 1}, 12, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_SUCCESS},
        {{2, 3, 4, 5}, {60, 20, 5, 1}, 2, 4, CUDNN_DATA_HALF, CUDNN_STATUS_SUCCESS},
        {{2, 3, 4, 5}, {1, 2, 6, 24}, 4, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_SUCCESS},
        {{2, 3, 4, 5}, {60, 20, 0, 1}, 4, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_SUCCESS},
        {{2, 3, 4, 5}, {60, 20, 5, 1}, 2, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {{2, 3, 4, 5}, {60, 20, 5, 1}, 3, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {{2, 3, 4, 5}, {60, 20, 5, 1}, 0, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {{2, 3, 4, 5}, {60, 20, 5, 1}, -4, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {{2, -3, 4, 5}, {60, 20, 5, 1}, 4, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {{2, 0, 4, 5}, {60, 20, 5, 1}, 4, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {{2, 3, 4, 5}, {60, 20, -5, 1}, 4, 4, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
        {{2, 3, 4, 5}, {60, 20, 5, 1}, 4, 3, CUDNN_DATA_FLOAT, CUDNN_STATUS_BAD_PARAM},
    };
    for (unsigned i = 0; i < sizeof cs / sizeof *cs; i++) {
        CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
        cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &cs[i].dt);
        cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, cs[i].dims);
        cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, cs[i].n_strides, cs[i].strides);
        cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &cs[i].align);
        cudnnStatus_t st = cudnnBackendFinalize(d);
        CHECK_MSG(st == cs[i].want, "case %u: %s", i, cudnnGetErrorString(st));
        CHECK_OK(cudnnBackendDestroyDescriptor(d));
    }
    /* Vectorized dimension out of range; missing alignment. */
    d = mk_tensor_full(1, 4, dims, NULL, CUDNN_DATA_FLOAT, false, 0);
    vd = 7;
    CHECK_OK(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, CUDNN_TYPE_INT64, 1, &vd));
    CHECK_STATUS(cudnnBackendFinalize(d), CUDNN_STATUS_BAD_PARAM);
    cudnnBackendDestroyDescriptor(d);
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
    cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    CHECK_STATUS(cudnnBackendFinalize(d), CUDNN_STATUS_BAD_PARAM);
    cudnnBackendDestroyDescriptor(d);
}

static void small_descriptors(void)
{
    SECTION("convolution, pointwise, knob, matmul, reduction");
    int64_t cnt;
    bd c = mk_conv(1, 2, 1, CUDNN_CROSS_CORRELATION);
    int64_t out[4] = {0};
    CHECK_OK(cudnnBackendGetAttribute(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 4, &cnt, out));
    CHECK(cnt == 2 && out[0] == 2 && out[1] == 2);
    cudnnConvolutionMode_t m = CUDNN_CONVOLUTION;
    CHECK_OK(cudnnBackendGetAttribute(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &cnt, &m));
    CHECK_EQ_INT(m, CUDNN_CROSS_CORRELATION);
    CHECK_OK(cudnnBackendGetAttribute(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &cnt, out));
    CHECK_EQ_INT(out[0], 2);
    cudnnBackendDestroyDescriptor(c);

    /* Convolution validation. */
    bd bad;
    int64_t sd = 2, two[2] = {1, 1}, zero[2] = {0, 0}, neg[2] = {-1, 0}, three[3] = {1, 1, 1};
    cudnnDataType_t ct = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CONVOLUTION;
    for (int k = 0; k < 4; k++) {
        cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &bad);
        cudnnBackendSetAttribute(bad, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &sd);
        cudnnBackendSetAttribute(bad, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct);
        if (k != 3)
            cudnnBackendSetAttribute(bad, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
        cudnnBackendSetAttribute(bad, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, k == 0 ? neg : zero);
        cudnnBackendSetAttribute(bad, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, zero);
        cudnnBackendSetAttribute(bad, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, k == 1 ? zero : two);
        cudnnBackendSetAttribute(bad, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, k == 2 ? 3 : 2,
                                 k == 2 ? three : two);
        CHECK_STATUS(cudnnBackendFinalize(bad), CUDNN_STATUS_BAD_PARAM);
        cudnnBackendDestroyDescriptor(bad);
    }
    int bad_mode = 7;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &bad);
    CHECK_STATUS(cudnnBackendSetAttribute(bad, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &bad_mode),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnBackendDestroyDescriptor(bad);

    /* Pointwise: every attribute, and defaults; FLOAT and DOUBLE both read. */
    bd p;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &p));
    cudnnPointwiseMode_t pm = CUDNN_POINTWISE_RELU_FWD;
    cudnnNanPropagation_t nan = CUDNN_PROPAGATE_NAN;
    double upper = 6.0;
    float slope = 0.25f;
    CHECK_OK(cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &pm));
    CHECK_OK(cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &ct));
    CHECK_OK(cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION, 1, &nan));
    CHECK_OK(cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1, &upper));
    CHECK_OK(cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, CUDNN_TYPE_FLOAT, 1, &slope));
    int bad_pm = 99;
    CHECK_STATUS(cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &bad_pm),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_ELU_ALPHA, CUDNN_TYPE_INT64, 1, &sd),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnBackendFinalize(p));
    double dv = 0;
    float fv = 0;
    CHECK_OK(cudnnBackendGetAttribute(p, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1, &cnt, &dv));
    CHECK(dv == 6.0);
    CHECK_OK(cudnnBackendGetAttribute(p, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, CUDNN_TYPE_DOUBLE, 1, &cnt, &dv));
    CHECK(dv == 0.25);
    CHECK_OK(cudnnBackendGetAttribute(p, CUDNN_ATTR_POINTWISE_ELU_ALPHA, CUDNN_TYPE_FLOAT, 1, &cnt, &fv));
    CHECK(fv == 1.0f);
    CHECK_OK(cudnnBackendGetAttribute(p, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, CUDNN_TYPE_DOUBLE, 1, &cnt, &dv));
    CHECK(dv == 0.0);
    cudnnNanPropagation_t gn = CUDNN_NOT_PROPAGATE_NAN;
    CHECK_OK(cudnnBackendGetAttribute(p, CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION, 1, &cnt, &gn));
    CHECK_EQ_INT(gn, CUDNN_PROPAGATE_NAN);
    cudnnPointwiseMode_t gpm = CUDNN_POINTWISE_ADD;
    CHECK_OK(cudnnBackendGetAttribute(p, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &cnt, &gpm));
    CHECK_EQ_INT(gpm, CUDNN_POINTWISE_RELU_FWD);
    cudnnBackendDestroyDescriptor(p);
    /* Lower clip above upper clip; missing mode. */
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &p));
    double lower = 7.0;
    cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &ct);
    CHECK_STATUS(cudnnBackendFinalize(p), CUDNN_STATUS_BAD_PARAM);
    cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &pm);
    cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, CUDNN_TYPE_DOUBLE, 1, &lower);
    cudnnBackendSetAttribute(p, CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1, &upper);
    CHECK_STATUS(cudnnBackendFinalize(p), CUDNN_STATUS_BAD_PARAM);
    cudnnBackendDestroyDescriptor(p);

    /* Knob choice, matmul, reduction: round trips. */
    bd k;
    cudnnBackendKnobType_t kt = CUDNN_KNOB_TYPE_TILE_SIZE, gkt = CUDNN_KNOB_TYPE_SPLIT_K;
    int64_t kv = 3, gkv = 0;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &k));
    CHECK_OK(cudnnBackendSetAttribute(k, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &kt));
    CHECK_STATUS(cudnnBackendFinalize(k), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnBackendSetAttribute(k, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &kv));
    CHECK_OK(cudnnBackendFinalize(k));
    CHECK_OK(cudnnBackendGetAttribute(k, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &cnt, &gkt));
    CHECK_OK(cudnnBackendGetAttribute(k, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &cnt, &gkv));
    CHECK(gkt == CUDNN_KNOB_TYPE_TILE_SIZE && gkv == 3);
    cudnnBackendDestroyDescriptor(k);

    bd mm, red;
    cudnnDataType_t gdt = CUDNN_DATA_HALF;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_MATMUL_DESCRIPTOR, &mm));
    CHECK_OK(cudnnBackendSetAttribute(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct));
    CHECK_OK(cudnnBackendFinalize(mm));
    CHECK_OK(cudnnBackendGetAttribute(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &cnt, &gdt));
    CHECK_EQ_INT(gdt, CUDNN_DATA_FLOAT);
    cudnnReduceTensorOp_t rop = CUDNN_REDUCE_TENSOR_MAX, grop = CUDNN_REDUCE_TENSOR_ADD;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &red));
    CHECK_OK(cudnnBackendSetAttribute(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &rop));
    CHECK_OK(cudnnBackendSetAttribute(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct));
    CHECK_OK(cudnnBackendFinalize(red));
    CHECK_OK(cudnnBackendGetAttribute(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &cnt, &grop));
    CHECK_EQ_INT(grop, CUDNN_REDUCE_TENSOR_MAX);

    /* Matmul and reduction operations: shape checks. */
    int64_t ad[3] = {2, 3, 4}, bdm[3] = {2, 4, 5}, cd[3] = {2, 3, 5}, wrong[3] = {2, 3, 6}, rd[3] = {2, 1, 4};
    bd A = mk_tensor(1, 3, ad), Bt = mk_tensor(2, 3, bdm), C = mk_tensor(3, 3, cd), W = mk_tensor(4, 3, wrong),
       R = mk_tensor(5, 3, rd);
    bd op;
    for (int k2 = 0; k2 < 2; k2++) {
        CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &op));
        cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &A);
        cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &Bt);
        cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, k2 ? &W : &C);
        cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm);
        CHECK_STATUS(cudnnBackendFinalize(op), k2 ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_SUCCESS);
        cudnnBackendDestroyDescriptor(op);
    }
    for (int k2 = 0; k2 < 2; k2++) {
        CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, &op));
        cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &A);
        cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, k2 ? &C : &R);
        cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &red);
        CHECK_STATUS(cudnnBackendFinalize(op), k2 ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_SUCCESS);
        cudnnBackendDestroyDescriptor(op);
    }
    /* Wrong kinds of referenced descriptor, and unfinalized ones. */
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, &op));
    CHECK_STATUS(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm),
                 CUDNN_STATUS_BAD_PARAM);
    bd unfinished;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &unfinished);
    CHECK_STATUS(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                          &unfinished), CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t legacy;
    cudnnCreateTensorDescriptor(&legacy);
    CHECK_STATUS(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                          &legacy), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(legacy);
    cudnnBackendDestroyDescriptor(unfinished);
    cudnnBackendDestroyDescriptor(op);
    bd all[] = {A, Bt, C, W, R, mm, red};
    for (unsigned i = 0; i < sizeof all / sizeof *all; i++)
        cudnnBackendDestroyDescriptor(all[i]);
}

int main(void)
{
    create_all();
    tensor();
    small_descriptors();
    return hd_test_finish();
}
