/*
 * The forward solver's panel copies (kernels/conv/im2col-ukernels.h), each ISA's version on
 * its own, against the contract written out here as plain loops; every version must give
 * the same bits.  The masked run (mrun): steps 1, 2 (its own path), 3, 4, 7 and -2, every
 * count up to 40, every bit offset within a byte, random and edge bit patterns; its source
 * ends (or, for a negative step, starts) against an inaccessible page, so a lane whose bit
 * is clear must never be read.  The column copy (cols): T of 1..16, counts up to 40, NULL
 * rows, a destination stride wider than T (the cells past T must stay untouched).  The way
 * back (addrow, d[j*step] += s[j]): steps 1 to 4, counts up to 40, the last target on the
 * last float before an inaccessible page, every other cell unchanged.
 * Versions the CPU (or HOSTDNN_MAX_ISA) does not allow are skipped and say so.
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "guard_pages.h"
#include "core/cpu.h"
#include "kernels/conv/im2col-ukernels.h"

static uint32_t rng = 2024u;
static uint32_t rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

static void mrun_contract(float *d, const float *src, int64_t step, const uint8_t *bits, int64_t bit0, int64_t cnt)
{
    for (int64_t k = 0; k < cnt; k++)
        d[k] = (bits[(bit0 + k) >> 3] >> ((bit0 + k) & 7)) & 1 ? src[k * step] : 0.0f;
}

static void cols_contract(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt)
{
    for (int64_t i = 0; i < T; i++)
        for (int64_t k = 0; k < cnt; k++)
            dst[k * ld + i] = src[i] ? src[i][k] : 0.0f;
}

#define GUARD 7.25f
#define MAXC 40

typedef struct {
    const char *name;
    int isa;
    hd_conv_mrun_fn mrun;
    hd_conv_cols_fn cols;
    hd_conv_addrow_fn addrow;   /* NULL: none for this ISA */
} version;

/* A page of floats followed by an inaccessible one: the last valid float sits at the end. */
static float *fenced_page(size_t *nfl)
{
    size_t pg = hd_test_page_size();
    char *m = hd_test_pages(3);
    if (!m)
        return NULL;
    hd_test_page_none(m, 0);
    hd_test_page_none(m, 2);
    *nfl = pg / sizeof(float);
    return (float *)(void *)(m + pg);
}

/* Bits of a run: the lanes whose source lies in [lo, hi) of the page are set, plus random
 * clear bits among them (kind 1), all of them (kind 0), or alternate (kind 2). */
static void make_bits(uint8_t *bits, int64_t nbytes, int64_t bit0, int64_t cnt, int64_t first, int64_t last, int kind)
{
    memset(bits, 0, (size_t)nbytes);
    for (int64_t k = first; k < last && k < cnt; k++) {
        int on = kind == 0 ? 1 : kind == 1 ? (int)(rnd() & 1) : (int)(k & 1);
        if (on)
            bits[(bit0 + k) >> 3] |= (uint8_t)(1u << ((bit0 + k) & 7));
    }
}

static void test_mrun(const version *V, float *page, size_t nfl)
{
    static const int64_t steps[] = {1, 2, 3, 4, 7, -2};
    uint8_t bits[16];
    float d[MAXC + 8], want[MAXC + 8];
    int all = 1;
    for (size_t si = 0; si < sizeof steps / sizeof steps[0]; si++) {
        int64_t step = steps[si], as = step < 0 ? -step : step;
        for (int64_t cnt = 1; cnt <= MAXC; cnt++)
            for (int64_t bit0 = 0; bit0 < 8; bit0++)
                for (int kind = 0; kind < 3; kind++)
                    for (int edge = 0; edge < 3; edge++) {
                        /* lanes [first, last) lie inside the page; the rest would be outside */
                        int64_t first = edge == 1 ? cnt / 3 : 0, last = edge == 2 ? cnt - cnt / 3 : cnt;
                        int64_t span = (last - first - 1) * as;   /* floats between the first and last read lanes */
                        if (last <= first || span >= (int64_t)nfl)
                            continue;
                        /* forward: the last read lane at the page's end; backward: at its start
                           (lane k reads src + k * step, lanes past LAST would cross the fence) */
                        const float *src;
                        if (step > 0)
                            src = (const float *)((uintptr_t)(page + nfl - 1) - (uintptr_t)((last - 1) * as * 4));
                        else
                            src = (const float *)((uintptr_t)page + (uintptr_t)((last - 1) * as * 4));
                        for (size_t i = 0; i < nfl; i++)
                            page[i] = (float)(int)(rnd() & 0xFFFF) - 32768.0f;
                        make_bits(bits, (int64_t)sizeof bits, bit0, cnt, first, last, kind);
                        for (int i = 0; i < MAXC + 8; i++)
                            d[i] = want[i] = GUARD;
                        mrun_contract(want, src, step, bits, bit0, cnt);
                        V->mrun(d, src, step, bits, bit0, cnt);
                        if (memcmp(d, want, sizeof d)) {
                            if (all)
                                fprintf(stderr, "%s mrun: step %lld cnt %lld bit0 %lld kind %d edge %d differs\n",
                                        V->name, (long long)step, (long long)cnt, (long long)bit0, kind, edge);
                            all = 0;
                        }
                    }
    }
    CHECK_MSG(all, "%s mrun", V->name);
}

