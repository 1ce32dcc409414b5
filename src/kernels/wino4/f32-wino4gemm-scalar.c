/*
 * kernels/wino4/f32-wino4gemm-scalar.c -- the portable reference of the Winograd GEMM of the
 * channels-contiguous form (wino4-ukernels.h), any tile.
 */
#include "kernels/wino4/wino4-ukernels.h"

#include <math.h>

/* fmaf: the exact fused multiply-add, so the result is bitwise that of the vector kernels */
void hd_f32_wino4gemm_ukernel__scalar(size_t mr, size_t nr, size_t kc, const float *a, size_t lda, const float *b,
                                      size_t b_stride, float *c, size_t ldc, int acc)
{
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++) {
            float s = acc ? c[i * ldc + j] : 0.0f;
            for (size_t p = 0; p < kc; p++)
                s = fmaf(a[i * lda + p], b[p * b_stride + j], s);
            c[i * ldc + j] = s;
        }
}
