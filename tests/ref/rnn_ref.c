/* float64 RNN forward reference: see rnn_ref.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/rnn_ref.h"

static double sig(double v) { return 1.0 / (1.0 + exp(-v)); }

/* out[rows] = M[rows x cols] * v  (+= when acc) */
static void matvec(const double *M, int rows, int cols, const double *v, double *out)
{
    for (int i = 0; i < rows; i++) {
        double s = 0;
        for (int k = 0; k < cols; k++)
            s += M[(size_t)i * cols + k] * v[k];
        out[i] = s;
    }
}

void rnn_ref_forward(const rnn_ref_cfg *c, int T, int B, const int *len, const double *x, const double *hx,
                     const double *cx, double *y, double *hy, double *cy)
{
    const int H = c->hid, P = c->proj, D = c->dirs;
    const int G = c->cell == RREF_LSTM ? 4 : c->cell == RREF_GRU ? 3 : 1;
    int maxw = c->in > D * P ? c->in : D * P;
    double *seq_in = calloc((size_t)T * maxw, sizeof(double));
    double *seq_out = calloc((size_t)T * D * P, sizeof(double));
    double *wx = malloc((size_t)G * H * sizeof(double));
    double *rh = malloc((size_t)G * H * sizeof(double));
    double *h = malloc((size_t)(H > P ? H : P) * sizeof(double));
    double *hfull = malloc((size_t)H * sizeof(double));
    double *cst = malloc((size_t)H * sizeof(double));
    for (int b = 0; b < B; b++) {
        int n = len[b];
        int w = c->in;
        for (int t = 0; t < n; t++)
            memcpy(seq_in + (size_t)t * w, x + ((size_t)b * T + t) * c->in, (size_t)c->in * sizeof(double));
        for (int l = 0; l < c->layers; l++) {
            for (int d = 0; d < D; d++) {
                int pl = l * D + d;
                for (int j = 0; j < P; j++)
                    h[j] = hx ? hx[((size_t)pl * B + b) * P + j] : 0.0;
                for (int j = 0; j < H; j++)
                    cst[j] = cx ? cx[((size_t)pl * B + b) * H + j] : 0.0;
                for (int s = 0; s < n; s++) {
                    int t = d == 0 ? s : n - 1 - s;
                    const double *xt = seq_in + (size_t)t * w;
                    for (int g = 0; g < G; g++) {
                        if (c->mat[pl][g])
                            matvec(c->mat[pl][g], H, w, xt, wx + g * H);
                        else
                            for (int j = 0; j < H; j++) wx[g * H + j] = xt[j];
                        matvec(c->mat[pl][G + g], H, P, h, rh + g * H);
                        for (int j = 0; j < H; j++) {
                            if (c->bias[pl][g]) wx[g * H + j] += c->bias[pl][g][j];
                            if (c->bias[pl][G + g]) rh[g * H + j] += c->bias[pl][G + g][j];
                        }
                    }
                    for (int j = 0; j < H; j++) {
                        double v;
                        switch (c->cell) {
                        case RREF_RELU: v = wx[j] + rh[j]; hfull[j] = v > 0 ? v : 0; break;
                        case RREF_TANH: hfull[j] = tanh(wx[j] + rh[j]); break;
                        case RREF_LSTM: {
                            double i = sig(wx[j] + rh[j]), f = sig(wx[H + j] + rh[H + j]);
                            double g = tanh(wx[2 * H + j] + rh[2 * H + j]), o = sig(wx[3 * H + j] + rh[3 * H + j]);
                            double cn = f * cst[j] + i * g;
                            if (c->clip) cn = cn < c->lclip ? c->lclip : cn > c->rclip ? c->rclip : cn;
                            cst[j] = cn;
                            hfull[j] = o * tanh(cn);
                            break;
                        }
                        default: {
                            double r = sig(wx[j] + rh[j]), z = sig(wx[H + j] + rh[H + j]);
                            double nn = tanh(wx[2 * H + j] + r * rh[2 * H + j]);
                            hfull[j] = (1 - z) * nn + z * h[j];
                            break;
                        }
                        }
                    }
                    if (P < H && c->mat[pl][2 * G])
                        matvec(c->mat[pl][2 * G], P, H, hfull, h);
                    else
                        memcpy(h, hfull, (size_t)H * sizeof(double));
                    memcpy(seq_out + (size_t)t * D * P + (size_t)d * P, h, (size_t)P * sizeof(double));
                }
                if (hy)
                    memcpy(hy + ((size_t)pl * B + b) * P, h, (size_t)P * sizeof(double));
                if (cy && c->cell == RREF_LSTM)
                    memcpy(cy + ((size_t)pl * B + b) * H, cst, (size_t)H * sizeof(double));
            }
            w = D * P;
            memcpy(seq_in, seq_out, (size_t)T * D * P * sizeof(double));
        }
        for (int t = 0; t < n; t++)
            memcpy(y + ((size_t)b * T + t) * D * P, seq_out + (size_t)t * D * P, (size_t)D * P * sizeof(double));
    }
    free(seq_in); free(seq_out); free(wx); free(rh); free(h); free(hfull); free(cst);
}
