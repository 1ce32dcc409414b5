/*
 * f32-gemm-4x4-scalar.c -- the portable SGEMM micro-kernel (contract in gemm-ukernels.h), for
 * CPUs without AVX2.  It multiplies and adds in two roundings: a library fmaf() call per
 * element would be exact but far slower than the plain arithmetic here.
 */
#include "kernels/gemm/gemm-ukernels.h"

#define MR 4
#define NR 4

void hd_f32_gemm_ukernel_4x4__scalar(size_t mr, size_t nr, size_t kc, const float *a, const float *b, size_t b_stride,
                                     float *c, size_t ldc, float alpha, float beta)
{
    float acc[MR][NR] = {{0}};
    for (size_t p = 0; p < kc; p++) {
        for (int i = 0; i < MR; i++)
            for (int j = 0; j < NR; j++) {
                float prod = a[i] * b[j]; /* two statements: never contracted into an FMA */
                acc[i][j] = acc[i][j] + prod;
            }
        a += MR;
        b += b_stride;
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
