/*
 * RNN cell micro-kernels (kernels/rnn/rnn-ukernels.h): every table the CPU allows against
 * double-precision references of the LSTM and GRU rows (forward and backward) and of tanh, with the accuracy bounds
 * rnn-ukernels.h states (exp-based sigmoid within a few ulp, tanh within 3e-7 absolute), over
 * row lengths with every remainder of the vector width, arguments from tiny to saturating,
 * NaN passed through; the rows write exactly their H elements (guards untouched); slices of a
 * row (the forward rows' N < LD) give the whole row's bits; biases passed to the forward rows
 * give the bits of adding them first, and the LSTM row's c may overwrite cprev; the column sums
 * (bias gradients) and the pairwise add give scalar loops' bits; the AVX-512 rows give the AVX2
 * rows' bits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/rnn/rnn-ukernels.h"

static unsigned rng = 99;
static float rnd(float a)
{
    rng = rng * 1664525u + 1013904223u;
    return ((float)(rng >> 8) / 16777216.0f * 2.0f - 1.0f) * a;
}

static double sg(double v) { return 1.0 / (1.0 + exp(-v)); }

#define GUARD 8
#define GV -12345.0f

/* Worst errors of one table: sigmoid gates relative, tanh-based values absolute. */
static void check_table(const hd_rnn_cell_table *t)
{
    double e_sig = 0, e_tanh = 0, e_c = 0, e_h = 0;
    int guards_ok = 1;
    for (size_t H = 1; H <= 67; H += (H < 20 ? 1 : 11)) {
        for (int scale_i = 0; scale_i < 4; scale_i++) {
            float sc = scale_i == 0 ? 1e-3f : scale_i == 1 ? 1.0f : scale_i == 2 ? 6.0f : 40.0f;
            float *px = malloc(4 * H * sizeof(float)), *pq = malloc(4 * H * sizeof(float));
            float *cp = malloc(H * sizeof(float)), *buf = malloc((6 * H + 3 * GUARD) * sizeof(float));
            for (size_t i = 0; i < 4 * H; i++) { px[i] = rnd(sc); pq[i] = rnd(sc); }
            for (size_t j = 0; j < H; j++) cp[j] = rnd(2.0f);
            for (size_t i = 0; i < 6 * H + 3 * GUARD; i++) buf[i] = GV;
            float *gt = buf, *c = buf + 4 * H + GUARD, *h = c + H + GUARD;
            t->lstm_fwd(H, H, px, NULL, pq, NULL, cp, gt, c, h);
            for (size_t j = 0; j < H; j++) {
                double a[4];
                /* the kernels add the halves in float: the reference starts from that sum */
                for (int g = 0; g < 4; g++) a[g] = (double)(px[g * H + j] + pq[g * H + j]);
                double ig = sg(a[0]), fg = sg(a[1]), gg = tanh(a[2]), og = sg(a[3]);
                double cc = fg * cp[j] + ig * gg;
                e_sig = fmax(e_sig, fabs(gt[j] - ig) / ig);
                e_sig = fmax(e_sig, fabs(gt[H + j] - fg) / fg);
                e_sig = fmax(e_sig, fabs(gt[3 * H + j] - og) / og);
                e_tanh = fmax(e_tanh, fabs(gt[2 * H + j] - gg));
                e_c = fmax(e_c, fabs(c[j] - cc));
                e_h = fmax(e_h, fabs(h[j] - og * tanh((double)c[j])));
            }
            for (int k = 0; k < GUARD; k++)
                if (buf[4 * H + k] != GV || c[H + k] != GV || h[H + k] != GV) guards_ok = 0;
            /* GRU */
            for (size_t i = 0; i < 6 * H + 3 * GUARD; i++) buf[i] = GV;
            float *qn = buf + 3 * H + GUARD, *hg = qn + H + GUARD;
            t->gru_fwd(H, H, px, NULL, pq, NULL, cp, buf, qn, hg);
            for (size_t j = 0; j < H; j++) {
                double rg = sg((double)(px[j] + pq[j])), zg = sg((double)(px[H + j] + pq[H + j]));
                float rq = buf[j] * pq[2 * H + j];
                double ng = tanh((double)(px[2 * H + j] + rq));
                e_sig = fmax(e_sig, fabs(buf[j] - rg) / rg);
                e_sig = fmax(e_sig, fabs(buf[H + j] - zg) / zg);
                e_tanh = fmax(e_tanh, fabs(buf[2 * H + j] - ng));
                if (qn[j] != pq[2 * H + j]) guards_ok = 0;
                e_h = fmax(e_h, fabs(hg[j] - ((1 - (double)buf[H + j]) * buf[2 * H + j] + buf[H + j] * cp[j])));
            }
            for (int k = 0; k < GUARD; k++)
                if (buf[3 * H + k] != GV || qn[H + k] != GV || hg[H + k] != GV) guards_ok = 0;
            free(px); free(pq); free(cp); free(buf);
        }
    }
    /* backward rows against the same formulas in double (from the float inputs) */
    double e_bl = 0, e_bg = 0;
    for (size_t H = 1; H <= 45; H += 4) {
        float *gt = malloc(4 * H * sizeof(float)), *c = malloc(H * sizeof(float)), *cp = malloc(H * sizeof(float));
        float *dh = malloc(H * sizeof(float)), *dc = malloc(H * sizeof(float)), *dc0 = malloc(H * sizeof(float));
        float *gx = malloc(4 * H * sizeof(float)), *gh = malloc(4 * H * sizeof(float)), *dz = malloc(H * sizeof(float));
        for (size_t i = 0; i < 4 * H; i++) gt[i] = 0.5f + rnd(0.49f);
        for (size_t j = 0; j < H; j++) { c[j] = rnd(3.0f); cp[j] = rnd(3.0f); dh[j] = rnd(1.0f); dc0[j] = rnd(1.0f); }
        for (int use_prev = 0; use_prev < 2; use_prev++) {
            memcpy(dc, dc0, H * sizeof(float));
            t->lstm_bwd(H, H, gt, c, use_prev ? cp : NULL, dh, dc, gx, gh);
            for (size_t j = 0; j < H; j++) {
                double ig = gt[j], fg = gt[H + j], gg = gt[2 * H + j], og = gt[3 * H + j], p = use_prev ? cp[j] : 0;
                double tc = tanh((double)c[j]), dcc = dc0[j] + dh[j] * og * (1 - tc * tc);
                double want[4] = { dcc * gg * ig * (1 - ig), dcc * p * fg * (1 - fg), dcc * ig * (1 - gg * gg),
                                   dh[j] * tc * og * (1 - og) };
                for (int g = 0; g < 4; g++) {
                    e_bl = fmax(e_bl, fabs(gx[g * H + j] - want[g]));
                    if (gh[g * H + j] != gx[g * H + j]) guards_ok = 0;
                }
                e_bl = fmax(e_bl, fabs(dc[j] - dcc * fg));
            }
            t->gru_bwd(H, H, gt, c, use_prev ? cp : NULL, dh, gx, gh, dz);
            for (size_t j = 0; j < H; j++) {
                double rg = gt[j], zg = gt[H + j], ng = gt[2 * H + j], p = use_prev ? cp[j] : 0;
                double dan = dh[j] * (1 - zg) * (1 - ng * ng);
                double want[3] = { dan * c[j] * rg * (1 - rg), dh[j] * (p - ng) * zg * (1 - zg), dan };
                for (int g = 0; g < 3; g++) e_bg = fmax(e_bg, fabs(gx[g * H + j] - want[g]));
                e_bg = fmax(e_bg, fabs(gh[2 * H + j] - dan * rg));
                e_bg = fmax(e_bg, fabs(dz[j] - dh[j] * zg));
            }
        }
        free(gt); free(c); free(cp); free(dh); free(dc); free(dc0); free(gx); free(gh); free(dz);
    }
    printf("%s backward rows: LSTM max abs err %.2e, GRU %.2e\n", t->lstm_name, e_bl, e_bg);
    CHECK_MSG(e_bl <= 2e-6 && e_bg <= 2e-6, "%s: backward rows off by %g / %g", t->lstm_name, e_bl, e_bg);

    /* tanh over a sweep, NaN and infinities */
    float xs[1003], ys[1003];
    for (int i = 0; i < 1000; i++) xs[i] = (float)(i - 500) * 0.021f;
    xs[1000] = NAN; xs[1001] = INFINITY; xs[1002] = -INFINITY;
    t->tanh(1003, xs, ys);
    for (int i = 0; i < 1000; i++) e_tanh = fmax(e_tanh, fabs(ys[i] - tanh((double)xs[i])));
    CHECK_MSG(ys[1000] != ys[1000] && ys[1001] == 1.0f && ys[1002] == -1.0f, "%s: tanh of NaN, +-inf", t->lstm_name);
    printf("%s / %s: sigmoid max rel err %.2e, tanh max abs err %.2e, c %.2e, h %.2e\n", t->lstm_name, t->gru_name,
           e_sig, e_tanh, e_c, e_h);
    CHECK_MSG(e_sig <= 4e-7, "%s: sigmoid relative error %g", t->lstm_name, e_sig);
    CHECK_MSG(e_tanh <= 3e-7, "%s: tanh absolute error %g", t->lstm_name, e_tanh);
    CHECK_MSG(e_c <= 2e-6 && e_h <= 1e-6, "%s: cell %g, h %g", t->lstm_name, e_c, e_h);
    CHECK_MSG(guards_ok, "%s: rows write exactly H elements", t->lstm_name);
    /* NaN pre-activations propagate */
    float nx[8] = { NAN, 0, 0, 0, 0, 0, 0, 0 }, z8[8] = { 0 }, g8[8], c1[1], h1[1];
    t->lstm_fwd(1, 1, nx, NULL, z8, NULL, z8, g8, c1, h1);
    CHECK_MSG(g8[0] != g8[0] && h1[0] != h1[0], "%s: NaN propagates", t->lstm_name);
}

