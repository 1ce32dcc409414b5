/* Max pooling backward 3x3 stride 2, channel-contiguous, fused, AVX-512 (see
 * pool-ukernels.h).  Per 16 channels the outputs of the row are taken left to right: the
 * compare chain over the nine taps leaves the winning tap per lane, and nine lane masks
 * (winner == tap) add the gradient to the window's positions.  The shared column on the
 * left of each window is carried in registers from the previous output (top and bottom rows
 * as doubles, since up to four terms reach a corner; the middle row as a float, at most two
 * terms); the centre column is complete after one output (middle row), or is taken from and
 * left in the float carry (top and bottom rows, two terms in all).  Float sums of at most two
 * floats from +0.0 rounded once are the double rule's bits (see maxgatherrow), and every sum
 * starts as a masked add to +0.0, so that a lone -0 gradient gives +0 as the rule does. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

static inline __mmask16 low_bits(size_t n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

static const float ninf16[16] __attribute__((aligned(64))) = {
    -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
    -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};

static inline void put(float *p, __mmask16 k, __m512 v, int stream)
{
    if (stream && k == 0xffff && ((uintptr_t)p & 63) == 0)
        _mm512_stream_ps(p, v);
    else
        _mm512_mask_storeu_ps(p, k, v);
}

static inline __m512 narrow(__m512d a0, __m512d a1)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(a0)), _mm512_cvtpd_ps(a1), 1);
}

/* The running rule per lane (see argmax8): without propagation the running value is never
 * NaN, so it is max(v, m), one instruction. */
static inline void step(__m512 *m, __m512i *best, __m512 v, int t, int propagate)
{
    __mmask16 take = _mm512_cmp_ps_mask(v, *m, _CMP_GT_OQ);
    if (propagate) {
        take |= _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(*m, *m, _CMP_ORD_Q), v, v, _CMP_UNORD_Q);
        *m = _mm512_mask_mov_ps(*m, take, v);
    } else {
        *m = _mm512_max_ps(v, *m);
    }
    *best = _mm512_mask_mov_epi32(*best, take, _mm512_set1_epi32(t));
}

/* The later part (m, b) of a window joined to the earlier (*m, *best). */
static inline void join(__m512 *m, __m512i *best, __m512 v, __m512i b, int propagate)
{
    __mmask16 take = _mm512_cmp_ps_mask(v, *m, _CMP_GT_OQ);
    if (propagate) {
        take |= _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(*m, *m, _CMP_ORD_Q), v, v, _CMP_UNORD_Q);
        *m = _mm512_mask_mov_ps(*m, take, v);
    } else {
        *m = _mm512_max_ps(v, *m);
    }
    *best = _mm512_mask_mov_epi32(*best, take, b);
}

