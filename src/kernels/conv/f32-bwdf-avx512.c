/* kernels/conv/f32-bwdf-avx512.c -- the strided run copies of the micro-kernel backward
 * filter (bwdf-ukernels.h) with masked AVX-512 loads and stores: one instruction pair per run of
 * up to 16 floats; its register transposes (panels, and the store of the sums into dW). */
#include <immintrin.h>

#include "kernels/conv/bwdf-ukernels.h"
#include "kernels/transpose/f32-transpose-16x16-avx512.h"

void hd_f32_bwdf_ukernel_runs__avx512(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                                      int64_t count)
{
    if (len <= 16) {
        const __mmask16 m = (__mmask16)((1u << len) - 1u);
        for (int64_t o = 0; o < count; o++, dst += dstride, src += sstride)
            _mm512_mask_storeu_ps(dst, m, _mm512_maskz_loadu_ps(m, src));
        return;
    }
    const __mmask16 m = (__mmask16)((1u << (len & 15)) - 1u);
    for (int64_t o = 0; o < count; o++, dst += dstride, src += sstride) {
        int64_t i = 0;
        for (; i + 16 <= len; i += 16)
            _mm512_storeu_ps(dst + i, _mm512_loadu_ps(src + i));
        if (i < len)
            _mm512_mask_storeu_ps(dst + i, m, _mm512_maskz_loadu_ps(m, src + i));
    }
}

void hd_f32_bwdf_ukernel_transpose__avx512(int64_t rows, int64_t cols, const float *in, int64_t ldi, float *out,
                                           int64_t ldo)
{
    int64_t r16 = rows & ~(int64_t)15, c16 = cols & ~(int64_t)15;
    for (int64_t i = 0; i < r16; i += 16) {
        for (int64_t j = 0; j < c16; j += 16) {
            __m512 v[16];
            for (int k = 0; k < 16; k++) {
                const float *src = in + (i + k) * ldi + j;
                _mm_prefetch((const char *)(src + 128), _MM_HINT_T0);   /* each row is a stream */
                v[k] = _mm512_loadu_ps(src);
            }
            hd_f32_transpose_regs_16x16__avx512(v);
            for (int k = 0; k < 16; k++)
                _mm512_storeu_ps(out + (j + k) * ldo + i, v[k]);
        }
        for (int64_t j = c16; j < cols; j++)
            for (int k = 0; k < 16; k++)
                out[j * ldo + i + k] = in[(i + k) * ldi + j];
    }
    if (r16 == rows)
        return;
    /* the last rows (all of them for C = 3 or an A panel of 14): zero rows fill the block,
       masked stores keep the output rows to their width */
    int64_t rr = rows - r16;
    const __mmask16 m = (__mmask16)((1u << rr) - 1u);
    for (int64_t j = 0; j < c16; j += 16) {
        __m512 v[16];
        for (int k = 0; k < 16; k++) {
            if (k < rr) {
                const float *src = in + (r16 + k) * ldi + j;
                _mm_prefetch((const char *)(src + 128), _MM_HINT_T0);   /* each row a stream, as above */
                v[k] = _mm512_loadu_ps(src);
            } else {
                v[k] = _mm512_setzero_ps();
            }
        }
        hd_f32_transpose_regs_16x16__avx512(v);
        for (int k = 0; k < 16; k++)
            _mm512_mask_storeu_ps(out + (j + k) * ldo + r16, m, v[k]);
    }
    for (int64_t j = c16; j < cols; j++)
        for (int64_t i = r16; i < rows; i++)
            out[j * ldo + i] = in[i * ldi + j];
}

/* Row k of a 16-column block of the stride-2 transpose: the even elements of in[0 .. 2 * 16 - 2],
 * the loads masked to the nc columns that exist. */
static inline __m512 even16(const float *in, __mmask16 m0, __mmask16 m1, __m512i idx)
{
    __m512 lo = _mm512_maskz_loadu_ps(m0, in), hi = _mm512_maskz_loadu_ps(m1, in + 16);
    return _mm512_permutex2var_ps(lo, idx, hi);
}

void hd_f32_bwdf_ukernel_transpose_s2__avx512(int64_t rows, int64_t cols, const float *in, int64_t ldi, float *out,
                                              int64_t ldo)
{
    const __m512i idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    for (int64_t j = 0; j < cols; j += 16) {
        int64_t nc = cols - j < 16 ? cols - j : 16, span = 2 * nc - 1;     /* elements read per row */
        const __mmask16 m0 = (__mmask16)(span >= 16 ? 0xffffu : (1u << span) - 1u);
        const __mmask16 m1 = (__mmask16)(span <= 16 ? 0u : (1u << (span - 16)) - 1u);
        for (int64_t i = 0; i < rows; i += 16) {
            int64_t nr = rows - i < 16 ? rows - i : 16;
            const __mmask16 mr = (__mmask16)(nr == 16 ? 0xffffu : (1u << nr) - 1u);
            __m512 v[16];
            for (int k = 0; k < 16; k++) {
                if (k < nr) {
                    const float *src = in + (i + k) * ldi + 2 * j;
                    _mm_prefetch((const char *)(src + 128), _MM_HINT_T0);   /* each row is a stream */
                    v[k] = even16(src, m0, m1, idx);
                } else {
                    v[k] = _mm512_setzero_ps();
                }
            }
            hd_f32_transpose_regs_16x16__avx512(v);
            for (int k = 0; k < nc; k++)
                _mm512_mask_storeu_ps(out + (j + k) * ldo + i, mr, v[k]);
        }
    }
}

/* The epilogue rounds alpha * sum and beta * dw separately, as the scalar store does: no
 * contraction into a fused multiply-add (GCC would fuse the intrinsics otherwise). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
void hd_f32_bwdf_ukernel_store__avx512(const float *const *rows, int64_t ne, int64_t nk, int64_t plane, int64_t nchunk,
                                       float *dw, int64_t ldw, float alpha, float beta)
{
    const __mmask16 mk = (__mmask16)((1u << nk) - 1u), me = (__mmask16)((1u << ne) - 1u);
    __m512 v[16];
    for (int e = 0; e < 16; e++) {
        if (e >= ne) {
            v[e] = _mm512_setzero_ps();
            continue;
        }
        v[e] = _mm512_maskz_loadu_ps(mk, rows[e]);
        for (int64_t i = 1; i < nchunk; i++)             /* the chunks in order */
            v[e] = _mm512_add_ps(v[e], _mm512_maskz_loadu_ps(mk, rows[e] + i * plane));
    }
    hd_f32_transpose_regs_16x16__avx512(v);
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (int k = 0; k < nk; k++) {
        float *o = dw + k * ldw;
        __m512 r = _mm512_mul_ps(va, v[k]);
        if (beta != 0.0f)
            r = _mm512_add_ps(r, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(me, o)));
        _mm512_mask_storeu_ps(o, me, r);
    }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
