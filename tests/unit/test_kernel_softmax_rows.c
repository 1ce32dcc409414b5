/*
 * The softmax rows micro-kernel (src/kernels/softmax/softmax-ukernels.h: many short groups per
 * call, CHANNEL mode on NHWC) against the row kernel of the same ISA called once per group,
 * bit for bit: group lengths 1..80 (every tail, and past the in-register limit), 1..5 groups
 * with gaps between them, ACCURATE and LOG, beta 0 and not, in place too; data with NaNs,
 * infinities and large spreads (exp underflow).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/softmax/softmax-ukernels.h"

static float val(unsigned *s, int special)
{
    *s = *s * 1103515245u + 12345u;
    unsigned r = (*s >> 16) & 127;
    if (special && r == 0) return NAN;
    if (special && r == 1) return INFINITY;
    if (special && r == 2) return -INFINITY;
    if (r == 3) return -200.0f;
    return (float)((int)(*s >> 18 & 1023) - 512) / 37.0f;
}

#define LD 90
#define G 5

static void compare(const char *name, hd_f32_softmax_rows_fn rows, hd_f32_softmax_fn row)
{
    SECTION(name);
    unsigned s = 9;
    int bad = 0;
    static float x[G * LD], a[G * LD], b[G * LD];
    for (size_t n = 1; n <= 80; n++)
        for (size_t groups = 1; groups <= G; groups++)
            for (int mode = 0; mode < 8; mode++) {
                int log_mode = mode & 1, special = (mode >> 2) & 1, inplace = mode == 2;
                float beta = (mode & 2) && !inplace ? 0.5f : 0.0f, alpha = 1.25f;
                for (size_t i = 0; i < G * LD; i++) {
                    x[i] = val(&s, special);
                    a[i] = b[i] = inplace ? x[i] : 0.25f * (float)(i % 7);
                }
                for (size_t g = 0; g < groups; g++)
                    row(n, (inplace ? a : x) + g * LD, a + g * LD, alpha, beta, log_mode);
                rows(n, groups, inplace ? b : x, LD, b, LD, alpha, beta, log_mode);
                bad += memcmp(a, b, sizeof a) != 0;
            }
    CHECK_MSG(bad == 0, "%s differs from the row kernel in %d cases", name, bad);
}

int main(void)
{
    if ((int)hd_cpu()->hw_isa >= HD_ISA_AVX512)
        compare("rows avx512", hd_f32_softmax_ukernel_rows__avx512, hd_f32_softmax_ukernel__avx512);
    else
        SKIP("the AVX-512 rows kernel (no AVX-512 on this CPU)");
    SECTION("dispatch");
    CHECK(hd_f32_softmax_rows_kernel(HD_ISA_SCALAR) == NULL);
    CHECK(hd_f32_softmax_rows_kernel(HD_ISA_AVX2) == NULL);
    return hd_test_finish();
}
