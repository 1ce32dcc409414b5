/*
 * The depthwise edge-row micro-kernels (src/kernels/dwconv/dwconv-ukernels.h: hd_dw_erow_args and
 * hd_dw_ewrow_args, AVX-512 only), each on its own, against their contracts written out as
 * plain loops with one fmaf per term in the documented order, bit for bit.  Every
 * combination hd_dw_erow_takes accepts (chunks of 7, 8, 14 and 16 results; 3 taps at stride 1
 * and 2 with either end column left out; 2 taps cut at the right; 1 tap), 0 to 3 source rows,
 * pixel strides of one block (16), of three blocks (48) and an odd one (20), result strides
 * of one and two pixels, alpha/beta with beta = 0 over NaN, and streaming stores asked for on
 * an aligned and a misaligned result, and calls over several channel blocks back to back (3
 * and 9 blocks of an NHWC row, 2 in a wider pixel).  Source rows are allocated to their exact length, so a
 * read past a chunk's last column is caught by the ASan run.  Without AVX-512 (or under
 * HOSTDNN_MAX_ISA below it) there is no such kernel and the test says so.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/dwconv/dwconv-ukernels.h"

static uint32_t rng = 4711u;
static float rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(((rng >> 8) & 0xFFFF) / 32768.0 - 1.0);
}

typedef struct {
    int64_t nb, S, cs, sl, sr;
} ecase;

/* The chunk's columns read from a row: (nb-1)*cs + S, less the ones left out. */
static int64_t ncols(const ecase *e) { return (e->nb - 1) * e->cs + e->S - e->sl - e->sr; }

/* Source rows of exact length (the last column's lanes of the last channel block end the
 * row). */
static float **rows_make(int nr, int64_t cols, int64_t ips, int64_t nblk)
{
    float **r = malloc(sizeof(float *) * 3);
    for (int i = 0; i < 3; i++) {
        size_t len = (size_t)(ips * (cols - 1) + 16 * nblk);
        r[i] = i < nr ? malloc(sizeof(float) * len) : NULL;
        for (size_t k = 0; i < nr && k < len; k++)
            r[i][k] = rnd();
    }
    return r;
}

static void rows_free(float **r)
{
    for (int i = 0; i < 3; i++)
        free(r[i]);
    free(r);
}

/* Whether chunk column m (m = j*cs + t) lies inside the source row. */
static int inside(const ecase *e, int64_t m) { return m >= e->sl && m < (e->nb - 1) * e->cs + e->S - e->sr; }

/* nblk channel blocks in one call (ips and the result pixel stride hold them all); the
 * weights of block b at 56*b, a stride other than 48, so a kernel reading them at the packed
 * stride fails. */
static void check_erow(void (*fn)(const hd_dw_erow_args *), const ecase *e, int nr, int64_t ips, int64_t ops_px,
                       float alpha, float beta, int stream, int misalign, int64_t nblk)
{
    float **rows = rows_make(nr, ncols(e), ips, nblk);
    float w[3][56 * 9];
    const float *wp[3] = {w[0], w[1], w[2]};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 56 * 9; k++)
            w[i][k] = rnd();
    int64_t ops = 16 * ops_px, n_out = ops * e->nb + 64;
    float *buf = aligned_alloc(64, (size_t)n_out * sizeof(float) + 64), *out = buf + (misalign ? 4 : 0);
    float *want = malloc(sizeof(float) * (size_t)n_out);
    for (int64_t k = 0; k < n_out; k++)
        out[k] = want[k] = beta == 0 ? NAN : rnd();
    for (int64_t b = 0; b < nblk; b++)
        for (int64_t j = 0; j < e->nb; j++)
            for (int l = 0; l < 16; l++) {
                float acc = 0.0f;
                for (int i = 0; i < nr; i++)
                    for (int64_t t = 0; t < e->S; t++) {
                        int64_t m = j * e->cs + t;
                        if (inside(e, m))
                            acc = fmaf(w[i][56 * b + 16 * t + l], rows[i][ips * (m - e->sl) + 16 * b + l], acc);
                    }
                float *d = &want[j * ops + 16 * b + l];
                *d = beta == 0 ? alpha * acc : fmaf(beta, *d, alpha * acc);
            }
    hd_dw_erow_args a = {out, ops, (size_t)e->nb, (const float *const *)rows, wp, (size_t)nr, (size_t)e->S,
                         (size_t)e->cs, (int)e->sl, (int)e->sr, alpha, beta, ips, stream,
                         nblk == 1 && misalign ? 0 : (size_t)nblk, 56};
    fn(&a);
    long bad = 0;
    for (int64_t k = 0; k < n_out; k++)
        if (memcmp(&out[k], &want[k], sizeof(float)) != 0)
            bad++;
    CHECK_MSG(bad == 0, "erow nb %lld S %lld cs %lld skip %lld/%lld nr %d ips %lld ops %lld alpha %g beta %g stream %d%s "
              "blocks %lld: %ld floats differ", (long long)e->nb, (long long)e->S, (long long)e->cs,
              (long long)e->sl, (long long)e->sr, nr, (long long)ips, (long long)ops, alpha, beta, stream,
              misalign ? " misaligned" : "", (long long)nblk, bad);
    free(buf), free(want);
    rows_free(rows);
}

