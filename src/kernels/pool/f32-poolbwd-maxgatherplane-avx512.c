/* Max pooling backward by gathering, row-contiguous layouts, AVX-512 (see pool-ukernels.h).
 * Stride 2 only (others go to the scalar variant): sixteen consecutive outputs j reach the 32
 * padded columns 2 j0 .. 2 j0 + 31, window column k of output j landing on column 2 j + k.
 * So the even columns 2 j and the odd columns 2 j + 1 are two 16-lane sums, and window column
 * k adds, to lane j of the sum of its parity, output j - k / 2's gradient where that output's
 * argmax is this tap.  Taking k from kw - 1 down to 0 takes the outputs of each column left to
 * right: the scalar order.  A masked add leaves a lane without a hit untouched.  The two sums
 * are interleaved back into 32 floats at the end.
 *
 * A parity whose columns have at most two terms (nrows times its window columns), under
 * alpha 1 and beta 0, is summed in float: the float sum of two floats, rounded once, is their
 * double sum rounded to float (double carries more than twice float's precision plus two bits),
 * and +0.0 plus one float is exact in both (turning -0 into +0 in both).  Otherwise doubles,
 * two vectors per 16 lanes.  (3x3 stride 2: a dx row inside one window row has one or two
 * terms per column; a row shared by two output rows has two on odd columns and four on even
 * ones, the corners.) */
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

/* The lanes i (among ok) of outputs o0 + i whose argmax is tap t (arg t + 2 (o0 + i)), and
 * their gradients (0 elsewhere). */
static inline __mmask16 hits(const int32_t *arg, const float *g, int64_t o0, __mmask16 ok, int32_t t,
                             __m512i lane2, __m512 *gv)
{
    __m512i a = _mm512_maskz_loadu_epi32(ok, arg + o0);
    __m512i want = _mm512_add_epi32(_mm512_set1_epi32((int32_t)(t + 2 * o0)), lane2);
    __mmask16 hit = _mm512_mask_cmpeq_epi32_mask(ok, a, want);
    *gv = _mm512_maskz_loadu_ps(hit, g + o0);
    return hit;
}

static inline void add_f(__m512 *s, __mmask16 hit, __m512 gv)
{
    *s = _mm512_mask_add_ps(*s, hit, *s, gv);
}

static inline __m512d lo_pd(__m512 v)
{
    return _mm512_cvtps_pd(_mm512_castps512_ps256(v));
}

