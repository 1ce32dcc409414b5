/* Max pooling backward by gathering, channel-contiguous layouts, AVX-512 (see
 * pool-ukernels.h).  argmax8 is the argmax kernel with the tap narrowed to a byte, so that
 * a 16-channel vector's taps are one 16-byte load and one byte compare in maxgatherrow.
 *
 * maxgatherrow sums in float where that is bitwise the double rule: alpha 1, beta 0 and at
 * most two terms (so at most two contributions to a value).  A float sum of two floats
 * rounded once equals their double sum rounded to float (double carries more than twice
 * float's precision plus two bits, so the second rounding never changes the first's
 * result), and +0.0 plus one float is exact in both (and turns -0 into +0 in both).  Three
 * terms or more, or other scales: doubles. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

static inline __mmask16 low_bits(size_t n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

/* The running rule per lane, as the argmax kernel.  Without propagation the running value
 * is never NaN, so it is max(v, m) with m kept on NaN and ties (vmaxps returns its second
 * operand then): the chain from tap to tap is one max instead of a compare and a blend.  Four
 * 16-channel vectors at a time, so that their chains overlap. */
static inline void step(__m512 *m, __m512i *best, __m512 v, int t, int propagate)
{
    __mmask16 take = _mm512_cmp_ps_mask(v, *m, _CMP_GT_OQ);
    if (propagate) {
        take |= _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(*m, *m, _CMP_ORD_Q), v, v, _CMP_UNORD_Q);
        *m = _mm512_mask_mov_ps(*m, take, v);
    } else {
        *m = _mm512_max_ps(v, *m);
    }
    *best = _mm512_mask_mov_epi32(*best, take, _mm512_set1_epi32(t));
}

void hd_f32_pool_ukernel_argmax8__avx512(const float *const *taps, int ntaps, size_t c, int propagate, int8_t *arg)
{
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const __m512i none = _mm512_set1_epi32(-1);
    size_t i = 0;
    for (; i + 64 <= c; i += 64) {
        __m512 m0 = ninf, m1 = ninf, m2 = ninf, m3 = ninf;
        __m512i b0 = none, b1 = none, b2 = none, b3 = none;
        for (int t = 0; t < ntaps; t++) {
            const float *p = taps[t] + i;
            step(&m0, &b0, _mm512_loadu_ps(p), t, propagate);
            step(&m1, &b1, _mm512_loadu_ps(p + 16), t, propagate);
            step(&m2, &b2, _mm512_loadu_ps(p + 32), t, propagate);
            step(&m3, &b3, _mm512_loadu_ps(p + 48), t, propagate);
        }
        _mm_storeu_si128((__m128i *)(void *)(arg + i), _mm512_cvtepi32_epi8(b0));
        _mm_storeu_si128((__m128i *)(void *)(arg + i + 16), _mm512_cvtepi32_epi8(b1));
        _mm_storeu_si128((__m128i *)(void *)(arg + i + 32), _mm512_cvtepi32_epi8(b2));
        _mm_storeu_si128((__m128i *)(void *)(arg + i + 48), _mm512_cvtepi32_epi8(b3));
    }
    for (; i < c; i += 16) {
        __mmask16 k = low_bits(c - i);
        __m512 m = ninf;
        __m512i best = none;
        for (int t = 0; t < ntaps; t++)
            step(&m, &best, _mm512_maskz_loadu_ps(k, taps[t] + i), t, propagate);
        _mm512_mask_cvtepi32_storeu_epi8(arg + i, k, best);
    }
}

static inline void put(float *dx, __mmask16 m, __m512 v, int stream)
{
    if (stream && m == 0xffff && ((uintptr_t)dx & 63) == 0)
        _mm512_stream_ps(dx, v);
    else if (m == 0xffff)
        _mm512_storeu_ps(dx, v);        /* a masked store is microcoded on AMD cores */
    else
        _mm512_mask_storeu_ps(dx, m, v);
}

/* One 16-channel vector of one position in doubles: the rule as written (m the real lanes). */
static inline __m512 sum_double(const int8_t *const *ta, const int8_t *tt, const float *const *tg, int nt, size_t i,
                                __mmask16 m, __m512d va, __m512d vb, double beta, const float *d)
{
    __m512d lo = _mm512_setzero_pd(), hi = _mm512_setzero_pd();
    for (int t = 0; t < nt; t++) {
        __mmask16 hit = _mm_mask_cmpeq_epi8_mask(m, _mm_maskz_loadu_epi8(m, ta[t] + i), _mm_set1_epi8(tt[t]));
        __m512 v = _mm512_maskz_loadu_ps(hit, tg[t] + i);
        lo = _mm512_mask_add_pd(lo, (__mmask8)hit, lo, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
        hi = _mm512_mask_add_pd(hi, (__mmask8)(hit >> 8), hi,
                                _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
    }
    lo = _mm512_mul_pd(va, lo);
    hi = _mm512_mul_pd(va, hi);
    if (beta != 0.0) {
        __m512 x = _mm512_maskz_loadu_ps(m, d + i);
        lo = _mm512_add_pd(lo, _mm512_mul_pd(vb, _mm512_cvtps_pd(_mm512_castps512_ps256(x))));
        hi = _mm512_add_pd(hi, _mm512_mul_pd(vb, _mm512_cvtps_pd(_mm256_castpd_ps(
                                                   _mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)))));
    }
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

/* With alpha 1 and beta 0, positions with at most two terms are summed in float (bitwise the
 * rule, see the top of this file); others in doubles.  (Summing those in float with a count
 * of each lane's contributions, and again in doubles where a lane had three or more, was
 * slower: with 3x3 stride 2 windows nearly every 16-lane vector of a corner position has such
 * a lane.) */
void hd_f32_pool_ukernel_maxgatherrow__avx512(float *dx, ptrdiff_t dxw, size_t w, size_t c, int nrows,
                                              const int8_t *const *arg, const float *const *g, const int32_t *ty,
                                              ptrdiff_t gw, const int32_t *col, const int32_t *ncov, int ncol,
                                              double alpha, double beta, int stream)
{
    const int8_t *ta[128];
    const float *tg[128];
    int8_t tt[128];
    const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    int plain = alpha == 1.0 && beta == 0.0;
    for (size_t iw = 0; iw < w; iw++) {
        float *d = dx + (ptrdiff_t)iw * dxw;
        const int32_t *e = col + iw * (size_t)ncol * 3;
        int nt = 0;
        for (int r = 0; r < nrows; r++)
            for (int m = 0; m < ncov[iw]; m++, nt++) {
                const int32_t *q = e + m * 3;
                ta[nt] = arg[r] + (size_t)q[0] * c;
                tg[nt] = g[r] + (ptrdiff_t)q[0] * gw;
                tt[nt] = (int8_t)(ty[r] * q[2] + q[1]);
            }
        for (size_t i = 0; i < c; i += 16) {
            __mmask16 m = low_bits(c - i);
            __m512 s;
            if (plain && nt <= 2) {
                s = _mm512_setzero_ps();
                for (int t = 0; t < nt; t++) {
                    __mmask16 hit =
                        _mm_mask_cmpeq_epi8_mask(m, _mm_maskz_loadu_epi8(m, ta[t] + i), _mm_set1_epi8(tt[t]));
                    s = _mm512_mask_add_ps(s, hit, s, _mm512_maskz_loadu_ps(hit, tg[t] + i));
                }
            } else {
                s = sum_double(ta, tt, tg, nt, i, m, va, vb, beta, d);
            }
            put(d + i, m, s, stream);
        }
    }
}
