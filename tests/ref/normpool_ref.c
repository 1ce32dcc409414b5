/* float64 references for pooling, LRN, divisive and batch normalization (see the header). */
#include "ref/normpool_ref.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ types */

/* Round to P significant bits, with subnormal spacing 2^EMIN (ties to even). */
static double round_bits(double v, int p, int emin, double maxv)
{
    if (v != v || v == 0.0 || isinf(v))
        return v;
    int e;
    frexp(v, &e);                       /* |v| in [2^(e-1), 2^e) */
    int q = e - p;                      /* spacing exponent */
    if (q < emin)
        q = emin;
    double r = ldexp(nearbyint(ldexp(v, -q)), q);
    if (fabs(r) > maxv)
        return v > 0 ? INFINITY : -INFINITY;
    return r;
}

double ref_round(cudnnDataType_t t, double v)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: return (float)v;
    case CUDNN_DATA_HALF: return round_bits(v, 11, -24, 65504.0);
    case CUDNN_DATA_BFLOAT16: return round_bits(v, 8, -133, 3.3895313892515355e38);
    case CUDNN_DATA_INT8: case CUDNN_DATA_INT8x4: case CUDNN_DATA_INT8x32: {
        double r = nearbyint(v);
        return r < -128 ? -128 : r > 127 ? 127 : r;
    }
    default: return v;
    }
}

size_t ref_type_size(cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_FLOAT: return 4;
    case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16: return 2;
    default: return 1;
    }
}

static double half_value(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0)
        v = ldexp(m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp(1024 + m, e - 25);
    return s ? -v : v;
}

static uint16_t half_bits(double v)
{
    if (v != v)
        return 0x7e00;
    uint16_t s = signbit(v) ? 0x8000 : 0;
    v = fabs(round_bits(v, 11, -24, 65504.0));
    if (isinf(v))
        return s | 0x7c00;
    if (v < ldexp(1, -14))
        return s | (uint16_t)(v * ldexp(1, 24));
    int e;
    double m = frexp(v, &e);            /* v = m 2^e, m in [0.5, 1) */
    return s | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)((m * 2048) - 1024);
}

static double bf16_value(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t bf16_bits(double v)
{
    float f = (float)round_bits(v, 8, -133, 3.3895313892515355e38);
    if (v != v)
        f = NAN;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

double ref_from_type(cudnnDataType_t t, const void *p, long long i)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: return ((const float *)p)[i];
    case CUDNN_DATA_DOUBLE: return ((const double *)p)[i];
    case CUDNN_DATA_HALF: return half_value(((const uint16_t *)p)[i]);
    case CUDNN_DATA_BFLOAT16: return bf16_value(((const uint16_t *)p)[i]);
    default: return ((const int8_t *)p)[i];
    }
}

void ref_to_type(cudnnDataType_t t, void *p, long long i, double v)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: ((float *)p)[i] = (float)v; break;
    case CUDNN_DATA_DOUBLE: ((double *)p)[i] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)p)[i] = half_bits(v); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)p)[i] = bf16_bits(v); break;
    default: ((int8_t *)p)[i] = (int8_t)ref_round(CUDNN_DATA_INT8, v); break;
    }
}

long long ref_offset(int nb, const int *strides, int vect, const int *idx)
{
    long long off = 0;
    for (int d = 0; d < nb; d++)
        off += (long long)(d == 1 ? idx[d] / vect : idx[d]) * strides[d];
    return off * vect + (vect > 1 ? idx[1] % vect : 0);
}

long long ref_count(int nb, const int *dims)
{
    long long n = 1;
    for (int d = 0; d < nb; d++)
        n *= dims[d];
    return n;
}

static void walk(cudnnDataType_t t, void *buf, const void *cbuf, int nb, const int *dims, const int *strides, int vect,
                 double *logical, const double *clogical)
{
    int idx[8] = {0};
    long long total = ref_count(nb, dims);
    for (long long e = 0; e < total; e++) {
        long long off = ref_offset(nb, strides, vect, idx);
        if (buf)
            ref_to_type(t, buf, off, clogical[e]);
        else
            logical[e] = ref_from_type(t, cbuf, off);
        for (int d = nb - 1; d >= 0; d--) {
            if (++idx[d] < dims[d])
                break;
            idx[d] = 0;
        }
    }
}

