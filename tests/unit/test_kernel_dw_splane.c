/*
 * The depthwise small-plane and flat-plane micro-kernels (src/kernels/dwconv/dwconv-ukernels.h:
 * hd_dw_splane_args, hd_dw_swplane_args, hd_dw_fplane_args, hd_dw_fwplane_args; AVX-512
 * only), each on its own, against their contracts written out as plain loops with one fmaf per
 * term in the documented order, bit for bit.  Small planes: tap tables drawn at random (any
 * column of the window, any lanes masked off), 1 to 8 taps along a row (3 taps: the unrolled
 * bodies), 1 to 4 chunks of 16 results per row whose windows start left of the row, run past
 * its end or advance by 8, 16 or 32 columns, a last chunk of 1 to 16 results, 1 to 3 filter
 * rows with result rows that lose filter rows at the plane's edges, vertical strides,
 * dilation and the zero-upsampled rows of backward data, result row strides wider than the
 * row.  Flat planes: 1 to 256 values, 1 to 25 taps at random offsets with random masks.  Both:
 * alpha/beta with beta = 0 over NaN, and the backward-filter sums added to values already
 * there.  Source planes are allocated to their exact length, so a read past their end is
 * caught by the ASan run.  Without AVX-512 (or under HOSTDNN_MAX_ISA below it) there are no
 * such kernels and the test says so.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/dwconv/dwconv-ukernels.h"

static uint32_t rng = 4711u;
static uint32_t next(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}
static float rnd(void) { return (float)((next() & 0xFFFF) / 32768.0 - 1.0); }

typedef struct {
    size_t R, S, nck, tail, oh;   /* tail: results in the last chunk (1..16) */
    int64_t sw, w0, adv;
    int64_t vs, vpad, vd, vup, vsrc;
} scase;

typedef struct {
    hd_dw_splane_geom g;
    int32_t idx[HD_DW_SPLANE_MAXS * 16];
    uint16_t tm[HD_DW_SPLANE_MAXS];
    float *src;
    int64_t srs;
} geom;

/* A random tap table and a source plane of exact length. */
static void geom_make(geom *G, const scase *c)
{
    memset(G, 0, sizeof *G);
    for (size_t s = 0; s < c->S; s++)
        for (size_t j = 0; j < 16; j++)
            if (next() % 8 != 0) {
                G->idx[s * 16 + j] = (int32_t)(next() % 32);
                G->tm[s] |= (uint16_t)(1u << j);
            }
    G->srs = c->sw + (int64_t)(next() % 3);
    size_t len = (size_t)((c->vsrc - 1) * G->srs + c->sw);
    G->src = malloc(sizeof(float) * len);
    for (size_t k = 0; k < len; k++)
        G->src[k] = rnd();
    G->g = (hd_dw_splane_geom){G->src, G->srs, c->sw, c->vs, c->vpad, c->vd, c->vup, c->vsrc,
                               c->R, c->S, c->nck, c->w0, c->adv, G->idx, G->tm};
}

static const float *ref_row(const scase *c, const geom *G, int64_t o, int64_t r)
{
    int64_t b = o * c->vs - c->vpad + r * c->vd;
    if (b < 0 || (c->vup > 1 && b % c->vup))
        return NULL;
    b /= c->vup;
    return b < c->vsrc ? G->src + b * G->srs : NULL;
}

/* Tap s of chunk m, lane j of a source row (0 when the tap does not take the lane, when
 * its window column lies outside the row, or when there is no row). */
static float tap(const scase *c, const geom *G, const float *row, size_t m, size_t s, size_t j)
{
    if (!row || !(G->tm[s] >> j & 1u))
        return 0.0f;
    int64_t col = c->w0 + (int64_t)m * c->adv + G->idx[s * 16 + j];
    return col >= 0 && col < c->sw ? row[col] : 0.0f;
}

static int in_chunk(const scase *c, size_t m, size_t j) { return m + 1 < c->nck || j < c->tail; }

static uint16_t tail_mask(const scase *c) { return (uint16_t)(c->tail >= 16 ? 0xffffu : (1u << c->tail) - 1u); }

