/* kernels/rnn/f32-rnn-cell-avx512.c -- RNN cell rows (rnn-ukernels.h) 16 units at a time.
 *
 * The same operations, in the same order, as the AVX2 rows (f32-rnn-cell-avx2.c) on twice the
 * lanes: every lane's arithmetic is the AVX2 lane's, so the two tables give the same bits
 * (tested in test_kernel_rnn_cell).  A column block of 32 units is two iterations instead of
 * four, whose long exp / divide chains then overlap in one iteration. */
#include <immintrin.h>
#include <stdint.h>

#include "kernels/rnn/rnn-ukernels.h"

/* exp(x) as in the AVX2 rows: x = n ln2 + r, the degree-7 Taylor polynomial by Horner,
 * times 2^n built in the exponent field; clamped to keep 2^n normal; NaN passed through. */
static inline __m512 exp16(__m512 x)
{
    const __mmask16 nan_mask = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    __m512 xc = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)), _mm512_set1_ps(88.3f));
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), xc);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
    __m512 v = _mm512_mul_ps(p, _mm512_castsi512_ps(e));
    return _mm512_mask_blend_ps(nan_mask, v, x);
}

static inline __m512 sigm16(__m512 x)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    return _mm512_div_ps(one, _mm512_add_ps(one, exp16(_mm512_sub_ps(_mm512_setzero_ps(), x))));
}

/* tanh on |x| then the sign put back, as in the AVX2 rows */
static inline __m512 tanh16(__m512 x)
{
    const __m512 sign = _mm512_set1_ps(-0.0f), one = _mm512_set1_ps(1.0f);
    __m512 ax = _mm512_andnot_ps(sign, x);
    __m512 e = exp16(_mm512_add_ps(ax, ax));
    __m512 t = _mm512_sub_ps(one, _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(e, one)));
    return _mm512_or_ps(t, _mm512_and_ps(sign, x));
}

/* Lanes of the LEFT (> 0) elements still to do, at most 16. */
static inline __mmask16 lanes(size_t left)
{
    return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
}

static inline __m512 ld(const float *p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
static inline void st(float *p, __m512 v, __mmask16 m) { _mm512_mask_storeu_ps(p, m, v); }

/* An optional row: NULL reads as zeros. */
static inline __m512 ld0(const float *p, __mmask16 m) { return p ? ld(p, m) : _mm512_setzero_ps(); }

/* A pre-activation with its optional bias (rnn-ukernels.h): p[i] + b[i], or p[i] alone. */
static inline __m512 ldb(const float *p, const float *b, size_t i, __mmask16 m)
{
    return b ? _mm512_add_ps(ld(p + i, m), ld(b + i, m)) : ld(p + i, m);
}

static void lstm_fwd(size_t N, size_t H, const float *px, const float *bx, const float *pq, const float *bq,
                     const float *cprev, float *gt, float *c, float *h)
{
    for (size_t j = 0; j < N; j += 16) {
        __mmask16 m = lanes(N - j);
        __m512 ig = sigm16(_mm512_add_ps(ldb(px, bx, j, m), ldb(pq, bq, j, m)));
        __m512 fg = sigm16(_mm512_add_ps(ldb(px, bx, H + j, m), ldb(pq, bq, H + j, m)));
        __m512 gg = tanh16(_mm512_add_ps(ldb(px, bx, 2 * H + j, m), ldb(pq, bq, 2 * H + j, m)));
        __m512 og = sigm16(_mm512_add_ps(ldb(px, bx, 3 * H + j, m), ldb(pq, bq, 3 * H + j, m)));
        __m512 cc = _mm512_add_ps(_mm512_mul_ps(fg, ld(cprev + j, m)), _mm512_mul_ps(ig, gg));
        st(gt + j, ig, m);
        st(gt + H + j, fg, m);
        st(gt + 2 * H + j, gg, m);
        st(gt + 3 * H + j, og, m);
        st(c + j, cc, m);
        st(h + j, _mm512_mul_ps(og, tanh16(cc)), m);
    }
}

static void gru_fwd(size_t N, size_t H, const float *px, const float *bx, const float *pq, const float *bq,
                    const float *hprev, float *gt, float *qn, float *h)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    for (size_t j = 0; j < N; j += 16) {
        __mmask16 m = lanes(N - j);
        __m512 rg = sigm16(_mm512_add_ps(ldb(px, bx, j, m), ldb(pq, bq, j, m)));
        __m512 zg = sigm16(_mm512_add_ps(ldb(px, bx, H + j, m), ldb(pq, bq, H + j, m)));
        __m512 q = ldb(pq, bq, 2 * H + j, m);
        __m512 ng = tanh16(_mm512_add_ps(ldb(px, bx, 2 * H + j, m), _mm512_mul_ps(rg, q)));
        st(gt + j, rg, m);
        st(gt + H + j, zg, m);
        st(gt + 2 * H + j, ng, m);
        st(qn + j, q, m);
        __m512 hv = _mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(one, zg), ng), _mm512_mul_ps(zg, ld(hprev + j, m)));
        st(h + j, hv, m);
    }
}