void ref_scatter(cudnnDataType_t t, void *buf, int nb, const int *dims, const int *strides, int vect, const double *logical)
{
    walk(t, buf, NULL, nb, dims, strides, vect, NULL, logical);
}

void ref_gather(cudnnDataType_t t, const void *buf, int nb, const int *dims, const int *strides, int vect, double *logical)
{
    walk(t, NULL, buf, nb, dims, strides, vect, logical, NULL);
}

/* ------------------------------------------------------------------ pooling */

static long long flat(int nsp, const int *dims, const int *idx)
{
    long long f = 0;
    for (int d = 0; d < nsp; d++)
        f = f * dims[d] + idx[d];
    return f;
}

/* Every output of one (n, c) plane: visit all window offsets, keep the in-range ones.  The
 * include-padding divisor is the window clipped to [-pad, in + pad). */
static void pool_plane(int fwd, int mode, int prop, int nsp, const int *win, const int *pad, const int *stride,
                       const int *in, const int *out, const double *x, const double *dy, double *y, double *dx)
{
    long long nout = ref_count(nsp, out);
    int o[6] = {0};
    for (long long e = 0; e < nout; e++) {
        /* enumerate all window offsets, keep the in-range ones */
        long long total = ref_count(nsp, win), cnt = 0, incl = 1;
        for (int d = 0; d < nsp; d++) {
            long long st = (long long)o[d] * stride[d] - pad[d], en = st + win[d];
            long long lo = st, hi = en < in[d] + pad[d] ? en : in[d] + pad[d];
            incl *= hi > lo ? hi - lo : 0;
        }
        double best = -INFINITY, sum = 0.0;
        long long arg = -1;
        int w[6] = {0};
        for (long long k = 0; k < total; k++) {
            int ok = 1, pos[6];
            for (int d = 0; d < nsp; d++) {
                pos[d] = o[d] * stride[d] - pad[d] + w[d];
                if (pos[d] < 0 || pos[d] >= in[d])
                    ok = 0;
            }
            if (ok) {
                long long fi = flat(nsp, in, pos);
                double v = x[fi];
                cnt++;
                sum += v;
                int take;
                if (best != best)
                    take = 0;
                else if (v != v)
                    take = prop;
                else
                    take = v > best;
                if (take) {
                    best = v;
                    arg = fi;
                }
            }
            for (int d = nsp - 1; d >= 0; d--) {
                if (++w[d] < win[d])
                    break;
                w[d] = 0;
            }
        }
        int is_max = mode == 0 || mode == 3;
        double div = mode == 1 ? (double)incl : (double)cnt;
        if (fwd) {
            double r = 0.0;
            if (cnt > 0)
                r = is_max ? best : sum / div;
            y[e] = r;
        } else if (cnt > 0) {
            if (is_max) {
                if (arg >= 0)
                    dx[arg] += dy[e];
            } else {
                for (int d = 0; d < nsp; d++)
                    w[d] = 0;
                for (long long k = 0; k < total; k++) {
                    int ok = 1, pos[6];
                    for (int d = 0; d < nsp; d++) {
                        pos[d] = o[d] * stride[d] - pad[d] + w[d];
                        if (pos[d] < 0 || pos[d] >= in[d])
                            ok = 0;
                    }
                    if (ok && div > 0)
                        dx[flat(nsp, in, pos)] += dy[e] / div;
                    for (int d = nsp - 1; d >= 0; d--) {
                        if (++w[d] < win[d])
                            break;
                        w[d] = 0;
                    }
                }
            }
        }
        for (int d = nsp - 1; d >= 0; d--) {
            if (++o[d] < out[d])
                break;
            o[d] = 0;
        }
    }
}

void ref_pool_fwd(int mode, int prop, int nsp, const int *win, const int *pad, const int *stride, int N, int C,
                  const int *in, const int *out, const double *x, double *y)
{
    long long pin = ref_count(nsp, in), pout = ref_count(nsp, out);
    for (long long p = 0; p < (long long)N * C; p++)
        pool_plane(1, mode, prop, nsp, win, pad, stride, in, out, x + p * pin, NULL, y + p * pout, NULL);
}