static void check_splane(void (*fn)(const hd_dw_splane_args *), const scase *c, float alpha, float beta)
{
    geom G;
    geom_make(&G, c);
    float w[HD_DW_SPLANE_MAXRS];
    for (size_t k = 0; k < c->R * c->S; k++)
        w[k] = rnd();
    size_t ors = c->nck * 16 + next() % 5, n_out = c->oh * ors;
    float *out = malloc(sizeof(float) * n_out), *want = malloc(sizeof(float) * n_out);
    for (size_t k = 0; k < n_out; k++)
        out[k] = want[k] = beta == 0 ? NAN : rnd();
    for (size_t o = 0; o < c->oh; o++)
        for (size_t m = 0; m < c->nck; m++)
            for (size_t j = 0; j < 16; j++) {
                if (!in_chunk(c, m, j))
                    continue;
                float acc = 0.0f;
                for (size_t r = 0; r < c->R; r++) {
                    const float *row = ref_row(c, &G, (int64_t)o, (int64_t)r);
                    for (size_t s = 0; s < c->S; s++)
                        acc = fmaf(w[r * c->S + s], tap(c, &G, row, m, s, j), acc);
                }
                float *d = &want[o * ors + 16 * m + j];
                *d = beta == 0 ? alpha * acc : fmaf(beta, *d, alpha * acc);
            }
    hd_dw_splane_args a = {&G.g, out, (int64_t)ors, c->oh, tail_mask(c), w, alpha, beta};
    fn(&a);
    long bad = 0;
    for (size_t k = 0; k < n_out; k++)
        if (memcmp(&out[k], &want[k], sizeof(float)) != 0)
            bad++;
    CHECK_MSG(bad == 0, "splane R %zu S %zu nck %zu tail %zu sw %lld w0 %lld adv %lld oh %zu vs %lld vpad %lld vd %lld "
              "vup %lld alpha %g beta %g: %ld floats differ", c->R, c->S, c->nck, c->tail, (long long)c->sw,
              (long long)c->w0, (long long)c->adv, c->oh, (long long)c->vs, (long long)c->vpad, (long long)c->vd,
              (long long)c->vup, alpha, beta, bad);
    free(out), free(want), free(G.src);
}

static void check_swplane(void (*fn)(const hd_dw_swplane_args *), const scase *c)
{
    geom G;
    geom_make(&G, c);
    size_t drs = c->nck * 16 + next() % 5, dlen = (c->oh - 1) * drs + 16 * (c->nck - 1) + c->tail;
    float *dy = malloc(sizeof(float) * dlen);
    for (size_t k = 0; k < dlen; k++)
        dy[k] = rnd();
    float acc[HD_DW_SPLANE_MAXRS * 16], want[HD_DW_SPLANE_MAXRS * 16];
    for (size_t k = 0; k < HD_DW_SPLANE_MAXRS * 16; k++)
        acc[k] = want[k] = rnd();
    for (size_t o = 0; o < c->oh; o++)
        for (size_t m = 0; m < c->nck; m++)
            for (size_t r = 0; r < c->R; r++) {
                const float *row = ref_row(c, &G, (int64_t)o, (int64_t)r);
                if (!row)
                    continue;
                for (size_t s = 0; s < c->S; s++)
                    for (size_t j = 0; j < 16; j++) {
                        int in = in_chunk(c, m, j);
                        float dv = in ? dy[o * drs + 16 * m + j] : 0.0f, tv = in ? tap(c, &G, row, m, s, j) : 0.0f;
                        float *d = &want[(r * c->S + s) * 16 + j];
                        *d = fmaf(dv, tv, *d);
                    }
            }
    hd_dw_swplane_args a = {&G.g, acc, dy, (int64_t)drs, c->oh, tail_mask(c)};
    fn(&a);
    CHECK_MSG(memcmp(acc, want, sizeof acc) == 0, "swplane R %zu S %zu nck %zu tail %zu sw %lld w0 %lld adv %lld oh %zu "
              "vs %lld vpad %lld vd %lld vup %lld", c->R, c->S, c->nck, c->tail, (long long)c->sw, (long long)c->w0,
              (long long)c->adv, c->oh, (long long)c->vs, (long long)c->vpad, (long long)c->vd, (long long)c->vup);
    free(dy), free(G.src);
}

/* Flat planes: random tap offsets, masks that leave out the lanes whose source falls outside
 * the plane (the plane is allocated to its exact length) and random others. */
