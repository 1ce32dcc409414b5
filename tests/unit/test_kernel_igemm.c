/*
 * The indirect GEMM micro-kernels of the forward convolution (src/kernels/conv/
 * igemm-ukernels.h), each on its own, against their contract written out as plain loops
 * (FMA per step for the AVX2 / AVX-512 kernels, rounded product then sum for scalar), and
 * against the packed kernel of the same ISA on the same reduction (the solver mixes the two:
 * they must give the same bits).  Named edge cases: every mr and nr remainder, no segment,
 * empty and odd segments, several segments (B runs on across them), row offsets and a row0
 * into a longer pointer table, rows that repeat (zero rows are shared), B packed or in
 * place with a wider unaligned stride, ldc wider than the tile (padding untouched), alpha
 * and beta of 0, 1 and others, beta == 0 over NaN.  A kernel's strided entry (equally spaced
 * rows, where it has one) against its pointer entry on the same addresses: every remainder,
 * steps negative, zero and far apart, empty and long segments, alpha/beta, NaN in C.  Kernels
 * the CPU (or HOSTDNN_MAX_ISA) does not allow are skipped and say so.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/igemm/igemm-ukernels.h"
#include "kernels/gemm/gemm-ukernels.h"

static uint32_t rng = 4242u;
static float rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(((rng >> 8) & 0xFFFF) / 32768.0 - 1.0);
}

#define GUARD 7.25f
#define MAXSEG 5

typedef struct {
    size_t mr, nr, nseg, row0, bextra, ldc_extra;
    int64_t kc[MAXSEG], off[MAXSEG];
    float alpha, beta;
    int nan_c, repeat_rows;
} icase;

/* Runs one case of kernel K: the contract (plain loops), the kernel, and (when the segments
 * can be laid out as one packed A panel, which is always) the packed kernel of the ISA. */
