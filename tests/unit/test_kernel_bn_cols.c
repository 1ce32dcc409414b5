/*
 * The batch-normalization column micro-kernels (src/kernels/bn/bn-ukernels.h: channel-contiguous
 * layouts, ROWS rows of C channels) of each ISA against the scalar set, bit for bit: channel
 * counts 1..40 and a few larger ones (the 32-channel register blocks, the 8- and 16-lane tails,
 * and row blocks that split a call), 1..37 rows, accumulators that start non-zero, beta 0 and
 * not, the streaming variants on aligned and unaligned outputs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/bn/bn-ukernels.h"

static float val(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((int)(*s >> 12 & 4095) - 2048) / 307.0f + 3.0f;
}

#define MAXC 320
#define MAXR 37
#define NX (MAXR * MAXC + 16)

static int same(const void *a, const void *b, size_t bytes) { return memcmp(a, b, bytes) == 0; }

static void compare(const char *name, const hd_bn_f32_kernels *k)
{
    const hd_bn_f32_kernels *r = &hd_f32_bn_ukernels__scalar;
    SECTION(name);
    static const size_t extra[] = {64, 100, 320};
    unsigned s = 17;
    int bad = 0;
    float *x = aligned_alloc(64, NX * sizeof(float)), *dy = aligned_alloc(64, NX * sizeof(float));
    float *ya = aligned_alloc(64, NX * sizeof(float)), *yb = aligned_alloc(64, NX * sizeof(float));
    double *a1 = malloc(MAXC * sizeof(double)), *a2 = malloc(MAXC * sizeof(double));
    double *b1 = malloc(MAXC * sizeof(double)), *b2 = malloc(MAXC * sizeof(double));
    double *mean = malloc(MAXC * sizeof(double));
    float *par = malloc(4 * MAXC * sizeof(float));
    for (size_t ci = 0; ci < 40 + 3; ci++) {
        size_t C = ci < 40 ? ci + 1 : extra[ci - 40];
        for (size_t rows = 1; rows <= MAXR; rows += (C > 40 ? 6 : 1)) {
            for (size_t i = 0; i < NX; i++) {
                x[i] = val(&s);
                dy[i] = val(&s) - 3.0f;
            }
            for (size_t c = 0; c < C; c++) {
                a1[c] = b1[c] = (double)val(&s);
                a2[c] = b2[c] = (double)val(&s);
                mean[c] = (double)val(&s);
            }
            for (size_t i = 0; i < 4 * MAXC; i++)
                par[i] = val(&s) * 0.5f;
            size_t cb = C * sizeof(double);
            r->col_sum(x, rows, C, a1);
            k->col_sum(x, rows, C, b1);
            bad += !same(a1, b1, cb);
            r->col_sqdev(x, rows, C, mean, a2);
            k->col_sqdev(x, rows, C, mean, b2);
            bad += !same(a2, b2, cb);
            r->col_ssums(x, rows, C, mean, a1, a2);
            k->col_ssums(x, rows, C, mean, b1, b2);
            bad += !same(a1, b1, cb) + !same(a2, b2, cb);
            r->col_dsums(dy, x, rows, C, mean, a1, a2);
            k->col_dsums(dy, x, rows, C, mean, b1, b2);
            bad += !same(a1, b1, cb) + !same(a2, b2, cb);
            for (int v = 0; v < 6; v++) {
                float beta = v & 1 ? 0.5f : 0.0f;
                size_t off = v & 4 ? 3 : 0;          /* unaligned output: plain stores up to the first line */
                for (size_t i = 0; i < NX; i++)
                    ya[i] = yb[i] = (float)(i % 5);
                if (v & 2) {
                    r->col_bwd(dy, x, ya + off, rows, C, par, par + C, par + 2 * C, par + 3 * C, beta);
                    k->col_bwd_stream(dy, x, yb + off, rows, C, par, par + C, par + 2 * C, par + 3 * C, beta);
                    bad += !same(ya, yb, NX * sizeof(float));
                    k->col_bwd(dy, x, yb + off, rows, C, par, par + C, par + 2 * C, par + 3 * C, beta);
                    r->col_bwd(dy, x, ya + off, rows, C, par, par + C, par + 2 * C, par + 3 * C, beta);
                } else {
                    r->col_affine(x, ya + off, rows, C, par, par + C, par + 2 * C, beta);
                    k->col_affine_stream(x, yb + off, rows, C, par, par + C, par + 2 * C, beta);
                    bad += !same(ya, yb, NX * sizeof(float));
                    k->col_affine(x, yb + off, rows, C, par, par + C, par + 2 * C, beta);
                    r->col_affine(x, ya + off, rows, C, par, par + C, par + 2 * C, beta);
                }
                bad += !same(ya, yb, NX * sizeof(float));
            }
        }
    }
    CHECK_MSG(bad == 0, "%s column kernels differ from the scalar ones in %d cases", name, bad);
    free(x), free(dy), free(ya), free(yb), free(a1), free(a2), free(b1), free(b2), free(mean), free(par);
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    compare("scalar streaming entries", &hd_f32_bn_ukernels__scalar);
    if (hw >= HD_ISA_AVX2)
        compare("avx2", &hd_f32_bn_ukernels__avx2);
    else
        SKIP("the AVX2 column kernels (no AVX2 on this CPU)");
    if (hw >= HD_ISA_AVX512)
        compare("avx512", &hd_f32_bn_ukernels__avx512);
    else
        SKIP("the AVX-512 column kernels (no AVX-512 on this CPU)");
    return hd_test_finish();
}
