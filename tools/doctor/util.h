/*
 * util.h -- small helpers the doctor uses everywhere: a growable string list, formatted
 * allocation, path helpers and version parsing.  Nothing here knows about cuDNN.
 */
#ifndef HD_DOCTOR_UTIL_H
#define HD_DOCTOR_UTIL_H

#include <stddef.h>

#define HD_PATH_MAX 4096

/* printf-style checking; MinGW's own "printf" archetype is the MSVCRT one, which knows no
 * %zu/%lld, while the doctor is built there with the C99 stdio (__USE_MINGW_ANSI_STDIO). */
#if defined(_WIN32) && defined(__MINGW32__)
#define DR_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define DR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif

typedef struct {
    char **v;
    size_t n, cap;
} dr_strlist;

void dr_sl_push(dr_strlist *l, const char *s);
/* Push only if the exact string is not already there; returns 1 when pushed. */
int dr_sl_push_unique(dr_strlist *l, const char *s);
int dr_sl_contains(const dr_strlist *l, const char *s);
void dr_sl_free(dr_strlist *l);
/* Split s on any character of seps, skipping empty fields. */
void dr_sl_split(dr_strlist *l, const char *s, const char *seps);

/* malloc'ed printf; never returns NULL (aborts on out-of-memory). */
char *dr_fmt(const char *fmt, ...) DR_PRINTF(1, 2);
void *dr_xcalloc(size_t n, size_t sz);
char *dr_xstrdup(const char *s);

/* Bounded copy that always terminates. */
void dr_scopy(char *dst, size_t cap, const char *src);

int dr_is_dir(const char *p);
int dr_exists(const char *p);          /* lstat succeeds (a broken symlink exists) */
int dr_is_file(const char *p);         /* stat says regular file */
const char *dr_basename(const char *p);
/* Directory part of p into out ("." when p has no slash). */
void dr_dirname(const char *p, char *out, size_t cap);
/* Read at most cap-1 bytes of a file into buf; returns bytes read or -1. */
long dr_read_file(const char *path, char *buf, size_t cap);
/* 1 when the first max_bytes of the file contain needle. */
int dr_file_contains(const char *path, const char *needle, long long max_bytes);

/* Parse "a.b.c" (missing parts 0) into v[3]; returns parts parsed (0 on failure). */
int dr_parse_version(const char *s, int v[3]);
/* Compare two dotted versions numerically (any number of parts); <0, 0, >0. */
int dr_vercmp(const char *a, const char *b);

/* Glob a pattern, appending matches (sorted) to out. */
void dr_glob(const char *pattern, dr_strlist *out);

#endif
