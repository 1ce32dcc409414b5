/* RNN descriptor, RNN data descriptor and persistent plans: every setter and getter, valid,
 * invalid and round trips (including v6 <-> v8 read-back). */
#include <cudnn.h>
#include <stdint.h>
#include "harness.h"

static cudnnHandle_t h;

static cudnnStatus_t set_v8(cudnnRNNDescriptor_t r, cudnnRNNAlgo_t algo, cudnnRNNMode_t cell, cudnnRNNBiasMode_t bias,
                            cudnnDirectionMode_t dir, cudnnRNNInputMode_t in, cudnnDataType_t dt, cudnnDataType_t mp,
                            int inSize, int hid, int proj, int layers, uint32_t aux)
{
    return cudnnSetRNNDescriptor_v8(r, algo, cell, bias, dir, in, dt, mp, CUDNN_DEFAULT_MATH, inSize, hid, proj,
                                    layers, NULL, aux);
}

static void test_create_destroy(void)
{
    SECTION("create/destroy");
    cudnnRNNDescriptor_t r = NULL;
    CHECK_STATUS(cudnnCreateRNNDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    CHECK(r != NULL);
    CHECK_OK(cudnnDestroyRNNDescriptor(r));
    CHECK_STATUS(cudnnDestroyRNNDescriptor(r), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyRNNDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnRNNDataDescriptor_t d = NULL;
    CHECK_STATUS(cudnnCreateRNNDataDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateRNNDataDescriptor(&d));
    /* wrong kind */
    CHECK_STATUS(cudnnDestroyRNNDescriptor((cudnnRNNDescriptor_t)(void *)d), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyRNNDataDescriptor(d));
    CHECK_STATUS(cudnnDestroyRNNDataDescriptor(d), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyRNNDataDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
}

static void test_v8(void)
{
    SECTION("v8 set/get");
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    /* unset descriptor */
    cudnnRNNAlgo_t algo = (cudnnRNNAlgo_t)77;
    CHECK_STATUS(cudnnGetRNNDescriptor_v8(r, &algo, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                          NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT(algo, 77);

    CHECK_OK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_SINGLE_REC_BIAS,
                                      CUDNN_BIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT,
                                      CUDNN_TENSOR_OP_MATH, 7, 12, 5, 3, NULL, CUDNN_RNN_PADDED_IO_ENABLED));
    cudnnRNNMode_t cell; cudnnRNNBiasMode_t bias; cudnnDirectionMode_t dir; cudnnRNNInputMode_t in;
    cudnnDataType_t dt, mp; cudnnMathType_t mt; int32_t is, hs, ps, nl; cudnnDropoutDescriptor_t dd = (cudnnDropoutDescriptor_t)1;
    uint32_t aux;
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, &algo, &cell, &bias, &dir, &in, &dt, &mp, &mt, &is, &hs, &ps, &nl, &dd, &aux));
    CHECK_EQ_INT(algo, CUDNN_RNN_ALGO_STANDARD);
    CHECK_EQ_INT(cell, CUDNN_LSTM);
    CHECK_EQ_INT(bias, CUDNN_RNN_SINGLE_REC_BIAS);
    CHECK_EQ_INT(dir, CUDNN_BIDIRECTIONAL);
    CHECK_EQ_INT(in, CUDNN_LINEAR_INPUT);
    CHECK_EQ_INT(dt, CUDNN_DATA_HALF);
    CHECK_EQ_INT(mp, CUDNN_DATA_FLOAT);
    CHECK_EQ_INT(mt, CUDNN_TENSOR_OP_MATH);
    CHECK_EQ_INT(is, 7); CHECK_EQ_INT(hs, 12); CHECK_EQ_INT(ps, 5); CHECK_EQ_INT(nl, 3);
    CHECK(dd == NULL);
    CHECK_EQ_INT(aux, CUDNN_RNN_PADDED_IO_ENABLED);
    /* all outputs NULL is fine */
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    /* legacy views of the same descriptor */
    unsigned pm = 9;
    CHECK_OK(cudnnGetRNNPaddingMode(r, &pm));
    CHECK_EQ_INT(pm, CUDNN_RNN_PADDED_IO_ENABLED);
    int rp = 0, op = 9;
    CHECK_OK(cudnnGetRNNProjectionLayers(h, r, &rp, &op));
    CHECK_EQ_INT(rp, 5); CHECK_EQ_INT(op, 0);
    cudnnRNNBiasMode_t bm;
    CHECK_OK(cudnnGetRNNBiasMode(r, &bm));
    CHECK_EQ_INT(bm, CUDNN_RNN_SINGLE_REC_BIAS);
    cudnnMathType_t mt2;
    CHECK_OK(cudnnGetRNNMatrixMathType(r, &mt2));
    CHECK_EQ_INT(mt2, CUDNN_TENSOR_OP_MATH);
    int hs6, nl6; cudnnRNNInputMode_t in6; cudnnDirectionMode_t dir6; cudnnRNNMode_t cell6; cudnnRNNAlgo_t algo6;
    cudnnDataType_t mp6;
    CHECK_OK(cudnnGetRNNDescriptor_v6(h, r, &hs6, &nl6, &dd, &in6, &dir6, &cell6, &algo6, &mp6));
    CHECK_EQ_INT(hs6, 12); CHECK_EQ_INT(nl6, 3); CHECK_EQ_INT(in6, CUDNN_LINEAR_INPUT);
    CHECK_EQ_INT(dir6, CUDNN_BIDIRECTIONAL); CHECK_EQ_INT(cell6, CUDNN_LSTM); CHECK_EQ_INT(algo6, CUDNN_RNN_ALGO_STANDARD);
    CHECK_EQ_INT(mp6, CUDNN_DATA_FLOAT);

    SECTION("v8 invalid");
    const cudnnRNNAlgo_t A = CUDNN_RNN_ALGO_STANDARD;
    const cudnnDataType_t F = CUDNN_DATA_FLOAT;
    CHECK_STATUS(set_v8(NULL, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, (cudnnRNNAlgo_t)99, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, CUDNN_RNN_ALGO_COUNT, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, (cudnnRNNMode_t)99, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, (cudnnRNNBiasMode_t)99, 0, 0, F, F, 4, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, (cudnnDirectionMode_t)99, 0, F, F, 4, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, (cudnnRNNInputMode_t)99, F, F, 4, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, (cudnnDataType_t)99, F, 4, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, CUDNN_DATA_INT8, CUDNN_DATA_INT8, 4, 4, 4, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, CUDNN_DATA_DOUBLE, 4, 4, 4, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, CUDNN_DATA_DOUBLE, F, 4, 4, 4, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, CUDNN_DATA_BFLOAT16, F, 4, 4, 4, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, (cudnnDataType_t)99, 4, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, (cudnnMathType_t)99, 4, 4, 4, 1,
                                          NULL, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 0, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, -3, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 0, 0, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, -4, -4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 4, 0, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 4, -1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 5, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 0, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_v8(r, A, CUDNN_GRU, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 3, 1, 0), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 4, 1, 0x10), CUDNN_STATUS_BAD_PARAM);
    /* wrong-kind dropout descriptor */
    CHECK_STATUS(cudnnSetRNNDescriptor_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 0, 4, 4, 4, 1,
                                          (cudnnDropoutDescriptor_t)(void *)r, 0), CUDNN_STATUS_BAD_PARAM);
    /* valid but not in cuDNN 8.1: projection / bias modes with persistent algos */
    CHECK_STATUS(set_v8(r, CUDNN_RNN_ALGO_PERSIST_STATIC, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 3, 1, 0),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(set_v8(r, CUDNN_RNN_ALGO_PERSIST_STATIC, CUDNN_LSTM, CUDNN_RNN_NO_BIAS, 0, 0, F, F, 4, 4, 4, 1, 0),
                 CUDNN_STATUS_NOT_SUPPORTED);
    /* failures left the descriptor as it was */
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, NULL, &cell, NULL, NULL, NULL, NULL, NULL, NULL, &is, &hs, &ps, NULL, NULL, NULL));
    CHECK_EQ_INT(cell, CUDNN_LSTM); CHECK_EQ_INT(is, 7); CHECK_EQ_INT(hs, 12); CHECK_EQ_INT(ps, 5);
    /* SKIP_INPUT with inputSize != hiddenSize: accepted by the setter (as cuDNN), refused when used */
    CHECK_OK(set_v8(r, A, CUDNN_RNN_TANH, CUDNN_RNN_DOUBLE_BIAS, 0, CUDNN_SKIP_INPUT, F, F, 3, 4, 4, 1, 0));
    size_t wsz = 77;
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(h, r, &wsz), CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT(wsz, 77);
    /* other valid combinations */
    CHECK_OK(set_v8(r, CUDNN_RNN_ALGO_PERSIST_DYNAMIC, CUDNN_GRU, CUDNN_RNN_DOUBLE_BIAS, 0, CUDNN_SKIP_INPUT,
                    CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, 6, 6, 6, 2, 0));
    CHECK_OK(set_v8(r, A, CUDNN_RNN_RELU, CUDNN_RNN_NO_BIAS, 0, 0, CUDNN_DATA_HALF, CUDNN_DATA_HALF, 1, 1, 1, 1, 0));
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, &algo, &cell, &bias, &dir, &in, &dt, &mp, &mt, &is, &hs, &ps, &nl, &dd, &aux));
    CHECK_EQ_INT(cell, CUDNN_RNN_RELU); CHECK_EQ_INT(bias, CUDNN_RNN_NO_BIAS); CHECK_EQ_INT(dt, CUDNN_DATA_HALF);
    CHECK_EQ_INT(mp, CUDNN_DATA_HALF); CHECK_EQ_INT(aux, 0); CHECK_EQ_INT(ps, 1);
    /* destroyed descriptor */
    CHECK_OK(cudnnDestroyRNNDescriptor(r));
    CHECK_STATUS(set_v8(r, A, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, F, F, 4, 4, 4, 1, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDescriptor_v8(r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                          NULL), CUDNN_STATUS_BAD_PARAM);
}

