/*
 * The dot micro-kernels of the forward convolution's batch-1 plan (src/kernels/conv/
 * dot-ukernels.h), each on its own, against their contract written out as plain loops (per
 * lane: an FMA per step for AVX2 / AVX-512, a rounded product then sum for scalar), bit for
 * bit.  Named edge cases: segment lengths below, at and past a multiple of 16 (the
 * zero-filled tail), one and several segments (x rows jump, w rows run on), an x pointer
 * table wider than the tile, partial sums carried in (first = 0) and started (first = 1),
 * and one call over three segments against three calls of one segment each (a reduction
 * split at segment boundaries keeps its bits).  Then the fold's fixed order, and the AVX2
 * and AVX-512 kernels against each other on the same tile.  Rows are allocated to their
 * exact length, so a load past a row's end is caught by the ASan run.  Kernels the CPU (or
 * HOSTDNN_MAX_ISA) does not allow are skipped and say so.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/dot/dot-ukernels.h"

#define L HD_DOT_LANES
#define MAXT 8                   /* tiles up to 8 x 8 */

static uint32_t rng = 777u;
static float rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(((rng >> 8) & 0xFFFF) / 32768.0 - 1.0);
}

typedef struct {
    size_t kc, nseg, xstride_extra;
    int first;
} dcase;

/* The tile's inputs: x rows per segment (exact length kc), w rows of nseg * kc. */
typedef struct {
    size_t MR, NR, xstride;
    const float **x;
    const float *w[MAXT];
    float **rowsv;               /* every row, one allocation each (exact length) */
    size_t nrows;
} tile_in;

static void tile_make(tile_in *t, size_t MR, size_t NR, const dcase *c)
{
    t->MR = MR, t->NR = NR;
    t->xstride = MR + c->xstride_extra;
    t->nrows = c->nseg * t->xstride + NR;
    t->rowsv = malloc(sizeof(float *) * t->nrows);
    t->x = malloc(sizeof(float *) * (c->nseg ? c->nseg : 1) * t->xstride);
    for (size_t r = 0; r < t->nrows; r++) {
        size_t len = r < c->nseg * t->xstride ? c->kc : c->nseg * c->kc;
        t->rowsv[r] = malloc(sizeof(float) * (len ? len : 1));
        for (size_t i = 0; i < len; i++)
            t->rowsv[r][i] = rnd();
    }
    for (size_t r = 0; r < c->nseg * t->xstride; r++)
        t->x[r] = t->rowsv[r];
    for (size_t j = 0; j < NR; j++)
        t->w[j] = t->rowsv[c->nseg * t->xstride + j];
}

static void tile_free(tile_in *t)
{
    for (size_t r = 0; r < t->nrows; r++)
        free(t->rowsv[r]);
    free(t->rowsv);
    free((void *)t->x);
}

/* The contract as plain loops. */
static void contract(const tile_in *t, const dcase *c, int fused, float *part)
{
    for (size_t i = 0; i < t->MR; i++)
        for (size_t j = 0; j < t->NR; j++)
            for (size_t l = 0; l < L; l++) {
                float acc = c->first ? 0.0f : part[(i * t->NR + j) * L + l];
                for (size_t g = 0; g < c->nseg; g++)
                    for (size_t s = l; s < (c->kc + L - 1) / L * L; s += L) {
                        float xv = s < c->kc ? t->x[g * t->xstride + i][s] : 0.0f;
                        float wv = s < c->kc ? t->w[j][g * c->kc + s] : 0.0f;
                        if (fused) {
                            acc = fmaf(xv, wv, acc);
                        } else {
                            float prod = xv * wv;
                            acc = acc + prod;
                        }
                    }
                part[(i * t->NR + j) * L + l] = acc;
            }
}

static int run(const hd_dot_kernel *K, const dcase *c, const char *what)
{
    tile_in t;
    tile_make(&t, K->mr, K->nr, c);
    size_t n = K->mr * K->nr * L;
    float *got = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++)
        got[i] = want[i] = c->first ? NAN : rnd();    /* first: part is never read */
    contract(&t, c, K->isa != HD_ISA_SCALAR, want);
    K->fn(c->kc, c->nseg, t.x, t.xstride, t.w, got, c->first);
    int ok = memcmp(got, want, sizeof(float) * n) == 0;
    if (!ok)
        for (size_t i = 0; i < n; i++)
            if (memcmp(&got[i], &want[i], sizeof(float))) {
                fprintf(stderr, "  %s %s: part[%zu] = %.9g, want %.9g\n", K->name, what, i, (double)got[i],
                        (double)want[i]);
                break;
            }
    tile_free(&t);
    free(got), free(want);
    return ok;
}

