/* Max pooling backward by gathering, row-contiguous layouts, AVX-512 (see pool-ukernels.h).
 * Stride 2 only (others go to the scalar variant): sixteen consecutive outputs j reach the 32
 * padded columns 2 j0 .. 2 j0 + 31, window column k of output j landing on column 2 j + k.
 * So the even columns 2 j and the odd columns 2 j + 1 are two 16-lane sums (in doubles, two
 * vectors each), and window column k adds, to lane j of the sum of its parity, output
 * j - k / 2's gradient where that output's argmax is this tap.  Taking k from kw - 1 down to 0
 * takes the outputs of each column left to right: the scalar order.  A masked add leaves a lane
 * without a hit untouched.  The two sums are interleaved back into 32 floats at the end. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

static inline __mmask16 range_mask(int64_t lo, int64_t n)
{
    /* lanes i < 16 with 0 <= lo + i < n */
    uint32_t m = 0xffffu;
    if (lo < 0)
        m = lo <= -16 ? 0 : (m << (-lo)) & 0xffffu;
    int64_t end = n - lo;                   /* lanes below end */
    if (end < 16)
        m &= end <= 0 ? 0 : (1u << end) - 1u;
    return (__mmask16)m;
}

void hd_f32_pool_ukernel_maxgatherplane__avx512(float *dx, size_t w, int pw, int sw, int kw, size_t ow, int nrows,
                                                const int32_t *const *arg, const float *const *g, const int32_t *ty,
                                                double alpha, double beta)
{
    if (sw != 2) {
        hd_f32_pool_ukernel_maxgatherplane__scalar(dx, w, pw, sw, kw, ow, nrows, arg, g, ty, alpha, beta);
        return;
    }
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    /* interleave: out[i] = i even ? e[i / 2] : o[i / 2] (first 16), then e/o[8 + i / 2] */
    const __m512i ilo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i ihi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    /* deinterleave 32 floats into the even and the odd ones */
    const __m512i dev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i dod = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    int64_t jfirst = pw / 2, jlast = ((int64_t)pw + (int64_t)w - 1) / 2;
    for (int64_t j0 = jfirst; j0 <= jlast; j0 += 16) {
        __m512d s[2][2];
        for (int p = 0; p < 2; p++)
            s[p][0] = s[p][1] = _mm512_setzero_pd();
        for (int r = 0; r < nrows; r++) {
            for (int k = kw - 1; k >= 0; k--) {
                int p = k & 1;
                int64_t o0 = j0 - (k >> 1);          /* the output of lane 0 */
                __mmask16 ok = range_mask(o0, (int64_t)ow);
                if (!ok)
                    continue;
                __m512i a = _mm512_maskz_loadu_epi32(ok, arg[r] + o0);
                /* the tap t = ty * kw + k of output o reads arg t + 2 o */
                __m512i want = _mm512_add_epi32(_mm512_set1_epi32((int32_t)(ty[r] * kw + k + 2 * o0)),
                                                _mm512_add_epi32(lane, lane));
                __mmask16 hit = _mm512_mask_cmpeq_epi32_mask(ok, a, want);
                if (!hit)
                    continue;
                __m512 gv = _mm512_maskz_loadu_ps(hit, g[r] + o0);
                __m512d glo = _mm512_cvtps_pd(_mm512_castps512_ps256(gv));
                __m512d ghi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(gv), 1)));
                s[p][0] = _mm512_mask_add_pd(s[p][0], (__mmask8)hit, s[p][0], glo);
                s[p][1] = _mm512_mask_add_pd(s[p][1], (__mmask8)(hit >> 8), s[p][1], ghi);
            }
        }
        /* dx columns 2 j0 - pw + i, i < 32, those inside [0, w) */
        int64_t c0 = 2 * j0 - pw;
        __mmask16 m0 = range_mask(c0, (int64_t)w), m1 = range_mask(c0 + 16, (int64_t)w);
        __m512d v[2][2];
        for (int p = 0; p < 2; p++)
            for (int h = 0; h < 2; h++)
                v[p][h] = _mm512_mul_pd(va, s[p][h]);
        if (beta != 0.0) {
            __m512 d0 = _mm512_maskz_loadu_ps(m0, dx + c0), d1 = _mm512_maskz_loadu_ps(m1, dx + c0 + 16);
            __m512 de[2] = {_mm512_permutex2var_ps(d0, dev, d1), _mm512_permutex2var_ps(d0, dod, d1)};
            for (int p = 0; p < 2; p++) {
                __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(de[p]));
                __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(de[p]), 1)));
                v[p][0] = _mm512_add_pd(v[p][0], _mm512_mul_pd(vb, lo));
                v[p][1] = _mm512_add_pd(v[p][1], _mm512_mul_pd(vb, hi));
            }
        }
        __m512 f[2];
        for (int p = 0; p < 2; p++)
            f[p] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(v[p][0])), _mm512_cvtpd_ps(v[p][1]), 1);
        _mm512_mask_storeu_ps(dx + c0, m0, _mm512_permutex2var_ps(f[0], ilo, f[1]));
        _mm512_mask_storeu_ps(dx + c0 + 16, m1, _mm512_permutex2var_ps(f[0], ihi, f[1]));
    }
}
