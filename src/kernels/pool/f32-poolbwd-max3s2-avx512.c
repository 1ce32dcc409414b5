/* Max pooling backward 3x3 stride 2, channel-contiguous, fused, AVX-512 (see
 * pool-ukernels.h).  Per 16 channels the outputs of the row are taken left to right: three
 * compare chains (one per window row, so that they overlap), joined in row order, leave the
 * winning tap per lane, and nine lane masks (winner == tap) add the gradient to the window's
 * positions.  Interior outputs step their pointers; the ones with taps outside the input
 * read -inf there.  The shared column on the
 * left of each window is carried in registers from the previous output (top and bottom rows
 * as doubles, since up to four terms reach a corner; the middle row as a float, at most two
 * terms); the centre column is complete after one output (middle row), or is taken from and
 * left in the float carry (top and bottom rows, two terms in all).  Float sums of at most two
 * floats from +0.0 rounded once are the double rule's bits (see maxgatherrow), and every sum
 * starts as a masked add to +0.0, so that a lone -0 gradient gives +0 as the rule does. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"
#include "kernels/pool/f32-poolbwd-max3s2-avx512.h"

#include <math.h>

static inline __mmask16 low_bits(size_t n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

static const float ninf16[16] __attribute__((aligned(64))) = {
    -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
    -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};

/* stream: the caller has seen that every store is a whole aligned vector */
static inline void put(float *p, __mmask16 k, __m512 v, int stream)
{
    if (stream)
        _mm512_stream_ps(p, v);
    else
        _mm512_mask_storeu_ps(p, k, v);
}

static inline __m512 load(const float *p, __mmask16 k, int full)
{
    return full ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(k, p);
}

/* The sums carried in registers from one output to the next: the shared column on the
 * right of the last window (top and bottom rows in doubles, lanes 0-7 and 8-15; middle row in
 * float). */
typedef struct {
    __m512d tl0, tl1, bl0, bl1;
    __m512 ml;
} carry;

/* One output's 16 channels: the taps t0..t8 in row-major order, its gradients at gp; the
 * carries in (cdn: the top row's shared column on the right, cf: its centre) and out (cdo,
 * cfo); the top row's dx positions (left column at dt, centre at dt + dxw) and the middle
 * row's (dm), written where wt / wm (and, for the left column, left) are set. */
