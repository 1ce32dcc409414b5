/* Max pooling backward 3x3 stride 2 along the rows of one channel plane, fused, portable
 * reference (see pool-ukernels.h): per output the argmax rule over the window's taps, then
 * the sums in doubles, in output order, rounded once when a position is complete. */
#include "kernels/pool/pool-ukernels.h"

#include <math.h>

void hd_f32_pool_ukernel_max3s2w__scalar(float *dtop, float *dmid, const float *const *xr, size_t w, int pw,
                                         const float *g, size_t ow, const double *cdin, const float *cfin,
                                         double *cdout, float *cfout, int propagate)
{
    const ptrdiff_t W = (ptrdiff_t)w;
    double tl = cdin[0], ml = 0.0, bl = 0.0;     /* the shared column on the left, per row */
    for (size_t j = 0; j < ow; j++) {
        ptrdiff_t s = 2 * (ptrdiff_t)j - pw;
        float m = -INFINITY;
        int best = -1;
        for (int t = 0; t < 9; t++) {
            ptrdiff_t col = s + t % 3;
            if (!xr[t / 3] || col < 0 || col >= W)
                continue;
            float v = xr[t / 3][col];
            if (m == m && ((propagate && v != v) || v > m)) {
                m = v;
                best = t;
            }
        }
        double gv = (double)g[j];
        double tc = (double)cfin[j], tr = cdin[j + 1], mc = 0.0, bc = 0.0;
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
        if (dtop && s >= 0 && s < W)
            dtop[s] = (float)tl;
        if (dtop && s + 1 < W)
            dtop[s + 1] = (float)tc;
        if (dmid && s >= 0 && s < W)
            dmid[s] = (float)ml;
        if (dmid && s + 1 < W)
            dmid[s + 1] = (float)mc;
        cdout[j] = bl;
        cfout[j] = (float)bc;
        tl = tr;
        ml = best == 5 ? 0.0 + gv : 0.0;
        bl = best == 8 ? 0.0 + gv : 0.0;
    }
    ptrdiff_t s = 2 * (ptrdiff_t)ow - pw;
    if (s >= 0 && s < W) {
        if (dtop)
            dtop[s] = (float)tl;
        if (dmid)
            dmid[s] = (float)ml;
    }
    cdout[ow] = bl;
}

void hd_f32_pool_ukernel_max3s2w_last__scalar(float *d, size_t w, int pw, size_t ow, const double *cd, const float *cf)
{
    for (size_t j = 0; j <= ow; j++) {
        ptrdiff_t s = 2 * (ptrdiff_t)j - pw;
        if (s >= 0 && s < (ptrdiff_t)w)
            d[s] = (float)cd[j];
        if (j < ow && s + 1 < (ptrdiff_t)w)
            d[s + 1] = cf[j];
    }
}
