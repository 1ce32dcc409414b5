/*
 * The row argmax micro-kernels of max pooling backward (pool-ukernels.h), each against the
 * scalar one (with a tap table that drops some taps): 1..40 outputs (every 16-lane tail), windows 1..5 wide and 1..4 rows high,
 * strides 1..4 (the load, the even-split and the gather paths), both NaN rules; data drawn
 * from a few values so that ties are common, with NaNs, infinities and signed zeros.  Each
 * window row is its own heap block of exactly (ow - 1) * sw + kw floats and the slack, so a
 * read past the documented end shows under ASan.  Also checks the scalar kernel against the rule written out,
 * and the vector flushes (AVX2 plain, AVX-512 streaming) against the scalar flush (every
 * length 1..100 at every float offset from a 64-byte boundary, beta 0 and not).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/pool/pool-ukernels.h"

static float val(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    unsigned r = (*s >> 16) % 12;
    switch (r) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -0.0f;
    case 4: return 0.0f;
    default: return (float)((int)r - 8);
    }
}

static void compare(const char *name, hd_f32_pool_rowargmax_fn fn)
{
    SECTION(name);
    unsigned s = 7;
    int bad = 0, cases = 0;
    int32_t a[40], b[40];
    for (int prop = 0; prop <= 1; prop++)
        for (int nr = 1; nr <= 4; nr++)
            for (int kw = 1; kw <= 5; kw++)
                for (int sw = 1; sw <= 4; sw++)
                    for (size_t ow = 1; ow <= 40; ow++) {
                        size_t len = (ow - 1) * (size_t)sw + (size_t)kw + HD_POOL_BWD_ROW_SLACK;
                        float *r[4];
                        for (int i = 0; i < nr; i++) {
                            r[i] = malloc(len * sizeof(float));
                            for (size_t j = 0; j < len; j++)
                                r[i][j] = val(&s);
                        }
                        for (size_t j = 0; j < 40; j++)
                            a[j] = b[j] = 1234;
                        int32_t tab[20];           /* some taps dropped, the others moved */
                        for (int t = 0; t < nr * kw; t++)
                            tab[t] = (t * 7 + (int)ow) % 5 == 0 ? -1 : t * 1000 + (int)ow;
                        hd_f32_pool_ukernel_rowargmax__scalar((const float *const *)r, nr, ow, kw, sw, tab, prop, a);
                        fn((const float *const *)r, nr, ow, kw, sw, tab, prop, b);
                        if (memcmp(a, b, sizeof a) != 0)
                            bad++;
                        cases++;
                        for (int i = 0; i < nr; i++)
                            free(r[i]);
                    }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d of %d cases", name, bad, cases);
}

static void scalar_rule(void)
{
    SECTION("scalar rule");
    /* two rows of a 2-wide window, stride 2, three outputs:
     *   output 0 taps 1, 3 / 3, 2    -> first 3 (row 0, tap 1)
     *   output 1 taps -0, 0 / NaN, 0 -> -0 (ties keep the first); propagating: the NaN
     *   output 2 taps -inf, -inf / -inf, -inf -> none */
    float r0[6] = {1, 3, -0.0f, 0.0f, -INFINITY, -INFINITY};
    float r1[6] = {3, 2, NAN, 0.0f, -INFINITY, -INFINITY};
    const float *rows[2] = {r0, r1};
    int32_t arg[3], tab[4] = {100, 200, 300, 400};
    hd_f32_pool_ukernel_rowargmax__scalar(rows, 2, 3, 2, 2, tab, 0, arg);
    CHECK(arg[0] == 200 && arg[1] == 100 + 2 && arg[2] == -1);
    hd_f32_pool_ukernel_rowargmax__scalar(rows, 2, 3, 2, 2, tab, 1, arg);
    CHECK(arg[0] == 200 && arg[1] == 300 + 2 && arg[2] == -1);
    tab[1] = -1;                                     /* a dropped tap gives no offset */
    hd_f32_pool_ukernel_rowargmax__scalar(rows, 2, 3, 2, 2, tab, 0, arg);
    CHECK(arg[0] == -1 && arg[1] == 100 + 2);
}

static void flush_check(const char *name, hd_f32_pool_flush_fn fn, int with_beta)
{
    SECTION(name);
    unsigned s = 5;
    int bad = 0;
    float *a = aligned_alloc(64, 128 * sizeof(float)), *b = aligned_alloc(64, 128 * sizeof(float));
    double acc1[112], acc2[112];
    for (size_t off = 0; off < 16; off++)
        for (size_t n = 1; n <= 100; n++) {
            for (size_t i = 0; i < 128; i++)
                a[i] = b[i] = 99.0f;
            for (size_t i = 0; i < 112; i++)
                acc1[i] = acc2[i] = (double)val(&s) / 3.0 + 1e-9 * (double)i;
            double beta = with_beta && n % 2 ? 0.5 : 0.0;
            hd_f32_pool_ukernel_flush__scalar(a + off, acc1, n, -1.25, beta);
            fn(b + off, acc2, n, -1.25, beta);
            if (memcmp(a, b, 128 * sizeof(float)) != 0 || memcmp(acc1, acc2, sizeof acc1) != 0)
                bad++;
        }
    CHECK_MSG(bad == 0, "%s differs from the scalar one in %d cases", name, bad);
    free(a);
    free(b);
}

int main(void)
{
    scalar_rule();
    int hw = (int)hd_cpu()->hw_isa;
    if (hw >= HD_ISA_AVX2) {
        compare("rowargmax avx2", hd_f32_pool_ukernel_rowargmax__avx2);
        flush_check("flush avx2", hd_f32_pool_ukernel_flush__avx2, 1);
    } else
        SKIP("the AVX2 row argmax kernel and flush (no AVX2 on this CPU)");
    if (hw >= HD_ISA_AVX512) {
        compare("rowargmax avx512", hd_f32_pool_ukernel_rowargmax__avx512);
        flush_check("flush avx512", hd_f32_pool_ukernel_flush__avx512, 1);
        flush_check("flush stream avx512", hd_f32_pool_ukernel_flush_stream__avx512, 0);
    } else
        SKIP("the AVX-512 row argmax kernel (no AVX-512 on this CPU)");
    SECTION("dispatch");
    CHECK(hd_f32_pool_rowargmax_select(HD_ISA_SCALAR) == hd_f32_pool_ukernel_rowargmax__scalar);
    CHECK(hd_f32_pool_rowargmax_select(HD_ISA_AVX2) ==
          ((int)hd_cpu_isa() >= HD_ISA_AVX2 ? hd_f32_pool_ukernel_rowargmax__avx2 : hd_f32_pool_ukernel_rowargmax__scalar));
    CHECK(hd_f32_pool_flush_stream_select(HD_ISA_AVX2) ==
          ((int)hd_cpu_isa() >= HD_ISA_AVX2 ? hd_f32_pool_ukernel_flush__avx2 : hd_f32_pool_ukernel_flush__scalar));
    return hd_test_finish();
}
