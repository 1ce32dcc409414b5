/* Depthwise convolution micro-kernels, AVX-512: 16 output positions (plane kernels) or 16
 * channels (blocked kernels) per vector (see dwconv-ukernels.h).  The templates below are
 * always inlined with constant filter widths and strides, so the 3x3 and 5x5, stride 1 and 2
 * cases get their own unrolled loops; stride-2 rows are de-interleaved with a two-source
 * permute, larger strides gathered. */
#include <immintrin.h>
#include <stdint.h>
#include "kernels/dwconv/dwconv-ukernels.h"

#define INL static inline __attribute__((always_inline))

INL __mmask16 tail_mask(size_t left) { return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u); }

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

void hd_f32_dwconv_ukernel_row__avx512(const hd_dw_row_args *a)
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

void hd_f32_dwconv_ukernel_wrow__avx512(const hd_dw_wrow_args *a)
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


/* ---------------- blocked rows ---------------- */

INL void st_blk(float *dst, __mmask16 k, int full, __m512 acc, __m512 va, float beta)
{
    __m512 r = _mm512_mul_ps(va, acc);
    if (beta != 0.0f)
        r = _mm512_fmadd_ps(_mm512_set1_ps(beta), full ? _mm512_loadu_ps(dst) : _mm512_maskz_loadu_ps(k, dst), r);
    if (full)
        _mm512_storeu_ps(dst, r);
    else
        _mm512_mask_storeu_ps(dst, k, r);
}

/* st_blk, or with stream set (beta == 0, a whole aligned line) a non-temporal store: the
 * solver asks for it when the call's tensors are too large to stay cached, so the store
 * need not first read the line it overwrites.  The caller fences before its results are
 * handed on. */
INL void st_blk_s(float *dst, __mmask16 k, int full, __m512 acc, __m512 va, float beta, int stream)
{
    if (stream && full && beta == 0.0f && ((uintptr_t)dst & 63) == 0) {
        _mm512_stream_ps(dst, _mm512_mul_ps(va, acc));
        return;
    }
    st_blk(dst, k, full, acc, va, beta);
}

/* NB result pixels from o.  With a constant stride CS and dilation CD (> 0) every source vector
 * is loaded once and feeds each (pixel, tap) that reads it: source pixel m serves tap t of
 * result j when m = j*CS + t*CD, so per result the taps still arrive in increasing order. */
INL void brow_body(const hd_dw_brow_args *a, size_t o, int NB, size_t S, size_t nr, int CS, int CD, __m512 va,
                   __mmask16 k, int full)
{
    __m512 acc[16];
#pragma GCC unroll 16
    for (int j = 0; j < NB; j++)
        acc[j] = _mm512_setzero_ps();
    size_t cs = CS ? (size_t)CS : a->cs, cd = CD ? (size_t)CD : a->cd;
    const int64_t ips = full & 2 ? 16 : a->ips;
#pragma GCC unroll 4
    for (size_t i = 0; i < nr; i++) {
        const float *p = a->rows[i] + ips * (int64_t)(o * cs), *w = a->w[i];
        if (CS) {
            __m512 wv[8];
#pragma GCC unroll 8
            for (size_t t = 0; t < S; t++)
                wv[t] = _mm512_loadu_ps(w + 16 * t);
#pragma GCC unroll 64
            for (int m = 0; m <= (NB - 1) * CS + ((int)S - 1) * CD; m++) {
                __m512 xv = _mm512_loadu_ps(p + ips * m);
#pragma GCC unroll 8
                for (int t = 0; t < (int)S; t++) {
                    int r = m - t * CD;
                    if (r >= 0 && r % CS == 0 && r / CS < NB)
                        acc[r / CS] = _mm512_fmadd_ps(wv[t], xv, acc[r / CS]);
                }
            }
            continue;
        }
        for (size_t s = 0; s < S; s++) {
            __m512 wv = _mm512_loadu_ps(w + 16 * s);
            const float *q = p + ips * (int64_t)(s * cd);
#pragma GCC unroll 16
            for (int j = 0; j < NB; j++)
                acc[j] = _mm512_fmadd_ps(wv, _mm512_loadu_ps(q + ips * (int64_t)((size_t)j * cs)), acc[j]);
        }
    }
#pragma GCC unroll 16
    for (int j = 0; j < NB; j++)
        st_blk_s(a->out + (int64_t)(o + (size_t)j) * a->ops, k, full & 1, acc[j], va, a->beta, a->stream);
}

