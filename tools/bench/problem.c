/*
 * tools/bench/problem.c -- problem strings, benchdnn/MIOpen style: a run of <key><number>
 * tokens with lower-case keys.
 *
 *   gemm:  m<M>n<N>k<K>[ta<0|1>][tb<0|1>]          e.g. m1024n1024k1024, m64n3136k576ta1
 *   conv:  [g<G>]n<N>c<C>h<H>[w<W>]k<K>r<R>[s<S>][p<Ph>][q<Pw>][u<Sh>][v<Sw>][l<Dh>][j<Dw>]
 *          e.g. g1n16c64h56w56k64r3s3p1u1  (w = h, s = r, q = p, v = u, j = l when absent;
 *          g, u, l default to 1, p to 0; "mb" is accepted for n, "d" for l and j together)
 *   Anything after an underscore is the problem's name (g1n16c3h224w224k64r7s7p3u2_conv1), as
 *   in the files of bench/shapes.
 *
 * Any of c, h, w, r, s, g, p, q, u, v, l, j, mb makes it a convolution.  Each problem keeps a
 * canonical string (all fields spelt out) that the driver prints and accepts back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MAX_KEYS 16

typedef struct {
    char key[4];
    size_t val;
} kv;

static int tokenize(const char *s, kv *out, size_t *count, char *err, size_t errlen)
{
    size_t n = 0;
    const char *p = s;
    if (!*p) {
        snprintf(err, errlen, "empty problem");
        return -1;
    }
    while (*p && *p != '_') {
        size_t kl = 0;
        char key[4] = {0};
        while (*p >= 'a' && *p <= 'z') {
            if (kl == 3) {
                snprintf(err, errlen, "key too long at '%s'", p);
                return -1;
            }
            key[kl++] = *p++;
        }
        if (kl == 0) {
            snprintf(err, errlen, "expected a lower-case key at '%s'", p);
            return -1;
        }
        if (*p < '0' || *p > '9') {
            snprintf(err, errlen, "key '%s' needs a number", key);
            return -1;
        }
        size_t v = 0;
        while (*p >= '0' && *p <= '9') {
            if (v > ((size_t)1 << 40)) {
                snprintf(err, errlen, "value of '%s' too large", key);
                return -1;
            }
            v = v * 10 + (size_t)(*p++ - '0');
        }
        for (size_t i = 0; i < n; i++)
            if (strcmp(out[i].key, key) == 0) {
                snprintf(err, errlen, "key '%s' given twice", key);
                return -1;
            }
        if (n == MAX_KEYS) {
            snprintf(err, errlen, "too many keys");
            return -1;
        }
        memcpy(out[n].key, key, sizeof key);
        out[n].val = v;
        n++;
    }
    *count = n;
    return 0;
}

static int get(const kv *t, size_t n, const char *key, size_t *v)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].key, key) == 0) {
            *v = t[i].val;
            return 1;
        }
    return 0;
}

static int only_keys(const kv *t, size_t n, const char *const *allowed, char *err, size_t errlen,
                     const char *what)
{
    for (size_t i = 0; i < n; i++) {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            ok |= strcmp(*a, t[i].key) == 0;
        if (!ok) {
            snprintf(err, errlen, "key '%s' is not a %s key", t[i].key, what);
            return -1;
        }
    }
    return 0;
}

static int parse_gemm(const kv *t, size_t n, bench_prob *p, char *err, size_t errlen)
{
    static const char *const keys[] = {"m", "n", "k", "ta", "tb", NULL};
    if (only_keys(t, n, keys, err, errlen, "gemm"))
        return -1;
    gemm_prob *g = &p->u.gemm;
    size_t ta = 0, tb = 0;
    if (!get(t, n, "m", &g->m) || !get(t, n, "n", &g->n) || !get(t, n, "k", &g->k)) {
        snprintf(err, errlen, "gemm needs m, n and k");
        return -1;
    }
    if (g->m == 0 || g->n == 0 || g->k == 0) {
        snprintf(err, errlen, "m, n and k must be positive");
        return -1;
    }
    get(t, n, "ta", &ta);
    get(t, n, "tb", &tb);
    if (ta > 1 || tb > 1) {
        snprintf(err, errlen, "ta and tb are 0 or 1");
        return -1;
    }
    g->transa = ta ? 'T' : 'N';
    g->transb = tb ? 'T' : 'N';
    p->kind = PROB_GEMM;
    snprintf(p->text, sizeof p->text, "m%zun%zuk%zu%s%s", g->m, g->n, g->k, ta ? "ta1" : "", tb ? "tb1" : "");
    return 0;
}

static int parse_conv(const kv *t, size_t n, bench_prob *p, char *err, size_t errlen)
{
    static const char *const keys[] = {"g", "n", "mb", "c", "h", "w", "k", "r", "s",
                                       "p", "q", "u", "v", "l", "j", "d", NULL};
    if (only_keys(t, n, keys, err, errlen, "conv"))
        return -1;
    conv_prob *c = &p->u.conv;
    memset(c, 0, sizeof *c);
    size_t mb;
    int has_n = get(t, n, "n", &c->n), has_mb = get(t, n, "mb", &mb);
    if (has_n && has_mb) {
        snprintf(err, errlen, "give n or mb, not both");
        return -1;
    }
    if (has_mb)
        c->n = mb;
    if (!has_n && !has_mb)
        c->n = 1;
    if (!get(t, n, "c", &c->c) || !get(t, n, "h", &c->h) || !get(t, n, "k", &c->k) || !get(t, n, "r", &c->r)) {
        snprintf(err, errlen, "conv needs c, h, k and r");
        return -1;
    }
    if (!get(t, n, "g", &c->g))
        c->g = 1;
    if (!get(t, n, "w", &c->w))
        c->w = c->h;
    if (!get(t, n, "s", &c->s))
        c->s = c->r;
    if (!get(t, n, "p", &c->pad_h))
        c->pad_h = 0;
    if (!get(t, n, "q", &c->pad_w))
        c->pad_w = c->pad_h;
    if (!get(t, n, "u", &c->stride_h))
        c->stride_h = 1;
    if (!get(t, n, "v", &c->stride_w))
        c->stride_w = c->stride_h;
    size_t d;
    int has_d = get(t, n, "d", &d);
    if (has_d && (get(t, n, "l", &c->dil_h) || get(t, n, "j", &c->dil_w))) {
        snprintf(err, errlen, "give d or l/j, not both");
        return -1;
    }
    if (has_d)
        c->dil_h = d;
    else if (!get(t, n, "l", &c->dil_h))
        c->dil_h = 1;
    if (!get(t, n, "j", &c->dil_w))
        c->dil_w = c->dil_h;
    if (!c->g || !c->n || !c->c || !c->h || !c->w || !c->k || !c->r || !c->s || !c->stride_h ||
        !c->stride_w || !c->dil_h || !c->dil_w) {
        snprintf(err, errlen, "sizes, strides and dilations must be positive");
        return -1;
    }
    if (c->c % c->g || c->k % c->g) {
        snprintf(err, errlen, "c (%zu) and k (%zu) must be multiples of g (%zu)", c->c, c->k, c->g);
        return -1;
    }
    size_t eh = (c->r - 1) * c->dil_h + 1, ew = (c->s - 1) * c->dil_w + 1;
    if (c->h + 2 * c->pad_h < eh || c->w + 2 * c->pad_w < ew) {
        snprintf(err, errlen, "filter larger than the padded input");
        return -1;
    }
    c->oh = (c->h + 2 * c->pad_h - eh) / c->stride_h + 1;
    c->ow = (c->w + 2 * c->pad_w - ew) / c->stride_w + 1;
    p->kind = PROB_CONV;
    snprintf(p->text, sizeof p->text, "g%zun%zuc%zuh%zuw%zuk%zur%zus%zup%zuq%zuu%zuv%zul%zuj%zu", c->g, c->n,
             c->c, c->h, c->w, c->k, c->r, c->s, c->pad_h, c->pad_w, c->stride_h, c->stride_w, c->dil_h,
             c->dil_w);
    return 0;
}

int bench_parse_problem(const char *s, bench_prob *p, char *err, size_t errlen)
{
    kv t[MAX_KEYS];
    size_t n = 0;
    memset(p, 0, sizeof *p);
    if (tokenize(s, t, &n, err, errlen))
        return -1;
    const char *us = strchr(s, '_');
    if (us)
        snprintf(p->name, sizeof p->name, "%s", us + 1);
    static const char *const conv_only[] = {"g", "mb", "c", "h", "w", "r", "s", "p", "q", "u", "v", "l", "j", "d"};
    for (size_t i = 0; i < n; i++)
        for (size_t q = 0; q < sizeof conv_only / sizeof conv_only[0]; q++)
            if (strcmp(t[i].key, conv_only[q]) == 0)
                return parse_conv(t, n, p, err, errlen);
    return parse_gemm(t, n, p, err, errlen);
}

double bench_prob_flops(const bench_prob *p)
{
    if (p->kind == PROB_GEMM)
        return 2.0 * (double)p->u.gemm.m * (double)p->u.gemm.n * (double)p->u.gemm.k;
    const conv_prob *c = &p->u.conv;
    return 2.0 * (double)c->n * (double)c->k * (double)c->oh * (double)c->ow * (double)(c->c / c->g) *
           (double)c->r * (double)c->s;
}
