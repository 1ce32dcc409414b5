/* tests/ref/ops_tt.c -- see ops_tt.h. */
#include "ops_tt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void opt_poison(opt_t *t);

uint16_t opt_f2h(float f)
{
    /* round through double arithmetic: scale into the half grid and round to nearest even */
    if (f != f)
        return 0x7e00;
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    double a = fabs((double)f);
    if (a >= 65520.0)
        return sign | 0x7c00;
    if (a < ldexp(1.0, -14)) {                      /* subnormal range: units of 2^-24 */
        double q = nearbyint(a * ldexp(1.0, 24));
        return sign | (uint16_t)q;                   /* q == 1024 becomes the smallest normal */
    }
    int e;
    double m = frexp(a, &e);                        /* a = m * 2^e, m in [0.5, 1) */
    double q = nearbyint(m * 2048.0);               /* 11 significant bits */
    if (q == 2048.0) {
        q = 1024.0;
        e++;
    }
    int he = e - 1 + 15;
    if (he >= 31)
        return sign | 0x7c00;
    return sign | (uint16_t)(he << 10) | (uint16_t)((int)q - 1024);
}

float opt_h2f(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0)
        v = ldexp((double)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp(1024.0 + m, e - 25);
    return (float)(s ? -v : v);
}

uint16_t opt_f2bf(float f)
{
    if (f != f)
        return 0x7fc0;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t lsb = (u >> 16) & 1;
    u += 0x7fff + lsb;
    return (uint16_t)(u >> 16);
}

float opt_bf2f(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static size_t esize_of(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_INT32: return 4;
    case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16: return 2;
    default: return 1;
    }
}

int opt_make(opt_t *t, cudnnDataType_t dt, int nd, const int *dims, int layout)
{
    memset(t, 0, sizeof *t);
    t->nd = nd;
    t->dt = dt;
    t->esize = esize_of(dt);
    t->n = 1;
    for (int i = 0; i < nd; i++) {
        t->dims[i] = dims[i];
        t->n *= (size_t)dims[i];
    }
    long s = 1;
    if (layout == OPT_NHWC && nd >= 3) {
        t->strides[1] = 1;
        s = dims[1];
        for (int i = nd - 1; i >= 2; i--) {
            t->strides[i] = (int)s;
            s *= dims[i];
        }
        t->strides[0] = (int)s;
        s *= dims[0];
    } else {
        for (int i = nd - 1; i >= 0; i--) {
            t->strides[i] = (int)s;
            s *= dims[i] + (layout == OPT_PADDED ? (i % 2 ? 2 : 1) : 0);
        }
    }
    size_t last = 0;
    for (int i = 0; i < nd; i++)
        last += (size_t)(dims[i] - 1) * (size_t)t->strides[i];
    t->bytes = (last + 1) * t->esize;
    t->data = malloc(t->bytes);
    if (!t->data)
        return -1;
    opt_poison(t);   /* padding keeps this pattern: opt_padding_intact checks it */
    if (cudnnCreateTensorDescriptor(&t->desc) != CUDNN_STATUS_SUCCESS)
        return -1;
    return cudnnSetTensorNdDescriptor(t->desc, dt, nd, t->dims, t->strides) == CUDNN_STATUS_SUCCESS ? 0 : -1;
}

void opt_free(opt_t *t)
{
    free(t->data);
    cudnnDestroyTensorDescriptor(t->desc);
    t->data = NULL;
    t->desc = NULL;
}

static size_t offset_of(const opt_t *t, size_t i)
{
    size_t off = 0;
    for (int d = t->nd - 1; d >= 0; d--) {
        off += (i % (size_t)t->dims[d]) * (size_t)t->strides[d];
        i /= (size_t)t->dims[d];
    }
    return off;
}

static double load_raw(cudnnDataType_t dt, const unsigned char *p)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    case CUDNN_DATA_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case CUDNN_DATA_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case CUDNN_DATA_HALF: { uint16_t v; memcpy(&v, p, 2); return opt_h2f(v); }
    case CUDNN_DATA_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); return opt_bf2f(v); }
    case CUDNN_DATA_UINT8: return *p;
    default: return (int8_t)*p;
    }
}

