/*
 * The forward solver's masked run copy (src/kernels/conv/im2col-ukernels.h), each ISA version
 * against a plain loop, bit for bit: runs of 1 to 70 floats from every bit offset 0 to 9,
 * unit and other strides, random masks (and all set, none set), signalling NaN payloads (a
 * pure copy keeps every bit); nothing past the run is written, and the source is read only
 * where a bit is set (the unset positions hold NaN that must not show up).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/conv/im2col-ukernels.h"

#define SRC 1024
#define DST 128

static void mrun(const char *name, hd_conv_mrun_fn fn)
{
    SECTION(name);
    static const int64_t steps[] = {1, 2, 3, -1};
    unsigned s = 11;
    int bad = 0, cases = 0;
    float *src = malloc(SRC * sizeof(float));
    float want[DST], got[DST];
    uint8_t bits[32];
    for (int pattern = 0; pattern < 3; pattern++)
        for (size_t si = 0; si < sizeof steps / sizeof steps[0]; si++)
            for (int64_t bit0 = 0; bit0 < 10; bit0++)
                for (int64_t cnt = 1; cnt <= 70; cnt++) {
                    int64_t step = steps[si];
                    const float *base = src + (step < 0 ? SRC - 8 : 8);
                    for (int i = 0; i < 32; i++) {
                        s = s * 1103515245u + 12345u;
                        bits[i] = pattern == 0 ? (uint8_t)(s >> 16) : pattern == 1 ? 0xFF : 0;
                    }
                    for (int i = 0; i < SRC; i++) {
                        s = s * 1103515245u + 12345u;
                        uint32_t b = (s >> 20 & 15) == 0 ? 0x7fa00001u + (s & 0xff) : 0;
                        float f = (float)((int)(s >> 20 & 255) - 128) / 8;
                        if (b)
                            memcpy(&f, &b, 4);
                        src[i] = f;
                    }
                    for (int64_t k = 0; k < cnt; k++)   /* unset: never read, so poison them */
                        if (!((bits[(bit0 + k) >> 3] >> ((bit0 + k) & 7)) & 1)) {
                            uint32_t q = 0x7fc0dead;
                            memcpy(&src[(base - src) + k * step], &q, 4);
                        }
                    for (int i = 0; i < DST; i++)
                        want[i] = got[i] = (float)i;
                    for (int64_t k = 0; k < cnt; k++)
                        want[3 + k] = (bits[(bit0 + k) >> 3] >> ((bit0 + k) & 7)) & 1 ? base[k * step] : 0.0f;
                    fn(got + 3, base, step, bits, bit0, cnt);
                    bad += memcmp(want, got, sizeof want) != 0;
                    cases++;
                }
    CHECK_MSG(bad == 0, "%s differs from the plain loop in %d of %d cases", name, bad, cases);
    free(src);
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    if (hw >= HD_ISA_AVX2)
        mrun("mrun avx2", hd_f32_im2col_ukernel_mrun__avx2);
    else
        SKIP("the AVX2 run copy (no AVX2 on this CPU)");
    if (hw >= HD_ISA_AVX512)
        mrun("mrun avx512", hd_f32_im2col_ukernel_mrun__avx512);
    else
        SKIP("the AVX-512 run copy (no AVX-512 on this CPU)");
    return hd_test_finish();
}
