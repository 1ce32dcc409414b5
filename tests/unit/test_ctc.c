/*
 * CTC loss: descriptor round trips across the three setter generations, cudnnCTCLoss and
 * cudnnCTCLoss_v8 against float64 references (brute-force enumeration of alignments and a
 * probability-space DP, tests/ref/ctc_ref.c), finite-difference gradient checks, strides,
 * thread-count determinism and bad input.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "harness.h"
#include "ref/ctc_ref.h"

/* ---------------------------------------------------------------- descriptor ---- */

static void descriptor(void)
{
    SECTION("descriptor");
    cudnnCTCLossDescriptor_t d;
    cudnnDataType_t ct = (cudnnDataType_t)-7;
    cudnnLossNormalizationMode_t nm = (cudnnLossNormalizationMode_t)-7;
    cudnnNanPropagation_t gm = (cudnnNanPropagation_t)-7;
    int ml = -7;
    CHECK_STATUS(cudnnCreateCTCLossDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreateCTCLossDescriptor(&d));
    /* A new descriptor reads back the defaults. */
    CHECK_OK(cudnnGetCTCLossDescriptor_v8(d, &ct, &nm, &gm, &ml));
    CHECK(ct == CUDNN_DATA_FLOAT && nm == CUDNN_LOSS_NORMALIZATION_NONE && gm == CUDNN_NOT_PROPAGATE_NAN && ml == 0);

    CHECK_OK(cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_DOUBLE, CUDNN_LOSS_NORMALIZATION_SOFTMAX, CUDNN_PROPAGATE_NAN, 40));
    CHECK_OK(cudnnGetCTCLossDescriptor_v8(d, &ct, &nm, &gm, &ml));
    CHECK(ct == CUDNN_DATA_DOUBLE && nm == CUDNN_LOSS_NORMALIZATION_SOFTMAX && gm == CUDNN_PROPAGATE_NAN && ml == 40);
    CHECK_OK(cudnnGetCTCLossDescriptorEx(d, &ct, &nm, &gm));
    CHECK(ct == CUDNN_DATA_DOUBLE && nm == CUDNN_LOSS_NORMALIZATION_SOFTMAX && gm == CUDNN_PROPAGATE_NAN);
    CHECK_OK(cudnnGetCTCLossDescriptor(d, &ct));
    CHECK(ct == CUDNN_DATA_DOUBLE);

    /* Ex resets maxLabelLength; the plain setter resets everything but the type. */
    CHECK_OK(cudnnSetCTCLossDescriptorEx(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX, CUDNN_PROPAGATE_NAN));
    CHECK_OK(cudnnGetCTCLossDescriptor_v8(d, &ct, &nm, &gm, &ml));
    CHECK(ct == CUDNN_DATA_FLOAT && nm == CUDNN_LOSS_NORMALIZATION_SOFTMAX && gm == CUDNN_PROPAGATE_NAN && ml == 0);
    CHECK_OK(cudnnSetCTCLossDescriptor(d, CUDNN_DATA_DOUBLE));
    CHECK_OK(cudnnGetCTCLossDescriptor_v8(d, &ct, &nm, &gm, &ml));
    CHECK(ct == CUDNN_DATA_DOUBLE && nm == CUDNN_LOSS_NORMALIZATION_NONE && gm == CUDNN_NOT_PROPAGATE_NAN && ml == 0);

    /* Bad input: refused, descriptor unchanged. */
    CHECK_OK(cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX, CUDNN_PROPAGATE_NAN, 9));
    CHECK_STATUS(cudnnSetCTCLossDescriptor(d, CUDNN_DATA_HALF), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetCTCLossDescriptor(d, (cudnnDataType_t)99), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetCTCLossDescriptorEx(d, CUDNN_DATA_FLOAT, (cudnnLossNormalizationMode_t)99, CUDNN_PROPAGATE_NAN),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetCTCLossDescriptorEx(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_NONE, (cudnnNanPropagation_t)99),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetCTCLossDescriptorEx(d, CUDNN_DATA_FLOAT, (cudnnLossNormalizationMode_t)-1, CUDNN_PROPAGATE_NAN),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_NONE, CUDNN_PROPAGATE_NAN, -1),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetCTCLossDescriptor_v8(d, &ct, &nm, &gm, &ml));
    CHECK(ct == CUDNN_DATA_FLOAT && nm == CUDNN_LOSS_NORMALIZATION_SOFTMAX && gm == CUDNN_PROPAGATE_NAN && ml == 9);
    /* NULL outputs are "not wanted", as in cuDNN 8.5 (test_adv_getters covers each one) */
    CHECK_OK(cudnnGetCTCLossDescriptor(d, NULL));
    CHECK_OK(cudnnGetCTCLossDescriptorEx(d, &ct, NULL, &gm));
    CHECK_OK(cudnnGetCTCLossDescriptor_v8(d, &ct, &nm, &gm, NULL));
    CHECK_STATUS(cudnnGetCTCLossDescriptor(NULL, &ct), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetCTCLossDescriptor(NULL, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);

    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_STATUS(cudnnSetCTCLossDescriptor((cudnnCTCLossDescriptor_t)(void *)t, CUDNN_DATA_FLOAT), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyCTCLossDescriptor((cudnnCTCLossDescriptor_t)(void *)t), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyTensorDescriptor(t));

    CHECK_OK(cudnnDestroyCTCLossDescriptor(d));
    CHECK_STATUS(cudnnGetCTCLossDescriptor(d, &ct), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroyCTCLossDescriptor(d), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnDestroyCTCLossDescriptor(NULL));
}

