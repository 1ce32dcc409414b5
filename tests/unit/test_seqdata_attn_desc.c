/* Sequence-data and attention descriptors: valid, invalid and round trips. */
#include <cudnn.h>
#include "harness.h"

static void test_seqdata(void)
{
    SECTION("seqdata set/get");
    cudnnSeqDataDescriptor_t s = NULL;
    CHECK_STATUS(cudnnCreateSeqDataDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateSeqDataDescriptor(&s));
    cudnnDataType_t dt = (cudnnDataType_t)55; int nb = -1; size_t nl = 99;
    CHECK_STATUS(cudnnGetSeqDataDescriptor(s, &dt, &nb, 0, NULL, NULL, &nl, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK(dt == 55 && nb == -1 && nl == 99);

    int dims[4];
    dims[CUDNN_SEQDATA_TIME_DIM] = 5; dims[CUDNN_SEQDATA_BATCH_DIM] = 3;
    dims[CUDNN_SEQDATA_BEAM_DIM] = 2; dims[CUDNN_SEQDATA_VECT_DIM] = 8;
    cudnnSeqDataAxis_t axes[4] = { CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_TIME_DIM,
                                   CUDNN_SEQDATA_VECT_DIM };
    int lens[6] = { 5, 4, 3, 2, 1, 1 };
    float fill = 3.5f;
    CHECK_OK(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, dims, axes, 6, lens, &fill));
    int od[6] = { -1, -1, -1, -1, -1, -1 }; cudnnSeqDataAxis_t oa[6]; int ol[8]; float of = 0;
    for (int i = 0; i < 8; i++) ol[i] = -7;
    CHECK_OK(cudnnGetSeqDataDescriptor(s, &dt, &nb, 6, od, oa, &nl, 8, ol, &of));
    CHECK_EQ_INT(dt, CUDNN_DATA_FLOAT); CHECK_EQ_INT(nb, 4); CHECK_EQ_INT(nl, 6);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(od[i], dims[i]);
        CHECK_EQ_INT(oa[i], axes[i]);
    }
    CHECK_EQ_INT(od[4], -1);
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(ol[i], lens[i]);
    CHECK_EQ_INT(ol[6], -7);
    CHECK(of == 3.5f);
    /* partial requests */
    for (int i = 0; i < 6; i++) od[i] = -1;
    for (int i = 0; i < 8; i++) ol[i] = -7;
    CHECK_OK(cudnnGetSeqDataDescriptor(s, &dt, &nb, 2, od, oa, &nl, 3, ol, NULL));
    CHECK(od[0] == 5 && od[1] == 3 && od[2] == -1 && nb == 4);
    CHECK(ol[0] == 5 && ol[2] == 3 && ol[3] == -7 && nl == 6);
    CHECK_OK(cudnnGetSeqDataDescriptor(s, &dt, &nb, 0, NULL, NULL, &nl, 0, NULL, NULL));
    /* double data and fill */
    double dfill = -1e200, dof = 0;
    CHECK_OK(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_DOUBLE, 4, dims, axes, 6, lens, &dfill));
    CHECK_OK(cudnnGetSeqDataDescriptor(s, &dt, &nb, 4, od, oa, &nl, 6, ol, &dof));
    CHECK(dt == CUDNN_DATA_DOUBLE && dof == -1e200);

    SECTION("seqdata invalid");
    CHECK_STATUS(cudnnSetSeqDataDescriptor(NULL, CUDNN_DATA_FLOAT, 4, dims, axes, 6, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, (cudnnDataType_t)99, 4, dims, axes, 6, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_INT8, 4, dims, axes, 6, lens, NULL), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 3, dims, axes, 6, lens, NULL), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 5, dims, axes, 6, lens, NULL), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, NULL, axes, 6, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, dims, NULL, 6, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, dims, axes, 6, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, dims, axes, 5, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    int bad_dims[4] = { 5, 3, 0, 8 };
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, bad_dims, axes, 0, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    bad_dims[2] = -2;
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, bad_dims, axes, 6, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnSeqDataAxis_t dup[4] = { CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_VECT_DIM };
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, dims, dup, 6, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnSeqDataAxis_t oor[4] = { CUDNN_SEQDATA_BATCH_DIM, (cudnnSeqDataAxis_t)99, CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_VECT_DIM };
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, dims, oor, 6, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnSeqDataAxis_t vfirst[4] = { CUDNN_SEQDATA_VECT_DIM, CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_TIME_DIM };
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, dims, vfirst, 6, lens, NULL), CUDNN_STATUS_BAD_PARAM);
    int long_lens[6] = { 6, 1, 1, 1, 1, 1 };
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, dims, axes, 6, long_lens, NULL), CUDNN_STATUS_BAD_PARAM);
    long_lens[0] = 0;   /* sequences hold at least one step */
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, dims, axes, 6, long_lens, NULL), CUDNN_STATUS_BAD_PARAM);
    long_lens[0] = -1;
    CHECK_STATUS(cudnnSetSeqDataDescriptor(s, CUDNN_DATA_FLOAT, 4, dims, axes, 6, long_lens, NULL), CUDNN_STATUS_BAD_PARAM);
    /* still the double descriptor */
    CHECK_OK(cudnnGetSeqDataDescriptor(s, &dt, &nb, 0, NULL, NULL, &nl, 0, NULL, NULL));
    CHECK(dt == CUDNN_DATA_DOUBLE && nl == 6);
    /* every output is optional, as in cuDNN 8.5 (test_adv_getters checks each one) */
    CHECK_OK(cudnnGetSeqDataDescriptor(s, NULL, &nb, 0, NULL, NULL, &nl, 0, NULL, NULL));
    CHECK_OK(cudnnGetSeqDataDescriptor(s, &dt, NULL, 0, NULL, NULL, &nl, 0, NULL, NULL));
    CHECK_OK(cudnnGetSeqDataDescriptor(s, &dt, &nb, 0, NULL, NULL, NULL, 0, NULL, NULL));
    CHECK_STATUS(cudnnGetSeqDataDescriptor(s, &dt, &nb, -1, od, oa, &nl, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetSeqDataDescriptor(s, &dt, &nb, 4, NULL, oa, &nl, 0, NULL, NULL));
    CHECK_OK(cudnnGetSeqDataDescriptor(s, &dt, &nb, 0, NULL, NULL, &nl, 2, NULL, NULL));
    CHECK_STATUS(cudnnGetSeqDataDescriptor(NULL, &dt, &nb, 0, NULL, NULL, &nl, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnAttnDescriptor_t a;
    CHECK_OK(cudnnCreateAttnDescriptor(&a));
    CHECK_STATUS(cudnnSetSeqDataDescriptor((cudnnSeqDataDescriptor_t)(void *)a, CUDNN_DATA_FLOAT, 4, dims, axes, 6, lens,
                                           NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroySeqDataDescriptor((cudnnSeqDataDescriptor_t)(void *)a), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyAttnDescriptor(a));
    CHECK_OK(cudnnDestroySeqDataDescriptor(s));
    CHECK_STATUS(cudnnDestroySeqDataDescriptor(s), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroySeqDataDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetSeqDataDescriptor(s, &dt, &nb, 0, NULL, NULL, &nl, 0, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
}

static cudnnStatus_t set_attn(cudnnAttnDescriptor_t a, unsigned mode, int heads, double sm, cudnnDataType_t dt,
                              cudnnDataType_t cp, int q, int k, int v, int qp, int kp, int vp, int op, int qo, int kv,
                              int batch, int beam)
{
    return cudnnSetAttnDescriptor(a, mode, heads, sm, dt, cp, CUDNN_DEFAULT_MATH, NULL, NULL, q, k, v, qp, kp, vp, op,
                                  qo, kv, batch, beam);
}

static void test_attn(void)
{
    SECTION("attn set/get");
    cudnnAttnDescriptor_t a = NULL;
    CHECK_STATUS(cudnnCreateAttnDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateAttnDescriptor(&a));
    unsigned mode = 77;
    CHECK_STATUS(cudnnGetAttnDescriptor(a, &mode, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                        NULL, NULL, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT(mode, 77);
    const cudnnDataType_t F = CUDNN_DATA_FLOAT;
    CHECK_OK(cudnnSetAttnDescriptor(a, CUDNN_ATTN_QUERYMAP_ONE_TO_ONE | CUDNN_ATTN_ENABLE_PROJ_BIASES, 4, 0.125,
                                    CUDNN_DATA_HALF, F, CUDNN_TENSOR_OP_MATH, NULL, NULL, 16, 12, 10, 8, 8, 6, 20,
                                    7, 9, 3, 2));
    int nh, q, k, v, qp, kp, vp, op, qo, kv, mb, mbe; double sm; cudnnDataType_t dt, cp; cudnnMathType_t mt;
    cudnnDropoutDescriptor_t d1 = (cudnnDropoutDescriptor_t)1, d2 = (cudnnDropoutDescriptor_t)1;
    CHECK_OK(cudnnGetAttnDescriptor(a, &mode, &nh, &sm, &dt, &cp, &mt, &d1, &d2, &q, &k, &v, &qp, &kp, &vp, &op, &qo,
                                    &kv, &mb, &mbe));
    CHECK_EQ_INT(mode, CUDNN_ATTN_QUERYMAP_ONE_TO_ONE | CUDNN_ATTN_ENABLE_PROJ_BIASES);
    CHECK_EQ_INT(nh, 4); CHECK(sm == 0.125); CHECK_EQ_INT(dt, CUDNN_DATA_HALF); CHECK_EQ_INT(cp, F);
    CHECK_EQ_INT(mt, CUDNN_TENSOR_OP_MATH); CHECK(d1 == NULL && d2 == NULL);
    CHECK(q == 16 && k == 12 && v == 10 && qp == 8 && kp == 8 && vp == 6 && op == 20);
    CHECK(qo == 7 && kv == 9 && mb == 3 && mbe == 2);
    CHECK_OK(cudnnGetAttnDescriptor(a, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                    NULL, NULL, NULL, NULL, NULL, NULL));
    /* no projections: qSize must equal kSize */
    CHECK_OK(set_attn(a, 0, 1, 1.0, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, 4, 4, 3, 0, 0, 0, 0, 1, 1, 1, 1));
    CHECK_OK(cudnnGetAttnDescriptor(a, &mode, &nh, &sm, &dt, &cp, &mt, &d1, &d2, &q, &k, &v, &qp, &kp, &vp, &op, &qo,
                                    &kv, &mb, &mbe));
    CHECK(mode == 0 && nh == 1 && sm == 1.0 && dt == CUDNN_DATA_DOUBLE && qp == 0 && op == 0 && mt == CUDNN_DEFAULT_MATH);

    SECTION("attn invalid");
    CHECK_STATUS(set_attn(NULL, 0, 1, 1.0, F, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 4, 1, 1.0, F, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 0, 1.0, F, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, -2, 1.0, F, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, -1.0, F, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(set_attn(a, 0, 1, NAN, F, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1));   /* accepted, as by cuDNN */
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, (cudnnDataType_t)99, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, CUDNN_DATA_INT8, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, CUDNN_DATA_DOUBLE, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, (cudnnDataType_t)99, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetAttnDescriptor(a, 0, 1, 1.0, F, F, (cudnnMathType_t)99, NULL, NULL, 4, 4, 4, 0, 0, 0, 0, 1, 1,
                                        1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetAttnDescriptor(a, 0, 1, 1.0, F, F, 0, (cudnnDropoutDescriptor_t)(void *)a, NULL, 4, 4, 4, 0, 0,
                                        0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetAttnDescriptor(a, 0, 1, 1.0, F, F, 0, NULL, (cudnnDropoutDescriptor_t)(void *)a, 4, 4, 4, 0, 0,
                                        0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 0, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, -4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, 4, 0, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, 5, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, 4, 4, 2, 3, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, 4, 4, 0, 0, -1, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, 4, 4, 0, 0, 0, -1, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, 4, 4, 0, 0, 0, 0, 0, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, 4, 4, 0, 0, 0, 0, 1, 0, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, -1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 0), CUDNN_STATUS_BAD_PARAM);
    /* projections allow qSize != kSize */
    CHECK_OK(set_attn(a, 0, 2, 0.5, F, F, 4, 5, 6, 3, 3, 2, 7, 2, 3, 4, 1));
    /* HALF with HALF compute */
    CHECK_OK(set_attn(a, 0, 2, 0.5, CUDNN_DATA_HALF, CUDNN_DATA_HALF, 4, 5, 6, 3, 3, 2, 7, 2, 3, 4, 1));
    /* failures above left the last good values */
    CHECK_OK(cudnnGetAttnDescriptor(a, NULL, &nh, &sm, &dt, &cp, NULL, NULL, NULL, &q, &k, NULL, NULL, NULL, NULL, &op,
                                    NULL, NULL, NULL, NULL));
    CHECK(nh == 2 && sm == 0.5 && dt == CUDNN_DATA_HALF && cp == CUDNN_DATA_HALF && q == 4 && k == 5 && op == 7);
    CHECK_OK(cudnnDestroyAttnDescriptor(a));
    CHECK_STATUS(cudnnDestroyAttnDescriptor(a), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyAttnDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(set_attn(a, 0, 1, 1.0, F, F, 4, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetAttnDescriptor(a, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                        NULL, NULL, NULL, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
}

int main(void)
{
    test_seqdata();
    test_attn();
    return hd_test_finish();
}