static void test_v6(void)
{
    SECTION("v6 set/get");
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    int hs = -1;
    CHECK_STATUS(cudnnGetRNNDescriptor_v6(h, r, &hs, NULL, NULL, NULL, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT(hs, -1);
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, r, 16, 2, NULL, CUDNN_SKIP_INPUT, CUDNN_BIDIRECTIONAL, CUDNN_GRU,
                                      CUDNN_RNN_ALGO_PERSIST_STATIC, CUDNN_DATA_DOUBLE));
    int nl; cudnnDropoutDescriptor_t dd; cudnnRNNInputMode_t in; cudnnDirectionMode_t dir; cudnnRNNMode_t cell;
    cudnnRNNAlgo_t algo; cudnnDataType_t mp;
    CHECK_OK(cudnnGetRNNDescriptor_v6(h, r, &hs, &nl, &dd, &in, &dir, &cell, &algo, &mp));
    CHECK_EQ_INT(hs, 16); CHECK_EQ_INT(nl, 2); CHECK(dd == NULL); CHECK_EQ_INT(in, CUDNN_SKIP_INPUT);
    CHECK_EQ_INT(dir, CUDNN_BIDIRECTIONAL); CHECK_EQ_INT(cell, CUDNN_GRU); CHECK_EQ_INT(algo, CUDNN_RNN_ALGO_PERSIST_STATIC);
    CHECK_EQ_INT(mp, CUDNN_DATA_DOUBLE);
    /* read back through v8 */
    cudnnRNNBiasMode_t bias; cudnnDataType_t dt; cudnnMathType_t mt; int32_t is, ps, hs8, nl8; uint32_t aux;
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, &algo, &cell, &bias, &dir, &in, &dt, &mp, &mt, &is, &hs8, &ps, &nl8, &dd, &aux));
    CHECK_EQ_INT(bias, CUDNN_RNN_DOUBLE_BIAS); CHECK_EQ_INT(dt, CUDNN_DATA_DOUBLE); CHECK_EQ_INT(mp, CUDNN_DATA_DOUBLE);
    CHECK_EQ_INT(mt, CUDNN_DEFAULT_MATH); CHECK_EQ_INT(is, 0); CHECK_EQ_INT(hs8, 16); CHECK_EQ_INT(ps, 16);
    CHECK_EQ_INT(nl8, 2); CHECK_EQ_INT(aux, 0); CHECK_EQ_INT(algo, CUDNN_RNN_ALGO_PERSIST_STATIC);

    SECTION("v6 invalid");
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(NULL, r, 16, 2, NULL, 0, 0, CUDNN_LSTM, 0, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, NULL, 16, 2, NULL, 0, 0, CUDNN_LSTM, 0, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, r, 0, 2, NULL, 0, 0, CUDNN_LSTM, 0, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, r, 16, -2, NULL, 0, 0, CUDNN_LSTM, 0, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, r, 16, 2, NULL, (cudnnRNNInputMode_t)99, 0, CUDNN_LSTM, 0, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, r, 16, 2, NULL, 0, (cudnnDirectionMode_t)99, CUDNN_LSTM, 0, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, r, 16, 2, NULL, 0, 0, (cudnnRNNMode_t)99, 0, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, r, 16, 2, NULL, 0, 0, CUDNN_LSTM, (cudnnRNNAlgo_t)99, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, r, 16, 2, NULL, 0, 0, CUDNN_LSTM, 0, (cudnnDataType_t)99), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, r, 16, 2, NULL, 0, 0, CUDNN_LSTM, 0, CUDNN_DATA_INT8), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetRNNDescriptor_v6(h, r, 16, 2, (cudnnDropoutDescriptor_t)(void *)r, 0, 0, CUDNN_LSTM, 0,
                                          CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDescriptor_v6(NULL, r, &hs, &nl, &dd, &in, &dir, &cell, &algo, &mp), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetRNNDescriptor_v6(h, r, &hs, &nl, &dd, &in, &dir, &cell, &algo, &mp));
    CHECK_EQ_INT(hs, 16); CHECK_EQ_INT(cell, CUDNN_GRU);
    /* a v8 set after v6 replaces everything, and v6 after v8 resets v8-only fields */
    CHECK_OK(cudnnSetRNNDescriptor_v8(r, 0, CUDNN_LSTM, CUDNN_RNN_NO_BIAS, 0, 0, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                      CUDNN_FMA_MATH, 3, 8, 4, 1, NULL, CUDNN_RNN_PADDED_IO_ENABLED));
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, r, 8, 1, NULL, 0, 0, CUDNN_LSTM, 0, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, NULL, NULL, &bias, NULL, NULL, NULL, NULL, &mt, &is, NULL, &ps, NULL, NULL, &aux));
    CHECK_EQ_INT(bias, CUDNN_RNN_DOUBLE_BIAS); CHECK_EQ_INT(mt, CUDNN_DEFAULT_MATH); CHECK_EQ_INT(is, 0);
    CHECK_EQ_INT(ps, 8); CHECK_EQ_INT(aux, 0);
    CHECK_OK(cudnnDestroyRNNDescriptor(r));
}

