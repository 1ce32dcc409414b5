/* kernels/eltwise/f32-eltwise-avx512.c -- eltwise-ukernels.h with 16-wide AVX-512 vectors; tails scalar. */
#include "kernels/eltwise/eltwise-ukernels.h"
#include "kernels/eltwise/f32-exp-avx512.h"

#include <immintrin.h>
#include <stdint.h>

static void relu(size_t n, const float *x, float *y, float alpha, float beta)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta), z = _mm512_setzero_ps();
    size_t i = 0;
    if (beta != 0.0f) {
        for (; i + 16 <= n; i += 16) {
            /* max(x, 0) returns the second operand (0) when x is NaN */
            __m512 v = _mm512_max_ps(_mm512_loadu_ps(x + i), z);
            _mm512_storeu_ps(y + i, _mm512_add_ps(_mm512_mul_ps(va, v), _mm512_mul_ps(vb, _mm512_loadu_ps(y + i))));
        }
    } else {
        for (; i + 16 <= n; i += 16)
            _mm512_storeu_ps(y + i, _mm512_mul_ps(va, _mm512_max_ps(_mm512_loadu_ps(x + i), z)));
    }
    hd_f32_eltwise_ukernels__scalar.relu(n - i, x + i, y + i, alpha, beta);
}

static void axpby(size_t n, const float *x, float *y, float alpha, float beta)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    size_t i = 0;
    if (beta != 0.0f) {
        for (; i + 16 <= n; i += 16)
            _mm512_storeu_ps(y + i, _mm512_add_ps(_mm512_mul_ps(va, _mm512_loadu_ps(x + i)),
                                                  _mm512_mul_ps(vb, _mm512_loadu_ps(y + i))));
    } else {
        for (; i + 16 <= n; i += 16)
            _mm512_storeu_ps(y + i, _mm512_mul_ps(va, _mm512_loadu_ps(x + i)));
    }
    hd_f32_eltwise_ukernels__scalar.axpby(n - i, x + i, y + i, alpha, beta);
}

static void add3(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2, float beta)
{
    const __m512 v1 = _mm512_set1_ps(alpha1), v2 = _mm512_set1_ps(alpha2), vb = _mm512_set1_ps(beta);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_add_ps(_mm512_mul_ps(v1, _mm512_loadu_ps(a + i)), _mm512_mul_ps(v2, _mm512_loadu_ps(b + i)));
        if (beta != 0.0f)
            v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_loadu_ps(c + i)));
        _mm512_storeu_ps(c + i, v);
    }
    hd_f32_eltwise_ukernels__scalar.add3(n - i, a + i, b + i, c + i, alpha1, alpha2, beta);
}

static void mul3(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2, float beta)
{
    const __m512 v1 = _mm512_set1_ps(alpha1), v2 = _mm512_set1_ps(alpha2), vb = _mm512_set1_ps(beta);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_mul_ps(_mm512_mul_ps(v1, _mm512_loadu_ps(a + i)), _mm512_mul_ps(v2, _mm512_loadu_ps(b + i)));
        if (beta != 0.0f)
            v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_loadu_ps(c + i)));
        _mm512_storeu_ps(c + i, v);
    }
    hd_f32_eltwise_ukernels__scalar.mul3(n - i, a + i, b + i, c + i, alpha1, alpha2, beta);
}

/* Elements before Y reaches a 64-byte boundary (streaming stores need it), capped at N;
 * N when Y is not even float-aligned (then everything takes the plain path). */
static size_t head_to_aligned(const float *y, size_t n)
{
    uintptr_t a = (uintptr_t)y;
    if (a % sizeof(float))
        return n;
    size_t h = ((64 - a % 64) % 64) / sizeof(float);
    return h < n ? h : n;
}

/* relu / add3 with streaming stores for beta == 0: the unaligned head and the tail go
 * through the plain kernels, which compute exactly the same values. */
static void relu_stream(size_t n, const float *x, float *y, float alpha, float beta)
{
    size_t h = head_to_aligned(y, n), i;
    if (beta != 0.0f || n - h < 16) {
        relu(n, x, y, alpha, beta);
        return;
    }
    relu(h, x, y, alpha, beta);
    const __m512 va = _mm512_set1_ps(alpha), z = _mm512_setzero_ps();
    for (i = h; i + 16 <= n; i += 16)
        _mm512_stream_ps(y + i, _mm512_mul_ps(va, _mm512_max_ps(_mm512_loadu_ps(x + i), z)));
    _mm_sfence();
    relu(n - i, x + i, y + i, alpha, beta);
}

static void add3_stream(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2, float beta)
{
    size_t h = head_to_aligned(c, n), i;
    if (beta != 0.0f || n - h < 16) {
        add3(n, a, b, c, alpha1, alpha2, beta);
        return;
    }
    add3(h, a, b, c, alpha1, alpha2, beta);
    const __m512 v1 = _mm512_set1_ps(alpha1), v2 = _mm512_set1_ps(alpha2);
    for (i = h; i + 16 <= n; i += 16)
        _mm512_stream_ps(c + i, _mm512_add_ps(_mm512_mul_ps(v1, _mm512_loadu_ps(a + i)),
                                           _mm512_mul_ps(v2, _mm512_loadu_ps(b + i))));
    _mm_sfence();
    add3(n - i, a + i, b + i, c + i, alpha1, alpha2, beta);
}