static inline __attribute__((always_inline)) void
out1(carry *cr, const float *t0, const float *t1, const float *t2, const float *t3, const float *t4,
     const float *t5, const float *t6, const float *t7, const float *t8, const float *gp, const double *cdn,
     const float *cf, double *cdo, float *cfo, float *dt, float *dm, ptrdiff_t dxw, int wt, int wm, int left,
     int centre, __mmask16 k, int full, int propagate, int stream)
{
    const __m512 zf = _mm512_setzero_ps(), ninf = _mm512_set1_ps(-INFINITY);
    const __m512d zd = _mm512_setzero_pd();
    const __m512i none = _mm512_set1_epi32(-1);
    /* one chain per window row, then the rows joined in order: the first maximum in
     * row-major order either way (a later part replaces only when strictly greater, or as
     * the first NaN under propagation) */
    __m512 m0 = ninf, m1 = ninf, m2 = ninf;
    __m512i b0 = none, b1 = none, b2 = none;
    hd_max3s2_step(&m0, &b0, load(t0, k, full), _mm512_set1_epi32(0), propagate);
    hd_max3s2_step(&m1, &b1, load(t3, k, full), _mm512_set1_epi32(3), propagate);
    hd_max3s2_step(&m2, &b2, load(t6, k, full), _mm512_set1_epi32(6), propagate);
    hd_max3s2_step(&m0, &b0, load(t1, k, full), _mm512_set1_epi32(1), propagate);
    hd_max3s2_step(&m1, &b1, load(t4, k, full), _mm512_set1_epi32(4), propagate);
    hd_max3s2_step(&m2, &b2, load(t7, k, full), _mm512_set1_epi32(7), propagate);
    hd_max3s2_step(&m0, &b0, load(t2, k, full), _mm512_set1_epi32(2), propagate);
    hd_max3s2_step(&m1, &b1, load(t5, k, full), _mm512_set1_epi32(5), propagate);
    hd_max3s2_step(&m2, &b2, load(t8, k, full), _mm512_set1_epi32(8), propagate);
    hd_max3s2_step(&m0, &b0, m1, b1, propagate);
    hd_max3s2_step(&m0, &b0, m2, b2, propagate);
    const __m512i best = b0;
    const __m512 gv = load(gp, k, full);
    const __m512d g0 = hd_max3s2_wide_lo(gv);
    const __m512d g1 = hd_max3s2_wide_hi(gv);
    __mmask16 h[9];
#pragma GCC unroll 9
    for (int q = 0; q < 9; q++)
        h[q] = _mm512_cmpeq_epi32_mask(best, _mm512_set1_epi32(q));
    /* top row: the shared corner on the left is complete, the centre takes the carry's */
    cr->tl0 = _mm512_mask_add_pd(cr->tl0, (__mmask8)h[0], cr->tl0, g0);
    cr->tl1 = _mm512_mask_add_pd(cr->tl1, (__mmask8)(h[0] >> 8), cr->tl1, g1);
    __m512 tc = _mm512_loadu_ps(cf);
    tc = _mm512_mask_add_ps(tc, h[1], tc, gv);
    if (wt && left)
        put(dt, k, hd_max3s2_narrow(cr->tl0, cr->tl1), stream);
    if (wt && centre)
        put(dt + dxw, k, tc, stream);
    __m512d n0 = _mm512_loadu_pd(cdn), n1 = _mm512_loadu_pd(cdn + 8);
    cr->tl0 = _mm512_mask_add_pd(n0, (__mmask8)h[2], n0, g0);
    cr->tl1 = _mm512_mask_add_pd(n1, (__mmask8)(h[2] >> 8), n1, g1);
    /* middle row: complete but for the shared column on the right */
    cr->ml = _mm512_mask_add_ps(cr->ml, h[3], cr->ml, gv);
    if (wm && left)
        put(dm, k, cr->ml, stream);
    if (wm && centre)
        put(dm + dxw, k, _mm512_mask_add_ps(zf, h[4], zf, gv), stream);
    cr->ml = _mm512_mask_add_ps(zf, h[5], zf, gv);
    /* bottom row: into the carries for the next output row */
    cr->bl0 = _mm512_mask_add_pd(cr->bl0, (__mmask8)h[6], cr->bl0, g0);
    cr->bl1 = _mm512_mask_add_pd(cr->bl1, (__mmask8)(h[6] >> 8), cr->bl1, g1);
    _mm512_storeu_pd(cdo, cr->bl0);
    _mm512_storeu_pd(cdo + 8, cr->bl1);
    _mm512_storeu_ps(cfo, _mm512_mask_add_ps(zf, h[7], zf, gv));
    cr->bl0 = _mm512_mask_add_pd(zd, (__mmask8)h[8], zd, g0);
    cr->bl1 = _mm512_mask_add_pd(zd, (__mmask8)(h[8] >> 8), zd, g1);
}