void ref_pool_bwd(int mode, int prop, int nsp, const int *win, const int *pad, const int *stride, int N, int C,
                  const int *in, const int *out, const double *x, const double *dy, double *dx)
{
    long long pin = ref_count(nsp, in), pout = ref_count(nsp, out);
    for (long long i = 0; i < (long long)N * C * pin; i++)
        dx[i] = 0.0;
    for (long long p = 0; p < (long long)N * C; p++)
        pool_plane(0, mode, prop, nsp, win, pad, stride, in, out, x + p * pin, dy + p * pout, NULL, dx + p * pin);
}

/* ------------------------------------------------------------------ LRN */

static int behind(unsigned n) { return (int)(n - 1) / 2; }

static double lrn_scale(int C, int S, unsigned n, double a, double k, const double *x, long long base, int c, int s)
{
    double sum = 0.0;
    for (int j = c - behind(n); j < c - behind(n) + (int)n; j++)
        if (j >= 0 && j < C)
            sum += x[base + (long long)j * S + s] * x[base + (long long)j * S + s];
    return k + a / n * sum;
}

void ref_lrn_fwd(int N, int C, int S, unsigned n, double a, double b, double k, const double *x, double *y)
{
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++)
            for (int s = 0; s < S; s++) {
                long long base = (long long)i * C * S;
                y[base + (long long)c * S + s] = x[base + (long long)c * S + s] * pow(lrn_scale(C, S, n, a, k, x, base, c, s), -b);
            }
}

/* dx_j = sum_i dy_i dy_i/dx_j, looping over each output i and the inputs j of its window. */
void ref_lrn_bwd(int N, int C, int S, unsigned n, double a, double b, double k, const double *x, const double *dy,
                 double *dx)
{
    for (long long i = 0; i < (long long)N * C * S; i++)
        dx[i] = 0.0;
    for (int m = 0; m < N; m++)
        for (int s = 0; s < S; s++) {
            long long base = (long long)m * C * S;
            for (int i = 0; i < C; i++) {
                double sc = lrn_scale(C, S, n, a, k, x, base, i, s);
                double g = dy[base + (long long)i * S + s], xi = x[base + (long long)i * S + s];
                dx[base + (long long)i * S + s] += g * pow(sc, -b);
                for (int j = i - behind(n); j < i - behind(n) + (int)n; j++)
                    if (j >= 0 && j < C)
                        dx[base + (long long)j * S + s] +=
                            g * xi * (-b) * pow(sc, -b - 1) * (a / n) * 2 * x[base + (long long)j * S + s];
            }
        }
}

/* ------------------------------------------------------------------ divisive normalization */

static double dn_scale(int nsp, const int *sp, unsigned n, double a, double k, const double *t, const int *p)
{
    double sum = 0.0;
    int w[3] = {0};
    long long total = 1;
    for (int d = 0; d < nsp; d++)
        total *= n;
    for (long long e = 0; e < total; e++) {
        int q[3], ok = 1;
        for (int d = 0; d < nsp; d++) {
            q[d] = p[d] - behind(n) + w[d];
            if (q[d] < 0 || q[d] >= sp[d])
                ok = 0;
        }
        if (ok) {
            double v = t[flat(nsp, sp, q)];
            sum += v * v;
        }
        for (int d = nsp - 1; d >= 0; d--) {
            if (++w[d] < (int)n)
                break;
            w[d] = 0;
        }
    }
    return k + a / pow(n, nsp) * sum;
}

void ref_divnorm_fwd(int N, int C, int nsp, const int *sp, unsigned n, double a, double b, double k, const double *x,
                     const double *means, double *y)
{
    long long P = ref_count(nsp, sp);
    double *t = malloc(sizeof(double) * (size_t)P);
    for (long long pl = 0; pl < (long long)N * C; pl++) {
        for (long long i = 0; i < P; i++)
            t[i] = x[pl * P + i] - (means ? means[pl * P + i] : 0.0);
        int p[3] = {0};
        for (long long i = 0; i < P; i++) {
            y[pl * P + i] = t[i] * pow(dn_scale(nsp, sp, n, a, k, t, p), -b);
            for (int d = nsp - 1; d >= 0; d--) {
                if (++p[d] < sp[d])
                    break;
                p[d] = 0;
            }
        }
    }
    free(t);
}

