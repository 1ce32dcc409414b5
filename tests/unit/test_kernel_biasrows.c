/*
 * The biasrows micro-kernels (eltwise-ukernels.h): each variant, bitwise, against the same
 * ISA's table axpby applied row after row, for 1..80 channels (every vector tail, both sides
 * of the 64-channel register path), 1..5 rows, beta 0 (c holds NaN, never read) and beta
 * non-zero, with signed zeros, infinities and NaN in a and c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/eltwise/eltwise-ukernels.h"

static unsigned seed = 9;
static float val(void)
{
    seed = seed * 1103515245u + 12345u;
    unsigned r = (seed >> 16) % 40;
    return r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -0.0f : (float)((int)r - 20) / 3.0f;
}

static void compare(const char *name, hd_f32_biasrows_fn fn, const hd_eltwise_table *t)
{
    SECTION(name);
    int bad = 0, cases = 0;
    float a[80], *c1 = malloc(5 * 80 * sizeof(float) + 64), *c2 = malloc(5 * 80 * sizeof(float) + 64);
    static const float ab[3][2] = {{1.0f, 1.0f}, {-0.5f, 0.0f}, {2.0f, -1.5f}};
    for (size_t ch = 1; ch <= 80; ch++)
        for (size_t rows = 1; rows <= 5; rows++)
            for (int s = 0; s < 3; s++, cases++) {
                for (size_t i = 0; i < ch; i++)
                    a[i] = val();
                for (size_t i = 0; i < 5 * 80 + 16; i++)
                    c1[i] = c2[i] = ab[s][1] == 0.0f ? NAN : val();
                for (size_t r = 0; r < rows; r++)
                    t->axpby(ch, a, c1 + r * ch, ab[s][0], ab[s][1]);
                fn(rows, ch, a, c2, ab[s][0], ab[s][1]);
                if (memcmp(c1, c2, (5 * 80 + 16) * sizeof(float)) != 0)
                    bad++;
            }
    CHECK_MSG(bad == 0, "%s differs from axpby row by row in %d of %d cases", name, bad, cases);
    free(c1);
    free(c2);
}

int main(void)
{
    compare("biasrows scalar", hd_f32_biasrows_ukernel__scalar, &hd_f32_eltwise_ukernels__scalar);
    int isa = (int)hd_cpu()->hw_isa;
    if (isa >= HD_ISA_AVX2)
        compare("biasrows avx2", hd_f32_biasrows_ukernel__avx2, &hd_f32_eltwise_ukernels__avx2);
    else
        SKIP("the AVX2 biasrows kernel (no AVX2 on this CPU)");
    if (isa >= HD_ISA_AVX512)
        compare("biasrows avx512", hd_f32_biasrows_ukernel__avx512, &hd_f32_eltwise_ukernels__avx512);
    else
        SKIP("the AVX-512 biasrows kernel (no AVX-512 on this CPU)");
    SECTION("dispatch");
    CHECK(hd_f32_biasrows_select(HD_ISA_SCALAR) == hd_f32_biasrows_ukernel__scalar);
    return hd_test_finish();
}
