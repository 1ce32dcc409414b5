/*
 * Differential test of the pooling, LRN and normalization descriptor calls against NVIDIA
 * cuDNN 9 (tests/oracle.h): statuses by name, and what reads back (output sizes, derived
 * descriptors).  Skipped when cuDNN 9 is absent and under the sanitizers.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <math.h>
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

typedef struct { int mode, nan, wh, ww, ph, pw, sh, sw; } p2_case;

static void pooling(void)
{
    SECTION("oracle pooling");
    ORACLE_FN(cudnnCreatePoolingDescriptor);
    ORACLE_FN(cudnnSetPooling2dDescriptor);
    ORACLE_FN(cudnnGetPooling2dDescriptor);
    ORACLE_FN(cudnnSetPoolingNdDescriptor);
    ORACLE_FN(cudnnGetPoolingNdDescriptor);
    ORACLE_FN(cudnnGetPooling2dForwardOutputDim);
    ORACLE_FN(cudnnGetPoolingNdForwardOutputDim);
    ORACLE_FN(cudnnDestroyPoolingDescriptor);
    ORACLE_FN(cudnnCreateTensorDescriptor);
    ORACLE_FN(cudnnSetTensor4dDescriptor);
    ORACLE_FN(cudnnSetTensorNdDescriptorEx);
    ORACLE_FN(cudnnDestroyTensorDescriptor);
    if (!v9_cudnnSetPooling2dDescriptor || !v9_cudnnGetPooling2dForwardOutputDim) {
        SKIP("pooling vs the oracle: it has no legacy pooling calls");
        return;
    }
    cudnnPoolingDescriptor_t a, b;
    cudnnTensorDescriptor_t ta, tb;
    cudnnCreatePoolingDescriptor(&a);
    v9_cudnnCreatePoolingDescriptor(&b);
    cudnnCreateTensorDescriptor(&ta);
    v9_cudnnCreateTensorDescriptor(&tb);
    cudnnSetTensor4dDescriptor(ta, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 7, 8);
    v9_cudnnSetTensor4dDescriptor(tb, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 7, 8);
    static const p2_case cs[] = {
        {0, 0, 3, 3, 1, 1, 2, 2}, {1, 1, 2, 3, 0, 1, 1, 2}, {2, 0, 9, 9, 1, 1, 1, 1}, {3, 1, 1, 1, 0, 0, 1, 1},
        {0, 0, 0, 3, 0, 0, 1, 1}, {0, 0, 3, -1, 0, 0, 1, 1}, {0, 0, 3, 3, -1, 0, 1, 1}, {0, 0, 3, 3, 0, -2, 1, 1},
        {0, 0, 3, 3, 0, 0, 0, 1}, {0, 0, 3, 3, 0, 0, 1, -3}, {99, 0, 3, 3, 0, 0, 1, 1}, {0, 7, 3, 3, 0, 0, 1, 1},
        {0, 0, 2, 2, 2, 2, 1, 1}, {0, 0, 2, 2, 3, 0, 1, 1}, {1, 0, 10, 3, 1, 0, 1, 1}, {2, 0, 3, 10, 0, 1, 1, 1},
        {0, 0, 8, 9, 0, 0, 1, 1}, {0, 0, 7, 8, 0, 0, 5, 5}, {-1, 0, 3, 3, 0, 0, 1, 1},
    };
    for (unsigned i = 0; i < sizeof cs / sizeof *cs; i++) {
        const p2_case *c = &cs[i];
        char what[96];
        snprintf(what, sizeof what, "SetPooling2d(case %u)", i);
        cudnnStatus_t sa = cudnnSetPooling2dDescriptor(a, c->mode, c->nan, c->wh, c->ww, c->ph, c->pw, c->sh, c->sw);
        int sb = v9_cudnnSetPooling2dDescriptor(b, c->mode, c->nan, c->wh, c->ww, c->ph, c->pw, c->sh, c->sw);
        same_status(what, sa, sb);
        if (sa != CUDNN_STATUS_SUCCESS || sb != 0)
            continue;
        int n1, c1, h1, w1, n2, c2, h2, w2;
        snprintf(what, sizeof what, "GetPooling2dForwardOutputDim(case %u)", i);
        sa = cudnnGetPooling2dForwardOutputDim(a, ta, &n1, &c1, &h1, &w1);
        sb = v9_cudnnGetPooling2dForwardOutputDim(b, tb, &n2, &c2, &h2, &w2);
        same_status(what, sa, sb);
        if (sa == CUDNN_STATUS_SUCCESS && sb == 0)
            CHECK_MSG(n1 == n2 && c1 == c2 && h1 == h2 && w1 == w2, "%s: %dx%dx%dx%d vs %dx%dx%dx%d", what, n1, c1, h1, w1,
                      n2, c2, h2, w2);
    }
    /* Nd */
    int win[8] = {2, 2, 2, 2, 2, 2, 2, 2}, pad[8] = {0}, st[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    for (int nb = -1; nb <= 8; nb++) {
        char what[64];
        snprintf(what, sizeof what, "SetPoolingNd(nbDims %d)", nb);
        same_status(what, cudnnSetPoolingNdDescriptor(a, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, nb, win, pad, st),
                    v9_cudnnSetPoolingNdDescriptor(b, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, nb, win, pad, st));
    }
    int w3[3] = {2, 3, 4}, p3[3] = {0, 1, 2}, s3[3] = {1, 2, 3};
    cudnnSetPoolingNdDescriptor(a, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, w3, p3, s3);
    v9_cudnnSetPoolingNdDescriptor(b, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, w3, p3, s3);
    int dims5[5] = {1, 2, 5, 6, 7}, o1[8] = {0}, o2[8] = {0};
    cudnnSetTensorNdDescriptorEx(ta, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 5, dims5);
    v9_cudnnSetTensorNdDescriptorEx(tb, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 5, dims5);
    for (int nb = 3; nb <= 6; nb++) {
        char what[64];
        snprintf(what, sizeof what, "GetPoolingNdForwardOutputDim(nbDims %d)", nb);
        cudnnStatus_t sa = cudnnGetPoolingNdForwardOutputDim(a, ta, nb, o1);
        int sb = v9_cudnnGetPoolingNdForwardOutputDim(b, tb, nb, o2);
        same_status(what, sa, sb);
        if (sa == CUDNN_STATUS_SUCCESS && sb == 0)
            CHECK_MSG(memcmp(o1, o2, sizeof o1) == 0, "%s dims", what);
    }
    cudnnPoolingMode_t m1, m2;
    cudnnNanPropagation_t q1, q2;
    int i1[8], i2[8];
    same_status("GetPooling2d on a 3-d descriptor",
                cudnnGetPooling2dDescriptor(a, &m1, &q1, i1, i1 + 1, i1 + 2, i1 + 3, i1 + 4, i1 + 5),
                v9_cudnnGetPooling2dDescriptor(b, &m2, &q2, i2, i2 + 1, i2 + 2, i2 + 3, i2 + 4, i2 + 5));
    int nb1, nb2, x1[8], x2[8], y1[8], y2[8];
    for (int req = 0; req <= 7; req += 7) {
        char what[64];
        snprintf(what, sizeof what, "GetPoolingNd(nbDimsRequested %d)", req);
        same_status(what, cudnnGetPoolingNdDescriptor(a, req, &m1, &q1, &nb1, i1, x1, y1),
                    v9_cudnnGetPoolingNdDescriptor(b, req, &m2, &q2, &nb2, i2, x2, y2));
    }
    cudnnDestroyPoolingDescriptor(a);
    v9_cudnnDestroyPoolingDescriptor(b);
    cudnnDestroyTensorDescriptor(ta);
    v9_cudnnDestroyTensorDescriptor(tb);
}

