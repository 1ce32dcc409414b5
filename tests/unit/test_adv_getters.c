/*
 * NULL outputs of every adv getter and size query, one at a time, against the rules NVIDIA's
 * cuDNN 8.5 follows (probed with the oracle of /work/shared/oracle/cudnn8.sh; docs/rnn.md,
 * "NULL outputs"):
 *   - where cuDNN skips a NULL output, ours answers SUCCESS and every other output still gets
 *     the value a call with all outputs gives;
 *   - where cuDNN refuses it, ours answers BAD_PARAM and writes no output at all.
 * Also the exact cudnnGetSeqDataDescriptor call of NVIDIA's multiHeadAttention sample.
 */
#include <cudnn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "harness.h"

static cudnnHandle_t h;

/* P(i, p): the i-th output, or NULL when it is the one left out (k). */
#define P(i, p) ((k) == (i) ? NULL : (p))
#define SENT 0x5a   /* byte every output starts as, to see which were written */

/* Outputs of a getter live in one struct: a call with all outputs fills REF; a call with
 * output K left out must fill OUT like REF except the bytes of that output, which keep SENT. */
static int same_but(const void *ref, const void *out, size_t n, size_t skip_off, size_t skip_len)
{
    const unsigned char *a = ref, *b = out;
    for (size_t i = 0; i < n; i++) {
        int skipped = i >= skip_off && i < skip_off + skip_len;
        if (skipped ? b[i] != SENT : a[i] != b[i])
            return 0;
    }
    return 1;
}

static int untouched(const void *out, size_t n)
{
    const unsigned char *b = out;
    for (size_t i = 0; i < n; i++)
        if (b[i] != SENT)
            return 0;
    return 1;
}

#define OPT_CASE(what, k, s, ref, call) do { memset(&(s), SENT, sizeof(s)); \
    CHECK_MSG((call) == CUDNN_STATUS_SUCCESS, "%s: NULL output %d refused", what, k); \
    CHECK_MSG(same_but(&(ref), &(s), sizeof(s), offs[k], lens[k]), "%s: NULL output %d changed the others", what, k); \
    } while (0)
#define REQ_CASE(what, k, s, call) do { memset(&(s), SENT, sizeof(s)); \
    CHECK_MSG((call) == CUDNN_STATUS_BAD_PARAM, "%s: NULL output %d accepted", what, k); \
    CHECK_MSG(untouched(&(s), sizeof(s)), "%s: refused call with NULL output %d wrote an output", what, k); \
    } while (0)

struct rnn8 { cudnnRNNAlgo_t a; cudnnRNNMode_t c; cudnnRNNBiasMode_t b; cudnnDirectionMode_t d; cudnnRNNInputMode_t im;
              cudnnDataType_t dt, mp; cudnnMathType_t mt; int32_t is, hs, ps, nl; cudnnDropoutDescriptor_t dd; uint32_t af; };
struct rnn6 { int hs, nl; cudnnDropoutDescriptor_t dd; cudnnRNNInputMode_t im; cudnnDirectionMode_t d; cudnnRNNMode_t c;
              cudnnRNNAlgo_t a; cudnnDataType_t mp; };
struct clip { cudnnRNNClipMode_t cm; cudnnNanPropagation_t np; double l, r; };

