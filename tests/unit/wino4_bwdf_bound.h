/*
 * tests/unit/wino4_bwdf_bound.h -- the first-order bound of the Winograd F(4x4,3x3) backward
 * filter (docs/algorithms.md, "Winograd F(4x4, 3x3) backward filter"), for tests whose solver
 * runs that engine on a problem of its own making (test_conv_wino4_split.c: the 3x3 pieces of
 * a 5x5 filter; test_conv_s2d.c: the space-to-depth problem):
 *     |dg - dg_ref| <= (T + 20) u S,   S = |G^T| (sum over tiles of |A||dY||A^T| .* |B^T||d||B|) |G|,
 * over the T 4x4 dy tiles of a group.  Needs math.h, stdlib.h, string.h and wino4_bound.h.
 */
#ifndef HD_TEST_WINO4_BWDF_BOUND_H
#define HD_TEST_WINO4_BWDF_BOUND_H

/* |A| |o| |A^T| of a 4x4 tile (m = 4, AT of wino4_bound.h) or |B^T| |d| |B| of a 6x6 window
 * (m = 6): out[36]. */
static void wbb_abs_tr(const double *d, int m, double out[36])
{
    double t[6][6];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < m; j++) {
            double a = 0;
            for (int k = 0; k < m; k++)
                a += fabs(m == 6 ? BT[i][k] : AT[k][i]) * fabs(d[k * m + j]);
            t[i][j] = a;
        }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double a = 0;
            for (int k = 0; k < m; k++)
                a += t[i][k] * fabs(m == 6 ? BT[j][k] : AT[k][j]);
            out[6 * i + j] = a;
        }
}

/* S of the 3x3 backward filter of group g (G groups) of x (N x C x H x W) with dy (N x K x OH x
 * OW), the 6x6 x windows of dy tile (ty, tj) starting at row 4 ty - ph, column 4 tj - pw
 * (zero outside x): S3[(k * Cg + c) * 9 + 3 r + q] for the group's filters k and channels c,
 * taps as computed (no flip); *T the tiles. */
static void wbb_sum3(int N, int C, int K, int G, int g, int H, int W, int OH, int OW, int ph, int pw, const double *x,
                     const double *dy, double *S3, long *T)
{
    int TH = (OH + 3) / 4, TP = (OW + 3) / 4, Cg = C / G, Kg = K / G;
    *T = (long)N * TH * TP;
    double *vb = malloc(sizeof(double) * 36 * (size_t)Cg), *mb = malloc(sizeof(double) * 36 * (size_t)Kg);
    double *sum = calloc((size_t)Kg * Cg * 36, sizeof(double));
    for (int n = 0; n < N; n++)
        for (int ty = 0; ty < TH; ty++)
            for (int tj = 0; tj < TP; tj++) {
                for (int ci = 0; ci < Cg; ci++) {
                    double d[36];
                    for (int e = 0; e < 36; e++) {
                        int hh = 4 * ty - ph + e / 6, ww = 4 * tj - pw + e % 6;
                        d[e] = hh >= 0 && hh < H && ww >= 0 && ww < W ? x[(((long)n * C + g * Cg + ci) * H + hh) * W + ww]
                                                                        : 0;
                    }
                    wbb_abs_tr(d, 6, vb + 36 * ci);
                }
                for (int k = 0; k < Kg; k++) {
                    double o[16];
                    for (int e = 0; e < 16; e++) {
                        int hh = 4 * ty + e / 4, ww = 4 * tj + e % 4;
                        o[e] = hh < OH && ww < OW ? dy[(((long)n * K + g * Kg + k) * OH + hh) * OW + ww] : 0;
                    }
                    wbb_abs_tr(o, 4, mb + 36 * k);
                }
                for (int k = 0; k < Kg; k++)
                    for (int ci = 0; ci < Cg; ci++)
                        for (int e = 0; e < 36; e++)
                            sum[((long)k * Cg + ci) * 36 + e] += mb[36 * k + e] * vb[36 * ci + e];
            }
    for (int k = 0; k < Kg; k++)
        for (int ci = 0; ci < Cg; ci++)
            for (int e = 0; e < 9; e++) {
                double v = 0;
                for (int i = 0; i < 6; i++)
                    for (int j = 0; j < 6; j++)
                        v += fabs(GM[i][e / 3]) * sum[((long)k * Cg + ci) * 36 + 6 * i + j] * fabs(GM[j][e % 3]);
                S3[((long)k * Cg + ci) * 9 + e] = v;
            }
    free(vb), free(mb), free(sum);
}

#endif
