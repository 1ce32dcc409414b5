/*
 * The backward filter's run copies (kernels/conv/bwdf-ukernels.h), each ISA's version on its
 * own, against the contract as a plain loop: COUNT runs of LEN floats, run o from
 * src + o * sstride to dst + o * dstride.  Every LEN up to 40, strides narrower and wider than
 * the run, source runs ending against an inaccessible page (nothing past a run may be read),
 * and the destination cells between runs untouched.  Versions the CPU (or HOSTDNN_MAX_ISA)
 * does not allow are skipped and say so.
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "guard_pages.h"
#include "core/cpu.h"
#include "kernels/conv/bwdf-ukernels.h"

#define GUARD 7.25f

typedef void (*runs_fn)(float *, int64_t, const float *, int64_t, int64_t, int64_t);

static void contract(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len, int64_t count)
{
    for (int64_t o = 0; o < count; o++)
        for (int64_t i = 0; i < len; i++)
            dst[o * dstride + i] = src[o * sstride + i];
}

int main(void)
{
    const struct {
        const char *name;
        int isa;
        runs_fn fn;
    } vs[] = {
        {"avx2", HD_ISA_AVX2, hd_f32_bwdf_ukernel_runs__avx2},
        {"avx512", HD_ISA_AVX512, hd_f32_bwdf_ukernel_runs__avx512},
    };
    size_t pg = hd_test_page_size();
    char *m = hd_test_pages(2);
    CHECK(m != NULL);
    if (!m)
        return hd_test_finish();
    hd_test_page_none(m, 1);
    float *page = (float *)(void *)m;
    int64_t nfl = (int64_t)(pg / sizeof(float));
    for (int64_t i = 0; i < nfl; i++)
        page[i] = (float)i + 0.5f;
    static float d[4096], want[4096];
    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++) {
        SECTION(vs[v].name);
        if (vs[v].isa > (int)hd_cpu_isa()) {
            SKIP("bwdf runs %s: the CPU (or HOSTDNN_MAX_ISA) does not allow it", vs[v].name);
            continue;
        }
        int all = 1;
        for (int64_t len = 1; len <= 40; len++)
            for (int64_t count = 1; count <= 9; count++)
                for (int sv = 0; sv < 3; sv++) {
                    int64_t dstride = len + (sv == 0 ? 0 : sv == 1 ? 3 : 9);
                    int64_t sstride = sv == 0 ? len : sv == 1 ? 2 * len + 1 : 6;
                    /* the last run ends on the page's last float */
                    const float *src = page + nfl - ((count - 1) * sstride + len);
                    if ((count - 1) * sstride + len > nfl)
                        continue;
                    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
                        d[i] = want[i] = GUARD;
                    contract(want, dstride, src, sstride, len, count);
                    vs[v].fn(d, dstride, src, sstride, len, count);
                    if (memcmp(d, want, sizeof d)) {
                        if (all)
                            fprintf(stderr, "%s: len %lld count %lld strides %lld/%lld differ\n", vs[v].name,
                                    (long long)len, (long long)count, (long long)dstride, (long long)sstride);
                        all = 0;
                    }
                }
        CHECK_MSG(all, "%s runs", vs[v].name);
    }
    return hd_test_finish();
}
