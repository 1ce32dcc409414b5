/*
 * The Winograd F(4x4, 3x3) tile transform kernels (src/conv/solvers/conv_wino4.h) on their
 * own.  The scalar kernels are checked against the transform matrices evaluated in double
 * (input and output: within a few float roundings; filter: within one rounding), and every
 * vector kernel the CPU (or HOSTDNN_MAX_ISA) allows must give bitwise the scalar results:
 * all lane counts, masks cutting rows and columns, contiguous and strided columns, partial
 * output tiles, alpha/beta with beta == 0 over NaN, the raw output mode, and guard values
 * around every destination that must stay untouched.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/wino4/wino4-ukernels.h"

static uint32_t rng = 4242u;
static float rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)((rng >> 8) & 0xFFFF) / 32768.0f - 1.0f; /* [-1, 1) */
}
static unsigned rnd_u(unsigned n)
{
    rng = rng * 1664525u + 1013904223u;
    return (rng >> 8) % n;
}

#define GUARD 3.75f

static const double BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
static const double AT[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
static const double GM[6][3] = {{0.25, 0, 0},
                                {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                {0, 0, 1}};

/* ---- input ---- */

#define XH 20
#define XW 23
#define XC 3

/* Random tiles over a 20 x 23 x 3 image with strides (hs, ws, cs). */
static void make_in_tiles(hd_wino4_in_tiles *t, int lanes, int hs, int ws)
{
    memset(t, 0, sizeof *t);
    t->lanes = lanes, t->hs = hs, t->ws = ws;
    for (int i = 0; i < lanes; i++) {
        int h0 = (int)rnd_u(XH + 4) - 2, w0 = (int)rnd_u(XW + 4) - 2;
        unsigned rm = 0, cm = 0;
        for (int j = 0; j < 6; j++) {
            rm |= (unsigned)(h0 + j >= 0 && h0 + j < XH) << j;
            cm |= (unsigned)(w0 + j >= 0 && w0 + j < XW) << j;
        }
        if (rnd_u(8) == 0)
            rm = 0;                               /* an empty (padding) lane */
        t->off[i] = h0 * hs + w0 * ws;
        t->rmask[i] = (uint8_t)rm, t->cmask[i] = (uint8_t)cm;
    }
}

static void check_in(const hd_wino4_kernels *ref, const hd_wino4_kernels *k, float *x, int64_t cs, int hs, int ws)
{
    enum { PS = 40, CSD = 17 };                   /* destination strides with gaps */
    static float d0[36 * PS * XC], d1[36 * PS * XC];
    for (int lanes = 1; lanes <= k->width; lanes++) {
        hd_wino4_in_tiles t;
        make_in_tiles(&t, lanes, hs, ws);
        for (int i = 0; i < 36 * PS * XC; i++)
            d0[i] = d1[i] = GUARD;
        /* pos stride PS >= XC * CSD: channel rows of one position do not overlap */
        ref->in(x, cs, XC, &t, d0, PS * XC, CSD);
        k->in(x, cs, XC, &t, d1, PS * XC, CSD);
        CHECK_MSG(!memcmp(d0, d1, sizeof d0), "%s in: lanes %d hs %d ws %d differ from scalar", k->name, lanes, hs, ws);
        if (k == ref) {                            /* the scalar one against the matrices */
            double worst = 0;
            for (int i = 0; i < lanes; i++)
                for (int c = 0; c < XC; c++) {
                    double d[6][6];
                    for (int r = 0; r < 6; r++)
                        for (int s = 0; s < 6; s++) {
                            int in = (t.rmask[i] >> r & 1) && (t.cmask[i] >> s & 1);
                            d[r][s] = in ? x[c * cs + t.off[i] + r * hs + s * ws] : 0;
                        }
                    for (int a = 0; a < 6; a++)
                        for (int b = 0; b < 6; b++) {
                            double v = 0, mag = 0;
                            for (int r = 0; r < 6; r++)
                                for (int s = 0; s < 6; s++) {
                                    v += BT[a][r] * d[r][s] * BT[b][s];
                                    mag += fabs(BT[a][r] * d[r][s] * BT[b][s]);
                                }
                            double got = d0[(6 * a + b) * PS * XC + c * CSD + i];
                            double e = fabs(got - v) / (mag > 0 ? mag : 1);
                            worst = e > worst ? e : worst;
                        }
                }
            CHECK_MSG(worst <= 6.1 * 0x1p-24, "scalar input transform: error %g of the absolute sum", worst);
        }
    }
}

/* ---- output ---- */

static void check_out(const hd_wino4_kernels *ref, const hd_wino4_kernels *k, int ws, float alpha, float beta)
{
    enum { NK = 3, PS = 3 * 40, KS = 40, YH = 14, YW = 13, YC = NK };
    static float m[36 * PS], y0[YC * YH * YW * 2], y1[YC * YH * YW * 2];
    static float raw0[NK * HD_WINO4_LANES * 16], raw1[NK * HD_WINO4_LANES * 16];
    for (int i = 0; i < 36 * PS; i++)
        m[i] = rnd();
    int hs = ws == 1 ? YW : YW * ws;               /* ws > 1: channels interleaved (NHWC-like) */
    int64_t ks = ws == 1 ? YH * YW : 1;
    for (int lanes = 1; lanes <= k->width; lanes++) {
        hd_wino4_out_tiles t;
        memset(&t, 0, sizeof t);
        t.lanes = lanes, t.hs = hs, t.ws = ws;
        for (int i = 0; i < lanes; i++) {
            int ti = (int)rnd_u(4), tj = (int)rnd_u(4);
            t.off[i] = 4 * ti * hs + 4 * tj * ws;
            t.nrow[i] = (uint8_t)(YH - 4 * ti < 4 ? YH - 4 * ti : 4);
            t.ncol[i] = (uint8_t)(YW - 4 * tj < 4 ? YW - 4 * tj : 4);
            if (rnd_u(6) == 0)
                t.nrow[i] = 0;                     /* a skipped lane */
        }
        /* lanes may overlap (same tile): y is written in the same order by both */
        size_t ny = sizeof y0 / sizeof *y0;
        for (size_t i = 0; i < ny; i++)
            y0[i] = y1[i] = beta == 0 ? NAN : (float)(i % 7) - 3;
        for (size_t i = ny - YC * YH * YW; i < ny; i++)
            y0[i] = y1[i] = GUARD;                  /* beyond the tensor */
        ref->out(m, PS, KS, NK, &t, y0, ks, alpha, beta, NULL);
        k->out(m, PS, KS, NK, &t, y1, ks, alpha, beta, NULL);
        int same = 1;
        for (size_t i = 0; i < ny; i++)
            if (memcmp(&y0[i], &y1[i], sizeof(float)) && !(isnan(y0[i]) && isnan(y1[i])))
                same = 0;
        CHECK_MSG(same, "%s out: lanes %d ws %d alpha %g beta %g differ from scalar", k->name, lanes, ws, alpha, beta);
        for (size_t i = 0; i < sizeof raw0 / sizeof *raw0; i++)
            raw0[i] = raw1[i] = GUARD;
        ref->out(m, PS, KS, NK, &t, NULL, 0, 1, 0, raw0);
        k->out(m, PS, KS, NK, &t, NULL, 0, 1, 0, raw1);
        CHECK_MSG(!memcmp(raw0, raw1, sizeof raw0), "%s raw out: lanes %d differ from scalar", k->name, lanes);
        if (k == ref && alpha == 1 && beta == 0 && ws == 1) {   /* the scalar one against A^T m A */
            double worst = 0;
            for (int kk = 0; kk < NK; kk++)
                for (int i = 0; i < lanes; i++)
                    for (int a = 0; a < 4; a++)
                        for (int b = 0; b < 4; b++) {
                            double v = 0, mag = 0;
                            for (int p = 0; p < 6; p++)
                                for (int q = 0; q < 6; q++) {
                                    double e = AT[a][p] * m[(6 * p + q) * PS + kk * KS + i] * AT[b][q];
                                    v += e, mag += fabs(e);
                                }
                            double got = raw0[(kk * HD_WINO4_LANES + i) * 16 + 4 * a + b];
                            double err = fabs(got - v) / mag;
                            worst = err > worst ? err : worst;
                        }
            CHECK_MSG(worst <= 6.1 * 0x1p-24, "scalar output transform: error %g of the absolute sum", worst);
        }
    }
}

/* ---- filter ---- */

/* Filters read through (ks, cs, tap): NCHW-like (taps contiguous), NHWC-like (channels
 * contiguous; 19 channels: a block of 16 and a remainder), NCHW-like with 19 channels (the
 * windows of 16 channels read as one run), the lanes contiguous (backward
 * data's transposed NHWC filter), reversed taps, padded, and taps too far apart for one
 * window (the gathers). */
static void check_filter(const hd_wino4_kernels *ref, const hd_wino4_kernels *k)
{
    enum { CST = 19, MAXC = 19, PS = MAXC * CST + 3, WN = 4096 };
    static float w[WN], u0[36 * PS], u1[36 * PS];
    static const struct { int64_t ks, cs, te; int rev, nc; } lay[] = {
        {3 * 9, 9, 1, 0, 3},        /* KCRS */
        {19 * 9, 9, 1, 0, 19},      /* KCRS, 19 channels: a run of 16 windows and a remainder */
        {19 * 9, 9, 1, 1, 19},      /* the same, taps reversed (CONVOLUTION mode) */
        {9 * 3, 1, 3, 0, 3},        /* KRSC */
        {9 * 19, 1, 19, 0, 19},     /* KRSC, more channels than lanes */
        {1, 16 * 9, 16, 1, 3},      /* lanes contiguous, taps reversed */
        {3 * 9 + 5, 11, 1, 1, 3},   /* padded */
        {50, 2, 5, 0, 3},           /* taps 5 apart: gathered */
    };
    for (size_t li = 0; li < sizeof lay / sizeof *lay; li++)
        for (int n = 1; n <= HD_WINO4_LANES; n++) {
            int nc = lay[li].nc;
            for (size_t i = 0; i < sizeof w / sizeof *w; i++)
                w[i] = rnd() * (n == 7 ? 1e30f : 1.0f);
            int64_t tap[9];
            for (int e = 0; e < 9; e++)
                tap[e] = (lay[li].rev ? 8 - e : e) * lay[li].te;
            for (int i = 0; i < 36 * PS; i++)
                u0[i] = u1[i] = GUARD;
            ref->filter(w, lay[li].ks, lay[li].cs, tap, n, nc, u0, PS, CST);
            k->filter(w, lay[li].ks, lay[li].cs, tap, n, nc, u1, PS, CST);
            CHECK_MSG(!memcmp(u0, u1, sizeof u0), "%s filter (layout %zu, n = %d) differs from scalar", k->name, li, n);
            if (k != ref)
                continue;
            /* within one float rounding (plus double noise) of G g G^T */
            double worst = 0;
            long guards = 0;
            for (int c = 0; c < nc; c++)
                for (int i = 0; i < CST; i++)
                    for (int a = 0; a < 6; a++)
                        for (int b = 0; b < 6; b++) {
                            float got = u0[(6 * a + b) * PS + c * CST + i];
                            if (i >= n) {
                                guards += got != GUARD;
                                continue;
                            }
                            double v = 0, mag = 0;
                            for (int r = 0; r < 3; r++)
                                for (int s = 0; s < 3; s++) {
                                    double e = GM[a][r] * w[i * lay[li].ks + c * lay[li].cs + tap[3 * r + s]] * GM[b][s];
                                    v += e, mag += fabs(e);
                                }
                            double err = fabs(got - v) / mag;
                            worst = err > worst ? err : worst;
                        }
            CHECK_MSG(worst <= 0x1p-24 * 1.001, "scalar filter transform: error %g of the absolute sum", worst);
            CHECK_MSG(guards == 0, "scalar filter transform wrote %ld values past n = %d", guards, n);
        }
}

/* ---- the channels-contiguous form ---- */

#define CC 21   /* channels: a full vector and a remainder */

/* in_c against the scalar in_c (bitwise) and against the tile-lane scalar kernel (the same
 * values, laid out per tile instead of per lane). */
static void check_in_c(const hd_wino4_kernels *ref, const hd_wino4_kernels *k, const float *x)
{
    enum { PS = CC + 3, TS = 36 * PS + 5, NT = 5 };
    static float d0[NT * TS], d1[NT * TS], dl[36 * 16 * CC];
    int hs = XW * CC, ws = CC;
    for (int nc = 1; nc <= CC; nc += 4) {
        hd_wino4_in_tiles t;
        make_in_tiles(&t, NT, hs, ws);
        for (int i = 0; i < NT * TS; i++)
            d0[i] = d1[i] = GUARD;
        ref->in_c(x, nc, &t, d0, PS, TS);
        k->in_c(x, nc, &t, d1, PS, TS);
        CHECK_MSG(!memcmp(d0, d1, sizeof d0), "%s in_c: nc %d differs from scalar", k->name, nc);
        if (k != ref)
            continue;
        ref->in(x, 1, nc, &t, dl, 16 * CC, 16);   /* lanes = tiles, channel c at x + c */
        long bad = 0;
        for (int i = 0; i < NT; i++)
            for (int pos = 0; pos < 36; pos++)
                for (int c = 0; c < PS; c++) {
                    float got = d0[i * TS + pos * PS + c];
                    if (c >= nc ? got != GUARD : memcmp(&got, &dl[pos * 16 * CC + c * 16 + i], sizeof got))
                        bad++;
                }
        CHECK_MSG(bad == 0, "scalar in_c: %ld values differ from the tile-lane kernel or past nc (nc %d)", bad, nc);
    }
}

static void check_out_c(const hd_wino4_kernels *ref, const hd_wino4_kernels *k, float alpha, float beta)
{
    enum { NT = 4, PS = CC + 2, TS = 36 * PS + 3, YH = 14, YW = 13 };
    static float m[NT * TS], ml[36 * CC * 16], y0[YH * YW * CC + 64], y1[YH * YW * CC + 64], yl[YH * YW * CC + 64];
    static float raw0[NT * 16 * CC], raw1[NT * 16 * CC];
    for (int i = 0; i < NT * TS; i++)
        m[i] = rnd();
    int hs = YW * CC, ws = CC;
    for (int nk = 1; nk <= CC; nk += 5) {
        hd_wino4_out_tiles t;
        memset(&t, 0, sizeof t);
        t.lanes = NT, t.hs = hs, t.ws = ws;
        for (int i = 0; i < NT; i++) {   /* distinct tiles, some cut by the image edge */
            int ti = i == 3 ? 3 : i, tj = i == 3 ? 3 : (int)rnd_u(4);
            t.off[i] = 4 * ti * hs + 4 * tj * ws;
            t.nrow[i] = (uint8_t)(YH - 4 * ti < 4 ? YH - 4 * ti : 4);
            t.ncol[i] = (uint8_t)(YW - 4 * tj < 4 ? YW - 4 * tj : 4);
        }
        size_t ny = sizeof y0 / sizeof *y0;
        for (size_t i = 0; i < ny; i++)
            y0[i] = y1[i] = yl[i] = beta == 0 ? NAN : (float)(i % 7) - 3;
        ref->out_c(m, PS, TS, nk, &t, y0, alpha, beta, NULL);
        k->out_c(m, PS, TS, nk, &t, y1, alpha, beta, NULL);
        int same = 1;
        for (size_t i = 0; i < ny; i++)
            if (memcmp(&y0[i], &y1[i], sizeof(float)) && !(isnan(y0[i]) && isnan(y1[i])))
                same = 0;
        CHECK_MSG(same, "%s out_c: nk %d alpha %g beta %g differ from scalar", k->name, nk, alpha, beta);
        for (size_t i = 0; i < sizeof raw0 / sizeof *raw0; i++)
            raw0[i] = raw1[i] = GUARD;
        ref->out_c(m, PS, TS, nk, &t, NULL, 1, 0, raw0);
        k->out_c(m, PS, TS, nk, &t, NULL, 1, 0, raw1);
        CHECK_MSG(!memcmp(raw0, raw1, sizeof raw0), "%s raw out_c: nk %d differs from scalar", k->name, nk);
        if (k != ref)
            continue;
        /* the tile-lane kernel on the same products gives the same y */
        for (int i = 0; i < NT; i++)
            for (int pos = 0; pos < 36; pos++)
                for (int c = 0; c < nk; c++)
                    ml[pos * CC * 16 + c * 16 + i] = m[i * TS + pos * PS + c];
        ref->out(ml, CC * 16, 16, nk, &t, yl, 1, alpha, beta, NULL);
        same = 1;
        for (size_t i = 0; i < ny; i++)
            if (memcmp(&y0[i], &yl[i], sizeof(float)) && !(isnan(y0[i]) && isnan(yl[i])))
                same = 0;
        CHECK_MSG(same, "scalar out_c: nk %d differs from the tile-lane kernel", nk);
    }
}

/* The GEMM kernel against the scalar one (fmaf), bitwise; rows of A lda apart, guard values
 * around C. */
static void check_gemm(const hd_wino4_kernels *ref, const hd_wino4_kernels *k)
{
    enum { KC = 37, LDA = 41, BS = 70, LDC = 75 };
    static float a[HD_WINO4_GEMM_MR * LDA], b[KC * BS + 16], c0[HD_WINO4_GEMM_MR * LDC], c1[HD_WINO4_GEMM_MR * LDC];
    for (size_t i = 0; i < sizeof a / sizeof *a; i++)
        a[i] = rnd();
    for (size_t i = 0; i < sizeof b / sizeof *b; i++)
        b[i] = rnd();
    static const int nrs[] = {1, 15, 16, 17, 33, 50, 64};
    for (int mr = 1; mr <= HD_WINO4_GEMM_MR; mr++)
        for (size_t ni = 0; ni < sizeof nrs / sizeof *nrs; ni++)
            for (int kc = 1; kc <= KC; kc += 12) {
                for (int i = 0; i < HD_WINO4_GEMM_MR * LDC; i++)
                    c0[i] = c1[i] = GUARD;
                ref->gemm((size_t)mr, (size_t)nrs[ni], (size_t)kc, a, LDA, b, BS, c0, LDC, 0);
                k->gemm((size_t)mr, (size_t)nrs[ni], (size_t)kc, a, LDA, b, BS, c1, LDC, 0);
                CHECK_MSG(!memcmp(c0, c1, sizeof c0), "%s gemm: mr %d nr %d kc %d differs from scalar", k->name, mr,
                          nrs[ni], kc);
                /* the reduction in two pieces, the second accumulating: the bits of one call */
                int k1 = kc / 2;
                for (int i = 0; i < HD_WINO4_GEMM_MR * LDC; i++)
                    c1[i] = GUARD;
                k->gemm((size_t)mr, (size_t)nrs[ni], (size_t)k1, a, LDA, b, BS, c1, LDC, 0);
                k->gemm((size_t)mr, (size_t)nrs[ni], (size_t)(kc - k1), a + k1, LDA, b + k1 * BS, BS, c1, LDC, 1);
                CHECK_MSG(!memcmp(c0, c1, sizeof c0), "%s gemm: mr %d nr %d kc %d in two pieces differs", k->name, mr,
                          nrs[ni], kc);
            }
}

/* The output-gradient transform of the backward filter (dy_c): the scalar kernel against
 * A o A^T in double (within a few roundings), a vector one bitwise against the scalar; rows
 * and columns cut by the masks read as zero; nothing past nk is written. */
static void check_dy_c(const hd_wino4_kernels *ref, const hd_wino4_kernels *k, const float *y)
{
    enum { PS = CC + 3, TS = 36 * PS + 5, NT = 5 };
    static float d0[NT * TS], d1[NT * TS];
    int hs = XW * CC, ws = CC;
    for (int nk = 1; nk <= CC; nk += 4) {
        hd_wino4_in_tiles t;
        make_in_tiles(&t, NT, hs, ws);
        for (int i = 0; i < NT * TS; i++)
            d0[i] = d1[i] = GUARD;
        ref->dy_c(y, nk, &t, d0, PS, TS);
        k->dy_c(y, nk, &t, d1, PS, TS);
        CHECK_MSG(!memcmp(d0, d1, sizeof d0), "%s dy_c: nk %d differs from scalar", k->name, nk);
        if (k != ref)
            continue;
        long bad = 0;
        for (int i = 0; i < NT; i++)
            for (int c = 0; c < PS; c++) {
                double o[4][4], sum = 0;
                for (int r = 0; r < 4; r++)
                    for (int s = 0; s < 4; s++) {
                        int in = c < nk && (t.rmask[i] >> r & 1) && (t.cmask[i] >> s & 1);
                        o[r][s] = in ? y[t.off[i] + r * hs + s * ws + c] : 0;
                        sum += fabs(o[r][s]);
                    }
                for (int a = 0; a < 6; a++)
                    for (int b = 0; b < 6; b++) {
                        float got = d0[i * TS + (6 * a + b) * PS + c];
                        if (c >= nk) {
                            bad += got != GUARD;
                            continue;
                        }
                        double want = 0;
                        for (int r = 0; r < 4; r++)
                            for (int s = 0; s < 4; s++)
                                want += AT[r][a] * o[r][s] * AT[s][b];
                        bad += !(fabs(got - want) <= 64 * 0x1p-24 * 64 * sum);
                    }
            }
        CHECK_MSG(bad == 0, "scalar dy_c: %ld values off A o A^T or written past nk (nk %d)", bad, nk);
    }
}

int main(void)
{
    size_t n;
    const hd_wino4_kernels *tab = hd_wino4_kernel_table(&n);
    CHECK(n >= 1 && tab[0].isa == HD_ISA_SCALAR);
    static float x[XC * XH * XW * 3];
    for (size_t i = 0; i < sizeof x / sizeof *x; i++)
        x[i] = rnd();
    for (size_t ki = 0; ki < n; ki++) {
        const hd_wino4_kernels *k = &tab[ki];
        if (k->isa > hd_cpu_isa()) {
            SKIP("%s (not allowed on this CPU / cap)", k->name);
            continue;
        }
        SECTION(k->name);
        check_in(&tab[0], k, x, XH * XW, XW, 1);               /* NCHW */
        check_in(&tab[0], k, x, 1, XW * XC, XC);               /* NHWC */
        check_in(&tab[0], k, x, XH * XW * 3, XW * 3 + 1, 2);   /* strided */
        static const float ab[3][2] = {{1, 0}, {2, 0.5f}, {-0.75f, 1}};
        for (int i = 0; i < 3; i++) {
            check_out(&tab[0], k, 1, ab[i][0], ab[i][1]);
            check_out(&tab[0], k, 3, ab[i][0], ab[i][1]);
        }
        check_filter(&tab[0], k);
        if (k->in_c) {
            static float xc[XH * XW * CC];
            for (size_t i = 0; i < sizeof xc / sizeof *xc; i++)
                xc[i] = rnd();
            check_in_c(&tab[0], k, xc);
        }
        if (k->out_c) {
            check_out_c(&tab[0], k, 1, 0);
            check_out_c(&tab[0], k, -0.75f, 1);
        }
        if (k->gemm)
            check_gemm(&tab[0], k);
        if (k->dy_c) {
            static float yc[XH * XW * CC];
            for (size_t i = 0; i < sizeof yc / sizeof *yc; i++)
                yc[i] = rnd();
            check_dy_c(&tab[0], k, yc);
        }
    }
    return hd_test_finish();
}