static void test_cols(const version *V, float *page, size_t nfl)
{
    int all = 1;
    static float d[MAXC * 20], want[MAXC * 20];
    for (int64_t T = 1; T <= 16; T++)
        for (int64_t cnt = 1; cnt <= MAXC; cnt++)
            for (int nulls = 0; nulls < 2; nulls++) {
                int64_t ld = T + 3;
                const float *src[16];
                for (int64_t i = 0; i < 16; i++) {
                    /* each row ends at the page's end or a random row of it; some NULL */
                    int64_t end = (i & 1) ? (int64_t)nfl : (int64_t)nfl - 1 - (int64_t)(rnd() % 64);
                    src[i] = nulls && (rnd() % 3 == 0) ? NULL : page + end - cnt;
                }
                for (size_t i = 0; i < nfl; i++)
                    page[i] = (float)(int)(rnd() & 0xFFFF) - 32768.0f;
                for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
                    d[i] = want[i] = GUARD;
                cols_contract(want, ld, T, src, cnt);
                V->cols(d, ld, T, src, cnt);
                if (memcmp(d, want, sizeof d)) {
                    if (all)
                        fprintf(stderr, "%s cols: T %lld cnt %lld nulls %d differs\n", V->name, (long long)T,
                                (long long)cnt, nulls);
                    all = 0;
                }
            }
    CHECK_MSG(all, "%s cols", V->name);
}

static void test_addrow(const version *V, float *page, size_t nfl)
{
    int all = 1;
    static float want[4 * MAXC + 16];
    for (int64_t step = 1; step <= 4; step++)
        for (int64_t cnt = 1; cnt <= MAXC; cnt++) {
            int64_t span = (cnt - 1) * step + 1;
            float *d = page + nfl - span;   /* the last target is the page's last float */
            float s[MAXC];
            for (int64_t j = 0; j < cnt; j++)
                s[j] = (float)(int)(rnd() & 0xFFFF) * 0.125f - 4096.0f;
            for (size_t i = 0; i < nfl; i++)
                page[i] = (float)(int)(rnd() & 0xFFFF) * 0.25f - 8192.0f;
            if (cnt & 1)
                d[0] = -0.0f;   /* -0 + s and the untouched cells keep their bits */
            for (int64_t i = 0; i < span + 16 && i < (int64_t)nfl; i++)
                want[i] = page[nfl - span - 16 + i];
            for (int64_t j = 0; j < cnt; j++)
                want[16 + j * step] += s[j];
            V->addrow(d, s, cnt, step);
            if (memcmp(page + nfl - span - 16, want, sizeof(float) * (size_t)(span + 16))) {
                if (all)
                    fprintf(stderr, "%s addrow: step %lld cnt %lld differs\n", V->name, (long long)step, (long long)cnt);
                all = 0;
            }
        }
    CHECK_MSG(all, "%s addrow", V->name);
}

int main(void)
{
    const version vs[] = {
        {"avx2", HD_ISA_AVX2, hd_f32_im2col_ukernel_mrun__avx2, hd_f32_im2col_ukernel_cols__avx2,
         hd_f32_im2col_ukernel_addrow__avx2},
        {"avx512", HD_ISA_AVX512, hd_f32_im2col_ukernel_mrun__avx512, hd_f32_im2col_ukernel_cols__avx512, NULL},
    };
    size_t nfl = 0;
    float *page = fenced_page(&nfl);
    CHECK(page != NULL);
    if (!page)
        return hd_test_finish();
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        SECTION(vs[i].name);
        if (vs[i].isa > (int)hd_cpu_isa()) {
            SKIP("im2col %s: the CPU (or HOSTDNN_MAX_ISA) does not allow it", vs[i].name);
            continue;
        }
        test_mrun(&vs[i], page, nfl);
        test_cols(&vs[i], page, nfl);
        if (vs[i].addrow)
            test_addrow(&vs[i], page, nfl);
    }
    /* the config hands out the widest allowed version, NULL below AVX2 */
    SECTION("config");
    CHECK(hd_f32_im2col_mrun_kernel(HD_ISA_SCALAR) == NULL && hd_f32_im2col_cols_kernel(HD_ISA_SCALAR) == NULL &&
          hd_f32_im2col_addrow_kernel(HD_ISA_SCALAR) == NULL);
    if (hd_cpu_isa() >= HD_ISA_AVX2)
        CHECK(hd_f32_im2col_mrun_kernel(HD_ISA_AVX2) == hd_f32_im2col_ukernel_mrun__avx2 &&
              hd_f32_im2col_cols_kernel(HD_ISA_AVX2) == hd_f32_im2col_ukernel_cols__avx2);
    return hd_test_finish();
}