static void test_legacy_fields(void)
{
    SECTION("math type / bias mode / padding");
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    cudnnMathType_t mt;
    CHECK_OK(cudnnGetRNNMatrixMathType(r, &mt));
    CHECK_EQ_INT(mt, CUDNN_DEFAULT_MATH);
    for (int m = 0; m <= 3; m++) {
        CHECK_OK(cudnnSetRNNMatrixMathType(r, (cudnnMathType_t)m));
        CHECK_OK(cudnnGetRNNMatrixMathType(r, &mt));
        CHECK_EQ_INT(mt, m);
    }
    CHECK_STATUS(cudnnSetRNNMatrixMathType(r, (cudnnMathType_t)99), CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT(mt, 3);
    CHECK_STATUS(cudnnSetRNNMatrixMathType(NULL, CUDNN_DEFAULT_MATH), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNMatrixMathType(r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNMatrixMathType(NULL, &mt), CUDNN_STATUS_BAD_PARAM);

    cudnnRNNBiasMode_t bm;
    CHECK_OK(cudnnGetRNNBiasMode(r, &bm));
    CHECK_EQ_INT(bm, CUDNN_RNN_DOUBLE_BIAS);
    for (int b = 0; b <= 3; b++) {
        CHECK_OK(cudnnSetRNNBiasMode(r, (cudnnRNNBiasMode_t)b));
        CHECK_OK(cudnnGetRNNBiasMode(r, &bm));
        CHECK_EQ_INT(bm, b);
    }
    CHECK_STATUS(cudnnSetRNNBiasMode(r, (cudnnRNNBiasMode_t)99), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNBiasMode(r, (cudnnRNNBiasMode_t)-1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNBiasMode(r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNBiasMode(NULL, CUDNN_RNN_NO_BIAS), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetRNNBiasMode(r, &bm));
    CHECK_EQ_INT(bm, CUDNN_RNN_SINGLE_REC_BIAS);
    /* non-default bias mode with a persistent algorithm */
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, r, 8, 1, NULL, 0, 0, CUDNN_LSTM, CUDNN_RNN_ALGO_PERSIST_STATIC, CUDNN_DATA_FLOAT));
    CHECK_STATUS(cudnnSetRNNBiasMode(r, CUDNN_RNN_NO_BIAS), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnSetRNNBiasMode(r, CUDNN_RNN_DOUBLE_BIAS));

    unsigned pm = 7;
    CHECK_OK(cudnnGetRNNPaddingMode(r, &pm));
    CHECK_EQ_INT(pm, CUDNN_RNN_PADDED_IO_DISABLED);
    CHECK_OK(cudnnSetRNNPaddingMode(r, CUDNN_RNN_PADDED_IO_ENABLED));
    CHECK_OK(cudnnGetRNNPaddingMode(r, &pm));
    CHECK_EQ_INT(pm, CUDNN_RNN_PADDED_IO_ENABLED);
    uint32_t aux = 0;
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &aux));
    CHECK_EQ_INT(aux, CUDNN_RNN_PADDED_IO_ENABLED);
    CHECK_STATUS(cudnnSetRNNPaddingMode(r, 2), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNPaddingMode(r, 99), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetRNNPaddingMode(r, &pm));
    CHECK_EQ_INT(pm, CUDNN_RNN_PADDED_IO_ENABLED);
    CHECK_OK(cudnnSetRNNPaddingMode(r, CUDNN_RNN_PADDED_IO_DISABLED));
    CHECK_OK(cudnnGetRNNPaddingMode(r, &pm));
    CHECK_EQ_INT(pm, 0);
    CHECK_STATUS(cudnnGetRNNPaddingMode(r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNPaddingMode(NULL, 0), CUDNN_STATUS_BAD_PARAM);

    SECTION("clip");
    cudnnRNNClipMode_t cm; cudnnNanPropagation_t np; double lc, rc;
    CHECK_OK(cudnnRNNGetClip_v8(r, &cm, &np, &lc, &rc));
    CHECK_EQ_INT(cm, CUDNN_RNN_CLIP_NONE);
    CHECK_OK(cudnnRNNSetClip_v8(r, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, -1.5, 2.25));
    CHECK_OK(cudnnRNNGetClip_v8(r, &cm, &np, &lc, &rc));
    CHECK_EQ_INT(cm, CUDNN_RNN_CLIP_MINMAX); CHECK_EQ_INT(np, CUDNN_PROPAGATE_NAN);
    CHECK(lc == -1.5 && rc == 2.25);
    CHECK_OK(cudnnRNNGetClip(h, r, &cm, &np, &lc, &rc));
    CHECK(lc == -1.5 && rc == 2.25 && cm == CUDNN_RNN_CLIP_MINMAX);
    CHECK_OK(cudnnRNNSetClip(h, r, CUDNN_RNN_CLIP_MINMAX, CUDNN_NOT_PROPAGATE_NAN, 0.5, 0.5));
    CHECK_OK(cudnnRNNGetClip_v8(r, &cm, &np, &lc, &rc));
    CHECK(lc == 0.5 && rc == 0.5 && np == CUDNN_NOT_PROPAGATE_NAN);
    CHECK_STATUS(cudnnRNNSetClip_v8(r, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, 2.0, 1.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip_v8(r, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, NAN, 1.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip_v8(r, (cudnnRNNClipMode_t)99, CUDNN_PROPAGATE_NAN, 0, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip_v8(r, CUDNN_RNN_CLIP_MINMAX, (cudnnNanPropagation_t)99, 0, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip_v8(NULL, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, 0, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip(NULL, r, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, 0, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNGetClip(NULL, r, &cm, &np, &lc, &rc), CUDNN_STATUS_BAD_PARAM);
    /* cuDNN 8.5: NULL outputs are skipped by the _v8 getter, refused by the legacy one */
    CHECK_OK(cudnnRNNGetClip_v8(r, NULL, &np, &lc, &rc));
    CHECK_OK(cudnnRNNGetClip_v8(r, &cm, &np, &lc, NULL));
    CHECK_STATUS(cudnnRNNGetClip(h, r, &cm, &np, NULL, &rc), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnRNNGetClip_v8(r, &cm, &np, &lc, &rc));
    CHECK(lc == 0.5 && rc == 0.5);
    /* bounds are checked even when clipping is off, as cuDNN does */
    CHECK_STATUS(cudnnRNNSetClip_v8(r, CUDNN_RNN_CLIP_NONE, CUDNN_PROPAGATE_NAN, 3.0, -3.0), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnRNNSetClip_v8(r, CUDNN_RNN_CLIP_NONE, CUDNN_PROPAGATE_NAN, -3.0, 3.0));
    CHECK_OK(cudnnRNNGetClip_v8(r, &cm, &np, &lc, &rc));
    CHECK(cm == CUDNN_RNN_CLIP_NONE && lc == -3.0 && rc == 3.0);

    SECTION("projection");
    int rp, op;
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, r, 8, 1, NULL, 0, 0, CUDNN_LSTM, 0, CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnGetRNNProjectionLayers(h, r, &rp, &op));
    CHECK_EQ_INT(rp, 8); CHECK_EQ_INT(op, 0);
    CHECK_OK(cudnnSetRNNProjectionLayers(h, r, 5, 0));
    CHECK_OK(cudnnGetRNNProjectionLayers(h, r, &rp, &op));
    CHECK_EQ_INT(rp, 5);
    int32_t ps = 0;
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &ps, NULL, NULL, NULL));
    CHECK_EQ_INT(ps, 5);
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, r, 9, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, r, 0, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, r, 4, -1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, r, 4, 3), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetRNNProjectionLayers(NULL, r, 4, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNProjectionLayers(h, r, NULL, &op), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetRNNProjectionLayers(h, r, &rp, &op));
    CHECK_EQ_INT(rp, 5);
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, r, 8, 1, NULL, 0, 0, CUDNN_GRU, 0, CUDNN_DATA_FLOAT));
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, r, 4, 0), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnSetRNNProjectionLayers(h, r, 8, 0));
    cudnnRNNDescriptor_t fresh;
    CHECK_OK(cudnnCreateRNNDescriptor(&fresh));
    CHECK_STATUS(cudnnSetRNNProjectionLayers(h, fresh, 4, 0), CUDNN_STATUS_BAD_PARAM);

    SECTION("algorithm descriptor");
    CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(h, r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(h, r, (cudnnAlgorithmDescriptor_t)(void *)fresh), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(NULL, r, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnAlgorithmDescriptor_t ad = NULL;
    if (cudnnCreateAlgorithmDescriptor(&ad) == CUDNN_STATUS_SUCCESS) {
        CHECK_STATUS(cudnnSetRNNAlgorithmDescriptor(h, r, ad), CUDNN_STATUS_NOT_SUPPORTED);
        cudnnDestroyAlgorithmDescriptor(ad);
    }
    CHECK_OK(cudnnDestroyRNNDescriptor(fresh));
    CHECK_OK(cudnnDestroyRNNDescriptor(r));
    /* destroyed descriptor everywhere */
    CHECK_STATUS(cudnnSetRNNMatrixMathType(r, CUDNN_DEFAULT_MATH), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNBiasMode(r, CUDNN_RNN_NO_BIAS), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRNNSetClip_v8(r, CUDNN_RNN_CLIP_NONE, CUDNN_PROPAGATE_NAN, 0, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNPaddingMode(r, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNProjectionLayers(h, r, &rp, &op), CUDNN_STATUS_BAD_PARAM);
}

static void test_persistent(void)
{
    SECTION("persistent plans");
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    cudnnPersistentRNNPlan_t p = NULL;
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(r, 4, CUDNN_DATA_FLOAT, &p), CUDNN_STATUS_BAD_PARAM); /* unset */
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, r, 8, 1, NULL, 0, 0, CUDNN_LSTM, CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_FLOAT));
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(r, 4, CUDNN_DATA_FLOAT, &p), CUDNN_STATUS_BAD_PARAM); /* wrong algo */
    CHECK_STATUS(cudnnBuildRNNDynamic(h, r, 4), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, r, 8, 1, NULL, 0, 0, CUDNN_LSTM, CUDNN_RNN_ALGO_PERSIST_DYNAMIC, CUDNN_DATA_FLOAT));
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(r, 0, CUDNN_DATA_FLOAT, &p), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(r, 4, (cudnnDataType_t)99, &p), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(r, 4, CUDNN_DATA_FLOAT, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreatePersistentRNNPlan(NULL, 4, CUDNN_DATA_FLOAT, &p), CUDNN_STATUS_BAD_PARAM);
    CHECK(p == NULL);
    CHECK_OK(cudnnCreatePersistentRNNPlan(r, 4, CUDNN_DATA_FLOAT, &p));
    CHECK(p != NULL);
    CHECK_OK(cudnnSetPersistentRNNPlan(r, p));
    CHECK_STATUS(cudnnSetPersistentRNNPlan(r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetPersistentRNNPlan(NULL, p), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetPersistentRNNPlan(r, (cudnnPersistentRNNPlan_t)(void *)r), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnBuildRNNDynamic(h, r, 4));
    CHECK_STATUS(cudnnBuildRNNDynamic(h, r, 0), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnBuildRNNDynamic(NULL, r, 4), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, r, 8, 1, NULL, 0, 0, CUDNN_LSTM, CUDNN_RNN_ALGO_STANDARD, CUDNN_DATA_FLOAT));
    CHECK_STATUS(cudnnSetPersistentRNNPlan(r, p), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyPersistentRNNPlan(p));
    CHECK_STATUS(cudnnDestroyPersistentRNNPlan(p), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyPersistentRNNPlan(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyRNNDescriptor(r));
}

