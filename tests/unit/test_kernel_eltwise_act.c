/*
 * The sigmoid and tanh entries of the elementwise tables (src/kernels/eltwise/eltwise-ukernels.h)
 * of each ISA against float64: every length up to 70 (vector tails), values across the whole
 * range (tiny, around 0, large, beyond exp's underflow), +-inf, NaN, beta 0 and not, in place.
 * Bound: 4e-7 * (1 + |want|) -- a few float ulp, absolute near 0 as cuDNN's own kernels are.
 * Every table also gives bitwise the scalar table's result (NaN bits included).  The clipped
 * ReLU, activation-backward and fill entries: bitwise the scalar ones, and the scalar ones the
 * rule written out (hd_act_f32's, and the double gradients' rounded once per step).
 */
#include <math.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/eltwise/eltwise-ukernels.h"

static float val(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    unsigned r = (*s >> 16) & 63;
    if (r == 0) return NAN;
    if (r == 1) return INFINITY;
    if (r == 2) return -INFINITY;
    if (r == 3) return 1e-30f;
    if (r == 4) return -0.0f;
    float m = (float)((int)(*s >> 8 & 4095) - 2048) / 2048.0f;    /* [-1, 1) */
    int scale = (int)(*s >> 20 & 7);
    return m * (float)(1 << (2 * scale)) * 0.37f;                  /* up to about 6000 */
}

static void check(const char *name, const hd_eltwise_table *t)
{
    SECTION(name);
    unsigned s = 31;
    int bad = 0;
    double worst = 0;
    float x[80], y[80], y0[80], ys[80];
    for (int f = 0; f < 2; f++)
        for (size_t n = 1; n <= 70; n++)
            for (int mode = 0; mode < 3; mode++) {
                float alpha = 0.75f, beta = mode == 1 ? 0.5f : 0.0f;
                for (size_t i = 0; i < 80; i++) {
                    x[i] = val(&s);
                    y[i] = y0[i] = (float)(i % 9) - 4.0f;
                }
                if (mode == 2)
                    memcpy(y, x, sizeof y);
                memcpy(ys, y, sizeof ys);
                (f ? t->tanh : t->sigmoid)(n, mode == 2 ? y : x, y, alpha, beta);
                const hd_eltwise_table *sc = &hd_f32_eltwise_ukernels__scalar;
                (f ? sc->tanh : sc->sigmoid)(n, mode == 2 ? ys : x, ys, alpha, beta);
                bad += memcmp(y, ys, sizeof y) != 0;
                for (size_t i = 0; i < 80; i++) {
                    if (i >= n) {
                        bad += memcmp(&y[i], mode == 2 ? &x[i] : &y0[i], sizeof(float)) != 0;
                        continue;
                    }
                    double xv = x[i], v = f ? tanh(xv) : 1.0 / (1.0 + exp(-xv));
                    double want = alpha * v + beta * (double)y0[i];
                    if (want != want) {
                        bad += y[i] == y[i];
                        continue;
                    }
                    double e = fabs(y[i] - want) / (1.0 + fabs(want));
                    worst = e > worst ? e : worst;
                    bad += !(e <= 4e-7);
                }
            }
    CHECK_MSG(bad == 0, "%s: %d values off (worst %g)", name, bad, worst);
}

/* clip, act_bwd and fill against the scalar table bit for bit (the scalar table against
 * the rule when t is the scalar table itself). */
static void exact(const char *name, const hd_eltwise_table *t)
{
    SECTION(name);
    const hd_eltwise_table *sc = &hd_f32_eltwise_ukernels__scalar;
    unsigned s = 77;
    int bad = 0;
    float x[80], y[80], dy[80], a[80], b[80];
    for (size_t n = 1; n <= 70; n++)
        for (int v = 0; v < 2; v++) {
            float alpha = 1.5f, beta = v ? -0.25f : 0.0f, coef = 6.0f;
            for (size_t i = 0; i < 80; i++) {
                x[i] = val(&s);
                y[i] = fabsf(val(&s)) / 7000.0f;
                dy[i] = val(&s);
                a[i] = b[i] = (float)i - 40.0f;
            }
            sc->clip(n, x, a, alpha, beta, coef);
            t->clip(n, x, b, alpha, beta, coef);
            bad += memcmp(a, b, sizeof a) != 0;
            for (size_t i = 0; i < n; i++) {       /* the rule: hd_act_f32 for coef > 0 */
                float r = x[i] > 0.0f ? (x[i] < coef ? x[i] : coef) : 0.0f;
                float w = alpha * r;
                w = beta != 0.0f ? w + beta * ((float)i - 40.0f) : w;
                bad += memcmp(&w, &a[i], sizeof w) != 0;
            }
            for (int mode = 0; mode < 4; mode++) {
                for (size_t i = 0; i < 80; i++)
                    a[i] = b[i] = (float)i - 40.0f;
                sc->act_bwd(n, mode, y, dy, x, a, alpha, beta, coef);
                t->act_bwd(n, mode, y, dy, x, b, alpha, beta, coef);
                bad += memcmp(a, b, sizeof a) != 0;
                for (size_t i = 0; i < n; i++) {
                    float g = mode == HD_ELT_BWD_RELU ? (x[i] > 0.0f ? dy[i] : 0.0f)
                            : mode == HD_ELT_BWD_CLIP ? (x[i] > 0.0f && x[i] < coef ? dy[i] : 0.0f)
                            : mode == HD_ELT_BWD_SIGMOID ? (dy[i] * y[i]) * (1.0f - y[i])
                            : dy[i] * (1.0f - y[i] * y[i]);
                    float w = alpha * g;
                    w = beta != 0.0f ? w + beta * ((float)i - 40.0f) : w;
                    bad += memcmp(&w, &a[i], sizeof w) != 0 && !(isnan(w) && isnan(a[i]));
                }
            }
            for (size_t i = 0; i < 80; i++)
                a[i] = b[i] = (float)i - 40.0f;
            sc->fill(n, 0.375f, a, beta);
            t->fill(n, 0.375f, b, beta);
            bad += memcmp(a, b, sizeof a) != 0;
            for (size_t i = 0; i < 80; i++) {
                float w = i >= n ? (float)i - 40.0f : beta != 0.0f ? 0.375f + beta * ((float)i - 40.0f) : 0.375f;
                bad += memcmp(&w, &a[i], sizeof w) != 0;
            }
        }
    CHECK_MSG(bad == 0, "%s: %d differences", name, bad);
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    check("sigmoid/tanh scalar", &hd_f32_eltwise_ukernels__scalar);
    exact("clip/act_bwd/fill scalar", &hd_f32_eltwise_ukernels__scalar);
    if (hw >= HD_ISA_AVX2)
        exact("clip/act_bwd/fill avx2", &hd_f32_eltwise_ukernels__avx2);
    if (hw >= HD_ISA_AVX512)
        exact("clip/act_bwd/fill avx512", &hd_f32_eltwise_ukernels__avx512);
    if (hw >= HD_ISA_AVX2)
        check("sigmoid/tanh avx2", &hd_f32_eltwise_ukernels__avx2);
    else
        SKIP("the AVX2 table (no AVX2 on this CPU)");
    if (hw >= HD_ISA_AVX512)
        check("sigmoid/tanh avx512", &hd_f32_eltwise_ukernels__avx512);
    else
        SKIP("the AVX-512 table (no AVX-512 on this CPU)");
    return hd_test_finish();
}
