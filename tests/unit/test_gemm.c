/*
 * Whole GEMM (kernels/gemm/gemm.h) against the float64 reference (tests/ref/gemm_ref.c), for every
 * kernel family the CPU allows (hd_sgemm_isa / hd_dgemm_isa), float and double: many shapes
 * (remainders of every tile, k below/at/above the k block, chunked m and n), all four
 * transpose combinations, leading dimensions wider than the matrices (padding untouched),
 * alpha/beta of 0, 1 and other values, beta == 0 over NaN, alpha == 0 / k == 0 without reading
 * A and B, exact small-integer fills compared bitwise.  Determinism: 1/2/3 threads and
 * repeated runs bitwise equal; the FMA kernel families (AVX2, AVX-512) bitwise equal to each
 * other.  tests/scripts/gemm_isa.sh runs this again under HOSTDNN_MAX_ISA caps.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/gemm/gemm.h"
#include "ref/gemm_ref.h"

#define GUARD 13.5

static uint32_t rng = 777u;
static double rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return ((rng >> 8) & 0xFFFF) / 32768.0 - 1.0;
}
static double rnd_int(void) /* -3 .. 3 */
{
    rng = rng * 1664525u + 1013904223u;
    return (double)((int)((rng >> 16) % 7u) - 3);
}

typedef struct {
    hd_isa_t isa;
    int dbl;            /* 0 float, 1 double */
    char ta, tb;
    size_t m, n, k;
    size_t pad;         /* extra elements on every leading dimension */
    double alpha, beta;
    int exact;          /* small integers: result must be bitwise the reference */
    int nan_c;          /* C starts as NaN (only with beta == 0) */
    int nan_ab;         /* A and B hold NaN (only with alpha == 0 or k == 0) */
    int threads;
} gcase;

static void call(const gcase *g, const void *A, size_t lda, const void *B, size_t ldb, void *C, size_t ldc)
{
    if (g->dbl)
        hd_dgemm_isa(g->isa, g->threads, g->ta, g->tb, g->m, g->n, g->k, g->alpha, A, lda, B, ldb, g->beta, C, ldc);
    else
        hd_sgemm_isa(g->isa, g->threads, g->ta, g->tb, g->m, g->n, g->k, (float)g->alpha, A, lda, B, ldb,
                     (float)g->beta, C, ldc);
}

