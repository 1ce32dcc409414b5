/* Depthwise convolution micro-kernels, AVX-512: 16 output positions (plane kernels) or 16
 * channels (pixel kernels) per vector, masked tails (see dwconv.h).  The templates below are
 * always inlined with constant filter widths and strides, so the 3x3 and 5x5, stride 1 and 2
 * cases get their own unrolled loops; stride-2 rows are de-interleaved with a two-source
 * permute, larger strides gathered. */
#include <immintrin.h>
#include "kernels/conv/dwconv.h"

#define INL static inline __attribute__((always_inline))

INL __mmask16 tail_mask(size_t left) { return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u); }

/* Lanes of the channel block starting at channel c0 (negative for a shifted first block) that
 * fall inside [0, C). */
INL __mmask16 blk_mask(int64_t c0, size_t C)
{
    int64_t lo = c0 < 0 ? -c0 : 0, hi = (int64_t)C - c0;
    if (hi > 16)
        hi = 16;
    return (__mmask16)(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}

/* Channel blocks of a row of C channels shifted by sh. */
INL size_t blk_count(size_t C, size_t sh) { return (C + sh + 15) / 16; }

/* A masked load only where the mask is not full: masked loads measured about half the
 * throughput of plain ones on the development machine. */
INL __m512 load_k(__mmask16 k, const float *p, int full) { return full ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(k, p); }

/* 16 source elements p[0], p[cs], ..., p[15*cs]. */
INL __m512 load_cs(const float *p, size_t cs, __m512i gidx)
{
    if (cs == 1)
        return _mm512_loadu_ps(p);
    if (cs == 2) {
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        return _mm512_permutex2var_ps(_mm512_loadu_ps(p), even, _mm512_loadu_ps(p + 16));
    }
    return _mm512_i32gather_ps(gidx, p, 4);
}

INL __m512i gather_index(size_t cs)
{
    return _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                              _mm512_set1_epi32((int)cs));
}

INL void store_ab(float *dst, __mmask16 k, __m512 acc, __m512 va, float beta)
{
    __m512 r = _mm512_mul_ps(va, acc);
    if (beta != 0.0f)
        r = _mm512_fmadd_ps(_mm512_set1_ps(beta), k == (__mmask16)0xffff ? _mm512_loadu_ps(dst) : _mm512_maskz_loadu_ps(k, dst), r);
    if (k == (__mmask16)0xffff)
        _mm512_storeu_ps(dst, r);
    else
        _mm512_mask_storeu_ps(dst, k, r);
}

/* Pixel kernels' store: non-temporal for a full vector on a cache line of its own when asked
 * (hd_dw_px_args.nt; the kernel ends with sfence). */
INL void store_px(float *dst, __mmask16 k, __m512 acc, __m512 va, float beta, int nt)
{
    if (nt && k == (__mmask16)0xffff && ((uintptr_t)dst & 63) == 0)
        _mm512_stream_ps(dst, _mm512_mul_ps(va, acc));
    else
        store_ab(dst, k, acc, va, beta);
}

/* ---------------- plane row ---------------- */

INL void row_tpl(const hd_dw_row_args *a, size_t S, size_t cs, size_t cd)
{
    __m512i gidx = gather_index(cs);
    __m512 va = _mm512_set1_ps(a->alpha);
    for (size_t o = 0; o < a->n; o += 16) {
        __m512 acc = _mm512_setzero_ps();
        for (size_t i = 0; i < a->nr; i++) {
            const float *r = a->rows[i] + o * cs, *w = a->w[i];
            __m512 t = _mm512_mul_ps(_mm512_set1_ps(w[0]), load_cs(r, cs, gidx));
            #pragma GCC unroll 8
            for (size_t s = 1; s < S; s++)
                t = _mm512_fmadd_ps(_mm512_set1_ps(w[s]), load_cs(r + s * cd, cs, gidx), t);
            acc = i ? _mm512_add_ps(acc, t) : t;
        }
        store_ab(a->out + o, tail_mask(a->n - o), acc, va, a->beta);
    }
}

