/* Activation and softmax, forward and backward, against the float64 reference: every type,
 * layout, alpha/beta combination and edge shape; bad input; thread and ISA determinism. */
#include "ops_common.h"

#include <math.h>

static cudnnHandle_t H;
static const int SHAPES[][6] = { { 4, 2, 3, 5, 7 }, { 4, 1, 1, 1, 1 }, { 4, 1, 17, 3, 1 }, { 4, 3, 2, 9, 33 },
                                 { 5, 2, 3, 2, 3, 4 } };
#define NSHAPES 5

static void act_descriptor(void)
{
    SECTION("activation descriptor");
    cudnnActivationDescriptor_t a;
    CHECK_OK(cudnnCreateActivationDescriptor(&a));
    cudnnActivationMode_t m;
    cudnnNanPropagation_t p;
    double coef;
    m = (cudnnActivationMode_t)7;
    CHECK_OK(cudnnGetActivationDescriptor(a, &m, &p, &coef));   /* never set: zeros, as cuDNN answers */
    CHECK(m == CUDNN_ACTIVATION_SIGMOID && p == CUDNN_NOT_PROPAGATE_NAN && coef == 0.0);
    CHECK_OK(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_PROPAGATE_NAN, 6.0));
    CHECK_OK(cudnnGetActivationDescriptor(a, &m, &p, &coef));
    CHECK(m == CUDNN_ACTIVATION_CLIPPED_RELU && p == CUDNN_PROPAGATE_NAN && coef == 6.0);
    CHECK_STATUS(cudnnSetActivationDescriptor(a, (cudnnActivationMode_t)99, CUDNN_PROPAGATE_NAN, 1.0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetActivationDescriptor(a, (cudnnActivationMode_t)6, CUDNN_PROPAGATE_NAN, 1.0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, (cudnnNanPropagation_t)7, 1.0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetActivationDescriptor(a, &m, &p, &coef));   /* failed sets changed nothing */
    CHECK(m == CUDNN_ACTIVATION_CLIPPED_RELU && coef == 6.0);
    CHECK_OK(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, NAN));   /* cuDNN takes it */
    CHECK_STATUS(cudnnGetActivationDescriptor(a, NULL, &p, &coef), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetActivationDescriptor(NULL, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateActivationDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyActivationDescriptor(a));
    CHECK_STATUS(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0),
                 CUDNN_STATUS_BAD_PARAM);   /* destroyed */
    CHECK_OK(cudnnDestroyActivationDescriptor(NULL));
    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_STATUS(cudnnSetActivationDescriptor((cudnnActivationDescriptor_t)t, CUDNN_ACTIVATION_RELU,
                                              CUDNN_PROPAGATE_NAN, 0), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyTensorDescriptor(t);
}

/* One forward + backward run of MODE for one configuration; returns mismatches. */
static int act_case(cudnnActivationDescriptor_t a, int mode, int prop, double coef, cudnnDataType_t dt, const int *shape,
                    int lx, int ly, const double *ab, int inplace)
{
    opt_t x, y, dy, dx;
    int bad = 0;
    opt_make(&x, dt, shape[0], shape + 1, lx);
    opt_make(&y, dt, shape[0], shape + 1, inplace ? lx : ly);
    opt_make(&dy, dt, shape[0], shape + 1, ly);
    opt_make(&dx, dt, shape[0], shape + 1, lx);
    size_t n = x.n;
    double *ex = malloc(n * sizeof(double)), *y0 = malloc(n * sizeof(double)), *e = malloc(n * sizeof(double));
    double *yv = malloc(n * sizeof(double)), *dyv = malloc(n * sizeof(double)), *dx0 = malloc(n * sizeof(double));
    opt_poison(&x);
    opt_fill(&x, -4, 4, (unsigned)(mode * 7 + lx));
    if (n > 3)
        opt_set(&x, 3, 0.0);
    if (ab[1] == 0)
        opt_poison(&y);
    else
        opt_fill(&y, -1, 1, 99);
    for (size_t i = 0; i < n; i++) {
        ex[i] = opt_get(&x, i);
        y0[i] = opt_get(&y, i);
    }
    ops_scale sa, sb;
    cudnnStatus_t st;
    if (inplace) {
        memcpy(y.data, x.data, x.bytes);
        st = cudnnActivationForward(H, a, ops_sc(&sa, dt, ab[0]), x.desc, y.data, ops_sc(&sb, dt, 0.0), y.desc, y.data);
        for (size_t i = 0; i < n; i++)
            e[i] = ref_act(mode, prop, coef, ex[i]);
    } else {
        st = cudnnActivationForward(H, a, ops_sc(&sa, dt, ab[0]), x.desc, x.data, ops_sc(&sb, dt, ab[1]), y.desc, y.data);
        for (size_t i = 0; i < n; i++)
            e[i] = ab[0] * ref_act(mode, prop, coef, ex[i]) + (ab[1] != 0 ? ab[1] * y0[i] : 0.0);
    }
    if (st != CUDNN_STATUS_SUCCESS)
        bad++;
    char label[128];
    snprintf(label, sizeof label, "fwd mode %d %s %s/%s ab %g,%g%s", mode, opt_dtname(dt), opt_layoutname(lx),
             opt_layoutname(ly), ab[0], ab[1], inplace ? " in-place" : "");
    bad += opt_compare(&y, e, opt_tol(dt) * 4, label);
    if (lx == OPT_PADDED && !opt_padding_intact(&x))
        bad++;

    /* backward: y from a clean alpha=1 forward, dy random */
    opt_fill(&y, 0, 0, 0);
    ops_scale one, zero;
    cudnnActivationForward(H, a, ops_sc(&one, dt, 1.0), x.desc, x.data, ops_sc(&zero, dt, 0.0), y.desc, y.data);
    opt_fill(&dy, -2, 2, 5);
    if (ab[1] == 0)
        opt_poison(&dx);
    else
        opt_fill(&dx, -1, 1, 6);
    for (size_t i = 0; i < n; i++) {
        yv[i] = opt_get(&y, i);
        dyv[i] = opt_get(&dy, i);
        dx0[i] = opt_get(&dx, i);
        e[i] = ab[0] * ref_act_grad(mode, prop, coef, yv[i], dyv[i], ex[i]) + (ab[1] != 0 ? ab[1] * dx0[i] : 0.0);
    }
    st = cudnnActivationBackward(H, a, ops_sc(&sa, dt, ab[0]), y.desc, y.data, dy.desc, dy.data, x.desc, x.data,
                                 ops_sc(&sb, dt, ab[1]), dx.desc, dx.data);
    if (st != CUDNN_STATUS_SUCCESS)
        bad++;
    snprintf(label, sizeof label, "bwd mode %d %s %s/%s ab %g,%g", mode, opt_dtname(dt), opt_layoutname(lx),
             opt_layoutname(ly), ab[0], ab[1]);
    bad += opt_compare(&dx, e, opt_tol(dt) * 4, label);
    free(ex); free(y0); free(e); free(yv); free(dyv); free(dx0);
    opt_free(&x); opt_free(&y); opt_free(&dy); opt_free(&dx);
    return bad;
}

static void act_matrix(void)
{
    SECTION("activation forward/backward vs reference");
    cudnnActivationDescriptor_t a;
    cudnnCreateActivationDescriptor(&a);
    for (int mode = 0; mode <= 4; mode++) {
        for (int prop = 0; prop <= 1; prop++) {
            double coef = mode == 3 ? 1.5 : mode == 4 ? 0.7 : 0.0;
            cudnnSetActivationDescriptor(a, (cudnnActivationMode_t)mode, (cudnnNanPropagation_t)prop, coef);
            for (int t = 0; t < OPS_NTYPES; t++)
                for (int s = 0; s < NSHAPES; s++)
                    for (int lx = 0; lx < OPT_NLAYOUTS; lx++) {
                        int ly = (lx + s) % OPT_NLAYOUTS;
                        for (int k = 0; k < 3; k++)
                            CHECK_MSG(act_case(a, mode, prop, coef, OPS_FP[t], SHAPES[s], lx, ly, OPS_AB[k], 0) == 0,
                                      "mode %d type %d shape %d layouts %d/%d ab %d", mode, t, s, lx, ly, k);
                        CHECK(act_case(a, mode, prop, coef, OPS_FP[t], SHAPES[s], lx, lx, OPS_AB[0], 1) == 0);
                    }
        }
    }
    cudnnDestroyActivationDescriptor(a);
}

static void act_nan(void)
{
    SECTION("activation NaN propagation");
    cudnnActivationDescriptor_t a;
    cudnnCreateActivationDescriptor(&a);
    int dims[4] = { 1, 1, 1, 40 };
    opt_t x, y;
    opt_make(&x, CUDNN_DATA_FLOAT, 4, dims, OPT_NCHW);
    opt_make(&y, CUDNN_DATA_FLOAT, 4, dims, OPT_NCHW);
    float *xf = (float *)x.data, *yf = (float *)y.data;
    for (int i = 0; i < 40; i++)
        xf[i] = i % 3 == 0 ? NAN : (float)(i - 20);
    float one = 1, zero = 0;
    for (int mode = 1; mode <= 3; mode += 2) {
        cudnnSetActivationDescriptor(a, (cudnnActivationMode_t)mode, CUDNN_NOT_PROPAGATE_NAN, 5.0);
        CHECK_OK(cudnnActivationForward(H, a, &one, x.desc, x.data, &zero, y.desc, y.data));
        int ok = 1;
        for (int i = 0; i < 40; i++)
            ok &= i % 3 == 0 ? yf[i] == 0.0f : yf[i] == (float)ref_act(mode, 0, 5.0, xf[i]);
        CHECK_MSG(ok, "NOT_PROPAGATE_NAN mode %d", mode);
        cudnnSetActivationDescriptor(a, (cudnnActivationMode_t)mode, CUDNN_PROPAGATE_NAN, 5.0);
        CHECK_OK(cudnnActivationForward(H, a, &one, x.desc, x.data, &zero, y.desc, y.data));
        ok = 1;
        for (int i = 0; i < 40; i++)
            ok &= i % 3 == 0 ? isnan(yf[i]) : yf[i] == (float)ref_act(mode, 1, 5.0, xf[i]);
        CHECK_MSG(ok, "PROPAGATE_NAN mode %d", mode);
    }
    opt_free(&x);
    opt_free(&y);
    cudnnDestroyActivationDescriptor(a);
}

/* The contiguous float fast paths (RELU / CLIPPED_RELU backward, CLIPPED_RELU forward) give the
 * general strided path's bits: the same data with a last-dimension stride of 2 takes that path.
 * Coefficients a float cannot hold (0.1 rounds up, 0.7 down) test the clip comparison; NaNs,
 * zeros and values on the clip test the masks; alpha/beta the blend. */
static void act_fast_paths_bitwise(void)
{
    SECTION("activation float fast paths vs the strided path");
    enum { N = 2, C = 3, HH = 4, W = 9, E = N * C * HH * W };
    static const double coefs[] = { 6.0, 0.1, 0.7 };
    static const float ab[][2] = { { 1.0f, 0.0f }, { 0.7f, 0.0f }, { 1.3f, 0.45f } };
    int dims[4] = { N, C, HH, W }, dense[4] = { C * HH * W, HH * W, W, 1 }, wide[4];
    for (int i = 0; i < 4; i++)
        wide[i] = 2 * dense[i];
    cudnnTensorDescriptor_t dd, sd;
    cudnnCreateTensorDescriptor(&dd);
    cudnnCreateTensorDescriptor(&sd);
    cudnnSetTensorNdDescriptor(dd, CUDNN_DATA_FLOAT, 4, dims, dense);
    cudnnSetTensorNdDescriptor(sd, CUDNN_DATA_FLOAT, 4, dims, wide);
    cudnnActivationDescriptor_t a;
    cudnnCreateActivationDescriptor(&a);
    static float x[E], y[E], dy[E], dx[E], xs[2 * E], ys[2 * E], dys[2 * E], dxs[2 * E];
    for (int m = 0; m < 2; m++)
        for (int c = 0; c < 3; c++) {
            cudnnActivationMode_t mode = m ? CUDNN_ACTIVATION_CLIPPED_RELU : CUDNN_ACTIVATION_RELU;
            cudnnSetActivationDescriptor(a, mode, CUDNN_NOT_PROPAGATE_NAN, coefs[c]);
            for (int i = 0; i < E; i++) {
                float v = (float)((i * 37) % 23 - 8) * 0.05f;
                x[i] = i % 11 == 0 ? NAN : i % 13 == 0 ? -0.0f : i % 7 == 0 ? (float)coefs[c] : i % 5 == 0 ? 0.0f : v;
                y[i] = 0.25f * (float)(i % 4);
                dy[i] = 1.0f + 0.01f * (float)i;
                xs[2 * i] = x[i], ys[2 * i] = y[i], dys[2 * i] = dy[i];
            }
            for (int k = 0; k < 3; k++) {
                for (int i = 0; i < E; i++)
                    dx[i] = dxs[2 * i] = -0.5f + 0.003f * (float)i;
                CHECK_OK(cudnnActivationBackward(H, a, &ab[k][0], dd, y, dd, dy, dd, x, &ab[k][1], dd, dx));
                CHECK_OK(cudnnActivationBackward(H, a, &ab[k][0], sd, ys, sd, dys, sd, xs, &ab[k][1], sd, dxs));
                int same = 1;
                for (int i = 0; i < E; i++)
                    same &= memcmp(&dx[i], &dxs[2 * i], sizeof(float)) == 0;
                CHECK_MSG(same, "backward mode %d coef %g alpha %g beta %g", (int)mode, coefs[c], ab[k][0], ab[k][1]);
                if (ab[k][1] != 0.0f)
                    continue;
                CHECK_OK(cudnnActivationForward(H, a, &ab[k][0], dd, x, &ab[k][1], dd, dx));
                CHECK_OK(cudnnActivationForward(H, a, &ab[k][0], sd, xs, &ab[k][1], sd, dxs));
                same = 1;
                for (int i = 0; i < E; i++)
                    same &= memcmp(&dx[i], &dxs[2 * i], sizeof(float)) == 0;
                CHECK_MSG(same, "forward mode %d coef %g alpha %g", (int)mode, coefs[c], ab[k][0]);
            }
        }
    cudnnDestroyActivationDescriptor(a);
    cudnnDestroyTensorDescriptor(dd);
    cudnnDestroyTensorDescriptor(sd);
}

static void act_bad_input(void)
{
    SECTION("activation bad input");
    cudnnActivationDescriptor_t a, unset;
    cudnnCreateActivationDescriptor(&a);
    cudnnCreateActivationDescriptor(&unset);
    cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0);
    int d1[4] = { 2, 3, 4, 5 }, d2[4] = { 2, 3, 4, 6 };
    opt_t x, y, y2, yh, xi, yi;
    opt_make(&x, CUDNN_DATA_FLOAT, 4, d1, OPT_NCHW);
    opt_make(&y, CUDNN_DATA_FLOAT, 4, d1, OPT_NHWC);
    opt_make(&y2, CUDNN_DATA_FLOAT, 4, d2, OPT_NCHW);
    opt_make(&yh, CUDNN_DATA_HALF, 4, d1, OPT_NCHW);
    opt_make(&xi, CUDNN_DATA_INT8, 4, d1, OPT_NCHW);
    opt_make(&yi, CUDNN_DATA_INT8, 4, d1, OPT_NCHW);
    opt_fill(&x, -1, 1, 1);
    opt_fill(&y, 7, 7, 1);
    float one = 1, zero = 0;
    cudnnTensorDescriptor_t unset_t;
    cudnnCreateTensorDescriptor(&unset_t);
    CHECK_STATUS(cudnnActivationForward(NULL, a, &one, x.desc, x.data, &zero, y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnActivationForward(H, NULL, &one, x.desc, x.data, &zero, y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnActivationForward(H, unset, &one, x.desc, x.data, &zero, y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnActivationForward(H, a, NULL, x.desc, x.data, &zero, y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnActivationForward(H, a, &one, x.desc, NULL, &zero, y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnActivationForward(H, a, &one, unset_t, x.data, &zero, y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnActivationForward(H, a, &one, x.desc, x.data, &zero, y2.desc, y2.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnActivationForward(H, a, &one, x.desc, x.data, &zero, yh.desc, yh.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnActivationForward(H, a, &one, xi.desc, xi.data, &zero, yi.desc, yi.data),
                 CUDNN_STATUS_NOT_SUPPORTED);
    /* in-place with different strides */
    CHECK_STATUS(cudnnActivationForward(H, a, &one, x.desc, x.data, &zero, y.desc, x.data), CUDNN_STATUS_BAD_PARAM);
    cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_IDENTITY, CUDNN_PROPAGATE_NAN, 0);
    CHECK_STATUS(cudnnActivationForward(H, a, &one, x.desc, x.data, &zero, y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnActivationBackward(H, a, &one, y.desc, y.data, y.desc, y.data, x.desc, x.data, &zero, x.desc,
                                         x.data), CUDNN_STATUS_BAD_PARAM);
    int untouched = 1;
    for (size_t i = 0; i < y.n; i++)
        untouched &= opt_get(&y, i) == 7.0;
    CHECK(untouched);
    cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0);
    CHECK_STATUS(cudnnActivationBackward(H, a, &one, y.desc, y.data, y2.desc, y2.data, x.desc, x.data, &zero, x.desc,
                                         x.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnActivationBackward(H, a, &one, y.desc, y.data, y.desc, NULL, x.desc, x.data, &zero, x.desc,
                                         x.data), CUDNN_STATUS_BAD_PARAM);
    opt_free(&x); opt_free(&y); opt_free(&y2); opt_free(&yh); opt_free(&xi); opt_free(&yi);
    cudnnDestroyTensorDescriptor(unset_t);
    cudnnDestroyActivationDescriptor(a);
    cudnnDestroyActivationDescriptor(unset);
}

static int sm_case(int algo, int mode, cudnnDataType_t dt, const int *shape, int lx, int ly, const double *ab,
                   int inplace)
{
    opt_t x, y, dy, dx;
    int nd = shape[0];
    const int *dims = shape + 1;
    int bad = 0;
    opt_make(&x, dt, nd, dims, lx);
    opt_make(&y, dt, nd, dims, inplace ? lx : ly);
    opt_make(&dy, dt, nd, dims, ly);
    opt_make(&dx, dt, nd, dims, lx);
    size_t n = x.n;
    int s = 1;
    for (int i = 2; i < nd; i++)
        s *= dims[i];
    double *xv = malloc(n * 8), *y0 = malloc(n * 8), *r = malloc(n * 8), *e = malloc(n * 8), *dyv = malloc(n * 8);
    opt_fill(&x, -3, 3, (unsigned)(algo + 3 * lx));
    if (ab[1] == 0)
        opt_poison(&y);
    else
        opt_fill(&y, -1, 1, 4);
    for (size_t i = 0; i < n; i++) {
        xv[i] = opt_get(&x, i);
        y0[i] = opt_get(&y, i);
    }
    ref_softmax_fwd(algo, mode, dims[0], dims[1], s, xv, r);
    ops_scale sa, sb;
    cudnnStatus_t st;
    if (inplace) {
        memcpy(y.data, x.data, x.bytes);
        st = cudnnSoftmaxForward(H, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode, ops_sc(&sa, dt, ab[0]),
                                 y.desc, y.data, ops_sc(&sb, dt, 0), y.desc, y.data);
        for (size_t i = 0; i < n; i++)
            e[i] = ab[0] * r[i];
    } else {
        st = cudnnSoftmaxForward(H, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode, ops_sc(&sa, dt, ab[0]),
                                 x.desc, x.data, ops_sc(&sb, dt, ab[1]), y.desc, y.data);
        for (size_t i = 0; i < n; i++)
            e[i] = ab[0] * r[i] + (ab[1] != 0 ? ab[1] * y0[i] : 0);
    }
    bad += st != CUDNN_STATUS_SUCCESS;
    char label[128];
    snprintf(label, sizeof label, "softmax fwd algo %d mode %d %s %s/%s ab %g,%g", algo, mode, opt_dtname(dt),
             opt_layoutname(lx), opt_layoutname(ly), ab[0], ab[1]);
    bad += opt_compare(&y, e, opt_tol(dt) * 8, label);

    /* backward from the (rounded) reference output */
    for (size_t i = 0; i < n; i++)
        opt_set(&y, i, r[i]);
    opt_fill(&dy, -1, 1, 8);
    if (ab[1] == 0)
        opt_poison(&dx);
    else
        opt_fill(&dx, -1, 1, 9);
    for (size_t i = 0; i < n; i++) {
        r[i] = opt_get(&y, i);
        dyv[i] = opt_get(&dy, i);
        y0[i] = opt_get(&dx, i);
    }
    ref_softmax_bwd(algo, mode, dims[0], dims[1], s, r, dyv, e);
    for (size_t i = 0; i < n; i++)
        e[i] = ab[0] * e[i] + (ab[1] != 0 ? ab[1] * y0[i] : 0);
    st = cudnnSoftmaxBackward(H, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode, ops_sc(&sa, dt, ab[0]), y.desc,
                              y.data, dy.desc, dy.data, ops_sc(&sb, dt, ab[1]), dx.desc, dx.data);
    bad += st != CUDNN_STATUS_SUCCESS;
    snprintf(label, sizeof label, "softmax bwd algo %d mode %d %s %s/%s ab %g,%g", algo, mode, opt_dtname(dt),
             opt_layoutname(lx), opt_layoutname(ly), ab[0], ab[1]);
    bad += opt_compare(&dx, e, opt_tol(dt) * 16, label);
    free(xv); free(y0); free(r); free(e); free(dyv);
    opt_free(&x); opt_free(&y); opt_free(&dy); opt_free(&dx);
    return bad;
}

static void sm_matrix(void)
{
    SECTION("softmax forward/backward vs reference");
    for (int algo = 0; algo <= 2; algo++)
        for (int mode = 0; mode <= 1; mode++)
            for (int t = 0; t < OPS_NTYPES; t++)
                for (int s = 0; s < NSHAPES; s++)
                    for (int lx = 0; lx < OPT_NLAYOUTS; lx++) {
                        int ly = (lx + 1 + s) % OPT_NLAYOUTS;
                        for (int k = 0; k < 3; k++)
                            CHECK_MSG(sm_case(algo, mode, OPS_FP[t], SHAPES[s], lx, ly, OPS_AB[k], 0) == 0,
                                      "algo %d mode %d type %d shape %d layouts %d/%d ab %d", algo, mode, t, s, lx, ly,
                                      k);
                        CHECK(sm_case(algo, mode, OPS_FP[t], SHAPES[s], lx, lx, OPS_AB[1], 1) == 0);
                    }
}

/* Wide float groups (the vector kernels), with a large input range so exp underflows. */
static void sm_wide(void)
{
    SECTION("softmax wide float groups");
    /* the last shape has INSTANCE groups of 67950 values: the online (blocked) row kernels */
    const int shapes[][5] = { { 4, 3, 1000, 1, 1 }, { 4, 2, 37, 5, 7 }, { 4, 1, 1, 1, 1027 }, { 4, 2, 3, 150, 151 } };
    for (int s = 0; s < 4; s++)
        for (int mode = 0; mode <= 1; mode++)
            for (int algo = 1; algo <= 2; algo++)
                for (int l = 0; l < 2; l++) {
                    opt_t x, y;
                    opt_make(&x, CUDNN_DATA_FLOAT, 4, shapes[s] + 1, l);
                    opt_make(&y, CUDNN_DATA_FLOAT, 4, shapes[s] + 1, l);
                    opt_fill(&x, -60, 60, (unsigned)(s + 10 * algo));
                    size_t n = x.n;
                    double *xv = malloc(n * 8), *e = malloc(n * 8);
                    for (size_t i = 0; i < n; i++)
                        xv[i] = opt_get(&x, i);
                    int sp = shapes[s][3] * shapes[s][4];
                    ref_softmax_fwd(algo, mode, shapes[s][1], shapes[s][2], sp, xv, e);
                    float one = 1, zero = 0;
                    CHECK_OK(cudnnSoftmaxForward(H, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode, &one,
                                                 x.desc, x.data, &zero, y.desc, y.data));
                    /* absolute error for tiny probabilities, relative for log values */
                    int bad = 0;
                    for (size_t i = 0; i < n; i++) {
                        double g = opt_get(&y, i);
                        double tol = algo == 2 ? 1e-5 * (1 + fabs(e[i])) : 1e-6 * (1e-3 + e[i]);
                        if (!(fabs(g - e[i]) <= tol + 1e-30))
                            bad++;
                    }
                    CHECK_MSG(bad == 0, "shape %d mode %d algo %d layout %d: %d bad", s, mode, algo, l, bad);
                    free(xv);
                    free(e);
                    opt_free(&x);
                    opt_free(&y);
                }
}

/* CHANNEL mode on NCHW float data runs the blocked column kernels (blocks of up to 1024
 * positions, 4 channel rows at a time, remainders in rows, columns and blocks): several
 * blocks per image, N = 1, C = 1, C not a multiple of 4, and columns holding a NaN, +inf or
 * -inf inside an otherwise finite block; beta 0 over NaN, beta != 0, in place. */
static void sm_channel_blocks(void)
{
    SECTION("softmax CHANNEL column blocks");
    const int shapes[][4] = { { 2, 5, 40, 53 }, { 1, 1, 10, 10 }, { 1, 64, 12, 12 }, { 3, 7, 1, 37 }, { 1, 3, 1, 2049 } };
    for (int sh = 0; sh < 5; sh++)
        for (int algo = 1; algo <= 2; algo++)
            for (int k = 0; k < 4; k++) {
                const int *d = shapes[sh];
                int S = d[2] * d[3];
                opt_t x, y;
                opt_make(&x, CUDNN_DATA_FLOAT, 4, d, OPT_NCHW);
                opt_make(&y, CUDNN_DATA_FLOAT, 4, d, OPT_NCHW);
                opt_fill(&x, -20, 20, (unsigned)(sh * 7 + algo + k));
                size_t n = x.n;
                /* special columns (image 0): 3 holds a NaN, 20 a +inf, 21 a -inf */
                if (S > 21) {
                    opt_set(&x, (size_t)(d[1] - 1) * S + 3, NAN);
                    opt_set(&x, (size_t)(d[1] / 2) * S + 20, INFINITY);
                    opt_set(&x, 21, -INFINITY);
                }
                double alpha = k == 2 ? 0.75 : 1.0, beta = k == 1 ? 0.5 : 0.0;
                if (k == 1)
                    opt_fill(&y, -1, 1, 5);
                else
                    opt_poison(&y);
                double *xv = malloc(n * 8), *e = malloc(n * 8), *y0 = malloc(n * 8);
                for (size_t i = 0; i < n; i++) {
                    xv[i] = opt_get(&x, i);
                    y0[i] = opt_get(&y, i);
                }
                ref_softmax_fwd(algo, 1, d[0], d[1], S, xv, e);
                float fa = (float)alpha, fb = (float)beta;
                if (k == 3) {      /* in place */
                    memcpy(y.data, x.data, x.bytes);
                    CHECK_OK(cudnnSoftmaxForward(H, (cudnnSoftmaxAlgorithm_t)algo, CUDNN_SOFTMAX_MODE_CHANNEL, &fa,
                                                 y.desc, y.data, &fb, y.desc, y.data));
                } else {
                    CHECK_OK(cudnnSoftmaxForward(H, (cudnnSoftmaxAlgorithm_t)algo, CUDNN_SOFTMAX_MODE_CHANNEL, &fa,
                                                 x.desc, x.data, &fb, y.desc, y.data));
                }
                int bad = 0, nan_ok = 1;
                for (size_t i = 0; i < n; i++) {
                    size_t col = i % (size_t)S, img = i / ((size_t)S * d[1]);
                    double g = opt_get(&y, i);
                    if (S > 21 && img == 0 && (col == 3 || col == 20)) {
                        nan_ok &= col == 3 ? g != g : 1;     /* a NaN input makes its whole group NaN */
                        continue;
                    }
                    double blend = beta != 0 ? beta * y0[i] : 0, want = alpha * e[i] + blend;
                    double mag = fabs(alpha * e[i]) + fabs(blend);
                    double tol = algo == 2 ? 1e-5 * (1 + mag) : 1e-6 * (1e-3 + mag);
                    if (want != want ? g == g : isinf(want) ? g != want : !(fabs(g - want) <= tol + 1e-30))
                        bad++;
                }
                CHECK_MSG(bad == 0, "shape %d algo %d case %d: %d bad", sh, algo, k, bad);
                CHECK_MSG(nan_ok, "shape %d algo %d case %d: NaN group", sh, algo, k);
                free(xv);
                free(e);
                free(y0);
                opt_free(&x);
                opt_free(&y);
            }
}

/* CHANNEL softmax of float NHWC tensors with up to 32 channels and beta 0 runs 16 positions
 * at a time in channel rows (on AVX-512; the NCHW column arithmetic, which the kernel test
 * checks bit for bit): the NCHW call's values within float rounding, the same bits with 1
 * and 2 threads, for C = 1, 5, 16, 21 and 32, position counts that leave partial blocks of 16
 * in several tasks, ACCURATE and LOG; a NaN makes just its position NaN. */
static void sm_nhwc_blocks(void)
{
    SECTION("softmax CHANNEL NHWC 16-position blocks");
    const int cs[] = { 1, 5, 16, 21, 32 };
    cudnnHandle_t h1 = ops_handle(1), h2 = ops_handle(2);
    for (int ci = 0; ci < 5; ci++)
        for (int algo = 1; algo <= 2; algo++) {
            int C = cs[ci], Hh = 23, W = 41, d[4] = { 2, C, Hh, W };
            size_t S = (size_t)Hh * W, n = 2 * (size_t)C * S;
            float *xc = malloc(n * 4), *xh = malloc(n * 4), *yc = malloc(n * 4), *y1 = malloc(n * 4), *y2 = malloc(n * 4);
            unsigned r = (unsigned)(ci * 3 + algo);
            for (size_t i = 0; i < n; i++) {
                r = r * 1103515245u + 12345u;
                xc[i] = (float)((int)(r >> 16 & 4095) - 2048) / 97.0f;
            }
            for (size_t b = 0; b < 2; b++)      /* the same values, channels innermost */
                for (size_t c = 0; c < (size_t)C; c++)
                    for (size_t p = 0; p < S; p++)
                        xh[(b * S + p) * C + c] = xc[(b * C + c) * S + p];
            cudnnTensorDescriptor_t dc, dh;
            cudnnCreateTensorDescriptor(&dc);
            cudnnCreateTensorDescriptor(&dh);
            cudnnSetTensor4dDescriptor(dc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, d[0], d[1], d[2], d[3]);
            cudnnSetTensor4dDescriptor(dh, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, d[0], d[1], d[2], d[3]);
            float a = 0.75f, z = 0.0f;
            CHECK_OK(cudnnSoftmaxForward(h1, (cudnnSoftmaxAlgorithm_t)algo, CUDNN_SOFTMAX_MODE_CHANNEL, &a, dc, xc, &z,
                                         dc, yc));
            CHECK_OK(cudnnSoftmaxForward(h1, (cudnnSoftmaxAlgorithm_t)algo, CUDNN_SOFTMAX_MODE_CHANNEL, &a, dh, xh, &z,
                                         dh, y1));
            CHECK_OK(cudnnSoftmaxForward(h2, (cudnnSoftmaxAlgorithm_t)algo, CUDNN_SOFTMAX_MODE_CHANNEL, &a, dh, xh, &z,
                                         dh, y2));
            int bad = 0;
            for (size_t b = 0; b < 2; b++)
                for (size_t c = 0; c < (size_t)C; c++)
                    for (size_t p = 0; p < S; p++)
                        bad += !(fabsf(yc[(b * C + c) * S + p] - y1[(b * S + p) * C + c]) <=
                                 2e-6f * (1.0f + fabsf(yc[(b * C + c) * S + p])));
            CHECK_MSG(bad == 0, "C %d algo %d: %d values differ from NCHW", C, algo, bad);
            CHECK_MSG(memcmp(y1, y2, n * 4) == 0, "C %d algo %d: 1 and 2 threads differ", C, algo);
            xh[5 * C + C / 2] = NAN;          /* position 5 */
            CHECK_OK(cudnnSoftmaxForward(h2, (cudnnSoftmaxAlgorithm_t)algo, CUDNN_SOFTMAX_MODE_CHANNEL, &a, dh, xh, &z,
                                         dh, y2));
            int nan_ok = 1, rest = 0;
            for (size_t i = 0; i < n; i++) {
                if (i / C == 5)
                    nan_ok &= y2[i] != y2[i];
                else
                    rest += !(y2[i] == y2[i]) || fabsf(y2[i] - y1[i]) > 1e-6f * (1.0f + fabsf(y1[i]));
            }
            CHECK_MSG(nan_ok && rest == 0, "C %d algo %d: NaN position %d, %d others off", C, algo, nan_ok, rest);
            cudnnDestroyTensorDescriptor(dc);
            cudnnDestroyTensorDescriptor(dh);
            free(xc);
            free(xh);
            free(yc);
            free(y1);
            free(y2);
        }
    cudnnDestroy(h1);
    cudnnDestroy(h2);
}

/* INSTANCE groups longer than 65536 values run the online row kernels (blocks of 8192 with a
 * running maximum): a rising ramp makes every block raise the maximum (the rescaled sum), a
 * falling one never does; a NaN in a late block sends the group to the scalar rules (all NaN). */
static void sm_instance_online(void)
{
    SECTION("softmax INSTANCE online rows");
    int d[4] = { 2, 1, 270, 271 };    /* 73170 values per image, not a multiple of 16 */
    for (int kind = 0; kind < 3; kind++)
        for (int algo = 1; algo <= 2; algo++) {
            opt_t x, y;
            opt_make(&x, CUDNN_DATA_FLOAT, 4, d, OPT_NCHW);
            opt_make(&y, CUDNN_DATA_FLOAT, 4, d, OPT_NCHW);
            size_t n = x.n, per = n / 2;
            for (size_t i = 0; i < n; i++) {
                double r = (double)(i % per) / (double)per;
                opt_set(&x, i, kind == 1 ? 30 - 40 * r + 0.5 * sin((double)i) : 40 * r + 0.5 * sin((double)i));
            }
            if (kind == 2)
                opt_set(&x, per + 70000, NAN);    /* image 1, block 8 */
            opt_poison(&y);
            double *xv = malloc(n * 8), *e = malloc(n * 8);
            for (size_t i = 0; i < n; i++)
                xv[i] = opt_get(&x, i);
            ref_softmax_fwd(algo, 0, d[0], d[1], d[2] * d[3], xv, e);
            float one = 1, zero = 0;
            CHECK_OK(cudnnSoftmaxForward(H, (cudnnSoftmaxAlgorithm_t)algo, CUDNN_SOFTMAX_MODE_INSTANCE, &one, x.desc,
                                         x.data, &zero, y.desc, y.data));
            int bad = 0;
            for (size_t i = 0; i < n; i++) {
                double g = opt_get(&y, i);
                if (kind == 2 && i >= per) {
                    bad += g == g;
                    continue;
                }
                double tol = algo == 2 ? 1e-5 * (1 + fabs(e[i])) : 1e-5 * (1e-6 + fabs(e[i]));
                bad += !(fabs(g - e[i]) <= tol);
            }
            CHECK_MSG(bad == 0, "kind %d algo %d: %d bad", kind, algo, bad);
            free(xv);
            free(e);
            opt_free(&x);
            opt_free(&y);
        }
}

static void sm_bad_input(void)
{
    SECTION("softmax bad input");
    int d1[4] = { 2, 3, 4, 5 }, d2[4] = { 2, 4, 4, 5 };
    opt_t x, y, y2;
    opt_make(&x, CUDNN_DATA_FLOAT, 4, d1, OPT_NCHW);
    opt_make(&y, CUDNN_DATA_FLOAT, 4, d1, OPT_NCHW);
    opt_make(&y2, CUDNN_DATA_FLOAT, 4, d2, OPT_NCHW);
    opt_fill(&y, 3, 3, 0);
    float one = 1, zero = 0;
    CHECK_STATUS(cudnnSoftmaxForward(H, (cudnnSoftmaxAlgorithm_t)99, CUDNN_SOFTMAX_MODE_CHANNEL, &one, x.desc, x.data,
                                     &zero, y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSoftmaxForward(H, CUDNN_SOFTMAX_FAST, (cudnnSoftmaxMode_t)99, &one, x.desc, x.data, &zero, y.desc,
                                     y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSoftmaxForward(H, CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_MODE_CHANNEL, &one, x.desc, x.data, &zero,
                                     y2.desc, y2.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSoftmaxForward(H, CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_MODE_CHANNEL, &one, x.desc, x.data, NULL,
                                     y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSoftmaxForward(NULL, CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_MODE_CHANNEL, &one, x.desc, x.data, &zero,
                                     y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSoftmaxBackward(H, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, y.desc, y.data, y2.desc,
                                      y2.data, &zero, x.desc, x.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSoftmaxBackward(H, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, y.desc, y.data, x.desc,
                                      x.data, &zero, y.desc, y.data), CUDNN_STATUS_BAD_PARAM);  /* dx aliases y */
    int untouched = 1;
    for (size_t i = 0; i < y.n; i++)
        untouched &= opt_get(&y, i) == 3.0;
    CHECK(untouched);
    opt_free(&x); opt_free(&y); opt_free(&y2);
}

/* A larger float workload whose outputs are dumped for the cross-ISA and thread checks. */
static void big_workload(cudnnHandle_t h, FILE *dump, unsigned char **out, size_t *outlen)
{
    int dims[4] = { 2, 37, 29, 31 };
    opt_t x, y;
    opt_make(&x, CUDNN_DATA_FLOAT, 4, dims, OPT_NCHW);
    opt_make(&y, CUDNN_DATA_FLOAT, 4, dims, OPT_NCHW);
    opt_fill(&x, -2, 2, 77);
    cudnnActivationDescriptor_t a;
    cudnnCreateActivationDescriptor(&a);
    float alpha = 1.25f, beta = 0.5f;
    size_t total = 0;
    *out = NULL;
    for (int mode = 0; mode <= 4; mode++) {
        cudnnSetActivationDescriptor(a, (cudnnActivationMode_t)mode, CUDNN_NOT_PROPAGATE_NAN, 1.0);
        opt_fill(&y, -1, 1, 3);
        cudnnActivationForward(h, a, &alpha, x.desc, x.data, &beta, y.desc, y.data);
        *out = realloc(*out, total + y.bytes);
        memcpy(*out + total, y.data, y.bytes);
        total += y.bytes;
    }
    /* RELU with beta 0 into a buffer one float past an aligned start: the streaming-store
     * kernels when HOSTDNN_STREAM_MIN_BYTES=0 (unaligned head, odd tail) */
    {
        float zero = 0;
        size_t ne = y.bytes / sizeof(float);
        float *raw = malloc((ne + 32) * sizeof(float)), *dst = raw + 1;
        for (size_t i = 0; i < ne; i++)
            dst[i] = NAN;                          /* beta 0: never read */
        cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
        cudnnActivationForward(h, a, &alpha, x.desc, x.data, &zero, y.desc, dst);
        *out = realloc(*out, total + y.bytes);
        memcpy(*out + total, dst, y.bytes);
        total += y.bytes;
        free(raw);
    }
    /* FAST runs the generic (double) path on every ISA; the vector softmax kernels use their
     * own exp and are checked against the reference instead (sm_wide) */
    cudnnSoftmaxForward(h, CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_MODE_CHANNEL, &alpha, x.desc, x.data, &beta, y.desc,
                        y.data);
    *out = realloc(*out, total + y.bytes);
    memcpy(*out + total, y.data, y.bytes);
    total += y.bytes;
    /* ACCURATE CHANNEL softmax, beta 0, into a 64-byte aligned y with rows of 16k floats: with
     * HOSTDNN_STREAM_MIN_BYTES=0 the AVX-512 streaming-store column kernel.  Its exp is the
     * ISA's, so it goes to a second dump (OPS_DUMP2) compared within one ISA only. */
    const char *dump2 = getenv("OPS_DUMP2");
    if (dump2 && getenv("OPS_CHILD")) {
        int d2[4] = { 3, 37, 16, 40 };
        opt_t x2;
        opt_make(&x2, CUDNN_DATA_FLOAT, 4, d2, OPT_NCHW);
        opt_fill(&x2, -5, 5, 91);
        size_t ne = x2.bytes / sizeof(float);
        float *yb = aligned_alloc(64, (ne * sizeof(float) + 63) / 64 * 64), zero = 0;
        for (size_t i = 0; i < ne; i++)
            yb[i] = NAN;                           /* beta 0: never read */
        cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &alpha, x2.desc, x2.data, &zero,
                            x2.desc, yb);
        FILE *f2 = fopen(dump2, "wb");
        if (f2) {
            fwrite(yb, 1, x2.bytes, f2);
            fclose(f2);
        }
        free(yb);
        opt_free(&x2);
    }
    if (dump)
        fwrite(*out, 1, total, dump);
    *outlen = total;
    cudnnDestroyActivationDescriptor(a);
    opt_free(&x);
    opt_free(&y);
}

static void determinism(void)
{
    SECTION("threads and ISA determinism");
    cudnnHandle_t h1 = ops_handle(1), h3 = ops_handle(3);
    unsigned char *o1, *o3;
    size_t n1, n3;
    const char *dump = getenv("OPS_DUMP");
    FILE *f = dump ? fopen(dump, "wb") : NULL;
    big_workload(h1, f, &o1, &n1);
    if (f)
        fclose(f);
    big_workload(h3, NULL, &o3, &n3);
    CHECK(n1 == n3 && memcmp(o1, o3, n1) == 0);
    free(o1);
    free(o3);
    cudnnDestroy(h1);
    cudnnDestroy(h3);
}

int main(void)
{
    int child = getenv("OPS_CHILD") != NULL;
    H = ops_handle(2);
    /* ISA children re-run the float paths (the only ones with vector kernels); under the
     * sanitizers they run just the bitwise workload, to keep the program fast */
    const char *mode = getenv("HD_MODE");
    int light = child && mode && strstr(mode, "sanitized");
    ops_float_only = child;
    if (!light) {
        act_descriptor();
        act_matrix();
        act_nan();
        act_fast_paths_bitwise();
        act_bad_input();
        sm_matrix();
        sm_wide();
        sm_channel_blocks();
        sm_nhwc_blocks();
        sm_instance_online();
        sm_bad_input();
    }
    determinism();
    cudnnDestroy(H);
    if (!child) {
        SECTION("ISA caps");
        char d0[64], d1[64], d2[64];
        snprintf(d0, sizeof d0, "/tmp/hd_ops_act_%d_scalar", (int)getpid());
        snprintf(d1, sizeof d1, "/tmp/hd_ops_act_%d_avx2", (int)getpid());
        snprintf(d2, sizeof d2, "/tmp/hd_ops_act_%d_avx512", (int)getpid());
        CHECK_EQ_INT(ops_run_child("scalar", d0), 0);
        CHECK_EQ_INT(ops_run_child("avx2", d1), 0);
        CHECK_EQ_INT(ops_run_child("avx512", d2), 0);
        CHECK(ops_same_files(d0, d1));
        CHECK(ops_same_files(d0, d2));
        /* streaming stores (forced for every size) give the plain kernels' bits */
        SECTION("streaming stores");
        char d3[64], d4[64];
        snprintf(d3, sizeof d3, "/tmp/hd_ops_act_%d_avx2_nt", (int)getpid());
        snprintf(d4, sizeof d4, "/tmp/hd_ops_act_%d_avx512_nt", (int)getpid());
        char s_plain[64], s_nt[64];       /* the AVX-512 softmax, plain and streaming */
        snprintf(s_plain, sizeof s_plain, "/tmp/hd_ops_act_%d_sm_plain", (int)getpid());
        snprintf(s_nt, sizeof s_nt, "/tmp/hd_ops_act_%d_sm_nt", (int)getpid());
        setenv("OPS_DUMP2", s_plain, 1);
        CHECK_EQ_INT(ops_run_child("avx512", d2), 0);
        setenv("HOSTDNN_STREAM_MIN_BYTES", "0", 1);
        CHECK_EQ_INT(ops_run_child("avx2", d3), 0);
        setenv("OPS_DUMP2", s_nt, 1);
        CHECK_EQ_INT(ops_run_child("avx512", d4), 0);
        unsetenv("HOSTDNN_STREAM_MIN_BYTES");
        unsetenv("OPS_DUMP2");
        CHECK(ops_same_files(d0, d3));
        CHECK(ops_same_files(d0, d4));
        CHECK(ops_same_files(s_plain, s_nt));
        remove(s_plain);
        remove(s_nt);
        remove(d0);
        remove(d1);
        remove(d2);
        remove(d3);
        remove(d4);
    }
    return hd_test_finish();
}
