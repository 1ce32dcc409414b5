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

#include "kernels/conv/wino4-kernels.h"

typedef __m512 W4;
static inline W4 w4_add(W4 a, W4 b) { return _mm512_add_ps(a, b); }
static inline W4 w4_sub(W4 a, W4 b) { return _mm512_sub_ps(a, b); }
static inline W4 w4_mulc(W4 a, float c) { return _mm512_mul_ps(a, _mm512_set1_ps(c)); }
typedef __m512d W4D;
static inline W4D w4d_add(W4D a, W4D b) { return _mm512_add_pd(a, b); }
static inline W4D w4d_sub(W4D a, W4D b) { return _mm512_sub_pd(a, b); }
static inline W4D w4d_mulc(W4D a, double c) { return _mm512_mul_pd(a, _mm512_set1_pd(c)); }
#include "kernels/conv/wino4-transform.inc"

void hd_f32_wino4_filter__avx512(const float g[9][HD_WINO4_LANES], float u[36][HD_WINO4_LANES])
{
    for (int h = 0; h < HD_WINO4_LANES; h += 8) {
        W4D gd[9], ud[36];
        for (int e = 0; e < 9; e++)
            gd[e] = _mm512_cvtps_pd(_mm256_loadu_ps(&g[e][h]));
        w4_filter_2d(gd, ud);
        for (int pos = 0; pos < 36; pos++)
            _mm256_storeu_ps(&u[pos][h], _mm512_cvtpd_ps(ud[pos]));
    }
}

void hd_f32_wino4_in__avx512(const float *x, int64_t cs, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                             size_t pos_stride, size_t c_stride)
{
    __m512i idx[36];
    __mmask16 msk[36];
    __mmask16 lanes = (__mmask16)((1u << t->lanes) - 1u);
    __m512i off = _mm512_maskz_loadu_epi32(lanes, t->off);
    unsigned rm[6] = {0}, cm[6] = {0};
    for (int i = 0; i < t->lanes; i++)
        for (int j = 0; j < 6; j++) {
            rm[j] |= (unsigned)(t->rmask[i] >> j & 1) << i;
            cm[j] |= (unsigned)(t->cmask[i] >> j & 1) << i;
        }
    for (int r = 0; r < 6; r++)
        for (int s = 0; s < 6; s++) {
            idx[6 * r + s] = _mm512_add_epi32(off, _mm512_set1_epi32(r * t->hs + s * t->ws));
            msk[6 * r + s] = (__mmask16)(rm[r] & cm[s]);
        }
    const __m512 zero = _mm512_setzero_ps();
    for (int64_t c = 0; c < nc; c++) {
        const float *xc = x + c * cs;
        float *dc = dst + (size_t)c * c_stride;
        W4 d[36], v[36];
        for (int e = 0; e < 36; e++)
            d[e] = _mm512_mask_i32gather_ps(zero, msk[e], idx[e], xc, 4);
        w4_in_2d(d, v);
        if (t->lanes == 16)
            for (int pos = 0; pos < 36; pos++)
                _mm512_storeu_ps(dc + pos * pos_stride, v[pos]);
        else
            for (int pos = 0; pos < 36; pos++)
                _mm512_mask_storeu_ps(dc + pos * pos_stride, lanes, v[pos]);
    }
}

void hd_f32_wino4_out__avx512(const float *m, size_t pos_stride, size_t k_stride, int64_t nk,
                              const hd_wino4_out_tiles *t, float *y, int64_t ks, float alpha, float beta, float *raw)
{
    __mmask16 lanes = (__mmask16)((1u << t->lanes) - 1u);
    const __m512 va = _mm512_set1_ps(alpha);
    const __m128 vb = _mm_set1_ps(beta);
    int rowwise = y && t->ws == 1;
    for (int64_t k = 0; k < nk; k++) {
        const float *mk = m + (size_t)k * k_stride;
        W4 v[36], o[16];
        for (int pos = 0; pos < 36; pos++)
            v[pos] = _mm512_maskz_loadu_ps(lanes, mk + pos * pos_stride);
        w4_out_2d(v, o);
        if (!y) {
            float buf[16][16];
            for (int e = 0; e < 16; e++)
                _mm512_storeu_ps(buf[e], o[e]);
            for (int i = 0; i < t->lanes; i++)
                for (int e = 0; e < 16; e++)
                    raw[(k * HD_WINO4_LANES + i) * 16 + e] = buf[e][i];
            continue;
        }
        float *yk = y + k * ks;
        for (int e = 0; e < 16; e++)
            o[e] = _mm512_mul_ps(va, o[e]);
        if (rowwise) {
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
