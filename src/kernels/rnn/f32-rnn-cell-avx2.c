/* kernels/rnn/f32-rnn-cell-avx2.c -- RNN cell rows (rnn-ukernels.h) 8 units at a time with a
 * polynomial exp (accuracy stated in rnn-ukernels.h). */
#include <immintrin.h>
#include <stdint.h>

#include "kernels/rnn/rnn-ukernels.h"

/* exp(x): x = n ln2 + r, e^r by Horner on the degree-7 Taylor polynomial, times 2^n built in
 * the exponent field.  The clamp keeps 2^n a normal number; NaN is passed through. */
static inline __m256 exp8(__m256 x)
{
    const __m256 nan_mask = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), _mm256_set1_ps(88.3f));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    /* ln 2 = 0.693359375 (exact in 10 bits, so n * hi is exact) - 2.12194440e-4 */
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.0f / 5040.0f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    __m256 v = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
    return _mm256_blendv_ps(v, x, nan_mask);
}

static inline __m256 sigm8(__m256 x)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(one, _mm256_add_ps(one, exp8(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}

/* tanh on |x| then the sign put back: 1 - 2 / (e^{2|x|} + 1) never cancels to the wrong side */
static inline __m256 tanh8(__m256 x)
{
    const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    __m256 ax = _mm256_andnot_ps(sign, x);
    __m256 e = exp8(_mm256_add_ps(ax, ax));
    __m256 t = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
    return _mm256_or_ps(t, _mm256_and_ps(sign, x));
}

/* Lane mask for the last REM (< 8) elements. */
static inline __m256i tail_mask(size_t rem)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)rem), idx);
}

static inline __m256 ld(const float *p, size_t left, __m256i m)
{
    return left >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, m);
}

/* A pre-activation with its optional bias (rnn-ukernels.h): p[i] + b[i], or p[i] alone. */
static inline __m256 ldb(const float *p, const float *b, size_t i, size_t left, __m256i m)
{
    return b ? _mm256_add_ps(ld(p + i, left, m), ld(b + i, left, m)) : ld(p + i, left, m);
}

static inline void st(float *p, __m256 v, size_t left, __m256i m)
{
    if (left >= 8)
        _mm256_storeu_ps(p, v);
    else
        _mm256_maskstore_ps(p, m, v);
}

static void lstm_fwd(size_t N, size_t H, const float *px, const float *bx, const float *pq, const float *bq,
                     const float *cprev, float *gt, float *c, float *h)
{
    for (size_t j = 0; j < N; j += 8) {
        size_t left = N - j;
        __m256i m = tail_mask(left < 8 ? left : 0);
        __m256 ig = sigm8(_mm256_add_ps(ldb(px, bx, j, left, m), ldb(pq, bq, j, left, m)));
        __m256 fg = sigm8(_mm256_add_ps(ldb(px, bx, H + j, left, m), ldb(pq, bq, H + j, left, m)));
        __m256 gg = tanh8(_mm256_add_ps(ldb(px, bx, 2 * H + j, left, m), ldb(pq, bq, 2 * H + j, left, m)));
        __m256 og = sigm8(_mm256_add_ps(ldb(px, bx, 3 * H + j, left, m), ldb(pq, bq, 3 * H + j, left, m)));
        __m256 cc = _mm256_add_ps(_mm256_mul_ps(fg, ld(cprev + j, left, m)), _mm256_mul_ps(ig, gg));
        st(gt + j, ig, left, m);
        st(gt + H + j, fg, left, m);
        st(gt + 2 * H + j, gg, left, m);
        st(gt + 3 * H + j, og, left, m);
        st(c + j, cc, left, m);
        st(h + j, _mm256_mul_ps(og, tanh8(cc)), left, m);
    }
}

static void gru_fwd(size_t N, size_t H, const float *px, const float *bx, const float *pq, const float *bq,
                    const float *hprev, float *gt, float *qn, float *h)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    for (size_t j = 0; j < N; j += 8) {
        size_t left = N - j;
        __m256i m = tail_mask(left < 8 ? left : 0);
        __m256 rg = sigm8(_mm256_add_ps(ldb(px, bx, j, left, m), ldb(pq, bq, j, left, m)));
        __m256 zg = sigm8(_mm256_add_ps(ldb(px, bx, H + j, left, m), ldb(pq, bq, H + j, left, m)));
        __m256 q = ldb(pq, bq, 2 * H + j, left, m);
        __m256 ng = tanh8(_mm256_add_ps(ldb(px, bx, 2 * H + j, left, m), _mm256_mul_ps(rg, q)));
        st(gt + j, rg, left, m);
        st(gt + H + j, zg, left, m);
        st(gt + 2 * H + j, ng, left, m);
        st(qn + j, q, left, m);
        __m256 hv = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(one, zg), ng), _mm256_mul_ps(zg, ld(hprev + j, left, m)));
        st(h + j, hv, left, m);
    }
}

static void tanh_n(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i += 8) {
        size_t left = n - i;
        __m256i m = tail_mask(left < 8 ? left : 0);
        st(y + i, tanh8(ld(x + i, left, m)), left, m);
    }
}

/* An optional row: NULL reads as zeros. */
static inline __m256 ld0(const float *p, size_t left, __m256i m)
{
    return p ? ld(p, left, m) : _mm256_setzero_ps();
}

