/*
 * The channel-contiguous (NHWC) pooling micro-kernels (src/kernels/pool/pool-ukernels.h), each
 * against the scalar one, bit for bit: channel counts 1..70 (every tail), 1..9 taps, 1..3
 * outputs with a gap between them, max under both NaN rules and average with per-output
 * divisors, plain and streaming stores; data with NaNs (distinct payloads), infinities and
 * signed zeros.  The argmax kernels (max pooling backward) likewise, with runs of equal values
 * and all-NaN / all -inf channels; the backward flush (double accumulators to float dx) with
 * beta 0 and not.  Also checks the scalar kernels against the rule written out.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/pool/pool-ukernels.h"

static float val(unsigned *s, int finite)
{
    *s = *s * 1103515245u + 12345u;
    unsigned r = (*s >> 16) & 31;
    if (!finite && r == 0) {
        uint32_t bits = 0x7fc00000u | (*s & 0xffff) | ((*s >> 5 & 1u) << 31);
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    if (!finite && r == 1) return INFINITY;
    if (!finite && r == 2) return -INFINITY;
    if (r == 3) return -0.0f;
    if (r == 4) return 0.0f;
    return (float)((int)(*s >> 20 & 31) - 16) / 4 * 1.1f;   /* inexact: the sum order shows */
}

#define XN (9 * 80)
#define YS 96          /* floats between outputs: a gap the kernels must leave alone */

static void compare(const char *name, hd_f32_pool_nhwc_fn fn)
{
    SECTION(name);
    unsigned s = 3;
    int bad = 0;
    float *x = aligned_alloc(64, XN * sizeof(float));
    float *a = aligned_alloc(64, 3 * YS * sizeof(float)), *b = aligned_alloc(64, 3 * YS * sizeof(float));
    const float *taps[3 * 9];
    float div[3];
    for (int op = 0; op <= 2; op++)
        for (size_t c = 1; c <= 70; c++)
            for (int nt = 1; nt <= 9; nt++)
                for (size_t ow = 1; ow <= 3; ow++) {
                    for (size_t i = 0; i < XN; i++)
                        x[i] = val(&s, op == HD_POOL_NHWC_AVG);   /* specials for max, finite sums */
                    for (size_t j = 0; j < ow * (size_t)nt; j++)      /* taps anywhere, overlapping too */
                        taps[j] = x + (j * 37 + c) % (XN - 80);
                    for (size_t j = 0; j < ow; j++)
                        div[j] = (float)(1 + (j * 3 + (size_t)nt) % 9);
                    for (size_t i = 0; i < 3 * YS; i++)
                        a[i] = b[i] = 1234.5f;
                    int stream = c % 16 == 0;     /* y 64-byte aligned, YS * 4 a multiple of 64 */
                    hd_f32_pool_ukernel_nhwc__scalar(a, YS, ow, taps, nt, c, op, div, 0);
                    fn(b, YS, ow, taps, nt, c, op, div, stream);
                    bad += memcmp(a, b, 3 * YS * sizeof(float)) != 0;
                }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d cases", name, bad);
    free(x);
    free(a);
    free(b);
}

/* Global windows (one output, 16 or 49 taps, 512 to 4100 channels: the row-fold path of the
 * AVX-512 kernel, its masked tail, and past its limit) against the scalar kernel, bit for bit,
 * nothing written past the channels. */
static void global(const char *name, hd_f32_pool_nhwc_fn fn)
{
    SECTION(name);
    unsigned s = 5;
    int bad = 0;
    const size_t cs[] = { 512, 527, 2048, 4096, 4100 };
    const int nts[] = { 16, 49 };
    float *x = aligned_alloc(64, 49 * 4160 * sizeof(float));
    float *a = aligned_alloc(64, 4160 * sizeof(float)), *b = aligned_alloc(64, 4160 * sizeof(float));
    const float *taps[49];
    for (int op = 0; op <= 2; op++)
        for (int ci = 0; ci < 5; ci++)
            for (int ni = 0; ni < 2; ni++) {
                size_t c = cs[ci];
                int nt = nts[ni];
                for (size_t i = 0; i < 49 * 4160; i++)
                    x[i] = val(&s, op == HD_POOL_NHWC_AVG);
                for (int t = 0; t < nt; t++)
                    taps[t] = x + (size_t)t * c + (size_t)(t % 3);    /* rows as in NHWC, some unaligned */
                float div = (float)nt;
                for (size_t i = 0; i < 4160; i++)
                    a[i] = b[i] = 1234.5f;
                hd_f32_pool_ukernel_nhwc__scalar(a, c, 1, taps, nt, c, op, &div, 0);
                fn(b, c, 1, taps, nt, c, op, &div, c % 16 == 0);
                bad += memcmp(a, b, 4160 * sizeof(float)) != 0;
            }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d global cases", name, bad);
    free(x);
    free(a);
    free(b);
}