/* Slices of a row (N units, gates LD = H apart, the RNN's column blocks) give the whole row's
 * bits and write only their units. */
static void check_slices(const hd_rnn_cell_table *t)
{
    enum { H = 75 };
    float px[4 * H], pq[4 * H], cp[H], g1[4 * H], c1[H], h1[H], g2[4 * H], c2[H], h2[H];
    for (size_t i = 0; i < 4 * H; i++) { px[i] = rnd(3.0f); pq[i] = rnd(3.0f); }
    for (size_t j = 0; j < H; j++) cp[j] = rnd(2.0f);
    size_t cuts[] = { 0, 5, 8, 32, 33, 64, 75 };
    for (int gru = 0; gru < 2; gru++) {
        size_t G = gru ? 3 : 4;
        if (gru)
            t->gru_fwd(H, H, px, NULL, pq, NULL, cp, g1, c1, h1);
        else
            t->lstm_fwd(H, H, px, NULL, pq, NULL, cp, g1, c1, h1);
        for (size_t i = 0; i < 4 * H; i++) g2[i] = GV;
        for (size_t j = 0; j < H; j++) c2[j] = h2[j] = GV;
        for (size_t k = 0; k + 1 < sizeof cuts / sizeof cuts[0]; k++) {
            size_t j0 = cuts[k], n = cuts[k + 1] - j0;
            if (gru)
                t->gru_fwd(n, H, px + j0, NULL, pq + j0, NULL, cp + j0, g2 + j0, c2 + j0, h2 + j0);
            else
                t->lstm_fwd(n, H, px + j0, NULL, pq + j0, NULL, cp + j0, g2 + j0, c2 + j0, h2 + j0);
        }
        int same = memcmp(g1, g2, G * H * sizeof(float)) == 0 && memcmp(c1, c2, sizeof c1) == 0 &&
                   memcmp(h1, h2, sizeof h1) == 0;
        int guard = gru ? g2[3 * H] == GV : 1;
        CHECK_MSG(same && guard, "%s: row slices give the whole row's bits", gru ? t->gru_name : t->lstm_name);
    }
    /* backward rows: the forward gates above (g1 of the GRU), c1 as the cell, cp as c_{t-1} */
    float dh[H], dc1[H], dc2[H], x1[4 * H], q1[4 * H], x2[4 * H], q2[4 * H], z1[H], z2[H];
    for (size_t j = 0; j < H; j++) { dh[j] = rnd(1.0f); dc1[j] = dc2[j] = rnd(1.0f); }
    for (int gru = 0; gru < 2; gru++) {
        size_t G = gru ? 3 : 4;
        if (gru)
            t->gru_bwd(H, H, g1, c1, cp, dh, x1, q1, z1);
        else
            t->lstm_bwd(H, H, g1, c1, cp, dh, dc1, x1, q1);
        for (size_t k = 0; k + 1 < sizeof cuts / sizeof cuts[0]; k++) {
            size_t j0 = cuts[k], n = cuts[k + 1] - j0;
            if (gru)
                t->gru_bwd(n, H, g1 + j0, c1 + j0, cp + j0, dh + j0, x2 + j0, q2 + j0, z2 + j0);
            else
                t->lstm_bwd(n, H, g1 + j0, c1 + j0, cp + j0, dh + j0, dc2 + j0, x2 + j0, q2 + j0);
        }
        int same = memcmp(x1, x2, G * H * sizeof(float)) == 0 && memcmp(q1, q2, G * H * sizeof(float)) == 0 &&
                   (gru ? memcmp(z1, z2, sizeof z1) == 0 : memcmp(dc1, dc2, sizeof dc1) == 0);
        CHECK_MSG(same, "%s: backward row slices give the whole row's bits", gru ? t->gru_name : t->lstm_name);
    }
}

