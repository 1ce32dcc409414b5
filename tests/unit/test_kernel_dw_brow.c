/*
 * The depthwise blocked-row micro-kernels (src/kernels/dwconv/dwconv-ukernels.h: hd_dw_brow_args,
 * hd_dw_bwrow_args, the gather and scatter copies) of the AVX2 variant and of the variant the
 * CPU selects, each on its own, against their contracts written out as plain loops with one
 * fmaf per term in the documented order, bit for bit: 1 to 5 taps, strides 1 to 3, dilation 1
 * and 2, 0 to 3 source rows, 1 to 21 results (every tail of the 8-result blocks), pixel
 * strides of one block (16), of three (48) and an odd one (20), result strides of one and two
 * pixels, all lanes and partial masks (8 lanes, 11 lanes, the high half only), alpha/beta
 * with beta = 0 over NaN, streaming stores asked for.  Source rows are allocated to the exact length the tight contract
 * reads, so a read past a row is caught by the ASan run.  The gather and scatter copies
 * against the scalar ones, channels or pixels contiguous, partial blocks and pixel groups.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/dwconv/dwconv-ukernels.h"

static uint32_t rng = 1234u;
static float rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(((rng >> 8) & 0xFFFF) / 32768.0 - 1.0);
}

typedef struct {
    int64_t n, S, cs, cd, ips, ops_px;
    int nr;
    unsigned mask;
    float alpha, beta;
    int stream;
} bcase;

/* Row length the tight contract reads: ips * ((n-1)*cs + (S-1)*cd) + 16. */
static size_t row_len(const bcase *e) { return (size_t)(e->ips * ((e->n - 1) * e->cs + (e->S - 1) * e->cd) + 16); }

static float **rows_make(int nr, size_t len)
{
    float **r = calloc(3, sizeof(float *));
    for (int i = 0; i < nr; i++) {
        r[i] = malloc(sizeof(float) * len);
        for (size_t k = 0; k < len; k++)
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

static void check_brow(const char *name, void (*fn)(const hd_dw_brow_args *), const bcase *e)
{
    float **rows = rows_make(e->nr, row_len(e));
    float w[3][80];
    const float *wp[3] = {w[0], w[1], w[2]};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 80; k++)
            w[i][k] = rnd();
    int64_t ops = 16 * e->ops_px, n_out = ops * e->n + 16;
    float *out = aligned_alloc(64, sizeof(float) * (size_t)(n_out + 16)), *want = malloc(sizeof(float) * (size_t)n_out);
    for (int64_t k = 0; k < n_out; k++)
        out[k] = want[k] = e->beta == 0 ? NAN : rnd();
    for (int64_t j = 0; j < e->n; j++)
        for (int l = 0; l < 16; l++) {
            if (!(e->mask >> l & 1u))
                continue;
            float acc = 0.0f;
            for (int i = 0; i < e->nr; i++)
                for (int64_t s = 0; s < e->S; s++)
                    acc = fmaf(w[i][16 * s + l], rows[i][e->ips * (j * e->cs + s * e->cd) + l], acc);
            float *d = &want[j * ops + l];
            *d = e->beta == 0 ? e->alpha * acc : fmaf(e->beta, *d, e->alpha * acc);
        }
    hd_dw_brow_args a = {out, ops, (size_t)e->n, (const float *const *)rows, wp, (size_t)e->nr, (size_t)e->S,
                         (size_t)e->cs, (size_t)e->cd, e->alpha, e->beta, e->mask, e->ips, 1, e->stream};
    fn(&a);
    long bad = 0;
    for (int64_t k = 0; k < n_out; k++)
        if (memcmp(&out[k], &want[k], sizeof(float)) != 0)
            bad++;
    CHECK_MSG(bad == 0, "%s brow n %lld S %lld cs %lld cd %lld nr %d ips %lld ops %lld mask %04x beta %g: %ld differ",
              name, (long long)e->n, (long long)e->S, (long long)e->cs, (long long)e->cd, e->nr, (long long)e->ips,
              (long long)ops, e->mask, e->beta, bad);
    free(out), free(want);
    rows_free(rows);
}

static void check_bwrow(const char *name, void (*fn)(const hd_dw_bwrow_args *), const bcase *e, int64_t dps)
{
    float **rows = rows_make(e->nr, row_len(e));
    size_t dlen = (size_t)(dps * (e->n - 1) + 16);
    float *dy = malloc(sizeof(float) * dlen), acc[3][80], want[3][80];
    for (size_t k = 0; k < dlen; k++)
        dy[k] = rnd();
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 80; k++)
            acc[i][k] = want[i][k] = rnd();
    for (int i = 0; i < e->nr; i++)
        for (int64_t s = 0; s < e->S; s++)
            for (int l = 0; l < 16; l++) {
                float v = want[i][16 * s + l];
                for (int64_t o = 0; o < e->n; o++)
                    v = fmaf(dy[dps * o + l], rows[i][e->ips * (o * e->cs + s * e->cd) + l], v);
                want[i][16 * s + l] = v;
            }
    float *ap[3] = {acc[0], acc[1], acc[2]};
    hd_dw_bwrow_args a = {ap, dy, (size_t)e->n, (const float *const *)rows, (size_t)e->nr, (size_t)e->S,
                          (size_t)e->cs, (size_t)e->cd, e->ips, dps};
    fn(&a);
    CHECK_MSG(memcmp(acc, want, sizeof acc) == 0, "%s bwrow n %lld S %lld cs %lld cd %lld nr %d ips %lld dps %lld",
              name, (long long)e->n, (long long)e->S, (long long)e->cs, (long long)e->cd, e->nr, (long long)e->ips,
              (long long)dps);
    free(dy);
    rows_free(rows);
}

