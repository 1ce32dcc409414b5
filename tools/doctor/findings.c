/* findings.c -- see findings.h. */
#include "findings.h"

#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dr_add(dr_findings *f, dr_sev sev, const char *code, const char *fix, const char *fmt, ...)
{
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 16;
        dr_finding *nv = realloc(f->v, nc * sizeof *nv);
        if (!nv)
            abort();
        f->v = nv;
        f->cap = nc;
    }
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        abort();
    va_end(ap);
    f->v[f->n++] = (dr_finding){sev, dr_xstrdup(code), msg, fix ? dr_xstrdup(fix) : NULL};
}

size_t dr_count(const dr_findings *f, dr_sev sev)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++)
        k += f->v[i].sev == sev;
    return k;
}

int dr_has(const dr_findings *f, const char *code)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].code, code) == 0)
            return 1;
    return 0;
}

void dr_findings_free(dr_findings *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].code);
        free(f->v[i].msg);
        free(f->v[i].fix);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}

const char *dr_sev_name(dr_sev s)
{
    return s == DR_ERROR ? "error" : s == DR_WARN ? "warning" : "info";
}