static void argmax(const char *name, hd_f32_pool_argmax_fn fn)
{
    SECTION(name);
    unsigned s = 8;
    int bad = 0;
    float *x = aligned_alloc(64, XN * sizeof(float));
    int32_t a[80], b[80];
    const float *taps[9];
    for (int prop = 0; prop <= 1; prop++)
        for (size_t c = 1; c <= 70; c++)
            for (int nt = 1; nt <= 9; nt++) {
                for (size_t i = 0; i < XN; i++)
                    x[i] = val(&s, 0);
                for (int t = 0; t < nt; t++)
                    taps[t] = x + ((size_t)t * 41 + c) % (XN - 80);
                for (size_t i = 0; i < 80; i++)
                    a[i] = b[i] = 77;
                hd_f32_pool_ukernel_argmax__scalar(taps, nt, c, prop, a);
                fn(taps, nt, c, prop, b);
                bad += memcmp(a, b, sizeof a) != 0;
            }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d cases", name, bad);
    free(x);
}

static void flush(const char *name, hd_f32_pool_flush_fn fn)
{
    SECTION(name);
    unsigned s = 12;
    int bad = 0;
    double acc1[80], acc2[80];
    float d1[80], d2[80];
    for (size_t n = 1; n <= 70; n++)
        for (int v = 0; v < 2; v++) {
            for (size_t i = 0; i < 80; i++) {
                acc1[i] = acc2[i] = (double)val(&s, 1) * 1.000001;
                d1[i] = d2[i] = val(&s, 1);
            }
            hd_f32_pool_ukernel_flush__scalar(d1, acc1, n, 0.7, v ? -1.3 : 0.0);
            fn(d2, acc2, n, 0.7, v ? -1.3 : 0.0);
            bad += memcmp(d1, d2, sizeof d1) != 0 || memcmp(acc1, acc2, sizeof acc1) != 0;
            for (size_t i = 0; i < n; i++)
                bad += acc1[i] != 0.0;
        }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d cases", name, bad);
}

static void scalar_rule(void)
{
    SECTION("scalar rule");
    float t0[4] = {1, NAN, -0.0f, NAN}, t1[4] = {2, 3, 0.0f, NAN}, t2[4] = {-1, NAN, 0.5f, 4};
    const float *taps[3] = {t0, t1, t2};
    float y[4], div = 3.0f;
    hd_f32_pool_ukernel_nhwc__scalar(y, 4, 1, taps, 3, 4, HD_POOL_NHWC_MAX, &div, 0);
    CHECK(y[0] == 2 && y[1] == 3 && y[2] == 0.5f && y[3] == 4);
    hd_f32_pool_ukernel_nhwc__scalar(y, 4, 1, taps, 2, 4, HD_POOL_NHWC_MAX, &div, 0);
    CHECK(y[2] == 0 && signbit(y[2]) && isinf(y[3]) && y[3] < 0);   /* tie keeps -0; all NaN: -inf */
    hd_f32_pool_ukernel_nhwc__scalar(y, 4, 1, taps, 3, 4, HD_POOL_NHWC_MAX_PROPAGATE, &div, 0);
    CHECK(y[0] == 2 && isnan(y[1]) && y[2] == 0.5f && isnan(y[3]));
    hd_f32_pool_ukernel_nhwc__scalar(y, 4, 1, taps, 3, 4, HD_POOL_NHWC_AVG, &div, 0);
    CHECK(y[0] == 2.0f / 3.0f && isnan(y[1]) && y[2] == 0.5f / 3.0f);
    float u0[3] = {-INFINITY, 1, 2}, u1[3] = {-INFINITY, NAN, 2};
    const float *ut[2] = {u0, u1};
    int32_t arg[3];
    hd_f32_pool_ukernel_argmax__scalar(ut, 2, 3, 0, arg);
    CHECK(arg[0] == -1 && arg[1] == 0 && arg[2] == 0);      /* only -inf: none; a tie keeps the first */
    hd_f32_pool_ukernel_argmax__scalar(ut, 2, 3, 1, arg);
    CHECK(arg[0] == -1 && arg[1] == 1 && arg[2] == 0);
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    scalar_rule();
    if (hw >= HD_ISA_AVX2) {
        compare("nhwc avx2", hd_f32_pool_ukernel_nhwc__avx2);
        global("nhwc global avx2", hd_f32_pool_ukernel_nhwc__avx2);
        argmax("argmax avx2", hd_f32_pool_ukernel_argmax__avx2);
        flush("flush avx2", hd_f32_pool_ukernel_flush__avx2);
    } else {
        SKIP("the AVX2 NHWC kernel (no AVX2 on this CPU)");
    }
    if (hw >= HD_ISA_AVX512) {
        compare("nhwc avx512", hd_f32_pool_ukernel_nhwc__avx512);
        global("nhwc global avx512", hd_f32_pool_ukernel_nhwc__avx512);
        argmax("argmax avx512", hd_f32_pool_ukernel_argmax__avx512);
        flush("flush avx512", hd_f32_pool_ukernel_flush__avx512);
    } else {
        SKIP("the AVX-512 NHWC kernel (no AVX-512 on this CPU)");
    }
    SECTION("dispatch");
    CHECK(hd_f32_pool_nhwc_select(HD_ISA_SCALAR) == hd_f32_pool_ukernel_nhwc__scalar);
    CHECK(hd_f32_pool_argmax_select(HD_ISA_SCALAR) == hd_f32_pool_ukernel_argmax__scalar);
    CHECK(hd_f32_pool_flush_select(HD_ISA_AVX2) ==
          ((int)hd_cpu_isa() >= HD_ISA_AVX2 ? hd_f32_pool_ukernel_flush__avx2 : hd_f32_pool_ukernel_flush__scalar));
    return hd_test_finish();
}
