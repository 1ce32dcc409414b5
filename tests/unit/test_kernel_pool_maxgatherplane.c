/*
 * The max pooling backward gather kernel of row-contiguous layouts (maxgatherplane,
 * src/kernels/pool/pool-ukernels.h).  The scalar variant against the rule written as a scatter
 * (each output's gradient added, in output order, to the column of its argmax tap, in
 * doubles), and the AVX-512 variant against the scalar one, bit for bit: dx rows of 1..70
 * columns, windows 1..5 wide with padding below the window, strides 1..3 (the vector variant
 * takes stride 2 itself), 0..3 covering output rows, argmax rows with hits, misses and -1,
 * gradients with NaNs, infinities, signed zeros and sums that overflow float, alpha 1 / beta 0
 * and other scales, with guard values around the row.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/pool/pool-ukernels.h"

static unsigned seed = 11;
static unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 16;
}

/* Bit for bit, except that any two NaNs match (which NaN an add of two returns is left open). */
static int same_floats(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof *a) != 0 && !(isnan(a[i]) && isnan(b[i])))
            return 0;
    return 1;
}

static float val(void)
{
    unsigned r = rnd() & 31;
    if (r == 0) return NAN;
    if (r == 1) return INFINITY;
    if (r == 2) return -INFINITY;
    if (r == 3) return -0.0f;
    if (r == 4) return 0.0f;
    if (r == 5) return 3.0e38f;
    return (float)((int)(rnd() & 4095) - 2048) / 7.0f * (r & 8 ? 1.0e-7f : 1.0f);
}

#define WMAX 70
#define OWMAX 80
#define GUARD 20

typedef struct {
    int w, pw, sw, kw, ow, nrows;
    int32_t arg[3][OWMAX];
    float g[3][OWMAX];
    int32_t ty[3];
    double alpha, beta;
} problem;

static void make(problem *pr, int w, int kw, int sw)
{
    pr->w = w;
    pr->kw = kw;
    pr->sw = sw;
    pr->pw = (int)(rnd() % (unsigned)kw);
    int span = w + 2 * pr->pw - kw;
    pr->ow = span < 0 ? 1 : span / sw + 1;
    pr->nrows = (int)(rnd() % 4);
    for (int r = 0; r < 3; r++) {
        pr->ty[r] = (int32_t)(rnd() % 3);
        for (int j = 0; j < pr->ow; j++) {
            unsigned u = rnd() % 8;
            int32_t t = u == 0 ? -1 : (int32_t)(rnd() % (unsigned)(3 * kw));
            /* mostly the taps of this dx row, so that hits are common */
            if (u >= 4)
                t = pr->ty[r] * kw + (int32_t)(rnd() % (unsigned)kw);
            pr->arg[r][j] = t < 0 ? -1 : t + j * sw;
            pr->g[r][j] = val();
        }
    }
    static const double scale[4][2] = {{1.0, 0.0}, {0.5, 0.0}, {2.0, -1.5}, {-1.0, 1.0}};
    int s = (int)(rnd() % 4);
    pr->alpha = scale[s][0];
    pr->beta = scale[s][1];
}

static void run(const problem *pr, hd_f32_pool_maxgatherplane_fn fn, float *buf, const float *init)
{
    memcpy(buf, init, sizeof(float) * (WMAX + 2 * GUARD));
    const int32_t *a[3] = {pr->arg[0], pr->arg[1], pr->arg[2]};
    const float *g[3] = {pr->g[0], pr->g[1], pr->g[2]};
    fn(buf + GUARD, (size_t)pr->w, pr->pw, pr->sw, pr->kw, (size_t)pr->ow, pr->nrows, a, g, pr->ty, pr->alpha,
       pr->beta);
}

/* The rule as a scatter into doubles, in output order. */
static void scatter(const problem *pr, float *buf, const float *init)
{
    double acc[WMAX];
    memcpy(buf, init, sizeof(float) * (WMAX + 2 * GUARD));
    for (int i = 0; i < pr->w; i++)
        acc[i] = 0.0;
    for (int r = 0; r < pr->nrows; r++)
        for (int j = 0; j < pr->ow; j++) {
            int32_t t = pr->arg[r][j] - j * pr->sw;
            if (pr->arg[r][j] < 0 || t < 0 || t / pr->kw != pr->ty[r])
                continue;
            int col = j * pr->sw + t % pr->kw - pr->pw;
            if (col >= 0 && col < pr->w)
                acc[col] += (double)pr->g[r][j];
        }
    for (int i = 0; i < pr->w; i++) {
        double v = pr->alpha * acc[i];
        if (pr->beta != 0.0)
            v += pr->beta * (double)buf[GUARD + i];
        buf[GUARD + i] = (float)v;
    }
}

static void check(const char *name, hd_f32_pool_maxgatherplane_fn fn, int against_rule)
{
    SECTION(name);
    int bad = 0, cases = 0;
    float init[WMAX + 2 * GUARD], a[WMAX + 2 * GUARD], b[WMAX + 2 * GUARD];
    problem pr;
    for (int w = 1; w <= WMAX; w++)
        for (int kw = 1; kw <= 5; kw++)
            for (int sw = 1; sw <= 3; sw++)
                for (int rep = 0; rep < 6; rep++) {
                    make(&pr, w, kw, sw);
                    for (int i = 0; i < WMAX + 2 * GUARD; i++)
                        init[i] = val();
                    if (against_rule)
                        scatter(&pr, a, init);
                    else
                        run(&pr, hd_f32_pool_ukernel_maxgatherplane__scalar, a, init);
                    run(&pr, fn, b, init);
                    cases++;
                    if (!same_floats(a, b, WMAX + 2 * GUARD))
                        bad++;
                }
    CHECK_MSG(bad == 0, "%s differs in %d of %d cases", name, bad, cases);
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    check("maxgatherplane scalar vs the scatter rule", hd_f32_pool_ukernel_maxgatherplane__scalar, 1);
    if (hw >= HD_ISA_AVX512)
        check("maxgatherplane avx512 vs scalar", hd_f32_pool_ukernel_maxgatherplane__avx512, 0);
    else
        SKIP("the AVX-512 maxgatherplane kernel (no AVX-512 on this CPU)");
    SECTION("dispatch");
    CHECK(hd_f32_pool_maxgatherplane_select(HD_ISA_AVX2) == NULL);
    return hd_test_finish();
}