static void lrn(void)
{
    SECTION("oracle lrn");
    ORACLE_FN(cudnnCreateLRNDescriptor);
    ORACLE_FN(cudnnSetLRNDescriptor);
    ORACLE_FN(cudnnGetLRNDescriptor);
    ORACLE_FN(cudnnDestroyLRNDescriptor);
    if (!v9_cudnnSetLRNDescriptor) {
        SKIP("LRN vs the oracle: it has no LRN calls");
        return;
    }
    cudnnLRNDescriptor_t a, b;
    cudnnCreateLRNDescriptor(&a);
    v9_cudnnCreateLRNDescriptor(&b);
    unsigned n1, n2;
    double a1, a2, b1, b2, k1, k2;
    cudnnGetLRNDescriptor(a, &n1, &a1, &b1, &k1);
    v9_cudnnGetLRNDescriptor(b, &n2, &a2, &b2, &k2);
    cases++;
    CHECK_MSG(n1 == n2 && a1 == a2 && b1 == b2 && k1 == k2, "defaults: %u %g %g %g vs %u %g %g %g", n1, a1, b1, k1, n2, a2,
              b2, k2);
    static const struct { unsigned n; double a, b, k; } cs[] = {
        {5, 1e-4, 0.75, 2}, {1, 1, 0.01, 1e-5}, {16, -1, 5, 100}, {0, 1e-4, 0.75, 2}, {17, 1e-4, 0.75, 2},
        {5, 1e-4, 0.0099, 2}, {5, 1e-4, 0.75, 0.9e-5}, {4, 0, 0.5, 1},
    };
    for (unsigned i = 0; i < sizeof cs / sizeof *cs; i++) {
        char what[64];
        snprintf(what, sizeof what, "SetLRN(case %u)", i);
        same_status(what, cudnnSetLRNDescriptor(a, cs[i].n, cs[i].a, cs[i].b, cs[i].k),
                    v9_cudnnSetLRNDescriptor(b, cs[i].n, cs[i].a, cs[i].b, cs[i].k));
    }
    cudnnDestroyLRNDescriptor(a);
    v9_cudnnDestroyLRNDescriptor(b);
}

