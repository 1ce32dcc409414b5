/*
 * The backward filter's dot tiles (kernels/conv/bwdf-ukernels.h): the scalar version against
 * the sums in double (within a bound on the float rounding), then each vector version bitwise
 * against the scalar one -- every tile shape up to 4 x 6, lengths around the 16-position
 * groups, alpha and beta with beta = 0 over NaN, the cells of dw beside the tile untouched, and
 * rows that end against an inaccessible page (nothing past len may be read).  Versions the
 * CPU (or HOSTDNN_MAX_ISA) does not allow are skipped and say so.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "guard_pages.h"
#include "core/cpu.h"
#include "kernels/conv/bwdf-ukernels.h"

#define GUARD 7.25f
#define LDW 9

typedef void (*dot_fn)(int64_t, int64_t, int64_t, const float *, int64_t, const float *, int64_t, float *, int64_t,
                       float, float);

static uint32_t rng = 12345u;
static float rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)((int32_t)(rng >> 8) % 2001 - 1000) / 997.0f;
}

/* dy (mk rows) and x (mc rows) of len floats, ld apart, placed so that x's last row ends on
 * the last float before the inaccessible page. */
static void fill(float *dy, float *x, int64_t mk, int64_t mc, int64_t len, int64_t ld)
{
    for (int64_t i = 0; i < mk; i++)
        for (int64_t q = 0; q < len; q++)
            dy[i * ld + q] = rnd();
    for (int64_t j = 0; j < mc; j++)
        for (int64_t q = 0; q < len; q++)
            x[j * ld + q] = rnd();
}

int main(void)
{
    const struct {
        const char *name;
        int isa;
        dot_fn fn;
    } vs[] = {
        {"avx2", HD_ISA_AVX2, hd_f32_bwdf_ukernel_dot4x6__avx2},
        {"avx512", HD_ISA_AVX512, hd_f32_bwdf_ukernel_dot4x6__avx512},
    };
    static const int64_t lens[] = {1, 5, 15, 16, 17, 31, 32, 33, 47, 100, 127};
    static const float ab[3][2] = {{1, 0}, {2, 0.5f}, {-1.5f, 1}};
    size_t pg = hd_test_page_size();
    char *m = hd_test_pages(2);
    CHECK(m != NULL);
    if (!m)
        return hd_test_finish();
    hd_test_page_none(m, 1);
    int64_t nfl = (int64_t)(pg / sizeof(float));
    float *page = (float *)(void *)m;
    static float dy[4 * 200], want[4 * LDW], got[4 * LDW], prev[4 * LDW];

    /* the scalar version against double sums */
    SECTION("scalar");
    int sc_ok = 1;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (int64_t mk = 1; mk <= 4; mk++)
            for (int64_t mc = 1; mc <= 6; mc++) {
                int64_t len = lens[li], ld = len + 3;
                float *x = page + nfl - ((mc - 1) * ld + len);
                fill(dy, x, mk, mc, len, ld);
                for (int k = 0; k < 3; k++) {
                    float alpha = ab[k][0], beta = ab[k][1];
                    for (int i = 0; i < 4 * LDW; i++)
                        got[i] = prev[i] = beta == 0 ? (i % LDW < mc && i / LDW < mk ? NAN : GUARD) : rnd();
                    hd_f32_bwdf_ukernel_dot4x6__scalar(mk, mc, len, dy, ld, x, ld, got, LDW, alpha, beta);
                    for (int64_t i = 0; i < 4; i++)
                        for (int64_t j = 0; j < LDW; j++) {
                            float g = got[i * LDW + j];
                            if (i >= mk || j >= mc) {
                                if (memcmp(&g, &prev[i * LDW + j], sizeof g) && sc_ok)
                                    fprintf(stderr, "scalar: %lldx%lld len %lld: cell (%lld, %lld) beside the tile changed\n",
                                            (long long)mk, (long long)mc, (long long)len, (long long)i, (long long)j);
                                sc_ok &= memcmp(&g, &prev[i * LDW + j], sizeof g) == 0;
                                continue;
                            }
                            double s = 0, a = 0;
                            for (int64_t q = 0; q < len; q++) {
                                s += (double)dy[i * ld + q] * x[j * ld + q];
                                a += fabs((double)dy[i * ld + q] * x[j * ld + q]);
                            }
                            double bt = beta == 0 ? 0 : beta * prev[i * LDW + j];   /* NaN under beta = 0 */
                            double w = alpha * s + bt;
                            /* float rounding: one step per position and per level of the lane tree */
                            double bound = 1.2e-7 * ((double)(len + 8) * fabs(alpha) * a + 4.0 * fabs(bt)) + 1e-30;
                            if (!(fabs(g - w) <= bound) && sc_ok)
                                fprintf(stderr, "scalar: %lldx%lld len %lld alpha %g beta %g (%lld, %lld): %.9g, want %.9g\n",
                                        (long long)mk, (long long)mc, (long long)len, alpha, beta, (long long)i,
                                        (long long)j, g, w);
                            sc_ok &= fabs(g - w) <= bound;
                        }
                }
            }
    CHECK_MSG(sc_ok, "scalar dot tiles against the double sums");

    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++) {
        SECTION(vs[v].name);
        if (vs[v].isa > (int)hd_cpu_isa()) {
            SKIP("bwdf dot %s: the CPU (or HOSTDNN_MAX_ISA) does not allow it", vs[v].name);
            continue;
        }
        int all = 1;
        for (int64_t len = 1; len <= 200; len += len < 40 ? 1 : 23)
            for (int64_t mk = 1; mk <= 4; mk++)
                for (int64_t mc = 1; mc <= 6; mc++) {
                    int64_t ld = len + (mc & 1 ? 0 : 5);
                    float *x = page + nfl - ((mc - 1) * ld + len);
                    if ((mc - 1) * ld + len > nfl)
                        continue;
                    fill(dy, x, mk, mc, len, ld);
                    for (int k = 0; k < 3; k++) {
                        float alpha = ab[k][0], beta = ab[k][1];
                        for (int i = 0; i < 4 * LDW; i++)
                            want[i] = beta == 0 ? (i % LDW < mc && i / LDW < mk ? NAN : GUARD) : rnd();
                        memcpy(got, want, sizeof got);
                        hd_f32_bwdf_ukernel_dot4x6__scalar(mk, mc, len, dy, ld, x, ld, want, LDW, alpha, beta);
                        vs[v].fn(mk, mc, len, dy, ld, x, ld, got, LDW, alpha, beta);
                        if (memcmp(got, want, sizeof got)) {
                            if (all)
                                fprintf(stderr, "%s: %lldx%lld len %lld alpha %g beta %g differs\n", vs[v].name,
                                        (long long)mk, (long long)mc, (long long)len, alpha, beta);
                            all = 0;
                        }
                    }
                }
        CHECK_MSG(all, "%s dot tiles bitwise equal to the scalar version", vs[v].name);
    }
    return hd_test_finish();
}
