/*
 * The direct max-pooling row kernels (src/kernels/pool/pool-ukernels.h), each against the scalar
 * ones, bit for bit: the vertical pass over 1..5 rows and every length up to 70 (all tails),
 * the horizontal pass for windows 1..7, strides 1..4 (permute and gather paths) and every
 * output count up to 40, both NaN rules; the average passes (sums, divisors) likewise, with NaNs, infinities and signed zeros in the data.
 * Also checks the scalar passes themselves against a direct statement of the rule.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/pool/pool-ukernels.h"

static float val(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    unsigned r = (*s >> 16) & 31;
    if (r == 0) {              /* quiet NaNs with distinct payloads: which one wins is fixed */
        uint32_t bits = 0x7fc00000u | (*s & 0xffff), sign = (*s >> 5 & 1u) << 31;
        bits |= sign;
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    if (r == 1) return INFINITY;
    if (r == 2) return -INFINITY;
    if (r == 3) return -0.0f;
    if (r == 4) return 0.0f;
    return (float)((int)(*s >> 20 & 31) - 16) / 4;
}

static int same_bits(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof(float)) == 0;
}

#define LD 83     /* row stride of the vertical tests, > the longest row */

static void vertical(const char *name, hd_f32_pool_vmax_fn fn)
{
    SECTION(name);
    unsigned s = 7;
    int bad = 0;
    static float x[5 * LD], a[80], b[80];
    for (int rows = 1; rows <= 5; rows++)
        for (size_t n = 1; n <= 70; n++)
            for (int prop = 0; prop <= 1; prop++) {
                for (size_t i = 0; i < 5 * LD; i++)
                    x[i] = val(&s);
                for (size_t i = 0; i < 80; i++)
                    a[i] = b[i] = 1234.5f;        /* past n: must stay */
                hd_f32_pool_ukernel_vmax__scalar(a, x, LD, rows, n, prop);
                fn(b, x, LD, rows, n, prop);
                bad += !same_bits(a, b, 80);
            }
    CHECK_MSG(bad == 0, "%s differs from the scalar pass in %d cases", name, bad);
}

static void horizontal(const char *name, hd_f32_pool_hmax_fn fn)
{
    SECTION(name);
    unsigned s = 5;
    int bad = 0;
    static float col[4 * 40 + 8 + HD_POOL_ROW_SLACK], a[48], b[48];
    for (int kw = 1; kw <= 7; kw++)
        for (int sw = 1; sw <= 4; sw++)
            for (size_t ow = 1; ow <= 40; ow++)
                for (int prop = 0; prop <= 1; prop++) {
                    size_t lc = (ow - 1) * (size_t)sw + (size_t)kw;
                    for (size_t i = 0; i < sizeof col / sizeof col[0]; i++)
                        col[i] = i < lc ? val(&s) : NAN;     /* the slack must not leak in */
                    for (size_t i = 0; i < 48; i++)
                        a[i] = b[i] = 1234.5f;
                    hd_f32_pool_ukernel_hmax__scalar(a, col, ow, kw, sw, prop);
                    fn(b, col, ow, kw, sw, prop);
                    bad += !same_bits(a, b, 48);
                }
    CHECK_MSG(bad == 0, "%s differs from the scalar pass in %d cases", name, bad);
}

/* Finite quarter values (and signed zeros): sums of them, bit for bit. */
static float fval(unsigned *s)
{
    float v = val(s);
    return isfinite(v) ? v : 0.75f;
}

static void sums(const char *name, hd_f32_pool_vsum_fn vs, hd_f32_pool_hsum_fn hs)
{
    SECTION(name);
    unsigned s = 13;
    int bad = 0;
    static float x[5 * LD], a[80], b[80];
    for (int rows = 1; rows <= 5; rows++)
        for (size_t n = 1; n <= 70; n++) {
            for (size_t i = 0; i < 5 * LD; i++)
                x[i] = fval(&s) * 1.1f;    /* inexact values: the rounding order shows */
            for (size_t i = 0; i < 80; i++)
                a[i] = b[i] = 1234.5f;
            hd_f32_pool_ukernel_vsum__scalar(a, x, LD, rows, n);
            vs(b, x, LD, rows, n);
            bad += !same_bits(a, b, 80);
        }
    static float col[4 * 40 + 8 + HD_POOL_ROW_SLACK], hdiv[48];
    for (int kw = 1; kw <= 7; kw++)
        for (int sw = 1; sw <= 4; sw++)
            for (size_t ow = 1; ow <= 40; ow++) {
                size_t lc = (ow - 1) * (size_t)sw + (size_t)kw;
                for (size_t i = 0; i < sizeof col / sizeof col[0]; i++)
                    col[i] = i < lc ? fval(&s) * 1.3f : NAN;
                for (size_t j = 0; j < 48; j++)
                    hdiv[j] = (float)(1 + (j * 5 + (size_t)kw) % 7);
                for (size_t i = 0; i < 48; i++)
                    a[i] = b[i] = 1234.5f;
                float vdiv = (float)(1 + (ow + (size_t)sw) % 3);
                hd_f32_pool_ukernel_hsum__scalar(a, col, ow, kw, sw, hdiv, vdiv);
                hs(b, col, ow, kw, sw, hdiv, vdiv);
                bad += !same_bits(a, b, 48);
            }
    CHECK_MSG(bad == 0, "%s differs from the scalar passes in %d cases", name, bad);
}