static void derive(void)
{
    SECTION("oracle derive");
    ORACLE_FN(cudnnCreateTensorDescriptor);
    ORACLE_FN(cudnnSetTensorNdDescriptorEx);
    ORACLE_FN(cudnnGetTensorNdDescriptor);
    ORACLE_FN(cudnnDeriveBNTensorDescriptor);
    ORACLE_FN(cudnnDeriveNormTensorDescriptor);
    ORACLE_FN(cudnnDestroyTensorDescriptor);
    if (!v9_cudnnDeriveBNTensorDescriptor) {
        SKIP("cudnnDeriveBNTensorDescriptor vs the oracle: it has none");
        return;
    }
    cudnnTensorDescriptor_t xa, xb, da, db, ma, mb;
    cudnnCreateTensorDescriptor(&xa);
    cudnnCreateTensorDescriptor(&da);
    cudnnCreateTensorDescriptor(&ma);
    v9_cudnnCreateTensorDescriptor(&xb);
    v9_cudnnCreateTensorDescriptor(&db);
    v9_cudnnCreateTensorDescriptor(&mb);
    static const cudnnDataType_t types[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    int dims[5] = {2, 3, 4, 5, 6};
    for (int ti = 0; ti < 4; ti++)
        for (int nb = 4; nb <= 5; nb++)
            for (int mode = 0; mode <= 3; mode++) {
                cudnnSetTensorNdDescriptorEx(xa, CUDNN_TENSOR_NCHW, types[ti], nb, dims);
                v9_cudnnSetTensorNdDescriptorEx(xb, CUDNN_TENSOR_NCHW, types[ti], nb, dims);
                char what[80];
                snprintf(what, sizeof what, "DeriveBN(type %d, %d-d, mode %d)", (int)types[ti], nb, mode);
                cudnnStatus_t sa = cudnnDeriveBNTensorDescriptor(da, xa, (cudnnBatchNormMode_t)mode);
                int sb = v9_cudnnDeriveBNTensorDescriptor(db, xb, (cudnnBatchNormMode_t)mode);
                same_status(what, sa, sb);
                if (sa == CUDNN_STATUS_SUCCESS && sb == 0) {
                    cudnnDataType_t t1, t2;
                    int n1, n2, d1[8], d2[8], s1[8], s2[8];
                    cudnnGetTensorNdDescriptor(da, 8, &t1, &n1, d1, s1);
                    v9_cudnnGetTensorNdDescriptor(db, 8, &t2, &n2, d2, s2);
                    CHECK_MSG(t1 == t2 && n1 == n2 && memcmp(d1, d2, sizeof(int) * n1) == 0 &&
                                  memcmp(s1, s2, sizeof(int) * n1) == 0, "%s: derived descriptor differs", what);
                }
                if (mode <= 1 && v9_cudnnDeriveNormTensorDescriptor)
                    for (int g = 0; g <= 2; g++) {
                        snprintf(what, sizeof what, "DeriveNorm(type %d, %d-d, mode %d, groups %d)", (int)types[ti], nb,
                                 mode, g);
                        same_status(what, cudnnDeriveNormTensorDescriptor(da, ma, xa, (cudnnNormMode_t)mode, g),
                                    v9_cudnnDeriveNormTensorDescriptor(db, mb, xb, (cudnnNormMode_t)mode, g));
                    }
            }
    int d3[3] = {2, 3, 4};
    cudnnSetTensorNdDescriptorEx(xa, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 3, d3);
    v9_cudnnSetTensorNdDescriptorEx(xb, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 3, d3);
    same_status("DeriveBN(3-d)", cudnnDeriveBNTensorDescriptor(da, xa, CUDNN_BATCHNORM_SPATIAL),
                v9_cudnnDeriveBNTensorDescriptor(db, xb, CUDNN_BATCHNORM_SPATIAL));
    cudnnDestroyTensorDescriptor(xa);
    cudnnDestroyTensorDescriptor(da);
    cudnnDestroyTensorDescriptor(ma);
    v9_cudnnDestroyTensorDescriptor(xb);
    v9_cudnnDestroyTensorDescriptor(db);
    v9_cudnnDestroyTensorDescriptor(mb);
}

int main(void)
{
    if (!oracle_open()) {
        SKIP("cuDNN 9 oracle: %s", oracle_skip_reason);
        return hd_test_finish();
    }
    pooling();
    lrn();
    derive();
    printf("%d cases compared with NVIDIA cuDNN %d\n", cases, oracle_major());
    return hd_test_finish();
}
