/*
 * The softmax rows micro-kernel (src/kernels/softmax/softmax-ukernels.h: many short groups per
 * call, CHANNEL mode on NHWC) against the row kernel of the same ISA called once per group,
 * bit for bit (any NaN for a NaN): group lengths 1..80 (every tail, and past the in-register limit), 1..5 groups
 * with gaps between them, ACCURATE and LOG, beta 0 and not, in place too; data with NaNs,
 * infinities and large spreads (exp underflow).  The backward rows kernels (packed groups)
 * against a float64 statement of the formula, within a few float ulps of the result's scale.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
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

/* Equal bits, or both NaN: which NaN an operation passes on depends on its operand order,
 * which the compiler may swap (x + y and y + x are the same C), so NaN payloads and signs are
 * not part of the contract. */
static int same(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) && !(isnan(a[i]) && isnan(b[i])))
            return 0;
    return 1;
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
                bad += !same(a, b, G * LD);
            }
    CHECK_MSG(bad == 0, "%s differs from the row kernel in %d cases", name, bad);
}

/* dx = alpha * y * (dy - sum y*dy) + beta * dx0 in double; error measured against the scale
 * of the terms (|y| * (|dy| + |s|) + |beta dx0|), as float rounding of dy - s allows. */
static void backward(const char *name, hd_f32_softmax_bwd_rows_fn fn)
{
    SECTION(name);
    unsigned s = 21;
    int bad = 0;
    double worst = 0;
    static float y[G * LD], dy[G * LD], dx[G * LD], dx0[G * LD];
    for (size_t n = 1; n <= 80; n++)
        for (size_t groups = 1; groups <= G; groups++)
            for (int mode = 0; mode < 3; mode++) {
                float alpha = 0.75f, beta = mode == 1 ? 0.5f : 0.0f;
                for (size_t i = 0; i < G * LD; i++) {
                    y[i] = fabsf(val(&s, 0)) / 14.0f;
                    dy[i] = val(&s, 0);
                    dx[i] = dx0[i] = val(&s, 0);
                }
                if (mode == 2)           /* in place: dx is dy */
                    memcpy(dx, dy, sizeof dx);
                fn(n, groups, y, mode == 2 ? dx : dy, dx, alpha, beta);
                for (size_t g = 0; g < groups; g++) {
                    const float *yg = y + g * n, *dg = dy + g * n;
                    double sum = 0, mag = 0;
                    for (size_t i = 0; i < n; i++) {
                        sum += (double)yg[i] * dg[i];
                        mag += fabs((double)yg[i] * dg[i]);
                    }
                    for (size_t i = 0; i < n; i++) {
                        double want = alpha * yg[i] * (dg[i] - sum) + beta * dx0[g * n + i];
                        double scale = fabs(yg[i]) * (fabs(dg[i]) + mag) + fabs(beta * dx0[g * n + i]) + 1e-30;
                        double e = fabs(dx[g * n + i] - want) / scale;
                        worst = e > worst ? e : worst;
                        bad += !(e <= 4e-7);
                    }
                }
                for (size_t i = groups * n; i < G * LD; i++)     /* past the groups: untouched */
                    bad += memcmp(&dx[i], mode == 2 ? &dy[i] : &dx0[i], sizeof(float)) != 0;
            }
    CHECK_MSG(bad == 0, "%s: %d values off (worst relative error %g)", name, bad, worst);
}

/* The backward column kernels (CHANNEL on NCHW) against the scalar one, bit for bit, which is
 * checked against the float64 formula: 1..13 channels, 1..70 columns (every tail), row
 * strides wider than the block, beta 0 and not, dx in place of dy. */
#define CC 13
#define CL 80
static void backward_cols(const char *name, hd_f32_softmax_bwd_cols_fn fn)
{
    SECTION(name);
    unsigned s = 33;
    int bad = 0, off = 0;
    /* 64-byte aligned rows (80 floats), so that the streaming variant streams whole vectors */
    static float y[CC * CL], dy[CC * CL], a[CC * CL], b[CC * CL] __attribute__((aligned(64))), d0[CC * CL];
    for (size_t c = 1; c <= CC; c++)
        for (size_t cols = 1; cols <= 70; cols++)
            for (int mode = 0; mode < 3; mode++) {
                float alpha = 0.75f, beta = mode == 1 ? 0.5f : 0.0f;
                for (size_t i = 0; i < CC * CL; i++) {
                    y[i] = fabsf(val(&s, 0)) / 14.0f;
                    dy[i] = val(&s, 0);
                    a[i] = b[i] = d0[i] = mode == 2 ? dy[i] : val(&s, 0);
                }
                hd_f32_softmax_bwd_ukernel_cols__scalar(c, cols, y, CL, mode == 2 ? a : dy, CL, a, CL, alpha, beta);
                fn(c, cols, y, CL, mode == 2 ? b : dy, CL, b, CL, alpha, beta);
                bad += !same(a, b, CC * CL);
                for (size_t j = 0; j < cols; j++) {
                    double sum = 0, mag = 0;
                    for (size_t k = 0; k < c; k++) {
                        sum += (double)y[k * CL + j] * dy[k * CL + j];
                        mag += fabs((double)y[k * CL + j] * dy[k * CL + j]);
                    }
                    for (size_t k = 0; k < c; k++) {
                        size_t i = k * CL + j;
                        double want = alpha * y[i] * (dy[i] - sum) + beta * (mode == 2 ? 0.0 : d0[i]);
                        double scale = fabs(y[i]) * (fabs(dy[i]) + mag) + fabs(beta * d0[i]) + 1e-30;
                        off += !(fabs(a[i] - want) / scale <= 4e-7);
                    }
                }
                for (size_t k = 0; k < CC; k++)      /* outside the block: untouched */
                    for (size_t j = k < c ? cols : 0; j < CL; j++)
                        off += memcmp(&a[k * CL + j], &d0[k * CL + j], sizeof(float)) != 0;
            }
    CHECK_MSG(bad == 0, "%s differs from the scalar column kernel in %d cases", name, bad);
    CHECK_MSG(off == 0, "scalar column kernel: %d values off the formula or outside the block", off);
}

