/*
 * Backend API: a Set -> Finalize -> Get round trip for every settable attribute of every
 * descriptor type users build (EXECUTION_PLAN's own attributes are covered in
 * test_backend.c, since a plan only finalizes when the legacy convolution API is present).
 * Each case starts from a descriptor holding the type's required attributes, sets the
 * attribute under test, finalizes, and reads it back (descriptor-valued attributes into a
 * caller-created descriptor, checked through its unique id or a distinctive attribute).
 */
#include <cudnn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "harness.h"

typedef cudnnBackendDescriptor_t bd;
#define SET(d, n, t, c, p) cudnnBackendSetAttribute((d), CUDNN_ATTR_##n, CUDNN_TYPE_##t, (c), (p))

static cudnnHandle_t handle;
static bd keep[4096];
static int nkeep;

static bd hold(bd d)
{
    keep[nkeep++] = d;
    return d;
}

static bd tensor(int64_t uid, int n, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    int64_t dims[4] = {d0, d1, d2, d3}, strides[4], s = 1, al = 4;
    for (int i = n - 1; i >= 0; i--) {
        strides[i] = s;
        s *= dims[i];
    }
    bd t;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t);
    SET(t, TENSOR_DIMENSIONS, INT64, n, dims);
    SET(t, TENSOR_STRIDES, INT64, n, strides);
    SET(t, TENSOR_UNIQUE_ID, INT64, 1, &uid);
    SET(t, TENSOR_BYTE_ALIGNMENT, INT64, 1, &al);
    cudnnBackendFinalize(t);
    return hold(t);
}

static bd simple(cudnnBackendDescriptorType_t type)
{
    bd d;
    cudnnBackendCreateDescriptor(type, &d);
    return d;
}

static bd finalized(bd d)
{
    CHECK_OK(cudnnBackendFinalize(d));
    return hold(d);
}

static const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;

