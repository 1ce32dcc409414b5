/* tests/ref/ops_ref.c -- see ops_ref.h. */
#include "ops_ref.h"

#include <math.h>
#include <stdlib.h>

double ref_act(int mode, int propagate_nan, double coef, double x)
{
    if (isnan(x))
        return (mode == 1 || mode == 3) && !propagate_nan ? 0.0 : x;
    switch (mode) {
    case 0: return 1.0 / (1.0 + exp(-x));
    case 1: return fmax(x, 0.0);
    case 2: return tanh(x);
    case 3: return fmin(fmax(x, 0.0), coef);
    case 4: return x >= 0 ? x : coef * (exp(x) - 1.0);
    default: return x;
    }
}

double ref_act_grad(int mode, int propagate_nan, double coef, double y, double dy, double x)
{
    switch (mode) {
    case 0: return dy * y * (1.0 - y);
    case 2: return dy * (1.0 - y * y);
    case 1:
        if (isnan(x))
            return propagate_nan ? x : 0.0;
        return x > 0 ? dy : 0.0;
    case 3:
        if (isnan(x))
            return propagate_nan ? x : 0.0;
        return (x > 0 && x < coef) ? dy : 0.0;
    case 4: return x > 0 ? dy : dy * coef * exp(x);
    default: return dy;
    }
}

/* element j of group g as a logical index */
static size_t sm_index(int channel, int c, int s, size_t g, size_t j)
{
    if (channel) {
        size_t n = g / (size_t)s, p = g % (size_t)s;
        return (n * (size_t)c + j) * (size_t)s + p;
    }
    return g * (size_t)c * (size_t)s + j;
}

void ref_softmax_fwd(int algo, int channel, int n, int c, int s, const double *x, double *y)
{
    size_t groups = channel ? (size_t)n * s : (size_t)n;
    size_t len = channel ? (size_t)c : (size_t)c * s;
    for (size_t g = 0; g < groups; g++) {
        double m = -INFINITY, sum = 0;
        for (size_t j = 0; j < len; j++)
            m = fmax(m, x[sm_index(channel, c, s, g, j)]);
        for (size_t j = 0; j < len; j++)
            sum += exp(x[sm_index(channel, c, s, g, j)] - m);
        for (size_t j = 0; j < len; j++) {
            size_t i = sm_index(channel, c, s, g, j);
            y[i] = algo == 2 ? x[i] - m - log(sum) : exp(x[i] - m) / sum;
        }
    }
}

void ref_softmax_bwd(int algo, int channel, int n, int c, int s, const double *y, const double *dy, double *dx)
{
    size_t groups = channel ? (size_t)n * s : (size_t)n;
    size_t len = channel ? (size_t)c : (size_t)c * s;
    for (size_t g = 0; g < groups; g++) {
        double dot = 0, sdy = 0;
        for (size_t j = 0; j < len; j++) {
            size_t i = sm_index(channel, c, s, g, j);
            dot += y[i] * dy[i];
            sdy += dy[i];
        }
        for (size_t j = 0; j < len; j++) {
            size_t i = sm_index(channel, c, s, g, j);
            dx[i] = algo == 2 ? dy[i] - exp(y[i]) * sdy : y[i] * (dy[i] - dot);
        }
    }
}

size_t ref_bcast_index(int nd, const int *dims, const int *bdims, size_t i)
{
    size_t idx[8];
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = i % (size_t)dims[d];
        i /= (size_t)dims[d];
    }
    size_t o = 0;
    for (int d = 0; d < nd; d++)
        o = o * (size_t)bdims[d] + (bdims[d] == 1 ? 0 : idx[d]);
    return o;
}

double ref_op(int op, int propagate_nan, double a, double b)
{
    switch (op) {
    case 0: return a + b;
    case 1: return a * b;
    case 2: case 3:
        if (isnan(a) || isnan(b)) {
            if (propagate_nan)
                return NAN;
            return isnan(a) ? b : a;
        }
        return op == 2 ? fmin(a, b) : fmax(a, b);
    case 4: return sqrt(a);
    case 5: return 1.0 - a;
    default: return 0;
    }
}

void ref_reduce(int op, int nd, const int *adims, const int *cdims, const double *a, double *c, unsigned *idx)
{
    size_t na = 1, nc = 1, nr = 1;
    for (int d = 0; d < nd; d++) {
        na *= (size_t)adims[d];
        nc *= (size_t)cdims[d];
        if (cdims[d] == 1)
            nr *= (size_t)adims[d];
    }
    double *acc = malloc(nc * sizeof *acc);
    size_t *cnt = calloc(nc, sizeof *cnt);
    for (size_t i = 0; i < nc; i++) {
        acc[i] = op == 1 || op == 8 ? 1.0 : op == 2 ? INFINITY : op == 3 ? -INFINITY : 0.0;
        if (idx)
            idx[i] = 0;
    }
    for (size_t i = 0; i < na; i++) {
        size_t ci = ref_bcast_index(nd, adims, cdims, i);
        /* position of i inside its reduction window: the reduced dims, row-major */
        size_t rem = i, r = 0, mul = 1;
        for (int d = nd - 1; d >= 0; d--) {
            size_t id = rem % (size_t)adims[d];
            rem /= (size_t)adims[d];
            if (cdims[d] == 1) {
                r += id * mul;
                mul *= (size_t)adims[d];
            }
        }
        double v = a[i];
        switch (op) {
        case 0: case 5: acc[ci] += v; break;
        case 1: acc[ci] *= v; break;
        case 2: if (v < acc[ci]) { acc[ci] = v; if (idx) idx[ci] = (unsigned)r; } break;
        case 3: if (v > acc[ci]) { acc[ci] = v; if (idx) idx[ci] = (unsigned)r; } break;
        case 4: if (fabs(v) > acc[ci]) { acc[ci] = fabs(v); if (idx) idx[ci] = (unsigned)r; } break;
        case 6: acc[ci] += fabs(v); break;
        case 7: acc[ci] += v * v; break;
        case 8: if (v != 0) acc[ci] *= v; break;
        }
        cnt[ci]++;
    }
    for (size_t i = 0; i < nc; i++) {
        if (op == 5)
            acc[i] /= (double)nr;
        if (op == 7)
            acc[i] = sqrt(acc[i]);
        c[i] = acc[i];
    }
    free(acc);
    free(cnt);
}

