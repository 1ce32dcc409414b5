/* The ops descriptors' setters against NVIDIA's cuDNN 9 (tests/oracle.h): same status for
 * the same arguments, except the documented 8.1 differences listed in DIFFERENT below.
 * Skipped (0 checks) when the vendor library is absent or under the sanitizers. */
#define _GNU_SOURCE   /* dlmopen, in oracle.h */
#include <cudnn.h>
#include <math.h>
#include <stdio.h>
#include "harness.h"
#include "oracle.h"

#define SAME(label, ours, theirs) do { int a_ = (ours), b_ = (theirs); \
    CHECK_MSG(strcmp(cudnnGetErrorString(a_), oracle_status(b_)) == 0, "%s: ours %s, cuDNN 9 %s", label, \
              cudnnGetErrorString(a_), oracle_status(b_)); } while (0)

int main(void)
{
    if (!oracle_open()) {
        SKIP("cuDNN 9 oracle: %s", oracle_skip_reason);
        return hd_test_finish();
    }
    ORACLE_FN(cudnnCreateActivationDescriptor); ORACLE_FN(cudnnSetActivationDescriptor);
    ORACLE_FN(cudnnGetActivationDescriptor);
    ORACLE_FN(cudnnCreateOpTensorDescriptor); ORACLE_FN(cudnnSetOpTensorDescriptor);
    ORACLE_FN(cudnnCreateReduceTensorDescriptor); ORACLE_FN(cudnnSetReduceTensorDescriptor);
    ORACLE_FN(cudnnCreateTensorTransformDescriptor); ORACLE_FN(cudnnSetTensorTransformDescriptor);
    ORACLE_FN(cudnnGetTensorTransformDescriptor);
    ORACLE_FN(cudnnCreateSpatialTransformerDescriptor); ORACLE_FN(cudnnSetSpatialTransformerNdDescriptor);
    char l[128];

    SECTION("activation descriptor");
    cudnnActivationDescriptor_t a, b;
    cudnnCreateActivationDescriptor(&a);
    v9_cudnnCreateActivationDescriptor(&b);
    /* DIFFERENT: mode 6 (SWISH) arrived in cuDNN 8.2; 8.1 refuses it */
    const int modes[] = { 0, 1, 2, 3, 4, 5, 7, 99, -1 };
    for (int i = 0; i < 9; i++)
        for (int nan = 0; nan <= 2; nan++) {
            snprintf(l, sizeof l, "SetActivationDescriptor mode %d nan %d", modes[i], nan);
            SAME(l, cudnnSetActivationDescriptor(a, (cudnnActivationMode_t)modes[i], (cudnnNanPropagation_t)nan, 1.5),
                 v9_cudnnSetActivationDescriptor(b, (cudnnActivationMode_t)modes[i], (cudnnNanPropagation_t)nan, 1.5));
        }
    SAME("coef NaN", cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_ELU, CUDNN_PROPAGATE_NAN, NAN),
         v9_cudnnSetActivationDescriptor(b, CUDNN_ACTIVATION_ELU, CUDNN_PROPAGATE_NAN, NAN));
    SAME("coef -1", cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_PROPAGATE_NAN, -1),
         v9_cudnnSetActivationDescriptor(b, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_PROPAGATE_NAN, -1));
    cudnnActivationMode_t m1, m2;
    cudnnNanPropagation_t n1, n2;
    double c1, c2;
    CHECK_OK(cudnnGetActivationDescriptor(a, &m1, &n1, &c1));
    v9_cudnnGetActivationDescriptor(b, &m2, &n2, &c2);
    CHECK(m1 == m2 && n1 == n2 && c1 == c2);

    SECTION("op-tensor and reduce descriptors");
    cudnnOpTensorDescriptor_t o, p;
    cudnnCreateOpTensorDescriptor(&o);
    v9_cudnnCreateOpTensorDescriptor(&p);
    cudnnReduceTensorDescriptor_t r, s;
    cudnnCreateReduceTensorDescriptor(&r);
    v9_cudnnCreateReduceTensorDescriptor(&s);
    const int types[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 14, 99, -1 };
    for (int op = -1; op <= 10; op++)
        for (int t = 0; t < 13; t++)
            for (int nan = 0; nan <= 2; nan += 2) {
                snprintf(l, sizeof l, "SetOpTensorDescriptor op %d comp %d nan %d", op, types[t], nan);
                SAME(l, cudnnSetOpTensorDescriptor(o, (cudnnOpTensorOp_t)op, (cudnnDataType_t)types[t], (cudnnNanPropagation_t)nan),
                     v9_cudnnSetOpTensorDescriptor(p, (cudnnOpTensorOp_t)op, (cudnnDataType_t)types[t], (cudnnNanPropagation_t)nan));
                snprintf(l, sizeof l, "SetReduceTensorDescriptor op %d comp %d nan %d", op, types[t], nan);
                SAME(l, cudnnSetReduceTensorDescriptor(r, (cudnnReduceTensorOp_t)op, (cudnnDataType_t)types[t],
                                                       (cudnnNanPropagation_t)nan, CUDNN_REDUCE_TENSOR_NO_INDICES,
                                                       CUDNN_32BIT_INDICES),
                     v9_cudnnSetReduceTensorDescriptor(s, (cudnnReduceTensorOp_t)op, (cudnnDataType_t)types[t],
                                                       (cudnnNanPropagation_t)nan, CUDNN_REDUCE_TENSOR_NO_INDICES,
                                                       CUDNN_32BIT_INDICES));
            }
    for (int ind = -1; ind <= 3; ind++)
        for (int it = -1; it <= 5; it++) {
            snprintf(l, sizeof l, "SetReduceTensorDescriptor indices %d type %d", ind, it);
            SAME(l, cudnnSetReduceTensorDescriptor(r, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                                   (cudnnReduceTensorIndices_t)ind, (cudnnIndicesType_t)it),
                 v9_cudnnSetReduceTensorDescriptor(s, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                                   (cudnnReduceTensorIndices_t)ind, (cudnnIndicesType_t)it));
        }

    SECTION("tensor transform descriptor");
    cudnnTensorTransformDescriptor_t t, u;
    cudnnCreateTensorTransformDescriptor(&t);
    v9_cudnnCreateTensorTransformDescriptor(&u);
    int32_t pb[8] = { 0, 1, 2, 0, 0, 0, 0, 0 }, pa[8] = { 0, 0, 1, 3, 0, 0, 0, 0 }, neg[8] = { 0, -1, 0, 0 };
    uint32_t f1[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, f0[8] = { 1, 0, 2, 1, 1, 1, 1, 1 };
    /* DIFFERENT: cuDNN 9 takes a negative format and any direction value; we refuse
     * out-of-range enums (format: NOT_SUPPORTED like cuDNN 9's answer for 3.., direction:
     * BAD_PARAM), checked in test_ops_tensor */
    for (int nb = 0; nb <= 10; nb++)
        for (int fmt = 0; fmt <= 4; fmt++)
            for (int dir = 0; dir <= 1; dir++) {
                snprintf(l, sizeof l, "SetTensorTransformDescriptor nb %d fmt %d dir %d", nb, fmt, dir);
                if (nb == 2 && oracle_major() >= 9) {
                    /* DIFFERENT: cuDNN 9 takes 2 dimensions; cuDNN 8 (and hostdnn) answer BAD_PARAM */
                    CHECK_STATUS(cudnnSetTensorTransformDescriptor(t, 2, (cudnnTensorFormat_t)fmt, pb, pa, f1,
                                                                   (cudnnFoldingDirection_t)dir),
                                 CUDNN_STATUS_BAD_PARAM);
                    continue;
                }
                SAME(l, cudnnSetTensorTransformDescriptor(t, (uint32_t)nb, (cudnnTensorFormat_t)fmt, pb, pa, f1,
                                                          (cudnnFoldingDirection_t)dir),
                     v9_cudnnSetTensorTransformDescriptor(u, (uint32_t)nb, (cudnnTensorFormat_t)fmt, pb, pa, f1,
                                                          (cudnnFoldingDirection_t)dir));
            }
    SAME("negative pad", cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NHWC, neg, pa, f1, CUDNN_TRANSFORM_FOLD),
         v9_cudnnSetTensorTransformDescriptor(u, 4, CUDNN_TENSOR_NHWC, neg, pa, f1, CUDNN_TRANSFORM_FOLD));
    SAME("fold 0 and 2", cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NHWC, pb, pa, f0, CUDNN_TRANSFORM_UNFOLD),
         v9_cudnnSetTensorTransformDescriptor(u, 4, CUDNN_TENSOR_NHWC, pb, pa, f0, CUDNN_TRANSFORM_UNFOLD));
    uint32_t f2[8] = { 1, 1, 2, 3, 1, 1, 1, 1 };
    SAME("fold 2 and 3", cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NHWC, pb, pa, f2, CUDNN_TRANSFORM_UNFOLD),
         v9_cudnnSetTensorTransformDescriptor(u, 4, CUDNN_TENSOR_NHWC, pb, pa, f2, CUDNN_TRANSFORM_UNFOLD));
    cudnnTensorFormat_t fa, fb;
    cudnnFoldingDirection_t da, db;
    int32_t b1[4], b2[4], a1[4], a2[4];
    uint32_t g1[4] = { 7, 7, 7, 7 }, g2[4] = { 7, 7, 7, 7 };   /* only the 2 spatial entries are written */
    CHECK_OK(cudnnGetTensorTransformDescriptor(t, 4, &fa, b1, a1, g1, &da));
    v9_cudnnGetTensorTransformDescriptor(u, 4, &fb, b2, a2, g2, &db);
    CHECK_MSG(fa == fb && da == db && memcmp(b1, b2, sizeof b1) == 0 && memcmp(a1, a2, sizeof a1) == 0 &&
              memcmp(g1, g2, sizeof g1) == 0, "ours fmt %d dir %d pads %d %d %d %d / %d %d %d %d fold %u %u %u %u; "
              "cuDNN 9 fmt %d dir %d pads %d %d %d %d / %d %d %d %d fold %u %u %u %u", fa, da, b1[0], b1[1], b1[2],
              b1[3], a1[0], a1[1], a1[2], a1[3], g1[0], g1[1], g1[2], g1[3], fb, db, b2[0], b2[1], b2[2], b2[3], a2[0],
              a2[1], a2[2], a2[3], g2[0], g2[1], g2[2], g2[3]);

    SECTION("spatial transformer descriptor");
    /* DIFFERENT: cuDNN 9 stores nbDims other than 4 and zero dims; 8.1 documents 4-d only
     * (NOT_SUPPORTED) and we refuse zero dims (BAD_PARAM).  INT8 data: both refuse. */
    cudnnSpatialTransformerDescriptor_t x, y;
    cudnnCreateSpatialTransformerDescriptor(&x);
    v9_cudnnCreateSpatialTransformerDescriptor(&y);
    int dims[4] = { 2, 3, 4, 5 };
    const int st_types[] = { 0, 1, 2, 4, 5, 6, 9, 14, 99, -1 };
    for (int sampler = -1; sampler <= 2; sampler++)
        for (int k = 0; k < 10; k++) {
            snprintf(l, sizeof l, "SetSpatialTransformerNdDescriptor sampler %d type %d", sampler, st_types[k]);
            SAME(l, cudnnSetSpatialTransformerNdDescriptor(x, (cudnnSamplerType_t)sampler, (cudnnDataType_t)st_types[k], 4, dims),
                 v9_cudnnSetSpatialTransformerNdDescriptor(y, (cudnnSamplerType_t)sampler, (cudnnDataType_t)st_types[k], 4, dims));
        }
    printf("compared with NVIDIA cuDNN %d\n", oracle_major());
    return hd_test_finish();
}
