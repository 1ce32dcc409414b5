/*
 * The max pooling backward gather kernels (src/kernels/pool/pool-ukernels.h): argmax8 and
 * maxgatherpix.  Each AVX-512 variant against the scalar one, bit for bit: argmax8 for 1..70
 * channels and 1..9 taps under both NaN rules, on data with NaNs, infinities and signed
 * zeros; maxgatherrow for 1..40 channels (every tail), 0..3 covering output rows and one or
 * two covering outputs per column (up to six terms: the float form for at most two, the
 * double form beyond and for other scales), alpha 1 / beta 0 and other scales, streamed and not at float offsets from
 * a 64-byte boundary, with guard values around and between the positions.  Also the scalar
 * argmax8 against the int32 argmax kernel, and the scalar maxgatherrow against the rule
 * written out.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/pool/pool-ukernels.h"

#define POOL_BWD_SEED 5
#include "pool_bwd_values.h"

static float val(int finite) { return pool_bwd_value(finite, 0); }

#define XN (9 * 80)

static void argmax8(const char *name, hd_f32_pool_argmax8_fn fn)
{
    SECTION(name);
    int bad = 0;
    float *x = aligned_alloc(64, XN * sizeof(float));
    int8_t a[80], b[80];
    int32_t w[80];
    const float *taps[9];
    for (int prop = 0; prop <= 1; prop++)
        for (size_t c = 1; c <= 70; c++)
            for (int nt = 1; nt <= 9; nt++) {
                for (size_t i = 0; i < XN; i++)
                    x[i] = val(0);
                for (int t = 0; t < nt; t++)
                    taps[t] = x + ((size_t)t * 41 + c) % (XN - 80);
                memset(a, 77, sizeof a);
                memset(b, 77, sizeof b);
                hd_f32_pool_ukernel_argmax8__scalar(taps, nt, c, prop, a);
                fn(taps, nt, c, prop, b);
                bad += memcmp(a, b, sizeof a) != 0;
                hd_f32_pool_ukernel_argmax__scalar(taps, nt, c, prop, w);
                for (size_t i = 0; i < c; i++)
                    bad += a[i] != w[i];
            }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d cases", name, bad);
    free(x);
}

/* One dx row of W positions and GC channels, from NR output rows of OW outputs (ow's taps at
 * ow * GC, its gradients at ow * GW): 3-wide windows at stride SW, columns covered by one or
 * two outputs. */
#define GC 40
#define OWN 4
#define GW 44
#define W 8

