/*
 * f32-wino4-avx2.c -- Winograd F(4x4, 3x3) tile transforms for AVX2 (contract in
 * conv_wino4.h): 8 tiles at once, one per lane; the same scheme as the AVX-512 kernels
 * (masked gathers in, a register transpose and 4-float row stores out); and the
 * channels-contiguous input and output-gradient transforms of the backward filter, 8
 * channels per vector (the forward's channel form, with its own GEMM, is AVX-512 only).
 */
#include <immintrin.h>

#include "kernels/wino4/wino4-ukernels.h"

typedef __m256 W4;
static inline W4 w4_add(W4 a, W4 b) { return _mm256_add_ps(a, b); }
static inline W4 w4_sub(W4 a, W4 b) { return _mm256_sub_ps(a, b); }
static inline W4 w4_mulc(W4 a, float c) { return _mm256_mul_ps(a, _mm256_set1_ps(c)); }
typedef __m256d W4D;
static inline W4D w4d_add(W4D a, W4D b) { return _mm256_add_pd(a, b); }
static inline W4D w4d_sub(W4D a, W4D b) { return _mm256_sub_pd(a, b); }
static inline W4D w4d_mulc(W4D a, double c) { return _mm256_mul_pd(a, _mm256_set1_pd(c)); }
#include "kernels/wino4/wino4-transform.inc"

/* Per channel and 8 lanes: 9 masked gathers (loads when the lanes are contiguous), each half
 * of 4 lanes transformed in double and U stored row by row. */
void hd_f32_wino4_ukernel_filter__avx2(const float *w, int64_t ks, int64_t cs, const int64_t tap[9], int nk, int64_t nc,
                                       float *u, size_t pos_stride, size_t c_stride)
{
    const __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)ks));
    for (int64_t c = 0; c < nc; c++)
        for (int l = 0; l < nk; l += 8) {
            const float *wc = w + c * cs + l * ks;
            float *uc = u + (size_t)c * c_stride + l;
            __m256 m8 = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(nk - l), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
            __m256 gv[9];
            #pragma GCC unroll 9
            for (int e = 0; e < 9; e++)
                gv[e] = ks == 1 ? _mm256_maskload_ps(wc + tap[e], _mm256_castps_si256(m8))
                                : _mm256_mask_i32gather_ps(_mm256_setzero_ps(), wc + tap[e], idx, m8, 4);
            for (int h = 0; h < 8 && l + h < nk; h += 4) {
                __m128i mh = _mm_cmpgt_epi32(_mm_set1_epi32(nk - l - h), _mm_setr_epi32(0, 1, 2, 3));
                W4D gd[9], t[18];
                #pragma GCC unroll 9
                for (int e = 0; e < 9; e++)
                    gd[e] = _mm256_cvtps_pd(h ? _mm256_extractf128_ps(gv[e], 1) : _mm256_castps256_ps128(gv[e]));
                w4_filter_cols(gd, t);
                #pragma GCC unroll 6
                for (int i = 0; i < 6; i++) {
                    W4D row[6];
                    w4_filter_1d(t + 3 * i, row);
                    #pragma GCC unroll 6
                    for (int j = 0; j < 6; j++)
                        _mm_maskstore_ps(uc + (size_t)(6 * i + j) * pos_stride + h, mh, _mm256_cvtpd_ps(row[j]));
                }
            }
        }
}

static inline __m256i lane_mask(unsigned bits)
{
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i b = _mm256_and_si256(_mm256_set1_epi32((int)bits), bit);
    return _mm256_cmpeq_epi32(b, bit);
}