/* S, NR (0: a->nr), CS and CD (0: a->cs, a->cd) constant where given; pixels 16 at a time
 * (16 independent sums cover the multiply-add latency), then 8, 4, 2, 1. */
INL void brow_tpl(const hd_dw_brow_args *a, size_t S, size_t NR, int CS, int CD, int full)
{
    size_t nr = NR ? NR : a->nr, n = a->n, o = 0;
    __m512 va = _mm512_set1_ps(a->alpha);
    __mmask16 k = (__mmask16)a->mask;
    for (; o + 16 <= n; o += 16)
        brow_body(a, o, 16, S, nr, CS, CD, va, k, full);
    if (o + 8 <= n) {
        brow_body(a, o, 8, S, nr, CS, CD, va, k, full);
        o += 8;
    }
    if (o + 4 <= n) {
        brow_body(a, o, 4, S, nr, CS, CD, va, k, full);
        o += 4;
    }
    if (o + 2 <= n) {
        brow_body(a, o, 2, S, nr, CS, CD, va, k, full);
        o += 2;
    }
    if (o < n)
        brow_body(a, o, 1, S, nr, CS, CD, va, k, full);
}

/* 3x3, three rows, stride CS along the row, dilation 1: NB results from pixel o with the nine
 * weights in registers; only the first cnt are stored (the rows are readable past the row). */
INL void brow33_body(const hd_dw_brow_args *a, const __m512 *w, size_t o, int NB, int CS, size_t cnt, __m512 va,
                     __mmask16 k, int full)
{
    __m512 acc[16];
#pragma GCC unroll 16
    for (int j = 0; j < NB; j++)
        acc[j] = _mm512_setzero_ps();
    const int64_t ips = full & 2 ? 16 : a->ips, b = ips * (int64_t)(o * (size_t)CS);
#pragma GCC unroll 3
    for (int i = 0; i < 3; i++) {
        const float *p = a->rows[i] + b;
#pragma GCC unroll 64
        for (int m = 0; m <= (NB - 1) * CS + 2; m++) {
            __m512 xv = _mm512_loadu_ps(p + ips * m);
#pragma GCC unroll 3
            for (int t = 0; t < 3; t++) {
                int r = m - t;
                if (r >= 0 && r % CS == 0 && r / CS < NB)
                    acc[r / CS] = _mm512_fmadd_ps(w[3 * i + t], xv, acc[r / CS]);
            }
        }
    }
#pragma GCC unroll 16
    for (int j = 0; j < NB; j++)
        if ((size_t)j < cnt)
            st_blk_s(a->out + (int64_t)(o + (size_t)j) * a->ops, k, full & 1, acc[j], va, a->beta, a->stream);
}

/* 16 results at a time (16 independent sums cover the multiply-add latency); the last block
 * is computed whole (8 or 16 wide) and stored in part, so short rows (7, 14 pixels) cost one
 * block each; with tight rows it is computed 8, 4, 2, 1 pixels at a time instead, reading
 * no pixel past the row's last result. */
INL void brow33(const hd_dw_brow_args *a, int CS, int full)
{
    __m512 w[9];
#pragma GCC unroll 3
    for (int i = 0; i < 3; i++)
#pragma GCC unroll 3
        for (int t = 0; t < 3; t++)
            w[3 * i + t] = _mm512_loadu_ps(a->w[i] + 16 * t);
    __m512 va = _mm512_set1_ps(a->alpha);
    __mmask16 k = (__mmask16)a->mask;
    size_t o = 0, n = a->n;
    if (a->tight) {
        for (; o + 8 <= n; o += 8)
            brow33_body(a, w, o, 8, CS, 8, va, k, full);
        if (o + 4 <= n)
            brow_body(a, o, 4, 3, 3, CS, 1, va, k, full), o += 4;
        if (o + 2 <= n)
            brow_body(a, o, 2, 3, 3, CS, 1, va, k, full), o += 2;
        if (o < n)
            brow_body(a, o, 1, 3, 3, CS, 1, va, k, full);
        return;
    }
    for (; o + 16 <= n; o += 16)
        brow33_body(a, w, o, 16, CS, 16, va, k, full);
    if (n - o > 8)
        brow33_body(a, w, o, 16, CS, n - o, va, k, full);
    else if (o < n)
        brow33_body(a, w, o, 8, CS, n - o, va, k, full);
}