/* Biases passed to the forward rows give the bits of adding them to px and pq first (a
 * separate pass, as the whole-row path does), for whole rows and slices; -0 pre-activations
 * with no bias stay -0 (no + 0 added); the LSTM row updates c in place (C == CPREV) with the
 * bits of a separate c. */
static void check_bias(const hd_rnn_cell_table *t)
{
    enum { H = 75 };
    float px[4 * H], pq[4 * H], bx[4 * H], bq[4 * H], sx[4 * H], sq[4 * H], cp[H];
    float g1[4 * H], c1[H], h1[H], g2[4 * H], c2[H], h2[H];
    for (size_t i = 0; i < 4 * H; i++) {
        px[i] = rnd(3.0f); pq[i] = rnd(3.0f); bx[i] = rnd(1.0f); bq[i] = rnd(1.0f);
        sx[i] = px[i] + bx[i]; sq[i] = pq[i] + bq[i];
    }
    for (size_t j = 0; j < H; j++) cp[j] = rnd(2.0f);
    size_t cuts[] = { 0, 5, 8, 32, 33, 64, 75 };
    for (int gru = 0; gru < 2; gru++) {
        size_t G = gru ? 3 : 4;
        for (int which = 0; which < 3; which++) {   /* both biases, only bx, only bq */
            const float *ux = which == 2 ? px : sx, *uq = which == 1 ? pq : sq;
            const float *vx = which == 2 ? NULL : bx, *vq = which == 1 ? NULL : bq;
            if (gru)
                t->gru_fwd(H, H, ux, NULL, uq, NULL, cp, g1, c1, h1);
            else
                t->lstm_fwd(H, H, ux, NULL, uq, NULL, cp, g1, c1, h1);
            memcpy(c2, cp, sizeof c2);
            for (size_t k = 0; k + 1 < sizeof cuts / sizeof cuts[0]; k++) {
                size_t j0 = cuts[k], n = cuts[k + 1] - j0;
                if (gru)
                    t->gru_fwd(n, H, px + j0, vx ? vx + j0 : NULL, pq + j0, vq ? vq + j0 : NULL, cp + j0, g2 + j0,
                               c2 + j0, h2 + j0);
                else   /* c in place */
                    t->lstm_fwd(n, H, px + j0, vx ? vx + j0 : NULL, pq + j0, vq ? vq + j0 : NULL, c2 + j0, g2 + j0,
                                c2 + j0, h2 + j0);
            }
            int same = memcmp(g1, g2, G * H * sizeof(float)) == 0 && memcmp(c1, c2, sizeof c1) == 0 &&
                       memcmp(h1, h2, sizeof h1) == 0;
            CHECK_MSG(same, "%s: biases in the row give the bits of adding them first (%d)",
                      gru ? t->gru_name : t->lstm_name, which);
        }
    }
    /* -0 + -0 is -0 and -0 + 0 would be +0: with g's halves -0 and cprev -0,
       c = f * -0 + i * tanh(-0) is -0 only if no + 0 was added */
    float mz[4] = { 0.0f, 0.0f, -0.0f, 0.0f }, nz[4] = { 0.0f, 0.0f, -0.0f, 0.0f }, z0[1] = { -0.0f };
    float gz[4], cz[1], hz[1];
    t->lstm_fwd(1, 1, mz, NULL, nz, NULL, z0, gz, cz, hz);
    CHECK_MSG(signbit(gz[2]) && signbit(cz[0]), "%s: no bias adds no + 0", t->lstm_name);
}

