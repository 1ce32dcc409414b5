/*
 * f32-igemm-4x4-scalar.c -- the portable indirect micro-kernel (contract in
 * igemm-ukernels.h): a rounded product, then a rounded sum, as the scalar packed kernel.
 */
#include "kernels/igemm/igemm-ukernels.h"

#define MR 4
#define NR 4

void hd_f32_igemm_ukernel_4x4__scalar(size_t mr, size_t nr, size_t nseg, const hd_igemm_seg *seg, size_t row0,
                                      const float *b, size_t b_stride, float *c, size_t ldc, float alpha, float beta)
{
    float acc[MR][NR] = {{0}};
    for (size_t s = 0; s < nseg; s++) {
        const float *a[MR];
        for (int i = 0; i < MR; i++)
            a[i] = seg[s].rows[row0 + (size_t)i] + seg[s].off;
        for (int64_t p = 0; p < seg[s].kc; p++) {
            for (int i = 0; i < MR; i++)
                for (int j = 0; j < NR; j++) {
                    float prod = a[i][p] * b[j]; /* two statements: never contracted into an FMA */
                    acc[i][j] = acc[i][j] + prod;
                }
            b += b_stride;
        }
    }
    for (size_t i = 0; i < mr; i++) {
        float *ci = c + i * ldc;
        for (size_t j = 0; j < nr; j++) {
            float t = alpha * acc[i][j];
            if (beta == 0.0f) {
                ci[j] = t;
            } else {
                float u = beta * ci[j];
                ci[j] = t + u;
            }
        }
    }
}
