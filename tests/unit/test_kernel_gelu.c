/*
 * The float GELU micro-kernels (kernels/eltwise/f32-gelu-*.c), each on its own, against a
 * float64 reference: GELU(z) = z Phi(z) and GELU'(z) = Phi(z) + z phi(z), Phi(z) =
 * erfc(-z / sqrt 2) / 2 (erfc keeps the negative side accurate).  The stated bound is
 * |error| <= 1e-7 (1 + |z|), z = alpha * x rounded to float as
 * the kernels form it; |error| <= 1.5e-7 (1 + |z|) |dy| for the gradient.  Checked over a dense sweep of [-14, 14], the values near 0, the
 * extremes (+-inf, NaN, huge, tiny), every tail length 0..40 with guard cells after the end,
 * and in place; the AVX2 and AVX-512 kernels must give the same bits.  Kernels the CPU (or
 * HOSTDNN_MAX_ISA) does not allow are skipped and say so.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/eltwise/eltwise-ukernels.h"

#define BOUND 1e-7
#define BOUND_GRAD 1.5e-7
#define GUARD 7.25f

typedef struct {
    const char *name;
    hd_isa_t isa;
    hd_f32_gelu_fn fwd;
    hd_f32_gelu_bwd_fn bwd;
} kern;

static const kern kerns[] = {
    { "scalar", HD_ISA_SCALAR, hd_f32_gelu_ukernel__scalar, hd_f32_gelu_bwd_ukernel__scalar },
    { "avx2", HD_ISA_AVX2, hd_f32_gelu_ukernel__avx2, hd_f32_gelu_bwd_ukernel__avx2 },
    { "avx512", HD_ISA_AVX512, hd_f32_gelu_ukernel__avx512, hd_f32_gelu_bwd_ukernel__avx512 },
};

static double ref_cdf(double z) { return 0.5 * erfc(-z / sqrt(2.0)); }
static double ref_gelu(double z) { return z * ref_cdf(z); }
static double ref_grad(double z) { return ref_cdf(z) + z * exp(-0.5 * z * z) / sqrt(2.0 * acos(-1.0)); }

static uint32_t rng = 2463534242u;
static float rndf(float lo, float hi)
{
    rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
    return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

/* worst error / bound over N points, forward and gradient */
static void sweep(const kern *k, const float *x, const float *dy, size_t n, float alpha, float alpha_dy,
                  double *worst_f, double *worst_b)
{
    float *y = malloc(n * sizeof *y), *dx = malloc(n * sizeof *dx);
    k->fwd(n, x, y, alpha);
    k->bwd(n, x, dy, dx, alpha, alpha_dy);
    for (size_t i = 0; i < n; i++) {
        double z = (double)(alpha * x[i]), g = (double)(alpha_dy * dy[i]);
        double ef = fabs((double)y[i] - ref_gelu(z)) / (BOUND * (1.0 + fabs(z)));
        double eb = fabs((double)dx[i] - g * ref_grad(z)) / (BOUND_GRAD * (1.0 + fabs(z)) * (fabs(g) > 1e-30 ? fabs(g) : 1e-30));
        if (!(ef <= *worst_f))
            *worst_f = ef;
        if (!(eb <= *worst_b))
            *worst_b = eb;
    }
    free(y), free(dx);
}

static void check_accuracy(const kern *k)
{
    SECTION(k->name);
    size_t n = 600001;
    float *x = malloc(n * sizeof *x), *dy = malloc(n * sizeof *dy);
    for (size_t i = 0; i < n; i++) {
        x[i] = i < 400001 ? -14.0f + 28.0f * (float)i / 400000.0f : rndf(-1.5f, 1.5f);
        dy[i] = rndf(-2.0f, 2.0f);
    }
    const float alphas[][2] = { { 1.0f, 1.0f }, { 0.5f, 3.0f }, { -2.0f, 0.25f } };
    for (int a = 0; a < 3; a++) {
        double wf = 0, wb = 0;
        sweep(k, x, dy, n, alphas[a][0], alphas[a][1], &wf, &wb);
        CHECK_MSG(wf <= 1.0, "%s gelu: worst error %.3g x the bound (alpha %g)", k->name, wf, alphas[a][0]);
        CHECK_MSG(wb <= 1.0, "%s gelu_bwd: worst error %.3g x the bound (alpha %g)", k->name, wb, alphas[a][0]);
        if (a == 0)
            printf("%-7s worst error / bound: gelu %.3f, gradient %.3f\n", k->name, wf, wb);
    }
    free(x), free(dy);
}

