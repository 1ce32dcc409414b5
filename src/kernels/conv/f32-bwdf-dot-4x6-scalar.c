/* kernels/conv/f32-bwdf-dot-4x6-scalar.c -- the position-contiguous dot tiles of the fp32
 * backward filter (bwdf-ukernels.h) in plain C: the contract's 16 lane sums and lane tree
 * spelled out, with fmaf for the lane steps, so that it gives the vector versions' bits. */
#include <math.h>

#include "kernels/conv/bwdf-ukernels.h"

void hd_f32_bwdf_ukernel_dot4x6__scalar(int64_t mk, int64_t mc, int64_t len, const float *dy, int64_t ldy,
                                        const float *x, int64_t ldx, float *dw, int64_t ldw, float alpha, float beta)
{
    for (int64_t i = 0; i < mk; i++)
        for (int64_t j = 0; j < mc; j++) {
            float lane[16] = {0};
            for (int64_t q = 0; q < len; q += 16)
                for (int64_t l = 0; l < 16; l++) {
                    float a = q + l < len ? dy[i * ldy + q + l] : 0.0f, b = q + l < len ? x[j * ldx + q + l] : 0.0f;
                    lane[l] = fmaf(a, b, lane[l]);
                }
            for (int w = 8; w >= 1; w /= 2)
                for (int l = 0; l < w; l++)
                    lane[l] = lane[l] + lane[l + w];
            float v = alpha * lane[0];
            if (beta != 0.0f) {
                float b = beta * dw[i * ldw + j];
                v = v + b;
            }
            dw[i * ldw + j] = v;
        }
}