/* ------------------------------------------------------------- loss harness ---- */

typedef struct {
    int T, N, A;
    const int *labels, *label_lengths, *input_lengths;
    int v8;                          /* use the _v8 entry points */
    int max_label;                   /* for v8 */
    cudnnDataType_t dtype;
    cudnnLossNormalizationMode_t norm;
    cudnnNanPropagation_t grad_mode;
    int pad;                         /* extra elements between (t, n) rows of A values: non-packed strides */
    int no_grads;
} ctc_case;

/* Run one case on X (T*N*A logical, packed): costs[N] and grads[T*N*A] in float64. */
static cudnnStatus_t run_case(cudnnHandle_t h, const ctc_case *c, const double *x, double *costs, double *grads)
{
    const int T = c->T, N = c->N, A = c->A, row = A + c->pad;
    size_t es = c->dtype == CUDNN_DATA_DOUBLE ? 8 : 4, elems = (size_t)T * N * row;
    cudnnTensorDescriptor_t pd, gd;
    cudnnCTCLossDescriptor_t d;
    cudnnCreateTensorDescriptor(&pd);
    cudnnCreateTensorDescriptor(&gd);
    cudnnCreateCTCLossDescriptor(&d);
    int dims[3] = {T, N, A}, strides[3] = {N * row, row, 1};
    cudnnSetTensorNdDescriptor(pd, c->dtype, 3, dims, strides);
    cudnnSetTensorNdDescriptor(gd, c->dtype, 3, dims, strides);
    cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_FLOAT, c->norm, c->grad_mode, c->max_label);
    void *px = malloc(elems * es), *pg = malloc(elems * es), *pc = malloc((size_t)N * es);
    memset(pg, 0x7f, elems * es);   /* detect positions never written */
    for (int t = 0; t < T; t++)
        for (int n = 0; n < N; n++)
            for (int k = 0; k < A; k++) {
                size_t i = ((size_t)t * N + n) * row + k;
                double v = x[((size_t)t * N + n) * A + k];
                if (es == 8)
                    ((double *)px)[i] = v;
                else
                    ((float *)px)[i] = (float)v;
            }
    size_t ws = 0;
    cudnnStatus_t st = c->v8 ? cudnnGetCTCLossWorkspaceSize_v8(h, CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d, pd, gd, &ws)
                             : cudnnGetCTCLossWorkspaceSize(h, pd, gd, c->labels, c->label_lengths, c->input_lengths,
                                                            CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d, &ws);
    void *w = st == CUDNN_STATUS_SUCCESS ? malloc(ws + 1) : NULL;
    if (st == CUDNN_STATUS_SUCCESS) {
        /* An odd address: the library must cope with any alignment. */
        void *wa = (char *)w + 1;
        void *g = c->no_grads ? NULL : pg;
        st = c->v8 ? cudnnCTCLoss_v8(h, CUDNN_CTC_LOSS_ALGO_NON_DETERMINISTIC, d, pd, px, c->labels, c->label_lengths,
                                     c->input_lengths, pc, gd, g, ws, wa)
                   : cudnnCTCLoss(h, pd, px, c->labels, c->label_lengths, c->input_lengths, pc, gd, g,
                                  CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d, wa, ws);
    }
    if (st == CUDNN_STATUS_SUCCESS) {
        for (int n = 0; n < N; n++)
            costs[n] = es == 8 ? ((double *)pc)[n] : ((float *)pc)[n];
        if (grads && !c->no_grads)
            for (int t = 0; t < T; t++)
                for (int n = 0; n < N; n++)
                    for (int k = 0; k < A; k++) {
                        size_t i = ((size_t)t * N + n) * row + k;
                        grads[((size_t)t * N + n) * A + k] = es == 8 ? ((double *)pg)[i] : ((float *)pg)[i];
                    }
    }
    free(w);
    free(px);
    free(pg);
    free(pc);
    cudnnDestroyTensorDescriptor(pd);
    cudnnDestroyTensorDescriptor(gd);
    cudnnDestroyCTCLossDescriptor(d);
    return st;
}