static void lstm_bwd(size_t N, size_t H, const float *gt, const float *c, const float *cprev, const float *dh, float *dc,
                     float *gx, float *gh)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    for (size_t j = 0; j < N; j += 8) {
        size_t left = N - j;
        __m256i m = tail_mask(left < 8 ? left : 0);
        __m256 ig = ld(gt + j, left, m), fg = ld(gt + H + j, left, m);
        __m256 gg = ld(gt + 2 * H + j, left, m), og = ld(gt + 3 * H + j, left, m);
        __m256 tc = tanh8(ld(c + j, left, m)), d = ld(dh + j, left, m);
        __m256 dcc = _mm256_add_ps(ld(dc + j, left, m),
                                   _mm256_mul_ps(_mm256_mul_ps(d, og), _mm256_sub_ps(one, _mm256_mul_ps(tc, tc))));
        __m256 vi = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(dcc, gg), ig), _mm256_sub_ps(one, ig));
        __m256 vf = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(dcc, ld0(cprev ? cprev + j : NULL, left, m)), fg),
                                  _mm256_sub_ps(one, fg));
        __m256 vg = _mm256_mul_ps(_mm256_mul_ps(dcc, ig), _mm256_sub_ps(one, _mm256_mul_ps(gg, gg)));
        __m256 vo = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(d, tc), og), _mm256_sub_ps(one, og));
        st(gx + j, vi, left, m); st(gh + j, vi, left, m);
        st(gx + H + j, vf, left, m); st(gh + H + j, vf, left, m);
        st(gx + 2 * H + j, vg, left, m); st(gh + 2 * H + j, vg, left, m);
        st(gx + 3 * H + j, vo, left, m); st(gh + 3 * H + j, vo, left, m);
        st(dc + j, _mm256_mul_ps(dcc, fg), left, m);
    }
}

static void gru_bwd(size_t N, size_t H, const float *gt, const float *qn, const float *hprev, const float *dh, float *gx,
                    float *gh, float *dz)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    for (size_t j = 0; j < N; j += 8) {
        size_t left = N - j;
        __m256i m = tail_mask(left < 8 ? left : 0);
        __m256 rg = ld(gt + j, left, m), zg = ld(gt + H + j, left, m), ng = ld(gt + 2 * H + j, left, m);
        __m256 d = ld(dh + j, left, m), hp = ld0(hprev ? hprev + j : NULL, left, m);
        __m256 dn = _mm256_mul_ps(d, _mm256_sub_ps(one, zg)), dzz = _mm256_mul_ps(d, _mm256_sub_ps(hp, ng));
        __m256 dan = _mm256_mul_ps(dn, _mm256_sub_ps(one, _mm256_mul_ps(ng, ng)));
        __m256 dar = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(dan, ld(qn + j, left, m)), rg), _mm256_sub_ps(one, rg));
        __m256 daz = _mm256_mul_ps(_mm256_mul_ps(dzz, zg), _mm256_sub_ps(one, zg));
        st(gx + j, dar, left, m); st(gh + j, dar, left, m);
        st(gx + H + j, daz, left, m); st(gh + H + j, daz, left, m);
        st(gx + 2 * H + j, dan, left, m); st(gh + 2 * H + j, _mm256_mul_ps(dan, rg), left, m);
        st(dz + j, _mm256_mul_ps(d, zg), left, m);
    }
}

/* Column sums four rows at a time, along the rows (as the AVX-512 rows: the rows stream in
 * order, the sums stay in L1). */
static void colsum(size_t rows, size_t n, const float *x, size_t lx, float *acc)
{
    size_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        const float *x0 = x + r * lx, *x1 = x0 + lx, *x2 = x1 + lx, *x3 = x2 + lx;
        for (size_t j = 0; j < n; j += 8) {
            size_t left = n - j;
            __m256i m = tail_mask(left < 8 ? left : 0);
            __m256 v = _mm256_add_ps(ld(acc + j, left, m), ld(x0 + j, left, m));
            v = _mm256_add_ps(v, ld(x1 + j, left, m));
            v = _mm256_add_ps(v, ld(x2 + j, left, m));
            st(acc + j, _mm256_add_ps(v, ld(x3 + j, left, m)), left, m);
        }
    }
    for (; r < rows; r++)
        for (size_t j = 0; j < n; j += 8) {
            size_t left = n - j;
            __m256i m = tail_mask(left < 8 ? left : 0);
            st(acc + j, _mm256_add_ps(ld(acc + j, left, m), ld(x + r * lx + j, left, m)), left, m);
        }
}

static void add(size_t n, const float *a, const float *b, float *y)
{
    for (size_t i = 0; i < n; i += 8) {
        size_t left = n - i;
        __m256i m = tail_mask(left < 8 ? left : 0);
        __m256 bv = b ? ld(b + i, left, m) : _mm256_setzero_ps();
        st(y + i, _mm256_add_ps(ld(a + i, left, m), bv), left, m);
    }
}

const hd_rnn_cell_table hd_f32_rnn_cell_ukernels__avx2 = {
    "f32-lstm-8-avx2", "f32-gru-8-avx2", lstm_fwd, gru_fwd, tanh_n, lstm_bwd, gru_bwd, colsum, add,
};
