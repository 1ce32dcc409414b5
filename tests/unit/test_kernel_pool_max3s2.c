/*
 * The fused max pooling backward kernels for 3x3 windows at stride 2 on channel-contiguous
 * layouts (src/kernels/pool/pool-ukernels.h): max3s2 and max3s2_last.  The AVX-512 variants
 * against the scalar ones, bit for bit: 1..40 channels (every tail) and 64 (whole vectors,
 * streamed), rows 3..12 wide with padding 0 and 1 and one output more than fits (a window
 * past the input), every pattern of window rows outside the input, top and middle rows
 * written or not, both NaN rules, on data with NaNs, infinities, signed zeros, ties and
 * inexact sums (and windows of mostly -inf), with carries of any value, positions padded past the channels and guard
 * values around them.  Also the scalar kernel against the rule written out on one window row.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/pool/pool-ukernels.h"

#define POOL_BWD_SEED 11
#include "pool_bwd_values.h"

static float val(int finite) { return pool_bwd_value(finite, 1); }

/* aligned_alloc wants a size that is a multiple of the alignment (C11; the sanitizers check) */
static void *alloc64(size_t bytes) { return aligned_alloc(64, (bytes + 63) / 64 * 64); }

#define MAXW 12
#define MAXC 64
#define XS (MAXC + 3)              /* x and dy position stride when padded */
#define DS (MAXC + 16)             /* dx position stride (a multiple of 16 floats) */
#define CP HD_POOL_MAX3S2_CP(MAXC)

static void fill(float *p, size_t n, int finite)
{
    for (size_t i = 0; i < n; i++)
        p[i] = val(finite);
}

static void kernels(const char *name, hd_f32_pool_max3s2_fn fn, hd_f32_pool_max3s2_last_fn last)
{
    SECTION(name);
    float *x = alloc64(3 * MAXW * XS * sizeof(float));
    float *g = alloc64(MAXW * XS * sizeof(float));
    float *d1 = alloc64(2 * MAXW * DS * sizeof(float)), *d2 = alloc64(2 * MAXW * DS * sizeof(float));
    double *cdin = alloc64((MAXW + 1) * CP * sizeof(double));
    double *cd1 = alloc64((MAXW + 1) * CP * sizeof(double)), *cd2 = alloc64((MAXW + 1) * CP * sizeof(double));
    float *cfin = alloc64(MAXW * CP * sizeof(float));
    float *cf1 = alloc64(MAXW * CP * sizeof(float)), *cf2 = alloc64(MAXW * CP * sizeof(float));
    int bad = 0, badlast = 0, cases = 0;
    static const size_t cs[] = {1, 2, 3, 5, 7, 8, 13, 15, 16, 17, 23, 31, 32, 33, 40, 64};
    for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++)
        for (size_t w = 3; w <= MAXW; w++)
            for (int pw = 0; pw <= 1; pw++)
                for (int more = 0; more <= 1; more++)
                    for (int rows = 0; rows < 8; rows++)
                        for (int prop = 0; prop <= 1; prop++) {
                            size_t c = cs[ci], ow = (w + 2 * (size_t)pw - 3) / 2 + 1 + (size_t)more;
                            int padded = (int)(rnd() & 1), stream = c == 64 && (rnd() & 1);
                            ptrdiff_t xw = padded ? XS : (ptrdiff_t)c, dxw = stream ? DS : (padded ? (ptrdiff_t)c + 5 : (ptrdiff_t)c);
                            fill(x, 3 * MAXW * XS, 0);
                            if (rnd() % 4 == 0)         /* windows of mostly -inf: a tap read from outside would win */
                                for (size_t i = 0; i < 3 * MAXW * XS; i++)
                                    if (rnd() % 8)
                                        x[i] = -INFINITY;
                            fill(g, MAXW * XS, rnd() % 4 != 0);
                            for (size_t i = 0; i < (MAXW + 1) * CP; i++)
                                cdin[i] = (double)val(1) + (rnd() & 1 ? 1.0e-12 : 0.0);
                            for (size_t i = 0; i < MAXW * CP; i++)
                                cfin[i] = val(1);
                            const float *xr[5];
                            for (int r = 0; r < 3; r++)
                                xr[r] = rows & (1 << r) ? NULL : x + (size_t)r * MAXW * XS;
                            xr[3] = xr[4] = NULL;
                            fill(d1, 2 * MAXW * DS, 1);
                            memcpy(d2, d1, 2 * MAXW * DS * sizeof(float));
                            for (size_t i = 0; i < (MAXW + 1) * CP; i++)
                                cd1[i] = cd2[i] = 7.0;
                            for (size_t i = 0; i < MAXW * CP; i++)
                                cf1[i] = cf2[i] = 7.0f;
                            int which = (int)(rnd() % 4);
                            float *t1 = which & 1 ? NULL : d1, *m1 = which & 2 ? NULL : d1 + MAXW * DS;
                            float *t2 = which & 1 ? NULL : d2, *m2 = which & 2 ? NULL : d2 + MAXW * DS;
                            hd_f32_pool_ukernel_max3s2__scalar(t1, m1, dxw, xr, xw, w, pw, g, NULL, xw, ow, c, cdin, cfin,
                                                               cd1, cf1, prop, stream);
                            fn(t2, m2, dxw, xr, xw, w, pw, g, g, xw, ow, c, cdin, cfin, cd2, cf2, prop, stream);
                            cases++;
                            int ok = same_floats(d1, d2, 2 * MAXW * DS);
                            /* the carries' lanes past c are the kernel's own */
                            for (size_t j = 0; j <= ow; j++)
                                ok &= same_doubles(cd1 + j * HD_POOL_MAX3S2_CP(c), cd2 + j * HD_POOL_MAX3S2_CP(c), c);
                            for (size_t j = 0; j < ow; j++)
                                ok &= same_floats(cf1 + j * HD_POOL_MAX3S2_CP(c), cf2 + j * HD_POOL_MAX3S2_CP(c), c);
                            bad += !ok;
                            /* the row held by the carry just made */
                            memcpy(d2, d1, 2 * MAXW * DS * sizeof(float));
                            hd_f32_pool_ukernel_max3s2_last__scalar(d1, dxw, w, pw, ow, c, cd1, cf1, stream);
                            last(d2, dxw, w, pw, ow, c, cd1, cf1, stream);
                            badlast += !same_floats(d1, d2, 2 * MAXW * DS);
                        }
    CHECK_MSG(bad == 0, "%s: max3s2 differs from the scalar kernel in %d of %d cases", name, bad, cases);
    CHECK_MSG(badlast == 0, "%s: max3s2_last differs from the scalar kernel in %d of %d cases", name, badlast, cases);
    free(x);
    free(g);
    free(d1);
    free(d2);
    free(cdin);
    free(cd1);
    free(cd2);
    free(cfin);
    free(cf1);
    free(cf2);
}