/* 3x3 with all three rows present: the nine weights stay in registers. */
INL void row33(const hd_dw_row_args *a, size_t cs, size_t cd)
{
    __m512i gidx = gather_index(cs);
    __m512 va = _mm512_set1_ps(a->alpha);
    __m512 w[9];
    #pragma GCC unroll 8
    for (int i = 0; i < 3; i++)
        #pragma GCC unroll 8
        for (int s = 0; s < 3; s++)
            w[i * 3 + s] = _mm512_set1_ps(a->w[i][s]);
    const float *r0 = a->rows[0], *r1 = a->rows[1], *r2 = a->rows[2];
    for (size_t o = 0; o < a->n; o += 16) {
        size_t b = o * cs;
        __m512 t0 = _mm512_mul_ps(w[0], load_cs(r0 + b, cs, gidx));
        __m512 t1 = _mm512_mul_ps(w[3], load_cs(r1 + b, cs, gidx));
        __m512 t2 = _mm512_mul_ps(w[6], load_cs(r2 + b, cs, gidx));
        t0 = _mm512_fmadd_ps(w[1], load_cs(r0 + b + cd, cs, gidx), t0);
        t1 = _mm512_fmadd_ps(w[4], load_cs(r1 + b + cd, cs, gidx), t1);
        t2 = _mm512_fmadd_ps(w[7], load_cs(r2 + b + cd, cs, gidx), t2);
        t0 = _mm512_fmadd_ps(w[2], load_cs(r0 + b + 2 * cd, cs, gidx), t0);
        t1 = _mm512_fmadd_ps(w[5], load_cs(r1 + b + 2 * cd, cs, gidx), t1);
        t2 = _mm512_fmadd_ps(w[8], load_cs(r2 + b + 2 * cd, cs, gidx), t2);
        store_ab(a->out + o, tail_mask(a->n - o), _mm512_add_ps(_mm512_add_ps(t0, t1), t2), va, a->beta);
    }
}

/* 3x3, stride and dilation 1, three rows: each row is read once per block (the next block's
 * low half is this block's high half) and the shifted taps are built with valignd. */
static void row33_s1(const hd_dw_row_args *a)
{
    __m512 va = _mm512_set1_ps(a->alpha);
    __m512 w[9];
    for (int i = 0; i < 3; i++)
        for (int s = 0; s < 3; s++)
            w[i * 3 + s] = _mm512_set1_ps(a->w[i][s]);
    const float *r0 = a->rows[0], *r1 = a->rows[1], *r2 = a->rows[2];
    __m512 l0 = _mm512_loadu_ps(r0), l1 = _mm512_loadu_ps(r1), l2 = _mm512_loadu_ps(r2);
    for (size_t o = 0; o < a->n; o += 16) {
        __m512 h0 = _mm512_loadu_ps(r0 + o + 16), h1 = _mm512_loadu_ps(r1 + o + 16), h2 = _mm512_loadu_ps(r2 + o + 16);
        __m512 t0 = _mm512_mul_ps(w[0], l0), t1 = _mm512_mul_ps(w[3], l1), t2 = _mm512_mul_ps(w[6], l2);
#define SHIFT(h, l, n) _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(h), _mm512_castps_si512(l), n))
        t0 = _mm512_fmadd_ps(w[1], SHIFT(h0, l0, 1), t0);
        t1 = _mm512_fmadd_ps(w[4], SHIFT(h1, l1, 1), t1);
        t2 = _mm512_fmadd_ps(w[7], SHIFT(h2, l2, 1), t2);
        t0 = _mm512_fmadd_ps(w[2], SHIFT(h0, l0, 2), t0);
        t1 = _mm512_fmadd_ps(w[5], SHIFT(h1, l1, 2), t1);
        t2 = _mm512_fmadd_ps(w[8], SHIFT(h2, l2, 2), t2);
        store_ab(a->out + o, tail_mask(a->n - o), _mm512_add_ps(_mm512_add_ps(t0, t1), t2), va, a->beta);
        l0 = h0, l1 = h1, l2 = h2;
    }
}