static inline __attribute__((always_inline)) void
row(float *dtop, float *dmid, ptrdiff_t dxw, const float *const *xr, ptrdiff_t xw, size_t w, int pw, const float *g,
    const float *gpf, ptrdiff_t gw, size_t ow, size_t c, const double *cdin, const float *cfin, double *cdout, float *cfout,
    int propagate, int stream)
{
    const size_t cp = HD_POOL_MAX3S2_CP(c);
    const __m512 zf = _mm512_setzero_ps(), ninf = _mm512_set1_ps(-INFINITY);
    const __m512d zd = _mm512_setzero_pd();
    const __m512i none = _mm512_set1_epi32(-1);
    const ptrdiff_t W = (ptrdiff_t)w;
    for (size_t i = 0; i < c; i += 16) {
        const __mmask16 k = low_bits(c - i);
        /* a row outside the input reads -inf at every column (never chosen) */
        const float *rb[3];
        ptrdiff_t rs[3];
        for (int r = 0; r < 3; r++) {
            rb[r] = xr[r] ? xr[r] + i : ninf16;
            rs[r] = xr[r] ? xw : 0;
        }
        const float *pf3 = xr[3] ? xr[3] + i : NULL, *pf4 = xr[4] ? xr[4] + i : NULL;
        __m512d tl0 = _mm512_loadu_pd(cdin + i), tl1 = _mm512_loadu_pd(cdin + i + 8);
        __m512 ml = zf;
        __m512d bl0 = zd, bl1 = zd;
        for (size_t j = 0; j < ow; j++) {
            const ptrdiff_t s = 2 * (ptrdiff_t)j - pw;
            /* the next output row's two new x rows, the same lines as this step's */
            if (s + 2 < W) {
                if (pf3)
                    _mm_prefetch((const char *)(pf3 + (s + 1) * xw), _MM_HINT_T1);
                if (pf4)
                    _mm_prefetch((const char *)(pf4 + (s + 1) * xw), _MM_HINT_T1);
            }
            if (gpf)
                _mm_prefetch((const char *)(gpf + (ptrdiff_t)j * gw + (ptrdiff_t)i), _MM_HINT_T1);
            if (s + 3 < W) {
                if (pf3)
                    _mm_prefetch((const char *)(pf3 + (s + 2) * xw), _MM_HINT_T1);
                if (pf4)
                    _mm_prefetch((const char *)(pf4 + (s + 2) * xw), _MM_HINT_T1);
            }
            const float *t0, *t1, *t2, *t3, *t4, *t5, *t6, *t7, *t8;
            if (s >= 0 && s + 2 < W) {
                t0 = rb[0] + s * rs[0], t1 = t0 + rs[0], t2 = t1 + rs[0];
                t3 = rb[1] + s * rs[1], t4 = t3 + rs[1], t5 = t4 + rs[1];
                t6 = rb[2] + s * rs[2], t7 = t6 + rs[2], t8 = t7 + rs[2];
            } else {
#define TAP(r, q) (s + (q) >= 0 && s + (q) < W ? rb[r] + (s + (q)) * rs[r] : ninf16)
                t0 = TAP(0, 0), t1 = TAP(0, 1), t2 = TAP(0, 2);
                t3 = TAP(1, 0), t4 = TAP(1, 1), t5 = TAP(1, 2);
                t6 = TAP(2, 0), t7 = TAP(2, 1), t8 = TAP(2, 2);
#undef TAP
            }
            /* one chain per window row, then the rows joined in order: the first maximum in
             * row-major order either way (a later part replaces only when strictly greater, or
             * as the first NaN under propagation) */
            __m512 m0 = ninf, m1 = ninf, m2 = ninf;
            __m512i b0 = none, b1 = none, b2 = none;
            step(&m0, &b0, _mm512_maskz_loadu_ps(k, t0), 0, propagate);
            step(&m1, &b1, _mm512_maskz_loadu_ps(k, t3), 3, propagate);
            step(&m2, &b2, _mm512_maskz_loadu_ps(k, t6), 6, propagate);
            step(&m0, &b0, _mm512_maskz_loadu_ps(k, t1), 1, propagate);
            step(&m1, &b1, _mm512_maskz_loadu_ps(k, t4), 4, propagate);
            step(&m2, &b2, _mm512_maskz_loadu_ps(k, t7), 7, propagate);
            step(&m0, &b0, _mm512_maskz_loadu_ps(k, t2), 2, propagate);
            step(&m1, &b1, _mm512_maskz_loadu_ps(k, t5), 5, propagate);
            step(&m2, &b2, _mm512_maskz_loadu_ps(k, t8), 8, propagate);
            join(&m0, &b0, m1, b1, propagate);
            join(&m0, &b0, m2, b2, propagate);
            const __m512i best = b0;
            const __m512 gv = _mm512_maskz_loadu_ps(k, g + (ptrdiff_t)j * gw + (ptrdiff_t)i);
            const __m512d g0 = _mm512_cvtps_pd(_mm512_castps512_ps256(gv));
            const __m512d g1 = _mm512_cvtps_pd(_mm512_extractf32x8_ps(gv, 1));
            __mmask16 h[9];
#pragma GCC unroll 9
            for (int q = 0; q < 9; q++)
                h[q] = _mm512_cmpeq_epi32_mask(best, _mm512_set1_epi32(q));
            /* top row: the shared corner on the left is complete, the centre takes the carry's */
            tl0 = _mm512_mask_add_pd(tl0, (__mmask8)h[0], tl0, g0);
            tl1 = _mm512_mask_add_pd(tl1, (__mmask8)(h[0] >> 8), tl1, g1);
            __m512 tc = _mm512_loadu_ps(cfin + j * cp + i);
            tc = _mm512_mask_add_ps(tc, h[1], tc, gv);
            if (dtop) {
                if (s >= 0 && s < W)
                    put(dtop + s * dxw + (ptrdiff_t)i, k, narrow(tl0, tl1), stream);
                if (s + 1 < W)
                    put(dtop + (s + 1) * dxw + (ptrdiff_t)i, k, tc, stream);
            }
            tl0 = _mm512_loadu_pd(cdin + (j + 1) * cp + i);
            tl1 = _mm512_loadu_pd(cdin + (j + 1) * cp + i + 8);
            tl0 = _mm512_mask_add_pd(tl0, (__mmask8)h[2], tl0, g0);
            tl1 = _mm512_mask_add_pd(tl1, (__mmask8)(h[2] >> 8), tl1, g1);
            /* middle row: complete but for the shared column on the right */
            ml = _mm512_mask_add_ps(ml, h[3], ml, gv);
            if (dmid) {
                if (s >= 0 && s < W)
                    put(dmid + s * dxw + (ptrdiff_t)i, k, ml, stream);
                if (s + 1 < W)
                    put(dmid + (s + 1) * dxw + (ptrdiff_t)i, k, _mm512_mask_add_ps(zf, h[4], zf, gv), stream);
            }
            ml = _mm512_mask_add_ps(zf, h[5], zf, gv);
            /* bottom row: into the carries for the next output row */
            bl0 = _mm512_mask_add_pd(bl0, (__mmask8)h[6], bl0, g0);
            bl1 = _mm512_mask_add_pd(bl1, (__mmask8)(h[6] >> 8), bl1, g1);
            _mm512_storeu_pd(cdout + j * cp + i, bl0);
            _mm512_storeu_pd(cdout + j * cp + i + 8, bl1);
            _mm512_storeu_ps(cfout + j * cp + i, _mm512_mask_add_ps(zf, h[7], zf, gv));
            bl0 = _mm512_mask_add_pd(zd, (__mmask8)h[8], zd, g0);
            bl1 = _mm512_mask_add_pd(zd, (__mmask8)(h[8] >> 8), zd, g1);
        }
        const ptrdiff_t s = 2 * (ptrdiff_t)ow - pw;
        if (s >= 0 && s < W) {
            if (dtop)
                put(dtop + s * dxw + (ptrdiff_t)i, k, narrow(tl0, tl1), stream);
            if (dmid)
                put(dmid + s * dxw + (ptrdiff_t)i, k, ml, stream);
        }
        _mm512_storeu_pd(cdout + ow * cp + i, bl0);
        _mm512_storeu_pd(cdout + ow * cp + i + 8, bl1);
    }
}