static inline __attribute__((always_inline)) void
row(float *dtop, float *dmid, ptrdiff_t dxw, const float *const *xr, ptrdiff_t xw, size_t w, int pw, const float *g,
    const float *gpf, ptrdiff_t gw, size_t ow, size_t c, const double *cdin, const float *cfin, double *cdout, float *cfout,
    int propagate, int stream, int full, int both)
{
    const size_t cp = HD_POOL_MAX3S2_CP(c);
    const ptrdiff_t W = (ptrdiff_t)w;
    /* both: the caller has seen that both rows are written (the usual case), so that the
     * interior loop carries no tests for them */
    const int wt = both || dtop != NULL, wm = both || dmid != NULL;
    /* the outputs [jlo, jhi) have all nine taps in the input */
    ptrdiff_t jlo = pw, jhi = (W - 3 + pw) / 2 + 1;
    if (W < 3 || !xr[0] || !xr[1] || !xr[2])
        jlo = jhi = 0;
    if (jhi > (ptrdiff_t)ow)
        jhi = (ptrdiff_t)ow;
    if (jlo > jhi)
        jlo = jhi;
    /* stream: the caller has seen that every store is a whole aligned vector */
    const int st = stream;
    for (size_t i = 0; i < c; i += 16) {
        const __mmask16 k = low_bits(c - i);
        /* a row outside the input reads -inf at every column (never chosen) */
        const float *rb[3];
        ptrdiff_t rs[3];
        for (int r = 0; r < 3; r++) {
            rb[r] = xr[r] ? xr[r] + i : ninf16;
            rs[r] = xr[r] ? xw : 0;
        }
        float *dt = wt ? dtop + i : NULL, *dm = wm ? dmid + i : NULL;
        carry cr;
        cr.tl0 = _mm512_loadu_pd(cdin + i);
        cr.tl1 = _mm512_loadu_pd(cdin + i + 8);
        cr.ml = _mm512_setzero_ps();
        cr.bl0 = cr.bl1 = _mm512_setzero_pd();
        for (ptrdiff_t j = 0; j < (ptrdiff_t)ow;) {
            if (j >= jlo && j < jhi) {
                /* the interior: pointers stepped by two columns */
                ptrdiff_t s = 2 * j - pw;
                const float *p0 = xr[0] + i + s * xw, *p1 = xr[1] + i + s * xw, *p2 = xr[2] + i + s * xw;
                const float *q3 = xr[3] ? xr[3] + i + (s + 1) * xw : NULL, *q4 = xr[4] ? xr[4] + i + (s + 1) * xw : NULL;
                const float *gp = g + j * gw + (ptrdiff_t)i, *gq = gpf ? gpf + j * gw + (ptrdiff_t)i : NULL;
                float *a = wt ? dt + s * dxw : NULL, *b = wm ? dm + s * dxw : NULL;
                size_t o = (size_t)j * cp + i;
                for (; j < jhi; j++, o += cp) {
                    if (q3) {
                        _mm_prefetch((const char *)q3, _MM_HINT_T1);
                        _mm_prefetch((const char *)(q3 + xw), _MM_HINT_T1);
                        q3 += 2 * xw;
                    }
                    if (q4) {
                        _mm_prefetch((const char *)q4, _MM_HINT_T1);
                        _mm_prefetch((const char *)(q4 + xw), _MM_HINT_T1);
                        q4 += 2 * xw;
                    }
                    if (gq) {
                        _mm_prefetch((const char *)gq, _MM_HINT_T1);
                        gq += gw;
                    }
                    out1(&cr, p0, p0 + xw, p0 + 2 * xw, p1, p1 + xw, p1 + 2 * xw, p2, p2 + xw, p2 + 2 * xw, gp,
                         cdin + o + cp, cfin + o, cdout + o, cfout + o, a, b, dxw, wt, wm, 1, 1, k, full, propagate, st);
                    p0 += 2 * xw, p1 += 2 * xw, p2 += 2 * xw, gp += gw;
                    if (wt)
                        a += 2 * dxw;
                    if (wm)
                        b += 2 * dxw;
                }
                continue;
            }
            const ptrdiff_t s = 2 * j - pw;
#define TAP(r, q) (s + (q) >= 0 && s + (q) < W ? rb[r] + (s + (q)) * rs[r] : ninf16)
            size_t o = (size_t)j * cp + i;
            int left = s >= 0 && s < W, centre = s + 1 < W;
            out1(&cr, TAP(0, 0), TAP(0, 1), TAP(0, 2), TAP(1, 0), TAP(1, 1), TAP(1, 2), TAP(2, 0), TAP(2, 1),
                 TAP(2, 2), g + j * gw + (ptrdiff_t)i, cdin + o + cp, cfin + o, cdout + o, cfout + o,
                 wt ? dt + s * dxw : NULL, wm ? dm + s * dxw : NULL, dxw, wt, wm, left, centre, k, full, propagate, st);
#undef TAP
            j++;
        }
        const ptrdiff_t s = 2 * (ptrdiff_t)ow - pw;
        if (s >= 0 && s < W) {
            if (wt)
                put(dt + s * dxw, k, hd_max3s2_narrow(cr.tl0, cr.tl1), st);
            if (wm)
                put(dm + s * dxw, k, cr.ml, st);
        }
        _mm512_storeu_pd(cdout + ow * cp + i, cr.bl0);
        _mm512_storeu_pd(cdout + ow * cp + i + 8, cr.bl1);
    }
}

