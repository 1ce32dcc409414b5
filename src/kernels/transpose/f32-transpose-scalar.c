/* kernels/transpose/f32-transpose-scalar.c -- the portable reference tile. */
#include "kernels/transpose/transpose-ukernels.h"

void hd_f32_transpose_ukernel__scalar(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo,
                                      float alpha, float beta)
{
    if (alpha == 1.0f && beta == 0.0f) {     /* a pure copy: no multiply (keeps every bit) */
        for (int64_t j = 0; j < c; j++)
            for (int64_t i = 0; i < r; i++)
                out[j * ldo + i] = in[i * ldi + j];
        return;
    }
    for (int64_t j = 0; j < c; j++)
        for (int64_t i = 0; i < r; i++) {
            float v = alpha * in[i * ldi + j];
            out[j * ldo + i] = beta != 0.0f ? v + beta * out[j * ldo + i] : v;
        }
}