static double clampi(double v, double lo, double hi)
{
    if (v != v)
        return 0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

static void store_raw(cudnnDataType_t dt, unsigned char *p, double v)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: memcpy(p, &v, 8); break;
    case CUDNN_DATA_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
    case CUDNN_DATA_INT32: { int32_t x = (int32_t)clampi(v, -2147483648.0, 2147483647.0); memcpy(p, &x, 4); break; }
    case CUDNN_DATA_HALF: { uint16_t h = opt_f2h((float)v); memcpy(p, &h, 2); break; }
    case CUDNN_DATA_BFLOAT16: { uint16_t h = opt_f2bf((float)v); memcpy(p, &h, 2); break; }
    case CUDNN_DATA_UINT8: *p = (unsigned char)clampi(v, 0, 255); break;
    default: *(int8_t *)p = (int8_t)clampi(v, -128, 127); break;
    }
}

double opt_get(const opt_t *t, size_t i) { return load_raw(t->dt, t->data + offset_of(t, i) * t->esize); }
void opt_set(opt_t *t, size_t i, double v) { store_raw(t->dt, t->data + offset_of(t, i) * t->esize, v); }

double opt_round(cudnnDataType_t dt, double v)
{
    unsigned char b[8];
    store_raw(dt, b, v);
    return load_raw(dt, b);
}

void opt_fill(opt_t *t, double lo, double hi, unsigned seed)
{
    uint32_t s = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < t->n; i++) {
        s = s * 1664525u + 1013904223u;
        opt_set(t, i, lo + (hi - lo) * ((s >> 8) / 16777216.0));
    }
}

static int is_int(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_INT8 || dt == CUDNN_DATA_UINT8 || dt == CUDNN_DATA_INT32;
}

void opt_poison(opt_t *t)
{
    if (is_int(t->dt)) {
        memset(t->data, 0x7f, t->bytes);
        return;
    }
    for (size_t off = 0; off + t->esize <= t->bytes; off += t->esize)
        store_raw(t->dt, t->data + off, NAN);
}

int opt_padding_intact(const opt_t *t)
{
    unsigned char *mark = calloc(t->bytes / t->esize + 1, 1);
    if (!mark)
        return 0;
    for (size_t i = 0; i < t->n; i++)
        mark[offset_of(t, i)] = 1;
    int ok = 1;
    for (size_t e = 0; e < t->bytes / t->esize && ok; e++) {
        if (mark[e])
            continue;
        double v = load_raw(t->dt, t->data + e * t->esize);
        ok = is_int(t->dt) ? t->data[e * t->esize] == 0x7f : v != v;
    }
    free(mark);
    return ok;
}

double opt_tol(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: return 1e-12;
    case CUDNN_DATA_FLOAT: return 2e-6;
    case CUDNN_DATA_HALF: return 2e-3;
    case CUDNN_DATA_BFLOAT16: return 1.6e-2;
    default: return 0.5;
    }
}

const char *opt_dtname(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE: return "double";
    case CUDNN_DATA_FLOAT: return "float";
    case CUDNN_DATA_HALF: return "half";
    case CUDNN_DATA_BFLOAT16: return "bf16";
    case CUDNN_DATA_INT8: return "int8";
    case CUDNN_DATA_UINT8: return "uint8";
    case CUDNN_DATA_INT32: return "int32";
    default: return "?";
    }
}

const char *opt_layoutname(int layout)
{
    return layout == OPT_NCHW ? "nchw" : layout == OPT_NHWC ? "nhwc" : "padded";
}

int opt_compare(const opt_t *t, const double *e, double tol, const char *label)
{
    int bad = 0;
    for (size_t i = 0; i < t->n; i++) {
        double g = opt_get(t, i);
        int ok;
        if (e[i] != e[i])
            ok = g != g;
        else if (isinf(e[i]))
            ok = g == e[i];
        else
            ok = fabs(g - e[i]) <= tol * (1.0 + fabs(e[i]));
        if (!ok) {
            if (bad < 4)
                fprintf(stderr, "  %s: element %zu got %.9g want %.9g\n", label, i, g, e[i]);
            bad++;
        }
    }
    return bad;
}
