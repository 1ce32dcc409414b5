/*
 * The pooling backward kernels that write dx straight from the outputs' shares
 * (pool-ukernels.h): gatherrow and gatherpix (average pooling by gathering), share and
 * broadcast (windows that tile the input, global pooling).  Each AVX2 and AVX-512 variant
 * against the scalar one, bitwise: gatherrow for strides 1..3 (the load, the even/odd split
 * and the scalar paths), left padding 0..2, 1..40 columns (every vector tail), 0..6 terms,
 * alpha 1 / beta 0 and other scales; gatherpix for 1..40 channels; share for 1..40 values
 * with -0, infinities and NaN among them; broadcast in every shape (one value repeated 1..20
 * and 49 times, channel vectors of 1..40 repeated 1..3 times) at every float offset from a
 * 64-byte boundary, streamed and not, with guard values around dx.  Also the scalar kernels
 * against the rule written out.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/pool/pool-ukernels.h"

static unsigned seed = 3;
static double dval(void)
{
    seed = seed * 1103515245u + 12345u;
    return (double)((int)(seed >> 16 & 4095) - 2048) / 7.0;
}

/* Share rows as the engine lays them out: PAD zeros, the real outputs, zeros after. */
#define PAD 8
#define ROW 96

static int gatherrow_case(hd_f32_pool_gatherrow_fn fn, int sw, int pw, size_t w, int nt, double alpha, double beta)
{
    static double rows[6][ROW];
    const double *src[6];
    int32_t k[6];
    int ow_n = (int)((w + 2 * (size_t)pw - 1) / (size_t)sw) + 1;
    for (int t = 0; t < nt; t++) {
        for (int i = 0; i < ROW; i++)
            rows[t][i] = i >= PAD && i < PAD + ow_n ? dval() : 0.0;
        if (t == 1)
            rows[t][PAD] = -0.0;
        src[t] = rows[t] + PAD;
        k[t] = (nt - 1 - t) % 3;              /* taps right to left, as the engine orders them */
    }
    float a[48], b[48];
    for (int i = 0; i < 48; i++)
        a[i] = b[i] = (float)dval();
    hd_f32_pool_ukernel_gatherrow__scalar(a, w, pw, sw, nt, src, k, alpha, beta);
    fn(b, w, pw, sw, nt, src, k, alpha, beta);
    return memcmp(a, b, sizeof a) != 0;
}

static void compare_gatherrow(const char *name, hd_f32_pool_gatherrow_fn fn)
{
    SECTION(name);
    int bad = 0, cases = 0;
    static const double ab[3][2] = {{1.0, 0.0}, {-1.5, 0.0}, {0.75, -2.0}};
    for (int sw = 1; sw <= 3; sw++)
        for (int pw = 0; pw <= 2; pw++)
            for (size_t w = 1; w <= 40; w++)
                for (int nt = 0; nt <= 6; nt++)
                    for (int s = 0; s < 3; s++, cases++)
                        bad += gatherrow_case(fn, sw, pw, w, nt, ab[s][0], ab[s][1]);
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d of %d cases", name, bad, cases);
}

static void compare_gatherpix(const char *name, hd_f32_pool_gatherpix_fn fn)
{
    SECTION(name);
    int bad = 0, cases = 0;
    static double rows[5][40];
    const double *src[5] = {rows[0], rows[1], rows[2], rows[3], rows[4]};
    float *a = aligned_alloc(64, 64 * sizeof(float)), *b = aligned_alloc(64, 64 * sizeof(float));
    for (size_t c = 1; c <= 40; c++)
        for (int nt = 0; nt <= 5; nt++)
            for (int s = 0; s < 3; s++, cases++) {
                for (int t = 0; t < nt; t++)
                    for (size_t i = 0; i < c; i++)
                        rows[t][i] = i == 2 ? -0.0 : dval();
                for (int i = 0; i < 64; i++)
                    a[i] = b[i] = (float)dval();
                double alpha = s == 2 ? -0.5 : 1.0, beta = s == 2 ? 1.5 : 0.0;
                int stream = s == 1;
                hd_f32_pool_ukernel_gatherpix__scalar(a, c, nt, src, alpha, beta, 0);
                fn(b, c, nt, src, alpha, beta, stream);
                hd_f32_pool_stream_fence_select(HD_ISA_AVX512)();
                if (memcmp(a, b, 64 * sizeof(float)) != 0)
                    bad++;
            }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d of %d cases", name, bad, cases);
    free(a);
    free(b);
}

static void compare_share(const char *name, hd_f32_pool_share_fn fn)
{
    SECTION(name);
    int bad = 0, cases = 0;
    float g[40], a[48], b[48];
    static const float divs[4] = {4.0f, 9.0f, 49.0f, 1.0f};
    for (size_t n = 1; n <= 40; n++)
        for (int d = 0; d < 4; d++, cases++) {
            for (size_t i = 0; i < n; i++)
                g[i] = i % 7 == 1 ? -0.0f : i % 11 == 2 ? INFINITY : i % 13 == 3 ? NAN : (float)dval();
            for (int i = 0; i < 48; i++)
                a[i] = b[i] = 5.0f;
            hd_f32_pool_ukernel_share__scalar(a, g, n, divs[d]);
            fn(b, g, n, divs[d]);
            if (memcmp(a, b, sizeof a) != 0)
                bad++;
        }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d of %d cases", name, bad, cases);
}

