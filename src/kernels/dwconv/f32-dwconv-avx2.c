/* Depthwise convolution micro-kernels, AVX2 + FMA: 8 output positions (plane kernels) or 8
 * channels (blocked kernels: two halves of a 16-channel block) per vector, masked tails (see
 * dwconv-ukernels.h).  Same loop structure as the AVX-512 variant, with constant-width
 * templates for 3x3 and 5x5 at strides 1 and 2. */
#include <immintrin.h>
#include "kernels/dwconv/dwconv-ukernels.h"

#define INL static inline __attribute__((always_inline))

INL __m256i tail_mask(size_t left)
{
    int m = left >= 8 ? 8 : (int)left;
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(m), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* 8 source elements p[0], p[cs], ..., p[7*cs]. */
INL __m256 load_cs(const float *p, size_t cs, __m256i gidx)
{
    if (cs == 1)
        return _mm256_loadu_ps(p);
    if (cs == 2) {
        __m256 e = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0x88);   /* 0 2 8 10 4 6 12 14 */
        return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xd8));
    }
    return _mm256_i32gather_ps(p, gidx, 4);
}

INL __m256i gather_index(size_t cs)
{
    return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)cs));
}

INL void store_ab(float *dst, __m256i k, __m256 acc, __m256 va, float beta)
{
    __m256 r = _mm256_mul_ps(va, acc);
    if (beta != 0.0f)
        r = _mm256_fmadd_ps(_mm256_set1_ps(beta), _mm256_maskload_ps(dst, k), r);
    _mm256_maskstore_ps(dst, k, r);
}

/* ---------------- plane row ---------------- */

INL void row_tpl(const hd_dw_row_args *a, size_t S, size_t cs, size_t cd)
{
    __m256i gidx = gather_index(cs);
    __m256 va = _mm256_set1_ps(a->alpha);
    for (size_t o = 0; o < a->n; o += 8) {
        __m256 acc = _mm256_setzero_ps();
        for (size_t i = 0; i < a->nr; i++) {
            const float *r = a->rows[i] + o * cs, *w = a->w[i];
            __m256 t = _mm256_mul_ps(_mm256_set1_ps(w[0]), load_cs(r, cs, gidx));
            #pragma GCC unroll 8
            for (size_t s = 1; s < S; s++)
                t = _mm256_fmadd_ps(_mm256_set1_ps(w[s]), load_cs(r + s * cd, cs, gidx), t);
            acc = i ? _mm256_add_ps(acc, t) : t;
        }
        store_ab(a->out + o, tail_mask(a->n - o), acc, va, a->beta);
    }
}

void hd_f32_dwconv_ukernel_row__avx2(const hd_dw_row_args *a)
{
    size_t S = a->S, cs = a->cs, cd = a->cd;
    if (S == 3 && cs == 1)
        row_tpl(a, 3, 1, cd);
    else if (S == 3 && cs == 2)
        row_tpl(a, 3, 2, cd);
    else if (S == 5 && cs == 1)
        row_tpl(a, 5, 1, cd);
    else if (S == 5 && cs == 2)
        row_tpl(a, 5, 2, cd);
    else
        row_tpl(a, S, cs, cd);
}

/* ---------------- plane weight row ---------------- */

/* Output position o adds into lane o % 16: the 8-wide blocks alternate between the low and
 * the high half of each tap's 16 accumulators. */
INL void wrow_tpl(const hd_dw_wrow_args *a, size_t S, size_t cs, size_t cd)
{
    __m256i gidx = gather_index(cs);
    for (size_t i = 0; i < a->nr; i++) {
        float *acc = a->acc[i];
        const float *r = a->rows[i];
        #pragma GCC unroll 8
        for (size_t s = 0; s < S; s++) {
            __m256 v0 = _mm256_loadu_ps(acc + s * 16), v1 = _mm256_loadu_ps(acc + s * 16 + 8);
            const float *rs = r + s * cd;
            for (size_t o = 0; o < a->n; o += 16) {
                v0 = _mm256_fmadd_ps(_mm256_maskload_ps(a->dy + o, tail_mask(a->n - o)), load_cs(rs + o * cs, cs, gidx),
                                     v0);
                if (o + 8 < a->n)
                    v1 = _mm256_fmadd_ps(_mm256_maskload_ps(a->dy + o + 8, tail_mask(a->n - o - 8)),
                                         load_cs(rs + (o + 8) * cs, cs, gidx), v1);
            }
            _mm256_storeu_ps(acc + s * 16, v0);
            _mm256_storeu_ps(acc + s * 16 + 8, v1);
        }
    }
}

void hd_f32_dwconv_ukernel_wrow__avx2(const hd_dw_wrow_args *a)
{
    size_t S = a->S, cs = a->cs, cd = a->cd;
    if (S == 3 && cs == 1)
        wrow_tpl(a, 3, 1, cd);
    else if (S == 3 && cs == 2)
        wrow_tpl(a, 3, 2, cd);
    else
        wrow_tpl(a, S, cs, cd);
}

/* ---------------- blocked rows ---------------- */

