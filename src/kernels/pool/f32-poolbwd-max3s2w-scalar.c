/* Max pooling backward 3x3 stride 2 along the rows of one channel plane, fused, portable
 * reference (see pool-ukernels.h): per output the argmax rule over the window's taps, then
 * the sums in doubles, in output order, rounded once when a position is complete. */
#include "kernels/pool/pool-ukernels.h"

#include "kernels/pool/f32-poolbwd-max3s2-scalar.h"

void hd_f32_pool_ukernel_max3s2w__scalar(float *dtop, float *dmid, const float *const *xr, size_t w, int pw,
                                         const float *g, size_t ow, const double *cdin, const float *cfin,
                                         double *cdout, float *cfout, int propagate)
{
    hd_max3s2_scalar_channel(dtop, dmid, 1, xr, 1, w, pw, g, 1, ow, 1, 0, cdin, cfin, cdout, cfout, propagate);
}

void hd_f32_pool_ukernel_max3s2w_last__scalar(float *d, size_t w, int pw, size_t ow, const double *cd, const float *cf)
{
    hd_max3s2_scalar_last_channel(d, 1, w, pw, ow, 1, 0, cd, cf);
}