INL void brow_any(const hd_dw_brow_args *a, int full)
{
    int s1 = a->cs == 1 && a->cd == 1, s2 = a->cs == 2 && a->cd == 1;
    if (a->S == 3 && a->nr == 3 && s1)
        brow33(a, 1, full);
    else if (a->S == 3 && a->nr == 3 && s2)
        brow33(a, 2, full);
    else if (a->S == 3 && s1)
        brow_tpl(a, 3, 0, 1, 1, full);
    else if (a->S == 3 && s2)
        brow_tpl(a, 3, 0, 2, 1, full);
    else if (a->S == 2 && s1)       /* backward data at stride 2: the phases of a 3-wide filter */
        brow_tpl(a, 2, 0, 1, 1, full);
    else if (a->S == 1 && a->cs == 1)
        brow_tpl(a, 1, 0, 1, 1, full);
    else if (a->S == 5 && s1)
        brow_tpl(a, 5, 0, 1, 1, full);
    else if (a->S == 5 && s2)
        brow_tpl(a, 5, 0, 2, 1, full);
    else
        brow_tpl(a, a->S, 0, 0, 0, full);
}

/* The templates' `full` is two flags: 1, all 16 lanes stored; 2, blocked source rows (a pixel
 * stride of 16, a constant the loads' addressing folds in). */
void hd_f32_dwconv_ukernel_brow__avx512(const hd_dw_brow_args *a)
{
    int all = a->mask == 0xffffu;
    if (a->ips == 16)
        all ? brow_any(a, 3) : brow_any(a, 2);
    else
        all ? brow_any(a, 1) : brow_any(a, 0);
}

/* ---------------- edge rows (in place, whole short rows) ---------------- */

/* NB results at stride CS over S taps, with the columns before SL and the last SR of the
 * chunk left out: each source vector is loaded once and feeds the (result, tap) pairs that
 * read it, so per result the taps still arrive in increasing order.  NB independent sums (7
 * to 16) keep both FMA pipes busy where the interior-plus-border split of a 14-wide row ran
 * chains of one. */
INL void erow_block(const hd_dw_erow_args *a, size_t b, int NB, int CS, int S, int SL, int SR)
{
    __m512 acc[16];
#pragma GCC unroll 16
    for (int j = 0; j < NB; j++)
        acc[j] = _mm512_setzero_ps();
    const int M = (NB - 1) * CS + S;
    const int64_t ips = a->ips;
    for (size_t i = 0; i < a->nr; i++) {
        const float *p = a->rows[i] + 16 * b, *wp = a->w[i] + a->wbs * (int64_t)b;
        __m512 w[3];
#pragma GCC unroll 3
        for (int t = 0; t < S; t++)
            w[t] = _mm512_loadu_ps(wp + 16 * t);
#pragma GCC unroll 64
        for (int m = SL; m < M - SR; m++, p += ips) {
            __m512 xv = _mm512_loadu_ps(p);
            /* walk the pointer: the compiler otherwise keeps one offset per column of the
               unrolled chunk, more than the registers hold, and reloads them from spills */
            __asm__("" : "+r"(p));
#pragma GCC unroll 3
            for (int t = 0; t < S; t++) {
                int r = m - t;
                if (r >= 0 && r % CS == 0 && r / CS < NB)
                    acc[r / CS] = _mm512_fmadd_ps(w[t], xv, acc[r / CS]);
            }
        }
    }
    __m512 va = _mm512_set1_ps(a->alpha);
#pragma GCC unroll 16
    for (int j = 0; j < NB; j++)
        st_blk_s(a->out + 16 * b + (int64_t)j * a->ops, 0xffff, 1, acc[j], va, a->beta, a->stream);
}

INL void erow_body(const hd_dw_erow_args *a, int NB, int CS, int S, int SL, int SR)
{
    size_t nblk = a->nblk ? a->nblk : 1;
    for (size_t b = 0; b < nblk; b++)
        erow_block(a, b, NB, CS, S, SL, SR);
}

/* The combinations of hd_dw_erow_takes, each unrolled on its own: BY_EDGES picks the cut
 * ends (e_ = skip_l*2 + skip_r), BY_WIDTH the chunk width. */
#define BY_EDGES(BODY, ...)                                                                 \
    (e_ == 3 ? BODY(__VA_ARGS__, 1, 1) : e_ == 2 ? BODY(__VA_ARGS__, 1, 0)                  \
     : e_ == 1 ? BODY(__VA_ARGS__, 0, 1) : BODY(__VA_ARGS__, 0, 0))
