/*
 * Differential test of convolution descriptors against NVIDIA cuDNN 9 (tests/oracle.h):
 * the same Set/Get calls and forward output-dimension queries on both libraries, comparing
 * status names, read-back values and output dims.  Differences we keep on purpose are
 * listed where they are tested (docs/algorithms.md, "Descriptor").
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <stdio.h>
#include "harness.h"
#include "oracle.h"

static int cases;

static void same_status(const char *what, cudnnStatus_t ours, int theirs)
{
    cases++;
    CHECK_MSG(strcmp(cudnnGetErrorString(ours), oracle_status(theirs)) == 0, "%s: hostdnn %s, cuDNN 9 %s", what,
              cudnnGetErrorString(ours), oracle_status(theirs));
}

typedef struct { int ph, pw, u, v, dh, dw, mode, ct; } c2_case;

static void conv2d(void)
{
    SECTION("conv 2d");
    ORACLE_FN(cudnnCreateConvolutionDescriptor);
    ORACLE_FN(cudnnDestroyConvolutionDescriptor);
    ORACLE_FN(cudnnSetConvolution2dDescriptor);
    ORACLE_FN(cudnnGetConvolution2dDescriptor);
    ORACLE_FN(cudnnGetConvolutionNdDescriptor);
    static const c2_case cs[] = {
        {0, 0, 1, 1, 1, 1, 0, 0}, {1, 2, 3, 4, 5, 6, 1, 0}, {0, 0, 1, 1, 1, 1, 0, 1}, {0, 0, 1, 1, 1, 1, 0, 2},
        {0, 0, 1, 1, 1, 1, 0, 3}, {0, 0, 1, 1, 1, 1, 0, 4}, {0, 0, 1, 1, 1, 1, 0, 5}, {0, 0, 1, 1, 1, 1, 0, 9},
        {0, 0, 1, 1, 1, 1, 0, 99}, {0, 0, 1, 1, 1, 1, 0, -1}, {-1, 0, 1, 1, 1, 1, 0, 0}, {0, -3, 1, 1, 1, 1, 0, 0},
        {0, 0, 0, 1, 1, 1, 0, 0}, {0, 0, 1, -1, 1, 1, 0, 0}, {0, 0, 1, 1, 0, 1, 0, 0}, {0, 0, 1, 1, 1, -2, 0, 0},
        {0, 0, 1, 1, 1, 1, 2, 0}, {0, 0, 1, 1, 1, 1, -1, 0}, {100, 100, 50, 50, 30, 30, 1, 1},
        {0, 0, 1, 1, 1, 1, 99, 0}, {0, 0, 1, 1, 1, 1, 0, 6}, {0, 0, 1, 1, 1, 1, 0, 7}, {0, 0, 1, 1, 1, 1, 0, 8},
    };
    for (unsigned i = 0; i < sizeof cs / sizeof *cs; i++) {
        const c2_case *k = &cs[i];
        cudnnConvolutionDescriptor_t a, b;
        cudnnCreateConvolutionDescriptor(&a);
        v9_cudnnCreateConvolutionDescriptor(&b);
        char what[160];
        snprintf(what, sizeof what, "Set2d(%d %d %d %d %d %d mode %d ct %d)", k->ph, k->pw, k->u, k->v, k->dh, k->dw,
                 k->mode, k->ct);
        cudnnStatus_t s1 = cudnnSetConvolution2dDescriptor(a, k->ph, k->pw, k->u, k->v, k->dh, k->dw, k->mode, k->ct);
        int s2 = v9_cudnnSetConvolution2dDescriptor(b, k->ph, k->pw, k->u, k->v, k->dh, k->dw, k->mode, k->ct);
        same_status(what, s1, s2);
        if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0) {
            int r1[6], r2[6];
            cudnnConvolutionMode_t m1, m2;
            cudnnDataType_t t1, t2;
            same_status("Get2d", cudnnGetConvolution2dDescriptor(a, &r1[0], &r1[1], &r1[2], &r1[3], &r1[4], &r1[5], &m1, &t1),
                        v9_cudnnGetConvolution2dDescriptor(b, &r2[0], &r2[1], &r2[2], &r2[3], &r2[4], &r2[5], &m2, &t2));
            CHECK_MSG(!memcmp(r1, r2, sizeof r1) && m1 == m2 && t1 == t2, "%s read back differs", what);
            int n1, n2, p1[8], p2[8], st1[8], st2[8], d1[8], d2[8];
            same_status("GetNd of 2d", cudnnGetConvolutionNdDescriptor(a, 6, &n1, p1, st1, d1, &m1, &t1),
                        v9_cudnnGetConvolutionNdDescriptor(b, 6, &n2, p2, st2, d2, &m2, &t2));
            CHECK_MSG(n1 == n2 && !memcmp(p1, p2, n1 * sizeof(int)) && !memcmp(st1, st2, n1 * sizeof(int)) &&
                          !memcmp(d1, d2, n1 * sizeof(int)),
                      "%s GetNd read back differs", what);
        }
        cudnnDestroyConvolutionDescriptor(a);
        v9_cudnnDestroyConvolutionDescriptor(b);
    }
}

static void conv_nd(void)
{
    SECTION("conv Nd");
    ORACLE_FN(cudnnCreateConvolutionDescriptor);
    ORACLE_FN(cudnnDestroyConvolutionDescriptor);
    ORACLE_FN(cudnnSetConvolutionNdDescriptor);
    ORACLE_FN(cudnnGetConvolutionNdDescriptor);
    ORACLE_FN(cudnnGetConvolution2dDescriptor);
    const int pad[8] = {1, 2, 0, 3, 1, 1, 2, 0}, str[8] = {1, 2, 3, 1, 2, 1, 1, 2}, dil[8] = {1, 1, 2, 3, 1, 2, 1, 1};
    const int badpad[3] = {0, -1, 0}, badstr[3] = {1, 0, 1}, baddil[3] = {1, 1, -1};
    for (int len = -1; len <= 8; len++) {
        for (int variant = 0; variant < 4; variant++) {
            if (len < 3 && variant > 0)
                continue;
            const int *pp = variant == 1 ? badpad : pad, *ss = variant == 2 ? badstr : str, *dd = variant == 3 ? baddil : dil;
            cudnnConvolutionDescriptor_t a, b;
            cudnnCreateConvolutionDescriptor(&a);
            v9_cudnnCreateConvolutionDescriptor(&b);
            char what[96];
            snprintf(what, sizeof what, "SetNd(len %d, variant %d)", len, variant);
            cudnnStatus_t s1 = cudnnSetConvolutionNdDescriptor(a, len, pp, ss, dd, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
            int s2 = v9_cudnnSetConvolutionNdDescriptor(b, len, pp, ss, dd, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
            same_status(what, s1, s2);
            if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0) {
                for (int req = -1; req <= 7; req++) {
                    int n1 = -5, n2 = -5, p1[8] = {0}, p2[8] = {0}, st1[8] = {0}, st2[8] = {0}, d1[8] = {0}, d2[8] = {0};
                    cudnnConvolutionMode_t m1, m2;
                    cudnnDataType_t t1, t2;
                    char w2[128];
                    snprintf(w2, sizeof w2, "%s GetNd(req %d)", what, req);
                    cudnnStatus_t g1 = cudnnGetConvolutionNdDescriptor(a, req, &n1, p1, st1, d1, &m1, &t1);
                    int g2 = v9_cudnnGetConvolutionNdDescriptor(b, req, &n2, p2, st2, d2, &m2, &t2);
                    same_status(w2, g1, g2);
                    if (g1 == CUDNN_STATUS_SUCCESS && g2 == 0) {
                        int m = req < len ? req : len;
                        CHECK_MSG(n1 == n2 && !memcmp(p1, p2, m * sizeof(int)) && !memcmp(st1, st2, m * sizeof(int)) &&
                                      !memcmp(d1, d2, m * sizeof(int)) && m1 == m2 && t1 == t2,
                                  "%s read back differs (arrayLength %d vs %d)", w2, n1, n2);
                    }
                }
                int r[6];
                cudnnConvolutionMode_t m;
                cudnnDataType_t t;
                snprintf(what, sizeof what, "Get2d of Nd(len %d)", len);
                same_status(what, cudnnGetConvolution2dDescriptor(a, &r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &m, &t),
                            v9_cudnnGetConvolution2dDescriptor(b, &r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &m, &t));
            }
            cudnnDestroyConvolutionDescriptor(a);
            v9_cudnnDestroyConvolutionDescriptor(b);
        }
    }
}

static void conv_attrs(void)
{
    SECTION("group, math, reorder");
    ORACLE_FN(cudnnCreateConvolutionDescriptor);
    ORACLE_FN(cudnnDestroyConvolutionDescriptor);
    ORACLE_FN(cudnnSetConvolutionGroupCount);
    ORACLE_FN(cudnnGetConvolutionGroupCount);
    ORACLE_FN(cudnnSetConvolutionMathType);
    ORACLE_FN(cudnnGetConvolutionMathType);
    ORACLE_FN(cudnnSetConvolutionReorderType);
    ORACLE_FN(cudnnGetConvolutionReorderType);
    cudnnConvolutionDescriptor_t a, b;
    cudnnCreateConvolutionDescriptor(&a);
    v9_cudnnCreateConvolutionDescriptor(&b);
    int g1, g2;
    same_status("GetGroupCount fresh", cudnnGetConvolutionGroupCount(a, &g1), v9_cudnnGetConvolutionGroupCount(b, &g2));
    CHECK_EQ_INT(g1, g2);
    const int groups[] = {1, 2, 3, 64, 1 << 20, 0, -1, -100};
    for (unsigned i = 0; i < sizeof groups / sizeof *groups; i++) {
        char what[64];
        snprintf(what, sizeof what, "SetGroupCount(%d)", groups[i]);
        same_status(what, cudnnSetConvolutionGroupCount(a, groups[i]), v9_cudnnSetConvolutionGroupCount(b, groups[i]));
        same_status("GetGroupCount", cudnnGetConvolutionGroupCount(a, &g1), v9_cudnnGetConvolutionGroupCount(b, &g2));
        CHECK_MSG(g1 == g2, "%s read back %d vs %d", what, g1, g2);
    }
    cudnnMathType_t m1, m2;
    same_status("GetMathType fresh", cudnnGetConvolutionMathType(a, &m1), v9_cudnnGetConvolutionMathType(b, &m2));
    CHECK_EQ_INT(m1, m2);
    const int maths[] = {0, 1, 2, 3, 4, 99, -1};
    for (unsigned i = 0; i < sizeof maths / sizeof *maths; i++) {
        char what[64];
        snprintf(what, sizeof what, "SetMathType(%d)", maths[i]);
        same_status(what, cudnnSetConvolutionMathType(a, maths[i]), v9_cudnnSetConvolutionMathType(b, maths[i]));
        same_status("GetMathType", cudnnGetConvolutionMathType(a, &m1), v9_cudnnGetConvolutionMathType(b, &m2));
        CHECK_MSG(m1 == m2, "%s read back %d vs %d", what, m1, m2);
    }
    cudnnReorderType_t r1, r2;
    same_status("GetReorderType fresh", cudnnGetConvolutionReorderType(a, &r1), v9_cudnnGetConvolutionReorderType(b, &r2));
    CHECK_EQ_INT(r1, r2);
    const int reorders[] = {0, 1, 2, -1};
    for (unsigned i = 0; i < sizeof reorders / sizeof *reorders; i++) {
        char what[64];
        snprintf(what, sizeof what, "SetReorderType(%d)", reorders[i]);
        same_status(what, cudnnSetConvolutionReorderType(a, reorders[i]),
                    v9_cudnnSetConvolutionReorderType(b, reorders[i]));
        same_status("GetReorderType", cudnnGetConvolutionReorderType(a, &r1), v9_cudnnGetConvolutionReorderType(b, &r2));
        CHECK_MSG(r1 == r2, "%s read back %d vs %d", what, r1, r2);
    }
    same_status("SetGroupCount(NULL)", cudnnSetConvolutionGroupCount(NULL, 2), v9_cudnnSetConvolutionGroupCount(NULL, 2));
    /* cuDNN 9 crashes on NULL output pointers; hostdnn refuses them */
    CHECK_STATUS(cudnnGetConvolutionGroupCount(a, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetConvolutionMathType(a, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetConvolutionReorderType(a, NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyConvolutionDescriptor(a);
    v9_cudnnDestroyConvolutionDescriptor(b);
}

/* input n c (d) h w, filter k c (t) r s, conv pads/strides/dilations, groups */
typedef struct {
    int nb;
    int x[5], w[5];
    int pad[3], str[3], dil[3];
    int groups, wfmt, conv_nd;    /* conv_nd: spatial dims of the conv descriptor (0 = same as tensors) */
} od_case;

static void out_dims(void)
{
    SECTION("forward output dims");
    ORACLE_FN(cudnnCreateConvolutionDescriptor);
    ORACLE_FN(cudnnDestroyConvolutionDescriptor);
    ORACLE_FN(cudnnSetConvolutionNdDescriptor);
    ORACLE_FN(cudnnSetConvolutionGroupCount);
    ORACLE_FN(cudnnCreateTensorDescriptor);
    ORACLE_FN(cudnnSetTensorNdDescriptorEx);
    ORACLE_FN(cudnnDestroyTensorDescriptor);
    ORACLE_FN(cudnnCreateFilterDescriptor);
    ORACLE_FN(cudnnSetFilterNdDescriptor);
    ORACLE_FN(cudnnDestroyFilterDescriptor);
    ORACLE_FN(cudnnGetConvolution2dForwardOutputDim);
    ORACLE_FN(cudnnGetConvolutionNdForwardOutputDim);
    static const od_case cs[] = {
        {4, {2, 3, 8, 9}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0},
        {4, {2, 3, 8, 9}, {4, 3, 3, 3}, {0, 0}, {2, 3}, {1, 1}, 1, 1, 0},
        {4, {1, 3, 7, 7}, {8, 3, 7, 7}, {3, 3}, {2, 2}, {1, 1}, 1, 0, 0},
        {4, {1, 3, 5, 5}, {8, 3, 3, 3}, {0, 0}, {1, 1}, {2, 2}, 1, 0, 0},
        {4, {1, 3, 4, 4}, {8, 3, 3, 3}, {0, 0}, {1, 1}, {2, 2}, 1, 0, 0},        /* dilated filter too large */
        {4, {1, 3, 2, 2}, {8, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0},
        {4, {1, 3, 2, 2}, {8, 3, 5, 5}, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0},        /* filter > padded input */
        {4, {1, 4, 6, 6}, {8, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, 0, 0},        /* channel mismatch */
        {4, {1, 4, 6, 6}, {8, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2, 0, 0},        /* grouped */
        {4, {1, 4, 6, 6}, {6, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 4, 0, 0},        /* K not a multiple of groups */
        {4, {1, 4, 6, 6}, {4, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 4, 0, 0},        /* depthwise */
        {4, {1, 4, 6, 6}, {8, 4, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2, 0, 0},        /* groups wrong */
        {5, {2, 3, 4, 5, 6}, {4, 3, 3, 3, 3}, {1, 1, 1}, {1, 2, 1}, {1, 1, 2}, 1, 0, 0},
        {5, {2, 3, 4, 5, 6}, {4, 3, 3, 3, 3}, {1, 1, 1}, {1, 2, 1}, {1, 1, 1}, 1, 0, 2},   /* conv 2-d, tensors 5-d */
        {4, {2, 3, 8, 9}, {4, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1, 0, 3},         /* conv 3-d, tensors 4-d */
        {4, {3, 5, 31, 17}, {7, 5, 4, 2}, {2, 0}, {3, 5}, {2, 4}, 1, 0, 0},
        {4, {1, 1, 1 << 30, 1}, {1, 1, 1, 1}, {1 << 30, 0}, {1, 1}, {1, 1}, 1, 0, 0},      /* output > INT_MAX */
        {4, {1, 1, 1 << 30, 1}, {1, 1, 1, 1}, {1 << 29, 0}, {1, 1}, {1, 1}, 1, 0, 0},
        {4, {1, 1, 1 << 30, 1}, {1, 1, 1, 1}, {1 << 28, 0}, {1, 1}, {1, 1}, 1, 0, 0},      /* just fits */
    };
    for (unsigned i = 0; i < sizeof cs / sizeof *cs; i++) {
        const od_case *k = &cs[i];
        int cnd = k->conv_nd ? k->conv_nd : k->nb - 2;
        cudnnTensorDescriptor_t xa, xb;
        cudnnFilterDescriptor_t wa, wb;
        cudnnConvolutionDescriptor_t ca, cb;
        cudnnCreateTensorDescriptor(&xa), v9_cudnnCreateTensorDescriptor(&xb);
        cudnnCreateFilterDescriptor(&wa), v9_cudnnCreateFilterDescriptor(&wb);
        cudnnCreateConvolutionDescriptor(&ca), v9_cudnnCreateConvolutionDescriptor(&cb);
        cudnnSetTensorNdDescriptorEx(xa, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, k->nb, k->x);
        v9_cudnnSetTensorNdDescriptorEx(xb, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, k->nb, k->x);
        cudnnSetFilterNdDescriptor(wa, CUDNN_DATA_FLOAT, k->wfmt, k->nb, k->w);
        v9_cudnnSetFilterNdDescriptor(wb, CUDNN_DATA_FLOAT, k->wfmt, k->nb, k->w);
        cudnnSetConvolutionNdDescriptor(ca, cnd, k->pad, k->str, k->dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        v9_cudnnSetConvolutionNdDescriptor(cb, cnd, k->pad, k->str, k->dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        cudnnSetConvolutionGroupCount(ca, k->groups);
        v9_cudnnSetConvolutionGroupCount(cb, k->groups);
        char what[64];
        for (int req = k->nb - 1; req <= k->nb + 1; req++) {
            int o1[8] = {0}, o2[8] = {0};
            snprintf(what, sizeof what, "case %u NdOutputDim(nbDims %d)", i, req);
            cudnnStatus_t s1 = cudnnGetConvolutionNdForwardOutputDim(ca, xa, wa, req, o1);
            int s2 = v9_cudnnGetConvolutionNdForwardOutputDim(cb, xb, wb, req, o2);
            same_status(what, s1, s2);
            if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0)
                CHECK_MSG(!memcmp(o1, o2, k->nb * sizeof(int)), "%s: %d %d %d %d vs %d %d %d %d", what, o1[0], o1[1],
                          o1[2], o1[3], o2[0], o2[1], o2[2], o2[3]);
        }
        int a[4] = {0}, b[4] = {0};
        snprintf(what, sizeof what, "case %u 2dOutputDim", i);
        cudnnStatus_t s1 = cudnnGetConvolution2dForwardOutputDim(ca, xa, wa, &a[0], &a[1], &a[2], &a[3]);
        int s2 = v9_cudnnGetConvolution2dForwardOutputDim(cb, xb, wb, &b[0], &b[1], &b[2], &b[3]);
        same_status(what, s1, s2);
        if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0)
            CHECK_MSG(!memcmp(a, b, sizeof a), "%s: %d %d %d %d vs %d %d %d %d", what, a[0], a[1], a[2], a[3], b[0],
                      b[1], b[2], b[3]);
        cudnnDestroyTensorDescriptor(xa), v9_cudnnDestroyTensorDescriptor(xb);
        cudnnDestroyFilterDescriptor(wa), v9_cudnnDestroyFilterDescriptor(wb);
        cudnnDestroyConvolutionDescriptor(ca), v9_cudnnDestroyConvolutionDescriptor(cb);
    }
}

int main(void)
{
    if (!oracle_open()) {
        SKIP("cuDNN 9 oracle: %s", oracle_skip_reason);
        return hd_test_finish();
    }
    conv2d();
    conv_nd();
    conv_attrs();
    out_dims();
    printf("%d cases compared with NVIDIA cuDNN %d\n", cases, oracle_major());
    return hd_test_finish();
}
