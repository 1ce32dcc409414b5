/* Depthwise convolution micro-kernels, AVX2 + FMA: 8 output positions (plane kernels) or 8
 * channels (blocked kernels: two halves of a 16-channel block) per vector (see
 * dwconv-ukernels.h).  The plane kernels have constant-width templates for 3x3 and 5x5 at
 * strides 1 and 2; the blocked row kernel loads each source vector once per pass of 8 results
 * (taps and stride constant), and masked stores, microcoded on AMD cores, are kept to partial
 * blocks and tails.  No edge-row or small-plane kernels: the solvers use the band for those. */
#include <immintrin.h>
#include <stdint.h>
#include "kernels/dwconv/dwconv-ukernels.h"
#include "kernels/transpose/f32-transpose-8x8-avx2.h"

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

/* A whole half is a plain store: a masked store is microcoded and far slower on AMD cores. */
INL void st_half(float *dst, __m256i k, int full, __m256 acc, __m256 va, float beta)
{
    __m256 r = _mm256_mul_ps(va, acc);
    if (beta != 0.0f)
        r = _mm256_fmadd_ps(_mm256_set1_ps(beta), full ? _mm256_loadu_ps(dst) : _mm256_maskload_ps(dst, k), r);
    if (full)
        _mm256_storeu_ps(dst, r);
    else
        _mm256_maskstore_ps(dst, k, r);
}

/* Any S, stride and dilation: NB result pixels from o, one half (8 lanes) of the block; per
 * result rows, then taps. */
INL void brow_body(const hd_dw_brow_args *a, size_t o, int NB, size_t S, int h, __m256i k, int full, __m256 va)
{
    __m256 acc[6];
#pragma GCC unroll 6
    for (int j = 0; j < NB; j++)
        acc[j] = _mm256_setzero_ps();
    for (size_t i = 0; i < a->nr; i++) {
        const int64_t ps = a->ips * (int64_t)a->cs;   /* floats from one result's source to the next */
        const float *p = a->rows[i] + ps * (int64_t)o + 8 * h, *w = a->w[i] + 8 * h;
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
        st_half(a->out + (int64_t)(o + (size_t)j) * a->ops + 8 * h, k, full, acc[j], va, a->beta);
}

static void brow_any(const hd_dw_brow_args *a)
{
    __m256 va = _mm256_set1_ps(a->alpha);
    for (int h = 0; h < 2; h++) {
        if (!((a->mask >> (8 * h)) & 0xffu))
            continue;
        __m256i k = half_mask(a->mask, h);
        int full = ((a->mask >> (8 * h)) & 0xffu) == 0xffu;
        size_t o = 0;
        for (; o + 6 <= a->n; o += 6)
            brow_body(a, o, 6, a->S, h, k, full, va);
        for (; o < a->n; o++)
            brow_body(a, o, 1, a->S, h, k, full, va);
    }
}

/* Constant S taps at stride CS, dilation 1: NB result pixels from o, one half of the block.
 * Every source vector is loaded once and feeds each (result, tap) that reads it: source
 * pixel m serves tap t of result j when m = j*CS + t, so per result the taps still arrive in
 * increasing order (the bits of brow_body).  NB accumulators, S weights and one source
 * vector stay in registers (at most 14 of the 16). */
INL void brow_reuse(const hd_dw_brow_args *a, size_t o, int NB, int S, int CS, int h, int full, float *out, int64_t ops,
                    float beta)
{
    __m256 acc[8];
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++)
        acc[j] = _mm256_setzero_ps();
    const int64_t ips = a->ips;
    for (size_t i = 0; i < a->nr; i++) {
        const float *q = a->rows[i] + ips * (int64_t)(o * (size_t)CS) + 8 * h, *wp = a->w[i] + 8 * h;
        __m256 w[5];
#pragma GCC unroll 5
        for (int t = 0; t < S; t++)
            w[t] = _mm256_loadu_ps(wp + 16 * t);
#pragma GCC unroll 24
        for (int m = 0; m <= (NB - 1) * CS + S - 1; m++) {
            __m256 xv = _mm256_loadu_ps(q);
            q += ips;
#pragma GCC unroll 5
            for (int t = 0; t < S; t++) {
                int r = m - t;
                if (r >= 0 && r % CS == 0 && r / CS < NB)
                    acc[r / CS] = _mm256_fmadd_ps(w[t], xv, acc[r / CS]);
            }
        }
    }
    /* alpha and the mask only now: kept live over the loop they would take registers */
    out += 8 * h;
    __m256 va = _mm256_broadcast_ss(&a->alpha);
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++)
        st_half(out + (int64_t)j * ops, full ? _mm256_setzero_si256() : half_mask(a->mask, h), full, acc[j], va, beta);
}

