/* Pooling over channel-contiguous layouts, 8 lanes, 32 channels per block in four
 * independent chains, masked tails (see pool-ukernels.h). */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

/* max_ps(v, a) is "v > a ? v : a": the scalar rule; with propagation a NaN v replaces a
 * non-NaN a, and a NaN a stays. */
static inline __m256 step(__m256 a, __m256 v, int propagate)
{
    __m256 m = _mm256_max_ps(v, a);
    if (!propagate)
        return m;
    __m256 vnan = _mm256_and_ps(_mm256_cmp_ps(a, a, _CMP_ORD_Q), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    return _mm256_blendv_ps(m, v, vnan);
}

static inline __m256i tail_mask(size_t left)
{
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)left), lane);
}

/* One 8-channel lane group at offset i (mask k; all lanes when full). */
static inline __m256 fold(const float *const *taps, int ntaps, size_t i, __m256i k, int op)
{
    if (op == HD_POOL_NHWC_AVG) {
        __m256 s = _mm256_maskload_ps(taps[0] + i, k);
        for (int t = 1; t < ntaps; t++)
            s = _mm256_add_ps(s, _mm256_maskload_ps(taps[t] + i, k));
        return s;
    }
    int prop = op == HD_POOL_NHWC_MAX_PROPAGATE;
    __m256 a = _mm256_set1_ps(-INFINITY);
    for (int t = 0; t < ntaps; t++)
        a = step(a, _mm256_maskload_ps(taps[t] + i, k), prop);
    return a;
}

static inline void put(float *y, __m256 v, int stream)
{
    if (stream)
        _mm256_stream_ps(y, v);
    else
        _mm256_storeu_ps(y, v);
}

/* Channels [I, C) (fewer than a vector) folded and stored under a mask. */
static void fold_tail(float *y, const float *const *taps, int ntaps, size_t i, size_t c, int op, __m256 d)
{
    if (i == c)
        return;
    int avg = op == HD_POOL_NHWC_AVG;
    __m256i k = tail_mask(c - i);
    __m256 a = fold(taps, ntaps, i, k, op);
    _mm256_maskstore_ps(y + i, k, avg ? _mm256_div_ps(a, d) : a);
}

/* Global pooling (one output of many taps, long rows): tap by tap into a row of accumulators
 * in L1, so x is read as one sequential stream; each channel folds its taps in tap order, the
 * same bits (see the AVX-512 twin). */
#define HD_POOL_ROWFOLD_MAX 4096

static void fold_rows(float *y, const float *const *taps, int ntaps, size_t c, int op, float div, int stream)
{
    float acc[HD_POOL_ROWFOLD_MAX] __attribute__((aligned(32)));
    int avg = op == HD_POOL_NHWC_AVG, prop = op == HD_POOL_NHWC_MAX_PROPAGATE;
    size_t body = c & ~(size_t)7;
    for (int t = 0; t < ntaps; t++) {
        const float *p = taps[t];
        if (avg && t == 0) {
            for (size_t i = 0; i < body; i += 8)
                _mm256_store_ps(acc + i, _mm256_loadu_ps(p + i));
        } else if (avg) {
            for (size_t i = 0; i < body; i += 8)
                _mm256_store_ps(acc + i, _mm256_add_ps(_mm256_load_ps(acc + i), _mm256_loadu_ps(p + i)));
        } else {
            for (size_t i = 0; i < body; i += 8)
                _mm256_store_ps(acc + i, step(t ? _mm256_load_ps(acc + i) : _mm256_set1_ps(-INFINITY),
                                              _mm256_loadu_ps(p + i), prop));
        }
    }
    __m256 d = _mm256_set1_ps(avg ? div : 1.0f);
    for (size_t i = 0; i < body; i += 8) {
        __m256 a = _mm256_load_ps(acc + i);
        put(y + i, avg ? _mm256_div_ps(a, d) : a, stream);
    }
    fold_tail(y, taps, ntaps, body, c, op, d);
    if (stream)
        _mm_sfence();
}