static void check_flat(const hd_dw_kernels *k, size_t n, size_t T, float alpha, float beta)
{
    int32_t d[HD_DW_SPLANE_MAXRS];
    uint16_t m[HD_DW_SPLANE_MAXRS * HD_DW_FPLANE_VECS];
    float w[HD_DW_SPLANE_MAXRS], *src = malloc(sizeof(float) * n), *dy = malloc(sizeof(float) * n);
    memset(m, 0, sizeof m);
    for (size_t k2 = 0; k2 < n; k2++)
        src[k2] = rnd(), dy[k2] = rnd();
    for (size_t t = 0; t < T; t++) {
        d[t] = (int32_t)(next() % 17) - 8;
        w[t] = rnd();
        for (size_t f = 0; f < n; f++)
            if ((int64_t)f + d[t] >= 0 && (int64_t)f + d[t] < (int64_t)n && next() % 6 != 0)
                m[HD_DW_FPLANE_VECS * t + f / 16] |= (uint16_t)(1u << (f % 16));
    }
    float *out = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n);
    for (size_t f = 0; f < n; f++) {
        out[f] = want[f] = beta == 0 ? NAN : rnd();
        float acc = 0.0f;
        for (size_t t = 0; t < T; t++)
            acc = fmaf(w[t], m[HD_DW_FPLANE_VECS * t + f / 16] >> (f % 16) & 1u ? src[(int64_t)f + d[t]] : 0.0f, acc);
        want[f] = beta == 0 ? alpha * acc : fmaf(beta, want[f], alpha * acc);
    }
    hd_dw_fplane_args a = {src, out, n, T, d, m, w, alpha, beta};
    k->fplane(&a);
    CHECK_MSG(memcmp(out, want, sizeof(float) * n) == 0, "fplane n %zu T %zu alpha %g beta %g", n, T, alpha, beta);
    float acc[HD_DW_SPLANE_MAXRS * 16], wacc[HD_DW_SPLANE_MAXRS * 16];
    for (size_t i = 0; i < HD_DW_SPLANE_MAXRS * 16; i++)
        acc[i] = wacc[i] = rnd();
    for (size_t t = 0; t < T; t++)
        for (size_t f = 0; f < HD_DW_FPLANE_MAX; f++) {
            float v = f < n && (m[HD_DW_FPLANE_VECS * t + f / 16] >> (f % 16) & 1u) ? src[(int64_t)f + d[t]] : 0.0f;
            float g = f < n ? dy[f] : 0.0f;
            if (f < 16 * ((n + 15) / 16))
                wacc[16 * t + f % 16] = fmaf(g, v, wacc[16 * t + f % 16]);
        }
    hd_dw_fwplane_args b = {src, dy, acc, n, T, d, m};
    k->fwplane(&b);
    CHECK_MSG(memcmp(acc, wacc, sizeof acc) == 0, "fwplane n %zu T %zu", n, T);
    free(src), free(dy), free(out), free(want);
}

int main(void)
{
    hd_dw_kernels k = hd_f32_dw_select(hd_cpu_isa());
    SECTION("which kernels");
    CHECK((k.splane != NULL) == (hd_cpu_isa() >= HD_ISA_AVX512));
    CHECK((k.swplane != NULL) == (hd_cpu_isa() >= HD_ISA_AVX512));
    if (!k.splane || !k.swplane) {
        SKIP("the small-plane kernels (ISA %s: none)", hd_isa_name(hd_cpu_isa()));
        return hd_test_finish();
    }
    /* vertical axes: stride 1 pad 1; stride 2; dilation 2; backward data over a dy upsampled by 2 */
    static const int64_t vax[][4] = {{1, 1, 1, 1}, {2, 1, 1, 1}, {1, 2, 2, 1}, {1, 1, 1, 2}};
    /* windows: one row in one window, chunks starting left of the row, strided chunks, a row
     * longer than the windows reach */
    static const int64_t win[][3] = {{14, 0, 16}, {7, -1, 16}, {28, -1, 32}, {56, -1, 8}, {40, 2, 16}, {5, -3, 16}};
    long n = 0;
    for (size_t S = 1; S <= HD_DW_SPLANE_MAXS; S++)
        for (size_t R = 1; R <= 3; R++)
            for (int a = 0; a < 6; a++)
                for (size_t nck = 1; nck <= 4; nck++)
                    for (int v = 0; v < 4; v++) {
                        if (S != 3 && (a + (int)nck + v) % 3)      /* every 3-tap case; a third of the others */
                            continue;
                        size_t oh = 1 + next() % 9, tail = 1 + next() % 16;
                        int64_t vsrc = (int64_t)(1 + (oh * (size_t)vax[v][0] + 2) / (size_t)vax[v][3]);
                        scase c = {R, S, nck, tail, oh, win[a][0], win[a][1], win[a][2], vax[v][0], vax[v][1],
                                   vax[v][2], vax[v][3], vsrc};
                        SECTION("splane against its contract");
                        check_splane(k.splane, &c, 1.0f, 0.0f);
                        check_splane(k.splane, &c, 0.5f, 2.0f);
                        SECTION("swplane against its contract");
                        check_swplane(k.swplane, &c);
                        n++;
                    }
    SECTION("cases");
    CHECK(n > 500);
    CHECK((k.fplane != NULL) == (k.fwplane != NULL) && k.fplane != NULL);
    for (size_t np = 1; np <= HD_DW_FPLANE_MAX; np += (np < 70 ? 1 : 13))
        for (size_t T = 1; T <= HD_DW_SPLANE_MAXRS; T += (T < 9 ? 1 : 4)) {
            SECTION("flat planes against their contract");
            check_flat(&k, np, T, 1.0f, 0.0f);
            check_flat(&k, np, T, 0.5f, 2.0f);
        }
    return hd_test_finish();
}