/* A descriptor of TYPE with its required attributes set (not finalized). */
static bd base(cudnnBackendDescriptorType_t type)
{
    bd d = simple(type);
    double one = 1, zero = 0;
    switch ((int)type) {
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: {
        cudnnPointwiseMode_t m = CUDNN_POINTWISE_ADD;
        SET(d, POINTWISE_MODE, POINTWISE_MODE, 1, &m);
        SET(d, POINTWISE_MATH_PREC, DATA_TYPE, 1, &f32);
        break;
    }
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: {
        int64_t sd = 2, one2[2] = {1, 1};
        cudnnConvolutionMode_t m = CUDNN_CROSS_CORRELATION;
        SET(d, CONVOLUTION_SPATIAL_DIMS, INT64, 1, &sd);
        SET(d, CONVOLUTION_COMP_TYPE, DATA_TYPE, 1, &f32);
        SET(d, CONVOLUTION_CONV_MODE, CONVOLUTION_MODE, 1, &m);
        SET(d, CONVOLUTION_PRE_PADDINGS, INT64, 2, one2);
        SET(d, CONVOLUTION_POST_PADDINGS, INT64, 2, one2);
        SET(d, CONVOLUTION_FILTER_STRIDES, INT64, 2, one2);
        SET(d, CONVOLUTION_DILATIONS, INT64, 2, one2);
        break;
    }
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: {
        int64_t dims[4] = {1, 2, 3, 4}, strides[4] = {24, 12, 4, 1}, al = 4;
        SET(d, TENSOR_DIMENSIONS, INT64, 4, dims);
        SET(d, TENSOR_STRIDES, INT64, 4, strides);
        SET(d, TENSOR_BYTE_ALIGNMENT, INT64, 1, &al);
        break;
    }
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR: {
        cudnnBackendKnobType_t k = CUDNN_KNOB_TYPE_SPLIT_K;
        int64_t v = 1;
        SET(d, KNOB_CHOICE_KNOB_TYPE, KNOB_TYPE, 1, &k);
        SET(d, KNOB_CHOICE_KNOB_VALUE, INT64, 1, &v);
        break;
    }
    case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
        SET(d, MATMUL_COMP_TYPE, DATA_TYPE, 1, &f32);
        break;
    case CUDNN_BACKEND_REDUCTION_DESCRIPTOR: {
        cudnnReduceTensorOp_t op = CUDNN_REDUCE_TENSOR_ADD;
        SET(d, REDUCTION_OPERATOR, REDUCTION_OPERATOR_TYPE, 1, &op);
        SET(d, REDUCTION_COMP_TYPE, DATA_TYPE, 1, &f32);
        break;
    }
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR: {
        bd x = tensor(1, 4, 1, 4, 5, 5), w = tensor(2, 4, 6, 2, 3, 3), y = tensor(3, 4, 1, 6, 5, 5);
        bd c = finalized(base(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR));
        SET(d, OPERATION_CONVOLUTION_FORWARD_X, BACKEND_DESCRIPTOR, 1, &x);
        SET(d, OPERATION_CONVOLUTION_FORWARD_W, BACKEND_DESCRIPTOR, 1, &w);
        SET(d, OPERATION_CONVOLUTION_FORWARD_Y, BACKEND_DESCRIPTOR, 1, &y);
        SET(d, OPERATION_CONVOLUTION_FORWARD_CONV_DESC, BACKEND_DESCRIPTOR, 1, &c);
        SET(d, OPERATION_CONVOLUTION_FORWARD_ALPHA, DOUBLE, 1, &one);
        SET(d, OPERATION_CONVOLUTION_FORWARD_BETA, DOUBLE, 1, &zero);
        break;
    }
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR: {
        bd x = tensor(1, 4, 1, 4, 5, 5), w = tensor(2, 4, 6, 2, 3, 3), y = tensor(3, 4, 1, 6, 5, 5);
        bd c = finalized(base(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR));
        SET(d, OPERATION_CONVOLUTION_BWD_DATA_DX, BACKEND_DESCRIPTOR, 1, &x);
        SET(d, OPERATION_CONVOLUTION_BWD_DATA_W, BACKEND_DESCRIPTOR, 1, &w);
        SET(d, OPERATION_CONVOLUTION_BWD_DATA_DY, BACKEND_DESCRIPTOR, 1, &y);
        SET(d, OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, BACKEND_DESCRIPTOR, 1, &c);
        SET(d, OPERATION_CONVOLUTION_BWD_DATA_ALPHA, DOUBLE, 1, &one);
        SET(d, OPERATION_CONVOLUTION_BWD_DATA_BETA, DOUBLE, 1, &zero);
        break;
    }
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR: {
        bd x = tensor(1, 4, 1, 4, 5, 5), w = tensor(2, 4, 6, 2, 3, 3), y = tensor(3, 4, 1, 6, 5, 5);
        bd c = finalized(base(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR));
        SET(d, OPERATION_CONVOLUTION_BWD_FILTER_X, BACKEND_DESCRIPTOR, 1, &x);
        SET(d, OPERATION_CONVOLUTION_BWD_FILTER_DW, BACKEND_DESCRIPTOR, 1, &w);
        SET(d, OPERATION_CONVOLUTION_BWD_FILTER_DY, BACKEND_DESCRIPTOR, 1, &y);
        SET(d, OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, BACKEND_DESCRIPTOR, 1, &c);
        SET(d, OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, DOUBLE, 1, &one);
        SET(d, OPERATION_CONVOLUTION_BWD_FILTER_BETA, DOUBLE, 1, &zero);
        break;
    }
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: {
        bd pw = finalized(base(CUDNN_BACKEND_POINTWISE_DESCRIPTOR));
        bd x = tensor(11, 4, 1, 2, 3, 3), b = tensor(12, 4, 1, 2, 1, 1), y = tensor(13, 4, 1, 2, 3, 3);
        SET(d, OPERATION_POINTWISE_PW_DESCRIPTOR, BACKEND_DESCRIPTOR, 1, &pw);
        SET(d, OPERATION_POINTWISE_XDESC, BACKEND_DESCRIPTOR, 1, &x);
        SET(d, OPERATION_POINTWISE_BDESC, BACKEND_DESCRIPTOR, 1, &b);
        SET(d, OPERATION_POINTWISE_YDESC, BACKEND_DESCRIPTOR, 1, &y);
        break;
    }
    case CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR: {
        cudnnGenStatsMode_t m = CUDNN_GENSTATS_SUM_SQSUM;
        bd x = tensor(21, 4, 1, 4, 3, 3), s = tensor(22, 4, 1, 4, 1, 1), q = tensor(23, 4, 1, 4, 1, 1);
        SET(d, OPERATION_GENSTATS_MODE, GENSTATS_MODE, 1, &m);
        SET(d, OPERATION_GENSTATS_MATH_PREC, DATA_TYPE, 1, &f32);
        SET(d, OPERATION_GENSTATS_XDESC, BACKEND_DESCRIPTOR, 1, &x);
        SET(d, OPERATION_GENSTATS_SUMDESC, BACKEND_DESCRIPTOR, 1, &s);
        SET(d, OPERATION_GENSTATS_SQSUMDESC, BACKEND_DESCRIPTOR, 1, &q);
        break;
    }
    case CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR: {
        cudnnBnFinalizeStatsMode_t m = CUDNN_BN_FINALIZE_STATISTICS_TRAINING;
        SET(d, OPERATION_BN_FINALIZE_STATS_MODE, BN_FINALIZE_STATS_MODE, 1, &m);
        SET(d, OPERATION_BN_FINALIZE_MATH_PREC, DATA_TYPE, 1, &f32);
        const cudnnBackendAttributeName_t req[] = {
            CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SUM_DESC, CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC,
            CUDNN_ATTR_OPERATION_BN_FINALIZE_SCALE_DESC, CUDNN_ATTR_OPERATION_BN_FINALIZE_BIAS_DESC,
            CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_SCALE_DESC, CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_BIAS_DESC};
        for (int i = 0; i < 6; i++) {
            bd t = tensor(31 + i, 4, 1, 4, 1, 1);
            cudnnBackendSetAttribute(d, req[i], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t);
        }
        break;
    }
    case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: {
        bd a = tensor(51, 3, 2, 3, 4, 0), b = tensor(52, 3, 2, 4, 5, 0), c = tensor(53, 3, 2, 3, 5, 0);
        bd m = finalized(base(CUDNN_BACKEND_MATMUL_DESCRIPTOR));
        SET(d, OPERATION_MATMUL_ADESC, BACKEND_DESCRIPTOR, 1, &a);
        SET(d, OPERATION_MATMUL_BDESC, BACKEND_DESCRIPTOR, 1, &b);
        SET(d, OPERATION_MATMUL_CDESC, BACKEND_DESCRIPTOR, 1, &c);
        SET(d, OPERATION_MATMUL_DESC, BACKEND_DESCRIPTOR, 1, &m);
        break;
    }
    case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: {
        bd x = tensor(61, 3, 2, 3, 4, 0), y = tensor(62, 3, 2, 1, 4, 0);
        bd r = finalized(base(CUDNN_BACKEND_REDUCTION_DESCRIPTOR));
        SET(d, OPERATION_REDUCTION_XDESC, BACKEND_DESCRIPTOR, 1, &x);
        SET(d, OPERATION_REDUCTION_YDESC, BACKEND_DESCRIPTOR, 1, &y);
        SET(d, OPERATION_REDUCTION_DESC, BACKEND_DESCRIPTOR, 1, &r);
        break;
    }
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: {
        bd op = finalized(base(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR));
        SET(d, OPERATIONGRAPH_HANDLE, HANDLE, 1, &handle);
        SET(d, OPERATIONGRAPH_OPS, BACKEND_DESCRIPTOR, 1, &op);
        break;
    }
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: {
        bd g = finalized(base(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR));
        int64_t idx = 0;
        SET(d, ENGINE_OPERATION_GRAPH, BACKEND_DESCRIPTOR, 1, &g);
        SET(d, ENGINE_GLOBAL_INDEX, INT64, 1, &idx);
        break;
    }
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: {
        bd e = finalized(base(CUDNN_BACKEND_ENGINE_DESCRIPTOR));
        SET(d, ENGINECFG_ENGINE, BACKEND_DESCRIPTOR, 1, &e);
        break;
    }
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: {
        bd g = finalized(base(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR));
        cudnnBackendHeurMode_t m = CUDNN_HEUR_MODE_INSTANT;
        SET(d, ENGINEHEUR_OPERATION_GRAPH, BACKEND_DESCRIPTOR, 1, &g);
        SET(d, ENGINEHEUR_MODE, HEUR_MODE, 1, &m);
        break;
    }
    default:
        break;
    }
    return d;
}

