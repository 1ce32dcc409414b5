/* Batch-normalization row kernels, AVX2 (see bn-ukernels.h): sums in 4-lane double
 * accumulators (two of them), element-wise parts in 8-lane float with mul+add (no FMA, so
 * they round like the scalar code). */
#include <immintrin.h>
#include <stdint.h>
#include "kernels/bn/bn-ukernels.h"
#include "core/convert.h"

static double hsum(__m256d a)
{
    __m128d lo = _mm256_castpd256_pd128(a), hi = _mm256_extractf128_pd(a, 1);
    lo = _mm_add_pd(lo, hi);
    return _mm_cvtsd_f64(lo) + _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo));
}

static double sum_v(const float *x, size_t n)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }
    double s = hsum(_mm256_add_pd(a0, a1));
    for (; i < n; i++)
        s += x[i];
    return s;
}

static double sqdev_v(const float *x, size_t n, double mean)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), m = _mm256_set1_pd(mean);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), m);
        __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), m);
        a0 = _mm256_add_pd(a0, _mm256_mul_pd(d0, d0));
        a1 = _mm256_add_pd(a1, _mm256_mul_pd(d1, d1));
    }
    double s = hsum(_mm256_add_pd(a0, a1));
    for (; i < n; i++) {
        double d = (double)x[i] - mean;
        s += d * d;
    }
    return s;
}

static void ssums_v(const float *x, size_t n, double k, double *s1, double *s2)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    const __m256d vk = _mm256_set1_pd(k);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 v = _mm256_loadu_ps(x + i), w = _mm256_loadu_ps(x + i + 8);
        __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), vk);
        __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), vk);
        __m256d d2 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(w)), vk);
        __m256d d3 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(w, 1)), vk);
        a0 = _mm256_add_pd(a0, d0);
        a1 = _mm256_add_pd(a1, d1);
        a2 = _mm256_add_pd(a2, d2);
        a3 = _mm256_add_pd(a3, d3);
        b0 = _mm256_add_pd(b0, _mm256_mul_pd(d0, d0));
        b1 = _mm256_add_pd(b1, _mm256_mul_pd(d1, d1));
        b2 = _mm256_add_pd(b2, _mm256_mul_pd(d2, d2));
        b3 = _mm256_add_pd(b3, _mm256_mul_pd(d3, d3));
    }
    double a = hsum(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
    double b = hsum(_mm256_add_pd(_mm256_add_pd(b0, b1), _mm256_add_pd(b2, b3)));
    for (; i < n; i++) {
        double d = (double)x[i] - k;
        a += d;
        b += d * d;
    }
    *s1 += a;
    *s2 += b;
}

static void dssums_v(const float *dy, const float *x, size_t n, double k, double *s1, double *s2, double *g, double *h)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
    const __m256d vk = _mm256_set1_pd(k);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i), w = _mm256_loadu_ps(dy + i);
        __m256d v0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), vk);
        __m256d v1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), vk);
        __m256d w0 = _mm256_cvtps_pd(_mm256_castps256_ps128(w)), w1 = _mm256_cvtps_pd(_mm256_extractf128_ps(w, 1));
        a0 = _mm256_add_pd(a0, v0);
        a1 = _mm256_add_pd(a1, v1);
        b0 = _mm256_add_pd(b0, _mm256_mul_pd(v0, v0));
        b1 = _mm256_add_pd(b1, _mm256_mul_pd(v1, v1));
        c0 = _mm256_add_pd(c0, w0);
        c1 = _mm256_add_pd(c1, w1);
        d0 = _mm256_add_pd(d0, _mm256_mul_pd(w0, v0));
        d1 = _mm256_add_pd(d1, _mm256_mul_pd(w1, v1));
    }
    double a = hsum(_mm256_add_pd(a0, a1)), b = hsum(_mm256_add_pd(b0, b1));
    double c = hsum(_mm256_add_pd(c0, c1)), d = hsum(_mm256_add_pd(d0, d1));
    for (; i < n; i++) {
        double v = (double)x[i] - k, w = dy[i];
        a += v;
        b += v * v;
        c += w;
        d += w * v;
    }
    *s1 += a;
    *s2 += b;
    *g += c;
    *h += d;
}

static void affine_v(const float *x, float *y, size_t n, float m, float a, float b, float beta)
{
    __m256 vm = _mm256_set1_ps(m), va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b), vbeta = _mm256_set1_ps(beta);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 r = _mm256_add_ps(_mm256_mul_ps(va, _mm256_sub_ps(_mm256_loadu_ps(x + i), vm)), vb);
        if (beta != 0.0f)
            r = _mm256_add_ps(r, _mm256_mul_ps(vbeta, _mm256_loadu_ps(y + i)));
        _mm256_storeu_ps(y + i, r);
    }
    for (; i < n; i++)
        y[i] = beta == 0.0f ? a * (x[i] - m) + b : a * (x[i] - m) + b + beta * y[i];
}