/* Results 8 at a time (8 independent sums cover the multiply-add latency), then 4, 2, 1;
 * both halves of a group before the next, so its source lines are still in L1.  With all
 * lanes and beta == 0 a group of 8 goes through a tile in L1 and out a whole pixel (both
 * halves) at a time, in order: stored half by half the group's lines are all half written
 * at once, which measured slower.  With stream set (and aligned lines) those stores are
 * non-temporal; the caller fences. */
INL void brow_reuse_tpl(const hd_dw_brow_args *a, int S, int CS)
{
    unsigned m0 = a->mask & 0xffu, m1 = (a->mask >> 8) & 0xffu;
    int f0 = m0 == 0xffu, f1 = m1 == 0xffu;
    size_t n = a->n, o = 0;
#define BOTH(NB)                                                                        \
    do {                                                                                \
        if (m0)                                                                         \
            brow_reuse(a, o, NB, S, CS, 0, f0, a->out + (int64_t)o * a->ops, a->ops, a->beta); \
        if (m1)                                                                         \
            brow_reuse(a, o, NB, S, CS, 1, f1, a->out + (int64_t)o * a->ops, a->ops, a->beta); \
        o += NB;                                                                        \
    } while (0)
    if (a->beta == 0.0f && a->mask == 0xffffu) {
        int nt = a->stream && ((uintptr_t)a->out & 63) == 0 && (a->ops & 15) == 0;
        float tile[8 * 16] __attribute__((aligned(64)));
        for (; o + 8 <= n; o += 8) {
            brow_reuse(a, o, 8, S, CS, 0, 1, tile, 16, 0.0f);
            brow_reuse(a, o, 8, S, CS, 1, 1, tile, 16, 0.0f);
            float *out = a->out + (int64_t)o * a->ops;
            if (nt) {
#pragma GCC unroll 8
                for (int j = 0; j < 8; j++) {
                    _mm256_stream_ps(out + (int64_t)j * a->ops, _mm256_load_ps(tile + 16 * j));
                    _mm256_stream_ps(out + (int64_t)j * a->ops + 8, _mm256_load_ps(tile + 16 * j + 8));
                }
            } else {
#pragma GCC unroll 8
                for (int j = 0; j < 8; j++) {
                    _mm256_storeu_ps(out + (int64_t)j * a->ops, _mm256_load_ps(tile + 16 * j));
                    _mm256_storeu_ps(out + (int64_t)j * a->ops + 8, _mm256_load_ps(tile + 16 * j + 8));
                }
            }
        }
    }
    for (; o + 8 <= n;)
        BOTH(8);
    if (o + 4 <= n)
        BOTH(4);
    if (o + 2 <= n)
        BOTH(2);
    if (o < n)
        BOTH(1);
#undef BOTH
}

void hd_f32_dwconv_ukernel_brow__avx2(const hd_dw_brow_args *a)
{
    int s1 = a->cs == 1 && a->cd == 1, s2 = a->cs == 2 && a->cd == 1;
    if (a->S == 3 && s1)
        brow_reuse_tpl(a, 3, 1);
    else if (a->S == 3 && s2)
        brow_reuse_tpl(a, 3, 2);
    else if (a->S == 2 && s1)       /* backward data at stride 2: the phases of a 3-wide filter; edge results */
        brow_reuse_tpl(a, 2, 1);
    else if (a->S == 1 && a->cs == 1)
        brow_reuse_tpl(a, 1, 1);
    else if (a->S == 5 && s1)
        brow_reuse_tpl(a, 5, 1);
    else if (a->S == 5 && s2)
        brow_reuse_tpl(a, 5, 2);
    else
        brow_any(a);
}

