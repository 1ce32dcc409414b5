/*
 * f32-wino4-avx512.c -- Winograd F(4x4, 3x3) tile transforms for AVX-512 (contract in
 * conv_wino4.h): 16 tiles at once, one per lane.
 *
 * Input: the 36 window elements of the 16 tiles are masked gathers (the masks leave out the
 * padding, which reads as 0), with the index vectors and masks built once per call and
 * reused for every channel; this serves NCHW, NHWC and any strides alike.  The 36
 * transformed values are stored as 16 consecutive floats each: exactly a row of the packed
 * GEMM B panel.
 * Output: the 36 products of a lane group are 16 consecutive floats of a GEMM row; the 4x4
 * results are transposed in registers so that each tile row is one 4-float store when y's
 * columns are contiguous (NCHW), and stored element by element otherwise.
 */
#include <immintrin.h>

#include "kernels/wino4/wino4-ukernels.h"
#include "kernels/transpose/f32-transpose-16x16-avx512.h"

typedef __m512 W4;
static inline W4 w4_add(W4 a, W4 b) { return _mm512_add_ps(a, b); }
static inline W4 w4_sub(W4 a, W4 b) { return _mm512_sub_ps(a, b); }
static inline W4 w4_mulc(W4 a, float c) { return _mm512_mul_ps(a, _mm512_set1_ps(c)); }
typedef __m512d W4D;
static inline W4D w4d_add(W4D a, W4D b) { return _mm512_add_pd(a, b); }
static inline W4D w4d_sub(W4D a, W4D b) { return _mm512_sub_pd(a, b); }
static inline W4D w4d_mulc(W4D a, double c) { return _mm512_mul_pd(a, _mm512_set1_pd(c)); }
#include "kernels/wino4/wino4-transform.inc"

/* The first n (clamped to 0..16) lanes. */
static inline __mmask16 lanes16(int64_t n) { return n >= 16 ? (__mmask16)0xFFFF : n <= 0 ? (__mmask16)0 : (__mmask16)((1u << n) - 1u); }

#define PF_CHANNELS 4 /* channels ahead the filter loads are prefetched */

/* U of one channel of up to 16 filters (lanes of gv) in double, 8 lanes at a time, each row of
 * U stored as soon as it is computed; uoff[pos] = pos * pos_stride. */
W4_INLINE void filter_store(const __m512 gv[9], int nk, float *uc, const size_t uoff[36])
{
    for (int h = 0; h < nk; h += 8) {
        const __mmask8 mh = (__mmask8)(nk - h >= 8 ? 0xFF : (1u << (nk - h)) - 1u);
        W4D gd[9], t[18];
#pragma GCC unroll 9
        for (int e = 0; e < 9; e++)
            gd[e] = _mm512_cvtps_pd(h ? _mm512_extractf32x8_ps(gv[e], 1) : _mm512_castps512_ps256(gv[e]));
        w4_filter_cols(gd, t);
#pragma GCC unroll 6
        for (int i = 0; i < 6; i++) {
            W4D row[6];
            w4_filter_1d(t + 3 * i, row);
#pragma GCC unroll 6
            for (int j = 0; j < 6; j++)
                _mm256_mask_storeu_ps(uc + uoff[6 * i + j] + h, mh, _mm512_cvtpd_ps(row[j]));
        }
    }
}

/* The 16 lanes' taps of a channel come from, in order of preference:
 *  - contiguous lanes (ks == 1): 9 masked loads;
 *  - taps within 16 floats (KCRS-like: the 3x3 taps of a filter are adjacent): one masked load
 *    of that window per lane, transposed 16 x 16 in registers;
 *  - contiguous channels (cs == 1, KRSC-like): per tap, 16 channels of each lane, transposed;
 *    done for 16 channels at once, the columns kept in a small buffer;
 *  - otherwise 9 masked gathers. */
