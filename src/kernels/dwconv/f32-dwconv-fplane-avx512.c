/* Depthwise convolution, flat-plane micro-kernels, AVX-512 (dwconv-ukernels.h,
 * hd_dw_fplane_args / hd_dw_fwplane_args): a plane of at most 256 values as at most 16
 * vectors, four at a time, each tap one masked load at a constant offset (the lanes it does
 * not take are neither read nor summed), four independent sums per tap.  9 taps inlined with
 * constants. */
#include <immintrin.h>
#include <stdint.h>
#include "kernels/dwconv/dwconv-ukernels.h"

#define INL static inline __attribute__((always_inline))

/* The address p + off as an integer: the first lanes may lie before the plane, where no
 * lane is read. */
INL const float *at(const float *p, int64_t off)
{
    return (const float *)(uintptr_t)((uintptr_t)p + (uintptr_t)(off * (int64_t)sizeof(float)));
}

INL void fplane_body(const hd_dw_fplane_args *a, size_t T)
{
    size_t nv = (a->n + 15) / 16;
    const __m512 va = _mm512_set1_ps(a->alpha);
    for (size_t v0 = 0; v0 < nv; v0 += 4) {       /* four vectors in flight */
        __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
#pragma GCC unroll 9
        for (size_t t = 0; t < T; t++) {
            __m512 vw = _mm512_set1_ps(a->w[t]);
#pragma GCC unroll 4
            for (size_t i = 0; i < 4; i++) {
                size_t v = v0 + i;
                if (v < nv)
                    acc[i] = _mm512_fmadd_ps(vw,
                                             _mm512_maskz_loadu_ps((__mmask16)a->m[HD_DW_FPLANE_VECS * t + v],
                                                                   at(a->src, (int64_t)(16 * v) + a->d[t])),
                                             acc[i]);
            }
        }
#pragma GCC unroll 4
        for (size_t i = 0; i < 4; i++) {
            size_t v = v0 + i;
            if (v >= nv)
                break;
            size_t left = a->n - 16 * v;
            __mmask16 k = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
            __m512 r = _mm512_mul_ps(va, acc[i]);
            if (a->beta != 0.0f)
                r = _mm512_fmadd_ps(_mm512_set1_ps(a->beta), _mm512_maskz_loadu_ps(k, a->out + 16 * v), r);
            _mm512_mask_storeu_ps(a->out + 16 * v, k, r);
        }
    }
}

void hd_f32_dwconv_ukernel_fplane__avx512(const hd_dw_fplane_args *a)
{
    if (a->T == 9)
        fplane_body(a, 9);
    else
        fplane_body(a, a->T);
}

INL void fwplane_body(const hd_dw_fwplane_args *a, size_t T)
{
    size_t nv = (a->n + 15) / 16;
    for (size_t v0 = 0; v0 < nv; v0 += 4) {
        __m512 dy[4];
#pragma GCC unroll 4
        for (size_t i = 0; i < 4; i++) {
            size_t v = v0 + i, left = v < nv ? a->n - 16 * v : 0;
            __mmask16 k = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
            dy[i] = _mm512_maskz_loadu_ps(k, a->dy + 16 * v);
        }
#pragma GCC unroll 9
        for (size_t t = 0; t < T; t++) {
            __m512 s = _mm512_loadu_ps(a->acc + 16 * t);
#pragma GCC unroll 4
            for (size_t i = 0; i < 4; i++) {
                size_t v = v0 + i;
                if (v < nv)
                    s = _mm512_fmadd_ps(dy[i],
                                        _mm512_maskz_loadu_ps((__mmask16)a->m[HD_DW_FPLANE_VECS * t + v],
                                                              at(a->src, (int64_t)(16 * v) + a->d[t])),
                                        s);
            }
            _mm512_storeu_ps(a->acc + 16 * t, s);
        }
    }
}

void hd_f32_dwconv_ukernel_fwplane__avx512(const hd_dw_fwplane_args *a)
{
    if (a->T == 9)
        fwplane_body(a, 9);
    else
        fwplane_body(a, a->T);
}
