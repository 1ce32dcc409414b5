/* Batch-normalization row kernels, AVX-512 (see bn-ukernels.h): sums in 8-lane double
 * accumulators, element-wise parts in 16-lane float with mul+add and masked tails. */
#include <immintrin.h>
#include <stdint.h>
#include "kernels/bn/bn-ukernels.h"

static inline __mmask16 tail(size_t left) { return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u); }

static double sum_v(const float *x, size_t n)
{
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
    for (size_t i = 0; i < n; i += 16) {
        __m512 v = _mm512_maskz_loadu_ps(tail(n - i), x + i);
        a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
        a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
    }
    return _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
}

static double sqdev_v(const float *x, size_t n, double mean)
{
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd(), m = _mm512_set1_pd(mean);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n - i);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        __m512d d0 = _mm512_maskz_sub_pd((__mmask8)(k & 0xff), _mm512_cvtps_pd(_mm512_castps512_ps256(v)), m);
        __m512d d1 = _mm512_maskz_sub_pd((__mmask8)(k >> 8),
            _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))), m);
        a0 = _mm512_add_pd(a0, _mm512_mul_pd(d0, d0));
        a1 = _mm512_add_pd(a1, _mm512_mul_pd(d1, d1));
    }
    return _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
}

/* Two independent pairs of accumulators (even and odd 16-float steps) hide the add latency. */
static void ssums_v(const float *x, size_t n, double k, double *s1, double *s2)
{
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    const __m512d vk = _mm512_set1_pd(k);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512 v = _mm512_loadu_ps(x + i), w = _mm512_loadu_ps(x + i + 16);
        __m512d d0 = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), vk);
        __m512d d1 = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)), vk);
        __m512d d2 = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(w)), vk);
        __m512d d3 = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(w, 1)), vk);
        a0 = _mm512_add_pd(a0, d0);
        a1 = _mm512_add_pd(a1, d1);
        a2 = _mm512_add_pd(a2, d2);
        a3 = _mm512_add_pd(a3, d3);
        b0 = _mm512_fmadd_pd(d0, d0, b0);
        b1 = _mm512_fmadd_pd(d1, d1, b1);
        b2 = _mm512_fmadd_pd(d2, d2, b2);
        b3 = _mm512_fmadd_pd(d3, d3, b3);
    }
    for (; i < n; i += 16) {
        __mmask16 m = tail(n - i);
        __m512 v = _mm512_maskz_loadu_ps(m, x + i);
        __m512d d0 = _mm512_maskz_sub_pd((__mmask8)(m & 0xff), _mm512_cvtps_pd(_mm512_castps512_ps256(v)), vk);
        __m512d d1 = _mm512_maskz_sub_pd((__mmask8)(m >> 8), _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)), vk);
        a0 = _mm512_add_pd(a0, d0);
        a1 = _mm512_add_pd(a1, d1);
        b0 = _mm512_fmadd_pd(d0, d0, b0);
        b1 = _mm512_fmadd_pd(d1, d1, b1);
    }
    *s1 += _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
    *s2 += _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(b0, b1), _mm512_add_pd(b2, b3)));
}

static void dssums_v(const float *dy, const float *x, size_t n, double k, double *s1, double *s2, double *g, double *h)
{
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
    const __m512d vk = _mm512_set1_pd(k);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = tail(n - i);
        __m512 v = _mm512_maskz_loadu_ps(m, x + i), w = _mm512_maskz_loadu_ps(m, dy + i);
        __m512d v0 = _mm512_maskz_sub_pd((__mmask8)(m & 0xff), _mm512_cvtps_pd(_mm512_castps512_ps256(v)), vk);
        __m512d v1 = _mm512_maskz_sub_pd((__mmask8)(m >> 8), _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)), vk);
        __m512d w0 = _mm512_cvtps_pd(_mm512_castps512_ps256(w)), w1 = _mm512_cvtps_pd(_mm512_extractf32x8_ps(w, 1));
        a0 = _mm512_add_pd(a0, v0);
        a1 = _mm512_add_pd(a1, v1);
        b0 = _mm512_fmadd_pd(v0, v0, b0);
        b1 = _mm512_fmadd_pd(v1, v1, b1);
        c0 = _mm512_add_pd(c0, w0);
        c1 = _mm512_add_pd(c1, w1);
        d0 = _mm512_fmadd_pd(w0, v0, d0);
        d1 = _mm512_fmadd_pd(w1, v1, d1);
    }
    *s1 += _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
    *s2 += _mm512_reduce_add_pd(_mm512_add_pd(b0, b1));
    *g += _mm512_reduce_add_pd(_mm512_add_pd(c0, c1));
    *h += _mm512_reduce_add_pd(_mm512_add_pd(d0, d1));
}

