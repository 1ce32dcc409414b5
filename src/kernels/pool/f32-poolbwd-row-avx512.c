/* Max pooling backward on row-contiguous layouts: 16 outputs per vector, one lane each, the
 * window's taps folded in row-major order (see pool-ukernels.h).  Stride 1 loads the taps of
 * 16 outputs directly, stride 2 splits two loads into their even elements, other strides
 * gather.  Every load is masked to the elements the outputs own, so nothing past
 * rows[r][(ow - 1) * sw + kw - 1] is read. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

static inline __mmask16 low_bits(size_t n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

/* The tap at p[j * sw] for the nl lanes j < nl (others 0, never chosen by the mask). */
static inline __m512 tap(const float *p, int sw, size_t nl, __m512i even, __m512i gidx)
{
    __mmask16 k = low_bits(nl);
    if (sw == 1)
        return _mm512_maskz_loadu_ps(k, p);
    if (sw == 2) {
        size_t cnt = 2 * nl - 1;           /* elements p[0 .. 2*(nl-1)] */
        __m512 lo = _mm512_maskz_loadu_ps(low_bits(cnt), p);
        __m512 hi = _mm512_maskz_loadu_ps(cnt > 16 ? low_bits(cnt - 16) : 0, p + 16);
        return _mm512_permutex2var_ps(lo, even, hi);
    }
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), k, gidx, p, 4);
}

void hd_f32_pool_ukernel_rowargmax__avx512(const float *const *rows, int nrows, size_t ow, int kw, int sw,
                                           const int32_t *tab, int propagate, int32_t *arg)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i gidx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                            _mm512_set1_epi32(sw));
    for (size_t j = 0; j < ow; j += 16) {
        size_t nl = ow - j < 16 ? ow - j : 16;
        __m512 m = _mm512_set1_ps(-INFINITY);
        __m512i best = _mm512_set1_epi32(-1);
        for (int r = 0; r < nrows; r++) {
            const float *base = rows[r] + j * (size_t)sw;
            for (int k = 0; k < kw; k++) {
                __m512 v = tap(base + k, sw, nl, even, gidx);
                /* the scalar rule per lane: strictly greater replaces; propagating, a NaN
                 * replaces a non-NaN running value; a NaN running value stays */
                __mmask16 take = _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ);
                if (propagate)
                    take |= _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(m, m, _CMP_ORD_Q), v, v, _CMP_UNORD_Q);
                m = _mm512_mask_mov_ps(m, take, v);
                best = _mm512_mask_mov_epi32(best, take, _mm512_set1_epi32(r * kw + k));
            }
        }
        /* tap to offset: a gather from the table for the lanes that chose a tap */
        __mmask16 has = _mm512_cmpge_epi32_mask(best, _mm512_setzero_si512());
        __m512i off = _mm512_mask_i32gather_epi32(_mm512_set1_epi32(-1), has, best, tab, 4);
        has = _mm512_cmpge_epi32_mask(off, _mm512_setzero_si512());
        off = _mm512_mask_add_epi32(_mm512_set1_epi32(-1), has, off,
                                    _mm512_add_epi32(gidx, _mm512_set1_epi32((int)(j * (size_t)sw))));
        _mm512_mask_storeu_epi32(arg + j, low_bits(nl), off);
    }
}

/* The flush with non-temporal stores for the 64-byte aligned body of dx (beta == 0 only: the
 * caller keeps the plain flush otherwise, since dx is read then anyway); the values are the
 * plain flush's: 8 doubles at a time, rounded to float once.  No fence here: a fence per row
 * would wait for each row's stores to reach memory; the caller fences once per task. */
void hd_f32_pool_ukernel_flush_stream__avx512(float *dx, double *acc, size_t n, double alpha, double beta)
{
    (void)beta;
    const __m512d va = _mm512_set1_pd(alpha), z = _mm512_setzero_pd();
    size_t i = 0;
    size_t head = (size_t)((64 - ((uintptr_t)dx & 63)) & 63) / sizeof(float);
    if ((uintptr_t)dx % sizeof(float) != 0)
        head = n;                                  /* never aligned: plain stores only */
    if (head > n)
        head = n;
    while (i < head) {
        size_t m = head - i < 8 ? head - i : 8;
        __mmask8 k = (__mmask8)((1u << m) - 1u);
        _mm256_mask_storeu_ps(dx + i, k, _mm512_cvtpd_ps(_mm512_mul_pd(va, _mm512_maskz_loadu_pd(k, acc + i))));
        _mm512_mask_storeu_pd(acc + i, k, z);
        i += m;
    }
    for (; i + 16 <= n; i += 16) {
        __m256 lo = _mm512_cvtpd_ps(_mm512_mul_pd(va, _mm512_loadu_pd(acc + i)));
        __m256 hi = _mm512_cvtpd_ps(_mm512_mul_pd(va, _mm512_loadu_pd(acc + i + 8)));
        _mm512_stream_ps(dx + i, _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1));
        _mm512_storeu_pd(acc + i, z);
        _mm512_storeu_pd(acc + i + 8, z);
    }
    for (; i < n; i += 8) {
        size_t m = n - i < 8 ? n - i : 8;
        __mmask8 k = (__mmask8)((1u << m) - 1u);
        _mm256_mask_storeu_ps(dx + i, k, _mm512_cvtpd_ps(_mm512_mul_pd(va, _mm512_maskz_loadu_pd(k, acc + i))));
        _mm512_mask_storeu_pd(acc + i, k, z);
    }
}

void hd_f32_pool_ukernel_stream_fence__avx512(void)
{
    _mm_sfence();
}
