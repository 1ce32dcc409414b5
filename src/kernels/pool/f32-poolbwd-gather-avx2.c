/* Average pooling backward by gathering, AVX2 (see pool-ukernels.h): 8 dx values per step, as
 * two vectors of 4 double sums held in registers.  Row form: stride 1 loads each term's 8 outputs directly; stride 2 splits
 * the 8 columns into the 4 even and the 4 odd ones and interleaves the sums at the end; other
 * strides take the scalar kernel.  Stores are plain (the stream hint is ignored). */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"
#include "kernels/pool/f32-pool-lanes-avx2.h"

/* 32-bit comparison lanes 0-3 / 4-7 widened to 64-bit masks. */
static inline __m256d wide_lo(__m256i m) { return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(m))); }
static inline __m256d wide_hi(__m256i m) { return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(m, 1))); }

/* dx[0..n) (n <= 8) = alpha * sums + beta * dx; a whole vector loads and stores plainly, a part
 * through the mask (a masked store is microcoded on AMD cores, several times a plain one's cost). */
static inline void finish(float *dx, size_t n, __m256d a0, __m256d a1, double alpha, double beta)
{
    const __m256i m = lanes(n);
    const __m256d va = _mm256_set1_pd(alpha);
    __m256d r0 = _mm256_mul_pd(va, a0), r1 = _mm256_mul_pd(va, a1);
    if (beta != 0.0) {
        const __m256d vb = _mm256_set1_pd(beta);
        __m256 d = n >= 8 ? _mm256_loadu_ps(dx) : _mm256_maskload_ps(dx, m);
        r0 = _mm256_add_pd(r0, _mm256_mul_pd(vb, _mm256_cvtps_pd(_mm256_castps256_ps128(d))));
        r1 = _mm256_add_pd(r1, _mm256_mul_pd(vb, _mm256_cvtps_pd(_mm256_extractf128_ps(d, 1))));
    }
    __m256 out = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(r0)), _mm256_cvtpd_ps(r1), 1);
    if (n >= 8)
        _mm256_storeu_ps(dx, out);
    else
        _mm256_maskstore_ps(dx, m, out);
}

void hd_f32_pool_ukernel_gatherrow__avx2(float *dx, size_t w, int pw, int sw, int nterms, const double *const *src,
                                         const int32_t *k, double alpha, double beta)
{
    if (sw != 1 && sw != 2) {
        hd_f32_pool_ukernel_gatherrow__scalar(dx, w, pw, sw, nterms, src, k, alpha, beta);
        return;
    }
    for (size_t i0 = 0; i0 < w; i0 += 8) {
        __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
        if (sw == 1) {
            for (int t = 0; t < nterms; t++) {
                ptrdiff_t o = (ptrdiff_t)i0 + pw - k[t];
                __m256d v0 = _mm256_loadu_pd(src[t] + o), v1 = _mm256_loadu_pd(src[t] + o + 4);
                a0 = _mm256_add_pd(a0, v0);
                a1 = _mm256_add_pd(a1, v1);
            }
        } else {
            /* column i0 + 2j + c takes term t when c is the parity of pw - k[t], from output
             * i0 / 2 + (pw - k[t] + c) / 2 + j */
            __m256d e = _mm256_setzero_pd(), o = _mm256_setzero_pd();
            for (int t = 0; t < nterms; t++) {
                int d = pw - k[t], c = d & 1;
                ptrdiff_t ow = (ptrdiff_t)(i0 / 2) + (d + c) / 2;
                __m256d v = _mm256_loadu_pd(src[t] + ow);
                if (c)
                    o = _mm256_add_pd(o, v);
                else
                    e = _mm256_add_pd(e, v);
            }
            __m256d l = _mm256_unpacklo_pd(e, o), h = _mm256_unpackhi_pd(e, o);   /* e0 o0 e2 o2 | e1 o1 e3 o3 */
            a0 = _mm256_permute2f128_pd(l, h, 0x20);
            a1 = _mm256_permute2f128_pd(l, h, 0x31);
        }
        finish(dx + i0, w - i0, a0, a1, alpha, beta);
    }
}

void hd_f32_pool_ukernel_gatherpix__avx2(float *dx, size_t c, int nterms, const double *const *src, double alpha,
                                         double beta, int stream)
{
    (void)stream;                 /* plain stores: the AVX2 stream fence is the scalar no-op */
    for (size_t i = 0; i < c; i += 8) {
        __m256i m = lanes(c - i);
        __m256i m0 = _mm256_castpd_si256(wide_lo(m)), m1 = _mm256_castpd_si256(wide_hi(m));
        __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
        for (int t = 0; t < nterms; t++) {
            __m256d v0 = _mm256_maskload_pd(src[t] + i, m0), v1 = _mm256_maskload_pd(src[t] + i + 4, m1);
            a0 = _mm256_add_pd(a0, v0);
            a1 = _mm256_add_pd(a1, v1);
        }
        finish(dx + i, c - i, a0, a1, alpha, beta);
    }
}