static void affine_v(const float *x, float *y, size_t n, float m, float a, float b, float beta)
{
    __m512 vm = _mm512_set1_ps(m), va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b), vbeta = _mm512_set1_ps(beta);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n - i);
        __m512 r = _mm512_add_ps(_mm512_mul_ps(va, _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), vm)), vb);
        if (beta != 0.0f)
            r = _mm512_add_ps(r, _mm512_mul_ps(vbeta, _mm512_maskz_loadu_ps(k, y + i)));
        _mm512_mask_storeu_ps(y + i, k, r);
    }
}

static void dsums_v(const float *dy, const float *x, size_t n, double mean, double *sdy, double *sdyx)
{
    __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
    __m512d t0 = _mm512_setzero_pd(), t1 = _mm512_setzero_pd(), m = _mm512_set1_pd(mean);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n - i);
        __m512 g = _mm512_maskz_loadu_ps(k, dy + i), v = _mm512_maskz_loadu_ps(k, x + i);
        __m512d g0 = _mm512_cvtps_pd(_mm512_castps512_ps256(g));
        __m512d g1 = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(g), 1)));
        __m512d d0 = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), m);
        __m512d d1 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))), m);
        s0 = _mm512_add_pd(s0, g0);
        s1 = _mm512_add_pd(s1, g1);
        t0 = _mm512_add_pd(t0, _mm512_mul_pd(g0, d0));   /* g is 0 in masked lanes */
        t1 = _mm512_add_pd(t1, _mm512_mul_pd(g1, d1));
    }
    *sdy += _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
    *sdyx += _mm512_reduce_add_pd(_mm512_add_pd(t0, t1));
}

static void bwd_v(const float *dy, const float *x, float *dx, size_t n, float m, float p, float q, float r, float beta)
{
    __m512 vm = _mm512_set1_ps(m), vp = _mm512_set1_ps(p), vq = _mm512_set1_ps(q), vr = _mm512_set1_ps(r);
    __m512 vb = _mm512_set1_ps(beta);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n - i);
        __m512 o = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(vp, _mm512_maskz_loadu_ps(k, dy + i)),
                                               _mm512_mul_ps(vq, _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), vm))), vr);
        if (beta != 0.0f)
            o = _mm512_add_ps(o, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(k, dx + i)));
        _mm512_mask_storeu_ps(dx + i, k, o);
    }
}

/* Elements before Y reaches a 64-byte boundary, capped at N (N when Y is not
 * float-aligned: then the plain kernel does everything). */
static size_t head_to_aligned(const float *y, size_t n)
{
    uintptr_t a = (uintptr_t)y;
    if (a % sizeof(float))
        return n;
    size_t h = ((64 - a % 64) % 64) / sizeof(float);
    return h < n ? h : n;
}

/* The plain kernels on the unaligned head and the tail, streaming stores in between; the
 * same operations in the same order, so the same values. */
