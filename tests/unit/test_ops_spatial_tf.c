/* Spatial transformer: descriptor, grid generator and bilinear sampler forward/backward
 * against the float64 reference, a finite-difference check of the gradients, every type,
 * strided layouts, alpha/beta, bad input. */
#include "ops_common.h"

#include <math.h>

static cudnnHandle_t H;

static void descriptor(void)
{
    SECTION("spatial transformer descriptor");
    cudnnSpatialTransformerDescriptor_t d;
    CHECK_OK(cudnnCreateSpatialTransformerDescriptor(&d));
    int dims[4] = { 2, 3, 4, 5 }, bad[4] = { 2, 0, 4, 5 };
    CHECK_OK(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, dims));
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(d, (cudnnSamplerType_t)3, CUDNN_DATA_FLOAT, 4, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_INT8, 4, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, bad),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, NULL),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 5, dims),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 2, dims),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_BFLOAT16, 4, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateSpatialTransformerDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroySpatialTransformerDescriptor(d));
    CHECK_STATUS(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, dims),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroySpatialTransformerDescriptor(NULL));
}

/* A flat buffer of type DT holding COUNT values. */
static void *flat(cudnnDataType_t dt, size_t count, const double *v, opt_t *holder)
{
    int dims[4] = { 1, 1, 1, (int)count };
    opt_make(holder, dt, 4, dims, OPT_NCHW);
    if (v)
        for (size_t i = 0; i < count; i++)
            opt_set(holder, i, v[i]);
    return holder->data;
}

static int st_case(cudnnDataType_t dt, int n, int c, int hi, int wi, int h, int w, int lx, int ly, const double *ab)
{
    int bad = 0;
    cudnnSpatialTransformerDescriptor_t d;
    cudnnCreateSpatialTransformerDescriptor(&d);
    int odims[4] = { n, c, h, w }, idims[4] = { n, c, hi, wi };
    cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, dt, 4, odims);
    size_t ng = (size_t)n * h * w * 2;
    double *theta = malloc(6 * n * 8), *grid = malloc(ng * 8), *gr = malloc(ng * 8);
    for (int b = 0; b < n; b++) {
        double a = 0.3 * b + 0.2;
        double t[6] = { 1.1 * cos(a), -sin(a), 0.1 * b - 0.05, sin(a), 0.9 * cos(a), 0.07 };
        memcpy(theta + 6 * b, t, sizeof t);
    }
    opt_t th, gd;
    void *thp = flat(dt, 6 * n, theta, &th), *gdp = flat(dt, ng, NULL, &gd);
    for (int i = 0; i < 6 * n; i++)
        theta[i] = opt_get(&th, i);
    bad += cudnnSpatialTfGridGeneratorForward(H, d, thp, gdp) != CUDNN_STATUS_SUCCESS;
    ref_st_grid(n, h, w, theta, grid);
    bad += opt_compare(&gd, grid, opt_tol(dt) * 4, "grid");
    for (size_t i = 0; i < ng; i++)
        gr[i] = opt_get(&gd, i);

    opt_t x, y, dx, dy, dg;
    opt_make(&x, dt, 4, idims, lx);
    opt_make(&y, dt, 4, odims, ly);
    opt_make(&dx, dt, 4, idims, ly);
    opt_make(&dy, dt, 4, odims, lx);
    opt_fill(&x, -2, 2, 71);
    opt_fill(&dy, -1, 1, 72);
    if (ab[1] == 0) {
        opt_poison(&y);
        opt_poison(&dx);
    } else {
        opt_fill(&y, -1, 1, 73);
        opt_fill(&dx, -1, 1, 74);
    }
    size_t nx = x.n, ny = y.n;
    double *xv = malloc(nx * 8), *yv = malloc(ny * 8), *e = malloc((nx > ny ? nx : ny) * 8), *dyv = malloc(ny * 8);
    double *rdx = malloc(nx * 8), *rdg = malloc(ng * 8), *eg = malloc(ng * 8);
    for (size_t i = 0; i < nx; i++)
        xv[i] = opt_get(&x, i);
    for (size_t i = 0; i < ny; i++)
        dyv[i] = opt_get(&dy, i);
    ref_st_sample(n, c, hi, wi, h, w, xv, gr, yv);
    for (size_t i = 0; i < ny; i++)
        e[i] = ab[0] * yv[i] + (ab[1] != 0 ? ab[1] * opt_get(&y, i) : 0);
    ops_scale sa, sb, sga, sgb;
    bad += cudnnSpatialTfSamplerForward(H, d, ops_sc(&sa, dt, ab[0]), x.desc, x.data, gdp, ops_sc(&sb, dt, ab[1]),
                                        y.desc, y.data) != CUDNN_STATUS_SUCCESS;
    bad += opt_compare(&y, e, opt_tol(dt) * 8, "sampler fwd");

    ref_st_sample_bwd(n, c, hi, wi, h, w, xv, gr, dyv, rdx, rdg);
    void *dgp = flat(dt, ng, NULL, &dg);
    double ag = 0.5, bg = ab[1] == 0 ? 0.0 : -0.5;
    if (bg == 0)
        opt_poison(&dg);
    else
        opt_fill(&dg, -1, 1, 75);
    for (size_t i = 0; i < ng; i++)
        eg[i] = ag * rdg[i] + (bg != 0 ? bg * opt_get(&dg, i) : 0);
    for (size_t i = 0; i < nx; i++)
        e[i] = ab[0] * rdx[i] + (ab[1] != 0 ? ab[1] * opt_get(&dx, i) : 0);
    bad += cudnnSpatialTfSamplerBackward(H, d, ops_sc(&sa, dt, ab[0]), x.desc, x.data, ops_sc(&sb, dt, ab[1]), dx.desc,
                                         dx.data, ops_sc(&sga, dt, ag), dy.desc, dy.data, gdp, ops_sc(&sgb, dt, bg),
                                         dgp) != CUDNN_STATUS_SUCCESS;
    bad += opt_compare(&dx, e, opt_tol(dt) * 8, "sampler bwd dx");
    bad += opt_compare(&dg, eg, opt_tol(dt) * 16, "sampler bwd dgrid");

    /* grid generator backward: dtheta = sum dgrid * (x, y, 1) */
    opt_t dth;
    void *dthp = flat(dt, 6 * n, NULL, &dth);
    bad += cudnnSpatialTfGridGeneratorBackward(H, d, dgp, dthp) != CUDNN_STATUS_SUCCESS;
    double *et = calloc(6 * n, 8);
    for (int b = 0; b < n; b++)
        for (int i = 0; i < h; i++)
            for (int j = 0; j < w; j++) {
                double xt = w > 1 ? 2.0 * j / (w - 1) - 1 : 0, yt = h > 1 ? 2.0 * i / (h - 1) - 1 : 0;
                double g0 = opt_get(&dg, (((size_t)b * h + i) * w + j) * 2);
                double g1 = opt_get(&dg, (((size_t)b * h + i) * w + j) * 2 + 1);
                double *t = et + 6 * b;
                t[0] += g0 * xt; t[1] += g0 * yt; t[2] += g0;
                t[3] += g1 * xt; t[4] += g1 * yt; t[5] += g1;
            }
    bad += opt_compare(&dth, et, opt_tol(dt) * 16, "grid bwd");
    free(et);
    free(theta); free(grid); free(gr); free(xv); free(yv); free(e); free(dyv); free(rdx); free(rdg); free(eg);
    opt_free(&th); opt_free(&gd); opt_free(&x); opt_free(&y); opt_free(&dx); opt_free(&dy); opt_free(&dg);
    opt_free(&dth);
    cudnnDestroySpatialTransformerDescriptor(d);
    return bad;
}