/* One value attribute: set N elements of VALUE on a base descriptor, finalize, read back. */
typedef struct {
    cudnnBackendDescriptorType_t owner;
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int n;
    int64_t i[4];        /* INT64 and enum values */
    double f;            /* FLOAT / DOUBLE */
} vcase;

#define BT(x) CUDNN_BACKEND_##x##_DESCRIPTOR
#define AN(x) CUDNN_ATTR_##x
#define TY(x) CUDNN_TYPE_##x

static void value_round_trips(void)
{
    SECTION("value attributes");
    static const vcase cs[] = {
        {BT(POINTWISE), AN(POINTWISE_MODE), TY(POINTWISE_MODE), 1, {CUDNN_POINTWISE_SWISH_FWD}, 0},
        {BT(POINTWISE), AN(POINTWISE_MATH_PREC), TY(DATA_TYPE), 1, {CUDNN_DATA_HALF}, 0},
        {BT(POINTWISE), AN(POINTWISE_NAN_PROPAGATION), TY(NAN_PROPOGATION), 1, {CUDNN_PROPAGATE_NAN}, 0},
        {BT(POINTWISE), AN(POINTWISE_RELU_LOWER_CLIP), TY(DOUBLE), 1, {0}, -1.5},
        {BT(POINTWISE), AN(POINTWISE_RELU_UPPER_CLIP), TY(FLOAT), 1, {0}, 3.0},
        {BT(POINTWISE), AN(POINTWISE_RELU_LOWER_CLIP_SLOPE), TY(FLOAT), 1, {0}, 0.125},
        {BT(POINTWISE), AN(POINTWISE_ELU_ALPHA), TY(DOUBLE), 1, {0}, 0.7},
        {BT(POINTWISE), AN(POINTWISE_SOFTPLUS_BETA), TY(FLOAT), 1, {0}, 2.0},
        {BT(POINTWISE), AN(POINTWISE_SWISH_BETA), TY(DOUBLE), 1, {0}, 1.5},
        {BT(CONVOLUTION), AN(CONVOLUTION_COMP_TYPE), TY(DATA_TYPE), 1, {CUDNN_DATA_DOUBLE}, 0},
        {BT(CONVOLUTION), AN(CONVOLUTION_CONV_MODE), TY(CONVOLUTION_MODE), 1, {CUDNN_CONVOLUTION}, 0},
        {BT(CONVOLUTION), AN(CONVOLUTION_DILATIONS), TY(INT64), 2, {2, 3}, 0},
        {BT(CONVOLUTION), AN(CONVOLUTION_FILTER_STRIDES), TY(INT64), 2, {2, 1}, 0},
        {BT(CONVOLUTION), AN(CONVOLUTION_PRE_PADDINGS), TY(INT64), 2, {1, 0}, 0},
        {BT(CONVOLUTION), AN(CONVOLUTION_POST_PADDINGS), TY(INT64), 2, {0, 4}, 0},
        {BT(CONVOLUTION), AN(CONVOLUTION_SPATIAL_DIMS), TY(INT64), 1, {2}, 0},
        {BT(TENSOR), AN(TENSOR_BYTE_ALIGNMENT), TY(INT64), 1, {16}, 0},
        {BT(TENSOR), AN(TENSOR_DATA_TYPE), TY(DATA_TYPE), 1, {CUDNN_DATA_INT8}, 0},
        {BT(TENSOR), AN(TENSOR_DIMENSIONS), TY(INT64), 4, {1, 2, 3, 4}, 0},
        {BT(TENSOR), AN(TENSOR_STRIDES), TY(INT64), 4, {1, 1, 2, 6}, 0},
        {BT(TENSOR), AN(TENSOR_VECTOR_COUNT), TY(INT64), 1, {1}, 0},
        {BT(TENSOR), AN(TENSOR_VECTORIZED_DIMENSION), TY(INT64), 1, {1}, 0},
        {BT(TENSOR), AN(TENSOR_UNIQUE_ID), TY(INT64), 1, {123456789012LL}, 0},
        {BT(TENSOR), AN(TENSOR_IS_VIRTUAL), TY(BOOLEAN), 1, {1}, 0},
        {BT(TENSOR), AN(TENSOR_IS_BY_VALUE), TY(BOOLEAN), 1, {1}, 0},
        {BT(KNOB_CHOICE), AN(KNOB_CHOICE_KNOB_TYPE), TY(KNOB_TYPE), 1, {CUDNN_KNOB_TYPE_KERNEL_CFG}, 0},
        {BT(KNOB_CHOICE), AN(KNOB_CHOICE_KNOB_VALUE), TY(INT64), 1, {-3}, 0},
        {BT(MATMUL), AN(MATMUL_COMP_TYPE), TY(DATA_TYPE), 1, {CUDNN_DATA_INT32}, 0},
        {BT(REDUCTION), AN(REDUCTION_OPERATOR), TY(REDUCTION_OPERATOR_TYPE), 1, {CUDNN_REDUCE_TENSOR_AMAX}, 0},
        {BT(REDUCTION), AN(REDUCTION_COMP_TYPE), TY(DATA_TYPE), 1, {CUDNN_DATA_DOUBLE}, 0},
        {BT(OPERATION_CONVOLUTION_FORWARD), AN(OPERATION_CONVOLUTION_FORWARD_ALPHA), TY(FLOAT), 1, {0}, 0.5},
        {BT(OPERATION_CONVOLUTION_FORWARD), AN(OPERATION_CONVOLUTION_FORWARD_BETA), TY(DOUBLE), 1, {0}, 0.25},
        {BT(OPERATION_CONVOLUTION_BACKWARD_DATA), AN(OPERATION_CONVOLUTION_BWD_DATA_ALPHA), TY(DOUBLE), 1, {0}, 2.0},
        {BT(OPERATION_CONVOLUTION_BACKWARD_DATA), AN(OPERATION_CONVOLUTION_BWD_DATA_BETA), TY(FLOAT), 1, {0}, 1.0},
        {BT(OPERATION_CONVOLUTION_BACKWARD_FILTER), AN(OPERATION_CONVOLUTION_BWD_FILTER_ALPHA), TY(DOUBLE), 1, {0}, 3.0},
        {BT(OPERATION_CONVOLUTION_BACKWARD_FILTER), AN(OPERATION_CONVOLUTION_BWD_FILTER_BETA), TY(DOUBLE), 1, {0}, 0.5},
        {BT(OPERATION_POINTWISE), AN(OPERATION_POINTWISE_ALPHA1), TY(FLOAT), 1, {0}, 0.5},
        {BT(OPERATION_POINTWISE), AN(OPERATION_POINTWISE_ALPHA2), TY(DOUBLE), 1, {0}, -2.0},
        {BT(OPERATION_GEN_STATS), AN(OPERATION_GENSTATS_MODE), TY(GENSTATS_MODE), 1, {CUDNN_GENSTATS_SUM_SQSUM}, 0},
        {BT(OPERATION_GEN_STATS), AN(OPERATION_GENSTATS_MATH_PREC), TY(DATA_TYPE), 1, {CUDNN_DATA_HALF}, 0},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_STATS_MODE), TY(BN_FINALIZE_STATS_MODE), 1,
         {CUDNN_BN_FINALIZE_STATISTICS_INFERENCE}, 0},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_MATH_PREC), TY(DATA_TYPE), 1, {CUDNN_DATA_DOUBLE}, 0},
        {BT(OPERATION_MATMUL), AN(OPERATION_MATMUL_IRREGULARLY_STRIDED_BATCH_COUNT), TY(INT64), 1, {7}, 0},
        {BT(ENGINEHEUR), AN(ENGINEHEUR_MODE), TY(HEUR_MODE), 1, {CUDNN_HEUR_MODE_B}, 0},
        {BT(ENGINE), AN(ENGINE_GLOBAL_INDEX), TY(INT64), 1, {0}, 0},
    };
    int good = 0;
    for (unsigned c = 0; c < sizeof cs / sizeof *cs; c++) {
        const vcase *k = &cs[c];
        bd d = base(k->owner);
        unsigned char in[64], out[64];
        size_t es = k->type == CUDNN_TYPE_INT64 || k->type == CUDNN_TYPE_DOUBLE ? 8
                  : k->type == CUDNN_TYPE_BOOLEAN ? 1 : 4;
        memset(out, 0xEE, sizeof out);
        for (int i = 0; i < k->n; i++) {
            if (k->type == CUDNN_TYPE_INT64)
                memcpy(in + i * es, &k->i[i], 8);
            else if (k->type == CUDNN_TYPE_DOUBLE)
                memcpy(in + i * es, &k->f, 8);
            else if (k->type == CUDNN_TYPE_FLOAT) {
                float f = (float)k->f;
                memcpy(in + i * es, &f, 4);
            } else if (k->type == CUDNN_TYPE_BOOLEAN)
                in[i] = (unsigned char)k->i[i];
            else {
                int v = (int)k->i[i];
                memcpy(in + i * es, &v, 4);
            }
        }
        cudnnStatus_t s1 = cudnnBackendSetAttribute(d, k->name, k->type, k->n, in);
        cudnnStatus_t s2 = cudnnBackendFinalize(d);
        int64_t cnt = -1;
        cudnnStatus_t s3 = cudnnBackendGetAttribute(d, k->name, k->type, k->n, &cnt, out);
        int ok = s1 == CUDNN_STATUS_SUCCESS && s2 == CUDNN_STATUS_SUCCESS && s3 == CUDNN_STATUS_SUCCESS && cnt == k->n &&
                 memcmp(in, out, (size_t)k->n * es) == 0 && out[k->n * es] == 0xEE;
        CHECK_MSG(ok, "case %u (attribute %d): set %s, finalize %s, get %s, count %lld", c, (int)k->name,
                  cudnnGetErrorString(s1), cudnnGetErrorString(s2), cudnnGetErrorString(s3), (long long)cnt);
        good += ok;
        cudnnBackendDestroyDescriptor(d);
    }
    CHECK_EQ_INT(good, (int)(sizeof cs / sizeof *cs));
}

