/*
 * tests/unit/wino_check.h -- the reference check the Winograd F(4x4,3x3) engine's tests share
 * (test_conv_wino4_dilated.c, test_conv_wino4_split.c): one direction of one case against the
 * float64 reference for two (alpha, beta) pairs, every output element within
 *     (L * red_mult + 18) u (|alpha| S + |beta y_old|),   u = 2^-24,
 * S the test's own bound of the Winograd sum, L the reduction's channels; elements outside
 * the tensor (padded strides) untouched; the dispatch log naming the test's solvers only.
 * Needs conv_case.h, ref/conv_ref.h and math.h; the test provides its solver flags.
 */
#ifndef HD_TEST_WINO_CHECK_H
#define HD_TEST_WINO_CHECK_H

typedef void (*wc_bound_fn)(const conv_ref_shape *s, const double *in, const double *w, double *S);

typedef struct {
    wc_bound_fn fwd, bwdd;   /* S of forward and of backward data */
    int red_mult;            /* reduction channels per real channel (4: 5x5 in four pieces) */
    const char *what;        /* the solvers, for messages */
    int *saw, *saw_other;    /* set by the test's log callback: its solvers ran / others did */
} wc_spec;

static double wc_worst_bound = 0;

static double rnd(void)   /* a float in [-1, 1) */
{
    rng = rng * 1103515245u + 12345u;
    return (double)(float)((double)((rng >> 8) & 0xffff) / 32768.0 - 1.0);
}

/* Direction DIR of case C in LAYOUT against the reference, for two (alpha, beta) pairs. */
static inline void wc_check_case(cudnnHandle_t h, const wc_spec *sp, const conv_case *c, int layout, int flip, int dir)
{
    prob P;
    prob_make(&P, c, layout, flip);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs);
    long nin = dir == D_FWD ? nx : ny, nout = dir == D_FWD ? ny : nx;
    tens *tin = dir == D_FWD ? &P.x : &P.y, *tout = dir == D_FWD ? &P.y : &P.x;
    double *lx = malloc(sizeof(double) * (size_t)nin), *lw = malloc(sizeof(double) * (size_t)nw);
    double *ref = malloc(sizeof(double) * (size_t)nout), *S = malloc(sizeof(double) * (size_t)nout);
    double *prev = malloc(sizeof(double) * (size_t)nout);
    for (long i = 0; i < nin; i++)
        lx[i] = rnd();
    for (long i = 0; i < nw; i++)
        lw[i] = rnd();
    if (dir == D_FWD) {
        conv_ref_fwd(&P.rs, lx, lw, ref);
        sp->fwd(&P.rs, lx, lw, S);
    } else {
        conv_ref_bwd_data(&P.rs, lx, lw, ref);
        sp->bwdd(&P.rs, lx, lw, S);
    }
    int red = dir == D_FWD ? c->C / c->G : c->K / c->G;
    double gam = (double)(red * sp->red_mult + 18) * 0x1p-24;
    static const float ab[2][2] = {{1, 0}, {-1.5f, 1}};
    tens_load(tin, lx, 0), tens_load(&P.w, lw, 0);
    const char *dn = dir == D_FWD ? "fwd" : "bwd data";
    for (int k = 0; k < 2; k++) {
        float alpha = ab[k][0], beta = ab[k][1];
        for (long i = 0; i < nout; i++)
            prev[i] = rnd();
        tens_load(tout, prev, beta == 0 ? NAN : -7.0f);   /* padding elements must survive */
        *sp->saw = *sp->saw_other = 0;
        int algo = dir == D_FWD ? (int)CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED
                                : (int)CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
        cudnnStatus_t st = conv_case_run(h, &P, dir, algo, alpha, beta, 0, NULL);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s %s layout %d: status %d", dn, c->name, layout, (int)st);
        CHECK_MSG(*sp->saw && !*sp->saw_other, "%s %s layout %d: %s not dispatched", dn, c->name, layout, sp->what);
        long bad = 0, first = -1, gaps = 0;
        for (long i = 0; i < nout; i++) {
            double want = alpha * ref[i] + (beta == 0 ? 0 : beta * prev[i]);
            double got = tout->mem[tens_off(tout, i)];
            double err = fabs(got - want), tol = gam * (fabs(alpha) * S[i] + fabs(beta * prev[i]));
            if (!(err <= tol)) {
                if (first < 0)
                    first = i;
                bad++;
            }
            if (beta == 0 && S[i] > 0 && err / (gam * S[i]) > wc_worst_bound)
                wc_worst_bound = err / (gam * S[i]);
        }
        if (layout == L_PADDED) {
            char *mark = calloc((size_t)tout->span, 1);
            for (long i = 0; i < nout; i++)
                mark[tens_off(tout, i)] = 1;
            for (long i = 0; i < tout->span; i++)
                if (!mark[i] && !(beta == 0 ? isnan(tout->mem[i]) : tout->mem[i] == -7.0f))
                    gaps++;
            free(mark);
        }
        CHECK_MSG(bad == 0 && gaps == 0,
                  "%s %s layout %d flip %d alpha %g beta %g: %ld beyond the bound (first %ld), %ld gaps", dn, c->name,
                  layout, flip, alpha, beta, bad, first, gaps);
    }
    free(lx), free(lw), free(ref), free(S), free(prev);
    prob_free(&P);
}

