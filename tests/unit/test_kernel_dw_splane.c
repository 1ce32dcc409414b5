/*
 * The depthwise small-plane micro-kernels (src/kernels/dwconv/dwconv-ukernels.h:
 * hd_dw_splane_args and hd_dw_swplane_args, AVX-512 only), each on its own, against their
 * contracts written out as plain loops with one fmaf per term in the documented order, bit for
 * bit.  Tap tables drawn at random (any column of the source row, any lanes masked off), 1 to
 * 8 taps along a row (3 taps: the unrolled bodies, with one and two source and result
 * vectors), 1 to 3 filter rows with result rows that lose filter rows at the plane's edges,
 * vertical strides, dilation and the zero-upsampled rows of backward data, result row
 * strides wider than the row, result masks shorter than 16 lanes, alpha/beta with beta = 0
 * over NaN, and the backward-filter sums added to values already there.  Source planes are
 * allocated to their exact length, so a read past the last row's last column is caught by the
 * ASan run.  Without AVX-512 (or under HOSTDNN_MAX_ISA below it) there is no such kernel and
 * the test says so.
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
    size_t R, S, nv, sw, ow, oh;
    int64_t vs, vpad, vd, vup, vsrc;
} scase;

typedef struct {
    hd_dw_splane_geom g;
    int32_t idx[2 * HD_DW_SPLANE_MAXS * 16];
    uint16_t tm[2 * HD_DW_SPLANE_MAXS];
    float *src;
    size_t srs;
} geom;

/* A random tap table for result columns < ow, and a source plane of exact length. */
static void geom_make(geom *G, const scase *c)
{
    memset(G, 0, sizeof *G);
    for (size_t k = 0; k < 2 * c->S; k++)
        for (size_t j = 0; j < 16; j++) {
            size_t col = (k % 2) * 16 + j;
            if (col < c->ow && next() % 8 != 0) {
                G->idx[k * 16 + j] = (int32_t)(next() % c->sw);
                G->tm[k] |= (uint16_t)(1u << j);
            }
        }
    G->srs = c->sw + next() % 3;
    size_t len = (size_t)(c->vsrc - 1) * G->srs + c->sw;
    G->src = malloc(sizeof(float) * len);
    for (size_t k = 0; k < len; k++)
        G->src[k] = rnd();
    G->g = (hd_dw_splane_geom){G->src, (int64_t)G->srs, c->sw, c->vs, c->vpad, c->vd, c->vup, c->vsrc,
                               c->R, c->S, c->nv, G->idx, G->tm};
}

static const float *ref_row(const scase *c, const geom *G, int64_t o, int64_t r)
{
    int64_t b = o * c->vs - c->vpad + r * c->vd;
    if (b < 0 || (c->vup > 1 && b % c->vup))
        return NULL;
    b /= c->vup;
    return b < c->vsrc ? G->src + b * (int64_t)G->srs : NULL;
}

/* Tap s of a source row at result column col (0 when masked off or no row). */
static float tap(const geom *G, const float *row, size_t s, size_t col)
{
    size_t k = 2 * s + col / 16, j = col % 16;
    if (!row || !(G->tm[k] >> j & 1u))
        return 0.0f;
    return row[G->idx[k * 16 + j]];
}

static void check_splane(void (*fn)(const hd_dw_splane_args *), const scase *c, float alpha, float beta)
{
    geom G;
    geom_make(&G, c);
    float w[HD_DW_SPLANE_MAXRS];
    for (size_t k = 0; k < c->R * c->S; k++)
        w[k] = rnd();
    size_t ors = c->nv * 16 + next() % 5, n_out = c->oh * ors;
    float *out = malloc(sizeof(float) * n_out), *want = malloc(sizeof(float) * n_out);
    for (size_t k = 0; k < n_out; k++)
        out[k] = want[k] = beta == 0 ? NAN : rnd();
    uint16_t om[2] = {0, 0};
    for (size_t col = 0; col < c->ow; col++)
        om[col / 16] |= (uint16_t)(1u << (col % 16));
    for (size_t o = 0; o < c->oh; o++)
        for (size_t col = 0; col < c->ow; col++) {
            float acc = 0.0f;
            for (size_t r = 0; r < c->R; r++) {
                const float *row = ref_row(c, &G, (int64_t)o, (int64_t)r);
                for (size_t s = 0; s < c->S; s++)
                    acc = fmaf(w[r * c->S + s], tap(&G, row, s, col), acc);
            }
            float *d = &want[o * ors + col];
            *d = beta == 0 ? alpha * acc : fmaf(beta, *d, alpha * acc);
        }
    hd_dw_splane_args a = {&G.g, out, (int64_t)ors, c->oh, {om[0], om[1]}, w, alpha, beta};
    fn(&a);
    long bad = 0;
    for (size_t k = 0; k < n_out; k++)
        if (memcmp(&out[k], &want[k], sizeof(float)) != 0)
            bad++;
    CHECK_MSG(bad == 0, "splane R %zu S %zu nv %zu sw %zu ow %zu oh %zu vs %lld vpad %lld vd %lld vup %lld "
              "alpha %g beta %g: %ld floats differ", c->R, c->S, c->nv, c->sw, c->ow, c->oh, (long long)c->vs,
              (long long)c->vpad, (long long)c->vd, (long long)c->vup, alpha, beta, bad);
    free(out), free(want), free(G.src);
}

