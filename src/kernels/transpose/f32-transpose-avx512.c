/* kernels/transpose/f32-transpose-avx512.c -- tiles by 16x16 register transposes; partial
 * tiles at the edges use masked loads and stores, so every shape runs here.  The _nt variant
 * streams its stores past the caches (for outputs far larger than them). */
#include "kernels/transpose/transpose-ukernels.h"
#include "kernels/transpose/f32-transpose-16x16-avx512.h"

#include <immintrin.h>
#include <stdint.h>

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
            hd_f32_transpose_regs_16x16__avx512(v);
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

void hd_f32_transpose_ukernel__avx512(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo,
                                      float alpha, float beta)
{
    tile(r, c, in, ldi, out, ldo, alpha, beta, 0);
}

void hd_f32_transpose_ukernel_nt__avx512(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo,
                                         float alpha, float beta)
{
    tile(r, c, in, ldi, out, ldo, alpha, 0.0f, 1);
    (void)beta;
}
