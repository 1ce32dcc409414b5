/*
 * AVX-512 versions of the forward solver's panel copies (kernels/conv/im2col-ukernels.h).
 * A panel row is made of short runs (an output row of a 7x7 or 14x14 image, cut by the
 * padding), so libc's memcpy/memset calls cost more than the copying: here each run is a
 * few masked 16-lane loads and stores (a masked-off lane is never read).
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kernels/conv/im2col-ukernels.h"
#include "kernels/transpose/f32-transpose-16x16-avx512.h"

static inline __mmask16 lanes(int64_t a, int64_t b)   /* lanes [a, b) of 16, clamped */
{
    a = a < 0 ? 0 : a > 16 ? 16 : a;
    b = b < 0 ? 0 : b > 16 ? 16 : b;
    if (b <= a)
        return 0;
    uint32_t hi = b == 16 ? 0xFFFFu : (1u << b) - 1u;
    return (__mmask16)(hi & ~((1u << a) - 1u));
}

static inline uint32_t spread(uint32_t x)   /* the 16 low bits of x to the even bits */
{
    x = (x | (x << 8)) & 0x00FF00FFu;
    x = (x | (x << 4)) & 0x0F0F0F0Fu;
    x = (x | (x << 2)) & 0x33333333u;
    return (x | (x << 1)) & 0x55555555u;
}

void hd_f32_im2col_ukernel_mrun__avx512(float *d, const float *src, int64_t step, const uint8_t *bits, int64_t bit0,
                                        int64_t cnt)
{
    const __m512 zero = _mm512_setzero_ps();
    int gather = step != 1 && step * 16 <= INT32_MAX && step * 16 >= -INT32_MAX;
    if (step != 1 && !gather) {
        for (int64_t k = 0; k < cnt; k++)
            d[k] = (bits[(bit0 + k) >> 3] >> ((bit0 + k) & 7)) & 1 ? src[k * step] : 0.0f;
        return;
    }
    if (step == 2) {
        /* stride 2: two masked loads of 16 and the even lanes of both (cheaper than a gather) */
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        for (int64_t k0 = 0; k0 < cnt; k0 += 16) {
            uint32_t w;
            int64_t b = bit0 + k0;
            memcpy(&w, bits + (b >> 3), sizeof w);
            __mmask16 st = lanes(0, cnt - k0);
            uint32_t v = (w >> (b & 7)) & st;
            uint32_t sp = spread(v);            /* bit i -> bit 2i */
            const float *s = (const float *)((uintptr_t)src + (uintptr_t)(k0 * 2 * (int64_t)sizeof(float)));
            __m512 lo = _mm512_maskz_loadu_ps((__mmask16)(sp & 0xFFFF), s);
            __m512 hi = _mm512_maskz_loadu_ps((__mmask16)(sp >> 16), s + 16);
            _mm512_mask_storeu_ps(d + k0, st, _mm512_permutex2var_ps(lo, even, hi));
        }
        return;
    }
    const __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32((int)step));
    for (int64_t k0 = 0; k0 < cnt; k0 += 16) {
        uint32_t w;
        int64_t b = bit0 + k0;
        memcpy(&w, bits + (b >> 3), sizeof w);
        __mmask16 st = lanes(0, cnt - k0);
        __mmask16 v = (__mmask16)((w >> (b & 7)) & st);
        /* the address of lane 0 may lie outside x; only lanes of v are read */
        const float *s = (const float *)((uintptr_t)src + (uintptr_t)(k0 * step * (int64_t)sizeof(float)));
        __m512 x = gather ? _mm512_mask_i32gather_ps(zero, v, idx, s, 4) : _mm512_mask_loadu_ps(zero, v, s);
        _mm512_mask_storeu_ps(d + k0, st, x);
    }
}

/* 16 channels at a time: T rows (positions) of 16 loaded, transposed in registers, and
 * stored as 16 k-steps of T values (far fewer cycles than a 14-lane gather per step). */
void hd_f32_im2col_ukernel_cols__avx512(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt)
{
    const __mmask16 st = (__mmask16)((1u << T) - 1u);
    for (int64_t k0 = 0; k0 < cnt; k0 += 16) {
        __mmask16 cm = lanes(0, cnt - k0);
        __m512 r[16];
        for (int i = 0; i < 16; i++) {
            r[i] = i < T && src[i] ? _mm512_maskz_loadu_ps(cm, src[i] + k0) : _mm512_setzero_ps();
            if (i < T && src[i] && k0 + 80 < cnt)   /* rows far apart (filters): help the prefetcher */
                _mm_prefetch((const char *)(src[i] + k0 + 64), _MM_HINT_T0);
        }
        hd_f32_transpose_regs_16x16__avx512(r);
        int64_t n = cnt - k0 < 16 ? cnt - k0 : 16;
        for (int64_t k = 0; k < n; k++)
            _mm512_mask_storeu_ps(dst + (k0 + k) * ld, st, r[k]);
    }
}