static double urand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / (double)(1u << 24);
}

/* Softmax of one row. */
static void softmax_row(const double *u, int A, double *y)
{
    double m = u[0], z = 0;
    for (int k = 1; k < A; k++)
        m = u[k] > m ? u[k] : m;
    for (int k = 0; k < A; k++)
        z += exp(u[k] - m);
    for (int k = 0; k < A; k++)
        y[k] = exp(u[k] - m) / z;
}

/* The expected costs and gradients of a case, from the brute-force reference.  X holds
 * activations (SOFTMAX) or probabilities (NONE); gradients are y - posterior. */
static void expect_brute(const ctc_case *c, const double *x, double *cost, double *grad)
{
    const int T = c->T, N = c->N, A = c->A;
    int off = 0;
    double *p = malloc(sizeof(double) * T * A), *post = malloc(sizeof(double) * T * A);
    for (int n = 0; n < N; n++) {
        int Tn = c->input_lengths[n];
        for (int t = 0; t < Tn; t++) {
            const double *row = x + ((size_t)t * N + n) * A;
            if (c->norm == CUDNN_LOSS_NORMALIZATION_SOFTMAX)
                softmax_row(row, A, p + t * A);
            else
                memcpy(p + t * A, row, sizeof(double) * A);
        }
        double P = ctc_ref_brute(Tn, A, p, c->labels + off, c->label_lengths[n], post);
        cost[n] = -log(P);
        for (int t = 0; t < T; t++)
            for (int k = 0; k < A; k++) {
                double g = 0;
                if (t < Tn)
                    g = P > 0 ? p[t * A + k] - post[t * A + k] : (c->grad_mode == CUDNN_PROPAGATE_NAN ? NAN : 0);
                grad[((size_t)t * N + n) * A + k] = g;
            }
        off += c->label_lengths[n];
    }
    free(p);
    free(post);
}

static int same_or_both_nan(double a, double b, double tol)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b))
        return a == b;
    return fabs(a - b) <= tol * (1 + fabs(b));
}

/* Fill X with activations, or with the softmax of them (rows of probabilities). */
static void make_input(const ctc_case *c, unsigned seed, double *x)
{
    const int rows = c->T * c->N, A = c->A;
    for (int r = 0; r < rows; r++) {
        double u[64];
        for (int k = 0; k < A; k++)
            u[k] = 3 * urand(&seed) - 1.5;
        if (c->norm == CUDNN_LOSS_NORMALIZATION_SOFTMAX)
            memcpy(x + (size_t)r * A, u, sizeof(double) * A);
        else
            softmax_row(u, A, x + (size_t)r * A);
    }
}