void hd_f32_pool_ukernel_nhwc__avx2(float *y, size_t ystride, size_t ow, const float *const *taps, int ntaps,
                                    size_t c, int op, const float *div, int stream)
{
    if (ow == 1 && ntaps >= 16 && c >= 512 && c <= HD_POOL_ROWFOLD_MAX) {
        fold_rows(y, taps, ntaps, c, op, op == HD_POOL_NHWC_AVG ? div[0] : 1.0f, stream);
        return;
    }
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    const __m256i all = _mm256_set1_epi32(-1);
    int avg = op == HD_POOL_NHWC_AVG, prop = op == HD_POOL_NHWC_MAX_PROPAGATE;
    for (size_t j = 0; j < ow; j++, y += ystride, taps += ntaps) {
        __m256 d = _mm256_set1_ps(avg ? div[j] : 1.0f);
        size_t i = 0;
        for (; i + 32 <= c; i += 32) {
            __m256 a0, a1, a2, a3;
            if (avg) {
                const float *p = taps[0] + i;
                a0 = _mm256_loadu_ps(p), a1 = _mm256_loadu_ps(p + 8);
                a2 = _mm256_loadu_ps(p + 16), a3 = _mm256_loadu_ps(p + 24);
                for (int t = 1; t < ntaps; t++) {
                    p = taps[t] + i;
                    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p));
                    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + 8));
                    a2 = _mm256_add_ps(a2, _mm256_loadu_ps(p + 16));
                    a3 = _mm256_add_ps(a3, _mm256_loadu_ps(p + 24));
                }
                a0 = _mm256_div_ps(a0, d), a1 = _mm256_div_ps(a1, d);
                a2 = _mm256_div_ps(a2, d), a3 = _mm256_div_ps(a3, d);
            } else {
                a0 = a1 = a2 = a3 = ninf;
                for (int t = 0; t < ntaps; t++) {
                    const float *p = taps[t] + i;
                    a0 = step(a0, _mm256_loadu_ps(p), prop);
                    a1 = step(a1, _mm256_loadu_ps(p + 8), prop);
                    a2 = step(a2, _mm256_loadu_ps(p + 16), prop);
                    a3 = step(a3, _mm256_loadu_ps(p + 24), prop);
                }
            }
            /* stream is only given with C a multiple of 16, so 32-byte groups are aligned */
            put(y + i, a0, stream);
            put(y + i + 8, a1, stream);
            put(y + i + 16, a2, stream);
            put(y + i + 24, a3, stream);
        }
        for (; i + 8 <= c; i += 8) {
            __m256 a = fold(taps, ntaps, i, all, op);
            put(y + i, avg ? _mm256_div_ps(a, d) : a, stream);
        }
        fold_tail(y, taps, ntaps, i, c, op, d);
    }
    if (stream)
        _mm_sfence();
}

/* The running rule per lane: replace where v > m, or (propagating) where v is NaN and m not. */
void hd_f32_pool_ukernel_argmax__avx2(const float *const *taps, int ntaps, size_t c, int propagate, int32_t *arg)
{
    for (size_t i = 0; i < c; i += 8) {
        __m256i k = tail_mask(c - i);
        __m256 m = _mm256_set1_ps(-INFINITY);
        __m256i best = _mm256_set1_epi32(-1);
        for (int t = 0; t < ntaps; t++) {
            __m256 v = _mm256_maskload_ps(taps[t] + i, k);
            __m256 take = _mm256_cmp_ps(v, m, _CMP_GT_OQ);
            if (propagate)
                take = _mm256_or_ps(take, _mm256_and_ps(_mm256_cmp_ps(m, m, _CMP_ORD_Q), _mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
            m = _mm256_blendv_ps(m, v, take);
            best = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(best),
                                                        _mm256_castsi256_ps(_mm256_set1_epi32(t)), take));
        }
        if (c - i >= 8)              /* a masked store is microcoded on AMD cores: tails only */
            _mm256_storeu_si256((__m256i *)(arg + i), best);
        else
            _mm256_maskstore_epi32(arg + i, k, best);
    }
}
