/*
 * The strided run copies of the backward filter (src/kernels/conv/bwdf-ukernels.h), each ISA
 * version against a plain loop, bit for bit: run lengths 1 to 40 (whole vectors, tails, and
 * short runs packed back to back, the A panels of the AVX2 GEMM's 6-row tile), destination
 * strides equal to the run or longer (the gaps, and everything past the last run, must stay
 * untouched), source strides shorter and longer than a vector, 1 to 9 runs, and signalling NaN
 * payloads (a pure copy keeps every bit).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/conv/bwdf-ukernels.h"

typedef void (*runs_fn)(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len, int64_t count);

#define SRC_FLOATS 4096
#define DST_FLOATS 2048

static float val(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    if (((*s >> 16) & 31) == 0) {
        uint32_t bits = 0x7fa00001u + (*s & 0xff);   /* signalling NaN with a payload */
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    return (float)((int)(*s >> 20 & 255) - 128) / 8;
}

static void runs(const char *name, runs_fn fn)
{
    SECTION(name);
    static const int64_t sstrides[] = {1, 3, 6, 8, 13, 64};
    unsigned s = 7;
    int bad = 0, cases = 0;
    float *src = malloc(SRC_FLOATS * sizeof(float));
    float *want = malloc(DST_FLOATS * sizeof(float)), *got = malloc(DST_FLOATS * sizeof(float));
    for (int i = 0; i < SRC_FLOATS; i++)
        src[i] = val(&s);
    for (int64_t len = 1; len <= 40; len++)
        for (int64_t extra = 0; extra <= 3; extra += 3)
            for (size_t si = 0; si < sizeof sstrides / sizeof sstrides[0]; si++)
                for (int64_t count = 1; count <= 9; count++) {
                    int64_t dstride = len + extra, sstride = sstrides[si];
                    if (sstride < len && count > 1)
                        sstride = len;   /* runs do not overlap in the source either */
                    for (int i = 0; i < DST_FLOATS; i++)
                        want[i] = got[i] = (float)(i % 11) - 5.0f;
                    const float *sp = src + 5;
                    for (int64_t o = 0; o < count; o++)
                        memcpy(want + 3 + o * dstride, sp + o * sstride, (size_t)len * sizeof(float));
                    fn(got + 3, dstride, sp, sstride, len, count);
                    bad += memcmp(want, got, DST_FLOATS * sizeof(float)) != 0;
                    cases++;
                }
    CHECK_MSG(bad == 0, "%s differs from the plain copy in %d of %d cases", name, bad, cases);
    free(src);
    free(want);
    free(got);
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    if (hw >= HD_ISA_AVX2)
        runs("runs avx2", hd_f32_bwdf_ukernel_runs__avx2);
    else
        SKIP("the AVX2 runs (no AVX2 on this CPU)");
    if (hw >= HD_ISA_AVX512)
        runs("runs avx512", hd_f32_bwdf_ukernel_runs__avx512);
    else
        SKIP("the AVX-512 runs (no AVX-512 on this CPU)");
    return hd_test_finish();
}