/* --------------------------------------------------------------- the checks ---- */

static void against_brute_force(cudnnHandle_t h)
{
    SECTION("brute force");
    /* T = 5, A = 3: 243 paths per sample.  Samples: repeats (1 1), plain, empty label,
     * short input, infeasible (1 1 1 needs 5 steps but has 4). */
    static const int labels[] = {1, 1, 2, 1, /* empty */ 2, 1, 1, 1};
    static const int lens[] = {2, 2, 0, 1, 3};
    static const int inl[] = {5, 4, 5, 2, 4};
    enum { T = 5, N = 5, A = 3 };
    double x[T * N * A], cost[N], grad[T * N * A], ecost[N], egrad[T * N * A];
    int variants = 0, good_cost = 0, good_grad = 0;
    for (int v8 = 0; v8 < 2; v8++)
        for (int dt = 0; dt < 2; dt++)
            for (int norm = 0; norm < 2; norm++)
                for (int gm = 0; gm < 2; gm++)
                    for (int pad = 0; pad < 2; pad++) {
                        ctc_case c = {T, N, A, labels, lens, inl, v8, 3, dt ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT,
                                      (cudnnLossNormalizationMode_t)norm, (cudnnNanPropagation_t)gm, pad * 3, 0};
                        make_input(&c, 17u + (unsigned)variants, x);
                        expect_brute(&c, x, ecost, egrad);
                        cudnnStatus_t st = run_case(h, &c, x, cost, grad);
                        CHECK_OK(st);
                        if (st != CUDNN_STATUS_SUCCESS)
                            continue;
                        double tol = dt ? 1e-12 : 2e-5;
                        int ok = 1;
                        for (int n = 0; n < N; n++)
                            ok &= same_or_both_nan(cost[n], ecost[n], tol);
                        good_cost += ok;
                        CHECK_MSG(ok, "v8 %d dt %d norm %d gm %d pad %d: costs %g %g %g %g %g vs %g %g %g %g %g", v8, dt,
                                  norm, gm, pad, cost[0], cost[1], cost[2], cost[3], cost[4], ecost[0], ecost[1],
                                  ecost[2], ecost[3], ecost[4]);
                        ok = 1;
                        int bad = -1;
                        for (int i = 0; i < T * N * A; i++)
                            if (!same_or_both_nan(grad[i], egrad[i], tol) && bad < 0)
                                bad = i, ok = 0;
                        good_grad += ok;
                        CHECK_MSG(ok, "v8 %d dt %d norm %d gm %d pad %d: grad[%d] %g vs %g", v8, dt, norm, gm, pad, bad,
                                  bad >= 0 ? grad[bad] : 0, bad >= 0 ? egrad[bad] : 0);
                        variants++;
                    }
    CHECK_EQ_INT(variants, 32);
    CHECK_EQ_INT(good_cost, 32);
    CHECK_EQ_INT(good_grad, 32);
    /* The infeasible sample costs +inf. */
    CHECK(isinf(ecost[4]) && ecost[4] > 0);
}

