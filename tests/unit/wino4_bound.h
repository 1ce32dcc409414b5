/*
 * tests/unit/wino4_bound.h -- the first-order error bound of Winograd F(4x4, 3x3) that the
 * F(4x4,3x3) solver tests hold every output element to (test_conv_winograd4.c states it):
 * S = |A^T| (sum_c |G||g_c||G^T| .* |B^T||d_c||B|) |A|, evaluated in double, tile by tile,
 * from the definition of the transforms.
 *
 * Dilated problems are bounded as the solvers compute them: at stride 1 and dilation d, the
 * outputs of phase (a, b) (rows a, a + d, ..., columns b, b + d, ...) are the undilated
 * convolution of the input sub-grid of one residue modulo d, so S is taken per phase over
 * that phase's own 4x4 tiles.  At d = 1 there is one phase and this is the plain tiling.
 * Needs conv_ref.h and math.h.
 */
#ifndef HD_TEST_WINO4_BOUND_H
#define HD_TEST_WINO4_BOUND_H

static const double BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
static const double AT[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
static const double GM[6][3] = {{0.25, 0, 0},
                                {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                {0, 0, 1}};

/* One dimension of output phase a (dilation d, padding pad, input length len): the input
 * sub-grid's first row *first, its rows *rows, and the sub-grid row of the phase's first
 * window, floor((a - pad) / d) (returned). */
static int wb_phase(int a, int d, int pad, int len, int *first, int *rows)
{
    int q = a - pad >= 0 ? (a - pad) / d : -((pad - a + d - 1) / d);
    *first = a - pad - q * d;
    *rows = *first < len ? (len - *first + d - 1) / d : 0;
    return q;
}

/* S for every output element (logical NKHW order).  The filter is taken as the solver
 * applies it: flipped in CONVOLUTION mode. */
static void abs_bound(const conv_ref_shape *s, const double *x, const double *w, double *S)
{
    int H = s->in[1], W = s->in[2], OH = s->out[1], OW = s->out[2], dh = s->dil[1], dw = s->dil[2];
    int Cg = s->C / s->G, Kg = s->K / s->G;
    double *absU = malloc(sizeof(double) * 36 * (size_t)s->K * (size_t)Cg);   /* |G||g||G^T| per (k, c) */
    for (int k = 0; k < s->K; k++)
        for (int c = 0; c < Cg; c++) {
            const double *wk = w + ((long)k * Cg + c) * 9;
            double ga[3][3], t[6][3], *u = absU + ((long)k * Cg + c) * 36;
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++)
                    ga[r][q] = fabs(s->flip ? wk[(2 - r) * 3 + 2 - q] : wk[r * 3 + q]);
            for (int i = 0; i < 6; i++)
                for (int q = 0; q < 3; q++)
                    t[i][q] = fabs(GM[i][0]) * ga[0][q] + fabs(GM[i][1]) * ga[1][q] + fabs(GM[i][2]) * ga[2][q];
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++)
                    u[6 * i + j] = t[i][0] * fabs(GM[j][0]) + t[i][1] * fabs(GM[j][1]) + t[i][2] * fabs(GM[j][2]);
        }
    for (int n = 0; n < s->N; n++)
        for (int k = 0; k < s->K; k++)
            for (int pa = 0; pa < dh && pa < OH; pa++)
                for (int pb = 0; pb < dw && pb < OW; pb++) {
                    int g = k / Kg, fh, Hs, fw, Ws;
                    int qh = wb_phase(pa, dh, s->pad[1], H, &fh, &Hs), qw = wb_phase(pb, dw, s->pad[2], W, &fw, &Ws);
                    int OHs = (OH - pa + dh - 1) / dh, OWs = (OW - pb + dw - 1) / dw;
                    for (int ti = 0; ti < OHs; ti += 4)
                        for (int tj = 0; tj < OWs; tj += 4) {
                            double acc[36] = {0};
                            for (int c = 0; c < Cg; c++) {
                                const double *u = absU + ((long)k * Cg + c) * 36;
                                double d[6][6], v1[6][6], v[6][6];
                                for (int r = 0; r < 6; r++)
                                    for (int q = 0; q < 6; q++) {
                                        int sh = ti + qh + r, sw = tj + qw + q;
                                        int ih = fh + sh * dh, iw = fw + sw * dw;
                                        d[r][q] = sh >= 0 && sh < Hs && sw >= 0 && sw < Ws
                                                      ? fabs(x[(((long)n * s->C + g * Cg + c) * H + ih) * W + iw])
                                                      : 0;
                                    }
                                for (int i = 0; i < 6; i++)
                                    for (int q = 0; q < 6; q++) {
                                        double a = 0;
                                        for (int r = 0; r < 6; r++)
                                            a += fabs(BT[i][r]) * d[r][q];
                                        v1[i][q] = a;
                                    }
                                for (int i = 0; i < 6; i++)
                                    for (int j = 0; j < 6; j++) {
                                        double a = 0;
                                        for (int q = 0; q < 6; q++)
                                            a += v1[i][q] * fabs(BT[j][q]);
                                        v[i][j] = a;
                                    }
                                for (int e = 0; e < 36; e++)
                                    acc[e] += u[e] * v[e / 6][e % 6];
                            }
                            for (int a = 0; a < 4 && ti + a < OHs; a++)
                                for (int b = 0; b < 4 && tj + b < OWs; b++) {
                                    double sum = 0;
                                    for (int p = 0; p < 6; p++)
                                        for (int q = 0; q < 6; q++)
                                            sum += fabs(AT[a][p]) * acc[6 * p + q] * fabs(AT[b][q]);
                                    int oh = pa + (ti + a) * dh, ow = pb + (tj + b) * dw;
                                    S[(((long)n * s->K + k) * OH + oh) * OW + ow] = sum;
                                }
                        }
                }
    free(absU);
}

/* S of backward data, in dx's logical order: the bound of the equivalent forward problem
 * (input dy with K channels, output C channels, padding 2 dil - pad, the same dilation,
 * filter w'(c, k) = w(k, c) rotated by 180 degrees, as applied: CONVOLUTION mode's flip undoes
 * the rotation). */
static void abs_bound_bwdd(const conv_ref_shape *s, const double *dy, const double *w, double *S)
{
    conv_ref_shape f = *s;
    f.C = s->K, f.K = s->C, f.flip = 0;
    for (int i = 1; i < 3; i++) {
        f.in[i] = s->out[i];
        f.out[i] = s->in[i];
        f.pad[i] = 2 * s->dil[i] - s->pad[i];
    }
    int Cg = s->C / s->G, Kg = s->K / s->G;
    double *wf = malloc(sizeof(double) * (size_t)s->C * (size_t)Kg * 9);
    for (int g = 0; g < s->G; g++)
        for (int kk = 0; kk < Kg; kk++)
            for (int c = 0; c < Cg; c++)
                for (int e = 0; e < 9; e++) {
                    int src = s->flip ? e : 8 - e;
                    wf[(((long)(g * Cg + c)) * Kg + kk) * 9 + e] = w[(((long)(g * Kg + kk)) * Cg + c) * 9 + src];
                }
    abs_bound(&f, dy, wf, S);
    free(wf);
}

#endif
