/* kernels/rnn/f32-rnn-cell-scalar.c -- the reference RNN cell rows (rnn-ukernels.h) with the C
 * library's expf and tanhf: the arithmetic the engine's generic loop does. */
#include <math.h>

#include "kernels/rnn/rnn-ukernels.h"

static float sigm(float v) { return 1.0f / (1.0f + expf(-v)); }

/* A pre-activation with its optional bias (rnn-ukernels.h): p[i] + b[i], or p[i] alone. */
static float pre(const float *p, const float *b, size_t i) { return b ? p[i] + b[i] : p[i]; }

static void lstm_fwd(size_t N, size_t H, const float *px, const float *bx, const float *pq, const float *bq,
                     const float *cprev, float *gt, float *c, float *h)
{
    for (size_t j = 0; j < N; j++) {
        float ig = sigm(pre(px, bx, j) + pre(pq, bq, j));
        float fg = sigm(pre(px, bx, H + j) + pre(pq, bq, H + j));
        float gg = tanhf(pre(px, bx, 2 * H + j) + pre(pq, bq, 2 * H + j));
        float og = sigm(pre(px, bx, 3 * H + j) + pre(pq, bq, 3 * H + j));
        float cc = fg * cprev[j] + ig * gg;
        gt[j] = ig; gt[H + j] = fg; gt[2 * H + j] = gg; gt[3 * H + j] = og;
        c[j] = cc;
        h[j] = og * tanhf(cc);
    }
}

static void gru_fwd(size_t N, size_t H, const float *px, const float *bx, const float *pq, const float *bq,
                    const float *hprev, float *gt, float *qn, float *h)
{
    for (size_t j = 0; j < N; j++) {
        float rg = sigm(pre(px, bx, j) + pre(pq, bq, j));
        float zg = sigm(pre(px, bx, H + j) + pre(pq, bq, H + j));
        float q = pre(pq, bq, 2 * H + j);
        float ng = tanhf(pre(px, bx, 2 * H + j) + rg * q);
        gt[j] = rg; gt[H + j] = zg; gt[2 * H + j] = ng;
        qn[j] = q;
        h[j] = (1.0f - zg) * ng + zg * hprev[j];
    }
}

static void tanh_n(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++)
        y[i] = tanhf(x[i]);
}

static void lstm_bwd(size_t N, size_t H, const float *gt, const float *c, const float *cprev, const float *dh, float *dc,
                     float *gx, float *gh)
{
    for (size_t j = 0; j < N; j++) {
        float ig = gt[j], fg = gt[H + j], gg = gt[2 * H + j], og = gt[3 * H + j];
        float cp = cprev ? cprev[j] : 0.0f, tc = tanhf(c[j]);
        float dcc = dc[j] + dh[j] * og * (1.0f - tc * tc);
        float di = dcc * gg, df = dcc * cp, dg = dcc * ig, dO = dh[j] * tc;
        gx[j] = gh[j] = di * ig * (1.0f - ig);
        gx[H + j] = gh[H + j] = df * fg * (1.0f - fg);
        gx[2 * H + j] = gh[2 * H + j] = dg * (1.0f - gg * gg);
        gx[3 * H + j] = gh[3 * H + j] = dO * og * (1.0f - og);
        dc[j] = dcc * fg;
    }
}

static void gru_bwd(size_t N, size_t H, const float *gt, const float *qn, const float *hprev, const float *dh, float *gx,
                    float *gh, float *dz)
{
    for (size_t j = 0; j < N; j++) {
        float rg = gt[j], zg = gt[H + j], ng = gt[2 * H + j], hp = hprev ? hprev[j] : 0.0f;
        float dn = dh[j] * (1.0f - zg), dzz = dh[j] * (hp - ng);
        float dan = dn * (1.0f - ng * ng);
        float dar = dan * qn[j] * rg * (1.0f - rg);
        float daz = dzz * zg * (1.0f - zg);
        gx[j] = gh[j] = dar;
        gx[H + j] = gh[H + j] = daz;
        gx[2 * H + j] = dan;
        gh[2 * H + j] = dan * rg;
        dz[j] = dh[j] * zg;
    }
}

static void colsum(size_t rows, size_t n, const float *x, size_t ld, float *acc)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < n; j++)
            acc[j] += x[r * ld + j];
}

static void add(size_t n, const float *a, const float *b, float *y)
{
    for (size_t i = 0; i < n; i++)
        y[i] = a[i] + (b ? b[i] : 0.0f);
}

const hd_rnn_cell_table hd_f32_rnn_cell_ukernels__scalar = {
    "f32-lstm-1-scalar", "f32-gru-1-scalar", lstm_fwd, gru_fwd, tanh_n, lstm_bwd, gru_bwd, colsum, add,
};