static int broadcast_case(hd_f32_pool_broadcast_fn fn, size_t n, size_t rep, size_t c, size_t off, int stream,
                          float *a, float *b, size_t cap)
{
    float v[160];
    for (size_t i = 0; i < n * c; i++)
        v[i] = (float)dval();
    for (size_t i = 0; i < cap; i++)
        a[i] = b[i] = -9.0f;                          /* guards before and after dx */
    hd_f32_pool_ukernel_broadcast__scalar(a + off, v, n, rep, c, 0);
    fn(b + off, v, n, rep, c, stream);
    hd_f32_pool_stream_fence_select(HD_ISA_AVX512)();
    return memcmp(a, b, cap * sizeof(float)) != 0;
}

static void compare_broadcast(const char *name, hd_f32_pool_broadcast_fn fn)
{
    SECTION(name);
    int bad = 0, cases = 0;
    size_t cap = 2048;
    float *a = aligned_alloc(64, cap * sizeof(float)), *b = aligned_alloc(64, cap * sizeof(float));
    for (size_t off = 0; off < 16; off++)
        for (int stream = 0; stream <= 1; stream++) {
            for (size_t n = 1; n <= 21; n++) {
                for (size_t rep = 1; rep <= 20; rep++, cases++)          /* one value per position */
                    bad += broadcast_case(fn, n, rep, 1, off, stream, a, b, cap);
                bad += broadcast_case(fn, n, 49, 1, off, stream, a, b, cap);
                cases++;
            }
            for (size_t c = 2; c <= 40; c++)                              /* channel vectors */
                for (size_t n = 1; n <= 4; n++)
                    for (size_t rep = 1; rep <= 3; rep++, cases++)
                        bad += broadcast_case(fn, n, rep, c, off, stream, a, b, cap);
        }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d of %d cases", name, bad, cases);
    free(a);
    free(b);
}

static void scalar_rules(void)
{
    SECTION("scalar rules");
    /* stride 2, padding 1, taps 2..0 of one output row: column iw takes output (iw + 1 - k) / 2 */
    double r[8] = {0, 0, 1.0, 2.0, 4.0, 0, 0, 0};
    const double *src[3] = {r + 2, r + 2, r + 2};
    int32_t k[3] = {2, 1, 0};
    float dx[4] = {9, 9, 9, 9};
    hd_f32_pool_ukernel_gatherrow__scalar(dx, 4, 1, 2, 3, src, k, 1.0, 0.0);
    /* iw 0: k 1 -> ow 0 (1); iw 1: k 2 -> ow 0, k 0 -> ow 1 (1 + 2); iw 2: k 1 -> ow 1;
     * iw 3: k 2 -> ow 1, k 0 -> ow 2 (2 + 4) */
    CHECK(dx[0] == 1.0f && dx[1] == 3.0f && dx[2] == 2.0f && dx[3] == 6.0f);
    float g[2] = {-0.0f, 6.0f}, v[2];
    hd_f32_pool_ukernel_share__scalar(v, g, 2, 4.0f);
    CHECK(v[0] == 0.0f && !signbit(v[0]) && v[1] == 1.5f);
    float bv[4] = {1, 2, 3, 4}, out[8];
    hd_f32_pool_ukernel_broadcast__scalar(out, bv, 2, 2, 2, 0);
    CHECK(out[0] == 1 && out[1] == 2 && out[2] == 1 && out[3] == 2 && out[4] == 3 && out[7] == 4);
}

int main(void)
{
    scalar_rules();
    int isa = (int)hd_cpu()->hw_isa;
    if (isa >= HD_ISA_AVX2) {
        compare_gatherrow("gatherrow avx2", hd_f32_pool_ukernel_gatherrow__avx2);
        compare_gatherpix("gatherpix avx2", hd_f32_pool_ukernel_gatherpix__avx2);
        compare_share("share avx2", hd_f32_pool_ukernel_share__avx2);
        compare_broadcast("broadcast avx2", hd_f32_pool_ukernel_broadcast__avx2);
    } else
        SKIP("the AVX2 gather and broadcast kernels (no AVX2 on this CPU)");
    if (isa >= HD_ISA_AVX512) {
        compare_gatherrow("gatherrow avx512", hd_f32_pool_ukernel_gatherrow__avx512);
        compare_gatherpix("gatherpix avx512", hd_f32_pool_ukernel_gatherpix__avx512);
        compare_share("share avx512", hd_f32_pool_ukernel_share__avx512);
        compare_broadcast("broadcast avx512", hd_f32_pool_ukernel_broadcast__avx512);
    } else
        SKIP("the AVX-512 gather and broadcast kernels (no AVX-512 on this CPU)");
    SECTION("dispatch");
    CHECK(hd_f32_pool_gatherrow_select(HD_ISA_SCALAR) == hd_f32_pool_ukernel_gatherrow__scalar);
    CHECK(hd_f32_pool_broadcast_select(HD_ISA_SCALAR) == hd_f32_pool_ukernel_broadcast__scalar);
    return hd_test_finish();
}
