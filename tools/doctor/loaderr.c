/* loaderr.c -- see loaderr.h.  Plain text matching; nothing here loads anything. */
#include "loaderr.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char MARK[] = "Could not load library ";

/* copy up to the end of the line */
static void line_copy(char *dst, size_t cap, const char *src)
{
    size_t k = strcspn(src, "\r\n");
    if (k >= cap)
        k = cap - 1;
    memcpy(dst, src, k);
    dst[k] = 0;
}

static int starts_with_ci(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

dr_lf_cause dr_loadfail_cause(const char *library, const char *missing)
{
    if (!missing || !*missing)
        return DR_LF_OTHER;
    const char *b = dr_basename(missing);
    if (starts_with_ci(b, "libcuda.so") || strcasecmp(b, "nvcuda.dll") == 0)
        return DR_LF_DRIVER;
    if (strcasecmp(b, dr_basename(library)) == 0)
        return DR_LF_SUBLIB;
    if (starts_with_ci(b, "zlibwapi") || starts_with_ci(b, "libz.so"))
        return DR_LF_ZLIB;
    return DR_LF_DEP;
}

int dr_loadfail_parse(const char *output, dr_loadfail *lf)
{
    memset(lf, 0, sizeof *lf);
    const char *p = output ? strstr(output, MARK) : NULL;
    if (!p)
        return 0;
    line_copy(lf->line, sizeof lf->line, p);
    const char *name = p + sizeof MARK - 1;
    /* the name runs up to ". Error" (names contain dots themselves) */
    const char *err = strstr(name, ". Error");
    const char *eol = name + strcspn(name, "\r\n");
    if (!err || err > eol) {
        line_copy(lf->library, sizeof lf->library, name);
        return 1;
    }
    size_t k = (size_t)(err - name);
    if (k >= sizeof lf->library)
        k = sizeof lf->library - 1;
    memcpy(lf->library, name, k);
    lf->library[k] = 0;
    err += 7; /* ". Error" */
    if (strncmp(err, " code", 5) == 0) {
        const char *q = err + 5;
        while (*q == ' ' || *q == ':')
            q++;
        lf->code = (int)strtol(q, NULL, 10);
        /* 126 for the library itself or for one of its imports: the caller looks */
        return 1;
    }
    while (*err == ':' || *err == ' ')
        err++;
    line_copy(lf->error, sizeof lf->error, err);
    /* dlerror(): "<file>: cannot open shared object file: No such file or directory" */
    const char *c = strstr(lf->error, ": cannot open shared object file");
    if (c) {
        size_t m = (size_t)(c - lf->error);
        if (m >= sizeof lf->missing)
            m = sizeof lf->missing - 1;
        memcpy(lf->missing, lf->error, m);
        lf->missing[m] = 0;
    }
    lf->cause = dr_loadfail_cause(lf->library, lf->missing);
    return 1;
}

const char *dr_loadfail_cause_name(dr_lf_cause c)
{
    switch (c) {
    case DR_LF_DRIVER: return "missing-driver";
    case DR_LF_SUBLIB: return "missing-sublibrary";
    case DR_LF_DEP: return "missing-dependency";
    case DR_LF_ZLIB: return "missing-zlib";
    case DR_LF_OTHER: break;
    }
    return "other";
}