/* ---------------- blocked weight rows ---------------- */

/* 3x3 with three rows, dilation 1, stride CS: the nine sums of a half in registers at once
 * (three sums of one row alone would be chains too short to cover the multiply-add
 * latency), one dy load per pixel, the source vectors as memory operands. */
INL void bwrow33(const hd_dw_bwrow_args *a, int CS)
{
    const int64_t ips = a->ips, dps = a->dps;
    for (int h = 0; h < 2; h++) {
        __m256 v[9];
        const float *p0 = a->rows[0] + 8 * h, *p1 = a->rows[1] + 8 * h, *p2 = a->rows[2] + 8 * h;
#pragma GCC unroll 3
        for (int i = 0; i < 3; i++)
#pragma GCC unroll 3
            for (int s = 0; s < 3; s++)
                v[3 * i + s] = _mm256_loadu_ps(a->acc[i] + 16 * s + 8 * h);
        const float *d = a->dy + 8 * h;
        for (size_t o = 0; o < a->n; o++, d += dps, p0 += CS * ips, p1 += CS * ips, p2 += CS * ips) {
            __m256 dv = _mm256_loadu_ps(d);
            v[0] = _mm256_fmadd_ps(dv, _mm256_loadu_ps(p0), v[0]);
            v[3] = _mm256_fmadd_ps(dv, _mm256_loadu_ps(p1), v[3]);
            v[6] = _mm256_fmadd_ps(dv, _mm256_loadu_ps(p2), v[6]);
            v[1] = _mm256_fmadd_ps(dv, _mm256_loadu_ps(p0 + ips), v[1]);
            v[4] = _mm256_fmadd_ps(dv, _mm256_loadu_ps(p1 + ips), v[4]);
            v[7] = _mm256_fmadd_ps(dv, _mm256_loadu_ps(p2 + ips), v[7]);
            v[2] = _mm256_fmadd_ps(dv, _mm256_loadu_ps(p0 + 2 * ips), v[2]);
            v[5] = _mm256_fmadd_ps(dv, _mm256_loadu_ps(p1 + 2 * ips), v[5]);
            v[8] = _mm256_fmadd_ps(dv, _mm256_loadu_ps(p2 + 2 * ips), v[8]);
        }
#pragma GCC unroll 3
        for (int i = 0; i < 3; i++)
#pragma GCC unroll 3
            for (int s = 0; s < 3; s++)
                _mm256_storeu_ps(a->acc[i] + 16 * s + 8 * h, v[3 * i + s]);
    }
}

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
    if (a->S == 3 && a->nr == 3 && a->cd == 1 && a->cs == 1)
        bwrow33(a, 1);
    else if (a->S == 3 && a->nr == 3 && a->cd == 1 && a->cs == 2)
        bwrow33(a, 2);
    else if (a->S == 3)
        bwrow_tpl(a, 3);
    else if (a->S == 5)
        bwrow_tpl(a, 5);
    else
        hd_f32_dwconv_ukernel_bwrow__scalar(a);
}

/* ---------------- gather / scatter ---------------- */

#define transpose8 hd_f32_transpose_regs_8x8__avx2