void hd_f32_wino4_ukernel_filter__avx512(const float *w, int64_t ks, int64_t cs, const int64_t tap[9], int nk,
                                         int64_t nc, float *u, size_t pos_stride, size_t c_stride)
{
    const __mmask16 m = (__mmask16)(nk >= 16 ? 0xFFFF : (1u << nk) - 1u);
    size_t uoff[36];
    for (int pos = 0; pos < 36; pos++)
        uoff[pos] = (size_t)pos * pos_stride;
    int64_t tmin = tap[0], tmax = tap[0];
    for (int e = 1; e < 9; e++) {
        tmin = tap[e] < tmin ? tap[e] : tmin;
        tmax = tap[e] > tmax ? tap[e] : tmax;
    }
    if (ks != 1 && cs == tmax - tmin + 1 && cs <= 16) {
        /* KCRS-like with the channels' windows back to back: 16 channels of a filter are one
           run of 16 * cs floats, loaded 16 at a time and transposed with the other lanes' --
           cs transposes per 16 channels instead of 16 */
        const int64_t W = cs;
        __m512 run[16 * 16];
        for (int64_t c0 = 0; c0 < nc; c0 += 16) {
            int nb = (int)(nc - c0 < 16 ? nc - c0 : 16);
            int64_t len = nb * W;
            const float *w0 = w + c0 * cs + tmin;
            for (int64_t t = 0; t < W; t++) {
                __m512 r[16];
                const __mmask16 lm = lanes16(len - 16 * t);
#pragma GCC unroll 16
                for (int i = 0; i < 16; i++)
                    r[i] = _mm512_maskz_loadu_ps(i < nk ? lm : 0, w0 + i * ks + 16 * t);
                hd_f32_transpose_regs_16x16__avx512(r);
#pragma GCC unroll 16
                for (int j = 0; j < 16; j++)
                    run[16 * t + j] = r[j];
            }
            for (int j = 0; j < nb; j++) {
                __m512 gv[9];
#pragma GCC unroll 9
                for (int e = 0; e < 9; e++)
                    gv[e] = run[j * W + tap[e] - tmin];
                filter_store(gv, nk, u + (size_t)(c0 + j) * c_stride, uoff);
            }
        }
        return;
    }
    if (ks != 1 && tmax - tmin < 16) {
        const __mmask16 wm = (__mmask16)((1u << (tmax - tmin + 1)) - 1u);
        for (int64_t c = 0; c < nc; c++) {
            const float *wc = w + c * cs + tmin;
            __m512 r[16], gv[9];
            /* the hardware prefetcher does not follow channels more than a page apart */
            if (cs > 64)
                for (int i = 0; i < nk; i++)
                    _mm_prefetch((const char *)(wc + PF_CHANNELS * cs + i * ks), _MM_HINT_T0);
#pragma GCC unroll 16
            for (int i = 0; i < 16; i++)
                r[i] = _mm512_maskz_loadu_ps(i < nk ? wm : 0, wc + i * ks);
            hd_f32_transpose_regs_16x16__avx512(r);
#pragma GCC unroll 9
            for (int e = 0; e < 9; e++)
                gv[e] = r[tap[e] - tmin];
            filter_store(gv, nk, u + (size_t)c * c_stride, uoff);
        }
        return;
    }
    if (ks != 1 && cs == 1) {
        __m512 col[16][9];
        for (int64_t c0 = 0; c0 < nc; c0 += 16) {
            int nb = (int)(nc - c0 < 16 ? nc - c0 : 16);
            const __mmask16 cm = (__mmask16)((1u << nb) - 1u);
            /* 9 x 16 lines in as many streams: fetch the next block's now */
            for (int e = 0; e < 9; e++)
                for (int i = 0; i < nk; i++)
                    _mm_prefetch((const char *)(w + i * ks + tap[e] + c0 + 16), _MM_HINT_T0);
            for (int e = 0; e < 9; e++) {
                __m512 r[16];
#pragma GCC unroll 16
                for (int i = 0; i < 16; i++)
                    r[i] = _mm512_maskz_loadu_ps(i < nk ? cm : 0, w + i * ks + tap[e] + c0);
                hd_f32_transpose_regs_16x16__avx512(r);
#pragma GCC unroll 16
                for (int j = 0; j < 16; j++)
                    col[j][e] = r[j];
            }
            for (int j = 0; j < nb; j++)
                filter_store(col[j], nk, u + (size_t)(c0 + j) * c_stride, uoff);
        }
        return;
    }
    const __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32((int)ks));
    const __m512 zero = _mm512_setzero_ps();
    for (int64_t c = 0; c < nc; c++) {
        const float *wc = w + c * cs;
        __m512 gv[9];
        if (ks == 1 && cs > 64)
            for (int e = 0; e < 9; e++)
                _mm_prefetch((const char *)(wc + PF_CHANNELS * cs + tap[e]), _MM_HINT_T0);
#pragma GCC unroll 9
        for (int e = 0; e < 9; e++)
            gv[e] = ks == 1 ? _mm512_maskz_loadu_ps(m, wc + tap[e]) : _mm512_mask_i32gather_ps(zero, m, idx, wc + tap[e], 4);
        filter_store(gv, nk, u + (size_t)c * c_stride, uoff);
    }
}

