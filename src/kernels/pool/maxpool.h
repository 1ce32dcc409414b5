/*
 * kernels/pool/maxpool.h -- the running-maximum micro-kernel under max pooling forward.
 *
 *   acc[i] = max(acc[i], x[i])  for i < n
 *
 * NaN rules (cuDNN's maxpoolingNanOpt): with propagate == 0 a NaN in x never replaces acc
 * (acc starts at -inf, so a window of NaNs gives -inf); with propagate != 0 acc becomes NaN
 * once any x it met is NaN.  Equal values (+0/-0) keep the earlier one.  Every variant gives
 * bitwise the same result as the scalar one.
 */
#ifndef HD_KERNELS_MAXPOOL_H
#define HD_KERNELS_MAXPOOL_H

#include <stddef.h>

typedef void (*hd_f32_vmax_fn)(float *acc, const float *x, size_t n, int propagate);

void hd_f32_vmax__scalar(float *acc, const float *x, size_t n, int propagate);
void hd_f32_vmax__avx2(float *acc, const float *x, size_t n, int propagate);
void hd_f32_vmax__avx512(float *acc, const float *x, size_t n, int propagate);

/* The best variant for ISA (an hd_isa_t, e.g. a handle's). */
hd_f32_vmax_fn hd_f32_vmax_select(int isa);

#endif
