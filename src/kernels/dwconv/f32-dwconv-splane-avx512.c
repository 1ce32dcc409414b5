/* Depthwise convolution, small-plane micro-kernels, AVX-512 (dwconv-ukernels.h,
 * hd_dw_splane_args / hd_dw_swplane_args).  A source row of at most 32 floats is loaded once
 * per result row and filter row (two masked loads: nothing past the row is read), and each
 * tap's 16 columns are picked from it with one two-source permute whose mask zeroes the
 * columns outside the row, so stride, padding, dilation and the zeros of an upsampled dy cost
 * nothing extra.  The body is inlined with constant tap counts and vector counts for the 3-tap
 * cases; the rest run the same body with variable counts. */
#include <immintrin.h>
#include <stdint.h>
#include "kernels/dwconv/dwconv-ukernels.h"

#define INL static inline __attribute__((always_inline))

INL __mmask16 cols_mask(size_t n) { return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u); }

/* The source row of result row o and filter row r, or NULL (geometry in hd_dw_splane_geom). */
INL const float *src_row(const hd_dw_splane_geom *g, int64_t o, int64_t r)
{
    int64_t b = o * g->vs - g->vpad + r * g->vd;
    if (b < 0)
        return NULL;
    if (g->vup > 1) {
        if (b % g->vup)
            return NULL;
        b /= g->vup;
    }
    return b < g->vsrc ? g->src + b * g->srs : NULL;
}

/* The tap table; entries past 2*S are zero (never used). */
INL void load_taps(const hd_dw_splane_geom *g, size_t S, __m512i *idx, __mmask16 *tm)
{
#pragma GCC unroll 16
    for (size_t k = 0; k < 2 * HD_DW_SPLANE_MAXS; k++) {
        idx[k] = k < 2 * S ? _mm512_loadu_si512((const void *)(g->idx + 16 * k)) : _mm512_setzero_si512();
        tm[k] = k < 2 * S ? (__mmask16)g->tmask[k] : 0;
    }
}

#define OB 4                      /* result rows in flight: four independent sums per tap */

/* The source row of result row o (o < oh) and filter row r as two vectors (zero when none). */
INL void load_src(const hd_dw_splane_geom *g, size_t o, size_t oh, size_t r, __mmask16 lm, __mmask16 hm, int two,
                  __m512 *lo, __m512 *hi)
{
    const float *row = o < oh ? src_row(g, (int64_t)o, (int64_t)r) : NULL;
    *lo = row ? _mm512_maskz_loadu_ps(lm, row) : _mm512_setzero_ps();
    *hi = row && two ? _mm512_maskz_loadu_ps(hm, row + 16) : _mm512_setzero_ps();
}

INL void splane_body(const hd_dw_splane_args *a, size_t S, size_t nv, int two)
{
    const hd_dw_splane_geom *g = a->g;
    __m512i idx[2 * HD_DW_SPLANE_MAXS];
    __mmask16 tm[2 * HD_DW_SPLANE_MAXS];
    load_taps(g, S, idx, tm);
    const __mmask16 lm = cols_mask(g->sw), hm = two && g->sw > 16 ? cols_mask(g->sw - 16) : 0;
    const __m512 va = _mm512_set1_ps(a->alpha);
    /* Rows a block runs past oh read nothing and store nothing.  A missing source row adds
     * zero terms, as the zero-bordered rows of the other kernels do. */
    for (size_t o0 = 0; o0 < a->oh; o0 += OB) {
        __m512 acc[OB][2];
#pragma GCC unroll 4
        for (size_t i = 0; i < OB; i++)
            acc[i][0] = acc[i][1] = _mm512_setzero_ps();
        for (size_t r = 0; r < g->R; r++) {
            __m512 lo[OB], hi[OB];
#pragma GCC unroll 4
            for (size_t i = 0; i < OB; i++)
                load_src(g, o0 + i, a->oh, r, lm, hm, two, &lo[i], &hi[i]);
            const float *w = a->w + r * S;
#pragma GCC unroll 8
            for (size_t s = 0; s < S; s++) {
                __m512 vw = _mm512_set1_ps(w[s]);
#pragma GCC unroll 4
                for (size_t i = 0; i < OB; i++) {
                    acc[i][0] = _mm512_fmadd_ps(vw, _mm512_maskz_permutex2var_ps(tm[2 * s], lo[i], idx[2 * s], hi[i]),
                                                acc[i][0]);
                    if (nv > 1)
                        acc[i][1] = _mm512_fmadd_ps(
                            vw, _mm512_maskz_permutex2var_ps(tm[2 * s + 1], lo[i], idx[2 * s + 1], hi[i]), acc[i][1]);
                }
            }
        }
#pragma GCC unroll 4
        for (size_t i = 0; i < OB; i++) {
            if (o0 + i >= a->oh)
                break;
            float *out = a->out + (int64_t)(o0 + i) * a->ors;
            for (size_t v = 0; v < nv; v++) {
                __m512 r = _mm512_mul_ps(va, acc[i][v]);
                __mmask16 k = (__mmask16)a->omask[v];
                if (a->beta != 0.0f)
                    r = _mm512_fmadd_ps(_mm512_set1_ps(a->beta), _mm512_maskz_loadu_ps(k, out + 16 * v), r);
                _mm512_mask_storeu_ps(out + 16 * v, k, r);
            }
        }
    }
}