static void matrix(void)
{
    SECTION("spatial transformer vs reference");
    const int shapes[][6] = { { 2, 3, 6, 7, 5, 4 }, { 1, 1, 1, 1, 1, 1 }, { 1, 2, 5, 5, 9, 8 }, { 3, 1, 4, 9, 4, 9 } };
    for (int t = 0; t < 3; t++)            /* FLOAT, DOUBLE, HALF: cuDNN refuses BFLOAT16 here */
        for (int s = 0; s < 4; s++)
            for (int l = 0; l < OPT_NLAYOUTS; l++)
                for (int k = 0; k < 3; k++) {
                    const int *p = shapes[s];
                    CHECK_MSG(st_case(OPS_FP[t], p[0], p[1], p[2], p[3], p[4], p[5], l, (l + 1) % OPT_NLAYOUTS,
                                      OPS_AB[k]) == 0, "type %d shape %d layout %d ab %d", t, s, l, k);
                }
}

/* d(sum(y * dy))/d(grid) by central differences, through the library's own forward. */
static void finite_differences(void)
{
    SECTION("spatial transformer gradient by finite differences");
    int n = 1, c = 2, hi = 5, wi = 6, h = 3, w = 4;
    cudnnSpatialTransformerDescriptor_t d;
    cudnnCreateSpatialTransformerDescriptor(&d);
    int odims[4] = { n, c, h, w }, idims[4] = { n, c, hi, wi };
    cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_DOUBLE, 4, odims);
    opt_t x, y, dx, dy;
    opt_make(&x, CUDNN_DATA_DOUBLE, 4, idims, OPT_NCHW);
    opt_make(&y, CUDNN_DATA_DOUBLE, 4, odims, OPT_NCHW);
    opt_make(&dx, CUDNN_DATA_DOUBLE, 4, idims, OPT_NCHW);
    opt_make(&dy, CUDNN_DATA_DOUBLE, 4, odims, OPT_NCHW);
    opt_fill(&x, -1, 1, 3);
    opt_fill(&dy, -1, 1, 4);
    double grid[24], dgrid[24];
    for (int i = 0; i < 24; i++)
        grid[i] = -0.93 + 0.077 * i;   /* avoids integer sample points */
    double one = 1, zero = 0;
    CHECK_OK(cudnnSpatialTfSamplerBackward(H, d, &one, x.desc, x.data, &zero, dx.desc, dx.data, &one, dy.desc, dy.data,
                                           grid, &zero, dgrid));
    int ok = 1;
    for (int i = 0; i < 24; i++) {
        double f[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            double g2[24];
            memcpy(g2, grid, sizeof g2);
            g2[i] += sgn ? -1e-6 : 1e-6;
            cudnnSpatialTfSamplerForward(H, d, &one, x.desc, x.data, g2, &zero, y.desc, y.data);
            f[sgn] = 0;
            for (size_t k = 0; k < y.n; k++)
                f[sgn] += opt_get(&y, k) * opt_get(&dy, k);
        }
        double num = (f[0] - f[1]) / 2e-6;
        if (fabs(num - dgrid[i]) > 1e-5 * (1 + fabs(num))) {
            fprintf(stderr, "  dgrid[%d] %.9g vs numeric %.9g\n", i, dgrid[i], num);
            ok = 0;
        }
    }
    CHECK(ok);
    opt_free(&x); opt_free(&y); opt_free(&dx); opt_free(&dy);
    cudnnDestroySpatialTransformerDescriptor(d);
}

