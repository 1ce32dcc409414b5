/* Pooling over channel-contiguous layouts, 16 lanes, 64 channels per block in four
 * independent chains, masked tails (see pool-ukernels.h). */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

/* max_ps(v, a) is "v > a ? v : a": the scalar rule; with propagation a NaN v replaces a
 * non-NaN a, and a NaN a stays. */
static inline __m512 step(__m512 a, __m512 v, int propagate)
{
    __m512 m = _mm512_max_ps(v, a);
    if (!propagate)
        return m;
    __mmask16 vnan = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(a, a, _CMP_ORD_Q), v, v, _CMP_UNORD_Q);
    return _mm512_mask_mov_ps(m, vnan, v);
}

/* One 16-channel lane group at offset i of the window's taps (mask k for the tail). */
static inline __m512 fold(const float *const *taps, int ntaps, size_t i, __mmask16 k, int op)
{
    if (op == HD_POOL_NHWC_AVG) {
        __m512 s = _mm512_maskz_loadu_ps(k, taps[0] + i);
        for (int t = 1; t < ntaps; t++)
            s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(k, taps[t] + i));
        return s;
    }
    int prop = op == HD_POOL_NHWC_MAX_PROPAGATE;
    __m512 a = _mm512_set1_ps(-INFINITY);
    for (int t = 0; t < ntaps; t++)
        a = step(a, _mm512_maskz_loadu_ps(k, taps[t] + i), prop);
    return a;
}

static inline void put(float *y, __m512 v, int stream)
{
    if (stream)
        _mm512_stream_ps(y, v);
    else
        _mm512_storeu_ps(y, v);
}

/* Channels [I, C) (fewer than a vector) folded and stored under a mask. */
static void fold_tail(float *y, const float *const *taps, int ntaps, size_t i, size_t c, int op, __m512 d)
{
    if (i == c)
        return;
    int avg = op == HD_POOL_NHWC_AVG;
    __mmask16 k = (__mmask16)((1u << (c - i)) - 1u);
    __m512 a = fold(taps, ntaps, i, k, op);
    _mm512_mask_storeu_ps(y + i, k, avg ? _mm512_div_ps(a, d) : a);
}

/* Global pooling (one output of many taps, long rows): the taps are walked one after
 * another, each a contiguous row folded into a row of accumulators that stays in L1, so the
 * input is read as one sequential stream instead of 64 channels from each of the ntaps rows at
 * a time (which kept ntaps streams open).  Each channel still folds its taps in tap order:
 * the same bits. */
#define HD_POOL_ROWFOLD_MAX 4096

static void fold_rows(float *y, const float *const *taps, int ntaps, size_t c, int op, float div, int stream)
{
    float acc[HD_POOL_ROWFOLD_MAX] __attribute__((aligned(64)));
    int avg = op == HD_POOL_NHWC_AVG, prop = op == HD_POOL_NHWC_MAX_PROPAGATE;
    size_t body = c & ~(size_t)15;
    for (int t = 0; t < ntaps; t++) {
        const float *p = taps[t];
        if (avg && t == 0) {
            for (size_t i = 0; i < body; i += 16)
                _mm512_store_ps(acc + i, _mm512_loadu_ps(p + i));
        } else if (avg) {
            for (size_t i = 0; i < body; i += 16)
                _mm512_store_ps(acc + i, _mm512_add_ps(_mm512_load_ps(acc + i), _mm512_loadu_ps(p + i)));
        } else {
            for (size_t i = 0; i < body; i += 16)
                _mm512_store_ps(acc + i, step(t ? _mm512_load_ps(acc + i) : _mm512_set1_ps(-INFINITY),
                                              _mm512_loadu_ps(p + i), prop));
        }
    }
    __m512 d = _mm512_set1_ps(avg ? div : 1.0f);
    for (size_t i = 0; i < body; i += 16) {
        __m512 a = _mm512_load_ps(acc + i);
        put(y + i, avg ? _mm512_div_ps(a, d) : a, stream);
    }
    fold_tail(y, taps, ntaps, body, c, op, d);
    if (stream)
        _mm_sfence();
}