void hd_f32_dw_row__avx512(const hd_dw_row_args *a)
{
    size_t S = a->S, cs = a->cs, cd = a->cd;
    if (S == 3 && a->nr == 3 && cd == 1 && cs == 1)
        row33_s1(a);
    else if (S == 3 && a->nr == 3 && cd == 1 && cs == 2)
        row33(a, 2, 1);
    else if (S == 3 && cs == 1)
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

/* Constant S: the S accumulators of a source row stay in registers over the row. */
INL void wrow_tpl(const hd_dw_wrow_args *a, size_t S, size_t cs, size_t cd)
{
    __m512i gidx = gather_index(cs);
    for (size_t i = 0; i < a->nr; i++) {
        float *acc = a->acc[i];
        const float *r = a->rows[i];
        __m512 v[8];
        #pragma GCC unroll 8
        for (size_t s = 0; s < S; s++)
            v[s] = _mm512_loadu_ps(acc + s * 16);
        for (size_t o = 0; o < a->n; o += 16) {
            __m512 d = a->n - o >= 16 ? _mm512_loadu_ps(a->dy + o) : _mm512_maskz_loadu_ps(tail_mask(a->n - o), a->dy + o);
            #pragma GCC unroll 8
            for (size_t s = 0; s < S; s++)
                v[s] = _mm512_fmadd_ps(d, load_cs(r + o * cs + s * cd, cs, gidx), v[s]);
        }
        #pragma GCC unroll 8
        for (size_t s = 0; s < S; s++)
            _mm512_storeu_ps(acc + s * 16, v[s]);
    }
}

/* Any S: one tap at a time. */
static void wrow_any(const hd_dw_wrow_args *a)
{
    size_t cs = a->cs;
    __m512i gidx = gather_index(cs);
    for (size_t i = 0; i < a->nr; i++)
        for (size_t s = 0; s < a->S; s++) {
            float *acc = a->acc[i] + s * 16;
            const float *r = a->rows[i] + s * a->cd;
            __m512 v = _mm512_loadu_ps(acc);
            for (size_t o = 0; o < a->n; o += 16)
                v = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail_mask(a->n - o), a->dy + o), load_cs(r + o * cs, cs, gidx),
                                    v);
            _mm512_storeu_ps(acc, v);
        }
}

/* 3 taps, stride and dilation 1, three rows: nine accumulators; each block loads dy once and
 * each row once, the shifted taps come from valignd. */
static void wrow33_s1(const hd_dw_wrow_args *a)
{
    float *const *acc = a->acc;
    __m512 v[9];
    for (int i = 0; i < 3; i++)
        for (int s = 0; s < 3; s++)
            v[i * 3 + s] = _mm512_loadu_ps(acc[i] + s * 16);
    const float *r0 = a->rows[0], *r1 = a->rows[1], *r2 = a->rows[2];
    __m512 l0 = _mm512_loadu_ps(r0), l1 = _mm512_loadu_ps(r1), l2 = _mm512_loadu_ps(r2);
    for (size_t o = 0; o < a->n; o += 16) {
        __m512 d = a->n - o >= 16 ? _mm512_loadu_ps(a->dy + o) : _mm512_maskz_loadu_ps(tail_mask(a->n - o), a->dy + o);
        __m512 h0 = _mm512_loadu_ps(r0 + o + 16), h1 = _mm512_loadu_ps(r1 + o + 16), h2 = _mm512_loadu_ps(r2 + o + 16);
        v[0] = _mm512_fmadd_ps(d, l0, v[0]);
        v[3] = _mm512_fmadd_ps(d, l1, v[3]);
        v[6] = _mm512_fmadd_ps(d, l2, v[6]);
        v[1] = _mm512_fmadd_ps(d, SHIFT(h0, l0, 1), v[1]);
        v[4] = _mm512_fmadd_ps(d, SHIFT(h1, l1, 1), v[4]);
        v[7] = _mm512_fmadd_ps(d, SHIFT(h2, l2, 1), v[7]);
        v[2] = _mm512_fmadd_ps(d, SHIFT(h0, l0, 2), v[2]);
        v[5] = _mm512_fmadd_ps(d, SHIFT(h1, l1, 2), v[5]);
        v[8] = _mm512_fmadd_ps(d, SHIFT(h2, l2, 2), v[8]);
        l0 = h0, l1 = h1, l2 = h2;
    }
    for (int i = 0; i < 3; i++)
        for (int s = 0; s < 3; s++)
            _mm512_storeu_ps(acc[i] + s * 16, v[i * 3 + s]);
}