static inline __m512d hi_pd(__m512 v)
{
    return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

static inline void add_d(__m512d *lo, __m512d *hi, __mmask16 hit, __m512 gv)
{
    *lo = _mm512_mask_add_pd(*lo, (__mmask8)hit, *lo, lo_pd(gv));
    *hi = _mm512_mask_add_pd(*hi, (__mmask8)(hit >> 8), *hi, hi_pd(gv));
}

/* (float)(alpha * s + beta * d) of the 16 lanes (s in two double vectors), in double. */
static inline __m512 finish(__m512d slo, __m512d shi, __m512d va, __m512d vb, int with_beta, __m512 d)
{
    __m512d lo = _mm512_mul_pd(va, slo), hi = _mm512_mul_pd(va, shi);
    if (with_beta) {
        lo = _mm512_add_pd(lo, _mm512_mul_pd(vb, lo_pd(d)));
        hi = _mm512_add_pd(hi, _mm512_mul_pd(vb, hi_pd(d)));
    }
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

/* One dx row; KW is a constant where the caller names one, so that the tap loop unrolls. */
static inline __attribute__((always_inline)) void gather_row(const int KW, float *dx, size_t w, int pw, size_t ow,
                                                             int nrows, const int32_t *const *arg,
                                                             const float *const *g, const int32_t *ty, double alpha,
                                                             double beta)
{
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i lane2 = _mm512_add_epi32(lane, lane);
    /* interleave: out[i] = i even ? e[i / 2] : o[i / 2] (first 16), then e/o[8 + i / 2] */
    const __m512i ilo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i ihi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    /* deinterleave 32 floats into the even and the odd ones */
    const __m512i dev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i dod = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    int plain = alpha == 1.0 && beta == 0.0;
    int fe = plain && nrows * ((KW + 1) / 2) <= 2;      /* even columns in float */
    int fo = plain && nrows * (KW / 2) <= 2;            /* odd columns in float */
    int64_t jfirst = pw / 2, jlast = ((int64_t)pw + (int64_t)w - 1) / 2, kmax = (KW - 1) / 2;
    for (int64_t j0 = jfirst; j0 <= jlast; j0 += 16) {
        /* every output o0 .. o0 + 15 real for every k: no range masks to work out */
        int inner = j0 - kmax >= 0 && j0 + 16 <= (int64_t)ow;
        /* the sums, named rather than indexed by parity so that they stay in registers */
        __m512 ef = _mm512_setzero_ps(), of = ef;
        __m512d e0 = _mm512_setzero_pd(), e1 = e0, o0 = e0, o1 = e0;
        for (int r = 0; r < nrows && KW == 3; r++) {
            /* window columns 2, then 1 and 0, which read the same outputs */
            __mmask16 okl = inner ? (__mmask16)0xffff : range_mask(j0 - 1, (int64_t)ow);
            __mmask16 okr = inner ? (__mmask16)0xffff : range_mask(j0, (int64_t)ow);
            int32_t t0 = ty[r] * 3;
            __m512i al = _mm512_maskz_loadu_epi32(okl, arg[r] + j0 - 1);
            __m512i ar = _mm512_maskz_loadu_epi32(okr, arg[r] + j0);
            __m512 gl = _mm512_maskz_loadu_ps(okl, g[r] + j0 - 1);
            __m512 gr = _mm512_maskz_loadu_ps(okr, g[r] + j0);
            __m512i wl = _mm512_add_epi32(_mm512_set1_epi32((int32_t)(t0 + 2 + 2 * (j0 - 1))), lane2);
            __m512i wr = _mm512_add_epi32(_mm512_set1_epi32((int32_t)(t0 + 2 * j0)), lane2);
            __mmask16 h2 = _mm512_mask_cmpeq_epi32_mask(okl, al, wl);
            __mmask16 h1 = _mm512_mask_cmpeq_epi32_mask(okr, ar, _mm512_add_epi32(wr, _mm512_set1_epi32(1)));
            __mmask16 h0 = _mm512_mask_cmpeq_epi32_mask(okr, ar, wr);
            if (fe) {
                add_f(&ef, h2, gl);
                add_f(&ef, h0, gr);
            } else {
                add_d(&e0, &e1, h2, gl);
                add_d(&e0, &e1, h0, gr);
            }
            if (fo)
                add_f(&of, h1, gr);
            else
                add_d(&o0, &o1, h1, gr);
        }
        for (int r = 0; r < nrows && KW != 3; r++) {
            for (int k = KW - 1; k >= 0; k--) {
                int64_t os = j0 - (k >> 1);           /* the output of lane 0 */
                __mmask16 ok = inner ? (__mmask16)0xffff : range_mask(os, (int64_t)ow);
                __m512 gv;
                __mmask16 hit = hits(arg[r], g[r], os, ok, ty[r] * KW + k, lane2, &gv);
                if (k & 1) {
                    if (fo)
                        add_f(&of, hit, gv);
                    else
                        add_d(&o0, &o1, hit, gv);
                } else {
                    if (fe)
                        add_f(&ef, hit, gv);
                    else
                        add_d(&e0, &e1, hit, gv);
                }
            }
        }
        /* dx columns 2 j0 - pw + i, i < 32, those inside [0, w) */
        int64_t c0 = 2 * j0 - pw;
        __mmask16 m0 = range_mask(c0, (int64_t)w), m1 = range_mask(c0 + 16, (int64_t)w);
        __m512 de = _mm512_setzero_ps(), dd = de;
        if (beta != 0.0) {
            __m512 d0 = _mm512_maskz_loadu_ps(m0, dx + c0), d1 = _mm512_maskz_loadu_ps(m1, dx + c0 + 16);
            de = _mm512_permutex2var_ps(d0, dev, d1);
            dd = _mm512_permutex2var_ps(d0, dod, d1);
        }
        __m512 fev = fe ? ef : finish(e0, e1, va, vb, beta != 0.0, de);
        __m512 fod = fo ? of : finish(o0, o1, va, vb, beta != 0.0, dd);
        _mm512_mask_storeu_ps(dx + c0, m0, _mm512_permutex2var_ps(fev, ilo, fod));
        _mm512_mask_storeu_ps(dx + c0 + 16, m1, _mm512_permutex2var_ps(fev, ihi, fod));
    }
}

void hd_f32_pool_ukernel_maxgatherplane__avx512(float *dx, size_t w, int pw, int sw, int kw, size_t ow, int nrows,
                                                const int32_t *const *arg, const float *const *g, const int32_t *ty,
                                                double alpha, double beta)
{
    if (sw != 2)
        hd_f32_pool_ukernel_maxgatherplane__scalar(dx, w, pw, sw, kw, ow, nrows, arg, g, ty, alpha, beta);
    else if (kw == 3)
        gather_row(3, dx, w, pw, ow, nrows, arg, g, ty, alpha, beta);
    else
        gather_row(kw, dx, w, pw, ow, nrows, arg, g, ty, alpha, beta);
}