static int run(const hd_igemm_kernel *K, const icase *t, const char *what)
{
    size_t MR = K->mr, NR = K->nr, ldc = NR + t->ldc_extra, crow = MR + 1;
    int64_t ktot = 0, span = 0;
    for (size_t s = 0; s < t->nseg; s++) {
        ktot += t->kc[s];
        if (t->off[s] + t->kc[s] > span)
            span = t->off[s] + t->kc[s];
    }
    size_t nrows = t->row0 + MR + 3;                  /* the pointer table is longer than a tile */
    size_t bs = t->bextra ? NR + t->bextra : NR;
    float *data = malloc(sizeof(float) * (size_t)(nrows * (size_t)(span + 1)));
    float *b = malloc(sizeof(float) * ((size_t)(ktot ? ktot : 1) * bs + 1));
    const float **rows = malloc(sizeof(float *) * nrows * (t->nseg ? t->nseg : 1));
    hd_igemm_seg seg[MAXSEG];
    for (size_t i = 0; i < nrows * (size_t)(span + 1); i++)
        data[i] = rnd();
    for (size_t i = 0; i < (size_t)(ktot ? ktot : 1) * bs + 1; i++)
        b[i] = rnd();
    const float *b0 = b + (bs != NR);                  /* in place: not 64-byte aligned */
    for (size_t s = 0; s < t->nseg; s++) {
        for (size_t r = 0; r < nrows; r++) {
            size_t src = t->repeat_rows ? (r * 7 + s) % 3 : (r * 5 + s * 3) % nrows;
            rows[s * nrows + r] = data + src * (size_t)(span + 1);
        }
        seg[s].rows = rows + s * nrows;
        seg[s].off = t->off[s];
        seg[s].kc = t->kc[s];
    }
    float *c = malloc(sizeof(float) * crow * ldc), *want = malloc(sizeof(float) * crow * ldc);
    float *packed_c = malloc(sizeof(float) * crow * ldc);
    for (size_t i = 0; i < crow; i++)
        for (size_t j = 0; j < ldc; j++)
            c[i * ldc + j] = (i < t->mr && j < t->nr) ? (t->nan_c ? NAN : rnd()) : GUARD;
    memcpy(want, c, sizeof(float) * crow * ldc);
    memcpy(packed_c, c, sizeof(float) * crow * ldc);
    int fused = K->isa != HD_ISA_SCALAR;
    for (size_t i = 0; i < t->mr; i++)
        for (size_t j = 0; j < t->nr; j++) {
            float acc = 0;
            int64_t k = 0;
            for (size_t s = 0; s < t->nseg; s++)
                for (int64_t p = 0; p < t->kc[s]; p++, k++) {
                    float av = seg[s].rows[t->row0 + i][seg[s].off + p], bv = b0[(size_t)k * bs + j];
                    if (fused) {
                        acc = fmaf(av, bv, acc);
                    } else {
                        float prod = av * bv;
                        acc = acc + prod;
                    }
                }
            float r = t->alpha * acc;
            if (t->beta != 0) {
                float u = t->beta * want[i * ldc + j];
                r = r + u;
            }
            want[i * ldc + j] = r;
        }
    /* both entries (plain and streaming-A) must give the contract's bits */
    float *c2 = malloc(sizeof(float) * crow * ldc);
    memcpy(c2, c, sizeof(float) * crow * ldc);
    K->fn(t->mr, t->nr, t->nseg, seg, t->row0, b0, bs, c, ldc, t->alpha, t->beta);
    K->fn_stream(t->mr, t->nr, t->nseg, seg, t->row0, b0, bs, c2, ldc, t->alpha, t->beta);
    int ok = memcmp(c, want, sizeof(float) * crow * ldc) == 0;
    if (ok && memcmp(c2, c, sizeof(float) * crow * ldc)) {
        fprintf(stderr, "  %s %s: the streaming-A entry differs\n", K->name, what);
        ok = 0;
    }
    free(c2);
    if (!ok)
        for (size_t i = 0; i < crow * ldc; i++)
            if (memcmp(&c[i], &want[i], sizeof(float))) {
                fprintf(stderr, "  %s %s: C[%zu][%zu] = %.9g, want %.9g\n", K->name, what, i / ldc, i % ldc,
                        (double)c[i], (double)want[i]);
                break;
            }
    /* the packed kernel of the same ISA on the same A, packed k-major */
    const hd_gemm_kernel *P = hd_gemm_kernel_for(sizeof(float), K->isa);
    if (ok && P->mr == MR && P->nr == NR && P->isa == K->isa) {
        float *a = malloc(sizeof(float) * MR * (size_t)(ktot ? ktot : 1));
        int64_t k = 0;
        for (size_t s = 0; s < t->nseg; s++)
            for (int64_t p = 0; p < t->kc[s]; p++, k++)
                for (size_t i = 0; i < MR; i++)
                    a[(size_t)k * MR + i] = seg[s].rows[t->row0 + i][seg[s].off + p];
        P->f32(t->mr, t->nr, (size_t)ktot, a, b0, bs, packed_c, ldc, t->alpha, t->beta);
        ok = memcmp(c, packed_c, sizeof(float) * crow * ldc) == 0;
        if (!ok)
            fprintf(stderr, "  %s %s: differs from %s\n", K->name, what, P->name);
        free(a);
    }
    free(data), free(b), free(rows), free(c), free(want), free(packed_c);
    return ok;
}

/* The strided entry (fn_strided) against the pointer entry on the same addresses: nseg
 * segments of kc[s] steps whose MR rows are dsp[s] floats apart (negative, zero: one row
 * repeated, or far apart), offsets off[s] into the rows; bits must agree. */