static void check_swplane(void (*fn)(const hd_dw_swplane_args *), const scase *c)
{
    geom G;
    geom_make(&G, c);
    size_t drs = c->nv * 16 + next() % 5, dlen = (c->oh - 1) * drs + c->ow;
    float *dy = malloc(sizeof(float) * dlen);
    for (size_t k = 0; k < dlen; k++)
        dy[k] = rnd();
    float acc[HD_DW_SPLANE_MAXRS * 16], want[HD_DW_SPLANE_MAXRS * 16];
    for (size_t k = 0; k < HD_DW_SPLANE_MAXRS * 16; k++)
        acc[k] = want[k] = rnd();
    uint16_t dm[2] = {0, 0};
    for (size_t col = 0; col < c->ow; col++)
        dm[col / 16] |= (uint16_t)(1u << (col % 16));
    for (size_t o = 0; o < c->oh; o++)
        for (size_t r = 0; r < c->R; r++) {
            const float *row = ref_row(c, &G, (int64_t)o, (int64_t)r);
            if (!row)
                continue;
            for (size_t s = 0; s < c->S; s++)
                for (size_t j = 0; j < 16; j++) {
                    float *d = &want[(r * c->S + s) * 16 + j];
                    for (size_t v = 0; v < c->nv; v++) {
                        size_t col = 16 * v + j;
                        float dv = col < c->ow ? dy[o * drs + col] : 0.0f;
                        *d = fmaf(dv, tap(&G, row, s, col), *d);
                    }
                }
        }
    hd_dw_swplane_args a = {&G.g, acc, dy, (int64_t)drs, c->oh, {dm[0], dm[1]}};
    fn(&a);
    CHECK_MSG(memcmp(acc, want, sizeof acc) == 0, "swplane R %zu S %zu nv %zu sw %zu ow %zu oh %zu vs %lld vpad %lld "
              "vd %lld vup %lld", c->R, c->S, c->nv, c->sw, c->ow, c->oh, (long long)c->vs, (long long)c->vpad,
              (long long)c->vd, (long long)c->vup);
    free(dy), free(G.src);
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
    /* result widths and source widths: one or two vectors of each */
    static const size_t ows[] = {1, 7, 14, 16, 17, 28, 32}, sws[] = {3, 7, 14, 16, 17, 28, 32};
    /* vertical axes: stride 1 pad 1; stride 2; dilation 2; backward data over a dy upsampled by 2 */
    static const int64_t vax[][4] = {{1, 1, 1, 1}, {2, 1, 1, 1}, {1, 2, 2, 1}, {1, 1, 1, 2}};
    long n = 0;
    for (size_t S = 1; S <= HD_DW_SPLANE_MAXS; S++)
        for (size_t R = 1; R <= 3; R++)
            for (int a = 0; a < 7; a++)
                for (int b = 0; b < 7; b++)
                    for (int v = 0; v < 4; v++) {
                        if (S != 3 && (a + b + v) % 3)      /* every 3-tap case; a third of the others */
                            continue;
                        size_t oh = 1 + next() % 9;
                        int64_t vsrc = (int64_t)(1 + (oh * (size_t)vax[v][0] + 2) / (size_t)vax[v][3]);
                        scase c = {R, S, ows[a] > 16 ? 2 : 1, sws[b], ows[a], oh, vax[v][0], vax[v][1], vax[v][2],
                                   vax[v][3], vsrc};
                        SECTION("splane against its contract");
                        check_splane(k.splane, &c, 1.0f, 0.0f);
                        check_splane(k.splane, &c, 0.5f, 2.0f);
                        SECTION("swplane against its contract");
                        check_swplane(k.swplane, &c);
                        n++;
                    }
    SECTION("cases");
    CHECK(n > 1000);
    return hd_test_finish();
}