static void check_special(const kern *k)
{
    SECTION(k->name);
    const float in[] = { INFINITY, NAN, 0.0f, -0.0f, 1e-30f, -1e-30f, 3e38f, -3e38f, 20.0f, -20.0f, 1e-45f };
    float out[11], g[11], ones[11];
    for (int i = 0; i < 11; i++)
        ones[i] = 1.0f;
    k->fwd(11, in, out, 1.0f);
    k->bwd(11, in, ones, g, 1.0f, 1.0f);
    CHECK(out[0] == INFINITY);
    CHECK(isnan(out[1]) && isnan(g[1]));
    CHECK(out[2] == 0.0f && out[3] == 0.0f);
    CHECK(fabsf(out[4] - 5e-31f) <= 1e-37f && fabsf(out[5] + 5e-31f) <= 1e-37f);
    CHECK(out[6] == 3e38f && out[7] == 0.0f);
    CHECK(out[8] == 20.0f && fabsf(out[9]) <= 1e-37f);
    CHECK(g[0] == 1.0f && g[8] == 1.0f && fabsf(g[9]) <= 1e-37f && fabsf(g[2] - 0.5f) <= 1e-7f);
}

/* every tail length, guard cells past the end untouched, in place equal to out of place */
static void check_tails(const kern *k)
{
    SECTION(k->name);
    float x[48], dy[48], y[48], ip[48], dx[48], dip[48];
    for (size_t n = 0; n <= 40; n++) {
        for (int i = 0; i < 48; i++) {
            x[i] = rndf(-5.0f, 5.0f), dy[i] = rndf(-1.0f, 1.0f);
            y[i] = dx[i] = GUARD;
        }
        memcpy(ip, x, sizeof ip), memcpy(dip, dy, sizeof dip);
        k->fwd(n, x, y, 1.5f);
        k->fwd(n, ip, ip, 1.5f);
        k->bwd(n, x, dy, dx, 1.5f, -0.5f);
        k->bwd(n, x, dip, dip, 1.5f, -0.5f);
        int ok = 1;
        for (size_t i = 0; i < 48; i++) {
            if (i >= n)
                ok &= y[i] == GUARD && dx[i] == GUARD && ip[i] == x[i] && dip[i] == dy[i];
            else
                ok &= memcmp(&y[i], &ip[i], 4) == 0 && memcmp(&dx[i], &dip[i], 4) == 0 &&
                      fabs(y[i] - ref_gelu((double)(1.5f * x[i]))) <= BOUND * (1 + fabs(1.5 * x[i]));
        }
        CHECK_MSG(ok, "%s: tail length %zu", k->name, n);
    }
}

static int allowed(const kern *k)
{
    return hd_isa_cap((int)k->isa) == k->isa;
}

int main(void)
{
    for (size_t i = 0; i < sizeof kerns / sizeof *kerns; i++) {
        if (!allowed(&kerns[i])) {
            SKIP("%s GELU kernels: not allowed on this CPU / HOSTDNN_MAX_ISA", kerns[i].name);
            continue;
        }
        check_accuracy(&kerns[i]);
        check_special(&kerns[i]);
        check_tails(&kerns[i]);
    }
    /* the two vector kernels take the same operations in the same order */
    if (allowed(&kerns[2])) {
        SECTION("avx2 = avx512");
        size_t n = 100003;
        float *x = malloc(n * sizeof *x), *dy = malloc(n * sizeof *dy), *a = malloc(n * sizeof *a),
              *b = malloc(n * sizeof *b);
        for (size_t i = 0; i < n; i++)
            x[i] = rndf(-10.0f, 10.0f), dy[i] = rndf(-1.0f, 1.0f);
        kerns[1].fwd(n, x, a, 0.75f);
        kerns[2].fwd(n, x, b, 0.75f);
        CHECK(memcmp(a, b, n * sizeof *a) == 0);
        kerns[1].bwd(n, x, dy, a, 0.75f, 2.0f);
        kerns[2].bwd(n, x, dy, b, 0.75f, 2.0f);
        CHECK(memcmp(a, b, n * sizeof *a) == 0);
        free(x), free(dy), free(a), free(b);
    }
    /* the table of each ISA carries its GELU kernels */
    SECTION("tables");
    CHECK(hd_f32_eltwise_ukernels__scalar.gelu == hd_f32_gelu_ukernel__scalar);
    CHECK(hd_f32_eltwise_ukernels__avx2.gelu_bwd == hd_f32_gelu_bwd_ukernel__avx2);
    CHECK(hd_f32_eltwise_ukernels__avx512.gelu == hd_f32_gelu_ukernel__avx512);
    return hd_test_finish();
}
