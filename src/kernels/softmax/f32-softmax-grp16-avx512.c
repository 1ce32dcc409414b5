/* kernels/softmax/f32-softmax-grp16-avx512.c -- CHANNEL softmax of packed short groups (NHWC,
 * n <= 32 channels), 16 groups at a time: the 16 groups are transposed in registers into
 * channel rows of 16 lanes, each lane runs the column kernel's arithmetic, and the rows are
 * transposed back.  Per lane this is the arithmetic of hd_f32_softmax_ukernel_cols__avx512
 * (see softmax-ukernels.h), with no horizontal reduction per group. */
#include "kernels/softmax/softmax-ukernels.h"
#include "kernels/eltwise/f32-exp-avx512.h"
#include "kernels/transpose/f32-transpose-16x16-avx512.h"

#include <immintrin.h>
#include <math.h>

static inline __mmask16 tail16(size_t left) { return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u); }

/* Groups g < cnt (<= 16) of x, n values each, into channel rows col[k * 16 + g] (lanes of
 * missing groups 0); returns the rows' maximum, lane by lane, in the column kernel's order. */
static inline __attribute__((always_inline)) __m512 load_cols(size_t n, size_t cnt, const float *x, float *col)
{
    const __mmask16 k0 = tail16(n), k1 = n > 16 ? tail16(n - 16) : 0;
    __m512 m = _mm512_set1_ps(-INFINITY);
    for (size_t h = 0; h < (n > 16 ? 2u : 1u); h++) {
        __m512 r[16];
        __mmask16 kh = h ? k1 : k0;
#pragma GCC unroll 16
        for (size_t g = 0; g < 16; g++)
            r[g] = _mm512_maskz_loadu_ps(g < cnt ? kh : 0, x + g * n + 16 * h);
        hd_f32_transpose_regs_16x16__avx512(r);
        size_t rows = h ? n - 16 : (n < 16 ? n : 16);
#pragma GCC unroll 16
        for (size_t k = 0; k < 16; k++)
            if (k < rows) {
                m = _mm512_max_ps(m, r[k]);
                _mm512_store_ps(col + (16 * h + k) * 16, r[k]);
            }
    }
    return m;
}

/* The inverse of load_cols: channel rows times F (alpha times 1/s or 1) back into groups
 * g < cnt of y. */
static inline __attribute__((always_inline)) void store_cols(size_t n, size_t cnt, const float *col, __m512 f,
                                                             __m512 va, float *y)
{
    const __mmask16 k0 = tail16(n), k1 = n > 16 ? tail16(n - 16) : 0;
    for (size_t h = 0; h < (n > 16 ? 2u : 1u); h++) {
        __m512 r[16];
        size_t rows = h ? n - 16 : (n < 16 ? n : 16);
#pragma GCC unroll 16
        for (size_t k = 0; k < 16; k++)
            r[k] = k < rows ? _mm512_mul_ps(va, _mm512_mul_ps(_mm512_load_ps(col + (16 * h + k) * 16), f))
                            : _mm512_setzero_ps();
        hd_f32_transpose_regs_16x16__avx512(r);
        __mmask16 kh = h ? k1 : k0;
#pragma GCC unroll 16
        for (size_t g = 0; g < 16; g++)
            if (g < cnt)
                _mm512_mask_storeu_ps(y + g * n + 16 * h, kh, r[g]);
    }
}

/* Groups g < cnt of one block of 16 (cnt a constant 16 in the main loop, so that the masks
 * and bounds fold away). */
static inline __attribute__((always_inline)) void block16(size_t n, size_t cnt, const float *x, float *y,
                                                          float alpha, int log_mode)
{
    float col[32 * 16] __attribute__((aligned(64)));
    const __m512 va = _mm512_set1_ps(alpha);
    __m512 m = load_cols(n, cnt, x, col);
    if (_mm512_cmp_ps_mask(_mm512_sub_ps(m, m), _mm512_setzero_ps(), _CMP_NEQ_UQ)) {
        /* a NaN or infinite maximum: the column kernels send all 16 columns to the scalar rules */
        float out[32 * 16] __attribute__((aligned(64)));
        hd_f32_softmax_ukernel_cols__scalar(n, 16, col, 16, out, 16, alpha, 0.0f, log_mode);
        store_cols(n, cnt, out, _mm512_set1_ps(1.0f), _mm512_set1_ps(1.0f), y);
        return;
    }
    __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
    for (size_t k = 0; k < n; k++) {
        __m512 d = _mm512_sub_ps(_mm512_load_ps(col + k * 16), m);
        __m512 e = hd_f32_exp_neg_avx512(d);
        s0 = _mm512_add_pd(s0, _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
        s1 = _mm512_add_pd(s1, _mm512_cvtps_pd(_mm512_extractf32x8_ps(e, 1)));
        _mm512_store_ps(col + k * 16, log_mode ? d : e);
    }
    if (log_mode) {
        /* alpha * ((x - m) - log s): subtract here, scale by alpha in store_cols */
        double sd[16];
        float lf[16];
        _mm512_storeu_pd(sd, s0);
        _mm512_storeu_pd(sd + 8, s1);
        for (int l = 0; l < 16; l++)
            lf[l] = (float)log(sd[l]);
        __m512 f = _mm512_loadu_ps(lf);
        for (size_t k = 0; k < n; k++)
            _mm512_store_ps(col + k * 16, _mm512_sub_ps(_mm512_load_ps(col + k * 16), f));
        store_cols(n, cnt, col, _mm512_set1_ps(1.0f), va, y);
        return;
    }
    const __m512d one = _mm512_set1_pd(1.0);
    __m512 f = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(_mm512_div_pd(one, s0))),
                                  _mm512_cvtpd_ps(_mm512_div_pd(one, s1)), 1);
    store_cols(n, cnt, col, f, va, y);
}

void hd_f32_softmax_ukernel_grp16__avx512(size_t n, size_t groups, const float *x, float *y, float alpha,
                                          int log_mode)
{
    size_t g0 = 0;
    for (; g0 + 16 <= groups; g0 += 16)
        block16(n, 16, x + g0 * n, y + g0 * n, alpha, log_mode);
    if (g0 < groups)
        block16(n, groups - g0, x + g0 * n, y + g0 * n, alpha, log_mode);
}