/* Columns contiguous (ws == 1): window row r of the 16 tiles is 16 masked 8-float loads,
 * paired into 8 ZMM (lanes i and i + 8) and transposed 8 x 8 within each half, which gives
 * d[r][s] for s = 0..5 across the 16 lanes -- cheaper than 6 gathers. */
static void in_rows(const float *x, int64_t cs, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                    size_t pos_stride, size_t c_stride)
{
    __mmask8 rm[16][6];
    intptr_t off[16];
    #pragma GCC unroll 16
    for (int i = 0; i < 16; i++) {
        off[i] = i < t->lanes ? t->off[i] : 0;
        #pragma GCC unroll 6
        for (int r = 0; r < 6; r++)
            rm[i][r] = (__mmask8)(i < t->lanes && (t->rmask[i] >> r & 1) ? t->cmask[i] : 0);
    }
    __mmask16 lanes = (__mmask16)((1u << t->lanes) - 1u);
    for (int64_t c = 0; c < nc; c++) {
        const float *xc = x + c * cs;
        float *dc = dst + (size_t)c * c_stride;
        W4 d[36], v[36];
        #pragma GCC unroll 6
        for (int r = 0; r < 6; r++) {
            __m512 z[8];
            #pragma GCC unroll 8
            for (int i = 0; i < 8; i++) {
                /* masked loads never touch the left-out elements, wherever they would be */
                const float *p0 = (const float *)((uintptr_t)xc + (uintptr_t)((off[i] + (intptr_t)r * t->hs) * 4));
                const float *p1 = (const float *)((uintptr_t)xc + (uintptr_t)((off[i + 8] + (intptr_t)r * t->hs) * 4));
                __m256 lo = _mm256_maskz_loadu_ps(rm[i][r], p0);
                __m256 hi = _mm256_maskz_loadu_ps(rm[i + 8][r], p1);
                z[i] = _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
            }
            /* 8 x 8 transpose in each 256-bit half */
            __m512 a0 = _mm512_unpacklo_ps(z[0], z[1]), a1 = _mm512_unpackhi_ps(z[0], z[1]);
            __m512 a2 = _mm512_unpacklo_ps(z[2], z[3]), a3 = _mm512_unpackhi_ps(z[2], z[3]);
            __m512 a4 = _mm512_unpacklo_ps(z[4], z[5]), a5 = _mm512_unpackhi_ps(z[4], z[5]);
            __m512 a6 = _mm512_unpacklo_ps(z[6], z[7]), a7 = _mm512_unpackhi_ps(z[6], z[7]);
            __m512 b0 = _mm512_shuffle_ps(a0, a2, 0x44), b1 = _mm512_shuffle_ps(a0, a2, 0xEE);
            __m512 b2 = _mm512_shuffle_ps(a1, a3, 0x44), b3 = _mm512_shuffle_ps(a1, a3, 0xEE);
            __m512 b4 = _mm512_shuffle_ps(a4, a6, 0x44), b5 = _mm512_shuffle_ps(a4, a6, 0xEE);
            __m512 b6 = _mm512_shuffle_ps(a5, a7, 0x44), b7 = _mm512_shuffle_ps(a5, a7, 0xEE);
            /* b0: cols 0 of rows 0-3 | col 4 ...: combine 128-bit blocks of b0 and b4 etc. */
            const __m512i lo_idx = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
            const __m512i hi_idx = _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
            W4 *dr = d + 6 * r;
            dr[0] = _mm512_permutex2var_ps(b0, lo_idx, b4);
            dr[1] = _mm512_permutex2var_ps(b1, lo_idx, b5);
            dr[2] = _mm512_permutex2var_ps(b2, lo_idx, b6);
            dr[3] = _mm512_permutex2var_ps(b3, lo_idx, b7);
            dr[4] = _mm512_permutex2var_ps(b0, hi_idx, b4);
            dr[5] = _mm512_permutex2var_ps(b1, hi_idx, b5);
        }
        w4_in_2d(d, v);
        if (t->lanes == 16)
            #pragma GCC unroll 36
            for (int pos = 0; pos < 36; pos++)
                _mm512_storeu_ps(dc + pos * pos_stride, v[pos]);
        else
            #pragma GCC unroll 36
            for (int pos = 0; pos < 36; pos++)
                _mm512_mask_storeu_ps(dc + pos * pos_stride, lanes, v[pos]);
    }
}