/* The column sums give a scalar loop's bits (each column takes the rows in order) over widths
 * with every remainder of the vector widths and of a register block, writing only their N
 * columns; the pairwise add gives a + b (a + 0 for no B: -0 becomes +0), also in place. */
static void check_sums(const hd_rnn_cell_table *t)
{
    enum { NM = 300, RM = 13 };
    static float x[RM * (NM + 5)], a1[NM + GUARD], a2[NM + GUARD], p[NM], q[NM], y1[NM], y2[NM + GUARD];
    int same = 1, guards = 1;
    for (size_t n = 1; n <= NM; n += (n < 40 ? 1 : 37)) {
        size_t rows = 1 + n % RM, lx = n + n % 5;
        for (size_t i = 0; i < rows * lx; i++) x[i] = rnd(n % 3 == 0 ? 1e4f : 1.0f);
        for (size_t j = 0; j < n + GUARD; j++) a1[j] = a2[j] = j < n ? rnd(1.0f) : GV;
        for (size_t r = 0; r < rows; r++)
            for (size_t j = 0; j < n; j++)
                a1[j] += x[r * lx + j];
        t->colsum(rows, n, x, lx, a2);
        same &= !memcmp(a1, a2, n * sizeof(float));
        for (int k = 0; k < GUARD; k++) guards &= a2[n + k] == GV;
        for (size_t i = 0; i < n; i++) { p[i] = rnd(2.0f); q[i] = rnd(2.0f); }
        p[0] = -0.0f;
        for (int nb = 0; nb < 2; nb++) {
            for (size_t i = 0; i < n; i++) y1[i] = p[i] + (nb ? 0.0f : q[i]);
            for (size_t i = 0; i < n + GUARD; i++) y2[i] = GV;
            t->add(n, p, nb ? NULL : q, y2);
            same &= !memcmp(y1, y2, n * sizeof(float));
            for (int k = 0; k < GUARD; k++) guards &= y2[n + k] == GV;
            memcpy(y2, p, n * sizeof(float));
            t->add(n, y2, nb ? NULL : q, y2);   /* in place */
            same &= !memcmp(y1, y2, n * sizeof(float));
        }
    }
    CHECK_MSG(same, "%s: column sums and adds give the scalar loops' bits", t->lstm_name);
    CHECK_MSG(guards, "%s: column sums and adds write exactly N elements", t->lstm_name);
}

