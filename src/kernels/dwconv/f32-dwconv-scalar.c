/* Depthwise convolution micro-kernels, scalar reference (see dwconv-ukernels.h).  The vector variants
 * are tested against these. */
#include "kernels/dwconv/dwconv-ukernels.h"

void hd_f32_dwconv_ukernel_row__scalar(const hd_dw_row_args *a)
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

void hd_f32_dwconv_ukernel_wrow__scalar(const hd_dw_wrow_args *a)
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

void hd_f32_dwconv_ukernel_brow__scalar(const hd_dw_brow_args *a)
{
    for (size_t o = 0; o < a->n; o++) {
        float *out = a->out + (int64_t)o * a->ops;
        for (unsigned l = 0; l < 16; l++) {
            if (!(a->mask >> l & 1u))
                continue;
            float acc = 0.0f;
            for (size_t i = 0; i < a->nr; i++)
                for (size_t s = 0; s < a->S; s++)
                    acc += a->w[i][16 * s + l] * a->rows[i][a->ips * (int64_t)(o * a->cs + s * a->cd) + l];
            out[l] = a->beta == 0.0f ? a->alpha * acc : a->alpha * acc + a->beta * out[l];
        }
    }
}

void hd_f32_dwconv_ukernel_bwrow__scalar(const hd_dw_bwrow_args *a)
{
    for (size_t i = 0; i < a->nr; i++)
        for (size_t s = 0; s < a->S; s++)
            for (unsigned l = 0; l < 16; l++) {
                float acc = a->acc[i][16 * s + l];
                for (size_t o = 0; o < a->n; o++)
                    acc += a->dy[a->dps * (int64_t)o + l] * a->rows[i][a->ips * (int64_t)(o * a->cs + s * a->cd) + l];
                a->acc[i][16 * s + l] = acc;
            }
}

void hd_f32_dwconv_ukernel_gather__scalar(float *dst, int64_t dbs, const float *src, size_t n, int64_t cstr,
                                          int64_t pstr, size_t nc, const float *end)
{
    (void)end;
    for (size_t b = 0; b * 16 < nc; b++)
        for (size_t i = 0; i < n; i++)
            for (size_t l = 0; l < 16; l++) {
                size_t c = 16 * b + l;
                dst[(int64_t)b * dbs + (int64_t)(16 * i + l)] = c < nc ? src[(int64_t)c * cstr + (int64_t)i * pstr] : 0.0f;
            }
}

void hd_f32_dwconv_ukernel_scatter__scalar(float *dst, int64_t cstr, int64_t pstr, const float *src, size_t n,
                                           size_t nl, float alpha, float beta)
{
    for (size_t l = 0; l < nl; l++)
        for (size_t i = 0; i < n; i++) {
            float *d = dst + (int64_t)l * cstr + (int64_t)i * pstr;
            *d = beta == 0.0f ? alpha * src[16 * i + l] : alpha * src[16 * i + l] + beta * *d;
        }
}
