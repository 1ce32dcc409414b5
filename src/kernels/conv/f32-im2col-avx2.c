/*
 * AVX2 versions of the forward solver's panel copies (kernels/conv/im2col-ukernels.h), the
 * twins of f32-im2col-avx512.c for CPUs without AVX-512.  A panel row is made of short runs
 * cut by the padding; here each run is a few masked 8-lane moves (vmaskmov and the masked
 * gather never touch a masked-off lane, so a lane in the padding is never read).  Pure
 * copies: the same bits as the plain C and AVX-512 versions.
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kernels/conv/im2col-ukernels.h"
#include "kernels/transpose/f32-transpose-8x8-avx2.h"

/* Lane i of the result is all ones where bit i of M is set. */
static inline __m256i bitmask8(uint32_t m)
{
    const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)m), sel), sel);
}

/* Store the first n (1..8) lanes of v at d. */
static inline void store_n(float *d, __m256 v, int64_t n)
{
    if (n >= 8)
        _mm256_storeu_ps(d, v);
    else
        _mm256_maskstore_ps(d, bitmask8((1u << n) - 1u), v);
}

void hd_f32_im2col_ukernel_mrun__avx2(float *d, const float *src, int64_t step, const uint8_t *bits, int64_t bit0,
                                      int64_t cnt)
{
    int gather = step != 1 && step * 8 <= INT32_MAX && step * 8 >= -INT32_MAX;
    if (step != 1 && !gather) {
        for (int64_t k = 0; k < cnt; k++)
            d[k] = (bits[(bit0 + k) >> 3] >> ((bit0 + k) & 7)) & 1 ? src[k * step] : 0.0f;
        return;
    }
    if (step == 2) {
        /* stride 2: two masked loads of 8 (even lanes only) and the even lanes of both,
           cheaper than a gather */
        const __m256i lo_ix = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
        const __m256i hi_ix = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
        const __m256i even = _mm256_setr_epi32(-1, 0, -1, 0, -1, 0, -1, 0);
        for (int64_t k0 = 0; k0 < cnt; k0 += 8) {
            uint32_t w;
            int64_t b = bit0 + k0, n = cnt - k0 < 8 ? cnt - k0 : 8;
            memcpy(&w, bits + (b >> 3), sizeof w);
            uint32_t m = (w >> (b & 7)) & ((1u << n) - 1u);
            const float *s = (const float *)((uintptr_t)src + (uintptr_t)(k0 * 2 * (int64_t)sizeof(float)));
            __m256 r;
            if (m == 0xFFu) {
                /* all 8 inside x (most of a row): plain loads of s[0..7] and s[7..14], which
                   end on the last value used, and the even lanes of the first, odd of the
                   second: [lo0 lo2 hi1 hi3 | lo4 lo6 hi5 hi7], middle 64-bit pairs swapped */
                __m256 lo = _mm256_loadu_ps(s), hi = _mm256_loadu_ps(s + 7);
                r = _mm256_shuffle_ps(lo, hi, 0xD8);
            } else {
                __m256i mv = bitmask8(m);
                __m256i mlo = _mm256_and_si256(_mm256_permutevar8x32_epi32(mv, lo_ix), even);
                __m256i mhi = _mm256_and_si256(_mm256_permutevar8x32_epi32(mv, hi_ix), even);
                __m256 lo = _mm256_maskload_ps(s, mlo);
                __m256 hi = _mm256_maskload_ps((const float *)((uintptr_t)s + 8 * sizeof(float)), mhi);
                /* [lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6], middle 64-bit pairs swapped */
                r = _mm256_shuffle_ps(lo, hi, 0x88);
            }
            r = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(r), 0xD8));
            store_n(d + k0, r, n);
        }
        return;
    }
    const __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)step));
    for (int64_t k0 = 0; k0 < cnt; k0 += 8) {
        uint32_t w;
        int64_t b = bit0 + k0, n = cnt - k0 < 8 ? cnt - k0 : 8;
        memcpy(&w, bits + (b >> 3), sizeof w);
        uint32_t m = (w >> (b & 7)) & ((1u << n) - 1u);
        /* the address of lane 0 may lie outside x; only lanes of m are read */
        const float *s = (const float *)((uintptr_t)src + (uintptr_t)(k0 * step * (int64_t)sizeof(float)));
        __m256 x;
        if (m == 0xFFu)
            x = gather ? _mm256_i32gather_ps(s, idx, 4) : _mm256_loadu_ps(s);
        else if (gather)
            x = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), s, idx, _mm256_castsi256_ps(bitmask8(m)), 4);
        else
            x = _mm256_maskload_ps(s, bitmask8(m));
        store_n(d + k0, x, n);
    }
}

/* 8 channels at a time: 8 rows (positions) of 8 loaded, transposed in registers, and stored
 * as 8 k-steps of up to 8 values; T > 8 takes two such row groups. */
void hd_f32_im2col_ukernel_cols__avx2(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt)
{
    for (int64_t i0 = 0; i0 < T; i0 += 8) {
        int64_t t = T - i0 < 8 ? T - i0 : 8;
        for (int64_t k0 = 0; k0 < cnt; k0 += 8) {
            int64_t n = cnt - k0 < 8 ? cnt - k0 : 8;
            __m256i cm = bitmask8((1u << n) - 1u);
            __m256 r[8];
            /* constant indices only (full unrolls): r stays in registers */
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++) {
                const float *s = i < t ? src[i0 + i] : NULL;
                r[i] = !s ? _mm256_setzero_ps() : n == 8 ? _mm256_loadu_ps(s + k0) : _mm256_maskload_ps(s + k0, cm);
            }
            hd_f32_transpose_regs_8x8__avx2(r);
#pragma GCC unroll 8
            for (int k = 0; k < 8; k++)
                if (k < n)
                    store_n(dst + (k0 + k) * ld + i0, r[k], t);
        }
    }
}

void hd_f32_im2col_ukernel_addrow__avx2(float *d, const float *s, int64_t cnt, int64_t step)
{
    int64_t j = 0;
    if (step == 1) {
        for (; j + 8 <= cnt; j += 8)
            _mm256_storeu_ps(d + j, _mm256_add_ps(_mm256_loadu_ps(d + j), _mm256_loadu_ps(s + j)));
    } else if (step == 2) {
        /* 8 values into d[2j .. 2j+14]: d[2j..2j+7] takes them in its even lanes, d[2j+7..2j+14]
           (loaded from 2j+7, so nothing past the last target is touched) in its odd lanes; the
           other lanes are stored back unchanged, the shared d[2j+7] by both stores */
        const __m256i lo_ix = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
        const __m256i hi_ix = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
        for (; j + 8 <= cnt; j += 8) {
            __m256 v = _mm256_loadu_ps(s + j);
            float *q = d + 2 * j;
            __m256 d0 = _mm256_loadu_ps(q), d1 = _mm256_loadu_ps(q + 7);
            __m256 s0 = _mm256_add_ps(d0, _mm256_permutevar8x32_ps(v, lo_ix));
            __m256 s1 = _mm256_add_ps(d1, _mm256_permutevar8x32_ps(v, hi_ix));
            _mm256_storeu_ps(q, _mm256_blend_ps(d0, s0, 0x55));
            _mm256_storeu_ps(q + 7, _mm256_blend_ps(d1, s1, 0xAA));
        }
    }
    for (; j < cnt; j++)
        d[j * step] += s[j];
}