static int run_strided(const hd_igemm_kernel *K, size_t mr, size_t nr, size_t nseg, const int64_t *kc,
                       const int64_t *off, const int64_t *dsp, float alpha, float beta, int nan_c, const char *what)
{
    size_t MR = K->mr, NR = K->nr, ldc = NR + 3, crow = MR + 1;
    int64_t ktot = 0, span = 0;
    for (size_t s = 0; s < nseg; s++) {
        ktot += kc[s];
        int64_t reach = (int64_t)(MR - 1) * (dsp[s] < 0 ? -dsp[s] : dsp[s]) + off[s] + kc[s];
        if (reach > span)
            span = reach;
    }
    size_t nd = (size_t)span + 16;
    float *data = malloc(sizeof(float) * nd * (nseg ? nseg : 1));
    float *b = malloc(sizeof(float) * (size_t)(ktot ? ktot : 1) * NR);
    const float **rows = malloc(sizeof(float *) * MR * (nseg ? nseg : 1));
    hd_igemm_seg seg[MAXSEG];
    hd_igemm_sseg sseg[MAXSEG];
    for (size_t i = 0; i < nd * (nseg ? nseg : 1); i++)
        data[i] = rnd();
    for (size_t i = 0; i < (size_t)(ktot ? ktot : 1) * NR; i++)
        b[i] = rnd();
    for (size_t s = 0; s < nseg; s++) {
        /* row 0 where every row stays inside the segment's own data */
        const float *r0 = data + s * nd + (dsp[s] < 0 ? (size_t)(-dsp[s]) * (MR - 1) : 0);
        for (size_t i = 0; i < MR; i++)
            rows[s * MR + i] = r0 + (int64_t)i * dsp[s];
        seg[s].rows = rows + s * MR;
        seg[s].off = off[s];
        seg[s].kc = kc[s];
        sseg[s].a = r0 + off[s];
        sseg[s].d = (ptrdiff_t)(dsp[s] * (int64_t)sizeof(float));
        sseg[s].kc = kc[s];
    }
    float *c = malloc(sizeof(float) * crow * ldc), *c2 = malloc(sizeof(float) * crow * ldc);
    for (size_t i = 0; i < crow * ldc; i++)
        c[i] = (i / ldc < mr && i % ldc < nr) ? (nan_c ? NAN : rnd()) : GUARD;
    memcpy(c2, c, sizeof(float) * crow * ldc);
    K->fn(mr, nr, nseg, seg, 0, b, NR, c, ldc, alpha, beta);
    K->fn_strided(mr, nr, nseg, sseg, b, NR, c2, ldc, alpha, beta);
    int ok = memcmp(c, c2, sizeof(float) * crow * ldc) == 0;
    if (!ok)
        for (size_t i = 0; i < crow * ldc; i++)
            if (memcmp(&c[i], &c2[i], sizeof(float))) {
                fprintf(stderr, "  %s strided %s: C[%zu][%zu] = %.9g, pointer entry %.9g\n", K->name, what, i / ldc,
                        i % ldc, (double)c2[i], (double)c[i]);
                break;
            }
    free(data), free(b), free(rows), free(c), free(c2);
    return ok;
}

static void test_strided(const hd_igemm_kernel *K)
{
    SECTION("strided entry");
    int all = 1;
    for (size_t mr = 1; mr <= K->mr; mr++)
        for (size_t nr = 1; nr <= K->nr; nr++) {
            int64_t kc[1] = {21}, off[1] = {2}, d[1] = {6};
            all &= run_strided(K, mr, nr, 1, kc, off, d, 1.5f, 0.5f, 0, "remainders");
        }
    CHECK_MSG(all, "strided: remainders mr 1..%zu x nr 1..%zu", K->mr, K->nr);
    /* seven runs of 21 (conv1), steps negative, zero (the zero row), far apart, odd */
    int64_t kc7[5] = {21, 21, 21, 21, 21}, off7[5] = {0, 0, 3, 0, 1}, d7[5] = {6, -21, 0, 1000, 1};
    CHECK_MSG(run_strided(K, K->mr, K->nr, 5, kc7, off7, d7, 1, 0, 0, "steps"), "strided: steps 6 -21 0 1000 1");
    int64_t kc3[3] = {0, 300, 7}, off3[3] = {0, 5, 0}, d3[3] = {3, 300, -1};
    CHECK_MSG(run_strided(K, K->mr - 3, K->nr - 5, 3, kc3, off3, d3, -0.5f, 2, 0, "long"), "strided: empty and long segments");
    static const float alphas[] = {0, 1, -2.5f}, betas[] = {0, 1, -0.3f};
    for (int ia = 0; ia < 3; ia++)
        for (int ib = 0; ib < 3; ib++) {
            int64_t kc[2] = {13, 20}, off[2] = {0, 4}, d[2] = {8, 64};
            CHECK_MSG(run_strided(K, K->mr, K->nr, 2, kc, off, d, alphas[ia], betas[ib], 0, "alpha/beta"),
                      "strided: alpha=%g beta=%g", (double)alphas[ia], (double)betas[ib]);
        }
    int64_t kcn[1] = {40}, offn[1] = {0}, dn[1] = {40};
    CHECK_MSG(run_strided(K, K->mr, K->nr, 1, kcn, offn, dn, 1, 0, 1, "NaN"), "strided: beta=0 over NaN");
}