void ref_divnorm_bwd(int N, int C, int nsp, const int *sp, unsigned n, double a, double b, double k, const double *x,
                     const double *means, const double *dy, double *dx)
{
    long long P = ref_count(nsp, sp);
    double *t = malloc(sizeof(double) * (size_t)P);
    double an = a / pow(n, nsp);
    for (long long pl = 0; pl < (long long)N * C; pl++) {
        for (long long i = 0; i < P; i++) {
            t[i] = x[pl * P + i] - (means ? means[pl * P + i] : 0.0);
            dx[pl * P + i] = 0.0;
        }
        int p[3] = {0};
        for (long long i = 0; i < P; i++) {
            double sc = dn_scale(nsp, sp, n, a, k, t, p), g = dy[pl * P + i];
            dx[pl * P + i] += g * pow(sc, -b);
            int w[3] = {0};
            long long total = 1;
            for (int d = 0; d < nsp; d++)
                total *= n;
            for (long long e = 0; e < total; e++) {
                int q[3], ok = 1;
                for (int d = 0; d < nsp; d++) {
                    q[d] = p[d] - behind(n) + w[d];
                    if (q[d] < 0 || q[d] >= sp[d])
                        ok = 0;
                }
                if (ok) {
                    long long j = flat(nsp, sp, q);
                    dx[pl * P + j] += g * t[i] * (-b) * pow(sc, -b - 1) * an * 2 * t[j];
                }
                for (int d = nsp - 1; d >= 0; d--) {
                    if (++w[d] < (int)n)
                        break;
                    w[d] = 0;
                }
            }
            for (int d = nsp - 1; d >= 0; d--) {
                if (++p[d] < sp[d])
                    break;
                p[d] = 0;
            }
        }
    }
    free(t);
}

/* ------------------------------------------------------------------ batch normalization */

static long long feat(int per_act, int C, int S, int c, int s)
{
    (void)C;
    return per_act ? (long long)c * S + s : c;
}

void ref_bn_stats(int per_act, int N, int C, int S, const double *x, double *mean, double *var)
{
    int F = per_act ? C * S : C;
    double M = per_act ? N : (double)N * S;
    for (int f = 0; f < F; f++)
        mean[f] = var[f] = 0.0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int s = 0; s < S; s++)
                mean[feat(per_act, C, S, c, s)] += x[((long long)n * C + c) * S + s];
    for (int f = 0; f < F; f++)
        mean[f] /= M;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int s = 0; s < S; s++) {
                double d = x[((long long)n * C + c) * S + s] - mean[feat(per_act, C, S, c, s)];
                var[feat(per_act, C, S, c, s)] += d * d;
            }
    for (int f = 0; f < F; f++)
        var[f] /= M;
}

void ref_bn_fwd(int per_act, int N, int C, int S, const double *x, const double *scale, const double *bias,
                const double *mean, const double *var, double eps, double *y)
{
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int s = 0; s < S; s++) {
                long long i = ((long long)n * C + c) * S + s, f = feat(per_act, C, S, c, s);
                y[i] = scale[f] * (x[i] - mean[f]) / sqrt(var[f] + eps) + bias[f];
            }
}

void ref_bn_bwd(int per_act, int N, int C, int S, const double *x, const double *dy, const double *scale,
                const double *mean, const double *invstd, double *dx, double *dscale, double *dbias)
{
    int F = per_act ? C * S : C;
    double M = per_act ? N : (double)N * S;
    for (int f = 0; f < F; f++)
        dscale[f] = dbias[f] = 0.0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int s = 0; s < S; s++) {
                long long i = ((long long)n * C + c) * S + s, f = feat(per_act, C, S, c, s);
                double xhat = (x[i] - mean[f]) * invstd[f];
                dbias[f] += dy[i];
                dscale[f] += dy[i] * xhat;
            }
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int s = 0; s < S; s++) {
                long long i = ((long long)n * C + c) * S + s, f = feat(per_act, C, S, c, s);
                double xhat = (x[i] - mean[f]) * invstd[f];
                dx[i] = scale[f] * invstd[f] / M * (M * dy[i] - dbias[f] - xhat * dscale[f]);
            }
}
