/*
 * The float transpose tiles (src/kernels/transpose/transpose-ukernels.h), each against the scalar
 * tile, bit for bit: every shape up to 40 x 40 (full and partial register tiles), padded
 * leading dimensions, alpha/beta combinations (alpha 1 with beta 0 is a pure copy that keeps
 * NaN payloads), beta 0 over a NaN-filled destination (with beta != 0 the destination holds
 * no NaN: x NaN + y NaN may keep either payload, depending on the compiler's operand order), and the streaming variant on aligned
 * destinations.  Then the batched driver against a direct loop, for every ISA the CPU has,
 * and its streaming path on a large transpose.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/cpu.h"
#include "kernels/transpose/transpose-ukernels.h"

static float val(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    unsigned r = (*s >> 16) & 31;
    uint32_t bits = 0x7fa00001u + (*s & 0xff);    /* signalling NaN with a payload */
    float f;
    if (r == 0) {
        memcpy(&f, &bits, 4);
        return f;
    }
    if (r == 1) return -0.0f;
    return (float)((int)(*s >> 20 & 255) - 128) / 8;
}

/* aligned_alloc wants a size that is a multiple of the alignment */
static float *alloc64(size_t floats)
{
    return aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64);
}

#define LDI 45
#define LDO 48      /* a multiple of 16: rows of the streaming variant start aligned */

static void tiles(const char *name, hd_f32_tile_fn fn, int nt)
{
    SECTION(name);
    static const float ab[4][2] = {{1, 0}, {0.5f, 0}, {1, 0.25f}, {-2, 1}};
    unsigned s = 3;
    int bad = 0;
    float *in = alloc64(40 * LDI);
    float *a = alloc64(40 * LDO), *b = alloc64(40 * LDO);
    for (int r = 1; r <= 40; r++)
        for (int c = 1; c <= 40; c++)
            for (int k = 0; k < 4; k++) {
                float alpha = ab[k][0], beta = ab[k][1];
                if (nt && beta != 0.0f)
                    continue;
                for (int i = 0; i < 40 * LDI; i++)
                    in[i] = val(&s);
                for (int i = 0; i < 40 * LDO; i++)
                    a[i] = b[i] = beta == 0.0f ? NAN : (float)(i % 9) - 4.5f;    /* beta 0: never read */
                hd_f32_transpose_ukernel__scalar(r, c, in, LDI, a, LDO, alpha, beta);
                fn(r, c, in, LDI, b, LDO, alpha, beta);
                bad += memcmp(a, b, sizeof(float) * 40 * LDO) != 0;
            }
    CHECK_MSG(bad == 0, "%s differs from the scalar tile in %d cases", name, bad);
    /* a pure copy keeps every bit, a signalling NaN too */
    uint32_t snan = 0x7fa00123u, got;
    memcpy(&in[0], &snan, 4);
    fn(1, 1, in, LDI, b, LDO, 1.0f, 0.0f);
    memcpy(&got, &b[0], 4);
    CHECK(got == snan);
    free(in);
    free(a);
    free(b);
}

/* hd_f32_transpose against a direct loop, BATCH matrices of ROWS x COLS. */
static int driver_ok(int isa, int threads, int64_t batch, int64_t rows, int64_t cols, float alpha, float beta)
{
    size_t n = (size_t)(batch * rows * cols);
    float *in = alloc64(n), *out = alloc64(n);
    float *want = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        in[i] = (float)((i * 37) % 1001) - 500.0f;
        out[i] = beta == 0.0f ? NAN : (float)(i % 7);
    }
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                size_t o = (size_t)(b * rows * cols + j * rows + i);
                float v = alpha * in[b * rows * cols + i * cols + j];
                want[o] = beta != 0.0f ? v + beta * out[o] : v;
            }
    hd_f32_transpose(isa, threads, batch, rows, cols, in, out, alpha, beta);
    int ok = memcmp(out, want, n * 4) == 0;
    free(in);
    free(out);
    free(want);
    return ok;
}

int main(void)
{
    int hw = (int)hd_cpu()->hw_isa;
    if (hw >= HD_ISA_AVX2)
        tiles("tile avx2", hd_f32_transpose_ukernel__avx2, 0);
    else
        SKIP("the AVX2 tile (no AVX2 on this CPU)");
    if (hw >= HD_ISA_AVX512) {
        tiles("tile avx512", hd_f32_transpose_ukernel__avx512, 0);
        tiles("tile avx512 streaming", hd_f32_transpose_ukernel_nt__avx512, 1);
    } else {
        SKIP("the AVX-512 tiles (no AVX-512 on this CPU)");
    }
    SECTION("driver");
    static const int64_t shapes[][3] = {{1, 1, 1}, {2, 3, 5}, {3, 17, 33}, {2, 64, 300}, {1, 300, 64}, {5, 16, 16},
                                        {1, 1, 1000}, {1, 1000, 1}, {4, 31, 257}};
    int isas[3] = {HD_ISA_SCALAR, HD_ISA_AVX2, HD_ISA_AVX512};
    for (int k = 0; k < 3; k++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int th = 1; th <= 3; th += 2) {
                const int64_t *sh = shapes[si];
                CHECK_MSG(driver_ok(isas[k], th, sh[0], sh[1], sh[2], 1.0f, 0.0f), "isa %d shape %d threads %d", isas[k],
                          (int)si, th);
                CHECK_MSG(driver_ok(isas[k], th, sh[0], sh[1], sh[2], 0.5f, -1.0f), "isa %d shape %d alpha/beta", isas[k],
                          (int)si);
            }
    /* past HD_TRANSPOSE_STREAM_BYTES (streaming stores where the CPU has AVX-512) */
    CHECK(driver_ok(HD_ISA_AVX512, 2, 2, 64, (HD_TRANSPOSE_STREAM_BYTES / 4 / 128) + 40, 1.0f, 0.0f));
    CHECK(driver_ok(HD_ISA_AVX512, 2, 1, 48, (HD_TRANSPOSE_STREAM_BYTES / 4 / 48) + 7, 2.0f, 0.0f));
    CHECK(hd_f32_tile_select(HD_ISA_SCALAR) == hd_f32_transpose_ukernel__scalar);
    return hd_test_finish();
}