static void test_kernel(const hd_igemm_kernel *K)
{
    SECTION(K->name);
    printf("test %s\n", K->name);
    icase t;
    memset(&t, 0, sizeof t);
    /* every remainder, one segment */
    int all = 1;
    for (size_t mr = 1; mr <= K->mr; mr++)
        for (size_t nr = 1; nr <= K->nr; nr++) {
            icase u = {mr, nr, 1, 2, 0, 3, {5}, {1}, 1.5f, 0.5f, 0, 0};
            all &= run(K, &u, "remainders");
        }
    CHECK_MSG(all, "remainders mr 1..%zu x nr 1..%zu", K->mr, K->nr);
    /* segments: none, empty ones, odd lengths, offsets, many; B packed and in place */
    static const icase segs[] = {
        {14, 32, 0, 0, 0, 0, {0}, {0}, 1, 1, 0, 0},
        {14, 32, 1, 0, 0, 0, {0}, {0}, 1, 0, 0, 0},
        {14, 32, 1, 0, 0, 0, {1}, {0}, 1, 0, 0, 0},
        {14, 32, 3, 1, 0, 0, {3, 0, 7}, {2, 0, 9}, 1, 1, 0, 0},
        {14, 32, 2, 3, 5, 1, {17, 16}, {0, 16}, -0.75f, 2, 0, 0},
        {14, 32, 5, 0, 1, 2, {256, 9, 31, 1, 64}, {3, 0, 1, 40, 11}, 1, 1, 0, 0},
        {14, 32, 4, 4, 0, 0, {40, 40, 40, 40}, {0, 0, 0, 0}, 1, 0, 0, 1},    /* shared rows */
        {7, 9, 3, 2, 7, 17, {20, 21, 22}, {5, 0, 3}, 2, -0.3f, 0, 1},
    };
    for (size_t i = 0; i < sizeof segs / sizeof segs[0]; i++) {
        icase u = segs[i];
        if (u.mr > K->mr)
            u.mr = K->mr;
        if (u.nr > K->nr)
            u.nr = K->nr;
        CHECK_MSG(run(K, &u, "segments"), "segment case %zu", i);
    }
    /* alpha and beta: 0, 1 and others; beta 0 over NaN; wide ldc */
    static const float alphas[] = {0, 1, -2.5f}, betas[] = {0, 1, -0.3f};
    for (int ia = 0; ia < 3; ia++)
        for (int ib = 0; ib < 3; ib++) {
            icase u = {K->mr, K->nr, 2, 1, 0, 1, {13, 20}, {0, 4}, alphas[ia], betas[ib], 0, 0};
            CHECK_MSG(run(K, &u, "alpha/beta"), "alpha=%g beta=%g", (double)alphas[ia], (double)betas[ib]);
            u.mr = 1 + K->mr / 2, u.nr = 1 + K->nr / 2, u.ldc_extra = 17;
            CHECK_MSG(run(K, &u, "alpha/beta half"), "half tile alpha=%g beta=%g", (double)alphas[ia],
                      (double)betas[ib]);
        }
    icase n1 = {K->mr, K->nr, 2, 0, 0, 2, {19, 21}, {0, 1}, 1, 0, 1, 0};
    CHECK_MSG(run(K, &n1, "NaN"), "beta=0 over NaN (full)");
    icase n2 = {K->mr - 1, K->nr - 1, 1, 0, 0, 2, {40}, {0}, -1, 0, 1, 0};
    CHECK_MSG(run(K, &n2, "NaN edge"), "beta=0 over NaN (edge)");
    icase w = {K->mr, K->nr, 1, 0, 0, 1000, {64}, {0}, 1, 1, 0, 0};
    CHECK_MSG(run(K, &w, "wide ldc"), "ldc = NR + 1000");
    if (K->fn_strided)
        test_strided(K);
}

