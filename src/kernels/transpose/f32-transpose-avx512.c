/* kernels/transpose/f32-transpose-avx512.c -- tiles by 16x16 register transposes; partial
 * tiles at the edges use masked loads and stores, so every shape runs here.  The _nt variant
 * streams its stores past the caches (for outputs far larger than them). */
#include "kernels/transpose/transpose.h"

#include <immintrin.h>
#include <stdint.h>

/* r[k] = row k of a 16x16 block in, column k out: 64 shuffles in four rounds (pairs of
 * elements, of 2-element groups, then 128-bit lanes twice). */
static inline void tr16(__m512 *r)
{
    __m512 t[16], u[16], v[16];
    for (int k = 0; k < 16; k += 2) {
        t[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
    }
    /* u[4q + m] holds rows 4q..4q+3 at columns m, m+4, m+8, m+12 (one per 128-bit lane) */
    for (int q = 0; q < 4; q++) {
        __m512 a = t[4 * q], b = t[4 * q + 1], c = t[4 * q + 2], d = t[4 * q + 3];
        u[4 * q + 0] = _mm512_shuffle_ps(a, c, 0x44);
        u[4 * q + 1] = _mm512_shuffle_ps(a, c, 0xee);
        u[4 * q + 2] = _mm512_shuffle_ps(b, d, 0x44);
        u[4 * q + 3] = _mm512_shuffle_ps(b, d, 0xee);
    }
    /* v[8h + 2m + e]: rows 8h..8h+7 at columns m + 4e and m + 4e + 8 */
    for (int h = 0; h < 2; h++)
        for (int m = 0; m < 4; m++) {
            __m512 a = u[8 * h + m], b = u[8 * h + 4 + m];
            v[8 * h + 2 * m] = _mm512_shuffle_f32x4(a, b, 0x88);
            v[8 * h + 2 * m + 1] = _mm512_shuffle_f32x4(a, b, 0xdd);
        }
    for (int m = 0; m < 4; m++)
        for (int e = 0; e < 2; e++) {
            __m512 a = v[2 * m + e], b = v[8 + 2 * m + e];
            r[m + 4 * e] = _mm512_shuffle_f32x4(a, b, 0x88);
            r[m + 4 * e + 8] = _mm512_shuffle_f32x4(a, b, 0xdd);
        }
}

static inline __mmask16 first(int64_t m)
{
    return (__mmask16)(m >= 16 ? 0xffffu : (1u << m) - 1u);
}

/* NT: write whole, 64-byte aligned destination rows of 16 floats with streaming stores
 * (no read for ownership; beta must be 0); other rows take ordinary masked stores. */
static inline void tile(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo, float alpha,
                        float beta, const int nt)
{
    const int plain = alpha == 1.0f && beta == 0.0f;
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    /* column blocks outside, so each group of 16 output rows is finished before the next */
    for (int64_t j = 0; j < c; j += 16) {
        int64_t cc = c - j < 16 ? c - j : 16;
        __mmask16 cm = first(cc);
        for (int64_t i = 0; i < r; i += 16) {
            int64_t rr = r - i < 16 ? r - i : 16;
            __mmask16 rm = first(rr);
            __m512 v[16];
            const float *src = in + i * ldi + j;
            if (rr == 16 && cc == 16) {
                for (int k = 0; k < 16; k++)
                    v[k] = _mm512_loadu_ps(src + k * ldi);
            } else {
                for (int k = 0; k < 16; k++)
                    v[k] = k < rr ? _mm512_maskz_loadu_ps(cm, src + k * ldi) : _mm512_setzero_ps();
            }
            tr16(v);
            float *dst = out + j * ldo + i;
            for (int k = 0; k < cc; k++) {
                float *o = dst + k * ldo;
                __m512 w = v[k];
                if (!plain) {
                    w = _mm512_mul_ps(va, w);
                    if (beta != 0.0f)
                        w = _mm512_add_ps(w, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(rm, o)));
                }
                if (nt && rr == 16 && ((uintptr_t)o & 63) == 0)
                    _mm512_stream_ps(o, w);
                else
                    _mm512_mask_storeu_ps(o, rm, w);
            }
        }
    }
    if (nt)
        _mm_sfence();    /* the streamed rows are visible before the task counts as done */
}

void hd_f32_tile_avx512(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo, float alpha,
                        float beta)
{
    tile(r, c, in, ldi, out, ldo, alpha, beta, 0);
}

void hd_f32_tile_avx512_nt(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo, float alpha,
                           float beta)
{
    tile(r, c, in, ldi, out, ldo, alpha, 0.0f, 1);
    (void)beta;
}