static void dsums_v(const float *dy, const float *x, size_t n, double mean, double *sdy, double *sdyx)
{
    __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
    __m256d t0 = _mm256_setzero_pd(), t1 = _mm256_setzero_pd(), m = _mm256_set1_pd(mean);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 g = _mm256_loadu_ps(dy + i), v = _mm256_loadu_ps(x + i);
        __m256d g0 = _mm256_cvtps_pd(_mm256_castps256_ps128(g)), g1 = _mm256_cvtps_pd(_mm256_extractf128_ps(g, 1));
        __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), m);
        __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), m);
        s0 = _mm256_add_pd(s0, g0);
        s1 = _mm256_add_pd(s1, g1);
        t0 = _mm256_add_pd(t0, _mm256_mul_pd(g0, d0));
        t1 = _mm256_add_pd(t1, _mm256_mul_pd(g1, d1));
    }
    double s = hsum(_mm256_add_pd(s0, s1)), t = hsum(_mm256_add_pd(t0, t1));
    for (; i < n; i++) {
        s += dy[i];
        t += (double)dy[i] * ((double)x[i] - mean);
    }
    *sdy += s;
    *sdyx += t;
}

static void bwd_v(const float *dy, const float *x, float *dx, size_t n, float m, float p, float q, float r, float beta)
{
    __m256 vm = _mm256_set1_ps(m), vp = _mm256_set1_ps(p), vq = _mm256_set1_ps(q), vr = _mm256_set1_ps(r);
    __m256 vb = _mm256_set1_ps(beta);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 o = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(vp, _mm256_loadu_ps(dy + i)),
                                               _mm256_mul_ps(vq, _mm256_sub_ps(_mm256_loadu_ps(x + i), vm))), vr);
        if (beta != 0.0f)
            o = _mm256_add_ps(o, _mm256_mul_ps(vb, _mm256_loadu_ps(dx + i)));
        _mm256_storeu_ps(dx + i, o);
    }
    for (; i < n; i++)
        dx[i] = beta == 0.0f ? p * dy[i] + q * (x[i] - m) + r : p * dy[i] + q * (x[i] - m) + r + beta * dx[i];
}

/* Elements before Y reaches a 32-byte boundary, capped at N (N when Y is not
 * float-aligned: then the plain kernel does everything). */
static size_t head_to_aligned(const float *y, size_t n)
{
    uintptr_t a = (uintptr_t)y;
    if (a % sizeof(float))
        return n;
    size_t h = ((32 - a % 32) % 32) / sizeof(float);
    return h < n ? h : n;
}

/* The plain kernels on the unaligned head and the tail, streaming stores in between; the
 * same operations in the same order, so the same values. */
static void affine_stream_v(const float *x, float *y, size_t n, float m, float a, float b, float beta)
{
    size_t h = head_to_aligned(y, n), i;
    if (beta != 0.0f || n - h < 8) {
        affine_v(x, y, n, m, a, b, beta);
        return;
    }
    affine_v(x, y, h, m, a, b, beta);
    const __m256 vm = _mm256_set1_ps(m), va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
    for (i = h; i + 8 <= n; i += 8)
        _mm256_stream_ps(y + i, _mm256_add_ps(_mm256_mul_ps(va, _mm256_sub_ps(_mm256_loadu_ps(x + i), vm)), vb));
    _mm_sfence();
    affine_v(x + i, y + i, n - i, m, a, b, beta);
}

static void bwd_stream_v(const float *dy, const float *x, float *dx, size_t n, float m, float p, float q, float r,
                         float beta)
{
    size_t h = head_to_aligned(dx, n), i;
    if (beta != 0.0f || n - h < 8) {
        bwd_v(dy, x, dx, n, m, p, q, r, beta);
        return;
    }
    bwd_v(dy, x, dx, h, m, p, q, r, beta);
    const __m256 vm = _mm256_set1_ps(m), vp = _mm256_set1_ps(p), vq = _mm256_set1_ps(q), vr = _mm256_set1_ps(r);
    for (i = h; i + 8 <= n; i += 8)
        _mm256_stream_ps(dx + i, _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(vp, _mm256_loadu_ps(dy + i)),
                                                          _mm256_mul_ps(vq, _mm256_sub_ps(_mm256_loadu_ps(x + i), vm))),
                                               vr));
    _mm_sfence();
    bwd_v(dy + i, x + i, dx + i, n - i, m, p, q, r, beta);
}

