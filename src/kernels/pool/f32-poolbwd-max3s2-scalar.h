/* The portable rule of the fused max pooling backward 3x3 stride 2 (pool-ukernels.h), one
 * channel at a time: shared by the channel-contiguous kernel (channel I of C, carries of pitch
 * CP) and the row kernel (one channel, unit strides, plain carries). */
#ifndef HD_F32_POOLBWD_MAX3S2_SCALAR_H
#define HD_F32_POOLBWD_MAX3S2_SCALAR_H

#include <math.h>
#include <stddef.h>

/* One output row for channel I: per output the argmax rule over the window's taps, then the
 * sums in doubles, in output order, rounded once when a position is complete. */
static inline void hd_max3s2_scalar_channel(float *dtop, float *dmid, ptrdiff_t dxw, const float *const *xr,
                                            ptrdiff_t xw, size_t w, int pw, const float *g, ptrdiff_t gw, size_t ow,
                                            size_t cp, size_t i, const double *cdin, const float *cfin,
                                            double *cdout, float *cfout, int propagate)
{
    double tl = cdin[i], ml = 0.0, bl = 0.0;     /* the shared column on the left, per row */
    for (size_t j = 0; j < ow; j++) {
        ptrdiff_t s = 2 * (ptrdiff_t)j - pw;
        float m = -INFINITY;
        int best = -1;
        for (int t = 0; t < 9; t++) {
            ptrdiff_t col = s + t % 3;
            if (!xr[t / 3] || col < 0 || col >= (ptrdiff_t)w)
                continue;
            float v = xr[t / 3][col * xw + (ptrdiff_t)i];
            if (m == m && ((propagate && v != v) || v > m)) {
                m = v;
                best = t;
            }
        }
        double gv = (double)g[(ptrdiff_t)j * gw + (ptrdiff_t)i];
        double tc = (double)cfin[j * cp + i], tr = cdin[(j + 1) * cp + i], mc = 0.0, bc = 0.0;
        switch (best) {
        case 0: tl += gv; break;
        case 1: tc += gv; break;
        case 2: tr += gv; break;
        case 3: ml += gv; break;
        case 4: mc += gv; break;
        case 6: bl += gv; break;
        case 7: bc += gv; break;
        default: break;
        }
        if (dtop && s >= 0 && s < (ptrdiff_t)w)
            dtop[s * dxw + (ptrdiff_t)i] = (float)tl;
        if (dtop && s + 1 < (ptrdiff_t)w)
            dtop[(s + 1) * dxw + (ptrdiff_t)i] = (float)tc;
        if (dmid && s >= 0 && s < (ptrdiff_t)w)
            dmid[s * dxw + (ptrdiff_t)i] = (float)ml;
        if (dmid && s + 1 < (ptrdiff_t)w)
            dmid[(s + 1) * dxw + (ptrdiff_t)i] = (float)mc;
        cdout[j * cp + i] = bl;
        cfout[j * cp + i] = (float)bc;
        tl = tr;
        ml = best == 5 ? 0.0 + gv : 0.0;
        bl = best == 8 ? 0.0 + gv : 0.0;
    }
    ptrdiff_t s = 2 * (ptrdiff_t)ow - pw;
    if (s >= 0 && s < (ptrdiff_t)w) {
        if (dtop)
            dtop[s * dxw + (ptrdiff_t)i] = (float)tl;
        if (dmid)
            dmid[s * dxw + (ptrdiff_t)i] = (float)ml;
    }
    cdout[ow * cp + i] = bl;
}

/* The row held by a carry (the last output row's bottom row), channel I. */
static inline void hd_max3s2_scalar_last_channel(float *d, ptrdiff_t dxw, size_t w, int pw, size_t ow, size_t cp,
                                                 size_t i, const double *cd, const float *cf)
{
    for (size_t j = 0; j <= ow; j++) {
        ptrdiff_t s = 2 * (ptrdiff_t)j - pw;
        if (s >= 0 && s < (ptrdiff_t)w)
            d[s * dxw + (ptrdiff_t)i] = (float)cd[j * cp + i];
        if (j < ow && s + 1 < (ptrdiff_t)w)
            d[(s + 1) * dxw + (ptrdiff_t)i] = cf[j * cp + i];
    }
}

#endif