/* One descriptor-valued attribute: read it back into a caller-created descriptor. */
typedef struct {
    cudnnBackendDescriptorType_t owner;
    cudnnBackendAttributeName_t name;
    cudnnBackendDescriptorType_t ref;
    int64_t uid;         /* tensors: the unique id the base gave; -1 otherwise */
} dcase;

static void descriptor_round_trips(void)
{
    SECTION("descriptor attributes");
    static const dcase cs[] = {
        {BT(OPERATION_CONVOLUTION_FORWARD), AN(OPERATION_CONVOLUTION_FORWARD_X), BT(TENSOR), 1},
        {BT(OPERATION_CONVOLUTION_FORWARD), AN(OPERATION_CONVOLUTION_FORWARD_W), BT(TENSOR), 2},
        {BT(OPERATION_CONVOLUTION_FORWARD), AN(OPERATION_CONVOLUTION_FORWARD_Y), BT(TENSOR), 3},
        {BT(OPERATION_CONVOLUTION_FORWARD), AN(OPERATION_CONVOLUTION_FORWARD_CONV_DESC), BT(CONVOLUTION), -1},
        {BT(OPERATION_CONVOLUTION_BACKWARD_DATA), AN(OPERATION_CONVOLUTION_BWD_DATA_DX), BT(TENSOR), 1},
        {BT(OPERATION_CONVOLUTION_BACKWARD_DATA), AN(OPERATION_CONVOLUTION_BWD_DATA_W), BT(TENSOR), 2},
        {BT(OPERATION_CONVOLUTION_BACKWARD_DATA), AN(OPERATION_CONVOLUTION_BWD_DATA_DY), BT(TENSOR), 3},
        {BT(OPERATION_CONVOLUTION_BACKWARD_DATA), AN(OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC), BT(CONVOLUTION), -1},
        {BT(OPERATION_CONVOLUTION_BACKWARD_FILTER), AN(OPERATION_CONVOLUTION_BWD_FILTER_X), BT(TENSOR), 1},
        {BT(OPERATION_CONVOLUTION_BACKWARD_FILTER), AN(OPERATION_CONVOLUTION_BWD_FILTER_DW), BT(TENSOR), 2},
        {BT(OPERATION_CONVOLUTION_BACKWARD_FILTER), AN(OPERATION_CONVOLUTION_BWD_FILTER_DY), BT(TENSOR), 3},
        {BT(OPERATION_CONVOLUTION_BACKWARD_FILTER), AN(OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC), BT(CONVOLUTION), -1},
        {BT(OPERATION_POINTWISE), AN(OPERATION_POINTWISE_PW_DESCRIPTOR), BT(POINTWISE), -1},
        {BT(OPERATION_POINTWISE), AN(OPERATION_POINTWISE_XDESC), BT(TENSOR), 11},
        {BT(OPERATION_POINTWISE), AN(OPERATION_POINTWISE_BDESC), BT(TENSOR), 12},
        {BT(OPERATION_POINTWISE), AN(OPERATION_POINTWISE_YDESC), BT(TENSOR), 13},
        {BT(OPERATION_POINTWISE), AN(OPERATION_POINTWISE_DXDESC), BT(TENSOR), 14},
        {BT(OPERATION_POINTWISE), AN(OPERATION_POINTWISE_DYDESC), BT(TENSOR), 15},
        {BT(OPERATION_GEN_STATS), AN(OPERATION_GENSTATS_XDESC), BT(TENSOR), 21},
        {BT(OPERATION_GEN_STATS), AN(OPERATION_GENSTATS_SUMDESC), BT(TENSOR), 22},
        {BT(OPERATION_GEN_STATS), AN(OPERATION_GENSTATS_SQSUMDESC), BT(TENSOR), 23},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_Y_SUM_DESC), BT(TENSOR), 31},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_EQ_BIAS_DESC), BT(TENSOR), 36},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC), BT(TENSOR), 40},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC), BT(TENSOR), 41},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC), BT(TENSOR), 42},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC), BT(TENSOR), 43},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_SAVED_MEAN_DESC), BT(TENSOR), 44},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC), BT(TENSOR), 45},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC), BT(TENSOR), 46},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_EPSILON_DESC), BT(TENSOR), 47},
        {BT(OPERATION_BN_FINALIZE_STATISTICS), AN(OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC), BT(TENSOR), 48},
        {BT(OPERATION_MATMUL), AN(OPERATION_MATMUL_ADESC), BT(TENSOR), 51},
        {BT(OPERATION_MATMUL), AN(OPERATION_MATMUL_BDESC), BT(TENSOR), 52},
        {BT(OPERATION_MATMUL), AN(OPERATION_MATMUL_CDESC), BT(TENSOR), 53},
        {BT(OPERATION_MATMUL), AN(OPERATION_MATMUL_DESC), BT(MATMUL), -1},
        {BT(OPERATION_REDUCTION), AN(OPERATION_REDUCTION_XDESC), BT(TENSOR), 61},
        {BT(OPERATION_REDUCTION), AN(OPERATION_REDUCTION_YDESC), BT(TENSOR), 62},
        {BT(OPERATION_REDUCTION), AN(OPERATION_REDUCTION_DESC), BT(REDUCTION), -1},
        {BT(OPERATIONGRAPH), AN(OPERATIONGRAPH_OPS), BT(OPERATION_CONVOLUTION_FORWARD), -1},
        {BT(ENGINE), AN(ENGINE_OPERATION_GRAPH), BT(OPERATIONGRAPH), -1},
        {BT(ENGINECFG), AN(ENGINECFG_ENGINE), BT(ENGINE), -1},
        {BT(ENGINEHEUR), AN(ENGINEHEUR_OPERATION_GRAPH), BT(OPERATIONGRAPH), -1},
    };
    int good = 0;
    for (unsigned c = 0; c < sizeof cs / sizeof *cs; c++) {
        const dcase *k = &cs[c];
        bd d = base(k->owner);
        /* Optional tensor attributes the base does not set: set them here. */
        if (k->uid >= 14 && k->uid != 21 && k->uid != 22 && k->uid != 23 && k->uid != 31 && k->uid != 36 &&
            k->uid < 51) {
            int pw = k->owner == BT(OPERATION_POINTWISE);   /* pointwise tensors are 1x2x3x3, BN ones 1x4x1x1 */
            bd t = tensor(k->uid, 4, 1, pw ? 2 : 4, pw ? 3 : 1, pw ? 3 : 1);
            CHECK_OK(cudnnBackendSetAttribute(d, k->name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t));
        }
        CHECK_OK(cudnnBackendFinalize(d));
        bd out;
        cudnnBackendCreateDescriptor(k->ref, &out);
        int64_t cnt = -1;
        cudnnStatus_t st = cudnnBackendGetAttribute(d, k->name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cnt, &out);
        int ok = st == CUDNN_STATUS_SUCCESS && cnt == 1;
        if (ok && k->uid >= 0) {
            int64_t uid = -7;
            ok = cudnnBackendGetAttribute(out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &cnt, &uid) ==
                     CUDNN_STATUS_SUCCESS && uid == k->uid;
        } else if (ok) {
            /* Any attribute readable means the copy arrived finalized. */
            ok = cudnnBackendFinalize(out) == CUDNN_STATUS_INVALID_VALUE;   /* already finalized (cuDNN 8) */
        }
        CHECK_MSG(ok, "case %u (attribute %d): get %s", c, (int)k->name, cudnnGetErrorString(st));
        good += ok;
        cudnnBackendDestroyDescriptor(out);
        cudnnBackendDestroyDescriptor(d);
    }
    CHECK_EQ_INT(good, (int)(sizeof cs / sizeof *cs));
}