void hd_f32_wino4_ukernel_in__avx512(const float *x, int64_t cs, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                     size_t pos_stride, size_t c_stride)
{
    if (t->ws == 1) {
        in_rows(x, cs, nc, t, dst, pos_stride, c_stride);
        return;
    }
    __m512i idx[36];
    __mmask16 msk[36];
    __mmask16 lanes = (__mmask16)((1u << t->lanes) - 1u);
    __m512i off = _mm512_maskz_loadu_epi32(lanes, t->off);
    unsigned rm[6] = {0}, cm[6] = {0};
    for (int i = 0; i < t->lanes; i++)
        #pragma GCC unroll 6
        for (int j = 0; j < 6; j++) {
            rm[j] |= (unsigned)(t->rmask[i] >> j & 1) << i;
            cm[j] |= (unsigned)(t->cmask[i] >> j & 1) << i;
        }
    #pragma GCC unroll 6
    for (int r = 0; r < 6; r++)
        #pragma GCC unroll 6
        for (int s = 0; s < 6; s++) {
            idx[6 * r + s] = _mm512_add_epi32(off, _mm512_set1_epi32(r * t->hs + s * t->ws));
            msk[6 * r + s] = (__mmask16)(rm[r] & cm[s]);
        }
    const __m512 zero = _mm512_setzero_ps();
    for (int64_t c = 0; c < nc; c++) {
        const float *xc = x + c * cs;
        float *dc = dst + (size_t)c * c_stride;
        W4 d[36], v[36];
        #pragma GCC unroll 36
        for (int e = 0; e < 36; e++)
            d[e] = _mm512_mask_i32gather_ps(zero, msk[e], idx[e], xc, 4);
        w4_in_2d(d, v);
        if (t->lanes == 16)
            #pragma GCC unroll 36
            for (int pos = 0; pos < 36; pos++)
                _mm512_storeu_ps(dc + pos * pos_stride, v[pos]);
        else
            #pragma GCC unroll 36
            for (int pos = 0; pos < 36; pos++)
                _mm512_mask_storeu_ps(dc + pos * pos_stride, lanes, v[pos]);
    }
}