void hd_f32_dw_wrow__avx512(const hd_dw_wrow_args *a)
{
    size_t S = a->S, cs = a->cs, cd = a->cd;
    if (S == 3 && cs == 1 && cd == 1 && a->nr == 3)
        wrow33_s1(a);
    else if (S == 3 && cs == 1)
        wrow_tpl(a, 3, 1, cd);
    else if (S == 3 && cs == 2)
        wrow_tpl(a, 3, 2, cd);
    else if (S == 5 && cs == 1)
        wrow_tpl(a, 5, 1, cd);
    else if (S == 5 && cs == 2)
        wrow_tpl(a, 5, 2, cd);
    else
        wrow_any(a);
}

/* ---------------- pixel row ---------------- */

/* NB pixels, all inside (no border test), one channel block: source row i from rows[i] + xoff,
 * its weights from w + wo[i]; everything the loop needs is in locals. */
INL void px_body(const float *const *rows, const size_t *wo, size_t nrows, const float *w, int64_t xoff,
                 int64_t step, int64_t sd, int NB, size_t S, int full, __mmask16 k, float *dst, int64_t ops,
                 __m512 va, float beta, int CS, int CD, int64_t ips, int nt)
{
    __m512 acc[8];
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++)
        acc[j] = _mm512_setzero_ps();
#pragma GCC unroll 4
    for (size_t i = 0; i < nrows; i++) {
        const float *p = rows[i] + xoff, *wt = w + wo[i];
        if (CS) {
            /* constant stride and dilation: source pixel m serves tap s of pixel j when
             * m = j*CS + s*CD, so each source vector is loaded once per block (taps of every
             * accumulator still arrive in increasing s) */
            __m512 wv[8];
#pragma GCC unroll 8
            for (size_t t = 0; t < S; t++)
                wv[t] = _mm512_loadu_ps(wt + t * 16);
#pragma GCC unroll 32
            for (int m = 0; m <= (NB - 1) * CS + ((int)S - 1) * CD; m++) {
                __m512 xv = load_k(k, p + m * ips, full);
#pragma GCC unroll 8
                for (int t = 0; t < (int)S; t++) {
                    int r = m - t * CD;
                    if (r >= 0 && r % CS == 0 && r / CS < NB)
                        acc[r / CS] = _mm512_fmadd_ps(wv[t], xv, acc[r / CS]);
                }
            }
            continue;
        }
#pragma GCC unroll 8
        for (size_t s = 0; s < S; s++) {
            __m512 wv = _mm512_loadu_ps(wt + s * 16);
            const float *q = p + (int64_t)s * sd;
#pragma GCC unroll 8
            for (int j = 0; j < NB; j++)
                acc[j] = _mm512_fmadd_ps(wv, load_k(k, q + j * step, full), acc[j]);
        }
    }
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++)
        store_px(dst + j * ops, k, acc[j], va, beta, nt);
}

/* NB pixels from o, all inside, every channel block.  NR: the number of source rows when it
 * is a compile-time constant (0: a->nr). */
INL void px_inside(const hd_dw_px_args *a, const size_t *wo, int64_t o, int NB, size_t S, size_t NR, int CS, int CD)
{
    size_t nrows = NR ? NR : a->nr;
    int64_t step = a->cs * a->ips, sd = a->cd * a->ips, xoff = (o * a->cs - a->pad) * a->ips;
    __m512 va = _mm512_set1_ps(a->alpha);
    float *dst = a->out + o * a->ops;
    const float *w = a->w;
    size_t nb = blk_count(a->C, a->sh);
    for (size_t b = 0; b < nb; b++, w += a->RS * 16) {
        int64_t c0 = (int64_t)(b * 16) - (int64_t)a->sh;
        if (c0 >= 0 && c0 + 16 <= (int64_t)a->C)
            px_body(a->rows, wo, nrows, w, xoff + c0, step, sd, NB, S, 1, 0xffff, dst + c0, a->ops, va, a->beta, CS,
                    CD, a->ips, a->nt);
        else
            px_body(a->rows, wo, nrows, w, xoff + c0, step, sd, NB, S, 0, blk_mask(c0, a->C), dst + c0, a->ops, va,
                    a->beta, CS, CD, a->ips, 0);
    }
}

/* One pixel with a border test per tap, every channel block: four blocks at a time, so four
 * independent sums hide the multiply-add latency. */