static void test_rnn_desc(cudnnRNNDescriptor_t r, cudnnDropoutDescriptor_t drop)
{
    SECTION("cudnnGetRNNDescriptor_v8: every output optional");
    struct rnn8 ref, s;
    memset(&ref, SENT, sizeof ref);
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, &ref.a, &ref.c, &ref.b, &ref.d, &ref.im, &ref.dt, &ref.mp, &ref.mt, &ref.is,
                                      &ref.hs, &ref.ps, &ref.nl, &ref.dd, &ref.af));
    CHECK(ref.c == CUDNN_LSTM && ref.hs == 8 && ref.ps == 6 && ref.nl == 2 && ref.is == 4 && ref.dd == drop);
    {
        size_t offs[] = { offsetof(struct rnn8, a), offsetof(struct rnn8, c), offsetof(struct rnn8, b),
                          offsetof(struct rnn8, d), offsetof(struct rnn8, im), offsetof(struct rnn8, dt),
                          offsetof(struct rnn8, mp), offsetof(struct rnn8, mt), offsetof(struct rnn8, is),
                          offsetof(struct rnn8, hs), offsetof(struct rnn8, ps), offsetof(struct rnn8, nl),
                          offsetof(struct rnn8, dd), offsetof(struct rnn8, af) };
        size_t lens[] = { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, sizeof(void *), 4 };
        for (int k = 0; k < 14; k++)
            OPT_CASE("GetRNNDescriptor_v8", k, s, ref,
                     cudnnGetRNNDescriptor_v8(r, P(0, &s.a), P(1, &s.c), P(2, &s.b), P(3, &s.d), P(4, &s.im), P(5, &s.dt),
                                              P(6, &s.mp), P(7, &s.mt), P(8, &s.is), P(9, &s.hs), P(10, &s.ps),
                                              P(11, &s.nl), P(12, &s.dd), P(13, &s.af)));
    }
    CHECK_OK(cudnnGetRNNDescriptor_v8(r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL));

    SECTION("cudnnGetRNNDescriptor_v6: every output needed");
    struct rnn6 r6, s6;
    memset(&r6, SENT, sizeof r6);
    CHECK_OK(cudnnGetRNNDescriptor_v6(h, r, &r6.hs, &r6.nl, &r6.dd, &r6.im, &r6.d, &r6.c, &r6.a, &r6.mp));
    CHECK(r6.hs == 8 && r6.nl == 2 && r6.c == CUDNN_LSTM && r6.dd == drop);
    for (int k = 0; k < 8; k++)
        REQ_CASE("GetRNNDescriptor_v6", k, s6,
                 cudnnGetRNNDescriptor_v6(h, r, P(0, &s6.hs), P(1, &s6.nl), P(2, &s6.dd), P(3, &s6.im), P(4, &s6.d),
                                          P(5, &s6.c), P(6, &s6.a), P(7, &s6.mp)));

    SECTION("single-output RNN field getters: output needed");
    CHECK_STATUS(cudnnGetRNNMatrixMathType(r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNBiasMode(r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNPaddingMode(r, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnMathType_t mt; cudnnRNNBiasMode_t bm; unsigned pm;
    CHECK_OK(cudnnGetRNNMatrixMathType(r, &mt));
    CHECK_OK(cudnnGetRNNBiasMode(r, &bm));
    CHECK_OK(cudnnGetRNNPaddingMode(r, &pm));
    CHECK(mt == ref.mt && bm == ref.b && pm == 0);

    SECTION("clip getters: _v8 optional, legacy needed");
    CHECK_OK(cudnnRNNSetClip_v8(r, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, -2.5, 3.5));
    struct clip rc, sc;
    memset(&rc, SENT, sizeof rc);
    CHECK_OK(cudnnRNNGetClip_v8(r, &rc.cm, &rc.np, &rc.l, &rc.r));
    CHECK(rc.cm == CUDNN_RNN_CLIP_MINMAX && rc.np == CUDNN_PROPAGATE_NAN && rc.l == -2.5 && rc.r == 3.5);
    {
        size_t offs[] = { offsetof(struct clip, cm), offsetof(struct clip, np), offsetof(struct clip, l),
                          offsetof(struct clip, r) };
        size_t lens[] = { 4, 4, 8, 8 };
        for (int k = 0; k < 4; k++) {
            OPT_CASE("RNNGetClip_v8", k, sc, rc, cudnnRNNGetClip_v8(r, P(0, &sc.cm), P(1, &sc.np), P(2, &sc.l), P(3, &sc.r)));
            REQ_CASE("RNNGetClip", k, sc, cudnnRNNGetClip(h, r, P(0, &sc.cm), P(1, &sc.np), P(2, &sc.l), P(3, &sc.r)));
        }
    }

    SECTION("cudnnGetRNNProjectionLayers: both needed");
    int pr[2] = { -1, -1 };
    CHECK_STATUS(cudnnGetRNNProjectionLayers(h, r, NULL, &pr[1]), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNProjectionLayers(h, r, &pr[0], NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK(pr[0] == -1 && pr[1] == -1);
    CHECK_OK(cudnnGetRNNProjectionLayers(h, r, &pr[0], &pr[1]));
    CHECK(pr[0] == 6 && pr[1] == 0);
}

struct rdata { cudnnDataType_t dt; cudnnRNNDataLayout_t lay; int T, B, V, sl[3]; float fill; };

static void test_rnn_sizes(cudnnRNNDescriptor_t r, cudnnRNNDataDescriptor_t xd)
{
    SECTION("cudnnGetRNNDataDescriptor: every output needed (seqLengthArray only when requested)");
    struct rdata ref, s;
    memset(&ref, SENT, sizeof ref);
    CHECK_OK(cudnnGetRNNDataDescriptor(xd, &ref.dt, &ref.lay, &ref.T, &ref.B, &ref.V, 3, ref.sl, &ref.fill));
    CHECK(ref.T == 4 && ref.B == 3 && ref.V == 4 && ref.sl[0] == 4 && ref.sl[2] == 1 && ref.fill == 2.5f);
    for (int k = 0; k < 7; k++)
        REQ_CASE("GetRNNDataDescriptor", k, s,
                 cudnnGetRNNDataDescriptor(xd, P(0, &s.dt), P(1, &s.lay), P(2, &s.T), P(3, &s.B), P(4, &s.V), 3,
                                           P(5, s.sl), P(6, &s.fill)));
    memset(&s, SENT, sizeof s);
    CHECK_OK(cudnnGetRNNDataDescriptor(xd, &s.dt, &s.lay, &s.T, &s.B, &s.V, 0, NULL, &s.fill));
    CHECK(s.T == 4 && s.B == 3 && s.V == 4 && s.fill == 2.5f && untouched(s.sl, sizeof s.sl));

    SECTION("RNN size queries");
    size_t ws = 0, wss[2], rss[2];
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(h, r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, r, &ws));
    CHECK(ws > 0);
    for (int m = 0; m < 2; m++) {
        cudnnForwardMode_t fm = m ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE;
        CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r, fm, xd, &wss[m], &rss[m]));
        size_t a = 1, b = 1;
        CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r, fm, xd, NULL, &b));
        CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r, fm, xd, &a, NULL));
        CHECK(a == wss[m] && b == rss[m]);
        CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r, fm, xd, NULL, NULL));
    }

    SECTION("cudnnGetRNNWeightParams: all four outputs needed");
    static float w[65536];
    CHECK((size_t)ws <= sizeof w);
    cudnnTensorDescriptor_t md, bd;
    CHECK_OK(cudnnCreateTensorDescriptor(&md));
    CHECK_OK(cudnnCreateTensorDescriptor(&bd));
    void *ma = NULL, *ba = NULL;
    CHECK_OK(cudnnGetRNNWeightParams(h, r, 0, ws, w, 0, md, &ma, bd, &ba));
    CHECK(ma != NULL && ba != NULL);
    for (int k = 0; k < 4; k++) {
        void *a = (void *)7, *b = (void *)7;
        CHECK_MSG(cudnnGetRNNWeightParams(h, r, 0, ws, w, 0, P(0, md), P(1, &a), P(2, bd), P(3, &b)) ==
                  CUDNN_STATUS_BAD_PARAM, "GetRNNWeightParams: NULL output %d accepted", k);
        CHECK(a == (void *)7 && b == (void *)7);
    }

    SECTION("legacy lin-layer queries: both outputs needed");
    int xdims[3] = { 3, 4, 1 }, xstr[3] = { 4, 1, 1 };
    cudnnTensorDescriptor_t x[4];
    for (int i = 0; i < 4; i++) {
        CHECK_OK(cudnnCreateTensorDescriptor(&x[i]));
        CHECK_OK(cudnnSetTensorNdDescriptor(x[i], CUDNN_DATA_FLOAT, 3, xdims, xstr));
    }
    size_t ps = 0;
    CHECK_OK(cudnnGetRNNParamsSize(h, r, x[0], &ps, CUDNN_DATA_FLOAT));
    cudnnFilterDescriptor_t wd, ld;
    CHECK_OK(cudnnCreateFilterDescriptor(&wd));
    CHECK_OK(cudnnCreateFilterDescriptor(&ld));
    int fd[3] = { (int)(ps / sizeof(float)), 1, 1 };
    CHECK_OK(cudnnSetFilterNdDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, fd));
    void *p = (void *)7;
    CHECK_STATUS(cudnnGetRNNLinLayerMatrixParams(h, r, 0, x[0], wd, w, 0, NULL, &p), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNLinLayerMatrixParams(h, r, 0, x[0], wd, w, 0, ld, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNLinLayerBiasParams(h, r, 0, x[0], wd, w, 0, NULL, &p), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNLinLayerBiasParams(h, r, 0, x[0], wd, w, 0, ld, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK(p == (void *)7);
    CHECK_OK(cudnnGetRNNLinLayerMatrixParams(h, r, 0, x[0], wd, w, 0, ld, &p));
    CHECK(p != (void *)7);

    /* One-output queries: cuDNN 8.5 answers BAD_PARAM for a NULL size (ParamsSize) or crashes
     * (the others); a call that can answer nothing is refused here. */
    SECTION("single-output size queries: output needed");
    CHECK_STATUS(cudnnGetRNNParamsSize(h, r, x[0], NULL, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWorkspaceSize(h, r, 4, x, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNTrainingReserveSize(h, r, 4, x, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNForwardInferenceAlgorithmMaxCount(h, r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNForwardTrainingAlgorithmMaxCount(h, r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNBackwardDataAlgorithmMaxCount(h, r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNBackwardWeightsAlgorithmMaxCount(h, r, NULL), CUDNN_STATUS_BAD_PARAM);
    size_t one = 0;
    int cnt = 0;
    CHECK_OK(cudnnGetRNNWorkspaceSize(h, r, 4, x, &one));
    CHECK_OK(cudnnGetRNNForwardInferenceAlgorithmMaxCount(h, r, &cnt));
    CHECK(cnt > 0);

    for (int i = 0; i < 4; i++)
        cudnnDestroyTensorDescriptor(x[i]);
    cudnnDestroyTensorDescriptor(md);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyFilterDescriptor(ld);
}

struct sdata { cudnnDataType_t dt; int nb, dims[4]; cudnnSeqDataAxis_t ax[4]; size_t n; int sl[6]; float fill; };

static void test_seqdata(void)
{
    SECTION("cudnnGetSeqDataDescriptor: every output optional");
    cudnnSeqDataDescriptor_t sd;
    CHECK_OK(cudnnCreateSeqDataDescriptor(&sd));
    int dims[4] = { 5, 3, 2, 8 }, seql[6] = { 5, 4, 3, 2, 1, 1 };
    cudnnSeqDataAxis_t ax[4] = { CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_TIME_DIM,
                                 CUDNN_SEQDATA_VECT_DIM };
    float fill = 1.5f;
    CHECK_OK(cudnnSetSeqDataDescriptor(sd, CUDNN_DATA_FLOAT, 4, dims, ax, 6, seql, &fill));
    struct sdata ref, s;
    memset(&ref, SENT, sizeof ref);
    CHECK_OK(cudnnGetSeqDataDescriptor(sd, &ref.dt, &ref.nb, 4, ref.dims, ref.ax, &ref.n, 6, ref.sl, &ref.fill));
    CHECK(ref.dt == CUDNN_DATA_FLOAT && ref.nb == 4 && ref.n == 6 && ref.fill == 1.5f);
    CHECK(memcmp(ref.dims, dims, sizeof dims) == 0 && memcmp(ref.ax, ax, sizeof ax) == 0 &&
          memcmp(ref.sl, seql, sizeof seql) == 0);
    size_t offs[] = { offsetof(struct sdata, dt), offsetof(struct sdata, nb), offsetof(struct sdata, dims),
                      offsetof(struct sdata, ax), offsetof(struct sdata, n), offsetof(struct sdata, sl),
                      offsetof(struct sdata, fill) };
    size_t lens[] = { 4, 4, sizeof ref.dims, sizeof ref.ax, sizeof ref.n, sizeof ref.sl, 4 };
    for (int k = 0; k < 7; k++)
        OPT_CASE("GetSeqDataDescriptor", k, s, ref,
                 cudnnGetSeqDataDescriptor(sd, P(0, &s.dt), P(1, &s.nb), 4, P(2, s.dims), P(3, s.ax), P(4, &s.n), 6,
                                           P(5, s.sl), P(6, &s.fill)));

    SECTION("cudnnGetSeqDataDescriptor: the multiHeadAttention sample's call");
    int nbDims = -1, dimA[4] = { 0 };
    cudnnSeqDataAxis_t axes[4];
    CHECK_OK(cudnnGetSeqDataDescriptor(sd, NULL, &nbDims, 4, dimA, axes, NULL, 0, NULL, NULL));
    CHECK(nbDims == 4 && memcmp(dimA, dims, sizeof dims) == 0 && memcmp(axes, ax, sizeof ax) == 0);
    CHECK_OK(cudnnGetSeqDataDescriptor(sd, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL));
    /* a NULL array with a count is "not wanted" too (cuDNN 8.5) */
    CHECK_OK(cudnnGetSeqDataDescriptor(sd, NULL, &nbDims, 4, NULL, NULL, NULL, 6, NULL, NULL));
    /* fewer than stored: the first ones only */
    memset(&s, SENT, sizeof s);
    CHECK_OK(cudnnGetSeqDataDescriptor(sd, NULL, NULL, 2, s.dims, s.ax, NULL, 3, s.sl, NULL));
    CHECK(s.dims[0] == 5 && s.dims[1] == 3 && untouched(&s.dims[2], 2 * sizeof(int)));
    CHECK(s.sl[2] == 3 && untouched(&s.sl[3], 3 * sizeof(int)));
    nbDims = -1;
    CHECK_STATUS(cudnnGetSeqDataDescriptor(sd, NULL, &nbDims, -1, dimA, axes, NULL, 0, NULL, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(nbDims == -1);
    cudnnDestroySeqDataDescriptor(sd);
}

struct attn { unsigned m; int nh; double sc; cudnnDataType_t dt, cp; cudnnMathType_t mt; cudnnDropoutDescriptor_t d1, d2;
              int q, k, v, qp, kp, vp, op, qo, kv, mb, mbe; };

static void test_attn(void)
{
    SECTION("cudnnGetAttnDescriptor: every output optional");
    cudnnAttnDescriptor_t at;
    CHECK_OK(cudnnCreateAttnDescriptor(&at));
    CHECK_OK(cudnnSetAttnDescriptor(at, CUDNN_ATTN_QUERYMAP_ALL_TO_ONE, 2, 0.5, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                    CUDNN_DEFAULT_MATH, NULL, NULL, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1));
    struct attn ref, s;
    memset(&ref, SENT, sizeof ref);
    CHECK_OK(cudnnGetAttnDescriptor(at, &ref.m, &ref.nh, &ref.sc, &ref.dt, &ref.cp, &ref.mt, &ref.d1, &ref.d2, &ref.q,
                                    &ref.k, &ref.v, &ref.qp, &ref.kp, &ref.vp, &ref.op, &ref.qo, &ref.kv, &ref.mb,
                                    &ref.mbe));
    CHECK(ref.nh == 2 && ref.sc == 0.5 && ref.op == 4 && ref.kv == 5 && ref.mb == 2 && ref.mbe == 1);
    size_t offs[] = { offsetof(struct attn, m), offsetof(struct attn, nh), offsetof(struct attn, sc),
                      offsetof(struct attn, dt), offsetof(struct attn, cp), offsetof(struct attn, mt),
                      offsetof(struct attn, d1), offsetof(struct attn, d2), offsetof(struct attn, q),
                      offsetof(struct attn, k), offsetof(struct attn, v), offsetof(struct attn, qp),
                      offsetof(struct attn, kp), offsetof(struct attn, vp), offsetof(struct attn, op),
                      offsetof(struct attn, qo), offsetof(struct attn, kv), offsetof(struct attn, mb),
                      offsetof(struct attn, mbe) };
    size_t lens[] = { 4, 4, 8, 4, 4, 4, sizeof(void *), sizeof(void *), 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 };
    for (int k = 0; k < 19; k++)
        OPT_CASE("GetAttnDescriptor", k, s, ref,
                 cudnnGetAttnDescriptor(at, P(0, &s.m), P(1, &s.nh), P(2, &s.sc), P(3, &s.dt), P(4, &s.cp), P(5, &s.mt),
                                        P(6, &s.d1), P(7, &s.d2), P(8, &s.q), P(9, &s.k), P(10, &s.v), P(11, &s.qp),
                                        P(12, &s.kp), P(13, &s.vp), P(14, &s.op), P(15, &s.qo), P(16, &s.kv),
                                        P(17, &s.mb), P(18, &s.mbe)));

    SECTION("cudnnGetMultiHeadAttnBuffers: weight and work sizes needed, reserve optional");
    size_t b[3], c[3];
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(h, at, &b[0], &b[1], &b[2]));
    CHECK(b[0] > 0);
    for (int k = 0; k < 2; k++) {
        memset(c, SENT, sizeof c);
        CHECK_STATUS(cudnnGetMultiHeadAttnBuffers(h, at, P(0, &c[0]), P(1, &c[1]), &c[2]), CUDNN_STATUS_BAD_PARAM);
        CHECK(untouched(c, sizeof c));
    }
    memset(c, SENT, sizeof c);
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(h, at, &c[0], &c[1], NULL));
    CHECK(c[0] == b[0] && c[1] == b[1] && untouched(&c[2], sizeof c[2]));

    SECTION("cudnnGetMultiHeadAttnWeights: both outputs needed");
    static float w[4096];
    CHECK(b[0] <= sizeof w);
    cudnnTensorDescriptor_t wd;
    CHECK_OK(cudnnCreateTensorDescriptor(&wd));
    void *wa = (void *)7;
    CHECK_STATUS(cudnnGetMultiHeadAttnWeights(h, at, CUDNN_MH_ATTN_Q_WEIGHTS, b[0], w, NULL, &wa), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetMultiHeadAttnWeights(h, at, CUDNN_MH_ATTN_Q_WEIGHTS, b[0], w, wd, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK(wa == (void *)7);
    CHECK_OK(cudnnGetMultiHeadAttnWeights(h, at, CUDNN_MH_ATTN_Q_WEIGHTS, b[0], w, wd, &wa));
    CHECK(wa == (void *)w);
    cudnnDestroyTensorDescriptor(wd);
    cudnnDestroyAttnDescriptor(at);
}

struct ctc { cudnnDataType_t dt; cudnnLossNormalizationMode_t nm; cudnnNanPropagation_t gm; int ml; };

static void test_ctc(void)
{
    SECTION("CTC loss descriptor getters: every output optional");
    cudnnCTCLossDescriptor_t d;
    CHECK_OK(cudnnCreateCTCLossDescriptor(&d));
    CHECK_OK(cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX, CUDNN_PROPAGATE_NAN, 7));
    struct ctc ref, s;
    memset(&ref, SENT, sizeof ref);
    CHECK_OK(cudnnGetCTCLossDescriptor_v8(d, &ref.dt, &ref.nm, &ref.gm, &ref.ml));
    CHECK(ref.dt == CUDNN_DATA_FLOAT && ref.nm == CUDNN_LOSS_NORMALIZATION_SOFTMAX && ref.gm == CUDNN_PROPAGATE_NAN &&
          ref.ml == 7);
    size_t offs[] = { offsetof(struct ctc, dt), offsetof(struct ctc, nm), offsetof(struct ctc, gm),
                      offsetof(struct ctc, ml) };
    size_t lens[] = { 4, 4, 4, 4 };
    for (int k = 0; k < 4; k++)
        OPT_CASE("GetCTCLossDescriptor_v8", k, s, ref,
                 cudnnGetCTCLossDescriptor_v8(d, P(0, &s.dt), P(1, &s.nm), P(2, &s.gm), P(3, &s.ml)));
    struct ctc rex = ref;
    memset(&rex.ml, SENT, sizeof rex.ml);
    for (int k = 0; k < 3; k++)
        OPT_CASE("GetCTCLossDescriptorEx", k, s, rex,
                 cudnnGetCTCLossDescriptorEx(d, P(0, &s.dt), P(1, &s.nm), P(2, &s.gm)));
    CHECK_OK(cudnnGetCTCLossDescriptor(d, NULL));

    SECTION("CTC work space queries: the size is needed");
    cudnnTensorDescriptor_t pr;
    int pd[3] = { 5, 2, 4 }, pst[3] = { 8, 4, 1 };
    CHECK_OK(cudnnCreateTensorDescriptor(&pr));
    CHECK_OK(cudnnSetTensorNdDescriptor(pr, CUDNN_DATA_FLOAT, 3, pd, pst));
    int labels[4] = { 1, 2, 1, 3 }, ll[2] = { 2, 2 }, il[2] = { 5, 5 };
    size_t ws = 0;
    CHECK_OK(cudnnGetCTCLossWorkspaceSize_v8(h, CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d, pr, pr, &ws));
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize_v8(h, CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d, pr, pr, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetCTCLossWorkspaceSize(h, pr, pr, labels, ll, il, CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d, &ws));
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize(h, pr, pr, labels, ll, il, CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(pr);
    cudnnDestroyCTCLossDescriptor(d);
}

int main(void)
{
    CHECK_OK(cudnnCreate(&h));
    cudnnDropoutDescriptor_t drop;
    CHECK_OK(cudnnCreateDropoutDescriptor(&drop));
    CHECK_OK(cudnnSetDropoutDescriptor(drop, h, 0.0f, NULL, 0, 0));
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    CHECK_OK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL,
                                      CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, 4, 8, 6,
                                      2, drop, 0));
    cudnnRNNDataDescriptor_t xd;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&xd));
    int lens[3] = { 4, 2, 1 };
    float fill = 2.5f;
    CHECK_OK(cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 4, 3, 4, lens, &fill));
    test_rnn_desc(r, drop);
    test_rnn_sizes(r, xd);
    test_seqdata();
    test_attn();
    test_ctc();
    cudnnDestroyRNNDataDescriptor(xd);
    cudnnDestroyRNNDescriptor(r);
    cudnnDestroyDropoutDescriptor(drop);
    cudnnDestroy(h);
    return hd_test_finish();
}