/* hd_igemm_strided_segments: equally spaced rows (any step, zero and negative included)
 * become strided segments with the same addresses; one row off, too many segments, or a
 * tile of fewer than two rows are refused. */
static void test_strided_check(void)
{
    SECTION("equal-spacing check");
    static float data[400];
    const float *rows[2][16];
    hd_igemm_seg sg[2];
    hd_igemm_sseg ss[2];
    for (int i = 0; i < 16; i++) {
        rows[0][i] = data + 3 + 6 * i;      /* step 6 */
        rows[1][i] = data + 390 - 20 * i;   /* step -20 */
    }
    for (int s = 0; s < 2; s++)
        sg[s].rows = rows[s], sg[s].off = s + 1, sg[s].kc = 5;
    CHECK(hd_igemm_strided_segments(sg, 2, 1, 14, ss, 2) == 1);
    CHECK(ss[0].a == data + 3 + 6 + 1 && ss[0].d == 6 * (ptrdiff_t)sizeof(float) && ss[0].kc == 5);
    CHECK(ss[1].a == data + 390 - 20 + 2 && ss[1].d == -20 * (ptrdiff_t)sizeof(float));
    CHECK(hd_igemm_strided_segments(sg, 2, 0, 14, ss, 1) == 0);   /* more than nmax */
    CHECK(hd_igemm_strided_segments(sg, 1, 0, 1, ss, 2) == 0);    /* one row */
    rows[1][13] += 1;                                               /* the last row of the tile off */
    CHECK(hd_igemm_strided_segments(sg, 2, 0, 14, ss, 2) == 0);
    CHECK(hd_igemm_strided_segments(sg, 2, 0, 13, ss, 2) == 1);   /* ... outside a 13-row tile */
    for (int i = 0; i < 16; i++)
        rows[0][i] = data;                                          /* the zero row: step 0 */
    CHECK(hd_igemm_strided_segments(sg, 1, 2, 14, ss, 1) == 1 && ss[0].d == 0);
}

int main(void)
{
    size_t n;
    const hd_igemm_kernel *ks = hd_igemm_kernels(&n);
    test_strided_check();
    SECTION("table");
    CHECK(n >= 3 && ks[0].isa == HD_ISA_SCALAR);
    for (size_t i = 0; i < n; i++) {
        char shape[32];
        snprintf(shape, sizeof shape, "-%zux%zu-", ks[i].mr, ks[i].nr);
        CHECK_MSG(strstr(ks[i].name, shape) != NULL, "%s has shape %s", ks[i].name, shape);
        size_t ng;
        const hd_gemm_kernel *G = hd_gemm_kernels(sizeof(float), &ng), *P = &G[0];
        for (size_t j = 0; j < ng; j++)          /* the packed kernel of the same ISA */
            if (G[j].isa <= ks[i].isa)
                P = &G[j];
        CHECK_MSG(P->mr == ks[i].mr && P->nr == ks[i].nr, "%s: the tile of %s", ks[i].name, P->name);
        if (i > 0)
            CHECK(ks[i].isa >= ks[i - 1].isa);
        if (ks[i].isa <= hd_cpu_isa())   /* the config never goes above the CPU */
            CHECK(hd_igemm_kernel_for(ks[i].isa) == &ks[i]);
    }
    CHECK(hd_igemm_kernel_for(HD_ISA_AVX512)->isa <= hd_cpu_isa());
    for (size_t i = 0; i < n; i++) {
        if (ks[i].isa > hd_cpu_isa()) {
            SKIP("%s (ISA %s not available)", ks[i].name, hd_isa_name(ks[i].isa));
            continue;
        }
        test_kernel(&ks[i]);
    }
    return hd_test_finish();
}
