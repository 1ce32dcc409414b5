/*
 * compat.c -- loads compat.tsv and answers the three questions the checks ask.  Versions
 * in the table are free text ("2.16.1", "1.8.x", "11.0 (r450)"); lookups compare the
 * leading major.minor only.
 */
#include "compat.h"

#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const COLS[7] = {"kind", "subject_version", "os", "cuda", "cudnn", "driver_min", "source"};

void dr_compat_free(dr_compat *c)
{
    for (size_t i = 0; i < c->n; i++) {
        dr_compat_row *r = &c->rows[i];
        free(r->kind); free(r->subject); free(r->os); free(r->cuda);
        free(r->cudnn); free(r->driver); free(r->source);
    }
    free(c->rows);
    c->rows = NULL;
    c->n = 0;
    c->loaded = 0;
}

/* Split one line on tabs into exactly 7 fields (allocated); returns the field count. */
static int split7(const char *line, char *out[7])
{
    int n = 0;
    const char *p = line;
    for (;;) {
        const char *t = strchr(p, '\t');
        size_t k = t ? (size_t)(t - p) : strlen(p);
        if (n < 7) {
            out[n] = dr_xcalloc(k + 1, 1);
            memcpy(out[n], p, k);
        }
        n++;
        if (!t)
            break;
        p = t + 1;
    }
    return n;
}

int dr_compat_load(dr_compat *c, const char *file, char *err, size_t errcap)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, errcap, "cannot open %s", file);
        return 0;
    }
    dr_scopy(c->path, sizeof c->path, file);
    char line[8192];
    size_t cap = 0;
    int lineno = 0, ok = 1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *fld[7] = {0};
        int n = split7(line, fld);
        int good = n == 7;
        if (good && lineno == 1) {
            for (int i = 0; i < 7; i++)
                good = good && strcmp(fld[i], COLS[i]) == 0;
            if (!good)
                snprintf(err, errcap, "%s:1: header must be the 7 columns kind..source", file);
            for (int i = 0; i < 7 && i < n; i++)
                free(fld[i]);
            if (!good) {
                ok = 0;
                break;
            }
            continue;
        }
        if (lineno == 1) {
            snprintf(err, errcap, "%s:1: missing header", file);
            good = 0;
        } else if (!good) {
            snprintf(err, errcap, "%s:%d: %d columns, want 7", file, lineno, n);
        } else if (strcmp(fld[0], "tf") && strcmp(fld[0], "torch") && strcmp(fld[0], "cuda_driver") &&
                   strcmp(fld[0], "cudnn_cuda")) {
            snprintf(err, errcap, "%s:%d: unknown kind '%s'", file, lineno, fld[0]);
            good = 0;
        } else if (!fld[6][0]) {
            snprintf(err, errcap, "%s:%d: the source column is empty", file, lineno);
            good = 0;
        }
        if (!good) {
            for (int i = 0; i < 7 && i < n; i++)
                free(fld[i]);
            ok = 0;
            break;
        }
        if (c->n == cap) {
            cap = cap ? cap * 2 : 256;
            dr_compat_row *nr = realloc(c->rows, cap * sizeof *nr);
            if (!nr)
                abort();
            c->rows = nr;
        }
        c->rows[c->n++] = (dr_compat_row){fld[0], fld[1], fld[2], fld[3], fld[4], fld[5], fld[6]};
    }
    fclose(f);
    if (ok && c->n == 0) {
        snprintf(err, errcap, "%s: no rows", file);
        ok = 0;
    }
    if (!ok) {
        dr_compat_free(c);
        return 0;
    }
    c->loaded = 1;
    return 1;
}

/* 1 when the leading "X.Y" of a equals that of b (b's minor may be "x" for a wildcard). */
static int same_minor(const char *a, const char *b)
{
    int va[3], vb[3];
    int na = dr_parse_version(a, va), nb = dr_parse_version(b, vb);
    if (!na || !nb || va[0] != vb[0])
        return 0;
    const char *dot = strchr(b, '.');
    if (dot && (dot[1] == 'x' || dot[1] == 'X'))
        return 1;
    if (na < 2 || nb < 2)
        return 1; /* only the majors are known */
    return va[1] == vb[1];
}

