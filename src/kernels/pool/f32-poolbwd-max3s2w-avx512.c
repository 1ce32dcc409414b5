/* Max pooling backward 3x3 stride 2 along the rows of one channel plane, fused, AVX-512 (see
 * pool-ukernels.h).  Sixteen outputs at once, one per lane: the window's left, centre and
 * right columns are the even input columns, the odd ones and the even ones moved down a lane
 * (vpermt2ps over 32 + 16 loaded columns; columns outside the input read -inf, never
 * chosen).  Three compare chains (one per window row) joined in row order leave the winning
 * tap per lane, as in the channel-contiguous kernel; the gradient goes to each tap's
 * positions under lane masks, as masked adds to the carry or to +0.0 (so a lone -0 gives +0
 * as the rule does).  The column an output shares with its left neighbour takes that
 * neighbour's gradient and right-column masks moved up a lane (the previous block's last lane
 * comes in at lane 0); the top row adds to the previous output row's carry.  Positions that four windows reach (even row
 * and column) are summed in doubles, the others in floats (at most two terms from +0.0,
 * rounded once: the double rule's bits).  Even and odd columns are interleaved back and each
 * row's 32 columns are stored once. */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"
#include "kernels/pool/f32-poolbwd-max3s2-avx512.h"

#include <math.h>

static const int32_t iota[16] __attribute__((aligned(64))) = {0, 1, 2, 3, 4, 5, 6, 7,
                                                              8, 9, 10, 11, 12, 13, 14, 15};
static const int32_t even_idx[16] __attribute__((aligned(64))) = {0, 2, 4, 6, 8, 10, 12, 14,
                                                                   16, 18, 20, 22, 24, 26, 28, 30};
static const int32_t odd_idx[16] __attribute__((aligned(64))) = {1, 3, 5, 7, 9, 11, 13, 15,
                                                                  17, 19, 21, 23, 25, 27, 29, 31};
/* lanes 1..15 of the first source, then lane 0 of the second (whose even lane 0 is x[b + 32]) */
static const int32_t next_idx[16] __attribute__((aligned(64))) = {1, 2, 3, 4, 5, 6, 7, 8,
                                                                   9, 10, 11, 12, 13, 14, 15, 16};
static const int32_t lo_idx[16] __attribute__((aligned(64))) = {0, 16, 1, 17, 2, 18, 3, 19,
                                                                 4, 20, 5, 21, 6, 22, 7, 23};
static const int32_t hi_idx[16] __attribute__((aligned(64))) = {8, 24, 9, 25, 10, 26, 11, 27,
                                                                 12, 28, 13, 29, 14, 30, 15, 31};

/* v moved up a lane, lane 0 from the last lane of prev */
static inline __m512 up1(__m512 v, __m512 prev)
{
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(v), _mm512_castps_si512(prev), 15));
}

