/* Max pooling backward 3x3 stride 2, channel-contiguous, fused, portable reference (see
 * pool-ukernels.h): per channel the argmax rule over the window's taps, then the sums in
 * doubles, in output order, rounded once when a position is complete. */
#include "kernels/pool/pool-ukernels.h"

#include "kernels/pool/f32-poolbwd-max3s2-scalar.h"

void hd_f32_pool_ukernel_max3s2__scalar(float *dtop, float *dmid, ptrdiff_t dxw, const float *const *xr, ptrdiff_t xw,
                                        size_t w, int pw, const float *g, const float *gpf, ptrdiff_t gw, size_t ow, size_t c,
                                        const double *cdin, const float *cfin, double *cdout, float *cfout,
                                        int propagate, int stream)
{
    (void)stream;
    (void)gpf;
    size_t cp = HD_POOL_MAX3S2_CP(c);
    for (size_t i = 0; i < c; i++)
        hd_max3s2_scalar_channel(dtop, dmid, dxw, xr, xw, w, pw, g, gw, ow, cp, i, cdin, cfin, cdout, cfout, propagate);
}

void hd_f32_pool_ukernel_max3s2_last__scalar(float *d, ptrdiff_t dxw, size_t w, int pw, size_t ow, size_t c,
                                             const double *cd, const float *cf, int stream)
{
    (void)stream;
    size_t cp = HD_POOL_MAX3S2_CP(c);
    for (size_t i = 0; i < c; i++)
        hd_max3s2_scalar_last_channel(d, dxw, w, pw, ow, cp, i, cd, cf);
}