static double get(const void *p, int dbl, size_t i) { return dbl ? ((const double *)p)[i] : ((const float *)p)[i]; }
static void put(void *p, int dbl, size_t i, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

/* Runs one case; returns 1 if it matches the reference and left the padding alone. */
static int run_case(const gcase *g)
{
    int tc = g->ta == 'T' || g->ta == 't', tbt = g->tb == 'T' || g->tb == 't';
    size_t es = g->dbl ? 8 : 4;
    size_t ar = tc ? g->k : g->m, ac = tc ? g->m : g->k;
    size_t br = tbt ? g->n : g->k, bc = tbt ? g->k : g->n;
    size_t lda = ac + g->pad, ldb = bc + g->pad, ldc = g->n + g->pad;
    size_t na = (ar ? ar : 1) * lda, nb = (br ? br : 1) * ldb, nc = g->m * ldc;
    void *A = malloc(na * es), *B = malloc(nb * es), *C = malloc(nc * es);
    double *Ad = malloc(na * 8), *Bd = malloc(nb * 8), *Cd = malloc(nc * 8), *bound = malloc(nc * 8);
    for (size_t i = 0; i < na; i++) {
        double v = g->nan_ab ? NAN : g->exact ? rnd_int() : rnd();
        put(A, g->dbl, i, v);
        Ad[i] = get(A, g->dbl, i);
    }
    for (size_t i = 0; i < nb; i++) {
        double v = g->nan_ab ? NAN : g->exact ? rnd_int() : rnd();
        put(B, g->dbl, i, v);
        Bd[i] = get(B, g->dbl, i);
    }
    for (size_t i = 0; i < nc; i++) {
        double v = (i % ldc) >= g->n ? GUARD : g->nan_c ? NAN : g->exact ? rnd_int() : rnd();
        put(C, g->dbl, i, v);
        Cd[i] = get(C, g->dbl, i);
    }
    call(g, A, lda, B, ldb, C, ldc);
    const char ra = tc ? 'T' : 'N', rb = tbt ? 'T' : 'N';
    if (g->alpha == 0 || g->k == 0) /* the reference must not see the NaN either */
        hd_ref_gemm(ra, rb, g->m, g->n, 0, g->alpha, Ad, lda, Bd, ldb, g->beta, Cd, ldc, bound);
    else
        hd_ref_gemm(ra, rb, g->m, g->n, g->k, g->alpha, Ad, lda, Bd, ldb, g->beta, Cd, ldc, bound);
    double u = g->dbl ? DBL_EPSILON / 2 : FLT_EPSILON / 2;
    int ok = 1;
    for (size_t i = 0; i < g->m && ok; i++) {
        for (size_t j = 0; j < ldc && ok; j++) {
            size_t x = i * ldc + j;
            double got = get(C, g->dbl, x);
            if (j >= g->n) {
                if (got != GUARD) {
                    fprintf(stderr, "  padding C[%zu][%zu] changed to %g\n", i, j, got);
                    ok = 0;
                }
                continue;
            }
            double want = Cd[x];
            double tol = g->exact ? 0 : 2.0 * (double)(g->k + 3) * u * bound[x] + 1e-300;
            if (!(fabs(got - want) <= tol)) {
                fprintf(stderr, "  C[%zu][%zu] = %.10g, want %.10g (tol %.3g)\n", i, j, got, want, tol);
                ok = 0;
            }
        }
    }
    if (!ok)
        fprintf(stderr, "  case: %s %s %c%c m=%zu n=%zu k=%zu pad=%zu alpha=%g beta=%g exact=%d nan_c=%d threads=%d\n",
                hd_isa_name(g->isa), g->dbl ? "f64" : "f32", g->ta, g->tb, g->m, g->n, g->k, g->pad, g->alpha,
                g->beta, g->exact, g->nan_c, g->threads);
    free(A);
    free(B);
    free(C);
    free(Ad);
    free(Bd);
    free(Cd);
    free(bound);
    return ok;
}

static const size_t shapes[][3] = {
    {1, 1, 1},     {1, 7, 3},      {5, 1, 9},      {2, 3, 4},      {13, 17, 19},   {14, 32, 256},
    {15, 33, 257}, {28, 64, 255},  {29, 65, 513},  {6, 16, 1},     {7, 17, 2},     {100, 37, 300},
    {64, 200, 64}, {257, 130, 40}, {33, 600, 17},  {20, 20, 1000}, {4100, 5, 3},   {3, 4200, 5},
    /* beyond one packing chunk in m and n (8192 rows for float, 4096 for double); several
       k blocks per chunk (small m + n), and several k chunks */
    {8200, 3, 5},  {3, 8300, 5},   {8, 9, 2000},   {100, 70, 1100},
};
static const double ab[][2] = {{1, 0}, {1, 1}, {-0.5, 2}, {2.5, 0}, {0.75, -1}};

static void test_shapes(hd_isa_t isa, int dbl)
{
    static char sec[64];
    snprintf(sec, sizeof sec, "shapes %s %s", hd_isa_name(isa), dbl ? "f64" : "f32");
    SECTION(sec);
    static const char tr[4][2] = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'T', 'T'}};
    size_t ns = sizeof shapes / sizeof shapes[0];
    int all = 1, count = 0;
    for (size_t s = 0; s < ns; s++) {
        for (int t = 0; t < 4; t++) {
            size_t q = s * 4 + (size_t)t;
            gcase g = {isa, dbl, tr[t][0], tr[t][1], shapes[s][0], shapes[s][1], shapes[s][2], q % 3 == 1 ? 3 : 0,
                       ab[q % 5][0], ab[q % 5][1], (int)(q % 2), 0, 0, (int)(q % 3) + 1};
            g.nan_c = g.beta == 0 && q % 4 == 3;
            int ok = run_case(&g);
            CHECK_MSG(ok, "%c%c m=%zu n=%zu k=%zu", g.ta, g.tb, g.m, g.n, g.k);
            all &= ok;
            count++;
        }
    }
    (void)all;
    (void)count;
}