static void variant_pack(void)
{
    SECTION("variant pack");
    bd vp;
    int64_t ids[3] = {7, 8, 9}, gi[4] = {0};
    int a, b, c;
    void *ptrs[3] = {&a, &b, &c}, *gp[4] = {NULL}, *ws = &a, *gws = NULL, *inter[2] = {&b, &c}, *ginter[2] = {NULL};
    int64_t cnt;
    CHECK_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp));
    CHECK_OK(SET(vp, VARIANT_PACK_UNIQUE_IDS, INT64, 3, ids));
    CHECK_OK(SET(vp, VARIANT_PACK_DATA_POINTERS, VOID_PTR, 3, ptrs));
    CHECK_OK(SET(vp, VARIANT_PACK_WORKSPACE, VOID_PTR, 1, &ws));
    CHECK_OK(SET(vp, VARIANT_PACK_INTERMEDIATES, VOID_PTR, 2, inter));
    CHECK_STATUS(SET(vp, VARIANT_PACK_WORKSPACE, VOID_PTR, 2, ptrs), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnBackendFinalize(vp));
    CHECK_OK(cudnnBackendGetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 4, &cnt, gi));
    CHECK(cnt == 3 && gi[0] == 7 && gi[2] == 9);
    CHECK_OK(cudnnBackendGetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 4, &cnt, gp));
    CHECK(cnt == 3 && gp[0] == &a && gp[2] == &c);
    CHECK_OK(cudnnBackendGetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &cnt, &gws));
    CHECK(gws == &a);
    CHECK_OK(cudnnBackendGetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_INTERMEDIATES, CUDNN_TYPE_VOID_PTR, 2, &cnt, ginter));
    CHECK(cnt == 2 && ginter[1] == &c);
    cudnnBackendDestroyDescriptor(vp);
}

int main(void)
{
    CHECK_OK(cudnnCreate(&handle));
    value_round_trips();
    descriptor_round_trips();
    variant_pack();
    for (int i = 0; i < nkeep; i++)
        cudnnBackendDestroyDescriptor(keep[i]);
    cudnnDestroy(handle);
    return hd_test_finish();
}