static void px_edge_all(const hd_dw_px_args *a, int64_t o)
{
    __m512 va = _mm512_set1_ps(a->alpha);
    size_t nb = blk_count(a->C, a->sh);
    for (size_t b0 = 0; b0 < nb; b0 += 4) {
        size_t m = nb - b0 < 4 ? nb - b0 : 4;
        __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
        __mmask16 k[4];
        int64_t c0[4];
        for (size_t u = 0; u < 4; u++) {
            c0[u] = (int64_t)((b0 + u) * 16) - (int64_t)a->sh;
            k[u] = u < m ? blk_mask(c0[u], a->C) : 0;
        }
        for (size_t i = 0; i < a->nr; i++) {
            const float *wt = a->w + (b0 * a->RS + a->rtap[i] * a->S) * 16;
            for (size_t s = 0; s < a->S; s++) {
                int64_t q = hd_dw_src(o, (int64_t)s, a->cs, a->pad, a->cd, a->up, a->W);
                if (q < 0)
                    continue;
                const float *x = a->rows[i] + q * a->ips;
                for (size_t u = 0; u < m; u++)
                    acc[u] = _mm512_fmadd_ps(_mm512_loadu_ps(wt + (u * a->RS + s) * 16),
                                             _mm512_maskz_loadu_ps(k[u], x + c0[u]), acc[u]);
            }
        }
        for (size_t u = 0; u < m; u++)
            store_ab(a->out + o * a->ops + c0[u], k[u], acc[u], va, a->beta);
    }
}

/* Pixel blocks outside, channel blocks inside (measured faster than the other order). */
INL void px_tpl(const hd_dw_px_args *a, size_t S, size_t NR, int CS, int CD)
{
    int64_t n = (int64_t)a->n, lo = n, hi = n;
    size_t wo[16];
    if (a->up == 1 && a->nr <= 16) {
        hd_dw_inside(n, a->W, (int64_t)S, a->cs, a->pad, a->cd, &lo, &hi);
        for (size_t i = 0; i < a->nr; i++)
            wo[i] = a->rtap[i] * S * 16;
    }
    int64_t o = 0;
    for (; o < lo; o++)
        px_edge_all(a, o);
    for (; o + 8 <= hi; o += 8)
        px_inside(a, wo, o, 8, S, NR, CS, CD);
    if (o + 4 <= hi) {          /* the rest in 4, 2, 1: independent accumulators, not one chain */
        px_inside(a, wo, o, 4, S, NR, CS, CD);
        o += 4;
    }
    if (o + 2 <= hi) {
        px_inside(a, wo, o, 2, S, NR, CS, CD);
        o += 2;
    }
    if (o < hi) {
        px_inside(a, wo, o, 1, S, NR, CS, CD);
        o++;
    }
    for (; o < n; o++)
        px_edge_all(a, o);
}

void hd_f32_dw_px__avx512(const hd_dw_px_args *a)
{
    int s1 = a->cs == 1 && a->cd == 1, s2 = a->cs == 2 && a->cd == 1;
    if (a->S == 3 && a->nr == 3 && s1)
        px_tpl(a, 3, 3, 1, 1);
    else if (a->S == 3 && a->nr == 3 && s2)
        px_tpl(a, 3, 3, 2, 1);
    else if (a->S == 3 && s1)
        px_tpl(a, 3, 0, 1, 1);
    else if (a->S == 3 && s2)
        px_tpl(a, 3, 0, 2, 1);
    else if (a->S == 5 && s1)
        px_tpl(a, 5, 0, 1, 1);
    else if (a->S == 5 && s2)
        px_tpl(a, 5, 0, 2, 1);
    else if (a->S == 3)
        px_tpl(a, 3, 0, 0, 0);
    else
        px_tpl(a, a->S, 0, 0, 0);
    if (a->nt)
        _mm_sfence();
}

/* ---------------- pixel weight row ---------------- */

/* Tap s of source row i over pixels [o0, o1) (all inside for that tap). */
INL __m512 pxw_run(const hd_dw_pxw_args *a, __m512 v, const float *row, int64_t c0, __mmask16 k, int64_t s, int64_t o0,
                   int64_t o1)
{
    for (int64_t o = o0; o < o1; o++)
        v = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, a->dy + o * a->dps + c0),
                            _mm512_maskz_loadu_ps(k, row + c0 + (o * a->cs - a->pad + s * a->cd) * a->ips), v);
    return v;
}

