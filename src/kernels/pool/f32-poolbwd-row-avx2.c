/* Max pooling backward on row-contiguous layouts, AVX2 (see pool-ukernels.h): the AVX-512
 * variant's method with 8 outputs per vector.  Stride 1 loads the taps of 8 outputs directly,
 * stride 2 takes the even elements of two loads (both read into the rows' slack at the end),
 * other strides gather.  Also the accumulator flush: 8 doubles at a time, rounded to float
 * once, the scalar flush's operations. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"
#include "kernels/pool/f32-pool-lanes-avx2.h"

#include <math.h>

/* The tap at p[j * sw] for lanes j < 8 (lanes past the caller's outputs hold whatever lies in
 * the slack and are dropped at the store; stride 3 and up gathers only the kl lanes). */
static inline __m256 tap(const float *p, int sw, __m256i kl, __m256i gidx)
{
    if (sw == 1)
        return _mm256_loadu_ps(p);
    if (sw == 2) {
        const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        __m256 lo = _mm256_permutevar8x32_ps(_mm256_loadu_ps(p), even);      /* evens in 0-3 */
        __m256 hi = _mm256_permutevar8x32_ps(_mm256_loadu_ps(p + 8), even);  /* evens in 0-3 */
        return _mm256_permute2f128_ps(lo, hi, 0x20);
    }
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), p, gidx, _mm256_castsi256_ps(kl), 4);
}

/* Per 8 outputs, the running rule per lane over the taps in row-major order (the scalar and
 * AVX-512 rule: strictly greater replaces; propagating, a NaN replaces a non-NaN and stays). */
void hd_f32_pool_ukernel_rowargmax__avx2(const float *const *rows, int nrows, size_t ow, int kw, int sw,
                                         const int32_t *tab, int propagate, int32_t *arg)
{
    const __m256i gidx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(sw));
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    const __m256i none = _mm256_set1_epi32(-1), eight = _mm256_set1_epi32(8);
    int ntaps = nrows * kw;
    /* the tap table in two vectors while it fits them: a tap's offset is then a permute */
    __m256i tab0 = _mm256_setzero_si256(), tab1 = _mm256_setzero_si256();
    if (ntaps <= 16) {
        tab0 = _mm256_maskload_epi32(tab, lanes((size_t)ntaps));
        if (ntaps > 8)
            tab1 = _mm256_maskload_epi32(tab + 8, lanes((size_t)ntaps - 8));
    }
    for (size_t j = 0; j < ow; j += 8) {
        size_t nl = ow - j < 8 ? ow - j : 8;
        __m256i kl = lanes(nl);
        __m256 m = ninf;
        __m256i best = none;
        for (int r = 0, t = 0; r < nrows; r++) {
            const float *base = rows[r] + j * (size_t)sw;
            for (int k = 0; k < kw; k++, t++) {
                __m256 v = tap(base + k, sw, kl, gidx);
                __m256 take = _mm256_cmp_ps(v, m, _CMP_GT_OQ);
                if (propagate)
                    take = _mm256_or_ps(take, _mm256_and_ps(_mm256_cmp_ps(m, m, _CMP_ORD_Q),
                                                            _mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
                m = _mm256_blendv_ps(m, v, take);
                best = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(best),
                                                            _mm256_castsi256_ps(_mm256_set1_epi32(t)), take));
            }
        }
        /* tap to offset; -1 where no tap was chosen, the tap's table entry is -1, or past ow */
        __m256i has = _mm256_and_si256(_mm256_cmpgt_epi32(best, none), kl);
        __m256i off;
        if (ntaps <= 16) {
            __m256i hi = _mm256_cmpgt_epi32(best, _mm256_set1_epi32(7));
            off = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(tab0, best)),
                                                       _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(tab1, _mm256_sub_epi32(best, eight))),
                                                       _mm256_castsi256_ps(hi)));
        } else {
            off = _mm256_mask_i32gather_epi32(none, (const int *)tab, _mm256_max_epi32(best, _mm256_setzero_si256()), has, 4);
        }
        has = _mm256_and_si256(has, _mm256_cmpgt_epi32(off, none));
        off = _mm256_add_epi32(off, _mm256_add_epi32(gidx, _mm256_set1_epi32((int)(j * (size_t)sw))));
        off = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(none), _mm256_castsi256_ps(off),
                                                   _mm256_castsi256_ps(has)));
        if (nl == 8)               /* a masked store is microcoded on AMD cores: tails only */
            _mm256_storeu_si256((__m256i *)(arg + j), off);
        else
            _mm256_maskstore_epi32(arg + j, kl, off);
    }
}

/* dx = alpha * acc + beta * dx rounded once, acc zeroed: the scalar flush, 8 at a time. */
void hd_f32_pool_ukernel_flush__avx2(float *dx, double *acc, size_t n, double alpha, double beta)
{
    const __m256d va = _mm256_set1_pd(alpha), vb = _mm256_set1_pd(beta), z = _mm256_setzero_pd();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256d r0 = _mm256_mul_pd(va, _mm256_loadu_pd(acc + i));
        __m256d r1 = _mm256_mul_pd(va, _mm256_loadu_pd(acc + i + 4));
        if (beta != 0.0) {
            __m256 d = _mm256_loadu_ps(dx + i);
            r0 = _mm256_add_pd(r0, _mm256_mul_pd(vb, _mm256_cvtps_pd(_mm256_castps256_ps128(d))));
            r1 = _mm256_add_pd(r1, _mm256_mul_pd(vb, _mm256_cvtps_pd(_mm256_extractf128_ps(d, 1))));
        }
        _mm256_storeu_ps(dx + i, _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(r0)), _mm256_cvtpd_ps(r1), 1));
        _mm256_storeu_pd(acc + i, z);
        _mm256_storeu_pd(acc + i + 4, z);
    }
    for (; i < n; i++) {
        double r = alpha * acc[i];
        if (beta != 0.0)
            r += beta * (double)dx[i];
        dx[i] = (float)r;
        acc[i] = 0.0;
    }
}
