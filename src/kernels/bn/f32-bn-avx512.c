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

static inline __m512d ld8(const float *x, __mmask8 k) { return _mm512_cvtps_pd(_mm256_maskz_loadu_ps(k, x)); }

/* lanes of 8-channel group G that hold channels (0 past the last channel) */
static inline __mmask8 gmask(size_t C, size_t g) { return C > 8 * g ? tail8(C - 8 * g) : (__mmask8)0; }

/* The three column sums on one 8-channel group: mode 0: s1 += x;  mode 1: s2 += (x - k)^2;
 * mode 2: s1 += x - k, s2 += (x - k)^2.  Masked lanes add zeros that are never stored. */
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

/* Up to 64 channels (G = ceil(C / 8) groups): all accumulators in named registers, the rows
 * read once in memory order.  Always inlined with constant MODE and G, so the unused groups
 * vanish.  (Register blocks of 32 channels over row blocks read each row in pieces and
 * were slower once x came from memory: the reads must stay in address order.) */
#define NARROW_GROUPS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

static inline __attribute__((always_inline)) void col_fold_narrow(const float *x, size_t rows, size_t C,
                                                                  const double *k, double *s1, double *s2, int mode,
                                                                  int G)
{
    const __m512d z = _mm512_setzero_pd();
#define FOLD_INIT(i) \
    const __mmask8 m##i = gmask(C, i); \
    __m512d a##i = (G > i && mode != 1) ? _mm512_maskz_loadu_pd(m##i, s1 + 8 * i) : z; \
    __m512d q##i = (G > i && mode) ? _mm512_maskz_loadu_pd(m##i, s2 + 8 * i) : z; \
    const __m512d k##i = (G > i && mode) ? _mm512_maskz_loadu_pd(m##i, k + 8 * i) : z;
    NARROW_GROUPS(FOLD_INIT)
#undef FOLD_INIT
    for (size_t r = 0; r < rows; r++, x += C) {
#define FOLD_ROW(i) if (G > i) COL_STEP(mode, ld8(x + 8 * i, m##i), k##i, a##i, q##i);
        NARROW_GROUPS(FOLD_ROW)
#undef FOLD_ROW
    }
#define FOLD_STORE(i) \
    if (G > i && mode != 1) _mm512_mask_storeu_pd(s1 + 8 * i, m##i, a##i); \
    if (G > i && mode) _mm512_mask_storeu_pd(s2 + 8 * i, m##i, q##i);
    NARROW_GROUPS(FOLD_STORE)
#undef FOLD_STORE
}

/* Wider rows: the rows in memory order, the accumulators in L1 (load, add, store per group). */
static inline __attribute__((always_inline)) void col_fold_wide(const float *x, size_t rows, size_t C,
                                                                const double *k, double *s1, double *s2, int mode)
{
    const __m512d z = _mm512_setzero_pd();
    for (size_t r = 0; r < rows; r++, x += C)
        for (size_t c = 0; c < C; c += 8) {
            __mmask8 m = tail8(C - c);
            __m512d a = mode != 1 ? _mm512_maskz_loadu_pd(m, s1 + c) : z;
            __m512d q = mode ? _mm512_maskz_loadu_pd(m, s2 + c) : z;
            __m512d kk = mode ? _mm512_maskz_loadu_pd(m, k + c) : z;
            COL_STEP(mode, ld8(x + c, m), kk, a, q);
            if (mode != 1)
                _mm512_mask_storeu_pd(s1 + c, m, a);
            if (mode)
                _mm512_mask_storeu_pd(s2 + c, m, q);
        }
}

static inline __attribute__((always_inline)) void col_fold(const float *x, size_t rows, size_t C, const double *k,
                                                           double *s1, double *s2, int mode)
{
    switch ((C + 7) / 8) {
    case 0: return;
    case 1: col_fold_narrow(x, rows, C, k, s1, s2, mode, 1); return;
    case 2: col_fold_narrow(x, rows, C, k, s1, s2, mode, 2); return;
    case 3: col_fold_narrow(x, rows, C, k, s1, s2, mode, 3); return;
    case 4: col_fold_narrow(x, rows, C, k, s1, s2, mode, 4); return;
    case 5: col_fold_narrow(x, rows, C, k, s1, s2, mode, 5); return;
    case 6: col_fold_narrow(x, rows, C, k, s1, s2, mode, 6); return;
    case 7: col_fold_narrow(x, rows, C, k, s1, s2, mode, 7); return;
    case 8: col_fold_narrow(x, rows, C, k, s1, s2, mode, 8); return;
    default: col_fold_wide(x, rows, C, k, s1, s2, mode); return;
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

/* As col_fold: up to 64 channels of both sums in registers, rows in memory order; wider
 * rows with the accumulators in L1. */
#define DSUM_STEP(gv, xv, mv, g, h) do { \
        __m512d gy_ = (gv), d_ = _mm512_sub_pd((xv), (mv)); \
        (g) = _mm512_add_pd((g), gy_); \
        (h) = _mm512_add_pd((h), _mm512_mul_pd(gy_, d_)); \
    } while (0)

static inline __attribute__((always_inline)) void col_dsums_narrow(const float *dy, const float *x, size_t rows,
                                                                   size_t C, const double *mean, double *sdy,
                                                                   double *sdyx, int G)
{
    const __m512d z = _mm512_setzero_pd();
#define DS_INIT(i) \
    const __mmask8 m##i = gmask(C, i); \
    __m512d g##i = G > i ? _mm512_maskz_loadu_pd(m##i, sdy + 8 * i) : z; \
    __m512d h##i = G > i ? _mm512_maskz_loadu_pd(m##i, sdyx + 8 * i) : z; \
    const __m512d mu##i = G > i ? _mm512_maskz_loadu_pd(m##i, mean + 8 * i) : z;
    NARROW_GROUPS(DS_INIT)
#undef DS_INIT
    for (size_t r = 0; r < rows; r++, x += C, dy += C) {
#define DS_ROW(i) if (G > i) DSUM_STEP(ld8(dy + 8 * i, m##i), ld8(x + 8 * i, m##i), mu##i, g##i, h##i);
        NARROW_GROUPS(DS_ROW)
#undef DS_ROW
    }
#define DS_STORE(i) \
    if (G > i) { _mm512_mask_storeu_pd(sdy + 8 * i, m##i, g##i); _mm512_mask_storeu_pd(sdyx + 8 * i, m##i, h##i); }
    NARROW_GROUPS(DS_STORE)
#undef DS_STORE
}

static void col_dsums_v(const float *dy, const float *x, size_t rows, size_t C, const double *mean, double *sdy,
                        double *sdyx)
{
    switch ((C + 7) / 8) {
    case 0: return;
    case 1: col_dsums_narrow(dy, x, rows, C, mean, sdy, sdyx, 1); return;
    case 2: col_dsums_narrow(dy, x, rows, C, mean, sdy, sdyx, 2); return;
    case 3: col_dsums_narrow(dy, x, rows, C, mean, sdy, sdyx, 3); return;
    case 4: col_dsums_narrow(dy, x, rows, C, mean, sdy, sdyx, 4); return;
    case 5: col_dsums_narrow(dy, x, rows, C, mean, sdy, sdyx, 5); return;
    case 6: col_dsums_narrow(dy, x, rows, C, mean, sdy, sdyx, 6); return;
    case 7: col_dsums_narrow(dy, x, rows, C, mean, sdy, sdyx, 7); return;
    case 8: col_dsums_narrow(dy, x, rows, C, mean, sdy, sdyx, 8); return;
    default: break;
    }
    for (size_t r = 0; r < rows; r++, x += C, dy += C)
        for (size_t c = 0; c < C; c += 8) {
            __mmask8 k = tail8(C - c);
            __m512d g = _mm512_maskz_loadu_pd(k, sdy + c), h = _mm512_maskz_loadu_pd(k, sdyx + c);
            DSUM_STEP(ld8(dy + c, k), ld8(x + c, k), _mm512_maskz_loadu_pd(k, mean + c), g, h);
            _mm512_mask_storeu_pd(sdy + c, k, g);
            _mm512_mask_storeu_pd(sdyx + c, k, h);
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

/* Streaming variants of the two column kernels: the same arithmetic per element, with the
 * rows taken as one flat run (they are contiguous), so that the stores start on a 64-byte
 * line whatever C and the output's alignment: 16 consecutive elements then span the end of
 * a row, and their parameters wrap to channel 0 (par16; needs C >= 16).  The unaligned head
 * and the last partial vector use plain masked stores. */
static inline __m512 par16(const float *p, size_t c0, size_t C)
{
    if (c0 + 16 <= C)
        return _mm512_loadu_ps(p + c0);
    __mmask16 k = (__mmask16)((1u << (C - c0)) - 1u);
    return _mm512_mask_expandloadu_ps(_mm512_maskz_loadu_ps(k, p + c0), (__mmask16)~k, p);
}

static inline __m512 affine16(const float *x, __mmask16 k, size_t c0, size_t C, const float *m, const float *a,
                              const float *b)
{
    __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x), par16(m, c0, C));
    return _mm512_add_ps(_mm512_mul_ps(par16(a, c0, C), d), par16(b, c0, C));
}

static void col_affine_stream_v(const float *x, float *y, size_t rows, size_t C, const float *m, const float *a,
                                const float *b, float beta)
{
    size_t n = rows * C, h = head_to_aligned(y, n);
    if (beta != 0.0f || C < 16 || n - h < 16) {
        col_affine_v(x, y, rows, C, m, a, b, beta);
        return;
    }
    if (h)              /* h < 16 <= C: channels 0 .. h-1 of the first row */
        _mm512_mask_storeu_ps(y, tail(h), affine16(x, tail(h), 0, C, m, a, b));
    size_t i = h, c0 = h;
    for (; i + 16 <= n; i += 16) {
        _mm512_stream_ps(y + i, affine16(x + i, (__mmask16)0xffff, c0, C, m, a, b));
        c0 += 16;
        c0 -= c0 >= C ? C : 0;
    }
    _mm_sfence();
    if (i < n)
        _mm512_mask_storeu_ps(y + i, tail(n - i), affine16(x + i, tail(n - i), c0, C, m, a, b));
}

static inline __m512 bwd16(const float *dy, const float *x, __mmask16 k, size_t c0, size_t C, const float *m,
                           const float *p, const float *q, const float *rr)
{
    __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x), par16(m, c0, C));
    return _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(par16(p, c0, C), _mm512_maskz_loadu_ps(k, dy)),
                                       _mm512_mul_ps(par16(q, c0, C), d)),
                         par16(rr, c0, C));
}

static void col_bwd_stream_v(const float *dy, const float *x, float *dx, size_t rows, size_t C, const float *m,
                             const float *p, const float *q, const float *rr, float beta)
{
    size_t n = rows * C, h = head_to_aligned(dx, n);
    if (beta != 0.0f || C < 16 || n - h < 16) {
        col_bwd_v(dy, x, dx, rows, C, m, p, q, rr, beta);
        return;
    }
    if (h)
        _mm512_mask_storeu_ps(dx, tail(h), bwd16(dy, x, tail(h), 0, C, m, p, q, rr));
    size_t i = h, c0 = h;
    for (; i + 16 <= n; i += 16) {
        _mm512_stream_ps(dx + i, bwd16(dy + i, x + i, (__mmask16)0xffff, c0, C, m, p, q, rr));
        c0 += 16;
        c0 -= c0 >= C ? C : 0;
    }
    _mm_sfence();
    if (i < n)
        _mm512_mask_storeu_ps(dx + i, tail(n - i), bwd16(dy + i, x + i, tail(n - i), c0, C, m, p, q, rr));
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