/* Lanes 8h..8h+7 of a 16-lane mask as an AVX2 mask. */
INL __m256i half_mask(unsigned mask, int h)
{
    __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i m = _mm256_set1_epi32((int)((mask >> (8 * h)) & 0xffu));
    return _mm256_cmpeq_epi32(_mm256_and_si256(m, bits), bits);
}

/* NB result pixels from o, one half (8 lanes) of the block; per result rows, then taps. */
INL void brow_body(const hd_dw_brow_args *a, size_t o, int NB, size_t S, int h, __m256i k, __m256 va)
{
    __m256 acc[6];
#pragma GCC unroll 6
    for (int j = 0; j < NB; j++)
        acc[j] = _mm256_setzero_ps();
    for (size_t i = 0; i < a->nr; i++) {
        const int64_t ps = a->ips * (int64_t)a->cs;   /* floats from one result's source to the next */
        const float *p = a->rows[i] + ps * (int64_t)o + 8 * h, *w = a->w[i] + 8 * h;
#pragma GCC unroll 8
        for (size_t s = 0; s < S; s++) {
            __m256 wv = _mm256_loadu_ps(w + 16 * s);
            const float *q = p + a->ips * (int64_t)(s * a->cd);
#pragma GCC unroll 6
            for (int j = 0; j < NB; j++)
                acc[j] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(q + ps * j), acc[j]);
        }
    }
#pragma GCC unroll 6
    for (int j = 0; j < NB; j++)
        store_ab(a->out + (int64_t)(o + (size_t)j) * a->ops + 8 * h, k, acc[j], va, a->beta);
}

INL void brow_tpl(const hd_dw_brow_args *a, size_t S)
{
    __m256 va = _mm256_set1_ps(a->alpha);
    for (int h = 0; h < 2; h++) {
        if (!((a->mask >> (8 * h)) & 0xffu))
            continue;
        __m256i k = half_mask(a->mask, h);
        size_t o = 0;
        for (; o + 6 <= a->n; o += 6)
            brow_body(a, o, 6, S, h, k, va);
        for (; o < a->n; o++)
            brow_body(a, o, 1, S, h, k, va);
    }
}

void hd_f32_dwconv_ukernel_brow__avx2(const hd_dw_brow_args *a)
{
    if (a->S == 3)
        brow_tpl(a, 3);
    else if (a->S == 5)
        brow_tpl(a, 5);
    else
        brow_tpl(a, a->S);
}

/* ---------------- blocked weight rows ---------------- */

INL void bwrow_tpl(const hd_dw_bwrow_args *a, size_t S)
{
    for (int h = 0; h < 2; h++)
        for (size_t i = 0; i < a->nr; i++) {
            const float *p = a->rows[i] + 8 * h;
            __m256 v[8];
#pragma GCC unroll 8
            for (size_t s = 0; s < S; s++)
                v[s] = _mm256_loadu_ps(a->acc[i] + 16 * s + 8 * h);
            for (size_t o = 0; o < a->n; o++) {
                __m256 dv = _mm256_loadu_ps(a->dy + a->dps * (int64_t)o + 8 * h);
#pragma GCC unroll 8
                for (size_t s = 0; s < S; s++)
                    v[s] = _mm256_fmadd_ps(dv, _mm256_loadu_ps(p + a->ips * (int64_t)(o * a->cs + s * a->cd)), v[s]);
            }
#pragma GCC unroll 8
            for (size_t s = 0; s < S; s++)
                _mm256_storeu_ps(a->acc[i] + 16 * s + 8 * h, v[s]);
        }
}

void hd_f32_dwconv_ukernel_bwrow__avx2(const hd_dw_bwrow_args *a)
{
    if (a->S == 3)
        bwrow_tpl(a, 3);
    else if (a->S == 5)
        bwrow_tpl(a, 5);
    else
        hd_f32_dwconv_ukernel_bwrow__scalar(a);
}

/* ---------------- gather ---------------- */

void hd_f32_dwconv_ukernel_gather__avx2(float *dst, int64_t dbs, const float *src, size_t n, int64_t cstr, int64_t pstr,
                                        size_t nc, const float *end)
{
    (void)end;
    if (cstr != 1) {
        hd_f32_dwconv_ukernel_gather__scalar(dst, dbs, src, n, cstr, pstr, nc, end);
        return;
    }
    size_t nh = (nc + 7) / 8, nfull = nc / 8;
    __m256i kt = tail_mask(nc % 8);
    for (size_t i = 0; i < n; i++) {
        const float *p = src + (int64_t)i * pstr;
        float *d = dst + 16 * i;
        for (size_t h = 0; h < 2 * ((nc + 15) / 16); h++) {
            __m256 v = h < nfull ? _mm256_loadu_ps(p + 8 * h) : h < nh ? _mm256_maskload_ps(p + 8 * h, kt)
                                                                         : _mm256_setzero_ps();
            _mm256_storeu_ps(d + (int64_t)(h / 2) * dbs + 8 * (h % 2), v);
        }
    }
}