static void affine_stream_v(const float *x, float *y, size_t n, float m, float a, float b, float beta)
{
    size_t h = head_to_aligned(y, n), i;
    if (beta != 0.0f || n - h < 16) {
        affine_v(x, y, n, m, a, b, beta);
        return;
    }
    affine_v(x, y, h, m, a, b, beta);
    const __m512 vm = _mm512_set1_ps(m), va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
    for (i = h; i + 16 <= n; i += 16)
        _mm512_stream_ps(y + i, _mm512_add_ps(_mm512_mul_ps(va, _mm512_sub_ps(_mm512_loadu_ps(x + i), vm)), vb));
    _mm_sfence();
    affine_v(x + i, y + i, n - i, m, a, b, beta);
}

static void bwd_stream_v(const float *dy, const float *x, float *dx, size_t n, float m, float p, float q, float r,
                         float beta)
{
    size_t h = head_to_aligned(dx, n), i;
    if (beta != 0.0f || n - h < 16) {
        bwd_v(dy, x, dx, n, m, p, q, r, beta);
        return;
    }
    bwd_v(dy, x, dx, h, m, p, q, r, beta);
    const __m512 vm = _mm512_set1_ps(m), vp = _mm512_set1_ps(p), vq = _mm512_set1_ps(q), vr = _mm512_set1_ps(r);
    for (i = h; i + 16 <= n; i += 16)
        _mm512_stream_ps(dx + i, _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(vp, _mm512_loadu_ps(dy + i)),
                                                          _mm512_mul_ps(vq, _mm512_sub_ps(_mm512_loadu_ps(x + i), vm))),
                                               vr));
    _mm_sfence();
    bwd_v(dy + i, x + i, dx + i, n - i, m, p, q, r, beta);
}

/* Column kernels: 8 channels per double vector, 16 per float vector, masked tails; rows in
 * order, so each channel sums exactly like the scalar code. */
static inline __mmask8 tail8(size_t left) { return left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1u); }

/* The sums keep 32 channels (four 8-lane double vectors per sum) in registers across a block
 * of rows small enough to stay in L1 between the channel blocks (about 32 KiB of x), instead
 * of loading and storing the accumulators at every row: the store port, not memory, bounded
 * the row-at-a-time loop.  Each channel still adds its rows in order. */
static inline size_t row_block(size_t C)
{
    size_t r = 8192 / C;
    return r ? r : 1;
}

static inline __m512d ld8(const float *x, __mmask8 k) { return _mm512_cvtps_pd(_mm256_maskz_loadu_ps(k, x)); }

/* The three column sums, one 8-channel group: mode 0: s1 += x;  mode 1: s2 += (x - k)^2;
 * mode 2: s1 += x - k, s2 += (x - k)^2.  Always inlined with a constant mode, so that the
 * accumulators of the 32-channel blocks live in registers. */
#define COL_STEP(mode, xv, kv, a, q) do { \
        __m512d d_ = (xv); \
        if ((mode) == 0) { \
            (a) = _mm512_add_pd((a), d_); \
        } else { \
            d_ = _mm512_sub_pd(d_, (kv)); \
            if ((mode) == 1) { \
                (q) = _mm512_add_pd((q), _mm512_mul_pd(d_, d_)); \
            } else { \
                (a) = _mm512_add_pd((a), d_); \
                (q) = _mm512_add_pd((q), _mm512_mul_pd(d_, d_)); \
            } \
        } \
    } while (0)