/* Column kernels: 4 channels per double vector (8 per float vector), rows in order, so each
 * channel sums exactly like the scalar code. */
static void col_sum_v(const float *x, size_t rows, size_t C, double *acc)
{
    for (size_t r = 0; r < rows; r++, x += C) {
        size_t c = 0;
        for (; c + 4 <= C; c += 4)
            _mm256_storeu_pd(acc + c, _mm256_add_pd(_mm256_loadu_pd(acc + c), _mm256_cvtps_pd(_mm_loadu_ps(x + c))));
        for (; c < C; c++)
            acc[c] += x[c];
    }
}

static void col_sqdev_v(const float *x, size_t rows, size_t C, const double *mean, double *acc)
{
    for (size_t r = 0; r < rows; r++, x += C) {
        size_t c = 0;
        for (; c + 4 <= C; c += 4) {
            __m256d d = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + c)), _mm256_loadu_pd(mean + c));
            _mm256_storeu_pd(acc + c, _mm256_add_pd(_mm256_loadu_pd(acc + c), _mm256_mul_pd(d, d)));
        }
        for (; c < C; c++) {
            double d = (double)x[c] - mean[c];
            acc[c] += d * d;
        }
    }
}

static void col_ssums_v(const float *x, size_t rows, size_t C, const double *k, double *s1, double *s2)
{
    for (size_t r = 0; r < rows; r++, x += C) {
        size_t c = 0;
        for (; c + 4 <= C; c += 4) {
            __m256d d = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + c)), _mm256_loadu_pd(k + c));
            _mm256_storeu_pd(s1 + c, _mm256_add_pd(_mm256_loadu_pd(s1 + c), d));
            _mm256_storeu_pd(s2 + c, _mm256_add_pd(_mm256_loadu_pd(s2 + c), _mm256_mul_pd(d, d)));
        }
        for (; c < C; c++) {
            double d = (double)x[c] - k[c];
            s1[c] += d;
            s2[c] += d * d;
        }
    }
}

static void col_affine_v(const float *x, float *y, size_t rows, size_t C, const float *m, const float *a, const float *b,
                         float beta)
{
    __m256 vb = _mm256_set1_ps(beta);
    for (size_t r = 0; r < rows; r++, x += C, y += C) {
        size_t c = 0;
        for (; c + 8 <= C; c += 8) {
            __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + c), _mm256_loadu_ps(m + c));
            __m256 o = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(a + c), d), _mm256_loadu_ps(b + c));
            if (beta != 0.0f)
                o = _mm256_add_ps(o, _mm256_mul_ps(vb, _mm256_loadu_ps(y + c)));
            _mm256_storeu_ps(y + c, o);
        }
        for (; c < C; c++)
            y[c] = beta == 0.0f ? a[c] * (x[c] - m[c]) + b[c] : a[c] * (x[c] - m[c]) + b[c] + beta * y[c];
    }
}

static void col_dsums_v(const float *dy, const float *x, size_t rows, size_t C, const double *mean, double *sdy,
                        double *sdyx)
{
    for (size_t r = 0; r < rows; r++, x += C, dy += C) {
        size_t c = 0;
        for (; c + 4 <= C; c += 4) {
            __m256d g = _mm256_cvtps_pd(_mm_loadu_ps(dy + c));
            __m256d d = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + c)), _mm256_loadu_pd(mean + c));
            _mm256_storeu_pd(sdy + c, _mm256_add_pd(_mm256_loadu_pd(sdy + c), g));
            _mm256_storeu_pd(sdyx + c, _mm256_add_pd(_mm256_loadu_pd(sdyx + c), _mm256_mul_pd(g, d)));
        }
        for (; c < C; c++) {
            double g = dy[c];
            sdy[c] += g;
            sdyx[c] += g * ((double)x[c] - mean[c]);
        }
    }
}

static void col_bwd_v(const float *dy, const float *x, float *dx, size_t rows, size_t C, const float *m, const float *p,
                      const float *q, const float *rr, float beta)
{
    __m256 vb = _mm256_set1_ps(beta);
    for (size_t i = 0; i < rows; i++, x += C, dy += C, dx += C) {
        size_t c = 0;
        for (; c + 8 <= C; c += 8) {
            __m256 o = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(p + c), _mm256_loadu_ps(dy + c)),
                                                   _mm256_mul_ps(_mm256_loadu_ps(q + c),
                                                                 _mm256_sub_ps(_mm256_loadu_ps(x + c), _mm256_loadu_ps(m + c)))),
                                     _mm256_loadu_ps(rr + c));
            if (beta != 0.0f)
                o = _mm256_add_ps(o, _mm256_mul_ps(vb, _mm256_loadu_ps(dx + c)));
            _mm256_storeu_ps(dx + c, o);
        }
        for (; c < C; c++)
            dx[c] = beta == 0.0f ? p[c] * dy[c] + q[c] * (x[c] - m[c]) + rr[c]
                                 : p[c] * dy[c] + q[c] * (x[c] - m[c]) + rr[c] + beta * dx[c];
    }
}