static void test_rnn_data(void)
{
    SECTION("rnn data set/get");
    cudnnRNNDataDescriptor_t d;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&d));
    cudnnDataType_t dt = (cudnnDataType_t)55; cudnnRNNDataLayout_t lay; int T, B, V, lens[8];
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT(dt, 55);
    const int sl[4] = { 5, 3, 3, 0 };
    float fill = -2.5f;
    CHECK_OK(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 5, 4, 7, sl, &fill));
    float fo = 0;
    for (int i = 0; i < 8; i++) lens[i] = -9;
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, 8, lens, &fo));
    CHECK_EQ_INT(dt, CUDNN_DATA_FLOAT); CHECK_EQ_INT(lay, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED);
    CHECK_EQ_INT(T, 5); CHECK_EQ_INT(B, 4); CHECK_EQ_INT(V, 7);
    CHECK(lens[0] == 5 && lens[1] == 3 && lens[2] == 3 && lens[3] == 0 && lens[4] == -9);
    CHECK(fo == -2.5f);
    for (int i = 0; i < 8; i++) lens[i] = -9;
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, 2, lens, &fo));
    CHECK(lens[0] == 5 && lens[1] == 3 && lens[2] == -9);
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, 0, NULL, &fo));
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    double dfill = 1e300, dfo = 0;
    const int sl2[3] = { 1, 4, 2 };
    CHECK_OK(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_DOUBLE, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, 4, 3, 2, sl2, &dfill));
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, 3, lens, &dfo));
    CHECK(dt == CUDNN_DATA_DOUBLE && lay == CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED && T == 4 && B == 3 && V == 2);
    CHECK(lens[0] == 1 && lens[1] == 4 && lens[2] == 2 && dfo == 1e300);
    CHECK_OK(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_HALF, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, 4, 3, 2, sl2, NULL));
    fo = 9.0f;
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, 3, lens, &fo));
    CHECK(dt == CUDNN_DATA_HALF && fo == 9.0f);   /* no fill given: paddingFill left alone */

    SECTION("rnn data invalid");
    CHECK_STATUS(cudnnSetRNNDataDescriptor(NULL, CUDNN_DATA_FLOAT, 0, 4, 3, 2, sl2, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, (cudnnDataType_t)99, 0, 4, 3, 2, sl2, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_INT8, 0, 4, 3, 2, sl2, NULL), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, (cudnnRNNDataLayout_t)99, 4, 3, 2, sl2, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 0, 3, 2, sl2, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 4, -3, 2, sl2, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 4, 3, 0, sl2, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 4, 3, 2, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 3, 3, 2, sl2, NULL), CUDNN_STATUS_BAD_PARAM); /* 4 > 3 */
    const int neg[2] = { 1, -1 };
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 3, 2, 2, neg, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 4, 3, 2, sl2, NULL),
                 CUDNN_STATUS_BAD_PARAM); /* not sorted */
    CHECK_OK(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, 3, lens, &fo));
    CHECK(dt == CUDNN_DATA_HALF && lay == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED && T == 4);
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, NULL, &lay, &T, &B, &V, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, NULL, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, -1, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, 2, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDataDescriptor(NULL, &dt, &lay, &T, &B, &V, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    CHECK_STATUS(cudnnSetRNNDataDescriptor((cudnnRNNDataDescriptor_t)(void *)r, CUDNN_DATA_FLOAT, 0, 4, 3, 2, sl2, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyRNNDescriptor(r));
    CHECK_OK(cudnnDestroyRNNDataDescriptor(d));
    CHECK_STATUS(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, 0, 4, 3, 2, sl2, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNDataDescriptor(d, &dt, &lay, &T, &B, &V, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
}

int main(void)
{
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS) {
        fprintf(stderr, "cudnnCreate failed\n");
        return 1;
    }
    test_create_destroy();
    test_v8();
    test_v6();
    test_legacy_fields();
    test_persistent();
    test_rnn_data();
    cudnnDestroy(h);
    return hd_test_finish();
}