static inline __attribute__((always_inline)) void col_fold(const float *x, size_t rows, size_t C, const double *k,
                                                           double *s1, double *s2, int mode)
{
    const __m512d z = _mm512_setzero_pd();
    size_t rb = row_block(C);
    for (size_t r0 = 0; r0 < rows; r0 += rb, x += rb * C) {
        size_t rn = rows - r0 < rb ? rows - r0 : rb;
        size_t c = 0;
        for (; c + 32 <= C; c += 32) {
            __m512d a0 = mode != 1 ? _mm512_loadu_pd(s1 + c) : z, a1 = mode != 1 ? _mm512_loadu_pd(s1 + c + 8) : z;
            __m512d a2 = mode != 1 ? _mm512_loadu_pd(s1 + c + 16) : z, a3 = mode != 1 ? _mm512_loadu_pd(s1 + c + 24) : z;
            __m512d q0 = mode ? _mm512_loadu_pd(s2 + c) : z, q1 = mode ? _mm512_loadu_pd(s2 + c + 8) : z;
            __m512d q2 = mode ? _mm512_loadu_pd(s2 + c + 16) : z, q3 = mode ? _mm512_loadu_pd(s2 + c + 24) : z;
            __m512d k0 = mode ? _mm512_loadu_pd(k + c) : z, k1 = mode ? _mm512_loadu_pd(k + c + 8) : z;
            __m512d k2 = mode ? _mm512_loadu_pd(k + c + 16) : z, k3 = mode ? _mm512_loadu_pd(k + c + 24) : z;
            const float *p = x + c;
            for (size_t r = 0; r < rn; r++, p += C) {
                COL_STEP(mode, _mm512_cvtps_pd(_mm256_loadu_ps(p)), k0, a0, q0);
                COL_STEP(mode, _mm512_cvtps_pd(_mm256_loadu_ps(p + 8)), k1, a1, q1);
                COL_STEP(mode, _mm512_cvtps_pd(_mm256_loadu_ps(p + 16)), k2, a2, q2);
                COL_STEP(mode, _mm512_cvtps_pd(_mm256_loadu_ps(p + 24)), k3, a3, q3);
            }
            if (mode != 1) {
                _mm512_storeu_pd(s1 + c, a0), _mm512_storeu_pd(s1 + c + 8, a1);
                _mm512_storeu_pd(s1 + c + 16, a2), _mm512_storeu_pd(s1 + c + 24, a3);
            }
            if (mode) {
                _mm512_storeu_pd(s2 + c, q0), _mm512_storeu_pd(s2 + c + 8, q1);
                _mm512_storeu_pd(s2 + c + 16, q2), _mm512_storeu_pd(s2 + c + 24, q3);
            }
        }
        for (; c < C; c += 8) {
            __mmask8 m = tail8(C - c);
            __m512d a = mode != 1 ? _mm512_maskz_loadu_pd(m, s1 + c) : z;
            __m512d q = mode ? _mm512_maskz_loadu_pd(m, s2 + c) : z;
            __m512d kk = mode ? _mm512_maskz_loadu_pd(m, k + c) : z;
            const float *p = x + c;
            for (size_t r = 0; r < rn; r++, p += C)
                COL_STEP(mode, ld8(p, m), kk, a, q);
            if (mode != 1)
                _mm512_mask_storeu_pd(s1 + c, m, a);
            if (mode)
                _mm512_mask_storeu_pd(s2 + c, m, q);
        }
    }
}

static void col_sum_v(const float *x, size_t rows, size_t C, double *acc)
{
    col_fold(x, rows, C, NULL, acc, NULL, 0);
}

static void col_sqdev_v(const float *x, size_t rows, size_t C, const double *mean, double *acc)
{
    col_fold(x, rows, C, mean, NULL, acc, 1);
}

/* no FMA here: the column kernels must round exactly like the scalar code */
static void col_ssums_v(const float *x, size_t rows, size_t C, const double *k, double *s1, double *s2)
{
    col_fold(x, rows, C, k, s1, s2, 2);
}

static void col_affine_v(const float *x, float *y, size_t rows, size_t C, const float *m, const float *a, const float *b,
                         float beta)
{
    __m512 vb = _mm512_set1_ps(beta);
    for (size_t r = 0; r < rows; r++, x += C, y += C)
        for (size_t c = 0; c < C; c += 16) {
            __mmask16 k = tail(C - c);
            __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + c), _mm512_maskz_loadu_ps(k, m + c));
            __m512 o = _mm512_add_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(k, a + c), d),
                                     _mm512_maskz_loadu_ps(k, b + c));
            if (beta != 0.0f)
                o = _mm512_add_ps(o, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(k, y + c)));
            _mm512_mask_storeu_ps(y + c, k, o);
        }
}