/* The three taps of a 3-wide filter over pixels [lo, hi), inside for all three: each dy
 * load serves three multiply-adds. */
INL void pxw3_inside(const hd_dw_pxw_args *a, __m512 *v, const float *row, int64_t c0, __mmask16 k, int64_t lo,
                     int64_t hi, int full)
{
    int64_t step = a->cs * a->ips, sd = a->cd * a->ips;
    const float *p = row + c0 + (lo * a->cs - a->pad) * a->ips, *d = a->dy + lo * a->dps + c0;
    __m512 v0 = v[0], v1 = v[1], v2 = v[2];
    for (int64_t o = lo; o < hi; o++, p += step, d += a->dps) {
        __m512 dv = load_k(k, d, full);
        v0 = _mm512_fmadd_ps(dv, load_k(k, p, full), v0);
        v1 = _mm512_fmadd_ps(dv, load_k(k, p + sd, full), v1);
        v2 = _mm512_fmadd_ps(dv, load_k(k, p + 2 * sd, full), v2);
    }
    v[0] = v0, v[1] = v1, v[2] = v2;
}

/* Stride and dilation 1, full channel block: source pixel q serves taps 0, 1, 2 of outputs
 * q, q-1, q-2, so a sliding window of three source vectors needs one new load per pixel. */
static void pxw3_slide(const hd_dw_pxw_args *a, __m512 *v, const float *row, int64_t c0, int64_t lo, int64_t hi)
{
    if (lo >= hi)
        return;
    int64_t ips = a->ips, dps = a->dps;
    const float *p = row + c0 + (lo - a->pad) * ips, *d = a->dy + lo * dps + c0;
    __m512 v0 = v[0], v1 = v[1], v2 = v[2];
    __m512 xa = _mm512_loadu_ps(p), xb = _mm512_loadu_ps(p + ips);
    for (int64_t o = lo; o < hi; o++, p += ips, d += dps) {
        __m512 dv = _mm512_loadu_ps(d), xc = _mm512_loadu_ps(p + 2 * ips);
        v0 = _mm512_fmadd_ps(dv, xa, v0);
        v1 = _mm512_fmadd_ps(dv, xb, v1);
        v2 = _mm512_fmadd_ps(dv, xc, v2);
        xa = xb, xb = xc;
    }
    v[0] = v0, v[1] = v1, v[2] = v2;
}

/* 3x3 at stride CS (1 or 2) and dilation 1 with all three source rows, one channel block
 * (masked loads only when it is partial): nine sums, one dy load per pixel for the three rows, and the source vectors shared
 * between neighbouring pixels (stride 1: a window of three; stride 2: the last tap of a pixel
 * is the first of the next).  The border pixels of each tap are added before and after, so
 * every sum still runs over the pixels in increasing order. */
INL void pxw33_rows(const hd_dw_pxw_args *a, size_t b, int64_t c0, int64_t lo, int64_t hi, int CS, __mmask16 k,
                    int full)
{
    int64_t n = (int64_t)a->n, ips = a->ips, dps = a->dps;
    int64_t l[3], h[3];
    for (int s = 0; s < 3; s++)
        hd_dw_inside(n, a->W, 1, CS, a->pad - s, 1, &l[s], &h[s]);
    float *acc[3];
    const float *p[3];
    __m512 v[9], xa[3], xb[3];
    for (int i = 0; i < 3; i++) {
        acc[i] = a->acc + (b * a->RS + a->rtap[i] * 3) * 16;
        for (int s = 0; s < 3; s++)
            v[i * 3 + s] = pxw_run(a, _mm512_loadu_ps(acc[i] + s * 16), a->rows[i], c0, k, s, l[s], lo);
        p[i] = a->rows[i] + c0 + (lo * CS - a->pad) * ips;
        xa[i] = load_k(k, p[i], full);
        xb[i] = load_k(k, p[i] + ips, full);
    }
    const float *d = a->dy + lo * dps + c0;
    for (int64_t o = lo; o < hi; o++, d += dps) {
        __m512 dv = load_k(k, d, full);
        int64_t off = (o - lo) * CS * ips;
#pragma GCC unroll 3
        for (int i = 0; i < 3; i++) {
            __m512 x1 = CS == 1 ? xb[i] : load_k(k, p[i] + off + ips, full);
            __m512 x2 = load_k(k, p[i] + off + 2 * ips, full);
            v[i * 3] = _mm512_fmadd_ps(dv, xa[i], v[i * 3]);
            v[i * 3 + 1] = _mm512_fmadd_ps(dv, x1, v[i * 3 + 1]);
            v[i * 3 + 2] = _mm512_fmadd_ps(dv, x2, v[i * 3 + 2]);
            if (CS == 1)
                xa[i] = xb[i], xb[i] = x2;
            else
                xa[i] = x2;
        }
    }
    for (int i = 0; i < 3; i++)
        for (int s = 0; s < 3; s++)
            _mm512_storeu_ps(acc[i] + s * 16, pxw_run(a, v[i * 3 + s], a->rows[i], c0, k, s, hi, h[s]));
}