static void check_copies(const char *name, hd_dw_gather_fn gather, hd_dw_scatter_fn scatter)
{
    static const size_t ns[] = {1, 5, 8, 14, 23}, ncs[] = {3, 8, 16, 21, 40};
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            for (int pc = 0; pc < 2; pc++) {
                size_t n = ns[a], nc = ncs[b], nb = (nc + 15) / 16;
                /* pc: pixels contiguous (NCHW rows), else channels contiguous (NHWC rows) */
                int64_t cstr = pc ? (int64_t)n + 3 : 1, pstr = pc ? 1 : (int64_t)nc + 2;
                size_t len = (size_t)(pc ? cstr * (int64_t)nc : pstr * (int64_t)n);
                float *src = malloc(sizeof(float) * len), *d1 = malloc(sizeof(float) * nb * 16 * n);
                float *d2 = malloc(sizeof(float) * nb * 16 * n);
                for (size_t k = 0; k < len; k++)
                    src[k] = rnd();
                memset(d1, 0xff, sizeof(float) * nb * 16 * n);
                memset(d2, 0xff, sizeof(float) * nb * 16 * n);
                gather(d1, (int64_t)(16 * n), src, n, cstr, pstr, nc, src + len);
                hd_f32_dwconv_ukernel_gather__scalar(d2, (int64_t)(16 * n), src, n, cstr, pstr, nc, src + len);
                CHECK_MSG(memcmp(d1, d2, sizeof(float) * nb * 16 * n) == 0, "%s gather n %zu nc %zu %s", name, n, nc,
                          pc ? "pixels contiguous" : "channels contiguous");
                for (int bz = 0; bz < 2; bz++) {
                    size_t nl = nc < 16 ? nc : 16;
                    float *o1 = malloc(sizeof(float) * len), *o2 = malloc(sizeof(float) * len);
                    for (size_t k = 0; k < len; k++)
                        o1[k] = o2[k] = rnd();
                    scatter(o1, cstr, pstr, d2, n, nl, 0.75f, bz ? 0.5f : 0.0f);
                    for (size_t l = 0; l < nl; l++)   /* the contract: alpha * s, then fmaf with beta */
                        for (size_t i = 0; i < n; i++) {
                            float *d = o2 + (int64_t)l * cstr + (int64_t)i * pstr, v = 0.75f * d2[16 * i + l];
                            *d = bz ? fmaf(0.5f, *d, v) : v;
                        }
                    CHECK_MSG(memcmp(o1, o2, sizeof(float) * len) == 0, "%s scatter n %zu nl %zu beta %d %s", name, n,
                              nl, bz, pc ? "pixels contiguous" : "channels contiguous");
                    free(o1), free(o2);
                }
                free(src), free(d1), free(d2);
            }
}

static void run_set(const char *name, hd_dw_kernels k)
{
    static const unsigned masks[] = {0xffffu, 0x00ffu, 0x07ffu, 0xff00u};
    static const int64_t ipss[] = {16, 48, 20};
    long cases = 0;
    SECTION("blocked rows");
    for (int64_t S = 1; S <= 5; S++)
        for (int64_t cs = 1; cs <= 3; cs++)
            for (int64_t cd = 1; cd <= 2; cd++)
                for (int64_t n = 1; n <= 21; n += (n < 10 ? 1 : 5))
                    for (int nr = 0; nr <= 3; nr++) {
                        int64_t ips = ipss[(S + n + nr) % 3];
                        unsigned mask = masks[(S + cs + n) % 4];
                        bcase e = {n, S, cs, cd, ips, 1 + (n % 2), nr, mask, 1.25f, (n + nr) % 3 ? 0.0f : -0.5f, 0};
                        check_brow(name, k.brow, &e);
                        /* streaming stores asked for: taken on whole aligned lines, the same bits */
                        e.stream = 1, e.mask = 0xffffu, e.beta = 0.0f;
                        check_brow(name, k.brow, &e);
                        cases += 2;
                    }
    SECTION("blocked weight rows");
    for (int64_t S = 3; S <= 5; S += 2)
        for (int64_t cs = 1; cs <= 2; cs++)
            for (int64_t cd = 1; cd <= 2; cd++)
                for (int64_t n = 1; n <= 21; n += 4)
                    for (int nr = 1; nr <= 3; nr++) {
                        bcase e = {n, S, cs, cd, ipss[(n + nr) % 3], 1, nr, 0xffffu, 1.0f, 0.0f, 0};
                        check_bwrow(name, k.bwrow, &e, (n % 2) ? 16 : 32);
                        cases++;
                    }
    SECTION("gather and scatter");
    check_copies(name, k.gather, k.scatter);
    printf("%s: %ld row cases\n", name, cases);
}

int main(void)
{
    int isa = hd_cpu_isa();
    if (isa >= HD_ISA_AVX2)
        run_set("avx2", hd_f32_dw_select(HD_ISA_AVX2));
    else
        SKIP("the AVX2 depthwise kernels (ISA %s)", hd_isa_name(isa));
    if (isa > HD_ISA_AVX2)
        run_set(hd_isa_name(isa), hd_f32_dw_select(isa));
    return hd_test_finish();
}
