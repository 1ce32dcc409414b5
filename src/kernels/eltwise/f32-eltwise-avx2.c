/* kernels/eltwise/f32-eltwise-avx2.c -- eltwise-ukernels.h with 8-wide AVX2 vectors; tails scalar. */
#include "kernels/eltwise/eltwise-ukernels.h"
#include "kernels/eltwise/f32-exp-avx2.h"

#include <immintrin.h>
#include <stdint.h>

static void relu(size_t n, const float *x, float *y, float alpha, float beta)
{
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta), z = _mm256_setzero_ps();
    size_t i = 0;
    if (beta != 0.0f) {
        for (; i + 8 <= n; i += 8) {
            /* max(x, 0) returns the second operand (0) when x is NaN */
            __m256 v = _mm256_max_ps(_mm256_loadu_ps(x + i), z);
            _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_mul_ps(va, v), _mm256_mul_ps(vb, _mm256_loadu_ps(y + i))));
        }
    } else {
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(y + i, _mm256_mul_ps(va, _mm256_max_ps(_mm256_loadu_ps(x + i), z)));
    }
    hd_f32_eltwise_ukernels__scalar.relu(n - i, x + i, y + i, alpha, beta);
}

static void axpby(size_t n, const float *x, float *y, float alpha, float beta)
{
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    size_t i = 0;
    if (beta != 0.0f) {
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_mul_ps(va, _mm256_loadu_ps(x + i)),
                                                  _mm256_mul_ps(vb, _mm256_loadu_ps(y + i))));
    } else {
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(y + i, _mm256_mul_ps(va, _mm256_loadu_ps(x + i)));
    }
    hd_f32_eltwise_ukernels__scalar.axpby(n - i, x + i, y + i, alpha, beta);
}

static void add3(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2, float beta)
{
    const __m256 v1 = _mm256_set1_ps(alpha1), v2 = _mm256_set1_ps(alpha2), vb = _mm256_set1_ps(beta);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_add_ps(_mm256_mul_ps(v1, _mm256_loadu_ps(a + i)), _mm256_mul_ps(v2, _mm256_loadu_ps(b + i)));
        if (beta != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(vb, _mm256_loadu_ps(c + i)));
        _mm256_storeu_ps(c + i, v);
    }
    hd_f32_eltwise_ukernels__scalar.add3(n - i, a + i, b + i, c + i, alpha1, alpha2, beta);
}

static void mul3(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2, float beta)
{
    const __m256 v1 = _mm256_set1_ps(alpha1), v2 = _mm256_set1_ps(alpha2), vb = _mm256_set1_ps(beta);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_mul_ps(_mm256_mul_ps(v1, _mm256_loadu_ps(a + i)), _mm256_mul_ps(v2, _mm256_loadu_ps(b + i)));
        if (beta != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(vb, _mm256_loadu_ps(c + i)));
        _mm256_storeu_ps(c + i, v);
    }
    hd_f32_eltwise_ukernels__scalar.mul3(n - i, a + i, b + i, c + i, alpha1, alpha2, beta);
}

/* Elements before Y reaches a 32-byte boundary (streaming stores need it), capped at N;
 * N when Y is not even float-aligned (then everything takes the plain path). */
static size_t head_to_aligned(const float *y, size_t n)
{
    uintptr_t a = (uintptr_t)y;
    if (a % sizeof(float))
        return n;
    size_t h = ((32 - a % 32) % 32) / sizeof(float);
    return h < n ? h : n;
}

/* relu / add3 with streaming stores for beta == 0: the unaligned head and the tail go
 * through the plain kernels, which compute exactly the same values. */
static void relu_stream(size_t n, const float *x, float *y, float alpha, float beta)
{
    size_t h = head_to_aligned(y, n), i;
    if (beta != 0.0f || n - h < 8) {
        relu(n, x, y, alpha, beta);
        return;
    }
    relu(h, x, y, alpha, beta);
    const __m256 va = _mm256_set1_ps(alpha), z = _mm256_setzero_ps();
    for (i = h; i + 8 <= n; i += 8)
        _mm256_stream_ps(y + i, _mm256_mul_ps(va, _mm256_max_ps(_mm256_loadu_ps(x + i), z)));
    _mm_sfence();
    relu(n - i, x + i, y + i, alpha, beta);
}

static void add3_stream(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2, float beta)
{
    size_t h = head_to_aligned(c, n), i;
    if (beta != 0.0f || n - h < 8) {
        add3(n, a, b, c, alpha1, alpha2, beta);
        return;
    }
    add3(h, a, b, c, alpha1, alpha2, beta);
    const __m256 v1 = _mm256_set1_ps(alpha1), v2 = _mm256_set1_ps(alpha2);
    for (i = h; i + 8 <= n; i += 8)
        _mm256_stream_ps(c + i, _mm256_add_ps(_mm256_mul_ps(v1, _mm256_loadu_ps(a + i)),
                                           _mm256_mul_ps(v2, _mm256_loadu_ps(b + i))));
    _mm_sfence();
    add3(n - i, a + i, b + i, c + i, alpha1, alpha2, beta);
}

/* sigmoid from e = exp(-|x|): 1 / (1 + e) for x >= 0, e / (1 + e) below; tanh(|x|) =
 * (1 - e2) / (1 + e2) with e2 = exp(-2|x|), sign restored.  The AVX-512 kernel's operations in
 * the same order (f32-eltwise-avx512.c), so every ISA gives the same bits. */