void hd_f32_pool_ukernel_max3s2__avx512(float *dtop, float *dmid, ptrdiff_t dxw, const float *const *xr, ptrdiff_t xw,
                                        size_t w, int pw, const float *g, const float *gpf, ptrdiff_t gw, size_t ow, size_t c,
                                        const double *cdin, const float *cfin, double *cdout, float *cfout,
                                        int propagate, int stream)
{
    if (propagate)
        row(dtop, dmid, dxw, xr, xw, w, pw, g, gpf, gw, ow, c, cdin, cfin, cdout, cfout, 1, stream);
    else
        row(dtop, dmid, dxw, xr, xw, w, pw, g, gpf, gw, ow, c, cdin, cfin, cdout, cfout, 0, stream);
}

void hd_f32_pool_ukernel_max3s2_last__avx512(float *d, ptrdiff_t dxw, size_t w, int pw, size_t ow, size_t c,
                                             const double *cd, const float *cf, int stream)
{
    const size_t cp = HD_POOL_MAX3S2_CP(c);
    for (size_t j = 0; j <= ow; j++) {
        const ptrdiff_t s = 2 * (ptrdiff_t)j - pw;
        for (size_t i = 0; i < c; i += 16) {
            const __mmask16 k = low_bits(c - i);
            if (s >= 0 && s < (ptrdiff_t)w)
                put(d + s * dxw + (ptrdiff_t)i, k,
                    narrow(_mm512_loadu_pd(cd + j * cp + i), _mm512_loadu_pd(cd + j * cp + i + 8)), stream);
            if (j < ow && s + 1 < (ptrdiff_t)w)
                put(d + (s + 1) * dxw + (ptrdiff_t)i, k, _mm512_loadu_ps(cf + j * cp + i), stream);
        }
    }
}