static double lin(int i, int n) { return n == 1 ? 0.0 : 2.0 * i / (n - 1) - 1.0; }

void ref_st_grid(int n, int h, int w, const double *theta, double *grid)
{
    for (int b = 0; b < n; b++)
        for (int i = 0; i < h; i++)
            for (int j = 0; j < w; j++) {
                const double *t = theta + 6 * b;
                double *g = grid + (((size_t)b * h + i) * w + j) * 2;
                g[0] = t[0] * lin(j, w) + t[1] * lin(i, h) + t[2];
                g[1] = t[3] * lin(j, w) + t[4] * lin(i, h) + t[5];
            }
}

static double px(const double *plane, int hi, int wi, long y, long x)
{
    return y >= 0 && y < hi && x >= 0 && x < wi ? plane[y * wi + x] : 0.0;
}

void ref_st_sample(int n, int c, int hi, int wi, int h, int w, const double *x, const double *grid, double *y)
{
    for (int b = 0; b < n; b++)
        for (int k = 0; k < c; k++)
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++) {
                    const double *g = grid + (((size_t)b * h + i) * w + j) * 2;
                    double sx = (g[0] + 1) * 0.5 * (wi - 1), sy = (g[1] + 1) * 0.5 * (hi - 1);
                    long x0 = (long)floor(sx), y0 = (long)floor(sy);
                    double fx = sx - x0, fy = sy - y0;
                    const double *pl = x + ((size_t)b * c + k) * hi * wi;
                    y[(((size_t)b * c + k) * h + i) * w + j] =
                        px(pl, hi, wi, y0, x0) * (1 - fx) * (1 - fy) + px(pl, hi, wi, y0, x0 + 1) * fx * (1 - fy) +
                        px(pl, hi, wi, y0 + 1, x0) * (1 - fx) * fy + px(pl, hi, wi, y0 + 1, x0 + 1) * fx * fy;
                }
}

static void add_px(double *plane, int hi, int wi, long y, long x, double v)
{
    if (y >= 0 && y < hi && x >= 0 && x < wi)
        plane[y * wi + x] += v;
}

void ref_st_sample_bwd(int n, int c, int hi, int wi, int h, int w, const double *x, const double *grid,
                       const double *dy, double *dx, double *dgrid)
{
    for (size_t i = 0; i < (size_t)n * c * hi * wi; i++)
        dx[i] = 0;
    for (size_t i = 0; i < (size_t)n * h * w * 2; i++)
        dgrid[i] = 0;
    for (int b = 0; b < n; b++)
        for (int k = 0; k < c; k++)
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++) {
                    const double *g = grid + (((size_t)b * h + i) * w + j) * 2;
                    double *dg = dgrid + (((size_t)b * h + i) * w + j) * 2;
                    double sx = (g[0] + 1) * 0.5 * (wi - 1), sy = (g[1] + 1) * 0.5 * (hi - 1);
                    long x0 = (long)floor(sx), y0 = (long)floor(sy);
                    double fx = sx - x0, fy = sy - y0;
                    const double *pl = x + ((size_t)b * c + k) * hi * wi;
                    double *dpl = dx + ((size_t)b * c + k) * hi * wi;
                    double gy = dy[(((size_t)b * c + k) * h + i) * w + j];
                    add_px(dpl, hi, wi, y0, x0, gy * (1 - fx) * (1 - fy));
                    add_px(dpl, hi, wi, y0, x0 + 1, gy * fx * (1 - fy));
                    add_px(dpl, hi, wi, y0 + 1, x0, gy * (1 - fx) * fy);
                    add_px(dpl, hi, wi, y0 + 1, x0 + 1, gy * fx * fy);
                    double a = px(pl, hi, wi, y0, x0), bb = px(pl, hi, wi, y0, x0 + 1);
                    double cc = px(pl, hi, wi, y0 + 1, x0), d = px(pl, hi, wi, y0 + 1, x0 + 1);
                    dg[0] += gy * ((bb - a) * (1 - fy) + (d - cc) * fy) * 0.5 * (wi - 1);
                    dg[1] += gy * ((cc - a) * (1 - fx) + (d - bb) * fx) * 0.5 * (hi - 1);
                }
}