void hd_f32_dwconv_ukernel_splane__avx512(const hd_dw_splane_args *a)
{
    const hd_dw_splane_geom *g = a->g;
    int two = g->sw > 16;
    if (g->S == 3 && g->nv == 1 && !two)
        splane_body(a, 3, 1, 0);
    else if (g->S == 3 && g->nv == 1)
        splane_body(a, 3, 1, 1);
    else if (g->S == 3)
        splane_body(a, 3, 2, 1);
    else
        splane_body(a, g->S, g->nv, 1);
}

INL void swplane_body(const hd_dw_swplane_args *a, size_t R, size_t S, size_t nv, int two)
{
    const hd_dw_splane_geom *g = a->g;
    __m512i idx[2 * HD_DW_SPLANE_MAXS];
    __mmask16 tm[2 * HD_DW_SPLANE_MAXS];
    load_taps(g, S, idx, tm);
    __m512 acc[HD_DW_SPLANE_MAXRS];
#pragma GCC unroll 9
    for (size_t k = 0; k < R * S; k++)
        acc[k] = _mm512_loadu_ps(a->acc + 16 * k);
    const __mmask16 lm = cols_mask(g->sw), hm = two && g->sw > 16 ? cols_mask(g->sw - 16) : 0;
    for (size_t o = 0; o < a->oh; o++) {
        const float *dyr = a->dy + (int64_t)o * a->drs;
        __m512 d0 = _mm512_maskz_loadu_ps((__mmask16)a->dmask[0], dyr);
        __m512 d1 = nv > 1 ? _mm512_maskz_loadu_ps((__mmask16)a->dmask[1], dyr + 16) : _mm512_setzero_ps();
#pragma GCC unroll 3
        for (size_t r = 0; r < R; r++) {
            const float *row = src_row(g, (int64_t)o, (int64_t)r);
            if (!row)
                continue;
            __m512 lo = _mm512_maskz_loadu_ps(lm, row);
            __m512 hi = two ? _mm512_maskz_loadu_ps(hm, row + 16) : _mm512_setzero_ps();
#pragma GCC unroll 8
            for (size_t s = 0; s < S; s++) {
                __m512 *ac = &acc[r * S + s];
                *ac = _mm512_fmadd_ps(d0, _mm512_maskz_permutex2var_ps(tm[2 * s], lo, idx[2 * s], hi), *ac);
                if (nv > 1)
                    *ac = _mm512_fmadd_ps(d1, _mm512_maskz_permutex2var_ps(tm[2 * s + 1], lo, idx[2 * s + 1], hi),
                                          *ac);
            }
        }
    }
#pragma GCC unroll 9
    for (size_t k = 0; k < R * S; k++)
        _mm512_storeu_ps(a->acc + 16 * k, acc[k]);
}

void hd_f32_dwconv_ukernel_swplane__avx512(const hd_dw_swplane_args *a)
{
    const hd_dw_splane_geom *g = a->g;
    int two = g->sw > 16;
    if (g->R == 3 && g->S == 3 && g->nv == 1 && !two)
        swplane_body(a, 3, 3, 1, 0);
    else if (g->R == 3 && g->S == 3 && g->nv == 1)
        swplane_body(a, 3, 3, 1, 1);
    else if (g->R == 3 && g->S == 3)
        swplane_body(a, 3, 3, 2, 1);
    else
        swplane_body(a, g->R, g->S, g->nv, 1);
}