/* The scalar passes against the rule written out: NOT_PROPAGATE = max over the non-NaN
 * operands (-inf if none), PROPAGATE = NaN if any operand is NaN. */
static void scalar_rule(void)
{
    SECTION("scalar rule");
    float x[3 * 4] = {1, NAN, -INFINITY, NAN, /**/ 2, NAN, -0.0f, NAN, /**/ 0, 3, 0.0f, NAN};
    float c[4];
    hd_f32_pool_ukernel_vmax__scalar(c, x, 4, 3, 4, 0);
    CHECK(c[0] == 2 && c[1] == 3 && c[2] == 0 && isinf(c[3]) && c[3] < 0);
    CHECK(signbit(c[2]));                     /* -0 came first among the equal zeros */
    hd_f32_pool_ukernel_vmax__scalar(c, x, 4, 3, 4, 1);
    CHECK(c[0] == 2 && isnan(c[1]) && c[2] == 0 && isnan(c[3]));
    float col[8] = {1, 5, NAN, 2, -1, 7, 0, 0}, y[3];
    hd_f32_pool_ukernel_hmax__scalar(y, col, 3, 3, 2, 0);     /* taps {1,5,NaN} {NaN,2,-1} {-1,7,0} */
    CHECK(y[0] == 5 && y[1] == 2 && y[2] == 7);
    hd_f32_pool_ukernel_hmax__scalar(y, col, 3, 3, 2, 1);
    CHECK(isnan(y[0]) && isnan(y[1]) && y[2] == 7);
    float sx[2 * 3] = {1, 2, 3, 4, 5, 6}, sc[3], div[2] = {2, 1};
    hd_f32_pool_ukernel_vsum__scalar(sc, sx, 3, 2, 3);
    CHECK(sc[0] == 5 && sc[1] == 7 && sc[2] == 9);
    hd_f32_pool_ukernel_hsum__scalar(y, sc, 2, 2, 1, div, 3.0f);     /* (5+7)/(3*2), (7+9)/(3*1) */
    CHECK(y[0] == 2.0f && y[1] == 16.0f / 3.0f);
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    scalar_rule();
    if (hw >= HD_ISA_AVX2) {
        vertical("vertical avx2", hd_f32_pool_ukernel_vmax__avx2);
        horizontal("horizontal avx2", hd_f32_pool_ukernel_hmax__avx2);
        sums("sums avx2", hd_f32_pool_ukernel_vsum__avx2, hd_f32_pool_ukernel_hsum__avx2);
    } else {
        SKIP("the AVX2 row kernels (no AVX2 on this CPU)");
    }
    if (hw >= HD_ISA_AVX512) {
        vertical("vertical avx512", hd_f32_pool_ukernel_vmax__avx512);
        horizontal("horizontal avx512", hd_f32_pool_ukernel_hmax__avx512);
        sums("sums avx512", hd_f32_pool_ukernel_vsum__avx512, hd_f32_pool_ukernel_hsum__avx512);
    } else {
        SKIP("the AVX-512 row kernels (no AVX-512 on this CPU)");
    }
    SECTION("dispatch");
    CHECK(hd_f32_pool_vmax_select(HD_ISA_SCALAR) == hd_f32_pool_ukernel_vmax__scalar);
    CHECK(hd_f32_pool_hmax_select(HD_ISA_SCALAR) == hd_f32_pool_ukernel_hmax__scalar);
    if ((int)hd_cpu_isa() >= HD_ISA_AVX2)
        CHECK(hd_f32_pool_hmax_select(HD_ISA_AVX2) == hd_f32_pool_ukernel_hmax__avx2);
    return hd_test_finish();
}
