/*
 * f32-dot-2x2-scalar.c -- the portable dot micro-kernel (contract in dot-ukernels.h): per
 * lane a rounded product, then a rounded sum.
 */
#include "kernels/conv/dot-ukernels.h"

#define MR 2
#define NR 2
#define L HD_DOT_LANES

void hd_f32_dot_2x2__scalar(size_t kc, size_t nseg, const float *const *x, size_t xstride, const float *const *w,
                            float *part, int first)
{
    float acc[MR][NR][L];
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++)
            for (int l = 0; l < L; l++)
                acc[i][j][l] = first ? 0.0f : part[(i * NR + j) * L + l];
    for (size_t g = 0; g < nseg; g++) {
        const float *xr[MR], *wr[NR];
        for (int i = 0; i < MR; i++)
            xr[i] = x[g * xstride + (size_t)i];
        for (int j = 0; j < NR; j++)
            wr[j] = w[j] + g * kc;
        for (size_t s0 = 0; s0 < kc; s0 += L)
            for (int l = 0; l < L; l++) {
                size_t s = s0 + (size_t)l;
                for (int i = 0; i < MR; i++)
                    for (int j = 0; j < NR; j++) {
                        float xv = s < kc ? xr[i][s] : 0.0f, wv = s < kc ? wr[j][s] : 0.0f;
                        float prod = xv * wv; /* two statements: never contracted into an FMA */
                        acc[i][j][l] = acc[i][j][l] + prod;
                    }
            }
    }
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++)
            for (int l = 0; l < L; l++)
                part[(i * NR + j) * L + l] = acc[i][j][l];
}