void hd_f32_dw_pxw__avx512(const hd_dw_pxw_args *a)
{
    int64_t n = (int64_t)a->n, S = (int64_t)a->S;
    int64_t lo, hi;
    hd_dw_inside(n, a->W, S, a->cs, a->pad, a->cd, &lo, &hi);
    for (size_t b = 0; b < blk_count(a->C, a->sh); b++) {
        int64_t c0 = (int64_t)(b * 16) - (int64_t)a->sh;
        __mmask16 k = blk_mask(c0, a->C);
        int full = c0 >= 0 && c0 + 16 <= (int64_t)a->C;
        if (S == 3 && a->nr == 3 && a->cs <= 2 && a->cd == 1 && lo < hi) {
            if (a->cs == 1 && full)
                pxw33_rows(a, b, c0, lo, hi, 1, k, 1);
            else if (a->cs == 1)
                pxw33_rows(a, b, c0, lo, hi, 1, k, 0);
            else if (full)
                pxw33_rows(a, b, c0, lo, hi, 2, k, 1);
            else
                pxw33_rows(a, b, c0, lo, hi, 2, k, 0);
            continue;
        }
        for (size_t i = 0; i < a->nr; i++) {
            float *acc = a->acc + (b * a->RS + a->rtap[i] * a->S) * 16;
            const float *row = a->rows[i];
            if (S == 3 && lo < hi) {            /* the three taps share each dy load inside */
                int64_t l[3], h[3];
                __m512 v[3];
                #pragma GCC unroll 8
                for (int s = 0; s < 3; s++) {
                    hd_dw_inside(n, a->W, 1, a->cs, a->pad - s * a->cd, a->cd, &l[s], &h[s]);
                    v[s] = pxw_run(a, _mm512_loadu_ps(acc + s * 16), row, c0, k, s, l[s], lo);
                }
                if (full && a->cs == 1 && a->cd == 1)
                    pxw3_slide(a, v, row, c0, lo, hi);
                else if (full)
                    pxw3_inside(a, v, row, c0, k, lo, hi, 1);
                else
                    pxw3_inside(a, v, row, c0, k, lo, hi, 0);
                for (int s = 0; s < 3; s++)
                    _mm512_storeu_ps(acc + s * 16, pxw_run(a, v[s], row, c0, k, s, hi, h[s]));
                continue;
            }
            for (int64_t s = 0; s < S; s++) {
                int64_t l, h;
                hd_dw_inside(n, a->W, 1, a->cs, a->pad - s * a->cd, a->cd, &l, &h);
                _mm512_storeu_ps(acc + s * 16, pxw_run(a, _mm512_loadu_ps(acc + s * 16), row, c0, k, s, l, h));
            }
        }
    }
}

/* ---------------- two pixel rows ---------------- */

/* Two output rows, 3x3 filter, constant stride CS along the row: the four source rows each feed
 * row A (filter row k) and row B (filter row k - 1); per accumulator the terms arrive in the
 * order of the one-row kernel (filter rows, then taps), so the sums are bitwise the same. */