void hd_f32_wino4_ukernel_in__avx2(const float *x, int64_t cs, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                   size_t pos_stride, size_t c_stride)
{
    __m256i idx[36];
    __m256 msk[36];
    int32_t offs[8] = {0};
    for (int i = 0; i < t->lanes; i++)
        offs[i] = t->off[i];
    __m256i off = _mm256_loadu_si256((const __m256i *)offs);
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
            idx[6 * r + s] = _mm256_add_epi32(off, _mm256_set1_epi32(r * t->hs + s * t->ws));
            msk[6 * r + s] = _mm256_castsi256_ps(lane_mask(rm[r] & cm[s]));
        }
    const __m256i lanes = lane_mask((1u << t->lanes) - 1u);
    const __m256 zero = _mm256_setzero_ps();
    for (int64_t c = 0; c < nc; c++) {
        const float *xc = x + c * cs;
        float *dc = dst + (size_t)c * c_stride;
        W4 d[36], v[36];
        #pragma GCC unroll 36
        for (int e = 0; e < 36; e++)
            d[e] = _mm256_mask_i32gather_ps(zero, xc, idx[e], msk[e], 4);
        w4_in_2d(d, v);
        if (t->lanes == 8)
            #pragma GCC unroll 36
            for (int pos = 0; pos < 36; pos++)
                _mm256_storeu_ps(dc + pos * pos_stride, v[pos]);
        else
            #pragma GCC unroll 36
            for (int pos = 0; pos < 36; pos++)
                _mm256_maskstore_ps(dc + pos * pos_stride, lanes, v[pos]);
    }
}

