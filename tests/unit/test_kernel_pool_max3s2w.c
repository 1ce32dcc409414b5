/*
 * The fused max pooling backward kernels for 3x3 windows at stride 2 along the rows of one
 * channel plane (src/kernels/pool/pool-ukernels.h): max3s2w and max3s2w_last.  The scalar
 * variant against the channel-contiguous scalar kernel with one channel (the established
 * rule), and the AVX-512 variant against the scalar one, bit for bit: rows 3..112 wide (one
 * to four blocks of 16 outputs, a last block full or not) with padding 0 and 1 and one
 * output more than fits, every pattern of window rows outside the input, top and middle rows
 * written or not, both NaN rules, on data with NaNs, infinities, signed zeros, ties and
 * inexact sums (and windows of mostly -inf), with carries of any value and guard values
 * around every row.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/pool/pool-ukernels.h"

#define POOL_BWD_SEED 29
#include "pool_bwd_values.h"

static float val(int finite) { return pool_bwd_value(finite, 1); }

#define MAXW 112
#define MAXO (MAXW / 2 + 2)
#define G 40                       /* guard floats around each row */
#define RS (MAXW + 2 * G)

static void fill(float *p, size_t n, int finite)
{
    for (size_t i = 0; i < n; i++)
        p[i] = val(finite);
}

typedef struct {
    float x[3 * RS], g[MAXO], d[2 * RS];
    double cdin[MAXO + 1], cd[MAXO + 1];
    float cfin[MAXO], cf[MAXO];
} bufs;

/* One random case into a (the inputs) and the outputs' guards into b too. */
static void make(bufs *a, size_t w)
{
    fill(a->x, 3 * RS, 0);
    if (rnd() % 4 == 0)                 /* windows of mostly -inf: a tap read from outside would win */
        for (size_t i = 0; i < 3 * RS; i++)
            if (rnd() % 8)
                a->x[i] = -INFINITY;
    for (int r = 0; r < 3; r++) {       /* outside the row: values that would win if read */
        for (size_t i = 0; i < G; i++)
            a->x[r * RS + i] = a->x[r * RS + G + w + i] = rnd() & 1 ? NAN : 1.0e30f;
    }
    fill(a->g, MAXO, rnd() % 4 != 0);
    for (size_t i = 0; i <= MAXO; i++)
        a->cdin[i] = (double)val(1) + (rnd() & 1 ? 1.0e-12 : 0.0);
    for (size_t i = 0; i < MAXO; i++)
        a->cfin[i] = val(1);
    fill(a->d, 2 * RS, 1);
    for (size_t i = 0; i <= MAXO; i++)
        a->cd[i] = 7.0;
    for (size_t i = 0; i < MAXO; i++)
        a->cf[i] = 7.0f;
}

static int same_out(const bufs *a, const bufs *b, size_t ow)
{
    return same_floats(a->d, b->d, 2 * RS) && same_doubles(a->cd, b->cd, ow + 1) && same_floats(a->cf, b->cf, ow);
}

static void run(int vs_channels, hd_f32_pool_max3s2w_fn fn, hd_f32_pool_max3s2w_last_fn last, const char *name)
{
    SECTION(name);
    static bufs a, b;
    static double cdc[(MAXO + 1) * 16], cdo[(MAXO + 1) * 16];
    static float cfc[MAXO * 16], cfo[MAXO * 16];
    int bad = 0, badlast = 0, cases = 0;
    for (size_t w = 3; w <= MAXW; w++)
        for (int pw = 0; pw <= 1; pw++)
            for (int more = 0; more <= 1; more++)
                for (int rows = 0; rows < 8; rows++)
                    for (int prop = 0; prop <= 1; prop++) {
                        size_t ow = (w + 2 * (size_t)pw - 3) / 2 + 1 + (size_t)more;
                        make(&a, w);
                        b = a;
                        const float *xr[5] = {NULL, NULL, NULL, NULL, NULL};
                        for (int r = 0; r < 3; r++)
                            xr[r] = rows & (1 << r) ? NULL : a.x + (size_t)r * RS + G;
                        int which = (int)(rnd() % 4);
                        float *ta = which & 1 ? NULL : a.d + G, *ma = which & 2 ? NULL : a.d + RS + G;
                        float *tb = which & 1 ? NULL : b.d + G, *mb = which & 2 ? NULL : b.d + RS + G;
                        hd_f32_pool_ukernel_max3s2w__scalar(ta, ma, xr, w, pw, a.g, ow, a.cdin, a.cfin, a.cd, a.cf, prop);
                        if (vs_channels) {
                            /* the channel kernel with one channel: carries 16 apart */
                            for (size_t j = 0; j <= ow; j++)
                                cdc[j * 16] = b.cdin[j];
                            for (size_t j = 0; j < ow; j++)
                                cfc[j * 16] = b.cfin[j];
                            hd_f32_pool_ukernel_max3s2__scalar(tb, mb, 1, xr, 1, w, pw, b.g, NULL, 1, ow, 1, cdc, cfc, cdo,
                                                               cfo, prop, 0);
                            for (size_t j = 0; j <= ow; j++)
                                b.cd[j] = cdo[j * 16];
                            for (size_t j = 0; j < ow; j++)
                                b.cf[j] = cfo[j * 16];
                        } else {
                            fn(tb, mb, xr, w, pw, b.g, ow, b.cdin, b.cfin, b.cd, b.cf, prop);
                        }
                        cases++;
                        bad += !same_out(&a, &b, ow);
                        /* the row held by the carry just made */
                        memcpy(b.d, a.d, sizeof a.d);
                        hd_f32_pool_ukernel_max3s2w_last__scalar(a.d + G, w, pw, ow, a.cd, a.cf);
                        last(b.d + G, w, pw, ow, a.cd, a.cf);
                        badlast += !same_floats(a.d, b.d, 2 * RS);
                    }
    CHECK_MSG(bad == 0, "%s: max3s2w differs in %d of %d cases", name, bad, cases);
    CHECK_MSG(badlast == 0, "%s: max3s2w_last differs in %d of %d cases", name, badlast, cases);
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    run(1, NULL, hd_f32_pool_ukernel_max3s2w_last__scalar, "max3s2w scalar against the channel kernel");
    if (hw >= HD_ISA_AVX512)
        run(0, hd_f32_pool_ukernel_max3s2w__avx512, hd_f32_pool_max3s2w_last_select(HD_ISA_AVX512),
            "max3s2w avx512 against scalar");
    else
        SKIP("the AVX-512 max3s2w kernel (no AVX-512 on this CPU)");
    SECTION("dispatch");
    CHECK(hd_f32_pool_max3s2w_select(HD_ISA_AVX2) == NULL);
    CHECK(hd_f32_pool_max3s2w_last_select(HD_ISA_SCALAR) != NULL);
    return hd_test_finish();
}
