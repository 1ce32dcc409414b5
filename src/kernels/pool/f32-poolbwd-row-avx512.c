/* Max pooling backward on row-contiguous layouts: 16 outputs per vector, one lane each
 * (see pool-ukernels.h).  Stride 1 loads the taps of 16 outputs directly, stride 2 splits
 * two loads into their even elements (both read into the rows' slack at the end), other
 * strides gather. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

static inline __mmask16 low_bits(size_t n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

/* The tap at p[j * sw] for lanes j < 16 (lanes past the caller's outputs hold whatever lies
 * in the slack and are dropped at the store; stride 3 and up gathers only the nl lanes). */
static inline __m512 tap(const float *p, int sw, __mmask16 k, __m512i even, __m512i gidx)
{
    if (sw == 1)
        return _mm512_loadu_ps(p);
    if (sw == 2)
        return _mm512_permutex2var_ps(_mm512_loadu_ps(p), even, _mm512_loadu_ps(p + 16));
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), k, gidx, p, 4);
}

/* Per 16 outputs, the running rule per lane over the taps in row-major order: a strictly
 * greater value replaces the running one; propagating, a NaN replaces a non-NaN running value,
 * and a NaN running value stays.  (A two-pass form, the maximum first and then the first equal
 * tap, was slower: the chains of the outputs already overlap; see docs/performance.md.) */
void hd_f32_pool_ukernel_rowargmax__avx512(const float *const *rows, int nrows, size_t ow, int kw, int sw,
                                           const int32_t *tab, int propagate, int32_t *arg)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i gidx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                            _mm512_set1_epi32(sw));
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    int ntaps = nrows * kw;
    const __m512i tabv = ntaps <= 16 ? _mm512_maskz_loadu_epi32(low_bits((size_t)ntaps), tab) : _mm512_setzero_si512();
    for (size_t j = 0; j < ow; j += 16) {
        size_t nl = ow - j < 16 ? ow - j : 16;
        __mmask16 kl = low_bits(nl);
        __m512 m = ninf;
        __m512i best = _mm512_set1_epi32(-1);
        for (int r = 0, t = 0; r < nrows; r++) {
            const float *base = rows[r] + j * (size_t)sw;
            for (int k = 0; k < kw; k++, t++) {
                __m512 v = tap(base + k, sw, kl, even, gidx);
                __mmask16 take = _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ);
                if (propagate)
                    take |= _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(m, m, _CMP_ORD_Q), v, v, _CMP_UNORD_Q);
                m = _mm512_mask_mov_ps(m, take, v);
                best = _mm512_mask_mov_epi32(best, take, _mm512_set1_epi32(t));
            }
        }
        /* tap to offset: a lookup in the table (a permute while it fits one vector) */
        __mmask16 has = _mm512_cmpge_epi32_mask(best, _mm512_setzero_si512()) & kl;
        __m512i off = ntaps <= 16 ? _mm512_permutexvar_epi32(best, tabv)
                                  : _mm512_mask_i32gather_epi32(_mm512_set1_epi32(-1), has, best, tab, 4);
        has &= _mm512_cmpge_epi32_mask(off, _mm512_setzero_si512());
        off = _mm512_mask_add_epi32(_mm512_set1_epi32(-1), has, off,
                                    _mm512_add_epi32(gidx, _mm512_set1_epi32((int)(j * (size_t)sw))));
        _mm512_mask_storeu_epi32(arg + j, kl, off);
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
