/* Average pooling backward by gathering, AVX-512 (see pool-ukernels.h): 16 dx values per step,
 * as two vectors of 8 double sums held in registers.  Row form: stride 1
 * loads each term's 16 outputs directly; stride 2 splits the 16 columns into the 8 even and
 * the 8 odd ones (each term reaches only one of the two, from 8 consecutive outputs) and
 * interleaves the two sums at the end; other strides take the scalar kernel. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

static inline __mmask16 low_bits(size_t n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

/* dx[0..16) under mask m = (float)(alpha * sum + beta * dx), lanes 0-7 in a0, 8-15 in a1. */
static inline void finish(float *dx, __mmask16 m, __m512d a0, __m512d a1, double alpha, double beta, int stream)
{
    const __m512d va = _mm512_set1_pd(alpha);
    __m512d r0 = _mm512_mul_pd(va, a0), r1 = _mm512_mul_pd(va, a1);
    if (beta != 0.0) {
        const __m512d vb = _mm512_set1_pd(beta);
        __m512 d = _mm512_maskz_loadu_ps(m, dx);
        r0 = _mm512_add_pd(r0, _mm512_mul_pd(vb, _mm512_cvtps_pd(_mm512_castps512_ps256(d))));
        r1 = _mm512_add_pd(r1, _mm512_mul_pd(vb, _mm512_cvtps_pd(_mm512_extractf32x8_ps(d, 1))));
    }
    __m512 out = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(r0)), _mm512_cvtpd_ps(r1), 1);
    if (stream && m == 0xffff && ((uintptr_t)dx & 63) == 0)
        _mm512_stream_ps(dx, out);
    else
        _mm512_mask_storeu_ps(dx, m, out);
}

void hd_f32_pool_ukernel_gatherrow__avx512(float *dx, size_t w, int pw, int sw, int nterms, const double *const *src,
                                           const int32_t *k, double alpha, double beta)
{
    if (sw != 1 && sw != 2) {
        hd_f32_pool_ukernel_gatherrow__scalar(dx, w, pw, sw, nterms, src, k, alpha, beta);
        return;
    }
    const __m512i lo = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), hi = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
    for (size_t i0 = 0; i0 < w; i0 += 16) {
        __mmask16 m = low_bits(w - i0);
        __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
        if (sw == 1) {
            for (int t = 0; t < nterms; t++) {
                ptrdiff_t o = (ptrdiff_t)i0 + pw - k[t];
                __m512d v0 = _mm512_loadu_pd(src[t] + o), v1 = _mm512_loadu_pd(src[t] + o + 8);
                a0 = _mm512_add_pd(a0, v0);
                a1 = _mm512_add_pd(a1, v1);
            }
        } else {
            /* column i0 + 2j + c takes term t when c is the parity of pw - k[t], from output
             * i0 / 2 + (pw - k[t] + c) / 2 + j */
            __m512d e = _mm512_setzero_pd(), o = _mm512_setzero_pd();
            for (int t = 0; t < nterms; t++) {
                int d = pw - k[t], c = d & 1;
                ptrdiff_t ow = (ptrdiff_t)(i0 / 2) + (d + c) / 2;
                __m512d v = _mm512_loadu_pd(src[t] + ow);
                if (c)
                    o = _mm512_add_pd(o, v);
                else
                    e = _mm512_add_pd(e, v);
            }
            a0 = _mm512_permutex2var_pd(e, lo, o);
            a1 = _mm512_permutex2var_pd(e, hi, o);
        }
        finish(dx + i0, m, a0, a1, alpha, beta, 0);
    }
}

void hd_f32_pool_ukernel_gatherpix__avx512(float *dx, size_t c, int nterms, const double *const *src, double alpha,
                                           double beta, int stream)
{
    for (size_t i = 0; i < c; i += 16) {
        __mmask16 m = low_bits(c - i);
        __mmask8 m0 = (__mmask8)m, m1 = (__mmask8)(m >> 8);
        __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
        for (int t = 0; t < nterms; t++) {
            __m512d v0 = _mm512_maskz_loadu_pd(m0, src[t] + i), v1 = _mm512_maskz_loadu_pd(m1, src[t] + i + 8);
            a0 = _mm512_add_pd(a0, v0);
            a1 = _mm512_add_pd(a1, v1);
        }
        finish(dx + i, m, a0, a1, alpha, beta, stream && beta == 0.0);
    }
}