static void against_dp(cudnnHandle_t h)
{
    SECTION("dp reference, longer sequences");
    enum { T = 40, N = 4, A = 7 };
    static const int labels[] = {1, 2, 3, 3, 4, 5, 6, 1, 1, /**/ 6, 5, 4, /**/ 2, /**/ 3, 3, 3, 3, 2, 2, 1, 4, 4, 5, 5};
    static const int lens[] = {9, 3, 1, 11};
    static const int inl[] = {40, 17, 1, 33};
    static double x[T * N * A], cost[N], cost2[N], grad[T * N * A], grad2[T * N * A];
    ctc_case c = {T, N, A, labels, lens, inl, 0, 0, CUDNN_DATA_DOUBLE, CUDNN_LOSS_NORMALIZATION_NONE,
                  CUDNN_NOT_PROPAGATE_NAN, 0, 0};
    make_input(&c, 99u, x);
    CHECK_OK(run_case(h, &c, x, cost, grad));
    int off = 0;
    for (int n = 0; n < N; n++) {
        double p[T * A];
        for (int t = 0; t < inl[n]; t++)
            memcpy(p + t * A, x + ((size_t)t * N + n) * A, sizeof(double) * A);
        double P = ctc_ref_dp(inl[n], A, p, labels + off, lens[n]);
        CHECK_NEAR(cost[n], -log(P), 1e-9 * (1 + fabs(log(P))));
        off += lens[n];
    }
    /* Gradient rows of a feasible step sum to zero (both terms sum to one); padded steps are 0. */
    double worst = 0;
    int pad_zero = 1;
    for (int t = 0; t < T; t++)
        for (int n = 0; n < N; n++) {
            double s = 0;
            for (int k = 0; k < A; k++)
                s += grad[((size_t)t * N + n) * A + k];
            if (t < inl[n])
                worst = fabs(s) > worst ? fabs(s) : worst;
            else
                for (int k = 0; k < A; k++)
                    pad_zero &= grad[((size_t)t * N + n) * A + k] == 0.0;
        }
    CHECK(worst < 1e-9);
    CHECK(pad_zero);
    /* Sample 2 has one step and one label: P = p[0][label]. */
    CHECK_NEAR(cost[2], -log(x[(size_t)2 * A + 2]), 1e-12);

    /* Same case in float with v8 and non-packed strides. */
    c.dtype = CUDNN_DATA_FLOAT;
    c.v8 = 1;
    c.max_label = 12;
    c.pad = 5;
    CHECK_OK(run_case(h, &c, x, cost2, grad2));
    for (int n = 0; n < N; n++)
        CHECK_NEAR(cost2[n], cost[n], 1e-4 * (1 + fabs(cost[n])));
    double gd = 0;
    for (int i = 0; i < T * N * A; i++)
        gd = fabs(grad2[i] - grad[i]) > gd ? fabs(grad2[i] - grad[i]) : gd;
    CHECK(gd < 1e-5);

    /* Costs only: same costs. */
    c.no_grads = 1;
    CHECK_OK(run_case(h, &c, x, cost2, NULL));
    for (int n = 0; n < N; n++)
        CHECK_NEAR(cost2[n], cost[n], 1e-4 * (1 + fabs(cost[n])));
}

/* Loss of one sample-set at X (double), for finite differences. */
static double total_loss(cudnnHandle_t h, const ctc_case *c, const double *u, int via_softmax)
{
    const int rows = c->T * c->N, A = c->A;
    double *x = malloc(sizeof(double) * rows * A), cost[8];
    for (int r = 0; r < rows; r++) {
        if (via_softmax)
            softmax_row(u + (size_t)r * A, A, x + (size_t)r * A);
        else
            memcpy(x + (size_t)r * A, u + (size_t)r * A, sizeof(double) * A);
    }
    run_case(h, c, x, cost, NULL);
    free(x);
    double s = 0;
    for (int n = 0; n < c->N; n++)
        s += cost[n];
    return s;
}