INL void px2_body(const float *const *rows, const float *w, int64_t xoff, int NB, int CS, int full, __mmask16 k,
                  float *da, float *db, int64_t ops, __m512 va, float beta, int64_t ips, int nt)
{
    __m512 aa[8], ab[8];
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++)
        aa[j] = _mm512_setzero_ps(), ab[j] = _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int kr = 0; kr < 4; kr++) {
        const float *p = rows[kr] + xoff;
        __m512 wa[3], wb[3];
#pragma GCC unroll 3
        for (int t = 0; t < 3; t++) {
            wa[t] = kr < 3 ? _mm512_loadu_ps(w + (kr * 3 + t) * 16) : _mm512_setzero_ps();
            wb[t] = kr > 0 ? _mm512_loadu_ps(w + ((kr - 1) * 3 + t) * 16) : _mm512_setzero_ps();
        }
#pragma GCC unroll 32
        for (int m = 0; m <= (NB - 1) * CS + 2; m++) {
            __m512 xv = load_k(k, p + m * ips, full);
#pragma GCC unroll 3
            for (int t = 0; t < 3; t++) {
                int r = m - t;
                if (r >= 0 && r % CS == 0 && r / CS < NB) {
                    if (kr < 3)
                        aa[r / CS] = _mm512_fmadd_ps(wa[t], xv, aa[r / CS]);
                    if (kr > 0)
                        ab[r / CS] = _mm512_fmadd_ps(wb[t], xv, ab[r / CS]);
                }
            }
        }
    }
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++) {
        store_px(da + j * ops, k, aa[j], va, beta, nt);
        store_px(db + j * ops, k, ab[j], va, beta, nt);
    }
}

INL void px2_inside(const hd_dw_px_args *a, float *out2, int64_t o, int NB, int CS)
{
    int64_t xoff = (o * CS - a->pad) * a->ips;
    __m512 va = _mm512_set1_ps(a->alpha);
    float *da = a->out + o * a->ops, *db = out2 + o * a->ops;
    const float *w = a->w;
    size_t nb = blk_count(a->C, a->sh);
    for (size_t b = 0; b < nb; b++, w += 9 * 16) {
        int64_t c0 = (int64_t)(b * 16) - (int64_t)a->sh;
        if (c0 >= 0 && c0 + 16 <= (int64_t)a->C)
            px2_body(a->rows, w, xoff + c0, NB, CS, 1, 0xffff, da + c0, db + c0, a->ops, va, a->beta, a->ips, a->nt);
        else
            px2_body(a->rows, w, xoff + c0, NB, CS, 0, blk_mask(c0, a->C), da + c0, db + c0, a->ops, va, a->beta,
                     a->ips, 0);
    }
}

INL void px2_tpl(const hd_dw_px_args *a, float *out2, int CS)
{
    hd_dw_px_args b = *a;              /* the second row, for the border pixels */
    b.rows = a->rows + 1;
    b.out = out2;
    int64_t n = (int64_t)a->n, lo, hi;
    hd_dw_inside(n, a->W, 3, CS, a->pad, 1, &lo, &hi);
    int64_t o = 0;
    for (; o < lo; o++)
        px_edge_all(a, o), px_edge_all(&b, o);
    for (; o + 8 <= hi; o += 8)
        px2_inside(a, out2, o, 8, CS);
    if (o + 4 <= hi) {
        px2_inside(a, out2, o, 4, CS);
        o += 4;
    }
    if (o + 2 <= hi) {
        px2_inside(a, out2, o, 2, CS);
        o += 2;
    }
    if (o < hi) {
        px2_inside(a, out2, o, 1, CS);
        o++;
    }
    for (; o < n; o++)
        px_edge_all(a, o), px_edge_all(&b, o);
}

void hd_f32_dw_px2__avx512(const hd_dw_px_args *a, float *out2)
{
    if (a->S == 3 && a->nr == 3 && a->up == 1 && a->cd == 1 && a->cs == 1) {
        px2_tpl(a, out2, 1);
    } else if (a->S == 3 && a->nr == 3 && a->up == 1 && a->cd == 1 && a->cs == 2) {
        px2_tpl(a, out2, 2);
    } else {
        hd_dw_px_args b = *a;
        hd_f32_dw_px__avx512(a);
        b.rows = a->rows + 1;
        b.out = out2;
        hd_f32_dw_px__avx512(&b);
    }
    if (a->nt)
        _mm_sfence();
}