static int os_matches(const char *row_os, const char *os)
{
    /* "linux+windows" serves both; "windows-wsl2" is not native Windows */
    if (strcmp(row_os, os) == 0)
        return 1;
    return strstr(row_os, "linux+windows") != NULL;
}

/* The leading dotted number of a driver field ("580 (branch)" -> "580"). */
static void leading_version(const char *s, char *out, size_t cap)
{
    while (*s && !isdigit((unsigned char)*s))
        s++;
    size_t k = 0;
    while (s[k] && (isdigit((unsigned char)s[k]) || s[k] == '.'))
        k++;
    if (k >= cap)
        k = cap - 1;
    memcpy(out, s, k);
    out[k] = 0;
}

void dr_compat_driver_min(const dr_compat *c, const char *cuda, const char *os,
                          char *full, size_t fullcap, char *minor, size_t minorcap)
{
    full[0] = minor[0] = 0;
    int v[3];
    if (dr_parse_version(cuda, v) < 1)
        return;
    for (size_t i = 0; i < c->n; i++) {
        const dr_compat_row *r = &c->rows[i];
        if (strcmp(r->kind, "cuda_driver") || !os_matches(r->os, os) || !r->driver[0])
            continue;
        char d[32];
        leading_version(r->driver, d, sizeof d);
        if (!d[0])
            continue;
        const char *x = strchr(r->cuda, '.');
        int wildcard = x && (x[1] == 'x' || x[1] == 'X');
        if (wildcard) {
            int rv[3];
            if (dr_parse_version(r->cuda, rv) >= 1 && rv[0] == v[0])
                dr_scopy(minor, minorcap, d);
        } else if (strstr(r->subject, "full feature") && same_minor(cuda, r->cuda)) {
            /* several rows per minor (GA, updates): the GA one has the lowest minimum */
            if (!full[0] || dr_vercmp(d, full) < 0)
                dr_scopy(full, fullcap, d);
        }
    }
}

int dr_compat_tf(const dr_compat *c, const char *tf, const char *os, char *cuda, size_t cudacap,
                 char *cudnn, size_t cudnncap, const char **source)
{
    for (size_t i = 0; i < c->n; i++) {
        const dr_compat_row *r = &c->rows[i];
        if (strcmp(r->kind, "tf") || strcmp(r->os, os) || !isdigit((unsigned char)r->subject[0]))
            continue;
        if (same_minor(tf, r->subject)) {
            dr_scopy(cuda, cudacap, r->cuda);
            dr_scopy(cudnn, cudnncap, r->cudnn);
            if (source)
                *source = r->source;
            return 1;
        }
    }
    return 0;
}

int dr_compat_torch(const dr_compat *c, const char *torch, const char *cuda, char *cudnn,
                    size_t cudnncap, const char **source)
{
    cudnn[0] = 0;
    const char *first = NULL, *src = NULL;
    int all_same = 1, hits = 0;
    for (size_t i = 0; i < c->n; i++) {
        const dr_compat_row *r = &c->rows[i];
        if (strcmp(r->kind, "torch") || !same_minor(torch, r->subject))
            continue;
        if (cuda && cuda[0]) {
            if (same_minor(cuda, r->cuda)) {
                dr_scopy(cudnn, cudnncap, r->cudnn);
                if (source)
                    *source = r->source;
                return 1;
            }
            continue;
        }
        hits++;
        if (!first) {
            first = r->cudnn;
            src = r->source;
        } else if (!same_minor(first, r->cudnn)) {
            all_same = 0;
        }
    }
    if (hits && all_same && first) {
        /* CUDA unknown but every build of this release used the same cuDNN minor */
        int v[3];
        dr_parse_version(first, v);
        snprintf(cudnn, cudnncap, "%d.%d", v[0], v[1]);
        if (source)
            *source = src;
        return 1;
    }
    return 0;
}
