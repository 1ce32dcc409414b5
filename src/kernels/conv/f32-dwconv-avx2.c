/* Depthwise convolution micro-kernels, AVX2 + FMA: 8 output positions (plane kernels) or 8
 * channels (pixel kernels) per vector, masked tails (see dwconv.h).  Same loop structure as
 * the AVX-512 variant, with constant-width templates for 3x3 and 5x5 at strides 1 and 2. */
#include <immintrin.h>
#include "kernels/conv/dwconv.h"

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

void hd_f32_dw_row__avx2(const hd_dw_row_args *a)
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

void hd_f32_dw_wrow__avx2(const hd_dw_wrow_args *a)
{
    size_t S = a->S, cs = a->cs, cd = a->cd;
    if (S == 3 && cs == 1)
        wrow_tpl(a, 3, 1, cd);
    else if (S == 3 && cs == 2)
        wrow_tpl(a, 3, 2, cd);
    else
        wrow_tpl(a, S, cs, cd);
}

/* ---------------- pixel row ---------------- */

INL void px_inside(const hd_dw_px_args *a, int64_t o, int NB, size_t S)
{
    __m256 va = _mm256_set1_ps(a->alpha);
    int64_t step = a->cs * a->ips;
    for (size_t c0 = 0; c0 < a->C; c0 += 8) {
        __m256i k = tail_mask(a->C - c0);
        __m256 acc[8];
        #pragma GCC unroll 8
        for (int j = 0; j < NB; j++)
            acc[j] = _mm256_setzero_ps();
        for (size_t i = 0; i < a->nr; i++) {
            const float *wt = a->w + (c0 / 16 * a->RS + a->rtap[i] * S) * 16 + c0 % 16;
            const float *p = a->rows[i] + c0 + (o * a->cs - a->pad) * a->ips;
            #pragma GCC unroll 8
            for (size_t s = 0; s < S; s++) {
                __m256 wv = _mm256_loadu_ps(wt + s * 16);
                const float *q = p + (int64_t)s * a->cd * a->ips;
                #pragma GCC unroll 8
                for (int j = 0; j < NB; j++)
                    acc[j] = _mm256_fmadd_ps(wv, _mm256_maskload_ps(q + j * step, k), acc[j]);
            }
        }
        #pragma GCC unroll 8
        for (int j = 0; j < NB; j++)
            store_ab(a->out + (o + j) * a->ops + c0, k, acc[j], va, a->beta);
    }
}

static void px_edge(const hd_dw_px_args *a, int64_t o)
{
    __m256 va = _mm256_set1_ps(a->alpha);
    for (size_t c0 = 0; c0 < a->C; c0 += 8) {
        __m256i k = tail_mask(a->C - c0);
        __m256 acc = _mm256_setzero_ps();
        for (size_t i = 0; i < a->nr; i++) {
            const float *wt = a->w + (c0 / 16 * a->RS + a->rtap[i] * a->S) * 16 + c0 % 16;
            for (size_t s = 0; s < a->S; s++) {
                int64_t q = hd_dw_src(o, (int64_t)s, a->cs, a->pad, a->cd, a->up, a->W);
                if (q >= 0)
                    acc = _mm256_fmadd_ps(_mm256_loadu_ps(wt + s * 16),
                                          _mm256_maskload_ps(a->rows[i] + c0 + q * a->ips, k), acc);
            }
        }
        store_ab(a->out + o * a->ops + c0, k, acc, va, a->beta);
    }
}

INL void px_tpl(const hd_dw_px_args *a, size_t S)
{
    int64_t n = (int64_t)a->n, lo = n, hi = n;
    if (a->up == 1)
        hd_dw_inside(n, a->W, (int64_t)S, a->cs, a->pad, a->cd, &lo, &hi);
    int64_t o = 0;
    for (; o < lo; o++)
        px_edge(a, o);
    for (; o + 6 <= hi; o += 6)
        px_inside(a, o, 6, S);
    for (; o < hi; o++)
        px_inside(a, o, 1, S);
    for (; o < n; o++)
        px_edge(a, o);
}

void hd_f32_dw_px__avx2(const hd_dw_px_args *a)
{
    if (a->S == 3)
        px_tpl(a, 3);
    else if (a->S == 5)
        px_tpl(a, 5);
    else
        px_tpl(a, a->S);
}

/* ---------------- pixel weight row ---------------- */

void hd_f32_dw_pxw__avx2(const hd_dw_pxw_args *a)
{
    int64_t n = (int64_t)a->n, S = (int64_t)a->S;
    for (size_t c0 = 0; c0 < a->C; c0 += 8) {
        __m256i k = tail_mask(a->C - c0);
        for (size_t i = 0; i < a->nr; i++) {
            float *acc = a->acc + (c0 / 16 * a->RS + a->rtap[i] * a->S) * 16 + c0 % 16;
            const float *row = a->rows[i] + c0;
            for (int64_t s = 0; s < S; s++) {
                int64_t l, h;
                hd_dw_inside(n, a->W, 1, a->cs, a->pad - s * a->cd, a->cd, &l, &h);
                __m256 v = _mm256_loadu_ps(acc + s * 16);
                for (int64_t o = l; o < h; o++)
                    v = _mm256_fmadd_ps(_mm256_maskload_ps(a->dy + o * a->dps + c0, k),
                                        _mm256_maskload_ps(row + (o * a->cs - a->pad + s * a->cd) * a->ips, k), v);
                _mm256_storeu_ps(acc + s * 16, v);
            }
        }
    }
}