static void test_special(hd_isa_t isa, int dbl)
{
    static char sec[64];
    snprintf(sec, sizeof sec, "special %s %s", hd_isa_name(isa), dbl ? "f64" : "f32");
    SECTION(sec);
    /* beta == 0 over NaN, exact and rounded, edge tiles */
    gcase g = {isa, dbl, 'N', 'N', 37, 45, 70, 2, 1.0, 0.0, 1, 1, 0, 2};
    CHECK(run_case(&g));
    g.exact = 0;
    g.ta = 'T';
    CHECK(run_case(&g));
    /* alpha == 0: A and B are not read (they hold NaN); C = beta * C, also beta == 0 over NaN */
    gcase z = {isa, dbl, 'N', 'T', 19, 23, 31, 1, 0.0, 0.5, 0, 0, 1, 1};
    CHECK(run_case(&z));
    z.beta = 0;
    z.nan_c = 1;
    CHECK(run_case(&z));
    /* k == 0: C = beta * C */
    gcase k0 = {isa, dbl, 'T', 'N', 9, 11, 0, 0, 2.0, -1.5, 0, 0, 1, 1};
    CHECK(run_case(&k0));
    k0.beta = 0;
    k0.nan_c = 1;
    CHECK(run_case(&k0));
    /* lower-case transpose letters */
    gcase lc = {isa, dbl, 't', 'n', 21, 18, 40, 0, 1.0, 1.0, 1, 0, 0, 2};
    CHECK(run_case(&lc));
    /* wide leading dimensions */
    gcase wide = {isa, dbl, 'N', 'N', 17, 35, 60, 1000, -1.0, 0.25, 0, 0, 0, 2};
    CHECK(run_case(&wide));
    /* m == 0 or n == 0: nothing is touched */
    float c1 = 42.0f;
    double c2 = 42.0;
    if (dbl)
        hd_dgemm_isa(isa, 2, 'N', 'N', 0, 5, 5, 1.0, NULL, 5, NULL, 5, 0.0, &c2, 5);
    else
        hd_sgemm_isa(isa, 2, 'N', 'N', 0, 5, 5, 1.0f, NULL, 5, NULL, 5, 0.0f, &c1, 5);
    if (dbl)
        hd_dgemm_isa(isa, 2, 'N', 'N', 1, 0, 5, 1.0, NULL, 5, NULL, 5, 0.0, &c2, 1);
    else
        hd_sgemm_isa(isa, 2, 'N', 'N', 1, 0, 5, 1.0f, NULL, 5, NULL, 5, 0.0f, &c1, 1);
    CHECK(c1 == 42.0f && c2 == 42.0);
}

/* Bitwise: 1, 2 and 3 threads, and a second run, give the same C. */
static void *det_run(hd_isa_t isa, int dbl, int threads, char ta, char tb, size_t m, size_t n, size_t k,
                     const void *A, const void *B)
{
    size_t es = dbl ? 8 : 4;
    void *C = malloc(m * n * es);
    for (size_t i = 0; i < m * n; i++)
        put(C, dbl, i, (double)(i % 13) * 0.1);
    size_t lda = ta == 'N' ? k : m, ldb = tb == 'N' ? n : k;
    if (dbl)
        hd_dgemm_isa(isa, threads, ta, tb, m, n, k, 0.7, A, lda, B, ldb, 0.3, C, n);
    else
        hd_sgemm_isa(isa, threads, ta, tb, m, n, k, 0.7f, A, lda, B, ldb, 0.3f, C, n);
    return C;
}