/* Two tables that promise the same bits (AVX-512 and AVX2: the same operations per lane) give
 * them for every output, over row lengths with every remainder of both widths and arguments
 * from tiny to saturating, NaN and infinities included. */
static void check_same_bits(const hd_rnn_cell_table *a, const hd_rnn_cell_table *b)
{
    enum { HM = 70 };
    int same = 1;
    for (size_t H = 1; H <= HM; H++) {
        float px[4 * HM], pq[4 * HM], cp[HM], dh[HM], g[2][4 * HM], c[2][HM], h[2][HM], x[2][4 * HM], q[2][4 * HM];
        float dc[2][HM], z[2][HM];
        float sc = H % 4 == 0 ? 1e-3f : H % 4 == 1 ? 1.0f : H % 4 == 2 ? 8.0f : 60.0f;
        for (size_t i = 0; i < 4 * H; i++) { px[i] = rnd(sc); pq[i] = rnd(sc); }
        for (size_t j = 0; j < H; j++) { cp[j] = rnd(2.0f); dh[j] = rnd(1.0f); dc[0][j] = dc[1][j] = rnd(1.0f); }
        if (H == 7) { px[0] = NAN; pq[H + 1] = INFINITY; px[2 * H + 2] = -INFINITY; }
        for (int k = 0; k < 2; k++) {
            const hd_rnn_cell_table *t = k ? b : a;
            t->lstm_fwd(H, H, px, NULL, pq, NULL, cp, g[k], c[k], h[k]);
            t->lstm_bwd(H, H, g[k], c[k], cp, dh, dc[k], x[k], q[k]);
        }
        same &= !memcmp(g[0], g[1], 4 * H * sizeof(float)) && !memcmp(c[0], c[1], H * sizeof(float)) &&
                !memcmp(h[0], h[1], H * sizeof(float)) && !memcmp(x[0], x[1], 4 * H * sizeof(float)) &&
                !memcmp(q[0], q[1], 4 * H * sizeof(float)) && !memcmp(dc[0], dc[1], H * sizeof(float));
        for (int k = 0; k < 2; k++) {
            const hd_rnn_cell_table *t = k ? b : a;
            t->gru_fwd(H, H, px, NULL, pq, NULL, cp, g[k], c[k], h[k]);
            t->gru_bwd(H, H, g[k], c[k], H % 2 ? cp : NULL, dh, x[k], q[k], z[k]);
            t->tanh(H, px, dc[k]);
        }
        same &= !memcmp(g[0], g[1], 3 * H * sizeof(float)) && !memcmp(c[0], c[1], H * sizeof(float)) &&
                !memcmp(h[0], h[1], H * sizeof(float)) && !memcmp(x[0], x[1], 3 * H * sizeof(float)) &&
                !memcmp(q[0], q[1], 3 * H * sizeof(float)) && !memcmp(z[0], z[1], H * sizeof(float)) &&
                !memcmp(dc[0], dc[1], H * sizeof(float));
    }
    CHECK_MSG(same, "%s gives the bits of %s", a->lstm_name, b->lstm_name);
}

