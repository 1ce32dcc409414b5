/* Depthwise convolution, small-plane micro-kernels, AVX-512 (dwconv-ukernels.h,
 * hd_dw_splane_args / hd_dw_swplane_args).  A chunk's window of 32 source columns is loaded
 * once per result row and filter row (two masked loads: nothing outside the row is read), and
 * each tap's 16 columns are picked from it with one two-source permute whose mask zeroes the
 * columns the tap does not take, so stride, padding, dilation and the zeros of an upsampled
 * dy cost nothing extra.  Four result rows are kept in flight so that the multiply-add
 * chains overlap.  The bodies are inlined with constant tap counts for 3x3 filters; the rest
 * run the same bodies with variable counts. */
#include <immintrin.h>
#include <stdint.h>
#include "kernels/dwconv/dwconv-ukernels.h"

#define INL static inline __attribute__((always_inline))
#define OB 4                      /* result rows in flight */

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

/* The tap table; entries past S are zero (never used). */
INL void load_taps(const hd_dw_splane_geom *g, size_t S, __m512i *idx, __mmask16 *tm)
{
#pragma GCC unroll 8
    for (size_t k = 0; k < HD_DW_SPLANE_MAXS; k++) {
        idx[k] = k < S ? _mm512_loadu_si512((const void *)(g->idx + 16 * k)) : _mm512_setzero_si512();
        tm[k] = k < S ? (__mmask16)g->tmask[k] : 0;
    }
}

/* A chunk's window: its first column and the lanes of its two vectors inside [0, sw). */
typedef struct {
    int64_t start;
    __mmask16 lo, hi;
} window;

INL window window_of(const hd_dw_splane_geom *g, size_t m)
{
    window w;
    w.start = g->w0 + (int64_t)m * g->adv;
    int64_t a = w.start < 0 ? -w.start : 0, b = g->sw - w.start;
    b = b > 32 ? 32 : b;
    uint32_t bits = b <= a ? 0u : (uint32_t)((b - a >= 32 ? 0xffffffffu : ((1u << (b - a)) - 1u)) << a);
    w.lo = (__mmask16)(bits & 0xffffu);
    w.hi = (__mmask16)(bits >> 16);
    return w;
}

/* The window's 32 columns of ROW (zero when ROW is NULL).  The address is formed as an
 * integer: the window may start left of the row, where no lane is read. */
INL void load_window(const float *row, const window *w, __m512 *lo, __m512 *hi)
{
    if (!row) {
        *lo = *hi = _mm512_setzero_ps();
        return;
    }
    const float *p = (const float *)(uintptr_t)((uintptr_t)row + (uintptr_t)(w->start * (int64_t)sizeof(float)));
    *lo = _mm512_maskz_loadu_ps(w->lo, p);
    *hi = _mm512_maskz_loadu_ps(w->hi, p + 16);
}