/* As col_fold: 32 channels of both sums in registers over an L1-sized block of rows. */
#define DSUM_STEP(pd, px, mv, g, h) do { \
        __m512d gy_ = _mm512_cvtps_pd(_mm256_loadu_ps(pd)); \
        __m512d d_ = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(px)), (mv)); \
        (g) = _mm512_add_pd((g), gy_); \
        (h) = _mm512_add_pd((h), _mm512_mul_pd(gy_, d_)); \
    } while (0)

static void col_dsums_v(const float *dy, const float *x, size_t rows, size_t C, const double *mean, double *sdy,
                        double *sdyx)
{
    size_t rb = row_block(C);
    for (size_t r0 = 0; r0 < rows; r0 += rb, x += rb * C, dy += rb * C) {
        size_t rn = rows - r0 < rb ? rows - r0 : rb;
        size_t c = 0;
        for (; c + 32 <= C; c += 32) {      /* named accumulators: they stay in registers */
            __m512d g0 = _mm512_loadu_pd(sdy + c), g1 = _mm512_loadu_pd(sdy + c + 8);
            __m512d g2 = _mm512_loadu_pd(sdy + c + 16), g3 = _mm512_loadu_pd(sdy + c + 24);
            __m512d h0 = _mm512_loadu_pd(sdyx + c), h1 = _mm512_loadu_pd(sdyx + c + 8);
            __m512d h2 = _mm512_loadu_pd(sdyx + c + 16), h3 = _mm512_loadu_pd(sdyx + c + 24);
            __m512d m0 = _mm512_loadu_pd(mean + c), m1 = _mm512_loadu_pd(mean + c + 8);
            __m512d m2 = _mm512_loadu_pd(mean + c + 16), m3 = _mm512_loadu_pd(mean + c + 24);
            const float *px = x + c, *pd = dy + c;
            for (size_t r = 0; r < rn; r++, px += C, pd += C) {
                DSUM_STEP(pd, px, m0, g0, h0);
                DSUM_STEP(pd + 8, px + 8, m1, g1, h1);
                DSUM_STEP(pd + 16, px + 16, m2, g2, h2);
                DSUM_STEP(pd + 24, px + 24, m3, g3, h3);
            }
            _mm512_storeu_pd(sdy + c, g0), _mm512_storeu_pd(sdy + c + 8, g1);
            _mm512_storeu_pd(sdy + c + 16, g2), _mm512_storeu_pd(sdy + c + 24, g3);
            _mm512_storeu_pd(sdyx + c, h0), _mm512_storeu_pd(sdyx + c + 8, h1);
            _mm512_storeu_pd(sdyx + c + 16, h2), _mm512_storeu_pd(sdyx + c + 24, h3);
        }
        for (; c < C; c += 8) {
            __mmask8 k = tail8(C - c);
            __m512d g = _mm512_maskz_loadu_pd(k, sdy + c), h = _mm512_maskz_loadu_pd(k, sdyx + c);
            __m512d mm = _mm512_maskz_loadu_pd(k, mean + c);
            const float *px = x + c, *pd = dy + c;
            for (size_t r = 0; r < rn; r++, px += C, pd += C) {
                __m512d gy = ld8(pd, k), d = _mm512_sub_pd(ld8(px, k), mm);
                g = _mm512_add_pd(g, gy);
                h = _mm512_add_pd(h, _mm512_mul_pd(gy, d));
            }
            _mm512_mask_storeu_pd(sdy + c, k, g);
            _mm512_mask_storeu_pd(sdyx + c, k, h);
        }
    }
}

static void col_bwd_v(const float *dy, const float *x, float *dx, size_t rows, size_t C, const float *m, const float *p,
                      const float *q, const float *rr, float beta)
{
    __m512 vb = _mm512_set1_ps(beta);
    for (size_t i = 0; i < rows; i++, x += C, dy += C, dx += C)
        for (size_t c = 0; c < C; c += 16) {
            __mmask16 k = tail(C - c);
            __m512 o = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(k, p + c), _mm512_maskz_loadu_ps(k, dy + c)),
                                                   _mm512_mul_ps(_mm512_maskz_loadu_ps(k, q + c),
                                                                 _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + c),
                                                                               _mm512_maskz_loadu_ps(k, m + c)))),
                                     _mm512_maskz_loadu_ps(k, rr + c));
            if (beta != 0.0f)
                o = _mm512_add_ps(o, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(k, dx + c)));
            _mm512_mask_storeu_ps(dx + c, k, o);
        }
}

