/*
 * The running-maximum micro-kernels under max pooling (src/kernels/pool/pool-ukernels.h), each
 * against the scalar one, bit for bit: every length up to
 * 70 (all tails), both NaN rules, with NaNs, infinities and signed zeros in the data.
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
    unsigned r = (*s >> 16) & 63;
    if (r == 0) return NAN;
    if (r == 1) return INFINITY;
    if (r == 2) return -INFINITY;
    if (r == 3) return -0.0f;
    return (float)((int)(*s >> 20 & 31) - 16) / 4;
}

static void compare(const char *name, hd_f32_vmax_fn ref, hd_f32_vmax_fn fn, int stride)
{
    SECTION(name);
    unsigned s = 11;
    int bad = 0;
    for (size_t n = 1; n <= 70; n++)
        for (int prop = 0; prop <= 1; prop++) {
            float a[80], b[80], x[160];
            for (size_t i = 0; i < 80; i++)
                a[i] = b[i] = val(&s);
            size_t nx = stride * (n - 1) + 1;
            for (size_t i = 0; i < 160; i++)
                x[i] = i < nx ? val(&s) : NAN;   /* beyond what the kernel may read */
            ref(a, x, n, prop);
            fn(b, x, n, prop);
            bad += memcmp(a, b, sizeof a) != 0;
        }
    CHECK_MSG(bad == 0, "%s differs from the scalar kernel in %d cases", name, bad);
}

int main(void)
{
    compare("vmax avx2", hd_f32_vmax_ukernel__scalar,
            hd_cpu()->hw_isa >= HD_ISA_AVX2 ? hd_f32_vmax_ukernel__avx2 : hd_f32_vmax_ukernel__scalar, 1);
    compare("vmax avx512", hd_f32_vmax_ukernel__scalar,
            hd_cpu()->hw_isa >= HD_ISA_AVX512 ? hd_f32_vmax_ukernel__avx512 : hd_f32_vmax_ukernel__scalar, 1);
    /* the dispatcher follows the cap */
    SECTION("dispatch");
    CHECK(hd_f32_vmax_select(HD_ISA_SCALAR) == hd_f32_vmax_ukernel__scalar);
    return hd_test_finish();
}