static inline __attribute__((always_inline)) void
row(float *dtop, float *dmid, const float *const *xr, size_t w, int pw, const float *g, size_t ow,
    const double *cdin, const float *cfin, double *cdout, float *cfout, int propagate)
{
    const ptrdiff_t W = (ptrdiff_t)w;
    const __m512d zd = _mm512_setzero_pd();
    const __m512 zf = _mm512_setzero_ps(), ninf = _mm512_set1_ps(-INFINITY);
    const __m512i ie = _mm512_load_si512(even_idx), io = _mm512_load_si512(odd_idx);
    const __m512i in = _mm512_load_si512(next_idx);
    const __m512i il = _mm512_load_si512(lo_idx), ih = _mm512_load_si512(hi_idx);
    const __m512i none = _mm512_set1_epi32(-1);
    /* the previous block's gradients and masks for the taps on the next block's first column */
    __m512 gp = zf;
    __mmask16 q2 = 0, q5 = 0, q8 = 0;
    __m512 xa[3];                                 /* each window row at columns b .. b + 15 */
    /* the column of each lane, b + i: inside the row where below w as unsigned */
    const __m512i vw = _mm512_set1_epi32((int)w), v16 = _mm512_set1_epi32(16);
    __m512i col = _mm512_add_epi32(_mm512_load_si512(iota), _mm512_set1_epi32(-pw));
#pragma GCC unroll 3
    for (int r = 0; r < 3; r++)
        xa[r] = xr[r] ? _mm512_mask_loadu_ps(ninf, _mm512_cmplt_epu32_mask(col, vw), xr[r] - pw) : ninf;
    for (size_t j0 = 0; j0 <= ow; j0 += 16) {
        const ptrdiff_t b = 2 * (ptrdiff_t)j0 - pw;
        const size_t nv = ow - j0 < 16 ? ow - j0 : 16;              /* outputs in this block */
        const __mmask16 kv = (__mmask16)((1u << nv) - 1u);
        const __mmask16 kc = nv == 16 ? kv : (__mmask16)((1u << (nv + 1)) - 1u);   /* and the shared column */
        const __m512i colb = _mm512_add_epi32(col, v16), colc = _mm512_add_epi32(colb, v16);
        const __mmask16 kb = _mm512_cmplt_epu32_mask(colb, vw), kx = _mm512_cmplt_epu32_mask(colc, vw);
        __m512 m[3], xc[3];
        __m512i bt[3];
#pragma GCC unroll 3
        for (int r = 0; r < 3; r++) {
            __m512 xb = ninf;
            xc[r] = ninf;
            if (xr[r]) {
                xb = _mm512_mask_loadu_ps(ninf, kb, xr[r] + b + 16);
                xc[r] = _mm512_mask_loadu_ps(ninf, kx, xr[r] + b + 32);
            }
            const __m512 l = _mm512_permutex2var_ps(xa[r], ie, xb);
            const __m512 c = _mm512_permutex2var_ps(xa[r], io, xb);
            const __m512 rt = _mm512_permutex2var_ps(l, in, xc[r]);
            m[r] = ninf;
            bt[r] = none;
            hd_max3s2_step(&m[r], &bt[r], l, _mm512_set1_epi32(3 * r), propagate);
            hd_max3s2_step(&m[r], &bt[r], c, _mm512_set1_epi32(3 * r + 1), propagate);
            hd_max3s2_step(&m[r], &bt[r], rt, _mm512_set1_epi32(3 * r + 2), propagate);
        }
        hd_max3s2_step(&m[0], &bt[0], m[1], bt[1], propagate);
        hd_max3s2_step(&m[0], &bt[0], m[2], bt[2], propagate);
        const __m512i best = bt[0];
        const __m512 gv = _mm512_maskz_loadu_ps(kv, g + j0);
        __mmask16 h[9];
#pragma GCC unroll 9
        for (int q = 0; q < 9; q++)
            h[q] = _mm512_mask_cmpeq_epi32_mask(kv, best, _mm512_set1_epi32(q));
        /* the previous outputs' gradients and their masks for the taps on the shared column */
        const __m512 gs = up1(gv, gp);
        const __mmask16 h2 = (__mmask16)((h[2] << 1) | (q2 >> 15)), h5 = (__mmask16)((h[5] << 1) | (q5 >> 15));
        const __mmask16 h8 = (__mmask16)((h[8] << 1) | (q8 >> 15));
        const __m512d gs0 = hd_max3s2_wide_lo(gs), gs1 = hd_max3s2_wide_hi(gs);
        const __m512d gv0 = hd_max3s2_wide_lo(gv), gv1 = hd_max3s2_wide_hi(gv);
        /* top row: even columns are corners (doubles, from the carry), odd ones floats */
        __m512d t0 = _mm512_maskz_loadu_pd((__mmask8)kc, cdin + j0);
        __m512d t1 = _mm512_maskz_loadu_pd((__mmask8)(kc >> 8), cdin + j0 + 8);
        t0 = _mm512_mask_add_pd(t0, (__mmask8)h2, t0, gs0);
        t1 = _mm512_mask_add_pd(t1, (__mmask8)(h2 >> 8), t1, gs1);
        t0 = _mm512_mask_add_pd(t0, (__mmask8)h[0], t0, gv0);
        t1 = _mm512_mask_add_pd(t1, (__mmask8)(h[0] >> 8), t1, gv1);
        const __m512 te = hd_max3s2_narrow(t0, t1);
        const __m512 cf = _mm512_maskz_loadu_ps(kv, cfin + j0);
        const __m512 to = _mm512_mask_add_ps(cf, h[1], cf, gv);
        /* middle row: two terms at most */
        __m512 me = _mm512_mask_add_ps(zf, h5, zf, gs);
        me = _mm512_mask_add_ps(me, h[3], me, gv);
        const __m512 mo = _mm512_mask_add_ps(zf, h[4], zf, gv);
        /* bottom row: into the carries */
        __m512d b0 = _mm512_mask_add_pd(zd, (__mmask8)h8, zd, gs0);
        __m512d b1 = _mm512_mask_add_pd(zd, (__mmask8)(h8 >> 8), zd, gs1);
        b0 = _mm512_mask_add_pd(b0, (__mmask8)h[6], b0, gv0);
        b1 = _mm512_mask_add_pd(b1, (__mmask8)(h[6] >> 8), b1, gv1);
        _mm512_mask_storeu_pd(cdout + j0, (__mmask8)kc, b0);
        _mm512_mask_storeu_pd(cdout + j0 + 8, (__mmask8)(kc >> 8), b1);
        _mm512_mask_storeu_ps(cfout + j0, kv, _mm512_mask_add_ps(zf, h[7], zf, gv));
        /* this block's columns: b .. b + 2 nv inside the row (b + 32 is the next block's) */
        const ptrdiff_t lim = b + 2 * (ptrdiff_t)nv + 1 < W ? b + 2 * (ptrdiff_t)nv + 1 : W;
        const __m512i vl = _mm512_set1_epi32((int)lim);
        const __mmask16 w0 = _mm512_cmplt_epu32_mask(col, vl), w1 = _mm512_cmplt_epu32_mask(colb, vl);
        if (dtop) {
            _mm512_mask_storeu_ps(dtop + b, w0, _mm512_permutex2var_ps(te, il, to));
            _mm512_mask_storeu_ps(dtop + b + 16, w1, _mm512_permutex2var_ps(te, ih, to));
        }
        if (dmid) {
            _mm512_mask_storeu_ps(dmid + b, w0, _mm512_permutex2var_ps(me, il, mo));
            _mm512_mask_storeu_ps(dmid + b + 16, w1, _mm512_permutex2var_ps(me, ih, mo));
        }
        gp = gv, q2 = h[2], q5 = h[5], q8 = h[8];
#pragma GCC unroll 3
        for (int r = 0; r < 3; r++)
            xa[r] = xc[r];
        col = colc;
    }
}

void hd_f32_pool_ukernel_max3s2w__avx512(float *dtop, float *dmid, const float *const *xr, size_t w, int pw,
                                         const float *g, size_t ow, const double *cdin, const float *cfin,
                                         double *cdout, float *cfout, int propagate)
{
    if (propagate)
        row(dtop, dmid, xr, w, pw, g, ow, cdin, cfin, cdout, cfout, 1);
    else
        row(dtop, dmid, xr, w, pw, g, ow, cdin, cfin, cdout, cfout, 0);
}