/* Streaming variants of the two column kernels: same arithmetic, non-temporal stores. */
static void col_affine_stream_v(const float *x, float *y, size_t rows, size_t C, const float *m, const float *a,
                                const float *b, float beta)
{
    if (beta != 0.0f || C % 16 || ((uintptr_t)y & 63)) {
        col_affine_v(x, y, rows, C, m, a, b, beta);
        return;
    }
    for (size_t r = 0; r < rows; r++, x += C, y += C)
        for (size_t c = 0; c < C; c += 16) {
            __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + c), _mm512_loadu_ps(m + c));
            _mm512_stream_ps(y + c, _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(a + c), d), _mm512_loadu_ps(b + c)));
        }
    _mm_sfence();
}

static void col_bwd_stream_v(const float *dy, const float *x, float *dx, size_t rows, size_t C, const float *m,
                             const float *p, const float *q, const float *rr, float beta)
{
    if (beta != 0.0f || C % 16 || ((uintptr_t)dx & 63)) {
        col_bwd_v(dy, x, dx, rows, C, m, p, q, rr, beta);
        return;
    }
    for (size_t i = 0; i < rows; i++, x += C, dy += C, dx += C)
        for (size_t c = 0; c < C; c += 16) {
            __m512 o = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(p + c), _mm512_loadu_ps(dy + c)),
                                                   _mm512_mul_ps(_mm512_loadu_ps(q + c),
                                                                 _mm512_sub_ps(_mm512_loadu_ps(x + c),
                                                                               _mm512_loadu_ps(m + c)))),
                                     _mm512_loadu_ps(rr + c));
            _mm512_stream_ps(dx + c, o);
        }
    _mm_sfence();
}

static void h2f_v(const uint16_t *h, float *f, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n - i);
        _mm512_mask_storeu_ps(f + i, k, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, h + i)));
    }
}

static void f2h_v(const float *f, uint16_t *h, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n - i);
        _mm256_mask_storeu_epi16(h + i, k, _mm512_cvtps_ph(_mm512_maskz_loadu_ps(k, f + i), _MM_FROUND_TO_NEAREST_INT));
    }
}

/* BFLOAT16: shift to widen; integer round-to-nearest-even (NaNs quieted) to narrow, as the
 * scalar code does. */
static void b2f_v(const uint16_t *h, float *f, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n - i);
        __m512i w = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(k, h + i));
        _mm512_mask_storeu_ps(f + i, k, _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
    }
}

static void f2b_v(const float *f, uint16_t *h, size_t n)
{
    const __m512i absmask = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
    const __m512i bias = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1), quiet = _mm512_set1_epi32(0x400000);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail(n - i);
        __m512i u = _mm512_castps_si512(_mm512_maskz_loadu_ps(k, f + i));
        __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(u, absmask), inf);
        __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(bias, _mm512_and_si512(_mm512_srli_epi32(u, 16), one)));
        r = _mm512_mask_or_epi32(r, nan, u, quiet);
        _mm256_mask_storeu_epi16(h + i, k, _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16)));
    }
}

const hd_bn_f32_kernels hd_f32_bn_ukernels__avx512 = {"avx512", sum_v, sqdev_v, affine_v, dsums_v, bwd_v,
                                             col_sum_v, col_sqdev_v, col_affine_v, col_dsums_v, col_bwd_v,
                                             h2f_v, f2h_v, b2f_v, f2b_v, ssums_v, col_ssums_v,
                                             dssums_v, affine_stream_v, bwd_stream_v,
                                             col_affine_stream_v, col_bwd_stream_v};