/* The column kernels with streaming stores, when beta == 0, C is a multiple of 8 and the
 * output is 32-byte aligned (then every row is): the same operations in the same order as
 * col_affine_v / col_bwd_v, so the same values, without reading the output lines for
 * ownership.  Anything else takes the plain kernel. */
static void col_affine_stream_v(const float *x, float *y, size_t rows, size_t C, const float *m, const float *a,
                                const float *b, float beta)
{
    if (beta != 0.0f || C % 8 != 0 || (uintptr_t)y % 32 != 0) {
        col_affine_v(x, y, rows, C, m, a, b, beta);
        return;
    }
    for (size_t r = 0; r < rows; r++, x += C, y += C)
        for (size_t c = 0; c < C; c += 8) {
            __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + c), _mm256_loadu_ps(m + c));
            _mm256_stream_ps(y + c, _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(a + c), d), _mm256_loadu_ps(b + c)));
        }
    _mm_sfence();
}

static void col_bwd_stream_v(const float *dy, const float *x, float *dx, size_t rows, size_t C, const float *m,
                             const float *p, const float *q, const float *rr, float beta)
{
    if (beta != 0.0f || C % 8 != 0 || (uintptr_t)dx % 32 != 0) {
        col_bwd_v(dy, x, dx, rows, C, m, p, q, rr, beta);
        return;
    }
    for (size_t i = 0; i < rows; i++, x += C, dy += C, dx += C)
        for (size_t c = 0; c < C; c += 8) {
            __m256 o = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(p + c), _mm256_loadu_ps(dy + c)),
                                                   _mm256_mul_ps(_mm256_loadu_ps(q + c),
                                                                 _mm256_sub_ps(_mm256_loadu_ps(x + c), _mm256_loadu_ps(m + c)))),
                                     _mm256_loadu_ps(rr + c));
            _mm256_stream_ps(dx + c, o);
        }
    _mm_sfence();
}

/* F16C conversions; NaNs keep their payload (the scalar code makes them quiet NaNs). */
static void h2f_v(const uint16_t *h, float *f, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(f + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(h + i))));
    for (; i < n; i++)
        f[i] = hd_f16_to_f32(h[i]);
}

static void f2h_v(const float *f, uint16_t *h, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(h + i), _mm256_cvtps_ph(_mm256_loadu_ps(f + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++)
        h[i] = hd_f32_to_f16(f[i]);
}

/* BFLOAT16 is the top half of a float: widen by a shift; narrow with the same integer
 * round-to-nearest-even as the scalar code (NaNs quieted), so results are bitwise equal. */
static void b2f_v(const uint16_t *h, float *f, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(h + i)));
        _mm256_storeu_ps(f + i, _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
    }
    for (; i < n; i++)
        f[i] = hd_bf16_to_f32(h[i]);
}

static void f2b_v(const float *f, uint16_t *h, size_t n)
{
    size_t i = 0;
    const __m256i absmask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    const __m256i bias = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1), quiet = _mm256_set1_epi32(0x400000);
    for (; i + 8 <= n; i += 8) {
        __m256i u = _mm256_castps_si256(_mm256_loadu_ps(f + i));
        __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, absmask), inf);
        __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(bias, _mm256_and_si256(_mm256_srli_epi32(u, 16), one)));
        r = _mm256_blendv_epi8(r, _mm256_or_si256(u, quiet), nan);
        r = _mm256_srli_epi32(r, 16);
        __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        _mm_storeu_si128((__m128i *)(h + i), packed);
    }
    for (; i < n; i++)
        h[i] = hd_f32_to_bf16(f[i]);
}

const hd_bn_f32_kernels hd_f32_bn_ukernels__avx2 = {"avx2", sum_v, sqdev_v, affine_v, dsums_v, bwd_v,
                                           col_sum_v, col_sqdev_v, col_affine_v, col_dsums_v, col_bwd_v,
                                           h2f_v, f2h_v, b2f_v, f2b_v, ssums_v, col_ssums_v,
                                             dssums_v, affine_stream_v, bwd_stream_v, col_affine_stream_v, col_bwd_stream_v};