int main(void)
{
    check_slices(&hd_f32_rnn_cell_ukernels__scalar);
    if (hd_cpu_isa() >= HD_ISA_AVX2)
        check_slices(&hd_f32_rnn_cell_ukernels__avx2);
    if (hd_cpu_isa() >= HD_ISA_AVX512)
        check_slices(&hd_f32_rnn_cell_ukernels__avx512);
    check_bias(&hd_f32_rnn_cell_ukernels__scalar);
    check_sums(&hd_f32_rnn_cell_ukernels__scalar);
    if (hd_cpu_isa() >= HD_ISA_AVX2)
        check_sums(&hd_f32_rnn_cell_ukernels__avx2);
    if (hd_cpu_isa() >= HD_ISA_AVX512)
        check_sums(&hd_f32_rnn_cell_ukernels__avx512);
    if (hd_cpu_isa() >= HD_ISA_AVX2)
        check_bias(&hd_f32_rnn_cell_ukernels__avx2);
    if (hd_cpu_isa() >= HD_ISA_AVX512)
        check_bias(&hd_f32_rnn_cell_ukernels__avx512);
    check_table(&hd_f32_rnn_cell_ukernels__scalar);
    if (hd_cpu_isa() >= HD_ISA_AVX2)
        check_table(&hd_f32_rnn_cell_ukernels__avx2);
    else
        SKIP("no AVX2 on this CPU: the AVX2 cell rows are not tested");
    if (hd_cpu_isa() >= HD_ISA_AVX512) {
        check_table(&hd_f32_rnn_cell_ukernels__avx512);
        check_same_bits(&hd_f32_rnn_cell_ukernels__avx512, &hd_f32_rnn_cell_ukernels__avx2);
        CHECK(hd_rnn_cell_kernels(HD_ISA_AVX512) == &hd_f32_rnn_cell_ukernels__avx512);
    } else {
        SKIP("no AVX-512 on this CPU: the AVX-512 cell rows are not tested");
    }
    if (hd_cpu_isa() >= HD_ISA_AVX2)
        CHECK(hd_rnn_cell_kernels(HD_ISA_AVX2) == &hd_f32_rnn_cell_ukernels__avx2);
    CHECK(hd_rnn_cell_kernels(HD_ISA_SCALAR) == &hd_f32_rnn_cell_ukernels__scalar);
    return hd_test_finish();
}