void hd_f32_wino4_ukernel_out__avx512(const float *m, size_t pos_stride, size_t k_stride, int64_t nk,
                                      const hd_wino4_out_tiles *t, float *y, int64_t ks, float alpha, float beta,
                                      float *raw)
{
    __mmask16 lanes = (__mmask16)((1u << t->lanes) - 1u);
    const __m512 va = _mm512_set1_ps(alpha);
    const __m128 vb = _mm_set1_ps(beta);
    int rowwise = y && t->ws == 1;
    for (int64_t k = 0; k < nk; k++) {
        const float *mk = m + (size_t)k * k_stride;
        W4 v[36], o[16];
        #pragma GCC unroll 36
        for (int pos = 0; pos < 36; pos++)
            v[pos] = _mm512_maskz_loadu_ps(lanes, mk + pos * pos_stride);
        w4_out_2d(v, o);
        if (!y) {
            float buf[16][16];
            #pragma GCC unroll 16
            for (int e = 0; e < 16; e++)
                _mm512_storeu_ps(buf[e], o[e]);
            for (int i = 0; i < t->lanes; i++)
                #pragma GCC unroll 16
                for (int e = 0; e < 16; e++)
                    raw[(k * HD_WINO4_LANES + i) * 16 + e] = buf[e][i];
            continue;
        }
        float *yk = y + k * ks;
        #pragma GCC unroll 16
        for (int e = 0; e < 16; e++)
            o[e] = _mm512_mul_ps(va, o[e]);
        if (rowwise) {
            #pragma GCC unroll 4
            for (int a = 0; a < 4; a++) {
                /* transpose rows (o[4a+b], lanes 0..15) into 16 runs of 4: run i = tile i */
                __m512 lo01 = _mm512_unpacklo_ps(o[4 * a], o[4 * a + 1]);
                __m512 hi01 = _mm512_unpackhi_ps(o[4 * a], o[4 * a + 1]);
                __m512 lo23 = _mm512_unpacklo_ps(o[4 * a + 2], o[4 * a + 3]);
                __m512 hi23 = _mm512_unpackhi_ps(o[4 * a + 2], o[4 * a + 3]);
                float run[4][16];   /* run[j][4L..4L+3] = tile 4L + j */
                _mm512_storeu_ps(run[0], _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(lo01), _mm512_castps_pd(lo23))));
                _mm512_storeu_ps(run[1], _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(lo01), _mm512_castps_pd(lo23))));
                _mm512_storeu_ps(run[2], _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(hi01), _mm512_castps_pd(hi23))));
                _mm512_storeu_ps(run[3], _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(hi01), _mm512_castps_pd(hi23))));
                for (int i = 0; i < t->lanes; i++) {
                    if (a >= t->nrow[i])
                        continue;
                    float *q = yk + t->off[i] + a * t->hs;
                    __m128 r = _mm_loadu_ps(&run[i & 3][4 * (i >> 2)]);
                    __mmask8 cmk = (__mmask8)((1u << t->ncol[i]) - 1u);
                    if (beta != 0.0f)
                        r = _mm_add_ps(r, _mm_mul_ps(vb, _mm_maskz_loadu_ps(cmk, q)));
                    if (t->ncol[i] == 4)
                        _mm_storeu_ps(q, r);
                    else
                        _mm_mask_storeu_ps(q, cmk, r);
                }
            }
        } else {
            float buf[16][16];
            #pragma GCC unroll 16
            for (int e = 0; e < 16; e++)
                _mm512_storeu_ps(buf[e], o[e]);
            for (int i = 0; i < t->lanes; i++)
                for (int a = 0; a < t->nrow[i]; a++)
                    for (int b = 0; b < t->ncol[i]; b++) {
                        float *q = yk + t->off[i] + a * t->hs + b * t->ws;
                        float r = buf[4 * a + b][i];
                        if (beta != 0.0f) {
                            float u = beta * *q;
                            r = r + u;
                        }
                        *q = r;
                    }
        }
    }
}

/* ---- the channels-contiguous form: one tile at a time, 16 channels per vector ---- */

/* Each window element of the tile is a masked load of 16 channels (zero outside the image
 * or past nc), so the 36 values of a channel run are 36 loads and 36 stores. */