static void bad_input(void)
{
    SECTION("spatial transformer bad input");
    cudnnSpatialTransformerDescriptor_t d, unset;
    cudnnCreateSpatialTransformerDescriptor(&d);
    cudnnCreateSpatialTransformerDescriptor(&unset);
    int odims[4] = { 1, 2, 3, 4 }, wrong[4] = { 1, 2, 3, 5 };
    cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, odims);
    opt_t x, y, y2, yh;
    opt_make(&x, CUDNN_DATA_FLOAT, 4, odims, OPT_NCHW);
    opt_make(&y, CUDNN_DATA_FLOAT, 4, odims, OPT_NCHW);
    opt_make(&y2, CUDNN_DATA_FLOAT, 4, wrong, OPT_NCHW);
    opt_make(&yh, CUDNN_DATA_HALF, 4, odims, OPT_NCHW);
    opt_fill(&y, 6, 6, 0);
    float grid[24] = { 0 }, theta[6] = { 1, 0, 0, 0, 1, 0 }, one = 1, zero = 0;
    CHECK_STATUS(cudnnSpatialTfGridGeneratorForward(H, unset, theta, grid), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfGridGeneratorForward(H, d, NULL, grid), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfGridGeneratorForward(NULL, d, theta, grid), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfGridGeneratorBackward(H, d, grid, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfSamplerForward(H, d, &one, x.desc, x.data, grid, &zero, y2.desc, y2.data),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfSamplerForward(H, d, &one, x.desc, x.data, grid, &zero, yh.desc, yh.data),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfSamplerForward(H, d, &one, x.desc, x.data, NULL, &zero, y.desc, y.data),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSpatialTfSamplerBackward(H, d, &one, x.desc, x.data, &zero, y2.desc, y2.data, &one, y.desc,
                                               y.data, grid, &zero, grid), CUDNN_STATUS_BAD_PARAM);
    int ok = 1;
    for (size_t i = 0; i < y.n; i++)
        ok &= opt_get(&y, i) == 6.0;
    CHECK(ok);
    /* grid far outside or NaN samples zero */
    for (int i = 0; i < 24; i++)
        grid[i] = i % 2 ? NAN : 1e30f;
    CHECK_OK(cudnnSpatialTfSamplerForward(H, d, &one, x.desc, x.data, grid, &zero, y.desc, y.data));
    ok = 1;
    for (size_t i = 0; i < y.n; i++)
        ok &= opt_get(&y, i) == 0.0;
    CHECK(ok);
    opt_free(&x); opt_free(&y); opt_free(&y2); opt_free(&yh);
    cudnnDestroySpatialTransformerDescriptor(d);
    cudnnDestroySpatialTransformerDescriptor(unset);
}

int main(void)
{
    H = ops_handle(2);
    descriptor();
    matrix();
    finite_differences();
    bad_input();
    cudnnDestroy(H);
    return hd_test_finish();
}