static void tanh_n(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = lanes(n - i);
        st(y + i, tanh16(ld(x + i, m)), m);
    }
}

static void lstm_bwd(size_t N, size_t H, const float *gt, const float *c, const float *cprev, const float *dh, float *dc,
                     float *gx, float *gh)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    for (size_t j = 0; j < N; j += 16) {
        __mmask16 m = lanes(N - j);
        __m512 ig = ld(gt + j, m), fg = ld(gt + H + j, m);
        __m512 gg = ld(gt + 2 * H + j, m), og = ld(gt + 3 * H + j, m);
        __m512 tc = tanh16(ld(c + j, m)), d = ld(dh + j, m);
        __m512 dcc = _mm512_add_ps(ld(dc + j, m), _mm512_mul_ps(_mm512_mul_ps(d, og), _mm512_sub_ps(one, _mm512_mul_ps(tc, tc))));
        __m512 vi = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(dcc, gg), ig), _mm512_sub_ps(one, ig));
        __m512 vf = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(dcc, ld0(cprev ? cprev + j : NULL, m)), fg),
                                  _mm512_sub_ps(one, fg));
        __m512 vg = _mm512_mul_ps(_mm512_mul_ps(dcc, ig), _mm512_sub_ps(one, _mm512_mul_ps(gg, gg)));
        __m512 vo = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(d, tc), og), _mm512_sub_ps(one, og));
        st(gx + j, vi, m); st(gh + j, vi, m);
        st(gx + H + j, vf, m); st(gh + H + j, vf, m);
        st(gx + 2 * H + j, vg, m); st(gh + 2 * H + j, vg, m);
        st(gx + 3 * H + j, vo, m); st(gh + 3 * H + j, vo, m);
        st(dc + j, _mm512_mul_ps(dcc, fg), m);
    }
}

static void gru_bwd(size_t N, size_t H, const float *gt, const float *qn, const float *hprev, const float *dh, float *gx,
                    float *gh, float *dz)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    for (size_t j = 0; j < N; j += 16) {
        __mmask16 m = lanes(N - j);
        __m512 rg = ld(gt + j, m), zg = ld(gt + H + j, m), ng = ld(gt + 2 * H + j, m);
        __m512 d = ld(dh + j, m), hp = ld0(hprev ? hprev + j : NULL, m);
        __m512 dn = _mm512_mul_ps(d, _mm512_sub_ps(one, zg)), dzz = _mm512_mul_ps(d, _mm512_sub_ps(hp, ng));
        __m512 dan = _mm512_mul_ps(dn, _mm512_sub_ps(one, _mm512_mul_ps(ng, ng)));
        __m512 dar = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(dan, ld(qn + j, m)), rg), _mm512_sub_ps(one, rg));
        __m512 daz = _mm512_mul_ps(_mm512_mul_ps(dzz, zg), _mm512_sub_ps(one, zg));
        st(gx + j, dar, m); st(gh + j, dar, m);
        st(gx + H + j, daz, m); st(gh + H + j, daz, m);
        st(gx + 2 * H + j, dan, m); st(gh + 2 * H + j, _mm512_mul_ps(dan, rg), m);
        st(dz + j, _mm512_mul_ps(d, zg), m);
    }
}

/* Column sums four rows at a time, along the rows: each vector of the sums is loaded, takes
 * the four rows in order and is stored back (the sums, N floats, stay in L1), so the rows
 * stream through memory in order, as the hardware prefetchers follow them; walking down a
 * column block instead strides a page or more per row. */
static void colsum(size_t rows, size_t n, const float *x, size_t lx, float *acc)
{
    size_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        const float *x0 = x + r * lx, *x1 = x0 + lx, *x2 = x1 + lx, *x3 = x2 + lx;
        for (size_t j = 0; j < n; j += 16) {
            __mmask16 m = lanes(n - j);
            __m512 v = _mm512_add_ps(ld(acc + j, m), ld(x0 + j, m));
            v = _mm512_add_ps(v, ld(x1 + j, m));
            v = _mm512_add_ps(v, ld(x2 + j, m));
            st(acc + j, _mm512_add_ps(v, ld(x3 + j, m)), m);
        }
    }
    for (; r < rows; r++)
        for (size_t j = 0; j < n; j += 16) {
            __mmask16 m = lanes(n - j);
            st(acc + j, _mm512_add_ps(ld(acc + j, m), ld(x + r * lx + j, m)), m);
        }
}

static void add(size_t n, const float *a, const float *b, float *y)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = lanes(n - i);
        st(y + i, _mm512_add_ps(ld(a + i, m), ld0(b ? b + i : NULL, m)), m);
    }
}

const hd_rnn_cell_table hd_f32_rnn_cell_ukernels__avx512 = {
    "f32-lstm-16-avx512", "f32-gru-16-avx512", lstm_fwd, gru_fwd, tanh_n, lstm_bwd, gru_bwd, colsum, add,
};