static void finite_differences(cudnnHandle_t h)
{
    SECTION("finite differences");
    enum { T = 8, N = 2, A = 5 };
    static const int labels[] = {1, 3, 3, 2, /**/ 4, 4};
    static const int lens[] = {4, 2};
    static const int inl[] = {8, 6};
    double u[T * N * A], x[T * N * A], grad[T * N * A], cost[N];
    unsigned seed = 5;
    for (int i = 0; i < T * N * A; i++)
        u[i] = 2 * urand(&seed) - 1;
    for (int norm = 0; norm < 2; norm++) {
        ctc_case c = {T, N, A, labels, lens, inl, norm, 4, CUDNN_DATA_DOUBLE, (cudnnLossNormalizationMode_t)norm,
                      CUDNN_NOT_PROPAGATE_NAN, 0, 0};
        int via_softmax = norm == CUDNN_LOSS_NORMALIZATION_NONE;   /* NONE takes softmax(u); gradient is d/du */
        for (int r = 0; r < T * N; r++) {
            if (via_softmax)
                softmax_row(u + r * A, A, x + r * A);
            else
                memcpy(x + r * A, u + r * A, sizeof(double) * A);
        }
        CHECK_OK(run_case(h, &c, x, cost, grad));
        double worst = 0;
        for (int i = 0; i < T * N * A; i++) {
            double keep = u[i], hstep = 1e-5;
            u[i] = keep + hstep;
            double lp = total_loss(h, &c, u, via_softmax);
            u[i] = keep - hstep;
            double lm = total_loss(h, &c, u, via_softmax);
            u[i] = keep;
            double fd = (lp - lm) / (2 * hstep);
            worst = fabs(fd - grad[i]) > worst ? fabs(fd - grad[i]) : worst;
        }
        CHECK_MSG(worst < 1e-6, "norm %d: worst |fd - analytic| = %g", norm, worst);
    }
}

static void determinism(void)
{
    SECTION("thread counts");
    enum { T = 30, N = 9, A = 6 };
    static int labels[N * 6], lens[N], inl[N];
    int off = 0;
    unsigned seed = 3;
    for (int n = 0; n < N; n++) {
        lens[n] = n % 6;
        inl[n] = T - n;
        for (int i = 0; i < lens[n]; i++)
            labels[off++] = 1 + (int)(urand(&seed) * (A - 1));
    }
    static double x[T * N * A], c1[N], c4[N], g1[T * N * A], g4[T * N * A];
    ctc_case c = {T, N, A, labels, lens, inl, 0, 0, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                  CUDNN_NOT_PROPAGATE_NAN, 0, 0};
    make_input(&c, 11u, x);
    cudnnHandle_t h1, h4;
    setenv("HOSTDNN_NUM_THREADS", "1", 1);
    CHECK_OK(cudnnCreate(&h1));
    setenv("HOSTDNN_NUM_THREADS", "4", 1);
    CHECK_OK(cudnnCreate(&h4));
    unsetenv("HOSTDNN_NUM_THREADS");
    CHECK_OK(run_case(h1, &c, x, c1, g1));
    CHECK_OK(run_case(h4, &c, x, c4, g4));
    CHECK(memcmp(c1, c4, sizeof c1) == 0);
    CHECK(memcmp(g1, g4, sizeof g1) == 0);
    cudnnDestroy(h1);
    cudnnDestroy(h4);
}