static void test_determinism(int dbl)
{
    SECTION(dbl ? "determinism f64" : "determinism f32");
    const size_t m = 97, n = 75, k = 520; /* k spans three k blocks; edge tiles everywhere */
    size_t es = dbl ? 8 : 4;
    void *A = malloc(m * k * es), *B = malloc(k * n * es);
    for (size_t i = 0; i < m * k; i++)
        put(A, dbl, i, rnd());
    for (size_t i = 0; i < k * n; i++)
        put(B, dbl, i, rnd());
    void *fused_ref = NULL;
    for (int isa = HD_ISA_SCALAR; isa <= (int)hd_cpu_isa(); isa++) {
        void *c1 = det_run((hd_isa_t)isa, dbl, 1, 'N', 'T', m, n, k, A, B);
        /* tests/scripts/gemm_isa.sh compares these between the packed and unpacked paths */
        unsigned long long h = 1469598103934665603ull;
        for (size_t i = 0; i < m * n * es; i++)
            h = (h ^ ((const unsigned char *)c1)[i]) * 1099511628211ull;
        printf("checksum %s %s: %016llx\n", dbl ? "f64" : "f32", hd_isa_name((hd_isa_t)isa), h);
        for (int th = 1; th <= 3; th++) {
            void *cx = det_run((hd_isa_t)isa, dbl, th, 'N', 'T', m, n, k, A, B);
            CHECK_MSG(memcmp(c1, cx, m * n * es) == 0, "%s: 1 thread vs %d threads (and a second run)",
                      hd_isa_name((hd_isa_t)isa), th);
            free(cx);
        }
        if (isa >= HD_ISA_AVX2) {
            if (!fused_ref) {
                fused_ref = c1;
                continue;
            }
            CHECK_MSG(memcmp(fused_ref, c1, m * n * es) == 0, "%s bitwise equal to avx2",
                      hd_isa_name((hd_isa_t)isa));
        }
        free(c1);
    }
    free(fused_ref);
    /* The plain entry points are the _isa ones at the ISA in effect. */
    void *c = det_run(hd_cpu_isa(), dbl, 2, 'T', 'N', 97, 45, 300, A, B);
    void *d = malloc(97 * 45 * es);
    for (size_t i = 0; i < 97 * 45; i++)
        put(d, dbl, i, (double)(i % 13) * 0.1);
    if (dbl)
        hd_dgemm(2, 'T', 'N', 97, 45, 300, 0.7, A, 97, B, 45, 0.3, d, 45);
    else
        hd_sgemm(2, 'T', 'N', 97, 45, 300, 0.7f, A, 97, B, 45, 0.3f, d, 45);
    CHECK(memcmp(c, d, 97 * 45 * es) == 0);
    free(c);
    free(d);
    free(A);
    free(B);
}

int main(int argc, char **argv)
{
    /* tests/scripts/gemm_isa.sh reads this line to check that HOSTDNN_MAX_ISA is honoured */
    printf("default kernels: %s %s (isa %s)\n", hd_gemm_kernel_name(4, HD_ISA_AVX512),
           hd_gemm_kernel_name(8, HD_ISA_AVX512), hd_isa_name(hd_cpu_isa()));
    if (argc > 1 && strcmp(argv[1], "--names") == 0)
        return 0;
    for (int isa = HD_ISA_SCALAR; isa <= (int)hd_cpu_isa(); isa++) {
        for (int dbl = 0; dbl <= 1; dbl++) {
            test_shapes((hd_isa_t)isa, dbl);
            test_special((hd_isa_t)isa, dbl);
        }
    }
    test_determinism(0);
    test_determinism(1);
    return hd_test_finish();
}
