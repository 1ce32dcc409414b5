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

void hd_f32_im2col_ukernel_spread2__avx512(float *d, const float *v, int64_t nout, float beta)
{
    /* output j of a 16-wide half: v's element (j / 2) for even j, the kept d[j] (index 16 + j
       of the permute's second source) for odd j */
    const __m512i lo = _mm512_setr_epi32(0, 17, 1, 19, 2, 21, 3, 23, 4, 25, 5, 27, 6, 29, 7, 31);
    const __m512i hi = _mm512_setr_epi32(8, 17, 9, 19, 10, 21, 11, 23, 12, 25, 13, 27, 14, 29, 15, 31);
    const __m512 vb = _mm512_set1_ps(beta);
    for (int64_t i = 0; i < nout; i += 32) {
        int64_t left = nout - i < 32 ? nout - i : 32, nv = (left + 1) / 2;
        const __mmask16 mv = (__mmask16)(nv >= 16 ? 0xffffu : (1u << nv) - 1u);
        const __mmask16 m0 = (__mmask16)(left >= 16 ? 0xffffu : (1u << left) - 1u);
        const __mmask16 m1 = (__mmask16)(left <= 16 ? 0u : left >= 32 ? 0xffffu : (1u << (left - 16)) - 1u);
        __m512 x = _mm512_maskz_loadu_ps(mv, v + i / 2), o0 = _mm512_setzero_ps(), o1 = _mm512_setzero_ps();
        if (beta != 0.0f) {
            o0 = _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m0, d + i));
            o1 = _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m1, d + i + 16));
        }
        _mm512_mask_storeu_ps(d + i, m0, _mm512_permutex2var_ps(x, lo, o0));
        _mm512_mask_storeu_ps(d + i + 16, m1, _mm512_permutex2var_ps(x, hi, o1));
    }
}