static inline __m256 act8(__m256 x, int tanh_mode)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u));
    __m256 ax = _mm256_andnot_ps(sign, x);
    if (tanh_mode) {
        __m256 e = hd_f32_exp_neg_avx2(_mm256_mul_ps(_mm256_set1_ps(-2.0f), ax));
        __m256 v = _mm256_div_ps(_mm256_sub_ps(one, e), _mm256_add_ps(one, e));
        return _mm256_or_ps(v, _mm256_and_ps(x, sign));     /* x's sign bit onto v */
    }
    __m256 e = hd_f32_exp_neg_avx2(_mm256_sub_ps(_mm256_setzero_ps(), ax));
    __m256 d = _mm256_add_ps(one, e);
    __m256 neg = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
    return _mm256_div_ps(_mm256_blendv_ps(one, e, neg), d);
}

/* lanes below `left` (at most 8) */
static inline __m256 tailmask(size_t left)
{
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)(left > 8 ? 8 : left)),
                                                  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}

/* Whole vectors load and store plainly, only the tail through the mask: a masked store is
 * microcoded on AMD cores and costs several times a plain one. */
static inline __m256 ld8(const float *p, __m256i k, int full)
{
    return full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, k);
}

static inline void st8(float *p, __m256i k, __m256 v, int full)
{
    if (full)
        _mm256_storeu_ps(p, v);
    else
        _mm256_maskstore_ps(p, k, v);
}

static inline void act(size_t n, const float *x, float *y, float alpha, float beta, int tanh_mode)
{
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    for (size_t i = 0; i < n; i += 8) {
        __m256i k = _mm256_castps_si256(tailmask(n - i));
        const int full = n - i >= 8;
        __m256 xv = ld8(x + i, k, full);
        /* a NaN x gives x itself (selected, so its bits do not depend on operation order) */
        __m256 a = _mm256_blendv_ps(act8(xv, tanh_mode), xv, _mm256_cmp_ps(xv, xv, _CMP_UNORD_Q));
        __m256 v = _mm256_mul_ps(va, a);
        if (beta != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(vb, ld8(y + i, k, full)));
        st8(y + i, k, v, full);
    }
}

static void sigmoid(size_t n, const float *x, float *y, float alpha, float beta) { act(n, x, y, alpha, beta, 0); }
static void tanh_(size_t n, const float *x, float *y, float alpha, float beta) { act(n, x, y, alpha, beta, 1); }

/* clip, activation backward and fill: 8 lanes, the scalar operations in the same order */

static void clip(size_t n, const float *x, float *y, float alpha, float beta, float coef)
{
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta), vc = _mm256_set1_ps(coef);
    const __m256 z = _mm256_setzero_ps();
    for (size_t i = 0; i < n; i += 8) {
        __m256i k = _mm256_castps_si256(tailmask(n - i));
        const int full = n - i >= 8;
        __m256 m = _mm256_max_ps(ld8(x + i, k, full), z);     /* NaN: the second operand, 0 */
        __m256 v = _mm256_mul_ps(va, _mm256_min_ps(m, vc));
        if (beta != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(vb, ld8(y + i, k, full)));
        st8(y + i, k, v, full);
    }
}

static void act_bwd(size_t n, int mode, const float *y, const float *dy, const float *x, float *dx, float alpha,
                    float beta, float coef)
{
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta), vc = _mm256_set1_ps(coef);
    const __m256 z = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    for (size_t i = 0; i < n; i += 8) {
        __m256i k = _mm256_castps_si256(tailmask(n - i));
        const int full = n - i >= 8;
        __m256 g = ld8(dy + i, k, full), v;
        if (mode == HD_ELT_BWD_RELU || mode == HD_ELT_BWD_CLIP) {
            __m256 xv = ld8(x + i, k, full);
            __m256 keep = _mm256_cmp_ps(xv, z, _CMP_GT_OQ);
            if (mode == HD_ELT_BWD_CLIP)
                keep = _mm256_and_ps(keep, _mm256_cmp_ps(xv, vc, _CMP_LT_OQ));
            v = _mm256_and_ps(keep, g);
        } else {
            __m256 yv = ld8(y + i, k, full);
            v = mode == HD_ELT_BWD_SIGMOID ? _mm256_mul_ps(_mm256_mul_ps(g, yv), _mm256_sub_ps(one, yv))
                                           : _mm256_mul_ps(g, _mm256_sub_ps(one, _mm256_mul_ps(yv, yv)));
        }
        v = _mm256_mul_ps(va, v);
        if (beta != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(vb, ld8(dx + i, k, full)));
        st8(dx + i, k, v, full);
    }
}

static void fill(size_t n, float v, float *y, float beta)
{
    const __m256 vv = _mm256_set1_ps(v), vb = _mm256_set1_ps(beta);
    for (size_t i = 0; i < n; i += 8) {
        __m256i k = _mm256_castps_si256(tailmask(n - i));
        const int full = n - i >= 8;
        __m256 o = beta != 0.0f ? _mm256_add_ps(vv, _mm256_mul_ps(vb, ld8(y + i, k, full))) : vv;
        st8(y + i, k, o, full);
    }
}

const hd_eltwise_table hd_f32_eltwise_ukernels__avx2 = { "avx2", relu, axpby, add3, mul3, relu_stream, add3_stream,
                                                         sigmoid, tanh_, clip, act_bwd, fill,
    hd_f32_gelu_ukernel__avx2, hd_f32_gelu_bwd_ukernel__avx2 };
