/* Dropout: descriptor calls, mask statistics and scaling, reproducibility from the seed,
 * fresh masks per call, exact restore, backward from the reserve space, layouts, types,
 * threads, bad input. */
#include "ops_common.h"

#include <math.h>

static cudnnHandle_t H;

static void descriptor(void)
{
    SECTION("dropout descriptor");
    size_t ss = 0, rs = 0;
    CHECK_OK(cudnnDropoutGetStatesSize(H, &ss));
    CHECK(ss >= 32);
    CHECK_STATUS(cudnnDropoutGetStatesSize(NULL, &ss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutGetStatesSize(H, NULL), CUDNN_STATUS_BAD_PARAM);
    int dims[4] = { 2, 3, 4, 5 };
    opt_t x;
    opt_make(&x, CUDNN_DATA_FLOAT, 4, dims, OPT_NCHW);
    CHECK_OK(cudnnDropoutGetReserveSpaceSize(x.desc, &rs));
    CHECK(rs >= 120);
    CHECK_STATUS(cudnnDropoutGetReserveSpaceSize(NULL, &rs), CUDNN_STATUS_BAD_PARAM);
    cudnnDropoutDescriptor_t d;
    CHECK_OK(cudnnCreateDropoutDescriptor(&d));
    float p;
    void *st;
    unsigned long long seed;
    CHECK_STATUS(cudnnGetDropoutDescriptor(d, H, &p, &st, &seed), CUDNN_STATUS_BAD_PARAM);
    void *states = malloc(ss);
    CHECK_OK(cudnnSetDropoutDescriptor(d, H, 0.25f, states, ss, 1234));
    CHECK_OK(cudnnGetDropoutDescriptor(d, H, &p, &st, &seed));
    CHECK(p == 0.25f && st == states && seed == 1234);
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, H, 1.0f, states, ss, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, H, -0.1f, states, ss, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, H, NAN, states, ss, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, H, 0.5f, states, ss - 1, 1), CUDNN_STATUS_INVALID_VALUE);
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, NULL, 0.5f, states, ss, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetDropoutDescriptor(d, H, &p, &st, &seed));
    CHECK(p == 0.25f && seed == 1234);
    /* NULL states: only the probability changes */
    CHECK_OK(cudnnSetDropoutDescriptor(d, H, 0.5f, NULL, 0, 999));
    CHECK_OK(cudnnGetDropoutDescriptor(d, H, &p, &st, &seed));
    CHECK(p == 0.5f && st == states && seed == 1234);
    CHECK_STATUS(cudnnGetDropoutDescriptor(d, H, NULL, &st, &seed), CUDNN_STATUS_BAD_PARAM);
    void *junk = calloc(1, ss);
    CHECK_STATUS(cudnnRestoreDropoutDescriptor(d, H, 0.5f, junk, ss, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRestoreDropoutDescriptor(d, H, 0.5f, NULL, ss, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnRestoreDropoutDescriptor(d, H, 0.5f, states, 1, 1), CUDNN_STATUS_INVALID_VALUE);
    CHECK_OK(cudnnDestroyDropoutDescriptor(d));
    CHECK_STATUS(cudnnGetDropoutDescriptor(d, H, &p, &st, &seed), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyDropoutDescriptor(NULL));
    CHECK_STATUS(cudnnCreateDropoutDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    /* a descriptor without states cannot run */
    CHECK_OK(cudnnCreateDropoutDescriptor(&d));
    CHECK_OK(cudnnSetDropoutDescriptor(d, H, 0.5f, NULL, 0, 1));
    unsigned char *res = malloc(rs);
    CHECK_STATUS(cudnnDropoutForward(H, d, x.desc, x.data, x.desc, x.data, res, rs), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyDropoutDescriptor(d);
    free(res);
    free(junk);
    free(states);
    opt_free(&x);
}

typedef struct {
    cudnnDropoutDescriptor_t d;
    void *states;
    size_t ss;
} dd_t;

static void dd_make(dd_t *dd, cudnnHandle_t h, float p, unsigned long long seed)
{
    cudnnDropoutGetStatesSize(h, &dd->ss);
    dd->states = malloc(dd->ss);
    cudnnCreateDropoutDescriptor(&dd->d);
    cudnnSetDropoutDescriptor(dd->d, h, p, dd->states, dd->ss, seed);
}

static void dd_free(dd_t *dd)
{
    cudnnDestroyDropoutDescriptor(dd->d);
    free(dd->states);
}

/* Forward + backward for one type/layout; checks the values against the mask. */
static int fwd_bwd_case(cudnnDataType_t dt, const int *dims, int lx, int ly, float p, double *drop_frac)
{
    dd_t dd;
    dd_make(&dd, H, p, 42);
    opt_t x, y, dy, dx;
    opt_make(&x, dt, 4, dims, lx);
    opt_make(&y, dt, 4, dims, ly);
    opt_make(&dy, dt, 4, dims, ly);
    opt_make(&dx, dt, 4, dims, lx);
    opt_fill(&x, 0.5, 2, 3);
    opt_fill(&dy, -2, -0.5, 4);
    size_t rs;
    cudnnDropoutGetReserveSpaceSize(x.desc, &rs);
    unsigned char *res = malloc(rs);
    int bad = 0;
    bad += cudnnDropoutForward(H, dd.d, x.desc, x.data, y.desc, y.data, res, rs) != CUDNN_STATUS_SUCCESS;
    bad += cudnnDropoutBackward(H, dd.d, dy.desc, dy.data, dx.desc, dx.data, res, rs) != CUDNN_STATUS_SUCCESS;
    double scale = 1.0 / (1.0 - p);
    size_t dropped = 0;
    for (size_t i = 0; i < x.n; i++) {
        double yv = opt_get(&y, i), xv = opt_get(&x, i), g = opt_get(&dx, i), dyv = opt_get(&dy, i);
        int kept = yv != 0;
        dropped += !kept;
        double tol = opt_tol(dt) * 4;
        if (kept ? fabs(yv - xv * scale) > tol * (1 + fabs(xv * scale)) : 0)
            bad++;
        /* backward uses the same mask */
        if (kept ? fabs(g - dyv * scale) > tol * (1 + fabs(dyv * scale)) : g != 0)
            bad++;
    }
    *drop_frac = (double)dropped / (double)x.n;
    free(res);
    opt_free(&x); opt_free(&y); opt_free(&dy); opt_free(&dx);
    dd_free(&dd);
    return bad;
}

static void forward_backward(void)
{
    SECTION("dropout forward/backward");
    int dims[4] = { 4, 16, 33, 35 };
    for (int t = 0; t < 4; t++)
        for (int l = 0; l < OPT_NLAYOUTS; l++) {
            const float ps[] = { 0.0f, 0.3f, 0.8f };
            for (int k = 0; k < 3; k++) {
                double frac = -1;
                CHECK_MSG(fwd_bwd_case(OPS_FP[t], dims, l, (l + 1) % OPT_NLAYOUTS, ps[k], &frac) == 0,
                          "type %d layout %d p %g", t, l, ps[k]);
                CHECK_MSG(fabs(frac - ps[k]) < 0.02, "dropped fraction %g for p %g", frac, ps[k]);
            }
        }
    int small[4] = { 1, 1, 1, 3 };
    double frac;
    CHECK(fwd_bwd_case(CUDNN_DATA_FLOAT, small, OPT_NCHW, OPT_NCHW, 0.5f, &frac) == 0);
}

/* Run one forward of a fresh N-element float tensor; returns the mask bytes. */
static void masks(cudnnHandle_t h, cudnnDropoutDescriptor_t d, int layout, int calls, unsigned char *out, size_t n)
{
    int dims[4] = { 3, 5, 7, 11 };
    opt_t x, y;
    opt_make(&x, CUDNN_DATA_FLOAT, 4, dims, layout);
    opt_make(&y, CUDNN_DATA_FLOAT, 4, dims, layout);
    opt_fill(&x, 1, 2, 1);
    for (int c = 0; c < calls; c++)
        cudnnDropoutForward(h, d, x.desc, x.data, y.desc, y.data, out + (size_t)c * n, n);
    opt_free(&x);
    opt_free(&y);
}

static void reproducibility(void)
{
    SECTION("dropout reproducibility and restore");
    size_t n = 3 * 5 * 7 * 11;
    unsigned char *m1 = malloc(4 * n), *m2 = malloc(4 * n), *m3 = malloc(4 * n);
    dd_t a, b, c;
    dd_make(&a, H, 0.5f, 2024);
    dd_make(&b, H, 0.5f, 2024);
    dd_make(&c, H, 0.5f, 2025);
    masks(H, a.d, OPT_NCHW, 2, m1, n);
    masks(H, b.d, OPT_NHWC, 2, m2, n);
    CHECK(memcmp(m1, m2, 2 * n) == 0);              /* same seed, any layout: same masks */
    CHECK(memcmp(m1, m1 + n, n) != 0);              /* each call draws new numbers */
    masks(H, c.d, OPT_NCHW, 1, m3, n);
    CHECK(memcmp(m1, m3, n) != 0);                  /* another seed: another mask */

    /* save the states, run twice, restore a new descriptor from the saved copy */
    unsigned char saved[256];
    memcpy(saved, a.states, a.ss);
    masks(H, a.d, OPT_NCHW, 2, m1, n);
    void *copy = malloc(a.ss);
    memcpy(copy, saved, a.ss);
    cudnnDropoutDescriptor_t r;
    cudnnCreateDropoutDescriptor(&r);
    CHECK_OK(cudnnRestoreDropoutDescriptor(r, H, 0.5f, copy, a.ss, 2024));
    masks(H, r, OPT_PADDED, 2, m2, n);
    CHECK(memcmp(m1, m2, 2 * n) == 0);
    float p;
    void *st;
    unsigned long long seed;
    CHECK_OK(cudnnGetDropoutDescriptor(r, H, &p, &st, &seed));
    CHECK(p == 0.5f && st == copy && seed == 2024);

    /* threads do not change the mask */
    cudnnHandle_t h1 = ops_handle(1), h4 = ops_handle(4);
    dd_t t1, t4;
    dd_make(&t1, h1, 0.3f, 5);
    dd_make(&t4, h4, 0.3f, 5);
    masks(h1, t1.d, OPT_NCHW, 3, m1, n);
    masks(h4, t4.d, OPT_NCHW, 3, m2, n);
    CHECK(memcmp(m1, m2, 3 * n) == 0);
    dd_free(&t1); dd_free(&t4);
    cudnnDestroy(h1);
    cudnnDestroy(h4);
    cudnnDestroyDropoutDescriptor(r);
    free(copy);
    dd_free(&a); dd_free(&b); dd_free(&c);
    free(m1); free(m2); free(m3);
}

static void bad_input(void)
{
    SECTION("dropout bad input");
    dd_t dd;
    dd_make(&dd, H, 0.5f, 1);
    int d1[4] = { 2, 3, 4, 5 }, d2[4] = { 2, 3, 4, 6 };
    opt_t x, y, y2, yh, xi;
    opt_make(&x, CUDNN_DATA_FLOAT, 4, d1, OPT_NCHW);
    opt_make(&y, CUDNN_DATA_FLOAT, 4, d1, OPT_NCHW);
    opt_make(&y2, CUDNN_DATA_FLOAT, 4, d2, OPT_NCHW);
    opt_make(&yh, CUDNN_DATA_HALF, 4, d1, OPT_NCHW);
    opt_make(&xi, CUDNN_DATA_INT8, 4, d1, OPT_NCHW);
    opt_fill(&y, 8, 8, 0);
    unsigned char res[200];
    unsigned char before[64];
    memcpy(before, dd.states, dd.ss < 64 ? dd.ss : 64);
    CHECK_STATUS(cudnnDropoutForward(H, dd.d, x.desc, x.data, y.desc, y.data, res, 119), CUDNN_STATUS_INVALID_VALUE);
    CHECK_STATUS(cudnnDropoutForward(H, dd.d, x.desc, x.data, y2.desc, y2.data, res, 200), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutForward(H, dd.d, x.desc, x.data, yh.desc, yh.data, res, 200), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutForward(H, dd.d, xi.desc, xi.data, xi.desc, xi.data, res, 200), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnDropoutForward(H, dd.d, x.desc, x.data, y.desc, y.data, NULL, 200), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutForward(NULL, dd.d, x.desc, x.data, y.desc, y.data, res, 200), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutForward(H, NULL, x.desc, x.data, y.desc, y.data, res, 200), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutBackward(H, dd.d, x.desc, x.data, y2.desc, y2.data, res, 200), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDropoutBackward(H, dd.d, x.desc, x.data, y.desc, y.data, res, 10), CUDNN_STATUS_INVALID_VALUE);
    int ok = 1;
    for (size_t i = 0; i < y.n; i++)
        ok &= opt_get(&y, i) == 8.0;
    CHECK(ok);
    CHECK(memcmp(before, dd.states, dd.ss < 64 ? dd.ss : 64) == 0);   /* generator not advanced */
    opt_free(&x); opt_free(&y); opt_free(&y2); opt_free(&yh); opt_free(&xi);
    dd_free(&dd);
}

static char last_msg[1024];
static int n_msgs;

static void capture(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)udata;
    (void)dbg;
    if (sev == CUDNN_SEV_ERROR) {
        snprintf(last_msg, sizeof last_msg, "%s", msg);
        n_msgs++;
    }
}

/* A refused call leaves an error-level log line naming the function and the reason. */
static void log_lines(void)
{
    SECTION("refusals are logged");
    CHECK_OK(cudnnSetCallback(CUDNN_SEV_ERROR_EN, NULL, capture));
    int d1[4] = { 2, 3, 4, 5 }, d2[4] = { 2, 3, 4, 6 };
    opt_t x, y;
    opt_make(&x, CUDNN_DATA_FLOAT, 4, d1, OPT_NCHW);
    opt_make(&y, CUDNN_DATA_FLOAT, 4, d2, OPT_NCHW);
    float one = 1, zero = 0;
    n_msgs = 0;
    CHECK_STATUS(cudnnAddTensor(H, &one, x.desc, x.data, &zero, y.desc, y.data), CUDNN_STATUS_BAD_PARAM);
    CHECK(n_msgs == 1 && strstr(last_msg, "cudnnAddTensor") && strstr(last_msg, "dim 3"));
    n_msgs = 0;
    CHECK_STATUS(cudnnSoftmaxBackward(H, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, x.desc, x.data, y.desc,
                                      y.data, &zero, x.desc, x.data), CUDNN_STATUS_BAD_PARAM);   /* ops_train */
    CHECK(n_msgs == 1 && strstr(last_msg, "cudnnSoftmaxBackward") && strstr(last_msg, "dimensions"));
    cudnnDropoutDescriptor_t d;
    cudnnCreateDropoutDescriptor(&d);
    n_msgs = 0;
    CHECK_STATUS(cudnnSetDropoutDescriptor(d, H, 2.0f, NULL, 0, 1), CUDNN_STATUS_BAD_PARAM);
    CHECK(n_msgs == 1 && strstr(last_msg, "cudnnSetDropoutDescriptor") && strstr(last_msg, "dropout"));
    cudnnDestroyDropoutDescriptor(d);
    CHECK_OK(cudnnSetCallback(0, NULL, NULL));
    opt_free(&x);
    opt_free(&y);
}

int main(void)
{
    H = ops_handle(2);
    log_lines();
    descriptor();
    forward_backward();
    reproducibility();
    bad_input();
    cudnnDestroy(H);
    return hd_test_finish();
}
