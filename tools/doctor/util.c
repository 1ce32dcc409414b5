/* util.c -- see util.h. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _WIN32
#include <windows.h>
/* no symbolic links to tell apart, and files must be read as bytes (no CRLF or ^Z games) */
#define lstat stat
#define DR_OPEN_FLAGS (O_RDONLY | O_BINARY)
#else
#include <glob.h>
#define DR_OPEN_FLAGS (O_RDONLY | O_CLOEXEC)
#endif

static void oom(void)
{
    fputs("cudnn-doctor: out of memory\n", stderr);
    abort();
}

void *dr_xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p)
        oom();
    return p;
}

char *dr_xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p)
        oom();
    return p;
}

char *dr_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *out = NULL;
    int r = vasprintf(&out, fmt, ap);
    va_end(ap);
    if (r < 0 || !out)
        oom();
    return out;
}

void dr_sl_push(dr_strlist *l, const char *s)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        char **nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            oom();
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = dr_xstrdup(s);
}

int dr_sl_contains(const dr_strlist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return 1;
    return 0;
}

int dr_sl_push_unique(dr_strlist *l, const char *s)
{
    if (dr_sl_contains(l, s))
        return 0;
    dr_sl_push(l, s);
    return 1;
}

void dr_sl_free(dr_strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

void dr_sl_split(dr_strlist *l, const char *s, const char *seps)
{
    if (!s)
        return;
    const char *p = s;
    while (*p) {
        size_t k = strcspn(p, seps);
        if (k > 0) {
            char *t = dr_xcalloc(k + 1, 1);
            memcpy(t, p, k);
            dr_sl_push(l, t);
            free(t);
        }
        p += k;
        if (*p)
            p++;
    }
}

void dr_scopy(char *dst, size_t cap, const char *src)
{
    if (!cap)
        return;
    size_t n = src ? strlen(src) : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(dst, src, n);
    dst[n] = 0;
}

int dr_is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int dr_exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

int dr_is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* the last directory separator: '/' everywhere, '\\' too on Windows */
static const char *last_sep(const char *p)
{
    const char *s = strrchr(p, '/');
#ifdef _WIN32
    const char *b = strrchr(p, '\\');
    if (b && (!s || b > s))
        s = b;
#endif
    return s;
}

const char *dr_basename(const char *p)
{
    const char *s = last_sep(p);
    return s ? s + 1 : p;
}

void dr_dirname(const char *p, char *out, size_t cap)
{
    const char *s = last_sep(p);
    if (!s) {
        dr_scopy(out, cap, ".");
        return;
    }
    size_t n = (size_t)(s - p);
    if (n == 0)
        n = 1; /* "/x" -> "/" */
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = 0;
}

long dr_read_file(const char *path, char *buf, size_t cap)
{
    if (!cap)
        return -1;
    int fd = open(path, DR_OPEN_FLAGS);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < cap) {
        ssize_t r = read(fd, buf + got, cap - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = 0;
    return (long)got;
}

int dr_file_contains(const char *path, const char *needle, long long max_bytes)
{
    int fd = open(path, DR_OPEN_FLAGS);
    if (fd < 0)
        return 0;
    size_t nl = strlen(needle);
    enum { CHUNK = 1 << 20 };
    char *buf = dr_xcalloc(CHUNK + nl, 1);
    size_t keep = 0;
    long long total = 0;
    int found = 0;
    while (!found && total < max_bytes) {
        ssize_t r = read(fd, buf + keep, CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        total += r;
        size_t have = keep + (size_t)r;
        for (size_t i = 0; i + nl <= have; i++)
            if (buf[i] == needle[0] && memcmp(buf + i, needle, nl) == 0) {
                found = 1;
                break;
            }
        /* keep a tail so a needle split across two reads is still seen */
        keep = have < nl - 1 ? have : nl - 1;
        memmove(buf, buf + have - keep, keep);
    }
    free(buf);
    close(fd);
    return found;
}

int dr_parse_version(const char *s, int v[3])
{
    v[0] = v[1] = v[2] = 0;
    if (!s)
        return 0;
    while (*s && !isdigit((unsigned char)*s))
        s++;
    int n = 0;
    while (n < 3 && isdigit((unsigned char)*s)) {
        long x = strtol(s, (char **)&s, 10);
        v[n++] = x > 1000000 ? 1000000 : (int)x;
        if (*s != '.')
            break;
        s++;
    }
    return n;
}

int dr_vercmp(const char *a, const char *b)
{
    while (*a || *b) {
        while (*a && !isdigit((unsigned char)*a))
            a++;
        while (*b && !isdigit((unsigned char)*b))
            b++;
        if (!*a && !*b)
            return 0;
        long x = *a ? strtol(a, (char **)&a, 10) : 0;
        long y = *b ? strtol(b, (char **)&b, 10) : 0;
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

#ifdef _WIN32
/* Wildcards only in the last component, which is what the Windows callers use. */
void dr_glob(const char *pattern, dr_strlist *out)
{
    char dir[HD_PATH_MAX];
    dr_dirname(pattern, dir, sizeof dir);
    int has_dir = last_sep(pattern) != NULL;
    WIN32_FIND_DATAA fd;
    HANDLE h = FindFirstFileA(pattern, &fd);
    if (h == INVALID_HANDLE_VALUE)
        return;
    dr_strlist found = {0};
    do {
        if (strcmp(fd.cFileName, ".") == 0 || strcmp(fd.cFileName, "..") == 0)
            continue;
        char *p = has_dir ? dr_fmt("%s\\%s", dir, fd.cFileName) : dr_xstrdup(fd.cFileName);
        dr_sl_push(&found, p);
        free(p);
    } while (FindNextFileA(h, &fd));
    FindClose(h);
    /* sorted, as glob() returns them */
    for (size_t i = 1; i < found.n; i++)
        for (size_t k = i; k > 0 && strcmp(found.v[k - 1], found.v[k]) > 0; k--) {
            char *t = found.v[k];
            found.v[k] = found.v[k - 1];
            found.v[k - 1] = t;
        }
    for (size_t i = 0; i < found.n; i++)
        dr_sl_push(out, found.v[i]);
    dr_sl_free(&found);
}
#else
void dr_glob(const char *pattern, dr_strlist *out)
{
    glob_t g;
    memset(&g, 0, sizeof g);
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; i++)
            dr_sl_push(out, g.gl_pathv[i]);
    globfree(&g);
}
#endif