void hd_f32_wino4_ukernel_out__avx2(const float *m, size_t pos_stride, size_t k_stride, int64_t nk,
                                    const hd_wino4_out_tiles *t, float *y, int64_t ks, float alpha, float beta,
                                    float *raw)
{
    const __m256i lanes = lane_mask((1u << t->lanes) - 1u);
    const __m256 va = _mm256_set1_ps(alpha);
    const __m128 vb = _mm_set1_ps(beta);
    int rowwise = y && t->ws == 1;
    for (int64_t k = 0; k < nk; k++) {
        const float *mk = m + (size_t)k * k_stride;
        W4 v[36], o[16];
        #pragma GCC unroll 36
        for (int pos = 0; pos < 36; pos++)
            v[pos] = _mm256_maskload_ps(mk + pos * pos_stride, lanes);
        w4_out_2d(v, o);
        if (!y) {
            float buf[16][8];
            #pragma GCC unroll 16
            for (int e = 0; e < 16; e++)
                _mm256_storeu_ps(buf[e], o[e]);
            for (int i = 0; i < t->lanes; i++)
                #pragma GCC unroll 16
                for (int e = 0; e < 16; e++)
                    raw[(k * HD_WINO4_LANES + i) * 16 + e] = buf[e][i];
            continue;
        }
        float *yk = y + k * ks;
        #pragma GCC unroll 16
        for (int e = 0; e < 16; e++)
            o[e] = _mm256_mul_ps(va, o[e]);
        if (rowwise) {
            #pragma GCC unroll 4
            for (int a = 0; a < 4; a++) {
                __m256 lo01 = _mm256_unpacklo_ps(o[4 * a], o[4 * a + 1]);
                __m256 hi01 = _mm256_unpackhi_ps(o[4 * a], o[4 * a + 1]);
                __m256 lo23 = _mm256_unpacklo_ps(o[4 * a + 2], o[4 * a + 3]);
                __m256 hi23 = _mm256_unpackhi_ps(o[4 * a + 2], o[4 * a + 3]);
                float run[4][8];   /* run[j][4L..4L+3] = tile 4L + j */
                _mm256_storeu_ps(run[0], _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(lo01), _mm256_castps_pd(lo23))));
                _mm256_storeu_ps(run[1], _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(lo01), _mm256_castps_pd(lo23))));
                _mm256_storeu_ps(run[2], _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(hi01), _mm256_castps_pd(hi23))));
                _mm256_storeu_ps(run[3], _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(hi01), _mm256_castps_pd(hi23))));
                for (int i = 0; i < t->lanes; i++) {
                    if (a >= t->nrow[i])
                        continue;
                    float *q = yk + t->off[i] + a * t->hs;
                    __m128 r = _mm_loadu_ps(&run[i & 3][4 * (i >> 2)]);
                    if (t->ncol[i] == 4) {
                        if (beta != 0.0f)
                            r = _mm_add_ps(r, _mm_mul_ps(vb, _mm_loadu_ps(q)));
                        _mm_storeu_ps(q, r);
                    } else {
                        const __m128i colbit = _mm_setr_epi32(0, 1, 2, 3);
                        __m128i cmk = _mm_cmpgt_epi32(_mm_set1_epi32(t->ncol[i]), colbit);
                        if (beta != 0.0f)
                            r = _mm_add_ps(r, _mm_mul_ps(vb, _mm_maskload_ps(q, cmk)));
                        _mm_maskstore_ps(q, cmk, r);
                    }
                }
            }
        } else {
            float buf[16][8];
            #pragma GCC unroll 16
            for (int e = 0; e < 16; e++)
                _mm256_storeu_ps(buf[e], o[e]);
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

/* ---- the channels-contiguous form of the backward filter: 8 channels per vector ---- */

/* Lanes below n (n >= 8: all). */
static inline __m256i first_lanes(int64_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n < 8 ? n : 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The 36 transformed vectors of one tile to their positions; whole vectors with plain stores,
 * a part through the mask (a masked store is microcoded on AMD cores). */
static inline void store36(float *dt, size_t pos_stride, __m256i m, int64_t left, const W4 *v)
{
    if (left >= 8) {
#pragma GCC unroll 36
        for (int pos = 0; pos < 36; pos++)
            _mm256_storeu_ps(dt + pos * pos_stride, v[pos]);
    } else {
#pragma GCC unroll 36
        for (int pos = 0; pos < 36; pos++)
            _mm256_maskstore_ps(dt + pos * pos_stride, m, v[pos]);
    }
}

void hd_f32_wino4_ukernel_in_c__avx2(const float *x, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                     size_t pos_stride, size_t t_stride)
{
    for (int i = 0; i < t->lanes; i++) {
        const float *xt = x + t->off[i];
        float *dt = dst + (size_t)i * t_stride;
        unsigned rm = t->rmask[i], cm = t->cmask[i];
        for (int64_t c = 0; c < nc; c += 8) {
            const __m256i m = first_lanes(nc - c);
            W4 d[36], v[36];
#pragma GCC unroll 6
            for (int r = 0; r < 6; r++)
#pragma GCC unroll 6
                for (int s = 0; s < 6; s++)
                    d[6 * r + s] = (rm >> r & cm >> s & 1)
                                       ? _mm256_maskload_ps(xt + (intptr_t)r * t->hs + (intptr_t)s * t->ws + c, m)
                                       : _mm256_setzero_ps();
            w4_in_2d(d, v);
            store36(dt + c, pos_stride, m, nc - c, v);
        }
    }
}

void hd_f32_wino4_ukernel_dy_c__avx2(const float *y, int64_t nk, const hd_wino4_in_tiles *t, float *dst,
                                     size_t pos_stride, size_t t_stride)
{
    for (int i = 0; i < t->lanes; i++) {
        const float *yt = y + t->off[i];
        float *dt = dst + (size_t)i * t_stride;
        unsigned rm = t->rmask[i], cm = t->cmask[i];
        for (int64_t k = 0; k < nk; k += 8) {
            const __m256i m = first_lanes(nk - k);
            W4 o[16], v[36];
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++)
#pragma GCC unroll 4
                for (int s = 0; s < 4; s++)
                    o[4 * r + s] = (rm >> r & cm >> s & 1)
                                       ? _mm256_maskload_ps(yt + (intptr_t)r * t->hs + (intptr_t)s * t->ws + k, m)
                                       : _mm256_setzero_ps();
            w4_grad_2d(o, v);
            store36(dt + k, pos_stride, m, nk - k, v);
        }
    }
}