#define BY_WIDTH(W)                                                                         \
    switch (a->nb) {                                                                        \
    case 7: W(7); break;                                                                    \
    case 8: W(8); break;                                                                    \
    case 14: W(14); break;                                                                  \
    case 16: W(16); break;                                                                  \
    default: break;                                                                         \
    }

#define EROW_WIDTH(NB)                                                                      \
    do {                                                                                    \
        int e_ = a->skip_l * 2 + a->skip_r;                                                 \
        if (a->S == 3)                                                                      \
            a->cs == 1 ? BY_EDGES(erow_body, a, NB, 1, 3) : BY_EDGES(erow_body, a, NB, 2, 3); \
        else if (a->S == 2)                                                                 \
            e_ == 1 ? erow_body(a, NB, 1, 2, 0, 1) : erow_body(a, NB, 1, 2, 0, 0);          \
        else                                                                                \
            erow_body(a, NB, 1, 1, 0, 0);                                                   \
    } while (0)

void hd_f32_dwconv_ukernel_erow__avx512(const hd_dw_erow_args *a)
{
    BY_WIDTH(EROW_WIDTH)
}

/* Backward filter over a chunk: the NB dy vectors stay in registers, each source vector is
 * loaded once and feeds the taps that read it; per tap the results arrive in increasing
 * order.  The rows' three sums are independent chains, and the rows overlap in flight. */
INL void ewrow_block(const hd_dw_ewrow_args *a, size_t b, int NB, int CS, int SL, int SR)
{
    __m512 d[16];
#pragma GCC unroll 16
    for (int j = 0; j < NB; j++)
        d[j] = _mm512_loadu_ps(a->dy + 16 * b + a->dps * j);
    const int M = (NB - 1) * CS + 3;
    const int64_t ips = a->ips;
    for (size_t i = 0; i < a->nr; i++) {
        const float *p = a->rows[i] + 16 * b;
        float *acc = a->acc[i] + a->acc_bs * (int64_t)b;
        __m512 s[3] = {_mm512_loadu_ps(acc), _mm512_loadu_ps(acc + 16), _mm512_loadu_ps(acc + 32)};
#pragma GCC unroll 64
        for (int m = SL; m < M - SR; m++, p += ips) {
            __m512 xv = _mm512_loadu_ps(p);
            __asm__("" : "+r"(p));   /* as in erow_block */
#pragma GCC unroll 3
            for (int t = 0; t < 3; t++) {
                int r = m - t;
                if (r >= 0 && r % CS == 0 && r / CS < NB)
                    s[t] = _mm512_fmadd_ps(d[r / CS], xv, s[t]);
            }
        }
#pragma GCC unroll 3
        for (int t = 0; t < 3; t++)
            _mm512_storeu_ps(acc + 16 * t, s[t]);
    }
}

INL void ewrow_body(const hd_dw_ewrow_args *a, int NB, int CS, int SL, int SR)
{
    size_t nblk = a->nblk ? a->nblk : 1;
    for (size_t b = 0; b < nblk; b++)
        ewrow_block(a, b, NB, CS, SL, SR);
}

#define EWROW_WIDTH(NB)                                                                     \
    do {                                                                                    \
        int e_ = a->skip_l * 2 + a->skip_r;                                                 \
        a->cs == 1 ? BY_EDGES(ewrow_body, a, NB, 1) : BY_EDGES(ewrow_body, a, NB, 2);       \
    } while (0)

void hd_f32_dwconv_ukernel_ewrow__avx512(const hd_dw_ewrow_args *a)
{
    BY_WIDTH(EWROW_WIDTH)
}

/* ---------------- blocked weight rows ---------------- */

/* 3x3 with three rows at stride CS (1 or 2), dilation 1: nine sums, one dy load per pixel for
 * the three rows, source vectors shared between neighbouring pixels (stride 1: a window of
 * three; stride 2: the last tap of a pixel is the first of the next). */
