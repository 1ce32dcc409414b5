/*
 * f32-wino4-scalar.c -- the portable Winograd F(4x4, 3x3) tile transforms (contract in
 * conv_wino4.h): one tile at a time, the reference the vector kernels are tested against.
 */
#include "kernels/wino4/wino4-ukernels.h"

#include <math.h>

typedef float W4;
static inline W4 w4_add(W4 a, W4 b) { return a + b; }
static inline W4 w4_sub(W4 a, W4 b) { return a - b; }
static inline W4 w4_mulc(W4 a, float c) { return a * c; }
typedef double W4D;
static inline W4D w4d_add(W4D a, W4D b) { return a + b; }
static inline W4D w4d_sub(W4D a, W4D b) { return a - b; }
static inline W4D w4d_mulc(W4D a, double c) { return a * c; }
#include "kernels/wino4/wino4-transform.inc"

void hd_f32_wino4_ukernel_filter__scalar(const float *w, int64_t ks, int64_t cs, const int64_t tap[9], int nk,
                                         int64_t nc, float *u, size_t pos_stride, size_t c_stride)
{
    for (int64_t c = 0; c < nc; c++)
        for (int i = 0; i < nk; i++) {
            const float *wi = w + i * ks + c * cs;
            W4D gd[9], ud[36];
            for (int e = 0; e < 9; e++)
                gd[e] = wi[tap[e]];
            w4_filter_2d(gd, ud);
            for (int pos = 0; pos < 36; pos++)
                u[pos * pos_stride + (size_t)c * c_stride + (size_t)i] = (float)ud[pos];
        }
}

void hd_f32_wino4_ukernel_in__scalar(const float *x, int64_t cs, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                     size_t pos_stride, size_t c_stride)
{
    for (int64_t c = 0; c < nc; c++) {
        const float *xc = x + c * cs;
        float *dc = dst + (size_t)c * c_stride;
        for (int i = 0; i < t->lanes; i++) {
            W4 d[36], v[36];
            for (int r = 0; r < 6; r++)
                for (int s = 0; s < 6; s++) {
                    int in = (t->rmask[i] >> r & 1) && (t->cmask[i] >> s & 1);
                    d[6 * r + s] = in ? xc[(int64_t)t->off[i] + (int64_t)r * t->hs + (int64_t)s * t->ws] : 0.0f;
                }
            w4_in_2d(d, v);
            for (int pos = 0; pos < 36; pos++)
                dc[pos * pos_stride + (size_t)i] = v[pos];
        }
    }
}

void hd_f32_wino4_ukernel_out__scalar(const float *m, size_t pos_stride, size_t k_stride, int64_t nk,
                                      const hd_wino4_out_tiles *t, float *y, int64_t ks, float alpha, float beta,
                                      float *raw)
{
    for (int64_t k = 0; k < nk; k++) {
        const float *mk = m + (size_t)k * k_stride;
        for (int i = 0; i < t->lanes; i++) {
            W4 v[36], o[16];
            for (int pos = 0; pos < 36; pos++)
                v[pos] = mk[pos * pos_stride + (size_t)i];
            w4_out_2d(v, o);
            if (!y) {
                for (int e = 0; e < 16; e++)
                    raw[(k * HD_WINO4_LANES + i) * 16 + e] = o[e];
                continue;
            }
            float *yt = y + k * ks + t->off[i];
            for (int a = 0; a < t->nrow[i]; a++)
                for (int b = 0; b < t->ncol[i]; b++) {
                    float *q = yt + a * t->hs + b * t->ws;
                    float r = alpha * o[4 * a + b];
                    if (beta != 0.0f) {
                        float u = beta * *q;   /* separate statements: never fused */
                        r = r + u;
                    }
                    *q = r;
                }
        }
    }
}

/* ---- the channels-contiguous form: the same per-element computation ---- */

void hd_f32_wino4_ukernel_in_c__scalar(const float *x, int64_t nc, const hd_wino4_in_tiles *t, float *dst,
                                       size_t pos_stride, size_t t_stride)
{
    for (int i = 0; i < t->lanes; i++)
        for (int64_t c = 0; c < nc; c++) {
            W4 d[36], v[36];
            for (int r = 0; r < 6; r++)
                for (int s = 0; s < 6; s++) {
                    int in = (t->rmask[i] >> r & 1) && (t->cmask[i] >> s & 1);
                    d[6 * r + s] = in ? x[(int64_t)t->off[i] + (int64_t)r * t->hs + (int64_t)s * t->ws + c] : 0.0f;
                }
            w4_in_2d(d, v);
            for (int pos = 0; pos < 36; pos++)
                dst[(size_t)i * t_stride + pos * pos_stride + (size_t)c] = v[pos];
        }
}

void hd_f32_wino4_ukernel_out_c__scalar(const float *m, size_t pos_stride, size_t t_stride, int64_t nk,
                                        const hd_wino4_out_tiles *t, float *y, float alpha, float beta, float *raw)
{
    for (int i = 0; i < t->lanes; i++)
        for (int64_t k = 0; k < nk; k++) {
            W4 v[36], o[16];
            for (int pos = 0; pos < 36; pos++)
                v[pos] = m[(size_t)i * t_stride + pos * pos_stride + (size_t)k];
            w4_out_2d(v, o);
            if (!y) {
                for (int e = 0; e < 16; e++)
                    raw[(16 * i + e) * nk + k] = o[e];
                continue;
            }
            for (int a = 0; a < t->nrow[i]; a++)
                for (int b = 0; b < t->ncol[i]; b++) {
                    float *q = y + t->off[i] + a * t->hs + b * t->ws + k;
                    float r = alpha * o[4 * a + b];
                    if (beta != 0.0f) {
                        float u = beta * *q;   /* separate statements: never fused */
                        r = r + u;
                    }
                    *q = r;
                }
        }
}

void hd_f32_wino4_ukernel_dy_c__scalar(const float *y, int64_t nk, const hd_wino4_in_tiles *t, float *dst,
                                       size_t pos_stride, size_t t_stride)
{
    for (int i = 0; i < t->lanes; i++)
        for (int64_t k = 0; k < nk; k++) {
            W4 o[16], m[36];
            for (int r = 0; r < 4; r++)
                for (int s = 0; s < 4; s++) {
                    int in = (t->rmask[i] >> r & 1) && (t->cmask[i] >> s & 1);
                    o[4 * r + s] = in ? y[(int64_t)t->off[i] + (int64_t)r * t->hs + (int64_t)s * t->ws + k] : 0.0f;
                }
            w4_grad_2d(o, m);
            for (int pos = 0; pos < 36; pos++)
                dst[(size_t)i * t_stride + pos * pos_stride + (size_t)k] = m[pos];
        }
}