void hd_f32_pool_ukernel_nhwc__avx512(float *y, size_t ystride, size_t ow, const float *const *taps, int ntaps,
                                      size_t c, int op, const float *div, int stream)
{
    if (ow == 1 && ntaps >= 16 && c >= 512 && c <= HD_POOL_ROWFOLD_MAX) {
        fold_rows(y, taps, ntaps, c, op, op == HD_POOL_NHWC_AVG ? div[0] : 1.0f, stream);
        return;
    }
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    int avg = op == HD_POOL_NHWC_AVG, prop = op == HD_POOL_NHWC_MAX_PROPAGATE;
    for (size_t j = 0; j < ow; j++, y += ystride, taps += ntaps) {
        __m512 d = _mm512_set1_ps(avg ? div[j] : 1.0f);
        size_t i = 0;
        for (; i + 64 <= c; i += 64) {
            __m512 a0, a1, a2, a3;
            if (avg) {
                const float *p = taps[0] + i;
                a0 = _mm512_loadu_ps(p), a1 = _mm512_loadu_ps(p + 16);
                a2 = _mm512_loadu_ps(p + 32), a3 = _mm512_loadu_ps(p + 48);
                for (int t = 1; t < ntaps; t++) {
                    p = taps[t] + i;
                    a0 = _mm512_add_ps(a0, _mm512_loadu_ps(p));
                    a1 = _mm512_add_ps(a1, _mm512_loadu_ps(p + 16));
                    a2 = _mm512_add_ps(a2, _mm512_loadu_ps(p + 32));
                    a3 = _mm512_add_ps(a3, _mm512_loadu_ps(p + 48));
                }
                a0 = _mm512_div_ps(a0, d), a1 = _mm512_div_ps(a1, d);
                a2 = _mm512_div_ps(a2, d), a3 = _mm512_div_ps(a3, d);
            } else {
                a0 = a1 = a2 = a3 = ninf;
                for (int t = 0; t < ntaps; t++) {
                    const float *p = taps[t] + i;
                    a0 = step(a0, _mm512_loadu_ps(p), prop);
                    a1 = step(a1, _mm512_loadu_ps(p + 16), prop);
                    a2 = step(a2, _mm512_loadu_ps(p + 32), prop);
                    a3 = step(a3, _mm512_loadu_ps(p + 48), prop);
                }
            }
            put(y + i, a0, stream);
            put(y + i + 16, a1, stream);
            put(y + i + 32, a2, stream);
            put(y + i + 48, a3, stream);
        }
        for (; i + 16 <= c; i += 16) {
            __m512 a = fold(taps, ntaps, i, 0xffff, op);
            put(y + i, avg ? _mm512_div_ps(a, d) : a, stream);
        }
        fold_tail(y, taps, ntaps, i, c, op, d);
    }
    if (stream)
        _mm_sfence();
}

/* The running rule per lane: replace where v > m, or (propagating) where v is NaN and m not. */
void hd_f32_pool_ukernel_argmax__avx512(const float *const *taps, int ntaps, size_t c, int propagate, int32_t *arg)
{
    for (size_t i = 0; i < c; i += 16) {
        __mmask16 k = c - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (c - i)) - 1u);
        __m512 m = _mm512_set1_ps(-INFINITY);
        __m512i best = _mm512_set1_epi32(-1);
        for (int t = 0; t < ntaps; t++) {
            __m512 v = _mm512_maskz_loadu_ps(k, taps[t] + i);
            __mmask16 take = _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ);
            if (propagate)
                take |= _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(m, m, _CMP_ORD_Q), v, v, _CMP_UNORD_Q);
            m = _mm512_mask_mov_ps(m, take, v);
            best = _mm512_mask_mov_epi32(best, take, _mm512_set1_epi32(t));
        }
        _mm512_mask_storeu_epi32(arg + i, k, best);
    }
}

/* 8 doubles at a time, rounded to float once (cvtpd_ps rounds to nearest, as the scalar cast). */
void hd_f32_pool_ukernel_flush__avx512(float *dx, double *acc, size_t n, double alpha, double beta)
{
    const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta), z = _mm512_setzero_pd();
    for (size_t i = 0; i < n; i += 8) {
        __mmask8 k = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1u);
        __m512d r = _mm512_mul_pd(va, _mm512_maskz_loadu_pd(k, acc + i));
        if (beta != 0.0)
            r = _mm512_add_pd(r, _mm512_mul_pd(vb, _mm512_cvtps_pd(_mm256_maskz_loadu_ps(k, dx + i))));
        _mm256_mask_storeu_ps(dx + i, k, _mm512_cvtpd_ps(r));
        _mm512_mask_storeu_pd(acc + i, k, z);
    }
}