INL void bwrow33(const hd_dw_bwrow_args *a, int CS, int BLK)
{
    const int64_t ips = BLK ? 16 : a->ips, dps = BLK ? 16 : a->dps;
    __m512 v[9], xa[3], xb[3];
    const float *p[3];
#pragma GCC unroll 3
    for (int i = 0; i < 3; i++) {
        p[i] = a->rows[i];
#pragma GCC unroll 3
        for (int s = 0; s < 3; s++)
            v[3 * i + s] = _mm512_loadu_ps(a->acc[i] + 16 * s);
        xa[i] = _mm512_loadu_ps(p[i]);
        xb[i] = _mm512_loadu_ps(p[i] + ips);
    }
    const float *d = a->dy;
    for (size_t o = 0; o < a->n; o++, d += dps) {
        __m512 dv = _mm512_loadu_ps(d);
        int64_t off = ips * (int64_t)(o * (size_t)CS);
#pragma GCC unroll 3
        for (int i = 0; i < 3; i++) {
            __m512 x1 = CS == 1 ? xb[i] : _mm512_loadu_ps(p[i] + off + ips);
            __m512 x2 = _mm512_loadu_ps(p[i] + off + 2 * ips);
            v[3 * i] = _mm512_fmadd_ps(dv, xa[i], v[3 * i]);
            v[3 * i + 1] = _mm512_fmadd_ps(dv, x1, v[3 * i + 1]);
            v[3 * i + 2] = _mm512_fmadd_ps(dv, x2, v[3 * i + 2]);
            if (CS == 1)
                xa[i] = xb[i], xb[i] = x2;
            else
                xa[i] = x2;
        }
    }
#pragma GCC unroll 3
    for (int i = 0; i < 3; i++)
#pragma GCC unroll 3
        for (int s = 0; s < 3; s++)
            _mm512_storeu_ps(a->acc[i] + 16 * s, v[3 * i + s]);
}

/* Constant S <= 8: a row's S sums stay in registers over the row. */
INL void bwrow_tpl(const hd_dw_bwrow_args *a, size_t S)
{
    size_t cs = a->cs, cd = a->cd;
    for (size_t i = 0; i < a->nr; i++) {
        const float *p = a->rows[i];
        __m512 v[8];
#pragma GCC unroll 8
        for (size_t s = 0; s < S; s++)
            v[s] = _mm512_loadu_ps(a->acc[i] + 16 * s);
        for (size_t o = 0; o < a->n; o++) {
            __m512 dv = _mm512_loadu_ps(a->dy + a->dps * (int64_t)o);
#pragma GCC unroll 8
            for (size_t s = 0; s < S; s++)
                v[s] = _mm512_fmadd_ps(dv, _mm512_loadu_ps(p + a->ips * (int64_t)(o * cs + s * cd)), v[s]);
        }
#pragma GCC unroll 8
        for (size_t s = 0; s < S; s++)
            _mm512_storeu_ps(a->acc[i] + 16 * s, v[s]);
    }
}

static void bwrow_wide(const hd_dw_bwrow_args *a)
{
    for (size_t i = 0; i < a->nr; i++)
        for (size_t s = 0; s < a->S; s++) {
            const float *p = a->rows[i] + a->ips * (int64_t)(s * a->cd);
            __m512 v = _mm512_loadu_ps(a->acc[i] + 16 * s);
            for (size_t o = 0; o < a->n; o++)
                v = _mm512_fmadd_ps(_mm512_loadu_ps(a->dy + a->dps * (int64_t)o),
                                    _mm512_loadu_ps(p + a->ips * (int64_t)(o * a->cs)), v);
            _mm512_storeu_ps(a->acc[i] + 16 * s, v);
        }
}

void hd_f32_dwconv_ukernel_bwrow__avx512(const hd_dw_bwrow_args *a)
{
    int blk = a->ips == 16 && a->dps == 16;   /* blocked rows: constant strides */
    if (a->S == 3 && a->nr == 3 && a->cd == 1 && a->cs == 1)
        blk ? bwrow33(a, 1, 1) : bwrow33(a, 1, 0);
    else if (a->S == 3 && a->nr == 3 && a->cd == 1 && a->cs == 2)
        blk ? bwrow33(a, 2, 1) : bwrow33(a, 2, 0);
    else if (a->S == 3)
        bwrow_tpl(a, 3);
    else if (a->S == 5)
        bwrow_tpl(a, 5);
    else
        bwrow_wide(a);
}

/* ---------------- gather / scatter ---------------- */

