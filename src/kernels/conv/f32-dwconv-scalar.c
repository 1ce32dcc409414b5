/* Depthwise convolution micro-kernels, scalar reference (see dwconv.h).  The vector variants
 * are tested against these. */
#include "kernels/conv/dwconv.h"

void hd_f32_dw_row__scalar(const hd_dw_row_args *a)
{
    for (size_t o = 0; o < a->n; o++) {
        float acc = 0.0f;
        for (size_t i = 0; i < a->nr; i++) {
            const float *r = a->rows[i] + o * a->cs, *w = a->w[i];
            for (size_t s = 0; s < a->S; s++)
                acc += w[s] * r[s * a->cd];
        }
        a->out[o] = a->beta == 0.0f ? a->alpha * acc : a->alpha * acc + a->beta * a->out[o];
    }
}

void hd_f32_dw_wrow__scalar(const hd_dw_wrow_args *a)
{
    for (size_t i = 0; i < a->nr; i++) {
        float *acc = a->acc[i];
        for (size_t s = 0; s < a->S; s++) {
            const float *r = a->rows[i] + s * a->cd;
            float *l = acc + s * HD_DW_LANES;
            for (size_t o = 0; o < a->n; o++)
                l[o % HD_DW_LANES] += a->dy[o] * r[o * a->cs];
        }
    }
}

void hd_f32_dw_px__scalar(const hd_dw_px_args *a)
{
    for (size_t o = 0; o < a->n; o++) {
        float *out = a->out + (int64_t)o * a->ops;
        for (size_t c = 0; c < a->C; c++) {
            const float *w = a->w + (c / 16) * a->RS * 16 + c % 16;
            float acc = 0.0f;
            for (size_t i = 0; i < a->nr; i++)
                for (size_t s = 0; s < a->S; s++) {
                    int64_t q = hd_dw_src((int64_t)o, (int64_t)s, a->cs, a->pad, a->cd, a->up, a->W);
                    if (q >= 0)
                        acc += w[(a->rtap[i] * a->S + s) * 16] * a->rows[i][q * a->ips + (int64_t)c];
                }
            out[c] = a->beta == 0.0f ? a->alpha * acc : a->alpha * acc + a->beta * out[c];
        }
    }
}

void hd_f32_dw_pxw__scalar(const hd_dw_pxw_args *a)
{
    for (size_t c = 0; c < a->C; c++) {
        float *acc = a->acc + (c / 16) * a->RS * 16 + c % 16;
        for (size_t i = 0; i < a->nr; i++)
            for (size_t s = 0; s < a->S; s++) {
                float *t = acc + (a->rtap[i] * a->S + s) * 16;
                for (size_t o = 0; o < a->n; o++) {
                    int64_t q = hd_dw_src((int64_t)o, (int64_t)s, a->cs, a->pad, a->cd, 1, a->W);
                    if (q >= 0)
                        *t += a->dy[(int64_t)o * a->dps + (int64_t)c] * a->rows[i][q * a->ips + (int64_t)c];
                }
            }
    }
}