/* Backward filter: dw against the reference within (T + 20) u (|alpha| S + |beta dw_old|)
 * + rel |dw_ref| (rel: a rounding the solver adds after the engine), S and the T tiles from
 * the test's bound. */
typedef void (*wc_bwdf_bound_fn)(const conv_ref_shape *s, const double *x, const double *dy, double *S, long *T);

typedef struct {
    wc_bwdf_bound_fn bound;
    int algo;
    double rel;
    const char *what;
    int *saw, *saw_other;
} wc_bwdf_spec;

static inline void wc_check_bwdf(cudnnHandle_t h, const wc_bwdf_spec *sp, const conv_case *c, int layout, int flip)
{
    prob P;
    prob_make(&P, c, layout, flip);
    long nx = conv_ref_x_elems(&P.rs), nw = conv_ref_w_elems(&P.rs), ny = conv_ref_y_elems(&P.rs), T = 0;
    double *lx = malloc(sizeof(double) * (size_t)nx), *ly = malloc(sizeof(double) * (size_t)ny);
    double *ref = malloc(sizeof(double) * (size_t)nw), *S = malloc(sizeof(double) * (size_t)nw);
    double *prev = malloc(sizeof(double) * (size_t)nw);
    for (long i = 0; i < nx; i++)
        lx[i] = rnd();
    for (long i = 0; i < ny; i++)
        ly[i] = rnd();
    conv_ref_bwd_filter(&P.rs, lx, ly, ref);
    sp->bound(&P.rs, lx, ly, S, &T);
    double gam = (double)(T + 20) * 0x1p-24;
    tens_load(&P.x, lx, 0), tens_load(&P.y, ly, 0);
    static const float ab[2][2] = {{1, 0}, {-1.5f, 1}};
    for (int k = 0; k < 2; k++) {
        float alpha = ab[k][0], beta = ab[k][1];
        for (long i = 0; i < nw; i++)
            prev[i] = rnd();
        tens_load(&P.w, prev, beta == 0 ? NAN : -7.0f);
        *sp->saw = *sp->saw_other = 0;
        cudnnStatus_t st = conv_case_run(h, &P, D_BWDF, sp->algo, alpha, beta, 0, NULL);
        CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "bwd filter %s layout %d: status %d", c->name, layout, (int)st);
        CHECK_MSG(*sp->saw && !*sp->saw_other, "bwd filter %s layout %d: %s not dispatched", c->name, layout, sp->what);
        long bad = 0, first = -1;
        for (long i = 0; i < nw; i++) {
            double want = alpha * ref[i] + (beta == 0 ? 0 : beta * prev[i]);
            double got = P.w.mem[tens_off(&P.w, i)];
            double err = fabs(got - want),
                   tol = gam * (fabs(alpha) * S[i] + fabs(beta * prev[i])) + sp->rel * fabs(want) + 1e-30;
            if (!(err <= tol)) {
                if (first < 0)
                    first = i;
                bad++;
            }
            if (beta == 0 && err / tol > wc_worst_bound)
                wc_worst_bound = err / tol;
        }
        CHECK_MSG(bad == 0, "bwd filter %s layout %d flip %d alpha %g beta %g: %ld beyond the bound (first %ld)", c->name,
                  layout, flip, alpha, beta, bad, first);
    }
    free(lx), free(ly), free(ref), free(S), free(prev);
    prob_free(&P);
}

#endif