void hd_f32_wino4_ukernel_in_c__avx512(const float *x, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                       size_t pos_stride, size_t t_stride)
{
    for (int i = 0; i < t->lanes; i++) {
        const float *xt = x + t->off[i];
        float *dt = dst + (size_t)i * t_stride;
        unsigned rm = t->rmask[i], cm = t->cmask[i];
        for (int64_t c = 0; c < nc; c += 16) {
            const __mmask16 m = (__mmask16)(nc - c >= 16 ? 0xFFFF : (1u << (nc - c)) - 1u);
            W4 d[36], v[36];
#pragma GCC unroll 6
            for (int r = 0; r < 6; r++)
#pragma GCC unroll 6
                for (int s = 0; s < 6; s++)
                    d[6 * r + s] = (rm >> r & cm >> s & 1)
                                       ? _mm512_maskz_loadu_ps(m, xt + (intptr_t)r * t->hs + (intptr_t)s * t->ws + c)
                                       : _mm512_setzero_ps();
            w4_in_2d(d, v);
#pragma GCC unroll 36
            for (int pos = 0; pos < 36; pos++)
                _mm512_mask_storeu_ps(dt + pos * pos_stride + c, m, v[pos]);
        }
    }
}

void hd_f32_wino4_ukernel_out_c__avx512(const float *m, size_t pos_stride, size_t t_stride, int64_t nk,
                                        const hd_wino4_out_tiles *t, float *y, float alpha, float beta, float *raw)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (int i = 0; i < t->lanes; i++) {
        const float *mt = m + (size_t)i * t_stride;
        for (int64_t k = 0; k < nk; k += 16) {
            const __mmask16 mk = (__mmask16)(nk - k >= 16 ? 0xFFFF : (1u << (nk - k)) - 1u);
            W4 v[36], o[16];
#pragma GCC unroll 36
            for (int pos = 0; pos < 36; pos++)
                v[pos] = _mm512_maskz_loadu_ps(mk, mt + pos * pos_stride + k);
            w4_out_2d(v, o);
            if (!y) {
#pragma GCC unroll 16
                for (int e = 0; e < 16; e++)
                    _mm512_mask_storeu_ps(raw + (16 * i + e) * nk + k, mk, o[e]);
                continue;
            }
            float *yt = y + t->off[i] + k;
            for (int a = 0; a < t->nrow[i]; a++)
                for (int b = 0; b < t->ncol[i]; b++) {
                    float *q = yt + a * t->hs + b * t->ws;
                    __m512 r = _mm512_mul_ps(va, o[4 * a + b]);
                    if (beta != 0.0f)
                        r = _mm512_add_ps(r, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(mk, q)));
                    _mm512_mask_storeu_ps(q, mk, r);
                }
        }
    }
}

/* Output gradient of the backward filter: 16 masked loads per channel run, 36 stores. */
void hd_f32_wino4_ukernel_dy_c__avx512(const float *y, int64_t nk, const hd_wino4_in_tiles *t, float *dst,
                                       size_t pos_stride, size_t t_stride)
{
    for (int i = 0; i < t->lanes; i++) {
        const float *yt = y + t->off[i];
        float *dt = dst + (size_t)i * t_stride;
        unsigned rm = t->rmask[i], cm = t->cmask[i];
        for (int64_t k = 0; k < nk; k += 16) {
            const __mmask16 m = (__mmask16)(nk - k >= 16 ? 0xFFFF : (1u << (nk - k)) - 1u);
            W4 o[16], v[36];
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++)
#pragma GCC unroll 4
                for (int s = 0; s < 4; s++)
                    o[4 * r + s] = (rm >> r & cm >> s & 1)
                                       ? _mm512_maskz_loadu_ps(m, yt + (intptr_t)r * t->hs + (intptr_t)s * t->ws + k)
                                       : _mm512_setzero_ps();
            w4_grad_2d(o, v);
#pragma GCC unroll 36
            for (int pos = 0; pos < 36; pos++)
                _mm512_mask_storeu_ps(dt + pos * pos_stride + k, m, v[pos]);
        }
    }
}
