/*
 * ldcache.h -- the dynamic loader's cache (/etc/ld.so.cache): which file a bare SONAME
 * resolves to once LD_LIBRARY_PATH and RUNPATH have missed.
 */
#ifndef HD_DOCTOR_LDCACHE_H
#define HD_DOCTOR_LDCACHE_H

#include "util.h"

typedef struct {
    dr_strlist names;  /* SONAME as stored */
    dr_strlist paths;  /* file it maps to, same index */
    int loaded;        /* 1 when a cache was read */
    char source[64];   /* "ld.so.cache", "ldconfig -p" or "none" */
} dr_ldcache;

/* Parse a cache file (glibc "glibc-ld.so.cache1.1" format, optionally behind the old
 * "ld.so-1.7.0" header); keeps x86-64 libc6 entries.  Returns 1 on success. */
int dr_ldcache_parse(const char *file, dr_ldcache *c);
/* Fill from `ldconfig -p` output text. */
void dr_ldcache_parse_ldconfig_text(const char *text, dr_ldcache *c);
/* The first entry for name, or NULL (cache order = ld.so's preference). */
const char *dr_ldcache_lookup(const dr_ldcache *c, const char *name);
void dr_ldcache_free(dr_ldcache *c);

/* The directories ldconfig would cache: /etc/ld.so.conf and its "include" globs (read
 * under sysroot when not NULL; "include" patterns are taken relative to it too).  Each
 * dir is pushed with the sysroot prefix. */
void dr_ldconf_dirs(const char *sysroot, dr_strlist *dirs);

#endif