void hd_f32_dwconv_ukernel_gather__avx2(float *dst, int64_t dbs, const float *src, size_t n, int64_t cstr, int64_t pstr,
                                        size_t nc, const float *end)
{
    if (cstr == 1) {
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
        return;
    }
    if (pstr != 1) {
        hd_f32_dwconv_ukernel_gather__scalar(dst, dbs, src, n, cstr, pstr, nc, end);
        return;
    }
    /* pixels contiguous: 8 channels by 8 pixels per transpose, each half of a block alone */
    for (size_t hb = 0; hb < 2 * ((nc + 15) / 16); hb++) {
        size_t c0 = 8 * hb, nl = c0 >= nc ? 0 : nc - c0 < 8 ? nc - c0 : 8;
        const float *sb = src + (int64_t)c0 * cstr;
        float *db = dst + (int64_t)(hb / 2) * dbs + 8 * (hb % 2);
        for (size_t i0 = 0; i0 < n; i0 += 8) {
            size_t m = n - i0 < 8 ? n - i0 : 8;
            __m256i km = tail_mask(m);
            __m256 r[8];
#pragma GCC unroll 8
            for (size_t l = 0; l < 8; l++) {
                const float *q = sb + (int64_t)l * cstr + (int64_t)i0;
                r[l] = l >= nl ? _mm256_setzero_ps()
                     : m == 8 || q + 8 <= end ? _mm256_loadu_ps(q) : _mm256_maskload_ps(q, km);
            }
            transpose8(r);
            if (m == 8) {             /* constant indices: r stays in registers */
#pragma GCC unroll 8
                for (size_t t = 0; t < 8; t++)
                    _mm256_storeu_ps(db + 16 * (i0 + t), r[t]);
            } else {
                float tmp[64];
#pragma GCC unroll 8
                for (size_t t = 0; t < 8; t++)
                    _mm256_storeu_ps(tmp + 8 * t, r[t]);
                for (size_t t = 0; t < m; t++)
                    _mm256_storeu_ps(db + 16 * (i0 + t), _mm256_loadu_ps(tmp + 8 * t));
            }
        }
    }
}

void hd_f32_dwconv_ukernel_scatter__avx2(float *dst, int64_t cstr, int64_t pstr, const float *src, size_t n, size_t nl,
                                         float alpha, float beta)
{
    __m256 va = _mm256_set1_ps(alpha);
    if (cstr == 1) {
        __m256i k0 = tail_mask(nl), k1 = tail_mask(nl > 8 ? nl - 8 : 0);
        for (size_t i = 0; i < n; i++) {
            float *d = dst + (int64_t)i * pstr;
            st_half(d, k0, nl >= 8, _mm256_loadu_ps(src + 16 * i), va, beta);
            if (nl > 8)
                st_half(d + 8, k1, nl == 16, _mm256_loadu_ps(src + 16 * i + 8), va, beta);
        }
        return;
    }
    if (pstr != 1) {
        hd_f32_dwconv_ukernel_scatter__scalar(dst, cstr, pstr, src, n, nl, alpha, beta);
        return;
    }
    /* pixels contiguous: 8 pixels by 8 channels per transpose; a last partial group of
     * pixels goes out one value at a time (a masked store is slow on AMD cores) */
    for (size_t h = 0; 8 * h < nl; h++) {
        size_t hl = nl - 8 * h < 8 ? nl - 8 * h : 8;
        for (size_t i0 = 0; i0 < n; i0 += 8) {
            size_t m = n - i0 < 8 ? n - i0 : 8;
            __m256 r[8];
#pragma GCC unroll 8
            for (size_t t = 0; t < 8; t++)
                r[t] = t < m ? _mm256_loadu_ps(src + 16 * (i0 + t) + 8 * h) : _mm256_setzero_ps();
            transpose8(r);
            if (m == 8 && hl == 8) {  /* constant indices: r stays in registers */
#pragma GCC unroll 8
                for (size_t l = 0; l < 8; l++)
                    st_half(dst + (int64_t)(8 * h + l) * cstr + (int64_t)i0, _mm256_setzero_si256(), 1, r[l], va, beta);
                continue;
            }
            float tmp[64];
#pragma GCC unroll 8
            for (size_t l = 0; l < 8; l++)
                _mm256_storeu_ps(tmp + 8 * l, r[l]);
            for (size_t l = 0; l < hl; l++) {
                float *d = dst + (int64_t)(8 * h + l) * cstr + (int64_t)i0;
                if (m == 8) {
                    st_half(d, _mm256_setzero_si256(), 1, _mm256_loadu_ps(tmp + 8 * l), va, beta);
                    continue;
                }
                for (size_t t = 0; t < m; t++) {   /* the bits of st_half */
                    __m128 v = _mm_mul_ss(_mm_set_ss(alpha), _mm_set_ss(tmp[8 * l + t]));
                    if (beta != 0.0f)
                        v = _mm_fmadd_ss(_mm_set_ss(beta), _mm_set_ss(d[t]), v);
                    d[t] = _mm_cvtss_f32(v);
                }
            }
        }
    }
}