/* One call over three segments against three calls over one segment each. */
static int run_split(const hd_dot_kernel *K, size_t kc)
{
    dcase c = {kc, 3, 1, 1};
    tile_in t;
    tile_make(&t, K->mr, K->nr, &c);
    size_t n = K->mr * K->nr * L;
    float *one = malloc(sizeof(float) * n), *three = malloc(sizeof(float) * n);
    K->fn(kc, 3, t.x, t.xstride, t.w, one, 1);
    for (size_t g = 0; g < 3; g++) {
        const float *wg[MAXT];
        for (size_t j = 0; j < K->nr; j++)
            wg[j] = t.w[j] + g * kc;
        K->fn(kc, 1, t.x + g * t.xstride, t.xstride, wg, three, g == 0);
    }
    int ok = memcmp(one, three, sizeof(float) * n) == 0;
    tile_free(&t);
    free(one), free(three);
    return ok;
}

static void test_kernel(const hd_dot_kernel *K)
{
    SECTION(K->name);
    static const size_t kcs[] = {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 512};
    for (size_t i = 0; i < sizeof kcs / sizeof *kcs; i++)
        for (int first = 0; first < 2; first++)
            for (size_t nseg = 1; nseg <= 3; nseg += 2) {
                dcase c = {kcs[i], nseg, nseg > 1 ? 3 : 0, first};
                char what[64];
                snprintf(what, sizeof what, "kc %zu nseg %zu first %d", c.kc, c.nseg, first);
                CHECK_MSG(run(K, &c, what), "%s: %s", K->name, what);
            }
    dcase none = {16, 0, 0, 0};
    CHECK_MSG(run(K, &none, "no segment"), "%s: no segment leaves the carried sums", K->name);
    for (size_t kc = 15; kc <= 17; kc++)
        CHECK_MSG(run_split(K, kc), "%s: kc %zu, three segments in one call or three", K->name, kc);
}

/* The AVX2 and AVX-512 kernels give the same bits on the corner of a tile they share. */
static void test_agree(const hd_dot_kernel *a, const hd_dot_kernel *b)
{
    SECTION("AVX2 and AVX-512 agree");
    size_t mr = a->mr < b->mr ? a->mr : b->mr, nr = a->nr < b->nr ? a->nr : b->nr;
    for (size_t kc = 1; kc <= 70; kc += 23) {
        dcase c = {kc, 2, 0, 1};
        tile_in t;
        tile_make(&t, MAXT, MAXT, &c);
        float pa[MAXT * MAXT * L], pb[MAXT * MAXT * L];
        a->fn(kc, 2, t.x, t.xstride, t.w, pa, 1);
        b->fn(kc, 2, t.x, t.xstride, t.w, pb, 1);
        int same = 1;
        for (size_t i = 0; i < mr; i++)
            for (size_t j = 0; j < nr; j++)
                same &= !memcmp(pa + (i * a->nr + j) * L, pb + (i * b->nr + j) * L, sizeof(float) * L);
        CHECK_MSG(same, "kc %zu: %s and %s differ", kc, a->name, b->name);
        tile_free(&t);
    }
}

static void test_fold(void)
{
    SECTION("fold order");
    /* 2^24 + 1 + 1: only the tree's order pairs the two ones (lanes 1 and 9) before they
       meet 2^24, where each would round away alone (left to right gives 2^24) */
    float v[L] = {0};
    v[0] = 0x1p24f, v[1] = 1.0f, v[9] = 1.0f;
    CHECK(hd_f32_dot_fold(v) == 16777218.0f);
    float ones[L];
    for (int l = 0; l < L; l++)
        ones[l] = (float)(l + 1);
    CHECK(hd_f32_dot_fold(ones) == 136.0f);
}

int main(void)
{
    size_t n;
    const hd_dot_kernel *ks = hd_dot_kernels(&n);
    SECTION("table");
    CHECK(n >= 3 && ks[0].isa == HD_ISA_SCALAR);
    for (size_t i = 0; i < n; i++) {
        char shape[32];
        snprintf(shape, sizeof shape, "-%zux%zu-", ks[i].mr, ks[i].nr);
        CHECK_MSG(strstr(ks[i].name, shape) != NULL, "%s has shape %s", ks[i].name, shape);
        CHECK(ks[i].mr <= MAXT && ks[i].nr <= MAXT && ks[i].mr >= 2 && ks[i].nr >= 2);
        if (i > 0)
            CHECK(ks[i].isa >= ks[i - 1].isa);
        if (ks[i].isa <= hd_cpu_isa())   /* the config never goes above the CPU */
            CHECK(hd_dot_kernel_for(ks[i].isa) == &ks[i]);
    }
    CHECK(hd_dot_kernel_for(HD_ISA_AVX512)->isa <= hd_cpu_isa());
    const hd_dot_kernel *avx2 = NULL, *avx512 = NULL;
    for (size_t i = 0; i < n; i++) {
        if (ks[i].isa > hd_cpu_isa()) {
            SKIP("%s (ISA %s not available)", ks[i].name, hd_isa_name(ks[i].isa));
            continue;
        }
        test_kernel(&ks[i]);
        if (ks[i].isa == HD_ISA_AVX2)
            avx2 = &ks[i];
        if (ks[i].isa == HD_ISA_AVX512)
            avx512 = &ks[i];
    }
    test_fold();
    if (avx2 && avx512)
        test_agree(avx2, avx512);
    else
        SKIP("AVX2 / AVX-512 agreement (both not available)");
    return hd_test_finish();
}