/* One output row of two outputs, one channel, padding 1, input 4 wide: window 0 has the
 * columns 0..1, window 1 the columns 1..3; column 1 is shared. */
static void scalar_rule(void)
{
    SECTION("scalar rule");
    float r0[4] = {0, 0, 0, 0}, r1[4] = {1, 5, 2, 0}, r2[4] = {0, 7, 0, 7};
    const float *xr[5] = {r0, r1, r2, NULL, NULL};
    float g[2] = {-0.0f, 16777216.0f};
    double cdin[3 * 16] = {0}, cd[3 * 16];
    float cfin[2 * 16] = {0}, cf[2 * 16], top[4] = {9, 9, 9, 9}, mid[4] = {9, 9, 9, 9};
    cdin[16] = 1.0;                      /* the shared column 1 of the top row: 1 before */
    cfin[16] = 2.0f;                     /* the centre (column 2) of window 1's top row */
    hd_f32_pool_ukernel_max3s2__scalar(top, mid, 1, xr, 1, 4, 1, g, NULL, 1, 2, 1, cdin, cfin, cd, cf, 0, 0);
    /* window 0: maximum 7 at row 2 column 1 (the shared bottom corner), -0 goes there;
     * window 1: the first 7 in row-major order, row 2 column 1 again: 2^24 */
    CHECK(top[0] == 0.0f && top[1] == 1.0f && top[2] == 2.0f && top[3] == 0.0f);
    CHECK(mid[0] == 0.0f && mid[1] == 0.0f && mid[2] == 0.0f && mid[3] == 0.0f);
    CHECK(cd[16] == 16777216.0 && !signbit(cd[0]) && cd[32] == 0.0 && cf[0] == 0.0f && cf[16] == 0.0f);
    float bot[4] = {9, 9, 9, 9};
    hd_f32_pool_ukernel_max3s2_last__scalar(bot, 1, 4, 1, 2, 1, cd, cf, 0);
    CHECK(bot[0] == 0.0f && bot[1] == 16777216.0f && bot[2] == 0.0f && bot[3] == 0.0f);
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    scalar_rule();
    if (hw >= HD_ISA_AVX512)
        kernels("max3s2 avx512", hd_f32_pool_ukernel_max3s2__avx512, hd_f32_pool_ukernel_max3s2_last__avx512);
    else
        SKIP("the AVX-512 max3s2 kernels (no AVX-512 on this CPU)");
    SECTION("dispatch");
    CHECK(hd_f32_pool_max3s2_select(HD_ISA_AVX2) == NULL);
    CHECK(hd_f32_pool_max3s2_last_select(HD_ISA_SCALAR) == NULL);
    return hd_test_finish();
}