INL void splane_body(const hd_dw_splane_args *a, size_t S)
{
    const hd_dw_splane_geom *g = a->g;
    __m512i idx[HD_DW_SPLANE_MAXS];
    __mmask16 tm[HD_DW_SPLANE_MAXS];
    load_taps(g, S, idx, tm);
    const __m512 va = _mm512_set1_ps(a->alpha);
    for (size_t m = 0; m < g->nck; m++) {
        window win = window_of(g, m);
        __mmask16 om = m + 1 == g->nck ? (__mmask16)a->lmask : (__mmask16)0xffff;
        /* A block holds rows of one phase of the upsampled source (o, o + vup, ...: the same
         * filter rows meet source rows), so filter rows that meet none in the whole block are
         * skipped.  Rows a block runs past oh read nothing and store nothing; a missing source
         * row adds zero terms, as the zero-bordered rows of the other kernels do. */
        size_t step = g->vup > 1 ? (size_t)g->vup : 1;
        for (size_t blk = 0; blk < step * ((a->oh + OB * step - 1) / (OB * step)); blk++) {
            size_t o0 = blk % step + blk / step * OB * step;   /* phase blk % step, its block blk / step */
            if (o0 >= a->oh)
                continue;
            __m512 acc[OB];
#pragma GCC unroll 4
            for (size_t i = 0; i < OB; i++)
                acc[i] = _mm512_setzero_ps();
            for (size_t r = 0; r < g->R; r++) {
                const float *rows[OB];
                int any = 0;
#pragma GCC unroll 4
                for (size_t i = 0; i < OB; i++) {
                    rows[i] = o0 + i * step < a->oh ? src_row(g, (int64_t)(o0 + i * step), (int64_t)r) : NULL;
                    any |= rows[i] != NULL;
                }
                if (!any)
                    continue;
                __m512 lo[OB], hi[OB];
#pragma GCC unroll 4
                for (size_t i = 0; i < OB; i++)
                    load_window(rows[i], &win, &lo[i], &hi[i]);
                const float *w = a->w + r * S;
#pragma GCC unroll 8
                for (size_t s = 0; s < S; s++) {
                    __m512 vw = _mm512_set1_ps(w[s]);
#pragma GCC unroll 4
                    for (size_t i = 0; i < OB; i++)
                        acc[i] = _mm512_fmadd_ps(vw, _mm512_maskz_permutex2var_ps(tm[s], lo[i], idx[s], hi[i]), acc[i]);
                }
            }
#pragma GCC unroll 4
            for (size_t i = 0; i < OB; i++) {
                if (o0 + i * step >= a->oh)
                    break;
                float *out = a->out + (int64_t)(o0 + i * step) * a->ors + 16 * (int64_t)m;
                __m512 r = _mm512_mul_ps(va, acc[i]);
                if (a->beta != 0.0f)
                    r = _mm512_fmadd_ps(_mm512_set1_ps(a->beta), _mm512_maskz_loadu_ps(om, out), r);
                _mm512_mask_storeu_ps(out, om, r);
            }
        }
    }
}

void hd_f32_dwconv_ukernel_splane__avx512(const hd_dw_splane_args *a)
{
    if (a->g->S == 3)
        splane_body(a, 3);
    else
        splane_body(a, a->g->S);
}

INL void swplane_body(const hd_dw_swplane_args *a, size_t R, size_t S)
{
    const hd_dw_splane_geom *g = a->g;
    __m512i idx[HD_DW_SPLANE_MAXS];
    __mmask16 tm[HD_DW_SPLANE_MAXS];
    load_taps(g, S, idx, tm);
    __m512 acc[HD_DW_SPLANE_MAXRS];
#pragma GCC unroll 9
    for (size_t k = 0; k < R * S; k++)
        acc[k] = _mm512_loadu_ps(a->acc + 16 * k);
    for (size_t o = 0; o < a->oh; o++) {
        const float *dyr = a->dy + (int64_t)o * a->drs;
        for (size_t m = 0; m < g->nck; m++) {
            window win = window_of(g, m);
            /* lanes past the last result: no term (the window may hold any finite or
             * non-finite value there) */
            __mmask16 dm = m + 1 == g->nck ? (__mmask16)a->lmask : (__mmask16)0xffff;
            __m512 d = _mm512_maskz_loadu_ps(dm, dyr + 16 * m);
#pragma GCC unroll 3
            for (size_t r = 0; r < R; r++) {
                const float *row = src_row(g, (int64_t)o, (int64_t)r);
                if (!row)
                    continue;
                __m512 lo, hi;
                load_window(row, &win, &lo, &hi);
#pragma GCC unroll 8
                for (size_t s = 0; s < S; s++)
                    acc[r * S + s] = _mm512_fmadd_ps(
                        d, _mm512_maskz_permutex2var_ps(tm[s] & dm, lo, idx[s], hi), acc[r * S + s]);
            }
        }
    }
#pragma GCC unroll 9
    for (size_t k = 0; k < R * S; k++)
        _mm512_storeu_ps(a->acc + 16 * k, acc[k]);
}

void hd_f32_dwconv_ukernel_swplane__avx512(const hd_dw_swplane_args *a)
{
    if (a->g->R == 3 && a->g->S == 3)
        swplane_body(a, 3, 3);
    else
        swplane_body(a, a->g->R, a->g->S);
}