static void bad_input(cudnnHandle_t h)
{
    SECTION("bad input");
    enum { T = 4, N = 2, A = 3 };
    int labels[] = {1, 2, 2}, lens[] = {2, 1}, inl[] = {4, 3};
    float probs[T * N * A], costs[N] = {-9, -9}, grads[T * N * A];
    for (int i = 0; i < T * N * A; i++)
        probs[i] = 1.0f / 3;
    cudnnTensorDescriptor_t pd, gd, g4, h16, unset;
    cudnnCTCLossDescriptor_t d, dead;
    cudnnCreateTensorDescriptor(&pd);
    cudnnCreateTensorDescriptor(&gd);
    cudnnCreateTensorDescriptor(&g4);
    cudnnCreateTensorDescriptor(&h16);
    cudnnCreateTensorDescriptor(&unset);
    int dims[3] = {T, N, A}, st3[3] = {N * A, A, 1}, wrong[3] = {T, N, A + 1}, wst[3] = {N * (A + 1), A + 1, 1};
    int d4[4] = {T, N, A, 1}, s4[4] = {N * A, A, 1, 1};
    CHECK_OK(cudnnSetTensorNdDescriptor(pd, CUDNN_DATA_FLOAT, 3, dims, st3));
    CHECK_OK(cudnnSetTensorNdDescriptor(gd, CUDNN_DATA_FLOAT, 3, wrong, wst));
    CHECK_OK(cudnnSetTensorNdDescriptor(g4, CUDNN_DATA_FLOAT, 4, d4, s4));
    CHECK_OK(cudnnSetTensorNdDescriptor(h16, CUDNN_DATA_HALF, 3, dims, st3));
    CHECK_OK(cudnnCreateCTCLossDescriptor(&d));
    CHECK_OK(cudnnCreateCTCLossDescriptor(&dead));
    CHECK_OK(cudnnDestroyCTCLossDescriptor(dead));
    const cudnnCTCLossAlgo_t al = CUDNN_CTC_LOSS_ALGO_DETERMINISTIC;
    size_t ws = 0;
    CHECK_OK(cudnnGetCTCLossWorkspaceSize(h, pd, pd, labels, lens, inl, al, d, &ws));
    CHECK(ws > 0);
    void *w = malloc(ws);

#define V7(...) cudnnGetCTCLossWorkspaceSize(__VA_ARGS__)
    size_t z = 12345;
    CHECK_STATUS(V7(NULL, pd, pd, labels, lens, inl, al, d, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(V7(h, NULL, pd, labels, lens, inl, al, d, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(V7(h, unset, pd, labels, lens, inl, al, d, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(V7(h, pd, gd, labels, lens, inl, al, d, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(V7(h, g4, g4, labels, lens, inl, al, d, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(V7(h, h16, h16, labels, lens, inl, al, d, &z), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(V7(h, pd, pd, labels, lens, inl, (cudnnCTCLossAlgo_t)99, d, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(V7(h, pd, pd, labels, lens, inl, al, dead, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(V7(h, pd, pd, labels, lens, inl, al, (cudnnCTCLossDescriptor_t)(void *)pd, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(V7(h, pd, pd, labels, NULL, inl, al, d, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(V7(h, pd, pd, labels, lens, NULL, al, d, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(V7(h, pd, pd, labels, lens, inl, al, d, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT(z, 12345);
#undef V7
    /* v8 sizes need maxLabelLength. */
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize_v8(h, al, d, pd, pd, &z), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_NONE, CUDNN_NOT_PROPAGATE_NAN, 1));
    CHECK_OK(cudnnGetCTCLossWorkspaceSize_v8(h, al, d, pd, NULL, &z));
    CHECK_STATUS(cudnnGetCTCLossWorkspaceSize_v8(h, (cudnnCTCLossAlgo_t)-1, d, pd, pd, &z), CUDNN_STATUS_BAD_PARAM);
    /* Label 2 longer than maxLabelLength 1. */
    CHECK_STATUS(cudnnCTCLoss_v8(h, al, d, pd, probs, labels, lens, inl, costs, pd, grads, z, w), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetCTCLossDescriptor(d, CUDNN_DATA_FLOAT));

#define RUN(...) cudnnCTCLoss(__VA_ARGS__)
    CHECK_STATUS(RUN(h, pd, probs, labels, lens, inl, costs, pd, grads, al, d, w, ws - 1), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, labels, lens, inl, costs, pd, grads, al, d, NULL, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, NULL, labels, lens, inl, costs, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, NULL, lens, inl, costs, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, labels, lens, inl, NULL, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, labels, lens, inl, costs, NULL, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, labels, lens, inl, costs, gd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    int bad_lab[] = {1, 3, 2}, zero_lab[] = {0, 1, 2}, neg_lab[] = {1, -1, 2};
    CHECK_STATUS(RUN(h, pd, probs, bad_lab, lens, inl, costs, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, zero_lab, lens, inl, costs, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, neg_lab, lens, inl, costs, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    int in0[] = {0, 3}, in5[] = {4, 5}, lneg[] = {-1, 1}, lbig[] = {257, 1};
    CHECK_STATUS(RUN(h, pd, probs, labels, lens, in0, costs, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, labels, lens, in5, costs, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, labels, lneg, inl, costs, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, labels, lbig, inl, costs, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, labels, lens, inl, costs, pd, grads, (cudnnCTCLossAlgo_t)99, d, w, ws),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(h, pd, probs, labels, lens, inl, costs, pd, grads, al, dead, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(RUN(NULL, pd, probs, labels, lens, inl, costs, pd, grads, al, d, w, ws), CUDNN_STATUS_BAD_PARAM);
    CHECK(costs[0] == -9 && costs[1] == -9);   /* outputs untouched */
    /* v8 with a descriptor that never got maxLabelLength. */
    CHECK_STATUS(cudnnCTCLoss_v8(h, al, d, pd, probs, labels, lens, inl, costs, pd, grads, ws, w), CUDNN_STATUS_BAD_PARAM);
    CHECK(costs[0] == -9);
    /* And the good call: uniform probabilities give known costs.  Sample 1: label (2) in
     * 3 steps has 6 alignments of probability 3^-3. */
    CHECK_OK(RUN(h, pd, probs, labels, lens, inl, costs, pd, grads, al, d, w, ws));
    CHECK_NEAR(costs[1], -log(6.0 / 27.0), 1e-5);
#undef RUN
    free(w);
    cudnnDestroyTensorDescriptor(pd);
    cudnnDestroyTensorDescriptor(gd);
    cudnnDestroyTensorDescriptor(g4);
    cudnnDestroyTensorDescriptor(h16);
    cudnnDestroyTensorDescriptor(unset);
    cudnnDestroyCTCLossDescriptor(d);
}

static void non_finite(cudnnHandle_t h)
{
    SECTION("zeros and NaN");
    enum { T = 4, N = 3, A = 3 };
    static const int labels[] = {1, 2, 1, 2, 2};
    static const int lens[] = {2, 1, 2};
    static const int inl[] = {4, 4, 4};
    double x[T * N * A], cost[N], grad[T * N * A], ecost[N], egrad[T * N * A];
    for (int gm = 0; gm < 2; gm++) {
        ctc_case c = {T, N, A, labels, lens, inl, 0, 0, CUDNN_DATA_DOUBLE, CUDNN_LOSS_NORMALIZATION_NONE,
                      (cudnnNanPropagation_t)gm, 0, 0};
        make_input(&c, 7u, x);
        /* Sample 0: symbol 2 never occurs at step 1 (probability 0, log -inf): still finite. */
        x[((size_t)1 * N + 0) * A + 2] = 0;
        x[((size_t)1 * N + 0) * A + 0] += x[((size_t)1 * N + 0) * A + 1];
        /* Sample 2: a NaN probability of a symbol its label uses. */
        x[((size_t)2 * N + 2) * A + 2] = NAN;
        CHECK_OK(run_case(h, &c, x, cost, grad));
        expect_brute(&c, x, ecost, egrad);
        CHECK(isfinite(cost[0]) && isfinite(cost[1]) && isnan(cost[2]));
        CHECK_NEAR(cost[0], ecost[0], 1e-12);
        CHECK_NEAR(cost[1], ecost[1], 1e-12);
        int ok0 = 1, nan2 = 0, zero2 = 0;
        for (int t = 0; t < T; t++)
            for (int k = 0; k < A; k++) {
                ok0 &= fabs(grad[((size_t)t * N + 0) * A + k] - egrad[((size_t)t * N + 0) * A + k]) < 1e-12;
                double g2 = grad[((size_t)t * N + 2) * A + k];
                nan2 += isnan(g2) != 0;   /* isnan answers any nonzero value */
                zero2 += g2 == 0.0;
            }
        CHECK(ok0);
        /* The NaN sample: zero gradients, or NaN ones when NaN propagation is asked for. */
        CHECK_EQ_INT(gm ? nan2 : zero2, T * A);
    }
}

int main(void)
{
    descriptor();
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    against_brute_force(h);
    against_dp(h);
    finite_differences(h);
    determinism();
    non_finite(h);
    bad_input(h);
    cudnnDestroy(h);
    return hd_test_finish();
}