/* nblk channel blocks in one call, block b's sums at 64*b (a stride other than 48). */
static void check_ewrow(void (*fn)(const hd_dw_ewrow_args *), const ecase *e, int nr, int64_t ips, int64_t dps,
                        int64_t nblk)
{
    float **rows = rows_make(nr, ncols(e), ips, nblk);
    size_t dlen = (size_t)(dps * (e->nb - 1) + 16 * nblk);
    float *dy = malloc(sizeof(float) * dlen), acc[3][64 * 9], want[3][64 * 9];
    for (size_t k = 0; k < dlen; k++)
        dy[k] = rnd();
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 64 * 9; k++)
            acc[i][k] = want[i][k] = rnd();
    for (int64_t b = 0; b < nblk; b++)
        for (int i = 0; i < nr; i++)
            for (int t = 0; t < 3; t++)
                for (int l = 0; l < 16; l++) {
                    float s = want[i][64 * b + 16 * t + l];
                    for (int64_t j = 0; j < e->nb; j++) {
                        int64_t m = j * e->cs + t;
                        if (inside(e, m))
                            s = fmaf(dy[dps * j + 16 * b + l], rows[i][ips * (m - e->sl) + 16 * b + l], s);
                    }
                    want[i][64 * b + 16 * t + l] = s;
                }
    float *ap[3] = {acc[0], acc[1], acc[2]};
    hd_dw_ewrow_args a = {ap, dy, (size_t)e->nb, (const float *const *)rows, (size_t)nr, (size_t)e->cs,
                          (int)e->sl, (int)e->sr, ips, dps, nblk == 1 ? 0 : (size_t)nblk, 64};
    fn(&a);
    CHECK_MSG(memcmp(acc, want, sizeof acc) == 0,
              "ewrow nb %lld cs %lld skip %lld/%lld nr %d ips %lld dps %lld blocks %lld", (long long)e->nb,
              (long long)e->cs, (long long)e->sl, (long long)e->sr, nr, (long long)ips, (long long)dps,
              (long long)nblk);
    free(dy);
    rows_free(rows);
}

int main(void)
{
    hd_dw_kernels k = hd_f32_dw_select(hd_cpu_isa());
    SECTION("which kernels");
    CHECK((k.erow != NULL) == (hd_cpu_isa() >= HD_ISA_AVX512));
    CHECK((k.ewrow != NULL) == (hd_cpu_isa() >= HD_ISA_AVX512));
    if (!k.erow || !k.ewrow) {
        SKIP("the edge-row kernels (ISA %s: none)", hd_isa_name(hd_cpu_isa()));
        return hd_test_finish();
    }
    SECTION("what the kernels take");
    CHECK(hd_dw_erow_takes(14, 3, 2, 1, 1) && hd_dw_erow_takes(7, 2, 1, 0, 1) && hd_dw_erow_takes(16, 1, 1, 0, 0));
    CHECK(!hd_dw_erow_takes(12, 3, 1, 0, 0) && !hd_dw_erow_takes(14, 3, 3, 0, 0) && !hd_dw_erow_takes(14, 3, 1, 2, 0));
    CHECK(!hd_dw_erow_takes(14, 2, 1, 1, 0) && !hd_dw_erow_takes(14, 1, 1, 0, 1) && !hd_dw_erow_takes(14, 2, 2, 0, 0));
    static const int64_t nbs[] = {7, 8, 14, 16}, ipss[] = {16, 48, 20};
    long combos = 0;
    for (int a = 0; a < 4; a++)
        for (int64_t S = 1; S <= 3; S++)
            for (int64_t cs = 1; cs <= 2; cs++)
                for (int64_t sl = 0; sl <= 1; sl++)
                    for (int64_t sr = 0; sr <= 1; sr++) {
                        ecase e = {nbs[a], S, cs, sl, sr};
                        if (!hd_dw_erow_takes(e.nb, S, cs, sl, sr))
                            continue;
                        combos++;
                        SECTION("erow against its contract");
                        for (int nr = 0; nr <= 3; nr++)
                            for (int p = 0; p < 3; p++) {
                                check_erow(k.erow, &e, nr, ipss[p], 1, 1.0f, 0.0f, 0, 0, 1);
                                check_erow(k.erow, &e, nr, ipss[p], 2, 0.5f, 2.0f, 0, 1, 1);
                            }
                        SECTION("erow, streaming stores asked for");
                        check_erow(k.erow, &e, 3, 48, 3, 1.5f, 0.0f, 1, 0, 1);
                        check_erow(k.erow, &e, 3, 48, 3, 1.5f, 0.0f, 1, 1, 1);
                        check_erow(k.erow, &e, 2, 16, 1, 1.0f, 0.25f, 1, 0, 1);   /* beta: never streamed */
                        SECTION("erow over several channel blocks in one call");
                        for (int nr = 0; nr <= 3; nr++) {
                            check_erow(k.erow, &e, nr, 144, 9, 1.0f, 0.0f, 0, 0, 9);
                            check_erow(k.erow, &e, nr, 48, 6, 0.5f, 2.0f, 1, 1, 3);
                            check_erow(k.erow, &e, nr, 40, 2, 1.5f, 0.0f, 1, 0, 2);
                        }
                        if (S == 3) {
                            SECTION("ewrow against its contract");
                            for (int nr = 0; nr <= 3; nr++)
                                for (int p = 0; p < 3; p++)
                                    check_ewrow(k.ewrow, &e, nr, ipss[p], ipss[(p + 1) % 3], 1);
                            SECTION("ewrow over several channel blocks in one call");
                            for (int nr = 0; nr <= 3; nr++) {
                                check_ewrow(k.ewrow, &e, nr, 144, 144, 9);
                                check_ewrow(k.ewrow, &e, nr, 48, 40, 2);
                            }
                        }
                    }
    SECTION("combinations");
    CHECK_EQ_INT(combos, 4 * (8 + 2 + 1));
    return hd_test_finish();
}
