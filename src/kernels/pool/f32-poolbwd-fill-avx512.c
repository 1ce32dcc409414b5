/* Pooling backward where each dx value takes one output's value, AVX-512 (see
 * pool-ukernels.h).  broadcast has three vector shapes: one value per position repeated twice
 * (2x2 average pooling from NCHW: a lane permute), one value per position repeated at least
 * 16 times (global pooling from NCHW: each 16-lane store holds at most two runs), and
 * channel vectors (NHWC: each output's channels stored rep times); other shapes take the
 * scalar kernel.  Streamed stores only for whole 64-byte aligned vectors. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

static inline __mmask16 low_bits(size_t n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

static inline void put(float *dx, __mmask16 m, __m512 v, int stream)
{
    if (stream && m == 0xffff && ((uintptr_t)dx & 63) == 0)
        _mm512_stream_ps(dx, v);
    else
        _mm512_mask_storeu_ps(dx, m, v);
}

void hd_f32_pool_ukernel_share__avx512(float *v, const float *g, size_t n, float div)
{
    const __m512 d = _mm512_set1_ps(div), z = _mm512_setzero_ps();
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 m = low_bits(n - i);
        _mm512_mask_storeu_ps(v + i, m, _mm512_add_ps(_mm512_div_ps(_mm512_maskz_loadu_ps(m, g + i), d), z));
    }
}

void hd_f32_pool_ukernel_broadcast__avx512(float *dx, const float *v, size_t n, size_t rep, size_t c, int stream)
{
    if (c == 1 && rep == 2) {
        const __m512i lo = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
        const __m512i hi = _mm512_setr_epi32(8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15);
        for (size_t j = 0; j < n; j += 16) {
            size_t m = n - j < 16 ? n - j : 16;
            __m512 x = _mm512_maskz_loadu_ps(low_bits(m), v + j);
            put(dx + 2 * j, low_bits(2 * m), _mm512_permutexvar_ps(lo, x), stream);
            if (m > 8)
                put(dx + 2 * j + 16, low_bits(2 * m - 16), _mm512_permutexvar_ps(hi, x), stream);
        }
        return;
    }
    if (c == 1 && rep >= 16) {
        /* position p belongs to run p / rep: j is the run at the start of the next store and
         * b how many of its positions are left */
        size_t total = n * rep, p = 0, j = 0, b = rep;
        size_t head = (size_t)((64 - ((uintptr_t)dx & 63)) & 63) / sizeof(float);
        while (p < total) {
            size_t len = p == 0 && head != 0 ? head : 16;
            if (len > total - p)
                len = total - p;
            __m512 x = _mm512_set1_ps(v[j]);
            if (b < len)
                x = _mm512_mask_blend_ps((__mmask16)~low_bits(b), x, _mm512_set1_ps(v[j + 1]));
            put(dx + p, low_bits(len), x, stream);
            p += len;
            while (b <= len && j < n) {       /* runs are at least 16 long: at most one step */
                len -= b;
                b = rep;
                j++;
            }
            b -= len;
        }
        return;
    }
    if (c >= 16) {
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < c; i += 16) {
                __mmask16 m = low_bits(c - i);
                __m512 x = _mm512_maskz_loadu_ps(m, v + j * c + i);
                for (size_t q = 0; q < rep; q++)
                    put(dx + (j * rep + q) * c + i, m, x, stream);
            }
        return;
    }
    hd_f32_pool_ukernel_broadcast__scalar(dx, v, n, rep, c, stream);
}