/* In place: lane i of r[j] becomes lane j of r[i] (a 16x16 transpose in four shuffle stages). */
INL void transpose16(__m512 *r)
{
    __m512 t[16], u[16];
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {          /* pairs of rows: a0 b0 a1 b1 | a2 b2 a3 b3 per 128 bits */
        t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
    }
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {          /* quads: u[4g + e] holds column 4L + e of rows 4g..4g+3 in 128-bit lane L */
        __m512d t0 = _mm512_castps_pd(t[4 * g]), t1 = _mm512_castps_pd(t[4 * g + 1]);
        __m512d t2 = _mm512_castps_pd(t[4 * g + 2]), t3 = _mm512_castps_pd(t[4 * g + 3]);
        u[4 * g] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
        u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
        u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
        u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
    }
#pragma GCC unroll 4
    for (int e = 0; e < 4; e++) {          /* the 128-bit lanes of the four quads, transposed */
        __m512 v0 = _mm512_shuffle_f32x4(u[e], u[4 + e], 0x44), v1 = _mm512_shuffle_f32x4(u[e], u[4 + e], 0xee);
        __m512 v2 = _mm512_shuffle_f32x4(u[8 + e], u[12 + e], 0x44);
        __m512 v3 = _mm512_shuffle_f32x4(u[8 + e], u[12 + e], 0xee);
        r[e] = _mm512_shuffle_f32x4(v0, v2, 0x88);
        r[4 + e] = _mm512_shuffle_f32x4(v0, v2, 0xdd);
        r[8 + e] = _mm512_shuffle_f32x4(v1, v3, 0x88);
        r[12 + e] = _mm512_shuffle_f32x4(v1, v3, 0xdd);
    }
}

void hd_f32_dwconv_ukernel_gather__avx512(float *dst, int64_t dbs, const float *src, size_t n, int64_t cstr,
                                          int64_t pstr, size_t nc, const float *end)
{
    size_t nb = (nc + 15) / 16, nfull = nc / 16;
    __mmask16 kt = tail_mask(nc % 16);
    if (cstr == 1) {
        for (size_t i = 0; i < n; i++) {
            const float *p = src + (int64_t)i * pstr;
            float *d = dst + 16 * i;
            size_t b = 0;
            for (; b < nfull; b++)
                _mm512_storeu_ps(d + (int64_t)b * dbs, _mm512_loadu_ps(p + 16 * b));
            if (b < nb)
                _mm512_storeu_ps(d + (int64_t)b * dbs, _mm512_maskz_loadu_ps(kt, p + 16 * b));
        }
        return;
    }
    if (pstr != 1) {
        hd_f32_dwconv_ukernel_gather__scalar(dst, dbs, src, n, cstr, pstr, nc, end);
        return;
    }
    for (size_t b = 0; b < nb; b++) {
        size_t nl = b < nfull ? 16 : nc % 16;
        const float *sb = src + (int64_t)(16 * b) * cstr;
        float *db = dst + (int64_t)b * dbs;
        for (size_t i0 = 0; i0 < n; i0 += 16) {
            size_t m = n - i0 < 16 ? n - i0 : 16;
            __mmask16 km = tail_mask(m);
            __m512 r[16];
#pragma GCC unroll 16
            for (size_t l = 0; l < 16; l++) {
                const float *q = sb + (int64_t)l * cstr + (int64_t)i0;
                r[l] = l >= nl ? _mm512_setzero_ps()
                     : m == 16 || q + 16 <= end ? _mm512_loadu_ps(q) : _mm512_maskz_loadu_ps(km, q);
            }
            transpose16(r);
            for (size_t t = 0; t < m; t++)
                _mm512_storeu_ps(db + 16 * (i0 + t), r[t]);
        }
    }
}

void hd_f32_dwconv_ukernel_scatter__avx512(float *dst, int64_t cstr, int64_t pstr, const float *src, size_t n,
                                           size_t nl, float alpha, float beta)
{
    __m512 va = _mm512_set1_ps(alpha);
    if (cstr == 1) {
        __mmask16 k = tail_mask(nl);
        for (size_t i = 0; i < n; i++)
            st_blk(dst + (int64_t)i * pstr, k, nl == 16, _mm512_loadu_ps(src + 16 * i), va, beta);
        return;
    }
    if (pstr != 1) {
        hd_f32_dwconv_ukernel_scatter__scalar(dst, cstr, pstr, src, n, nl, alpha, beta);
        return;
    }
    for (size_t i0 = 0; i0 < n; i0 += 16) {
        size_t m = n - i0 < 16 ? n - i0 : 16;
        __mmask16 km = tail_mask(m);
        __m512 r[16];
#pragma GCC unroll 16
        for (size_t t = 0; t < 16; t++)
            r[t] = t < m ? _mm512_loadu_ps(src + 16 * (i0 + t)) : _mm512_setzero_ps();
        transpose16(r);
        for (size_t l = 0; l < nl; l++)
            st_blk(dst + (int64_t)l * cstr + (int64_t)i0, km, m == 16, r[l], va, beta);
    }
}