void hd_f32_pool_ukernel_max3s2__avx512(float *dtop, float *dmid, ptrdiff_t dxw, const float *const *xr, ptrdiff_t xw,
                                        size_t w, int pw, const float *g, const float *gpf, ptrdiff_t gw, size_t ow, size_t c,
                                        const double *cdin, const float *cfin, double *cdout, float *cfout,
                                        int propagate, int stream)
{
    const int both = dtop != NULL && dmid != NULL, full = !propagate && c % 16 == 0;
    /* every store streamed when asked and all of them are whole aligned vectors */
    const int st = stream && full && dxw % 16 == 0 && ((uintptr_t)dtop & 63) == 0 && ((uintptr_t)dmid & 63) == 0;
    if (propagate)
        row(dtop, dmid, dxw, xr, xw, w, pw, g, gpf, gw, ow, c, cdin, cfin, cdout, cfout, 1, 0, 0, 0);
    else if (full && both && st)
        row(dtop, dmid, dxw, xr, xw, w, pw, g, gpf, gw, ow, c, cdin, cfin, cdout, cfout, 0, 1, 1, 1);
    else if (full && both)
        row(dtop, dmid, dxw, xr, xw, w, pw, g, gpf, gw, ow, c, cdin, cfin, cdout, cfout, 0, 0, 1, 1);
    else if (full)
        row(dtop, dmid, dxw, xr, xw, w, pw, g, gpf, gw, ow, c, cdin, cfin, cdout, cfout, 0, st, 1, 0);
    else
        row(dtop, dmid, dxw, xr, xw, w, pw, g, gpf, gw, ow, c, cdin, cfin, cdout, cfout, 0, 0, 0, 0);
}

void hd_f32_pool_ukernel_max3s2_last__avx512(float *d, ptrdiff_t dxw, size_t w, int pw, size_t ow, size_t c,
                                             const double *cd, const float *cf, int stream)
{
    const size_t cp = HD_POOL_MAX3S2_CP(c);
    const int st = stream && c % 16 == 0 && dxw % 16 == 0 && ((uintptr_t)d & 63) == 0;
    for (size_t j = 0; j <= ow; j++) {
        const ptrdiff_t s = 2 * (ptrdiff_t)j - pw;
        for (size_t i = 0; i < c; i += 16) {
            const __mmask16 k = low_bits(c - i);
            if (s >= 0 && s < (ptrdiff_t)w)
                put(d + s * dxw + (ptrdiff_t)i, k,
                    hd_max3s2_narrow(_mm512_loadu_pd(cd + j * cp + i), _mm512_loadu_pd(cd + j * cp + i + 8)), st);
            if (j < ow && s + 1 < (ptrdiff_t)w)
                put(d + (s + 1) * dxw + (ptrdiff_t)i, k, _mm512_loadu_ps(cf + j * cp + i), st);
        }
    }
}