static void maxgatherrow(const char *name, hd_f32_pool_maxgatherrow_fn fn)
{
    SECTION(name);
    static const double ab[3][2] = {{1.0, 0.0}, {-1.5, 0.0}, {0.75, -2.0}};
    static float g[3][OWN * GW];
    static int8_t arg[3][OWN * GC];
    const float *gp[3] = {g[0], g[1], g[2]};
    const int8_t *ap[3] = {arg[0], arg[1], arg[2]};
    int32_t ty[3], col[W * 2 * 3], ncov[W];
    for (int iw = 0; iw < W; iw++) {          /* window ow covers columns 2ow-1 .. 2ow+1 */
        int m = 0;
        for (int ow = 0; ow < OWN; ow++) {
            int lo = 2 * ow - 1 < 0 ? 0 : 2 * ow - 1, hi = 2 * ow + 2 > W ? W : 2 * ow + 2;
            if (iw >= lo && iw < hi) {
                col[(iw * 2 + m) * 3] = ow;
                col[(iw * 2 + m) * 3 + 1] = iw - lo;
                col[(iw * 2 + m) * 3 + 2] = hi - lo;
                m++;
            }
        }
        ncov[iw] = m;
    }
    size_t dxw = GC + 3;
    float *d1 = aligned_alloc(64, 512 * sizeof(float)), *d2 = aligned_alloc(64, 512 * sizeof(float));
    int bad = 0;
    for (int v = 0; v < 3; v++)
        for (int stream = 0; stream <= (ab[v][1] == 0.0); stream++)
            for (size_t c = 1; c <= GC; c++)
                for (int nr = 0; nr <= 3; nr++)
                    for (int rep = 0; rep < 3; rep++) {
                        for (int r = 0; r < nr; r++) {
                            ty[r] = (int)(rnd() % 3);
                            for (int i = 0; i < OWN * GW; i++)
                                g[r][i] = val(rnd() % 4 != 0);
                            /* taps 0..8 and none, mostly ones that hit, so that three and more
                             * contributions to a value occur */
                            for (int i = 0; i < OWN * GC; i++)
                                arg[r][i] = rnd() % 4 ? (int8_t)(ty[r] * 3 + (int)(rnd() % 3)) : (int8_t)((int)(rnd() % 10) - 1);
                        }
                        size_t off = (c * 7 + (size_t)nr + (size_t)rep) % 16;
                        for (int i = 0; i < 512; i++)
                            d1[i] = d2[i] = val(1);
                        hd_f32_pool_ukernel_maxgatherrow__scalar(d1 + off, (ptrdiff_t)(stream ? 64 : dxw), W, c, nr, ap,
                                                                 gp, ty, GW, col, ncov, 2, ab[v][0], ab[v][1], stream);
                        fn(d2 + off, (ptrdiff_t)(stream ? 64 : dxw), W, c, nr, ap, gp, ty, GW, col, ncov, 2, ab[v][0],
                           ab[v][1], stream);
                        bad += !same_floats(d1, d2, 512);
                    }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d cases", name, bad);
    free(d1);
    free(d2);
}

static void scalar_rule(void)
{
    SECTION("scalar rule");
    /* one position (column 0, one covering output: ow 0, window column 0, width 1) in three
     * output rows, 3 channels */
    float g0[3] = {1.0f, -0.0f, 16777216.0f}, g1[3] = {2.0f, 5.0f, 1.0f}, g2[3] = {4.0f, 5.0f, 1.0f};
    int8_t a0[3] = {0, 0, 0}, a1[3] = {1, 2, 1}, a2[3] = {1, 1, 1};
    const float *g[3] = {g0, g1, g2};
    const int8_t *a[3] = {a0, a1, a2};
    int32_t ty[3] = {0, 1, 1}, col[3] = {0, 0, 1}, ncov[1] = {1};
    float dx[3] = {9, 9, 9};
    hd_f32_pool_ukernel_maxgatherrow__scalar(dx, 3, 1, 3, 3, a, g, ty, 3, col, ncov, 1, 1.0, 0.0, 0);
    /* 1 + 2 + 4; -0 alone gives +0 (the sum starts at +0.0), then 5; 2^24 + 1 + 1 in double */
    CHECK(dx[0] == 7.0f && dx[1] == 5.0f && dx[2] == 16777218.0f);
    hd_f32_pool_ukernel_maxgatherrow__scalar(dx, 3, 1, 3, 1, a, g, ty, 3, col, ncov, 1, 1.0, 0.0, 0);
    CHECK(dx[0] == 1.0f && dx[1] == 0.0f && !signbit(dx[1]));
    hd_f32_pool_ukernel_maxgatherrow__scalar(dx, 3, 1, 3, 0, a, g, ty, 3, col, ncov, 1, 2.0, 0.5, 0);
    CHECK(dx[0] == 0.5f && dx[1] == 0.0f);
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    scalar_rule();
    if (hw >= HD_ISA_AVX512) {
        argmax8("argmax8 avx512", hd_f32_pool_ukernel_argmax8__avx512);
        maxgatherrow("maxgatherrow avx512", hd_f32_pool_ukernel_maxgatherrow__avx512);
    } else {
        SKIP("the AVX-512 max gather kernels (no AVX-512 on this CPU)");
    }
    SECTION("dispatch");
    CHECK(hd_f32_pool_argmax8_select(HD_ISA_AVX2) == NULL);
    CHECK(hd_f32_pool_maxgatherrow_select(HD_ISA_SCALAR) == NULL);
    return hd_test_finish();
}
