/*
 * ldcache.c -- reader for glibc's loader cache.  Layout (little-endian, from the glibc
 * cache format): a 20-byte magic "glibc-ld.so.cache1.1", u32 nlibs, u32 len_strings,
 * u8 flags, 3 pad bytes, u32 extension_offset, 3 unused u32; then nlibs entries of
 * {i32 flags, u32 key, u32 value, u32 osversion, u64 hwcap}.  key/value are offsets of
 * the SONAME and the path, counted from the start of that new-format header.  Older
 * caches put an "ld.so-1.7.0" table first (12-byte entries) and the new one after it.
 */
#include "ldcache.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define OLD_MAGIC "ld.so-1.7.0"
#define FLAG_TYPE_MASK 0x00ff
#define FLAG_ELF_LIBC6 0x0003
#define FLAG_REQ_MASK 0xff00
#define FLAG_X8664_LIB64 0x0300

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void dr_ldcache_free(dr_ldcache *c)
{
    dr_sl_free(&c->names);
    dr_sl_free(&c->paths);
    c->loaded = 0;
}

int dr_ldcache_parse(const char *file, dr_ldcache *c)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return 0;
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            if (cap > (64u << 20))
                break; /* no sane cache is this big */
            unsigned char *nb = realloc(buf, cap);
            if (!nb)
                break;
            buf = nb;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        if (r == 0)
            break;
        len += r;
    }
    fclose(f);
    size_t base = 0;
    int ok = 0;
    if (len >= 16 && memcmp(buf, OLD_MAGIC, strlen(OLD_MAGIC)) == 0) {
        uint32_t nold = le32(buf + 12);
        uint64_t end = 16 + (uint64_t)nold * 12;
        end = (end + 7) & ~(uint64_t)7; /* the new table is 8-byte aligned */
        if (end > len)
            goto out;
        base = (size_t)end;
    }
    if (len - base < 48 || memcmp(buf + base, NEW_MAGIC, strlen(NEW_MAGIC)) != 0)
        goto out;
    uint32_t n = le32(buf + base + 20);
    if ((uint64_t)n * 24 > len - base - 48)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *e = buf + base + 48 + (size_t)i * 24;
        uint32_t flags = le32(e), key = le32(e + 4), val = le32(e + 8);
        if ((flags & FLAG_TYPE_MASK) != FLAG_ELF_LIBC6 || (flags & FLAG_REQ_MASK) != FLAG_X8664_LIB64)
            continue;
        if ((uint64_t)base + key >= len || (uint64_t)base + val >= len)
            continue;
        const char *k = (const char *)buf + base + key, *v = (const char *)buf + base + val;
        if (!memchr(k, 0, len - base - key) || !memchr(v, 0, len - base - val))
            continue;
        dr_sl_push(&c->names, k);
        dr_sl_push(&c->paths, v);
    }
    ok = 1;
    c->loaded = 1;
    dr_scopy(c->source, sizeof c->source, "ld.so.cache");
out:
    free(buf);
    return ok;
}

void dr_ldcache_parse_ldconfig_text(const char *text, dr_ldcache *c)
{
    dr_strlist lines = {0};
    dr_sl_split(&lines, text, "\n");
    for (size_t i = 0; i < lines.n; i++) {
        /* "\tlibfoo.so.1 (libc6,x86-64) => /path/libfoo.so.1" */
        const char *l = lines.v[i];
        while (*l == ' ' || *l == '\t')
            l++;
        const char *sp = strchr(l, ' '), *arrow = strstr(l, " => ");
        if (!sp || !arrow || strstr(l, "x86-64") == NULL)
            continue;
        char name[512];
        size_t nl = (size_t)(sp - l);
        if (nl >= sizeof name)
            continue;
        memcpy(name, l, nl);
        name[nl] = 0;
        dr_sl_push(&c->names, name);
        dr_sl_push(&c->paths, arrow + 4);
    }
    dr_sl_free(&lines);
    c->loaded = 1;
    dr_scopy(c->source, sizeof c->source, "ldconfig -p");
}

const char *dr_ldcache_lookup(const dr_ldcache *c, const char *name)
{
    for (size_t i = 0; i < c->names.n; i++)
        if (strcmp(c->names.v[i], name) == 0)
            return c->paths.v[i];
    return NULL;
}

static void conf_file(const char *sysroot, const char *file, dr_strlist *dirs, int depth)
{
    char *path = dr_fmt("%s%s", sysroot ? sysroot : "", file);
    FILE *f = fopen(path, "r");
    free(path);
    if (!f || depth > 8) {
        if (f)
            fclose(f);
        return;
    }
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\r\n")] = 0;
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        size_t n = strlen(p);
        while (n && isspace((unsigned char)p[n - 1]))
            p[--n] = 0;
        if (!*p || strncmp(p, "hwcap ", 6) == 0)
            continue;
        if (strncmp(p, "include", 7) == 0 && isspace((unsigned char)p[7])) {
            char *pat = p + 8;
            while (isspace((unsigned char)*pat))
                pat++;
            char *full = dr_fmt("%s%s", sysroot ? sysroot : "", pat);
            dr_strlist g = {0};
            dr_glob(full, &g);
            size_t skip = sysroot ? strlen(sysroot) : 0;
            for (size_t i = 0; i < g.n; i++)
                conf_file(sysroot, g.v[i] + skip, dirs, depth + 1);
            dr_sl_free(&g);
            free(full);
            continue;
        }
        /* "dir" or the old "dir=TYPE" form; several dirs may share a line */
        dr_strlist parts = {0};
        dr_sl_split(&parts, p, " \t,:");
        for (size_t i = 0; i < parts.n; i++) {
            char *eq = strchr(parts.v[i], '=');
            if (eq)
                *eq = 0;
            if (parts.v[i][0] == '/') {
                char *d = dr_fmt("%s%s", sysroot ? sysroot : "", parts.v[i]);
                dr_sl_push_unique(dirs, d);
                free(d);
            }
        }
        dr_sl_free(&parts);
    }
    fclose(f);
}

void dr_ldconf_dirs(const char *sysroot, dr_strlist *dirs)
{
    conf_file(sysroot, "/etc/ld.so.conf", dirs, 0);
}