/* The 16-group kernel (CHANNEL on NHWC, beta 0) against the AVX-512 column kernel on the same
 * groups laid out as columns (padded to a multiple of 16 columns, as whole 16-column blocks
 * are what the column kernel sends to its vector arithmetic), bit for bit: 1..32 channels,
 * 1..40 groups, ACCURATE and LOG, with and without NaN / infinities; nothing written past
 * the groups. */
#define GG 40
static void grp16(void)
{
    SECTION("grp16 avx512 vs cols avx512");
    unsigned s = 77;
    int bad = 0, spill = 0;
    static float x[GG * 32 + 64], y[GG * 32 + 64], xt[32 * 48], yt[32 * 48];
    for (size_t n = 1; n <= HD_SM_GRP16_MAX; n++)
        for (size_t groups = 1; groups <= GG; groups++)
            for (int mode = 0; mode < 4; mode++) {
                int log_mode = mode & 1, special = mode >> 1;
                size_t cols = (groups + 15) & ~(size_t)15;
                for (size_t i = 0; i < GG * 32 + 64; i++) {
                    x[i] = val(&s, special);
                    y[i] = -3.0f;
                }
                for (size_t k = 0; k < n; k++)
                    for (size_t j = 0; j < 48; j++)
                        xt[k * 48 + j] = j < groups ? x[j * n + k] : 0.0f;
                hd_f32_softmax_ukernel_cols__avx512(n, cols, xt, 48, yt, 48, 1.25f, 0.0f, log_mode);
                hd_f32_softmax_ukernel_grp16__avx512(n, groups, x, y, 1.25f, log_mode);
                for (size_t k = 0; k < n; k++)
                    for (size_t j = 0; j < groups; j++)
                        bad += !same(&y[j * n + k], &yt[k * 48 + j], 1);
                for (size_t i = groups * n; i < GG * 32 + 64; i++)
                    spill += y[i] != -3.0f;
            }
    CHECK_MSG(bad == 0, "grp16 differs from the column kernel in %d values", bad);
    CHECK_MSG(spill == 0, "grp16 wrote %d values past the groups", spill);
}

/* The streaming AVX-512 backward column kernel (beta 0 only) in the shape of the plain one. */
static void bwd_cols_stream(size_t c, size_t cols, const float *y, size_t ldy, const float *dy, size_t lddy, float *dx,
                            size_t lddx, float alpha, float beta)
{
    if (beta != 0.0f)
        hd_f32_softmax_bwd_ukernel_cols__avx512(c, cols, y, ldy, dy, lddy, dx, lddx, alpha, beta);
    else
        hd_f32_softmax_bwd_ukernel_cols_stream__avx512(c, cols, y, ldy, dy, lddy, dx, lddx, alpha);
}

int main(void)
{
    backward("backward rows scalar", hd_f32_softmax_bwd_ukernel_rows__scalar);
    backward_cols("backward cols scalar", hd_f32_softmax_bwd_ukernel_cols__scalar);
    if ((int)hd_cpu()->hw_isa >= HD_ISA_AVX2)
        backward_cols("backward cols avx2", hd_f32_softmax_bwd_ukernel_cols__avx2);
    if ((int)hd_cpu()->hw_isa >= HD_ISA_AVX512) {
        backward_cols("backward cols avx512", hd_f32_softmax_bwd_ukernel_cols__avx512);
        backward_cols("backward cols avx512 streaming", bwd_cols_stream);
    }
    if ((int)hd_cpu()->hw_isa >= HD_ISA_AVX2)
        backward("backward rows avx2", hd_f32_softmax_bwd_ukernel_rows__avx2);
    if ((int)hd_cpu()->hw_isa >= HD_ISA_AVX512)
        backward("backward rows avx512", hd_f32_softmax_bwd_ukernel_rows__avx512);
    if ((int)hd_cpu()->hw_isa >= HD_ISA_AVX2)
        compare("rows avx2", hd_f32_softmax_ukernel_rows__avx2, hd_f32_softmax_ukernel__avx2);
    if ((int)hd_cpu()->hw_isa >= HD_ISA_AVX512) {
        compare("rows avx512", hd_f32_softmax_ukernel_rows__avx512, hd_f32_softmax_ukernel__avx512);
        grp16();
    } else
        SKIP("the AVX-512 rows kernel (no AVX-512 on this CPU)");
    SECTION("dispatch");
    CHECK(hd_f32_softmax_rows_kernel(HD_ISA_SCALAR) == NULL);
    CHECK(hd_f32_softmax_grp16_kernel(HD_ISA_AVX2) == NULL);
    CHECK(hd_f32_softmax_rows_kernel(HD_ISA_AVX2) ==
          ((int)hd_cpu_isa() >= HD_ISA_AVX2 ? hd_f32_softmax_ukernel_rows__avx2 : NULL));
    CHECK(hd_f32_softmax_bwd_rows_kernel(HD_ISA_AVX2) == ((int)hd_cpu_isa() >= HD_ISA_AVX2
                                                              ? hd_f32_softmax_bwd_ukernel_rows__avx2
                                                              : hd_f32_softmax_bwd_ukernel_rows__scalar));
    return hd_test_finish();
}
