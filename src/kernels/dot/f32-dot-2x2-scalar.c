/*
 * f32-dot-2x2-scalar.c -- the portable dot micro-kernel (contract in dot-ukernels.h): per
 * lane a rounded product, then a rounded sum.
 */
#include "kernels/dot/dot-ukernels.h"

#define MR 2
#define NR 2
#define L HD_DOT_LANES

void hd_f32_dot_ukernel_2x2__scalar(size_t kc, size_t nseg, const float *const *x, size_t xstride,
                                    const float *const *w, float *part, int first)
{
    float acc[MR][NR][L];
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++)
            for (int l = 0; l < L; l++)
                acc[i][j][l] = first ? 0.0f : part[(i * NR + j) * L + l];
    size_t full = kc / L * L;
    for (size_t g = 0; g < nseg; g++) {
        const float *xr[MR], *wr[NR];
        for (int i = 0; i < MR; i++)
            xr[i] = x[g * xstride + (size_t)i];
        for (int j = 0; j < NR; j++)
            wr[j] = w[j] + g * kc;
        /* whole chunks of 16 steps: a fixed-length lane loop the compiler vectorises */
        for (size_t s0 = 0; s0 < full; s0 += L)
            for (int i = 0; i < MR; i++)
                for (int j = 0; j < NR; j++)
                    for (int l = 0; l < L; l++) {
                        float prod = xr[i][s0 + (size_t)l] * wr[j][s0 + (size_t)l]; /* never contracted */
                        acc[i][j][l] = acc[i][j][l] + prod;
                    }
        if (full < kc)
            for (int i = 0; i < MR; i++)
                for (int j = 0; j < NR; j++)
                    for (int l = 0; l < L; l++) {
                        size_t s = full + (size_t)l;
                        float xv = s < kc ? xr[i][s] : 0.0f, wv = s < kc ? wr[j][s] : 0.0f;
                        float prod = xv * wv;
                        acc[i][j][l] = acc[i][j][l] + prod;
                    }
    }
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++)
            for (int l = 0; l < L; l++)
                part[(i * NR + j) * L + l] = acc[i][j][l];
}