/* sigmoid from e = exp(-|x|): 1 / (1 + e) for x >= 0, e / (1 + e) below (no overflow, and
 * small results keep their relative accuracy); tanh(|x|) = (1 - e2) / (1 + e2) with
 * e2 = exp(-2|x|), sign restored (absolute error about 1e-7 near 0). */
static inline __m512 act16(__m512 x, int tanh_mode)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 ax = _mm512_abs_ps(x);
    if (tanh_mode) {
        __m512 e = hd_f32_exp_neg_avx512(_mm512_mul_ps(_mm512_set1_ps(-2.0f), ax));
        __m512 v = _mm512_div_ps(_mm512_sub_ps(one, e), _mm512_add_ps(one, e));
        /* copy x's sign bit onto v (NaN x: v is NaN already) */
        const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
        return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(v),
                                                   _mm512_and_si512(_mm512_castps_si512(x), sign)));
    }
    __m512 e = hd_f32_exp_neg_avx512(_mm512_sub_ps(_mm512_setzero_ps(), ax));
    __m512 d = _mm512_add_ps(one, e);
    __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
    return _mm512_div_ps(_mm512_mask_mov_ps(one, neg, e), d);
}

static inline void act(size_t n, const float *x, float *y, float alpha, float beta, int tanh_mode)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1u);
        __m512 xv = _mm512_maskz_loadu_ps(k, x + i);
        /* a NaN x gives x itself (selected, so its bits do not depend on operation order) */
        __m512 a = _mm512_mask_mov_ps(act16(xv, tanh_mode), _mm512_cmp_ps_mask(xv, xv, _CMP_UNORD_Q), xv);
        __m512 v = _mm512_mul_ps(va, a);
        if (beta != 0.0f)
            v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(k, y + i)));
        _mm512_mask_storeu_ps(y + i, k, v);
    }
}

static void sigmoid(size_t n, const float *x, float *y, float alpha, float beta) { act(n, x, y, alpha, beta, 0); }
static void tanh_(size_t n, const float *x, float *y, float alpha, float beta) { act(n, x, y, alpha, beta, 1); }

/* clip, activation backward and fill: 16 lanes, the scalar operations in the same order */
static inline __mmask16 tail16(size_t left) { return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u); }

static void clip(size_t n, const float *x, float *y, float alpha, float beta, float coef)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta), vc = _mm512_set1_ps(coef);
    const __m512 z = _mm512_setzero_ps();
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail16(n - i);
        __m512 m = _mm512_max_ps(_mm512_maskz_loadu_ps(k, x + i), z);    /* NaN: the second operand, 0 */
        __m512 v = _mm512_mul_ps(va, _mm512_min_ps(m, vc));
        if (beta != 0.0f)
            v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(k, y + i)));
        _mm512_mask_storeu_ps(y + i, k, v);
    }
}

static void act_bwd(size_t n, int mode, const float *y, const float *dy, const float *x, float *dx, float alpha,
                    float beta, float coef)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta), vc = _mm512_set1_ps(coef);
    const __m512 z = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail16(n - i);
        __m512 g = _mm512_maskz_loadu_ps(k, dy + i), v;
        if (mode == HD_ELT_BWD_RELU || mode == HD_ELT_BWD_CLIP) {
            __m512 xv = _mm512_maskz_loadu_ps(k, x + i);
            __mmask16 keep = _mm512_cmp_ps_mask(xv, z, _CMP_GT_OQ);
            if (mode == HD_ELT_BWD_CLIP)
                keep &= _mm512_cmp_ps_mask(xv, vc, _CMP_LT_OQ);
            v = _mm512_maskz_mov_ps(keep, g);
        } else {
            __m512 yv = _mm512_maskz_loadu_ps(k, y + i);
            v = mode == HD_ELT_BWD_SIGMOID ? _mm512_mul_ps(_mm512_mul_ps(g, yv), _mm512_sub_ps(one, yv))
                                           : _mm512_mul_ps(g, _mm512_sub_ps(one, _mm512_mul_ps(yv, yv)));
        }
        v = _mm512_mul_ps(va, v);
        if (beta != 0.0f)
            v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(k, dx + i)));
        _mm512_mask_storeu_ps(dx + i, k, v);
    }
}

static void fill(size_t n, float v, float *y, float beta)
{
    const __m512 vv = _mm512_set1_ps(v), vb = _mm512_set1_ps(beta);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tail16(n - i);
        __m512 o = beta != 0.0f ? _mm512_add_ps(vv, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(k, y + i))) : vv;
        _mm512_mask_storeu_ps(y + i, k, o);
    }
}

const hd_eltwise_table hd_f32_eltwise_ukernels__avx512 = {"avx512", relu, axpby, add3, mul3, relu_stream, add3_stream,
                                                          sigmoid, tanh_, clip, act_bwd, fill,
    hd_f32_gelu_ukernel__avx512, hd_f32_gelu_bwd_ukernel__avx512};
